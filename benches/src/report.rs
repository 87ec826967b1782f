//! Tables of results and their three printed forms: aligned text, CSV and JSON.
//!
//! A [`Table`] has the columns of its CSV contract and, optionally, the paper's figures for the
//! same rows in extra columns. CSV prints only our columns, so its header is exactly the
//! experiment's contract; the text table prints the paper's columns beside ours; JSON carries
//! both.

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
    /// Aligned columns with a title, the paper's figures beside ours, and notes.
    Table,
    /// Comma-separated values; the header is the experiment's contract.
    Csv,
    /// One JSON array of table objects for the whole run.
    Json,
}

impl Format {
    /// Parses `table`, `csv` or `json`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "table" => Some(Self::Table),
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
    /// The columns the text form shows, with the label it prints for each (ours by name,
    /// the paper's as `paper:NAME`); empty: every column under its own name. CSV and JSON
    /// always carry every column.
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

    /// Shows only `columns` in the text form, each `(name, label)`: `name` one of our
    /// columns or `paper:NAME` for one of the paper's, printed under `label`, so that a wide
    /// table's text form fits a terminal (CSV and JSON keep every column).
    #[must_use]
    pub fn with_text_view(mut self, columns: &[(&str, &str)]) -> Self {
        self.text_view = columns
            .iter()
            .map(|(n, l)| ((*n).to_owned(), (*l).to_owned()))
            .collect();
        self
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

    /// The aligned text form, with the paper's columns (prefixed `paper:`) beside ours.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut header: Vec<String> = self.columns.clone();
        header.extend(self.paper_columns.iter().map(|c| format!("paper:{c}")));
        let mut body: Vec<Vec<String>> = Vec::with_capacity(self.rows.len());
        for (i, row) in self.rows.iter().enumerate() {
            let mut line: Vec<String> = row.iter().map(Cell::plain).collect();
            if !self.paper_columns.is_empty() {
                match self.paper_rows.get(i) {
                    Some(p) => line.extend(p.iter().map(|c| match c {
                        Cell::Empty => "-".to_owned(),
                        c => c.plain(),
                    })),
                    None => line.extend(self.paper_columns.iter().map(|_| "-".to_owned())),
                }
            }
            body.push(line);
        }
        if !self.text_view.is_empty() {
            let pick: Vec<usize> = self
                .text_view
                .iter()
                .filter_map(|(n, _)| header.iter().position(|h| h == n))
                .collect();
            header = self
                .text_view
                .iter()
                .filter(|(n, _)| header.contains(n))
                .map(|(_, l)| l.clone())
                .collect();
            for line in &mut body {
                *line = pick.iter().map(|&k| line[k].clone()).collect();
            }
        }
        let mut widths: Vec<usize> = header.iter().map(String::len).collect();
        for line in &body {
            for (w, c) in widths.iter_mut().zip(line) {
                *w = (*w).max(c.len());
            }
        }
        let mut out = String::new();
        let _ = writeln!(out, "== {} ({}) ==", self.title, self.experiment);
        let fmt_line = |cells: &[String], out: &mut String| {
            let parts: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}", w = *w))
                .collect();
            let _ = writeln!(out, "{}", parts.join("  ").trim_end());
        };
        fmt_line(&header, &mut out);
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        fmt_line(&rule, &mut out);
        for line in &body {
            fmt_line(line, &mut out);
        }
        for n in &self.notes {
            wrap_note(&mut out, n);
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

/// Writes `note` as `  note: ...`, its words wrapped to lines of at most 100 columns (a
/// longer word gets a line of its own), continuation lines indented under the text.
fn wrap_note(out: &mut String, note: &str) {
    const WIDTH: usize = 100;
    let mut line = String::from("  note:");
    let mut fresh = true;
    for word in note.split_whitespace() {
        if !fresh && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(7);
        }
        line.push(' ');
        line.push_str(word);
        fresh = false;
    }
    out.push_str(&line);
    out.push('\n');
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
        Format::Json => {
            let parts: Vec<String> = tables.iter().map(Table::to_json).collect();
            format!("[{}]\n", parts.join(",\n"))
        }
    }
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
        assert_eq!(t.to_csv(), sample().to_csv());
    }

    #[test]
    fn notes_wrap_at_100_columns() {
        let mut out = String::new();
        let long = "word ".repeat(60);
        wrap_note(&mut out, &long);
        assert!(out.lines().count() > 2);
        assert!(out.lines().all(|l| l.len() <= 100), "{out}");
        assert!(out.starts_with("  note: word"));
        assert!(out.lines().nth(1).unwrap().starts_with("        word"));
        assert_eq!(out.matches("word").count(), 60);
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
