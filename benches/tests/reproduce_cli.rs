//! The `reproduce` command line: the fabric experiment's exact CSV, and refusals.

use std::process::Command;

fn reproduce(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reproduce"))
        .args(args)
        .output()
        .expect("reproduce runs")
}

/// Runs `reproduce` with `args`, asserts it succeeded (its stderr as the message) and returns its
/// standard output.
fn stdout_of(args: &[&str]) -> String {
    let out = reproduce(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("reproduce prints UTF-8")
}

#[test]
fn fabric_csv_has_the_papers_figures() {
    let text = stdout_of(&["fabric", "--format", "csv"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "topology,switches,terminals,links,max_radix,switch_diameter"
    );
    assert!(
        lines.contains(&"fat_tree-k40,2000,16000,32000,40,4"),
        "{text}"
    );
    assert!(
        lines.contains(&"torus-30x20x20-t2,12000,24000,36000,8,35"),
        "{text}"
    );
    assert!(
        lines.contains(&"dragonfly-a18-p9-h9,2934,26406,38142,35,3"),
        "{text}"
    );
    let rr = lines
        .iter()
        .find(|l| l.starts_with("random_regular-2048-r40-t20"))
        .unwrap();
    assert!(rr.contains(",2048,40960,20480,40,"), "{rr}");
}

#[test]
fn json_and_table_forms() {
    let json = stdout_of(&["fabric", "--format", "json"]);
    assert!(json.starts_with("[{\"experiment\":\"fabric\""), "{json}");
    let table = stdout_of(&["fabric"]);
    // The paper's figures sit beside ours: switches, terminals, links, diameter.
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("fat_tree-k40"))
        .expect("a fat-tree row");
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        [
            "fat_tree-k40",
            "2000",
            "2000",
            "16000",
            "16000",
            "32000",
            "4",
            "4"
        ],
        "{table}"
    );
}

#[test]
fn table_view_fits_a_terminal_and_wide_shows_every_column() {
    let table = stdout_of(&["fabric"]);
    assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");
    assert!(
        table.contains("1 more column(s) in --format wide, csv or json: max_radix"),
        "{table}"
    );
    let wide = stdout_of(&["fabric", "--format", "wide"]);
    let header: Vec<&str> = wide.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "topology",
            "switches",
            "terminals",
            "links",
            "max_radix",
            "switch_diameter",
            "paper:switches",
            "paper:terminals",
            "paper:switch_diameter"
        ]
    );
    let help = stdout_of(&["--help"]);
    assert!(help.contains("--format table|wide|csv|json"), "{help}");
    assert!(help.lines().all(|l| l.chars().count() <= 100), "{help}");
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["no-such-experiment"][..],
        &["--scale", "huge"],
        &["--format", "xml"],
        &["--bogus"],
        &["--plots"],
    ] {
        let out = reproduce(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn list_names_every_experiment() {
    let text = stdout_of(&["--list"]);
    for e in benches::experiments::all() {
        assert!(text.contains(e.name()), "{text}");
    }
}

#[test]
fn dag_lp_instance_prints_the_optimal_load() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../dag-sched/instances/two_jobs.json");
    let text = stdout_of(&[
        "dag-lp",
        "--instance",
        file.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        benches::experiments::dag::INSTANCE_HEADER,
        "{text}"
    );
    let inst =
        dag_sched::instance::Instance::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let rows: Vec<Vec<&str>> = lines[1..]
        .iter()
        .filter(|l| l.starts_with("two_jobs.json,"))
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), dag_sched::lp::Backend::all().len(), "{text}");
    for row in rows {
        let backend = dag_sched::lp::Backend::all()
            .into_iter()
            .find(|b| b.name() == row[8])
            .unwrap();
        let want = inst.solve(backend).unwrap().min_max;
        let got: f64 = row[9].parse().unwrap();
        assert!((got - want).abs() < 1e-8, "{got} vs {want}");
        assert_eq!(&row[1..4], &["3", "2", "3"]);
    }
}

/// `dag-calibrate` at small scale: its exact CSV header, one row per load with two seeds, and
/// TensorFlow's file inflation at least 1 (a file never beats its time alone), rising with the
/// load.
#[test]
fn dag_calibrate_csv() {
    let text = stdout_of(&["dag-calibrate", "--format", "csv"]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(benches::experiments::dag_calibrate::CALIBRATE_HEADER)
    );
    let rows: Vec<Vec<f64>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for r in &rows {
        assert_eq!(r[1], 2.0);
        assert!(r[2] >= 1.0, "{text}");
    }
    assert!(rows[1][2] >= rows[0][2], "{text}");
}
