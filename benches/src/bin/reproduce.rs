//! `reproduce [EXPERIMENT…] [--scale small|paper] [--format table|wide|csv|json] [--plots DIR]
//! [--dump DIR] [--instance FILE]`
//!
//! Re-runs the papers' experiments and prints one table per experiment. With no experiment
//! named it runs them all. `--format table` (the default) fits a 100-column terminal: each
//! table's key columns, folded into blocks when still too wide, with the title and notes
//! wrapped; `--format wide` prints every column, one line per row; CSV and JSON carry every
//! column. `--list` names them. `--plots DIR` writes SVG charts of the
//! experiments that have figures; `--dump DIR` writes the inputs and outputs of the
//! experiments that have them (fabrics as ibnetdiscover files, multicast tables as text);
//! `--instance FILE` hands an input file to the experiments that take one.

use benches::{Context, Format, Scale, experiments, report};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: reproduce [EXPERIMENT...] [--scale small|paper] [--format table|wide|csv|json]
                 [--plots DIR] [--dump DIR] [--instance FILE] [--list]

  EXPERIMENT       run only these (--list names them); all of them by default
  --scale          small (default: minutes on two cores) or paper (the papers' sizes)
  --format         table (default): each table's key columns, fitting 100 columns;
                   wide: every column, one line per row; csv or json: every column
  --plots DIR      write SVG charts of the experiments that have figures
  --dump DIR       write the inputs and outputs of the experiments that have them
  --instance FILE  hand an input file to the experiments that take one
  --list           name the experiments and what each measures";

fn main() -> ExitCode {
    let mut names = Vec::new();
    let mut scale = Scale::Small;
    let mut format = Format::Table;
    let mut plots: Option<PathBuf> = None;
    let mut dump: Option<PathBuf> = None;
    let mut instance: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        let parsed: Result<(), String> = match arg.as_str() {
            "--scale" => value("--scale").and_then(|v| {
                scale = Scale::parse(&v).ok_or(format!("unknown scale {v:?}"))?;
                Ok(())
            }),
            "--format" => value("--format").and_then(|v| {
                format = Format::parse(&v).ok_or(format!("unknown format {v:?}"))?;
                Ok(())
            }),
            "--plots" => value("--plots").map(|v| plots = Some(PathBuf::from(v))),
            "--dump" => value("--dump").map(|v| dump = Some(PathBuf::from(v))),
            "--instance" => value("--instance").map(|v| instance = Some(PathBuf::from(v))),
            "--list" => {
                for e in experiments::all() {
                    println!("{:<16} {}", e.name(), e.description());
                }
                return ExitCode::SUCCESS;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            s if s.starts_with('-') => Err(format!("unknown option {s:?}")),
            s => {
                names.push(s.to_owned());
                Ok(())
            }
        };
        if let Err(e) = parsed {
            eprintln!("reproduce: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let chosen = if names.is_empty() {
        experiments::all()
    } else {
        let mut chosen = Vec::new();
        for n in &names {
            match experiments::find(n) {
                Some(e) => chosen.push(e),
                None => {
                    let known: Vec<&str> = experiments::all().iter().map(|e| e.name()).collect();
                    eprintln!(
                        "reproduce: unknown experiment {n:?}; known: {}",
                        known.join(", ")
                    );
                    return ExitCode::from(2);
                }
            }
        }
        chosen
    };
    let ctx = Context::new(scale, plots)
        .with_dump_dir(dump)
        .with_instance(instance);
    let mut tables = Vec::new();
    for e in &chosen {
        ctx.progress(&format!("running {}: {}", e.name(), e.description()));
        match e.run(&ctx) {
            Ok(mut t) => {
                t.iter_mut()
                    .for_each(experiments::views::choose_key_columns);
                if format != Format::Json {
                    // Print as we go so a long full run shows its results early.
                    if !tables.is_empty() {
                        println!();
                    }
                    print!("{}", report::render(&t, format));
                }
                tables.extend(t);
            }
            Err(msg) => {
                eprintln!("reproduce: experiment {} failed: {msg}", e.name());
                return ExitCode::FAILURE;
            }
        }
    }
    if format == Format::Json {
        print!("{}", report::render(&tables, format));
    }
    ExitCode::SUCCESS
}
