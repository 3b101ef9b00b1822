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

/// The names of the `ftlab bench` cases, in the order `ftlab bench` runs them.
pub const BENCH_CASES: &[&str] = &["random-write", "mixed-70r30w"];

/// Run every scheme of a scenario and return what the caller writes to disk.
pub fn run_scenario(
    source: &ScenarioSource,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<RunOutput, FtlabError> {
    let _ = (source, opts, progress);
    Err(FtlabError::Usage { arg: "run".into(), reason: "not implemented yet".into() })
}

/// Statistics of a trace file in a given format.
pub fn trace_stats(
    path: &std::path::Path,
    format: crate::workload::TraceFormat,
) -> Result<crate::workload::stats::TraceStats, FtlabError> {
    let _ = (path, format);
    Err(FtlabError::Usage { arg: "trace".into(), reason: "not implemented yet".into() })
}

/// Run one named bench case (see `BENCH_CASES`).
pub fn bench_case(case: &str) -> Result<BenchResult, FtlabError> {
    Err(FtlabError::Usage { arg: case.into(), reason: "not implemented yet".into() })
}

/// The bundled default scenario, as TOML text.
pub fn default_scenario_toml() -> &'static str {
    ""
}
