//! PyO3 bindings for ftlab: the private `ftlab._core` module.
//!
//! This file converts Python arguments to calls of `ftlab`'s public API (its root), converts
//! the results to plain Python values (str, int, float, list, dict; the tables of `run` to
//! Arrow, `arrow.rs`), and
//! maps `FtlabError` to the Python exception hierarchy `FtlabError(ValueError)` >
//! `ConfigError` (> `RtError`), `TraceError` (> `CaptureError`), `InputError` (>
//! `LifetimeError`), `UsageError`, `RunError` (> `OutOfSpaceError`, `NoProgressError`), each
//! error's typed fields set as attributes (docs/ARCHITECTURE.md, "Errors"). It holds no
//! simulation logic and does no file I/O of its own;
//! the public Python API is `python/ftlab`, and the typed stub is `python/ftlab/_core.pyi`.

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

mod arrow;
mod consts;

use arrow::ArrowTable;
use ftlab::error::{LifetimeError as CoreLifetimeError, RtError as CoreRtError, RunError as CoreRunError};
use ftlab::{
    FtlabError as CoreError, Place, Progress, RunOptions, ScenarioSource, Stage, TraceFormat, TraceStats,
};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

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
create_exception!(
    ftlab._core,
    TraceError,
    FtlabError,
    "A trace line is malformed or out of range (`file`, `line`, `kind`, `field`, `found`, `expected`)."
);
create_exception!(ftlab._core, InputError, FtlabError, "A file could not be opened or read.");
create_exception!(ftlab._core, UsageError, FtlabError, "An argument is wrong.");
create_exception!(
    ftlab._core,
    RunError,
    FtlabError,
    "A valid scenario's run failed: the device ran out of space, or the run stopped progressing."
);
create_exception!(
    ftlab._core,
    OutOfSpaceError,
    RunError,
    "The device ran out of space while preconditioning or during a run: writes waited for blocks GC could \
     not free."
);
create_exception!(
    ftlab._core,
    NoProgressError,
    RunError,
    "The run's progress watchdog fired: requests were outstanding and none completed."
);
create_exception!(
    ftlab._core,
    CaptureError,
    TraceError,
    "A line of `ftlab capture`'s strace log or RocksDB LOG cannot be converted (`input`, `call`)."
);
create_exception!(
    ftlab._core,
    RtError,
    ConfigError,
    "A task file of `ftlab rt admit` is invalid (`file`, `key` or `line`, `problem`)."
);
create_exception!(
    ftlab._core,
    LifetimeError,
    InputError,
    "An input of `ftlab lifetime` (summary.json, scenario.resolved.toml) is malformed or lacks a value."
);

/// The attributes every `FtlabError` instance carries (None where the variant has no such field).
const ERROR_ATTRS: [&str; 8] = ["reason", "file", "line", "column", "key", "path", "arg", "override"];
/// The attributes of each operation's class, beyond `ERROR_ATTRS` (None where not relevant).
const CLASS_ATTRS: [(&str, &[&str]); 6] = [
    ("TraceError", &["kind", "field", "field_index", "found", "expected"]),
    ("CaptureError", &["input", "call"]),
    ("RtError", &["problem"]),
    ("OutOfSpaceError", &["stage", "at_s", "waiting", "erases", "n_blocks"]),
    ("NoProgressError", &["from_s", "at_s", "waiting", "events", "bound", "erases"]),
    ("LifetimeError", &[]),
];

/// The Python exception of `kind` (`FtlabError::kind`) with message `msg`.
fn new_err(kind: &str, msg: String) -> PyErr {
    match kind {
        "ConfigError" => ConfigError::new_err(msg),
        "TraceError" => TraceError::new_err(msg),
        "InputError" => InputError::new_err(msg),
        "UsageError" => UsageError::new_err(msg),
        "OutOfSpaceError" => OutOfSpaceError::new_err(msg),
        "NoProgressError" => NoProgressError::new_err(msg),
        "CaptureError" => CaptureError::new_err(msg),
        "RtError" => RtError::new_err(msg),
        "LifetimeError" => LifetimeError::new_err(msg),
        _ => FtlabError::new_err(msg),
    }
}

/// A Python value of `v` (None if the conversion failed, which it does not in practice).
fn py_of<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> Py<PyAny> {
    v.into_py_any(py).unwrap_or_else(|_| py.None())
}

/// Convert a core error into the Python exception named by `kind()`, with the error's
/// Display string as message and its fields as attributes (`ERROR_ATTRS`, `CLASS_ATTRS`).
fn to_pyerr(py: Python<'_>, e: CoreError) -> PyErr {
    let err = new_err(e.kind(), e.to_string());
    let set = |name: &str, value: Py<PyAny>| {
        // Setting an attribute on a fresh exception instance cannot fail in practice; if it
        // did, the exception would still carry its message, which is what matters.
        let _ = err.value(py).setattr(name, value);
    };
    let opt = |v: Option<String>| v.map_or_else(|| py.None(), |v| py_of(py, v));
    match &e {
        CoreError::Config { file, key, reason, place } => {
            match place {
                Place::At { line, column } => {
                    set("line", py_of(py, *line));
                    set("column", py_of(py, *column));
                }
                Place::Set(assignment) => set("override", py_of(py, assignment)),
                Place::Unknown => {}
            }
            set("file", py_of(py, file));
            set("key", py_of(py, key));
            set("reason", py_of(py, reason));
        }
        CoreError::Syntax { file, line, column, reason } => {
            set("file", py_of(py, file));
            set("line", py_of(py, *line));
            set("column", py_of(py, *column));
            set("reason", py_of(py, reason));
        }
        CoreError::Io { path, reason } => {
            set("path", py_of(py, path));
            set("reason", py_of(py, reason));
        }
        CoreError::Usage { arg, reason } => {
            set("arg", py_of(py, arg));
            set("reason", py_of(py, reason));
        }
        CoreError::Run(run) => set_run(py, &set, run),
        CoreError::Trace(t) => {
            set("file", py_of(py, &t.file));
            set("line", py_of(py, t.line));
            set("reason", py_of(py, t.kind.to_string()));
            set("kind", py_of(py, t.kind.name()));
            let column = t.kind.column();
            set("field", opt(column.map(|c| c.name.to_string())));
            set("field_index", column.map_or_else(|| py.None(), |c| py_of(py, c.index)));
            set("found", opt(t.kind.found()));
            set("expected", opt(t.kind.expected()));
        }
        CoreError::Capture(c) => {
            set("file", py_of(py, &c.file));
            set("line", py_of(py, c.line));
            set("reason", py_of(py, c.kind.to_string()));
            set("kind", py_of(py, c.kind.name()));
            set("input", py_of(py, c.input.name()));
            set("call", opt(c.kind.call().map(str::to_string)));
        }
        CoreError::Rt(r) => {
            set("file", py_of(py, r.file()));
            match r {
                CoreRtError::Syntax { line, column, reason, .. } => {
                    set("line", py_of(py, *line));
                    set("column", py_of(py, *column));
                    set("reason", py_of(py, reason));
                    set("problem", py_of(py, "syntax"));
                }
                CoreRtError::Task { key, problem, .. } => {
                    set("key", py_of(py, key));
                    set("reason", py_of(py, problem.to_string()));
                    set("problem", py_of(py, problem.name()));
                }
            }
        }
        CoreError::Lifetime(l) => {
            set("file", py_of(py, l.file()));
            set("path", py_of(py, l.file()));
            match l {
                CoreLifetimeError::Malformed { line, column, reason, .. } => {
                    set("line", py_of(py, *line));
                    set("column", py_of(py, *column));
                    set("reason", py_of(py, reason));
                }
                CoreLifetimeError::Missing { key, what, .. } => {
                    set("key", py_of(py, key));
                    set("reason", py_of(py, what));
                }
            }
        }
    }
    err
}

/// The attributes of a `RunError` (`OutOfSpaceError`, `NoProgressError`).
fn set_run(py: Python<'_>, set: &dyn Fn(&str, Py<PyAny>), e: &CoreRunError) {
    let secs = |ns: u64| py_of(py, ns as f64 * 1e-9);
    match e {
        CoreRunError::OutOfSpace { file, stage, waiting, erases, n_blocks, reason } => {
            let (stage, at_s) = match stage {
                Stage::Precondition => ("precondition", py.None()),
                Stage::Run { at_ns } => ("run", secs(*at_ns)),
            };
            set("stage", py_of(py, stage));
            set("at_s", at_s);
            set("waiting", py_of(py, waiting.clone()));
            set("erases", py_of(py, *erases));
            set("n_blocks", py_of(py, *n_blocks));
            set("file", py_of(py, file));
            set("reason", py_of(py, reason));
        }
        CoreRunError::NoProgress { file, from_ns, at_ns, waiting, events, bound, erases, reason } => {
            set("from_s", secs(*from_ns));
            set("at_s", secs(*at_ns));
            set("waiting", py_of(py, waiting.clone()));
            set("events", py_of(py, *events));
            set("bound", py_of(py, *bound));
            set("erases", py_of(py, *erases));
            set("file", py_of(py, file));
            set("reason", py_of(py, reason));
        }
    }
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
#[pyo3(signature = (
    source_path=None, text=None, base_dir=None, name=None, seed=None, overrides=Vec::new(),
    progress=None, jobs=None
))]
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

/// Run one bench case (a name from `BENCH_CASES`), with the GIL released; `overrides` are
/// `KEY.PATH=VALUE` settings applied to the case's scenario after the case's own (`--set`).
#[pyfunction]
#[pyo3(signature = (case, requests = None, overrides = Vec::new()))]
fn bench_case<'py>(
    py: Python<'py>,
    case: String,
    requests: Option<u64>,
    overrides: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    if !ftlab::BENCH_CASES.contains(&case.as_str()) {
        let reason = format!("unknown bench case {case:?}; valid cases: {}", ftlab::BENCH_CASES.join(", "));
        return Err(to_pyerr(py, usage("--case", reason)));
    }
    if requests == Some(0) {
        return Err(to_pyerr(py, usage("--requests", "must be at least 1, got 0".to_string())));
    }
    let r = py
        .detach(move || ftlab::bench_case_with(&case, requests.unwrap_or(ftlab::BENCH_REQUESTS), &overrides))
        .map_err(|e| to_pyerr(py, e))?;
    let d = PyDict::new(py);
    d.set_item("case", r.case)?;
    d.set_item("requests", r.requests)?;
    d.set_item("wall_s", r.wall_s)?;
    d.set_item("requests_per_s", r.requests_per_s)?;
    d.set_item("precondition_wall_s", r.precondition_wall_s)?;
    d.set_item("bytes_per_mapping_unit", r.bytes_per_mapping_unit)?;
    d.set_item("cpu_s", r.cpu_s)?;
    d.set_item("precondition_cpu_s", r.precondition_cpu_s)?;
    Ok(d)
}

/// Convert an strace log and RocksDB's info LOG into an ftlab-csv trace at `out_path`
/// (`ftlab capture`, docs/capture.md), with the GIL released. `rules` are `PATTERN=STREAM`
/// or `PATTERN=STREAM+level` (None: the RocksDB rules). Returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (
    strace_path, log_path, out_path, root, device_bytes, fs_metadata=true, rules=None,
    dirty_limit_bytes=None, journal_bytes=None
))]
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
        let parsed: Result<Vec<StreamRule>, _> = rules.iter().map(|r| StreamRule::parse(r)).collect();
        cfg.rules = parsed.map_err(|e| to_pyerr(py, usage("--rule", e.to_string())))?;
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
    let classes = [
        ("ConfigError", py.get_type::<ConfigError>()),
        ("TraceError", py.get_type::<TraceError>()),
        ("InputError", py.get_type::<InputError>()),
        ("UsageError", py.get_type::<UsageError>()),
        ("RunError", py.get_type::<RunError>()),
        ("OutOfSpaceError", py.get_type::<OutOfSpaceError>()),
        ("NoProgressError", py.get_type::<NoProgressError>()),
        ("CaptureError", py.get_type::<CaptureError>()),
        ("RtError", py.get_type::<RtError>()),
        ("LifetimeError", py.get_type::<LifetimeError>()),
    ];
    for (name, class) in classes {
        let attrs = CLASS_ATTRS.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, a)| *a);
        for attr in attrs {
            class.setattr(*attr, py.None())?;
        }
        m.add(name, class)?;
    }
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
