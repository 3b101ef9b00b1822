//! The edge of the crate: the functions the CLI and the Python bindings call. This is the
//! only module (with `io`) that touches files; the model below it never does.

use crate::error::FtlabError;
use std::path::PathBuf;

/// Where a scenario comes from.
#[derive(Clone, Debug)]
pub enum ScenarioSource {
    /// The bundled default scenario (`scenarios/default.toml`, compiled in).
    Default,
    /// A TOML file; relative trace paths resolve against its directory.
    File(PathBuf),
    /// TOML text, with the directory relative trace paths resolve against and a display name.
    Text { text: String, base_dir: PathBuf, name: String },
}

/// Options of one `ftlab run`.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the scenario's `seed`.
    pub seed: Option<u64>,
    /// `key.path=value` overrides applied to the scenario before validation, in order.
    pub overrides: Vec<String>,
}

/// Progress of a run, reported to a callback; `done <= total`, in simulated nanoseconds
/// summed over schemes.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
}

/// One typed column of the time-series table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Str(Vec<String>),
    F64(Vec<f64>),
    U64(Vec<u64>),
}

/// A columnar table: `(name, column)` pairs, all columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

/// Everything one run produces; the caller writes it to disk.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// `summary.json`, byte-identical for the same scenario and seed.
    pub summary_json: String,
    /// The scenario with every default filled in, as TOML.
    pub resolved_toml: String,
    /// One row per scheme, tenant and window.
    pub timeseries: Table,
}

/// One `ftlab bench` case.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub case: String,
    pub requests: u64,
    pub wall_s: f64,
    pub requests_per_s: f64,
    /// Wall time of preconditioning, not included in `wall_s`.
    pub precondition_wall_s: f64,
}
