//! PyO3 bindings for ftlab: the private `ftlab._core` module.
//!
//! This file converts Python arguments to calls of `ftlab`'s public API (its root), converts
//! the results to plain Python values (str, int, float, list, dict; the tables of `run` to
//! Arrow, `arrow.rs`), and
//! maps `FtlabError` to the Python exception hierarchy `FtlabError(ValueError)` >
//! `ConfigError`, `TraceError`, `InputError`, `UsageError`, `OutOfSpaceError`,
//! `NoProgressError`. It holds no simulation logic and does no file I/O of its own;
//! the public Python API is `python/ftlab`, and the typed stub is `python/ftlab/_core.pyi`.

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

mod arrow;
mod consts;

use arrow::ArrowTable;
use ftlab::{
    FtlabError as CoreError, Place, Progress, RunOptions, ScenarioSource, Stage, TraceFormat, TraceStats,
};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    ftlab._core,
    FtlabError,
    PyValueError,
    "Base class of every error ftlab reports about its input (scenario, trace, arguments)."
);
create_exception!(
    ftlab._core,
    ConfigError,
    FtlabError,
    "A scenario is invalid: bad TOML, an unknown key, or a value out of range."
);
create_exception!(ftlab._core, TraceError, FtlabError, "A trace line is malformed or out of range.");
create_exception!(ftlab._core, InputError, FtlabError, "A file could not be opened or read.");
create_exception!(ftlab._core, UsageError, FtlabError, "An argument is wrong.");
create_exception!(
    ftlab._core,
    OutOfSpaceError,
    FtlabError,
    "The device ran out of space while preconditioning or during a run: writes waited for blocks \
     GC could not free."
);
create_exception!(
    ftlab._core,
    NoProgressError,
    FtlabError,
    "The run's progress watchdog fired: requests were outstanding and none completed."
);

/// The attributes every `FtlabError` instance carries (None where the variant has no such field).
const ERROR_ATTRS: [&str; 8] = ["reason", "file", "line", "column", "key", "path", "arg", "override"];

/// Convert a core error into the Python exception named by `kind()`, with the error's
/// Display string as message and its fields as attributes.
fn to_pyerr(py: Python<'_>, e: CoreError) -> PyErr {
    let msg = e.to_string();
    let err = match e.kind() {
        "ConfigError" => ConfigError::new_err(msg),
        "TraceError" => TraceError::new_err(msg),
        "InputError" => InputError::new_err(msg),
        "UsageError" => UsageError::new_err(msg),
        "OutOfSpaceError" => OutOfSpaceError::new_err(msg),
        "NoProgressError" => NoProgressError::new_err(msg),
        _ => FtlabError::new_err(msg),
    };
    let set = |name: &str, value: Py<PyAny>| {
        // Setting an attribute on a fresh exception instance cannot fail in practice; if it
        // did, the exception would still carry its message, which is what matters.
        let _ = err.value(py).setattr(name, value);
    };
    let s = |v: &String| v.into_pyobject(py).map(|o| o.into_any().unbind()).ok();
    let n = |v: u64| v.into_pyobject(py).map(|o| o.into_any().unbind()).ok();
    let secs = |ns: u64| (ns as f64 * 1e-9).into_pyobject(py).map(|o| o.into_any().unbind()).ok();
    let names = |v: &Vec<String>| v.clone().into_pyobject(py).map(|o| o.into_any().unbind()).ok();
    let (reason, file, line, key, path, arg) = match &e {
        CoreError::Config { file, key, reason, place } => {
            let line = match place {
                Place::At { line, column } => {
                    set("column", n(*column).unwrap_or_else(|| py.None()));
                    n(*line)
                }
                Place::Set(assignment) => {
                    set("override", s(assignment).unwrap_or_else(|| py.None()));
                    None
                }
                Place::Unknown => None,
            };
            (reason, s(file), line, s(key), None, None)
        }
        CoreError::Syntax { file, line, column, reason } => {
            set("column", n(*column).unwrap_or_else(|| py.None()));
            (reason, s(file), n(*line), None, None, None)
        }
        CoreError::Trace { file, line, reason } => (reason, s(file), n(*line), None, None, None),
        CoreError::Io { path, reason } => (reason, None, None, None, s(path), None),
        CoreError::Usage { arg, reason } => (reason, None, None, None, None, s(arg)),
        CoreError::OutOfSpace { file, stage, waiting, erases, n_blocks, reason } => {
            let (stage, at_s) = match stage {
                Stage::Precondition => ("precondition", None),
                Stage::Run { at_ns } => ("run", secs(*at_ns)),
            };
            let stage = stage.into_pyobject(py).map(|o| o.into_any().unbind());
            set("stage", stage.unwrap_or_else(|_| py.None()));
            set("at_s", at_s.unwrap_or_else(|| py.None()));
            set("waiting", names(waiting).unwrap_or_else(|| py.None()));
            set("erases", n(*erases).unwrap_or_else(|| py.None()));
            set("n_blocks", n(u64::from(*n_blocks)).unwrap_or_else(|| py.None()));
            (reason, s(file), None, None, None, None)
        }
        CoreError::NoProgress { file, from_ns, at_ns, waiting, events, bound, erases, reason } => {
            set("from_s", secs(*from_ns).unwrap_or_else(|| py.None()));
            set("at_s", secs(*at_ns).unwrap_or_else(|| py.None()));
            set("waiting", names(waiting).unwrap_or_else(|| py.None()));
            set("events", n(*events).unwrap_or_else(|| py.None()));
            set("bound", n(*bound).unwrap_or_else(|| py.None()));
            set("erases", n(*erases).unwrap_or_else(|| py.None()));
            (reason, s(file), None, None, None, None)
        }
    };
    let none = || py.None();
    if let Some(r) = s(reason) {
        set("reason", r);
    }
    set("file", file.unwrap_or_else(none));
    set("line", line.unwrap_or_else(none));
    set("key", key.unwrap_or_else(none));
    set("path", path.unwrap_or_else(none));
    set("arg", arg.unwrap_or_else(none));
    err
}

fn usage(arg: &str, reason: impl Into<String>) -> CoreError {
    CoreError::Usage { arg: arg.into(), reason: reason.into() }
}

/// The payload used to unwind out of `run_scenario` when the progress callback raised
/// (for example KeyboardInterrupt). `resume_unwind` does not call the panic hook, so
/// nothing is printed; the stored Python exception is re-raised instead.
struct Cancelled;

/// The scenario source of `run` and `resolve`: a file, TOML text (with the directory its
/// relative trace paths resolve against, default the current one), or the bundled default.
fn scenario_source(
    py: Python<'_>,
    source_path: Option<PathBuf>,
    text: Option<String>,
    base_dir: Option<PathBuf>,
    name: Option<String>,
    func: &str,
) -> PyResult<ScenarioSource> {
    Ok(match (source_path, text) {
        (Some(_), Some(_)) => {
            return Err(to_pyerr(py, usage(func, "give either source_path or text, not both")))
        }
        (Some(p), None) => ScenarioSource::File(p),
        (None, Some(text)) => ScenarioSource::Text {
            text,
            base_dir: match base_dir {
                Some(d) => d,
                None => std::env::current_dir()
                    .map_err(|e| to_pyerr(py, CoreError::Io { path: ".".into(), reason: e.to_string() }))?,
            },
            name: name.unwrap_or_else(|| "<text>".into()),
        },
        (None, None) => ScenarioSource::Default,
    })
}

/// The scenario as `run` would simulate it (overrides and seed applied, every default
/// filled in, trace paths absolute), as TOML, without running it. Source arguments as `run`.
#[pyfunction]
#[pyo3(signature = (source_path=None, text=None, base_dir=None, name=None, seed=None, overrides=Vec::new()))]
fn resolve(
    py: Python<'_>,
    source_path: Option<PathBuf>,
    text: Option<String>,
    base_dir: Option<PathBuf>,
    name: Option<String>,
    seed: Option<u64>,
    overrides: Vec<String>,
) -> PyResult<String> {
    let source = scenario_source(py, source_path, text, base_dir, name, "resolve")?;
    let opts = RunOptions { seed, overrides, jobs: None };
    py.detach(move || ftlab::resolve_scenario(&source, &opts)).map_err(|e| to_pyerr(py, e))
}

/// Run every scheme of a scenario. Exactly one of `source_path` and `text` may be given;
/// neither means the bundled default scenario. The simulation runs with the GIL released;
/// up to `jobs` schemes at once (None: the machine's cores; the results are the same for any
/// value); `progress(done, total)` is called with the GIL held, at most a few hundred times
/// per scheme. Returns `summary_json` and `resolved_toml` as text and the tables `timeseries`,
/// `latency_cdf` and `wear` as `ArrowTable`s (`arrow.rs`).
#[pyfunction]
#[pyo3(signature = (source_path=None, text=None, base_dir=None, name=None, seed=None, overrides=Vec::new(), progress=None, jobs=None))]
// One argument per Python keyword argument of the binding (the pyo3 signature above).
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    source_path: Option<PathBuf>,
    text: Option<String>,
    base_dir: Option<PathBuf>,
    name: Option<String>,
    seed: Option<u64>,
    overrides: Vec<String>,
    progress: Option<Py<PyAny>>,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = scenario_source(py, source_path, text, base_dir, name, "run")?;
    if jobs == Some(0) {
        return Err(to_pyerr(py, usage("--jobs", "must be at least 1, got 0")));
    }
    let opts = RunOptions { seed, overrides, jobs };

    let result = py.detach(move || {
        let mut callback_err: Option<PyErr> = None;
        let mut on_progress = |p: Progress| {
            // Runs on the simulation thread: attach to the interpreter for the call only.
            let res = Python::attach(|py| -> PyResult<()> {
                if let Some(cb) = &progress {
                    cb.call1(py, (p.done, p.total))?;
                }
                py.check_signals()
            });
            if let Err(e) = res {
                callback_err = Some(e);
                panic::resume_unwind(Box::new(Cancelled));
            }
        };
        let out =
            panic::catch_unwind(AssertUnwindSafe(|| ftlab::run_scenario(&source, &opts, &mut on_progress)));
        match out {
            Ok(r) => Ok(r),
            Err(payload) if payload.is::<Cancelled>() => Err(callback_err.take()),
            Err(payload) => panic::resume_unwind(payload),
        }
    });

    let out = match result {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(to_pyerr(py, e)),
        Err(Some(e)) => return Err(e),
        Err(None) => return Err(FtlabError::new_err("run cancelled")),
    };
    let d = PyDict::new(py);
    for (name, table) in
        [("timeseries", out.timeseries), ("latency_cdf", out.latency_cdf), ("wear", out.wear)]
    {
        d.set_item(name, Bound::new(py, ArrowTable::new(table))?)?;
    }
    d.set_item("summary_json", out.summary_json)?;
    d.set_item("resolved_toml", out.resolved_toml)?;
    Ok(d)
}

fn trace_stats_to_py<'py>(py: Python<'py>, s: &TraceStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("requests", s.requests)?;
    d.set_item("reads", s.reads)?;
    d.set_item("writes", s.writes)?;
    d.set_item("trims", s.trims)?;
    d.set_item("bytes", s.bytes)?;
    d.set_item("duration_s", s.duration_s)?;
    d.set_item("footprint_pages", s.footprint_pages)?;
    d.set_item("lba_min_bytes", s.lba_min_bytes)?;
    d.set_item("lba_max_bytes", s.lba_max_bytes)?;
    d.set_item("skipped", s.skipped)?;
    Ok(d)
}

fn format_names() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}

/// Statistics of a trace file; `format` is a name from `TRACE_FORMATS` (or an alias).
#[pyfunction]
fn trace_stats<'py>(py: Python<'py>, path: PathBuf, format: &str) -> PyResult<Bound<'py, PyDict>> {
    let Some(fmt) = TraceFormat::from_name(format) else {
        let reason = format!(
            "unknown trace format {format:?}; valid formats: {} (aliases of mqsim: disksim, ssdsim)",
            format_names().join(", ")
        );
        return Err(to_pyerr(py, usage("--format", reason)));
    };
    let stats = py.detach(move || ftlab::trace_stats(&path, fmt)).map_err(|e| to_pyerr(py, e))?;
    trace_stats_to_py(py, &stats)
}

/// Run one bench case (a name from `BENCH_CASES`), with the GIL released.
#[pyfunction]
#[pyo3(signature = (case, requests = None))]
fn bench_case<'py>(py: Python<'py>, case: String, requests: Option<u64>) -> PyResult<Bound<'py, PyDict>> {
    if !ftlab::BENCH_CASES.contains(&case.as_str()) {
        let reason = format!("unknown bench case {case:?}; valid cases: {}", ftlab::BENCH_CASES.join(", "));
        return Err(to_pyerr(py, usage("--case", reason)));
    }
    if requests == Some(0) {
        return Err(to_pyerr(py, usage("--requests", "must be at least 1, got 0".to_string())));
    }
    let r = py
        .detach(move || ftlab::bench_case_with(&case, requests.unwrap_or(ftlab::BENCH_REQUESTS), &[]))
        .map_err(|e| to_pyerr(py, e))?;
    let d = PyDict::new(py);
    d.set_item("case", r.case)?;
    d.set_item("requests", r.requests)?;
    d.set_item("wall_s", r.wall_s)?;
    d.set_item("requests_per_s", r.requests_per_s)?;
    d.set_item("precondition_wall_s", r.precondition_wall_s)?;
    d.set_item("bytes_per_mapping_unit", r.bytes_per_mapping_unit)?;
    Ok(d)
}

/// Convert an strace log and RocksDB's info LOG into an ftlab-csv trace at `out_path`
/// (`ftlab capture`, docs/capture.md), with the GIL released. `rules` are `PATTERN=STREAM`
/// or `PATTERN=STREAM+level` (None: the RocksDB rules). Returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (strace_path, log_path, out_path, root, device_bytes, fs_metadata=true, rules=None, dirty_limit_bytes=None, journal_bytes=None))]
// One argument per Python keyword argument of the binding (the pyo3 signature above).
#[allow(clippy::too_many_arguments)]
fn capture(
    py: Python<'_>,
    strace_path: PathBuf,
    log_path: PathBuf,
    out_path: PathBuf,
    root: String,
    device_bytes: u64,
    fs_metadata: bool,
    rules: Option<Vec<String>>,
    dirty_limit_bytes: Option<u64>,
    journal_bytes: Option<u64>,
) -> PyResult<String> {
    use ftlab::{CaptureConfig, StreamRule};
    let mut cfg = CaptureConfig::rocksdb(&root, device_bytes);
    cfg.fs_metadata = fs_metadata;
    cfg.journal_bytes = journal_bytes;
    if let Some(limit) = dirty_limit_bytes {
        cfg.dirty_limit_bytes = limit;
    }
    if let Some(rules) = rules {
        let parsed: Result<Vec<StreamRule>, String> = rules.iter().map(|r| StreamRule::parse(r)).collect();
        cfg.rules = parsed.map_err(|reason| to_pyerr(py, usage("--rule", reason)))?;
    }
    let summary = py
        .detach(move || ftlab::capture(&strace_path, &log_path, &out_path, &cfg))
        .map_err(|e| to_pyerr(py, e))?;
    Ok(summary.to_json())
}

/// `ftlab rt admit`: the admission test of `scheme` on a task file's `text`, as JSON.
#[pyfunction]
fn rt_admit(py: Python<'_>, text: &str, file: &str, scheme: &str) -> PyResult<String> {
    ftlab::rt_admit(text, file, scheme).map_err(|e| to_pyerr(py, e))
}

/// `ftlab lifetime`: the fast-forward lifetime model of `scheme` in a run's summary.json and
/// resolved scenario texts, as JSON.
#[pyfunction]
fn lifetime(
    py: Python<'_>,
    summary: &str,
    resolved_toml: &str,
    scheme: &str,
    horizon_s: f64,
) -> PyResult<String> {
    ftlab::lifetime(summary, resolved_toml, scheme, horizon_s).map_err(|e| to_pyerr(py, e))
}

/// The slides' swap bound for `n` channels and imbalance target 1 + `x`: the real K and the
/// least whole K (`None` for x ≤ 0).
#[pyfunction]
fn swap_rounds(n: u32, x: f64) -> (f64, Option<u64>) {
    use ftlab::{swap_rounds_bound, swap_rounds_whole};
    (swap_rounds_bound(n, x), swap_rounds_whole(n, x))
}

/// Every scheme and stream mapper with its summary and knobs, as JSON text
/// (`ftlab schemes`, `ftlab mappers`).
#[pyfunction]
fn policies() -> String {
    ftlab::policies()
}

/// `ftlab rt bounds`: Table IV computed, as JSON.
#[pyfunction]
fn rt_bounds() -> String {
    ftlab::rt_bounds()
}

/// `ftlab rt schedulability`: Figures 5-7 of the PaRT-FTL paper as JSON, computed with the
/// GIL released.
#[pyfunction]
fn rt_schedulability(py: Python<'_>, n_sets: u32, seed: u64, read_share: f64) -> PyResult<String> {
    py.detach(move || ftlab::rt_schedulability(n_sets, seed, read_share)).map_err(|e| to_pyerr(py, e))
}

/// Every registered scheme with what its registry entry brings (`scheme::Capabilities`), in
/// registry order: `name`, `label`, `admission` (it has a real-time analysis),
/// `admission_control` (the analysis refuses sets), `rt_series` (its series of Figures 5-7:
/// `key`, `label`), `lifetime_model` (it gives the lifetime model its channel swaps),
/// `timed_only` (the warm-up by workload cannot run it).
fn scheme_entries(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let analyses = ftlab::scheme_analyses();
    ftlab::SCHEMES
        .iter()
        .map(|info| {
            let d = PyDict::new(py);
            let analysis = analyses.iter().find(|(s, _)| s.name == info.name).map(|(_, a)| a);
            d.set_item("name", info.name)?;
            d.set_item("label", info.caps.label)?;
            d.set_item("admission", analysis.is_some())?;
            d.set_item("admission_control", analysis.is_some_and(|a| a.controls_admission()))?;
            let series = analysis.map_or(&[][..], |a| a.series());
            let series: Vec<Bound<'_, PyDict>> = series
                .iter()
                .map(|s| {
                    let x = PyDict::new(py);
                    x.set_item("key", s.key)?;
                    x.set_item("label", s.label)?;
                    Ok(x)
                })
                .collect::<PyResult<_>>()?;
            d.set_item("rt_series", series)?;
            d.set_item("lifetime_model", info.caps.lifetime.is_some())?;
            d.set_item("timed_only", info.caps.timed_only.is_some())?;
            Ok(d)
        })
        .collect()
}

/// The bundled default scenario, as TOML text.
#[pyfunction]
fn default_scenario_toml() -> &'static str {
    ftlab::default_scenario_toml()
}

/// The version of the ftlab crates this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<FtlabError>();
    for attr in ERROR_ATTRS {
        base.setattr(attr, py.None())?;
    }
    m.add("FtlabError", base)?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    let out_of_space = py.get_type::<OutOfSpaceError>();
    for attr in ["stage", "at_s", "waiting", "erases", "n_blocks"] {
        out_of_space.setattr(attr, py.None())?;
    }
    m.add("OutOfSpaceError", out_of_space)?;
    let no_progress = py.get_type::<NoProgressError>();
    for attr in ["from_s", "at_s", "waiting", "events", "bound", "erases"] {
        no_progress.setattr(attr, py.None())?;
    }
    m.add("NoProgressError", no_progress)?;
    m.add("BENCH_CASES", ftlab::BENCH_CASES.to_vec())?;
    m.add("BENCH_TIMED_CASES", ftlab::BENCH_TIMED_CASES.to_vec())?;
    m.add("TRACE_FORMATS", format_names())?;
    consts::register(m)?;
    m.add("SCHEMES", scheme_entries(py)?)?;
    let rt: Vec<&str> = ftlab::scheme_analyses().iter().map(|(s, _)| s.name).collect();
    m.add("RT_SCHEMES", rt)?;
    m.add_class::<ArrowTable>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(bench_case, m)?)?;
    m.add_function(wrap_pyfunction!(capture, m)?)?;
    m.add_function(wrap_pyfunction!(default_scenario_toml, m)?)?;
    m.add_function(wrap_pyfunction!(rt_admit, m)?)?;
    m.add_function(wrap_pyfunction!(rt_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(rt_schedulability, m)?)?;
    m.add_function(wrap_pyfunction!(lifetime, m)?)?;
    m.add_function(wrap_pyfunction!(swap_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
