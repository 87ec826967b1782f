//! Tables of results and their printed forms: aligned text (a terminal view and a wide one), CSV
//! and JSON.
//!
//! A [`Table`] has the columns of its CSV contract and, optionally, the paper's figures for the
//! same rows in extra columns. CSV prints only our columns, so its header is exactly the
//! experiment's contract; JSON carries both. The text forms print the paper's columns beside
//! ours, leaving out a paper column that has no figure in any row:
//!
//! - [`Format::Table`] fits [`TERMINAL_WIDTH`] columns: it shows the table's chosen columns
//!   ([`Table::text_view`]; all of them when it names none), folds them into blocks that each
//!   repeat the label columns when a row would still be wider, names the columns it leaves out,
//!   and wraps the title and every note;
//! - [`Format::Wide`] shows every column, one line per row, and wraps only the title and notes.

use std::fmt::Write as _;

/// One value in a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// An integer.
    Int(i64),
    /// A real number, printed with the given number of decimals.
    Float(f64, usize),
    /// Text.
    Text(String),
    /// Nothing to report (printed empty in CSV, `-` in text, `null` in JSON).
    Empty,
}

impl Cell {
    /// A text cell.
    #[must_use]
    pub fn text(s: impl Into<String>) -> Self {
        Self::Text(s.into())
    }

    /// An integer cell from any unsigned count that fits `i64` (larger values saturate).
    #[must_use]
    pub fn count(n: impl TryInto<i64>) -> Self {
        Self::Int(n.try_into().unwrap_or(i64::MAX))
    }

    /// A real cell with `decimals` places.
    #[must_use]
    pub fn float(x: f64, decimals: usize) -> Self {
        Self::Float(x, decimals)
    }

    fn plain(&self) -> String {
        match self {
            Self::Int(i) => i.to_string(),
            Self::Float(x, d) => format!("{x:.d$}", d = *d),
            Self::Text(s) => s.clone(),
            Self::Empty => String::new(),
        }
    }

    fn csv(&self) -> String {
        match self {
            Self::Text(s) if s.contains([',', '"', '\n']) => {
                format!("\"{}\"", s.replace('"', "\"\""))
            }
            other => other.plain(),
        }
    }

    fn json(&self) -> String {
        match self {
            Self::Int(i) => i.to_string(),
            Self::Float(x, _) if x.is_finite() => format!("{x}"),
            Self::Float(..) | Self::Empty => "null".to_owned(),
            Self::Text(s) => json_string(s),
        }
    }
}

/// The printed form asked for with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns that fit [`TERMINAL_WIDTH`]: the key columns, the paper's figures beside
    /// ours, the title and notes wrapped.
    Table,
    /// Aligned columns, every one of them, one line per row; the title and notes wrapped.
    Wide,
    /// Comma-separated values; the header is the experiment's contract.
    Csv,
    /// One JSON array of table objects for the whole run.
    Json,
}

impl Format {
    /// Parses `table`, `wide`, `csv` or `json`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "table" => Some(Self::Table),
            "wide" => Some(Self::Wide),
            "csv" => Some(Self::Csv),
            "json" => Some(Self::Json),
            _ => None,
        }
    }
}

/// One table of results.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The experiment that made it.
    pub experiment: String,
    /// A title for the text form.
    pub title: String,
    /// Our columns: the CSV header, exactly.
    pub columns: Vec<String>,
    /// Our rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// Names of the paper's columns, shown beside ours in the text form.
    pub paper_columns: Vec<String>,
    /// The paper's figures for each row (empty, or one row per row of `rows`).
    pub paper_rows: Vec<Vec<Cell>>,
    /// Lines printed under the text form (how to read it, what differs from the paper).
    pub notes: Vec<String>,
    /// The columns [`Format::Table`] shows, in this order, each `(name, label)`: `name` one of
    /// our columns or `paper:NAME` for one of the paper's, printed under `label`. Empty: every
    /// column under its own name. The columns not named are listed under the table;
    /// [`Format::Wide`], CSV and JSON show every column whatever this holds.
    pub text_view: Vec<(String, String)>,
}

impl Table {
    /// An empty table with our columns, given as the CSV header text (`a,b,c`).
    #[must_use]
    pub fn new(experiment: &str, title: &str, header: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            title: title.to_owned(),
            columns: header.split(',').map(str::to_owned).collect(),
            rows: Vec::new(),
            paper_columns: Vec::new(),
            paper_rows: Vec::new(),
            notes: Vec::new(),
            text_view: Vec::new(),
        }
    }

    /// Shows only `columns` in [`Format::Table`], each `(name, label)`: `name` one of our
    /// columns or `paper:NAME` for one of the paper's, printed under `label`, so that a wide
    /// table fits a terminal (see [`Table::text_view`]); names that are not columns of this
    /// table are ignored.
    #[must_use]
    pub fn with_text_view(mut self, columns: &[(&str, &str)]) -> Self {
        self.text_view = columns
            .iter()
            .map(|(n, l)| ((*n).to_owned(), (*l).to_owned()))
            .collect();
        self
    }

    /// [`Table::with_text_view`] with each column under its own name (a paper column
    /// `paper:NAME` under `paper:NAME` less a `paper_` prefix of NAME), or under the label
    /// given as `name as label`.
    #[must_use]
    pub fn with_key_columns(mut self, names: &[&str]) -> Self {
        self.set_key_columns(names);
        self
    }

    /// Sets [`Table::text_view`] as [`Table::with_key_columns`] does.
    pub fn set_key_columns(&mut self, names: &[&str]) {
        self.text_view = names
            .iter()
            .map(|n| match n.split_once(" as ") {
                Some((name, label)) => (name.to_owned(), label.to_owned()),
                None => ((*n).to_owned(), default_label(n)),
            })
            .collect();
    }

    /// Names the paper's columns (text form only).
    #[must_use]
    pub fn with_paper_columns(mut self, names: &[&str]) -> Self {
        self.paper_columns = names.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// Adds a row of ours.
    ///
    /// # Panics
    /// If the row's length differs from the number of columns (a bug in the experiment).
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(row.len(), self.columns.len(), "row width of {}", self.title);
        self.rows.push(row);
    }

    /// Adds a row of ours with the paper's figures for it.
    ///
    /// # Panics
    /// If a row's length differs from its column count (a bug in the experiment).
    pub fn push_with_paper(&mut self, row: Vec<Cell>, paper: Vec<Cell>) {
        assert_eq!(
            paper.len(),
            self.paper_columns.len(),
            "paper width of {}",
            self.title
        );
        while self.paper_rows.len() < self.rows.len() {
            self.paper_rows
                .push(vec![Cell::Empty; self.paper_columns.len()]);
        }
        self.push(row);
        self.paper_rows.push(paper);
    }

    /// Adds a note printed under the text form.
    pub fn note(&mut self, line: impl Into<String>) {
        self.notes.push(line.into());
    }

    /// The CSV form: the header line, then one line per row.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let mut out = self.columns.join(",");
        out.push('\n');
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(Cell::csv).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }

    /// The aligned text form of [`Format::Table`]: key columns, no line wider than
    /// [`TERMINAL_WIDTH`] columns (but for a single cell wider than that).
    #[must_use]
    pub fn to_text(&self) -> String {
        self.render_text(false)
    }

    /// The aligned text form of [`Format::Wide`]: every column, one line per row.
    #[must_use]
    pub fn to_wide_text(&self) -> String {
        self.render_text(true)
    }

    fn render_text(&self, wide: bool) -> String {
        // Every column as (name, its cells as printed): ours, then the paper's with a figure.
        let mut columns: Vec<(String, Vec<String>)> = self
            .columns
            .iter()
            .enumerate()
            .map(|(j, name)| {
                let cells = self
                    .rows
                    .iter()
                    .map(|r| r.get(j).map_or_else(String::new, Cell::plain))
                    .collect();
                (name.clone(), cells)
            })
            .collect();
        let mut no_figure: Vec<&str> = Vec::new();
        for (j, name) in self.paper_columns.iter().enumerate() {
            let cells: Vec<Option<&Cell>> = (0..self.rows.len())
                .map(|i| self.paper_rows.get(i).and_then(|p| p.get(j)))
                .collect();
            if cells.iter().all(|c| matches!(c, None | Some(Cell::Empty))) {
                no_figure.push(name);
                continue;
            }
            let cells = cells
                .into_iter()
                .map(|c| match c {
                    None | Some(Cell::Empty) => "-".to_owned(),
                    Some(c) => c.plain(),
                })
                .collect();
            columns.push((format!("paper:{name}"), cells));
        }
        let mut shown: Vec<TextColumn> = Vec::new();
        let mut hidden: Vec<String> = Vec::new();
        if wide
            || !self
                .text_view
                .iter()
                .any(|(n, _)| columns.iter().any(|c| &c.0 == n))
        {
            for (name, cells) in columns {
                shown.push(TextColumn::new(default_label(&name), cells));
            }
        } else {
            for (name, label) in &self.text_view {
                if let Some(k) = columns.iter().position(|c| &c.0 == name) {
                    let (_, cells) = columns.swap_remove(k);
                    shown.push(TextColumn::new(label.clone(), cells));
                }
            }
            // What is left, in the table's order.
            let order = |n: &str| {
                self.columns
                    .iter()
                    .chain(self.paper_columns.iter())
                    .position(|c| c == n || format!("paper:{c}") == n)
            };
            columns.sort_by_key(|c| order(&c.0));
            hidden = columns.into_iter().map(|c| c.0).collect();
        }
        let mut out = String::new();
        let title = format!("== {} ({}) ==", self.title, self.experiment);
        push_wrapped(&mut out, "", "   ", &title);
        let blocks = if wide {
            vec![(0..shown.len()).collect()]
        } else {
            fold(&shown)
        };
        for (b, block) in blocks.iter().enumerate() {
            if b > 0 {
                out.push('\n');
            }
            let line = |out: &mut String, cell: &dyn Fn(&TextColumn) -> String| {
                let parts: Vec<String> = block
                    .iter()
                    .map(|&j| {
                        let c = &shown[j];
                        let text = cell(c);
                        let pad = c.width.saturating_sub(text.chars().count());
                        format!("{}{text}", " ".repeat(pad))
                    })
                    .collect();
                let _ = writeln!(out, "{}", parts.join(COLUMN_GAP).trim_end());
            };
            line(&mut out, &|c| c.name.clone());
            line(&mut out, &|c| "-".repeat(c.width));
            for i in 0..self.rows.len() {
                line(&mut out, &|c| c.cells[i].clone());
            }
        }
        if !hidden.is_empty() {
            let text = format!(
                "{} more column(s) in --format wide, csv or json: {}",
                hidden.len(),
                hidden.join(", ")
            );
            push_wrapped(&mut out, "  ", "    ", &text);
        }
        if !no_figure.is_empty() {
            let text = format!(
                "the paper gives no figure for these rows in column(s): {}",
                no_figure.join(", ")
            );
            push_wrapped(&mut out, "  ", "    ", &text);
        }
        for n in &self.notes {
            push_wrapped(&mut out, "  note: ", "        ", n);
        }
        out
    }

    /// The JSON object for this table.
    #[must_use]
    pub fn to_json(&self) -> String {
        let strs = |v: &[String]| -> String {
            let parts: Vec<String> = v.iter().map(|s| json_string(s)).collect();
            format!("[{}]", parts.join(","))
        };
        let rows = |rows: &[Vec<Cell>]| -> String {
            let parts: Vec<String> = rows
                .iter()
                .map(|r| {
                    let cells: Vec<String> = r.iter().map(Cell::json).collect();
                    format!("[{}]", cells.join(","))
                })
                .collect();
            format!("[{}]", parts.join(","))
        };
        format!(
            "{{\"experiment\":{},\"title\":{},\"columns\":{},\"rows\":{},\"paper_columns\":{},\"paper_rows\":{},\"notes\":{}}}",
            json_string(&self.experiment),
            json_string(&self.title),
            strs(&self.columns),
            rows(&self.rows),
            strs(&self.paper_columns),
            rows(&self.paper_rows),
            strs(&self.notes),
        )
    }
}

/// Renders every table of a run in one format.
#[must_use]
pub fn render(tables: &[Table], format: Format) -> String {
    match format {
        Format::Csv => {
            let parts: Vec<String> = tables.iter().map(Table::to_csv).collect();
            parts.join("\n")
        }
        Format::Table => {
            let parts: Vec<String> = tables.iter().map(Table::to_text).collect();
            parts.join("\n")
        }
        Format::Wide => {
            let parts: Vec<String> = tables.iter().map(Table::to_wide_text).collect();
            parts.join("\n")
        }
        Format::Json => {
            let parts: Vec<String> = tables.iter().map(Table::to_json).collect();
            format!("[{}]\n", parts.join(",\n"))
        }
    }
}

/// The label a column gets without one of its own: its name, or for a paper column
/// `paper:NAME` the name less a `paper_` prefix of NAME (`paper:paper_speedup` prints as
/// `paper:speedup`).
fn default_label(name: &str) -> String {
    match name.strip_prefix("paper:") {
        Some(p) => format!("paper:{}", p.strip_prefix("paper_").unwrap_or(p)),
        None => name.to_owned(),
    }
}

/// The widest line, in characters, that [`Format::Table`] prints (a 100-column terminal).
pub const TERMINAL_WIDTH: usize = 100;

const COLUMN_GAP: &str = "  ";

/// One column of a text view: its header, its cells as printed, and its width in characters.
struct TextColumn {
    name: String,
    cells: Vec<String>,
    width: usize,
}

impl TextColumn {
    fn new(name: String, cells: Vec<String>) -> Self {
        let width = cells
            .iter()
            .map(|c| c.chars().count())
            .chain(std::iter::once(name.chars().count()))
            .max()
            .unwrap_or(0);
        Self { name, cells, width }
    }
}

/// Splits the columns into blocks of consecutive columns that each fit [`TERMINAL_WIDTH`]; every
/// block after the first starts with the label columns again (the leading columns holding text
/// that is not a number, at least the first column), so each printed row names what it is. (A
/// column too wide to sit beside the labels within the width still gets a block of its own with
/// them.)
fn fold(columns: &[TextColumn]) -> Vec<Vec<usize>> {
    let gap = COLUMN_GAP.len();
    let mut labels = columns
        .iter()
        .take_while(|c| {
            c.cells
                .iter()
                .any(|s| !s.is_empty() && s.parse::<f64>().is_err())
        })
        .count()
        .clamp(1, columns.len().max(1));
    let label_width = |n: usize| columns[..n].iter().map(|c| c.width + gap).sum::<usize>();
    while labels > 1 && label_width(labels) > TERMINAL_WIDTH / 2 {
        labels -= 1;
    }
    if columns.len() <= labels {
        return vec![(0..columns.len()).collect()];
    }
    let mut blocks = Vec::new();
    let mut block: Vec<usize> = (0..labels).collect();
    let mut width = label_width(labels) - gap;
    for (j, c) in columns.iter().enumerate().skip(labels) {
        if width + gap + c.width > TERMINAL_WIDTH && block.len() > labels {
            blocks.push(std::mem::replace(&mut block, (0..labels).collect()));
            width = label_width(labels) - gap;
        }
        block.push(j);
        width += gap + c.width;
    }
    blocks.push(block);
    blocks
}

/// Appends `text` wrapped at [`TERMINAL_WIDTH`]: the first line starts with `first`, the others
/// with `rest` (no longer than `first`); a word wider than a line is cut into pieces.
fn push_wrapped(out: &mut String, first: &str, rest: &str, text: &str) {
    let room = TERMINAL_WIDTH
        .saturating_sub(first.chars().count().max(rest.chars().count()))
        .max(1);
    let mut line = first.to_owned();
    let mut len = first.chars().count();
    let mut fresh = true;
    for word in text.split_whitespace() {
        let chars: Vec<char> = word.chars().collect();
        for piece in chars.chunks(room) {
            if !fresh && len + 1 + piece.len() > TERMINAL_WIDTH {
                let _ = writeln!(out, "{}", line.trim_end());
                line = rest.to_owned();
                len = rest.chars().count();
                fresh = true;
            }
            if !fresh {
                line.push(' ');
                len += 1;
            }
            line.extend(piece);
            len += piece.len();
            fresh = false;
        }
    }
    let _ = writeln!(out, "{}", line.trim_end());
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("x", "Sample", "name,count,ratio").with_paper_columns(&["count"]);
        t.push_with_paper(
            vec![Cell::text("a,b"), Cell::count(3u32), Cell::float(0.5, 2)],
            vec![Cell::count(4u32)],
        );
        t.push(vec![Cell::text("c"), Cell::Int(-1), Cell::Empty]);
        t.note("a note");
        t
    }

    #[test]
    fn csv_header_is_exactly_the_columns_and_quotes_commas() {
        assert_eq!(
            sample().to_csv(),
            "name,count,ratio\n\"a,b\",3,0.50\nc,-1,\n"
        );
    }

    #[test]
    fn text_puts_paper_beside_ours() {
        let text = sample().to_text();
        assert!(text.contains("paper:count"), "{text}");
        let first_row = text.lines().nth(3).unwrap();
        assert!(first_row.ends_with(" 4"), "{first_row}");
        let second_row = text.lines().nth(4).unwrap();
        assert!(second_row.ends_with('-'), "{second_row}");
        assert!(text.contains("note: a note"));
    }

    fn longest_line(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    /// 12 columns of 12 characters: 166 columns in one line.
    fn wide_sample() -> Table {
        let names: Vec<String> = (0..12).map(|j| format!("column_{j:05}")).collect();
        let mut t = Table::new("w", "Wide", &names.join(","));
        for i in 0..3 {
            t.push((0..12).map(|j| Cell::Int(i * 100 + j)).collect());
        }
        t
    }

    #[test]
    fn table_view_folds_wide_rows_repeating_the_first_column() {
        let t = wide_sample();
        let text = t.to_text();
        assert!(longest_line(&text) <= TERMINAL_WIDTH, "{text}");
        // Two blocks, each with a header naming column 0 and every row's first cell.
        assert_eq!(text.matches("column_00000").count(), 2, "{text}");
        assert_eq!(text.matches("column_00011").count(), 1, "{text}");
        for i in 0..3 {
            let label = format!("{} ", i * 100);
            let rows = text.lines().filter(|l| l.trim_start().starts_with(&label));
            assert_eq!(rows.count(), 2, "{text}");
        }
        // Wide keeps one line per row, every column in it.
        let wide = t.to_wide_text();
        assert_eq!(wide.lines().count(), 1 + 2 + 3, "{wide}");
        assert!(longest_line(&wide) > TERMINAL_WIDTH);
        // No figure is lost by folding: every cell of the table is printed in both views.
        for view in [&text, &wide] {
            let tokens: Vec<&str> = view.split_whitespace().collect();
            for v in 0..300 {
                let printed = tokens.contains(&v.to_string().as_str());
                assert_eq!(printed, v % 100 < 12, "{v} in {view}");
            }
        }
    }

    #[test]
    fn text_view_picks_and_relabels_columns_and_csv_keeps_all() {
        let t = sample().with_text_view(&[("paper:count", "p"), ("name", "n"), ("nope", "x")]);
        let text = t.to_text();
        let head = text.lines().nth(1).unwrap();
        assert_eq!(head.split_whitespace().collect::<Vec<_>>(), ["p", "n"]);
        let first_row = text.lines().nth(3).unwrap();
        assert_eq!(
            first_row.split_whitespace().collect::<Vec<_>>(),
            ["4", "a,b"]
        );
        assert!(text.contains("2 more column(s) in --format wide, csv or json: count, ratio"));
        assert_eq!(t.to_csv(), sample().to_csv());
        // The wide view shows every column under its own name.
        let wide = t.to_wide_text();
        let head = wide.lines().nth(1).unwrap();
        assert_eq!(
            head.split_whitespace().collect::<Vec<_>>(),
            ["name", "count", "ratio", "paper:count"]
        );
    }

    #[test]
    fn key_columns_choose_the_table_view_and_name_the_rest() {
        let t = wide_sample().with_key_columns(&["column_00000", "column_00003", "nope"]);
        let text = t.to_text();
        assert_eq!(
            text.lines().nth(1).unwrap().trim(),
            "column_00000  column_00003"
        );
        assert!(
            text.contains("10 more column(s) in --format wide, csv or json: column_00001,"),
            "{text}"
        );
        assert!(!t.to_wide_text().contains("more column"));
        // CSV and JSON keep every column.
        assert!(t.to_csv().starts_with("column_00000,column_00001,"));
        assert!(t.to_json().contains("\"column_00011\""));
    }

    #[test]
    fn paper_columns_without_a_figure_are_left_out_of_the_text() {
        let mut t = Table::new("x", "T", "a").with_paper_columns(&["none", "some"]);
        t.push_with_paper(vec![Cell::Int(1)], vec![Cell::Empty, Cell::Int(7)]);
        t.push(vec![Cell::Int(2)]);
        let text = t.to_text();
        assert!(!text.contains("paper:none"), "{text}");
        assert!(
            text.contains("the paper gives no figure for these rows in column(s): none"),
            "{text}"
        );
        assert!(text.contains("paper:some"), "{text}");
        assert!(t.to_wide_text().contains("paper:some"));
        assert!(
            t.to_json()
                .contains("\"paper_columns\":[\"none\",\"some\"]")
        );
    }

    #[test]
    fn notes_and_titles_wrap_with_nothing_lost() {
        let mut t = Table::new("x", &"title word ".repeat(20), "a");
        let note = format!("{} {}", "word ".repeat(60), "x".repeat(250));
        t.note(note.clone());
        t.note("second");
        t.push(vec![Cell::Int(1)]);
        for text in [t.to_text(), t.to_wide_text()] {
            assert!(longest_line(&text) <= TERMINAL_WIDTH, "{text}");
            assert_eq!(text.matches("note: ").count(), 2, "{text}");
            let words: usize = text.matches("word").count();
            assert_eq!(words, 80, "{text}");
            assert_eq!(text.matches('x').count(), 250 + 1, "{text}");
            // One note per line start; continuation lines are indented under the note's text.
            assert!(
                text.lines().any(|l| l.starts_with("        word")),
                "{text}"
            );
        }
    }

    #[test]
    fn json_escapes_and_nulls() {
        let json = sample().to_json();
        assert!(
            json.contains("\"rows\":[[\"a,b\",3,0.5],[\"c\",-1,null]]"),
            "{json}"
        );
        assert_eq!(json_string("q\"\n\u{1}"), "\"q\\\"\\n\\u0001\"");
    }
}
