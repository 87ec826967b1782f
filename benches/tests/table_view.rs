//! The terminal view of every experiment's tables, rendered from a recorded small run: no line
//! wider than 100 columns, and no figure lost.
//!
//! `tests/data/reproduce-small.json` and `tests/data/reproduce-small.csv` are the output of
//! `reproduce --scale small --format json` and `--format csv` (one run each). The CSV gives our
//! cells exactly as printed (JSON keeps a real number's value, not its decimals); the JSON gives
//! titles, notes and the paper's columns. Record them again when an experiment's tables change.

use benches::experiments::views;
use benches::report::TERMINAL_WIDTH;
use benches::{Cell, Table};
use serde_json::Value;

const JSON: &str = include_str!("data/reproduce-small.json");
const CSV: &str = include_str!("data/reproduce-small.csv");

/// Splits one CSV line as `Table::to_csv` writes it (a field with a comma or quote is quoted,
/// quotes doubled).
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

fn cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::Empty,
        Value::String(s) => Cell::text(s.clone()),
        other => Cell::text(other.to_string()),
    }
}

/// The recorded run's tables, with each experiment's key columns chosen as `reproduce` does.
fn recorded() -> Vec<Table> {
    let json: Value = serde_json::from_str(JSON).expect("the recorded JSON parses");
    let tables = json.as_array().expect("an array of tables");
    let blocks: Vec<&str> = CSV.split("\n\n").filter(|b| !b.trim().is_empty()).collect();
    assert_eq!(blocks.len(), tables.len(), "one CSV block per JSON table");
    tables
        .iter()
        .zip(blocks)
        .map(|(t, block)| {
            let mut lines = block.lines();
            let header = lines.next().expect("a header");
            let mut table = Table::new(
                t["experiment"].as_str().expect("experiment"),
                t["title"].as_str().expect("title"),
                header,
            );
            assert_eq!(table.columns, strings(&t["columns"]), "{header}");
            table.paper_columns = strings(&t["paper_columns"]);
            table.notes = strings(&t["notes"]);
            for line in lines {
                let cells = split_csv(line).into_iter().map(Cell::text).collect();
                table.push(cells);
            }
            assert_eq!(
                t["rows"].as_array().map(Vec::len),
                Some(table.rows.len()),
                "{header}"
            );
            for row in t["paper_rows"].as_array().expect("paper rows") {
                let row = row.as_array().expect("a paper row");
                table.paper_rows.push(row.iter().map(cell).collect());
            }
            views::choose_key_columns(&mut table);
            table
        })
        .collect()
}

fn too_wide(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .map(|l| (l.chars().count(), l))
        .filter(|(n, _)| *n > TERMINAL_WIDTH)
        .collect()
}

#[test]
fn every_table_view_fits_a_terminal() {
    let tables = recorded();
    let experiments: Vec<&str> = tables.iter().map(|t| t.experiment.as_str()).collect();
    for e in benches::experiments::all() {
        assert!(experiments.contains(&e.name()), "{} not recorded", e.name());
    }
    let mut offenders = Vec::new();
    for t in &tables {
        let text = t.to_text();
        if let Some(widest) = too_wide(&text).iter().map(|(n, _)| *n).max() {
            offenders.push(format!("{} ({}): {widest} columns", t.experiment, t.title));
        }
    }
    assert!(
        offenders.is_empty(),
        "lines over {TERMINAL_WIDTH} columns in: {offenders:#?}"
    );
}

#[test]
fn the_recording_holds_tables_wider_than_a_terminal() {
    // What the fit is checked against: mcast-colors alone is over 300 columns wide in full.
    let tables = recorded();
    let colors = tables
        .iter()
        .find(|t| t.experiment == "mcast-colors")
        .expect("mcast-colors recorded");
    assert!(colors.columns.len() > 20);
    let widest = colors
        .to_wide_text()
        .lines()
        .map(|l| l.chars().count())
        .max();
    assert!(widest > Some(3 * TERMINAL_WIDTH), "{widest:?}");
    // Every note of the run is printed whole: one `note:` line start per note.
    for t in &tables {
        assert_eq!(t.to_text().matches("  note: ").count(), t.notes.len());
    }
}

#[test]
fn no_figure_is_lost_from_the_views() {
    for t in recorded() {
        let text = t.to_text();
        let wide = t.to_wide_text();
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let wide_tokens: Vec<&str> = wide.split_whitespace().collect();
        for (j, name) in t.columns.iter().enumerate() {
            assert!(wide_tokens.contains(&name.as_str()), "{name} in wide view");
            let shown = t.text_view.is_empty() || t.text_view.iter().any(|(n, _)| n == name);
            if !shown {
                // Named in the list of columns left out (the list may be wrapped).
                assert!(
                    text.contains(&format!(" {name},")) || text.contains(&format!(" {name}\n")),
                    "{name} neither shown nor named in {text}"
                );
            }
            for row in &t.rows {
                let Cell::Text(v) = &row[j] else { continue };
                if v.is_empty() || v.contains(char::is_whitespace) {
                    continue;
                }
                assert!(wide_tokens.contains(&v.as_str()), "{name}={v} in wide view");
                if shown {
                    assert!(tokens.contains(&v.as_str()), "{name}={v} in table view");
                }
            }
        }
        // A paper figure is printed in the wide view, and in the table view where its column
        // is shown (else the column is named under the table).
        for (j, name) in t.paper_columns.iter().enumerate() {
            let key = format!("paper:{name}");
            let shown = t.text_view.is_empty() || t.text_view.iter().any(|(n, _)| *n == key);
            if !shown
                && t.paper_rows
                    .iter()
                    .any(|r| matches!(r.get(j), Some(Cell::Text(_))))
            {
                assert!(
                    text.contains(&key),
                    "{key} neither shown nor named in {text}"
                );
            }
            for row in &t.paper_rows {
                if let Some(Cell::Text(v)) = row.get(j) {
                    assert!(wide.contains(v.as_str()), "paper {v} in wide view");
                    if shown {
                        assert!(text.contains(v.as_str()), "paper {v} in table view");
                    }
                }
            }
        }
    }
}

#[test]
fn every_key_column_entry_matches_a_recorded_table() {
    let tables = recorded();
    for (header, keys) in views::KEY_COLUMNS {
        if *header == benches::experiments::dag::INSTANCE_HEADER {
            // Only `reproduce dag-lp --instance FILE` makes this table; its keys are checked
            // against its header by the views module's own test.
            continue;
        }
        let t = tables
            .iter()
            .find(|t| t.columns.join(",") == *header)
            .unwrap_or_else(|| panic!("no recorded table has the header {header}"));
        let text = t.to_text();
        for k in *keys {
            let key = k.split_once(" as ").map_or(*k, |(name, _)| name);
            let (name, label) = t
                .text_view
                .iter()
                .find(|(n, _)| n == key)
                .unwrap_or_else(|| panic!("key {k} of {header} not in the text view"));
            let shown = text.split_whitespace().any(|w| w == label);
            // A paper column with no figure in any recorded row is left out of the view.
            let no_figure = name.strip_prefix("paper:").is_some_and(|name| {
                let j = t.paper_columns.iter().position(|p| p == name);
                j.is_some_and(|j| {
                    t.paper_rows
                        .iter()
                        .all(|r| matches!(r.get(j), None | Some(Cell::Empty)))
                })
            });
            assert!(shown || no_figure, "key {k} of {header} not shown:\n{text}");
        }
    }
}

#[test]
fn the_table_view_keeps_rows_apart() {
    // Rows that differ in a column of names (text that is not a number) still differ in the
    // columns the view shows: a view does not drop what tells two rows apart.
    for t in recorded() {
        if t.text_view.is_empty() {
            continue;
        }
        let is_name = |j: usize| {
            t.rows.iter().any(|r| match &r[j] {
                Cell::Text(s) => !s.is_empty() && s.parse::<f64>().is_err(),
                _ => false,
            })
        };
        let names: Vec<usize> = (0..t.columns.len()).filter(|&j| is_name(j)).collect();
        let shown: Vec<usize> = (0..t.columns.len())
            .filter(|&j| t.text_view.iter().any(|(n, _)| *n == t.columns[j]))
            .collect();
        let key = |r: &[Cell], cols: &[usize]| -> Vec<Cell> {
            cols.iter().map(|&j| r[j].clone()).collect()
        };
        for (a, ra) in t.rows.iter().enumerate() {
            for rb in &t.rows[a + 1..] {
                if key(ra, &names) != key(rb, &names) {
                    assert_ne!(
                        key(ra, &shown),
                        key(rb, &shown),
                        "{}: rows {:?} and {:?} look alike in the view",
                        t.title,
                        ra,
                        rb
                    );
                }
            }
        }
    }
}
