//! # benches
//!
//! The experiment harness behind the `reproduce` binary, which re-runs each paper's
//! experiments and prints our figures beside the paper's. (The criterion benchmarks of every
//! crate are in the `criterion-benches` package beside it, `cargo bench -p criterion-benches`.)
//!
//! An experiment is a type implementing [`Experiment`]; [`experiments::all`] lists them in
//! the order `reproduce` runs them. Each returns [`Table`]s, which [`report`] prints as an
//! aligned text table that fits a 100-column terminal (each table's key columns, chosen in
//! [`experiments::views`] or by the table itself), a wide text table with every column, CSV
//! (the header is part of each experiment's contract) or JSON, and may draw SVG charts with
//! [`svg`].
//!
//! ```
//! use benches::{Context, Format, Scale, experiments};
//!
//! let fabric = experiments::find("fabric").expect("the fabric experiment exists");
//! assert_eq!(fabric.name(), "fabric");
//! let _ctx = Context::new(Scale::Small, None);
//! let _ = Format::Csv;
//! ```
#![deny(unsafe_code)]

pub mod experiments;
pub mod report;
pub mod svg;

pub use report::{Cell, Format, Table};

use std::path::{Path, PathBuf};
use std::time::Instant;

/// How big the experiments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Minutes on two cores in all: the default, and what CI runs.
    Small,
    /// The sizes the papers used, where a machine can hold them.
    Paper,
}

impl Scale {
    /// Parses `small` or `paper`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "small" => Some(Self::Small),
            "paper" => Some(Self::Paper),
            _ => None,
        }
    }
}

/// What an experiment is handed: the scale, where to write plots, and a progress line.
#[derive(Debug)]
pub struct Context {
    /// Scale of the run.
    pub scale: Scale,
    plots: Option<PathBuf>,
    dump: Option<PathBuf>,
    instance: Option<PathBuf>,
    start: Instant,
}

impl Context {
    /// A context at `scale`, writing SVG charts under `plots` when it is given.
    #[must_use]
    pub fn new(scale: Scale, plots: Option<PathBuf>) -> Self {
        Self {
            scale,
            plots,
            dump: None,
            instance: None,
            start: Instant::now(),
        }
    }

    /// Asks experiments that can to write their inputs and outputs (fabrics, tables) as text
    /// files under `dir` (`reproduce --dump DIR`).
    #[must_use]
    pub fn with_dump_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.dump = dir;
        self
    }

    /// Hands experiments that can take one an input file (`reproduce --instance FILE`).
    #[must_use]
    pub fn with_instance(mut self, file: Option<PathBuf>) -> Self {
        self.instance = file;
        self
    }

    /// The file given with `--instance`, when it was given.
    #[must_use]
    pub fn instance(&self) -> Option<&Path> {
        self.instance.as_deref()
    }

    /// The folder for `--dump`, when it was given.
    #[must_use]
    pub fn dump_dir(&self) -> Option<&Path> {
        self.dump.as_deref()
    }

    /// Prints a progress line on stderr, stamped with the time since the run began.
    pub fn progress(&self, msg: &str) {
        eprintln!("[{:>7.1}s] {msg}", self.start.elapsed().as_secs_f64());
    }

    /// The folder charts go to, when `--plots` was given.
    #[must_use]
    pub fn plots_dir(&self) -> Option<&Path> {
        self.plots.as_deref()
    }

    /// Writes `svg` as `<plots>/<file_name>` when `--plots` was given; returns the path written.
    ///
    /// # Errors
    /// The I/O error, as text, when the file cannot be written.
    pub fn write_plot(&self, file_name: &str, svg: &str) -> Result<Option<PathBuf>, String> {
        let Some(dir) = &self.plots else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let path = dir.join(file_name);
        std::fs::write(&path, svg).map_err(|e| format!("writing {}: {e}", path.display()))?;
        self.progress(&format!("wrote {}", path.display()));
        Ok(Some(path))
    }
}

/// One experiment of `reproduce`.
pub trait Experiment {
    /// The name given on the command line (`reproduce <name>`).
    fn name(&self) -> &'static str;
    /// One line saying what it measures and which figure of which paper it follows.
    fn description(&self) -> &'static str;
    /// Runs it and returns its tables.
    ///
    /// # Errors
    /// A message saying what failed.
    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String>;
}
