//! The edge of the crate: the functions the CLI and the Python bindings call. This is the
//! only module (with `io`) that touches files; the model below it never does.

use crate::error::{FtlabError, RunError};
use crate::host::{Records, Source, SourceParams};
use crate::metrics::report;
use crate::metrics::report::WarmReport;
pub(crate) use crate::metrics::table::{concat_tables, Table};
use crate::scenario::{self, AddressMap, Scenario, TenantConfig};
use crate::scheme::{self, SchemeContext};
use crate::sim::time::SimTime;
use crate::simulation::{OutOfSpace, RunTables, Simulation, WarmError, WarmParams};
use crate::stream;
use crate::workload::stats::TraceStats;
use crate::workload::{read_trace, TraceFormat};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

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
    /// Schemes simulated at once (each is an independent simulation); `None` = the
    /// machine's cores. Results are identical for any value.
    pub jobs: Option<usize>,
}

/// Progress of a run, reported to a callback; `done <= total`, in simulated nanoseconds
/// summed over schemes.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
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
    /// Empirical latency CDFs: one row per scheme, tenant, op and histogram bucket.
    pub latency_cdf: Table,
    /// Erase count per block at the end: one row per scheme and block.
    pub wear: Table,
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
    /// `memory-1tb` only: heap bytes the built simulation holds per physical mapping unit.
    pub bytes_per_mapping_unit: Option<f64>,
    /// CPU seconds of the simulating thread in the timed run and in preconditioning (a
    /// measure that other work on a shared machine disturbs less than wall time); `None`
    /// where the platform has no thread CPU clock.
    pub cpu_s: Option<f64>,
    pub precondition_cpu_s: Option<f64>,
}

/// Host requests of each bench case (the standard workload).
pub const BENCH_REQUESTS: u64 = 1_000_000;

/// The names of the `ftlab bench` cases, in the order `ftlab bench` runs them. The first
/// three time a run (`BENCH_TIMED_CASES`); `precondition` times the preconditioning of the
/// `random-write` device alone, and `precondition-closed-form` the same with the closed-form
/// overwrites (`[precondition] overwrites = "closed_form"`, `simulation::steady`); `memory-1tb`
/// builds the simulation of a 1 TiB device and reports its heap bytes per mapping unit (no
/// run, no time).
pub const BENCH_CASES: &[&str] = &[
    "random-write",
    "mixed-70r30w",
    "upi-mixed-70r30w",
    "precondition",
    "precondition-closed-form",
    "memory-1tb",
];
/// The cases of `BENCH_CASES` that time a run of host requests.
pub const BENCH_TIMED_CASES: &[&str] = &["random-write", "mixed-70r30w", "upi-mixed-70r30w"];
/// Blocks per plane of `memory-1tb`: the `mqsim` geometry (16 dies x 2 planes, 256 pages of
/// 4 KiB) with 32768 blocks per plane is 2^40 bytes raw, 2^28 mapping units.
pub(crate) const BENCH_MEMORY_BLOCKS_PER_PLANE: u32 = 32_768;

/// `ftlab rt admit`: the admission test of `scheme` on the task file `text` (named `file` in
/// errors), with the paper's configurations, as JSON: each test's equation, terms, total and
/// verdict, the verdict, and a note where the scheme needs one. The schemes are those whose
/// registry entry has a real-time analysis (`scheme::analyses`, `rt::Analysis::admit`); a
/// scheme without admission control admits every set and shows its test for information.
pub fn rt_admit(text: &str, file: &str, scheme: &str) -> Result<String, FtlabError> {
    use crate::rt::Test;
    let analyses = crate::scheme::analyses();
    let Some((_, analysis)) = analyses.iter().find(|(s, _)| s.name == scheme) else {
        let known: Vec<&str> = analyses.iter().map(|(s, _)| s.name).collect();
        return Err(FtlabError::Usage {
            arg: "--scheme".into(),
            reason: format!("unknown scheme {scheme:?}; known: {}", known.join(", ")),
        });
    };
    let tasks = crate::rt::tasks::parse(text, file)?;
    let names: Vec<&str> = tasks.iter().map(|(n, _)| n.as_str()).collect();
    let tasks: Vec<crate::rt::Task> = tasks.iter().map(|(_, t)| *t).collect();
    let test_json = |t: &Test| {
        let terms: Vec<_> =
            t.terms.iter().map(|x| serde_json::json!({"name": x.name, "value": x.value})).collect();
        serde_json::json!({
            "equation": t.equation, "terms": terms, "total": t.total(), "passes": t.passes()
        })
    };
    let verdict = analysis.admit(&tasks);
    let tests: Vec<_> = verdict.tests.iter().map(test_json).collect();
    let mut out =
        serde_json::json!({ "scheme": scheme, "tasks": names, "tests": tests, "admitted": verdict.admitted });
    if let Some(note) = verdict.note {
        out["note"] = note.into();
    }
    Ok(out.to_string())
}

/// `ftlab rt schedulability`: Figures 5-7 of the PaRT-FTL paper (`rt::schedulability`) with
/// `n_sets` task sets per utilisation, seed `seed` and read share `read_share`, as JSON: the
/// series (`schemes`, the keys of the series of `scheme::analyses`), the parameters, every
/// row (figure, read and write pages, scheme, utilisation, schedulable and total sets,
/// fraction) and every weighted schedulability.
pub fn rt_schedulability(n_sets: u32, seed: u64, read_share: f64) -> Result<String, FtlabError> {
    use crate::rt::schedulability::{run, series, Experiment};
    let e = Experiment { read_share, ..Experiment::paper(n_sets, seed) };
    e.check().map_err(|e| {
        let arg = match e.name {
            "n_sets" => "--sets",
            "read_share" => "--read-share",
            other => other,
        };
        FtlabError::Usage { arg: arg.into(), reason: e.to_string() }
    })?;
    let owned = crate::scheme::analyses();
    let analyses: Vec<&dyn crate::rt::Analysis> = owned.iter().map(|(_, a)| a.as_ref()).collect();
    let res = run(&e, &analyses);
    let keys: Vec<&str> = series(&analyses).iter().map(|s| s.key).collect();
    let row = |r: &crate::rt::schedulability::Row| {
        serde_json::json!({
            "figure": r.figure, "read_pages": r.read_pages, "write_pages": r.write_pages,
            "scheme": r.scheme, "utilisation": r.utilisation, "n_schedulable": r.n_schedulable,
            "n_sets": r.n_sets, "fraction": r.fraction()
        })
    };
    let rows: Vec<_> = res.rows.iter().map(row).collect();
    let weighted: Vec<_> = res
        .weighted
        .iter()
        .map(|w| {
            serde_json::json!({
                "figure": w.figure, "read_pages": w.read_pages, "write_pages": w.write_pages,
                "scheme": w.scheme, "weighted": w.value
            })
        })
        .collect();
    let params = serde_json::json!({
        "n_sets": e.n_sets, "n_tasks": e.n_tasks, "seed": e.seed, "read_share": e.read_share,
        "read_pages": e.read_pages, "write_pages": e.write_pages,
        "fig6_read_pages": e.fig6_read_pages, "fig7_write_pages": e.fig7_write_pages
    });
    Ok(serde_json::json!({ "schemes": keys, "parameters": params, "rows": rows, "weighted": weighted })
        .to_string())
}

/// `ftlab lifetime`: the fast-forward lifetime model (`metrics::lifetime_model`) of `scheme`
/// in a run's `summary.json` and `scenario.resolved.toml` texts, to the first wear-out (or
/// `horizon_s`), with and without swaps, as JSON.
pub fn lifetime(
    summary: &str,
    resolved_toml: &str,
    scheme: &str,
    horizon_s: f64,
) -> Result<String, FtlabError> {
    if !(horizon_s.is_finite() && horizon_s > 0.0) {
        return Err(FtlabError::Usage {
            arg: "--horizon-days".into(),
            reason: format!("must be a positive number of days, got {} s", horizon_s),
        });
    }
    let input = crate::metrics::lifetime_model::inputs_from_run(summary, resolved_toml, scheme)?;
    let capacity_scale = crate::metrics::lifetime_model::capacity_scale(resolved_toml);
    Ok(crate::metrics::lifetime_model::lifetime_json(&input, horizon_s, capacity_scale))
}

/// `ftlab schemes` and `ftlab mappers`: every registered scheme and stream mapper with its
/// summary and knobs (key, unit, kind, default from the config's serde defaults, range text,
/// doc), as JSON `{"schemes": [...], "mappers": [...]}` (`knobs::PolicyInfo::describe`).
pub fn policies() -> String {
    let schemes: Vec<serde_json::Value> = crate::scheme::REGISTRY.iter().map(|p| p.describe()).collect();
    let mappers: Vec<serde_json::Value> = crate::stream::REGISTRY.iter().map(|p| p.describe()).collect();
    serde_json::json!({ "schemes": schemes, "mappers": mappers }).to_string()
}

/// `ftlab rt bounds`: Table IV computed, as JSON rows (quantity, equation, pages/s or ms, both
/// byte readings, the paper's printed value): the rows of each scheme's analysis
/// (`rt::Analysis::bounds`) in `scheme::analyses` order, bandwidths, latencies and space
/// bounds apart.
pub fn rt_bounds() -> String {
    use crate::rt::{megabytes, BoundKind};
    let page = 8192;
    let (mut bandwidths, mut latencies, mut space) = (Vec::new(), Vec::new(), Vec::new());
    for b in crate::scheme::analyses().iter().flat_map(|(_, a)| a.bounds()) {
        let (quantity, equation, paper) = (b.quantity, b.equation, b.paper);
        match b.kind {
            BoundKind::Bandwidth => {
                let (mb, mib) = megabytes(b.value, page);
                bandwidths.push(serde_json::json!({
                    "quantity": quantity, "equation": equation, "pages_per_s": b.value,
                    "mb_per_s": mb, "mib_per_s": mib, "paper": paper
                }));
            }
            BoundKind::Latency => latencies.push(serde_json::json!({
                "quantity": quantity, "equation": equation, "ms": b.value, "paper": paper
            })),
            BoundKind::Space => space.push(serde_json::json!({
                "quantity": quantity, "equation": equation, "value": b.value, "paper": paper
            })),
        }
    }
    serde_json::json!({ "bandwidths": bandwidths, "latencies": latencies, "space": space }).to_string()
}

/// The bundled default scenario, as TOML text.
pub fn default_scenario_toml() -> &'static str {
    include_str!("../../../scenarios/default.toml")
}

/// Run every scheme of a scenario and return what the caller writes to disk. The schemes are
/// independent simulations, and so is each solo run (`measure.solo`: one per scheme and
/// tenant, every other tenant silenced): up to `opts.jobs` run at once, each on its own
/// thread, and the results are assembled in scenario order, so the output is the same for any
/// `jobs`. Solo runs add only their tenant's latencies to `summary.json`, no table rows.
/// `progress` is called on the calling thread only, over all runs; if it panics (a cancelled
/// run), the simulations stop at their next progress point and the panic resumes here.
pub fn run_scenario(
    source: &ScenarioSource,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<RunOutput, FtlabError> {
    let (text, name, base_dir) = scenario_text(source)?;
    let mut s = scenario::load(&text, &name, &opts.overrides, opts.seed)?;
    anchor_trace_paths(&mut s, &base_dir);
    if opts.jobs == Some(0) {
        return Err(FtlabError::Usage { arg: "--jobs".into(), reason: "must be at least 1, got 0".into() });
    }
    let runs = simulations(&s);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = opts.jobs.unwrap_or(cores).min(runs.len()).max(1);
    let simulate = |run: &Run, report: &mut dyn FnMut(u64)| -> Result<RunOutcome, FtlabError> {
        if let Some(a) = &s.array {
            let horizon = horizon(&s);
            let mut at = |now: SimTime| {
                report(horizon.map_or(0, |h| (now.ns() as u128 * 1000 / h.ns().max(1) as u128) as u64))
            };
            let scheme_name = &s.schemes[run.scheme];
            let mut devs = Vec::with_capacity(a.devices as usize);
            for d in 0..a.devices {
                let staggered = a.stagger && crate::array::has_host_schedule(scheme_name);
                let s_dev =
                    if staggered { crate::array::staggered(&s, a, scheme_name, d) } else { s.clone() };
                let mut dev = build_counted(&s_dev, scheme_name, None, true, Path::new(""), &name, None)?;
                precondition_seeded(
                    &s,
                    &mut dev,
                    &name,
                    crate::sim::seed_for(s.seed, 0x4152_5241, d as u64),
                )?;
                devs.push(dev);
            }
            let sources = (0..s.tenants.len())
                .map(|i| {
                    open_source(
                        &s,
                        i,
                        &s.tenants[i],
                        crate::array::array_units(&s, a, i),
                        None,
                        Path::new(""),
                        None,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            let (devices, result) = crate::array::run_array(&s, a, scheme_name, devs, sources, &mut at)
                .map_err(|e| name_file(e, &name))?;
            return Ok(RunOutcome::Array(devices, Box::new(result)));
        }
        let (result, tables) = run_one(&s, &s.schemes[run.scheme], run.solo, Path::new(""), &name, report)?;
        Ok(match run.solo {
            None => RunOutcome::Shared(Box::new(result), tables),
            Some(t) => RunOutcome::Solo(report::SoloResult::of(&result.tenants[t].1)),
        })
    };
    let mut outcomes = run_parallel(&runs, jobs, &simulate, progress).into_iter();
    let mut results = Vec::new();
    let mut arrays = Vec::new();
    let (mut ts, mut cdf, mut wear) = (Vec::new(), Vec::new(), Vec::new());
    for (scheme_name, outcome) in s.schemes.iter().zip(outcomes.by_ref()) {
        let runs = match outcome? {
            RunOutcome::Shared(result, table) => vec![(*result, table)],
            RunOutcome::Array(devices, array) => {
                arrays.push(*array);
                devices
            }
            RunOutcome::Solo(_) => unreachable!("shared runs come first"),
        };
        for (result, table) in runs {
            let name = if s.array.is_some() { result.scheme.clone() } else { scheme_name.clone() };
            results.push(result);
            ts.push((name.clone(), table.timeseries));
            cdf.push((name.clone(), table.latency_cdf));
            wear.push((name, table.wear));
        }
    }
    if s.measure.solo {
        for r in results.iter_mut() {
            let mut solo = Vec::with_capacity(s.tenants.len());
            for outcome in outcomes.by_ref().take(s.tenants.len()) {
                let RunOutcome::Solo(alone) = outcome? else {
                    unreachable!("solo runs follow the shared ones")
                };
                solo.push(alone);
            }
            r.solo = Some(solo);
        }
    }
    assert!(outcomes.next().is_none(), "every run's outcome is used");
    Ok(RunOutput {
        summary_json: report::summary_json(s.seed, &s.name, &results, &arrays),
        resolved_toml: scenario::to_toml(&s),
        timeseries: concat_tables(ts),
        latency_cdf: concat_tables(cdf),
        wear: concat_tables(wear),
    })
}

/// One simulation of a run: scheme `scheme` (an index into `Scenario::schemes`) with every
/// tenant (`solo: None`) or with tenant `solo` alone, the others silenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    scheme: usize,
    solo: Option<usize>,
}

/// What one `Run` gives back: everything a shared run measured, or a solo run's latencies.
enum RunOutcome {
    Shared(Box<report::SchemeResult>, RunTables),
    /// An array's run: each device's result and tables, and the host layer's result.
    Array(Vec<(report::SchemeResult, RunTables)>, Box<report::ArrayResult>),
    Solo(report::SoloResult),
}

/// The simulations of a scenario in their fixed order: each scheme shared, in scenario order;
/// then, with `measure.solo`, each scheme's solo runs in tenant order.
fn simulations(s: &Scenario) -> Vec<Run> {
    let n = s.schemes.len();
    let mut runs: Vec<Run> = (0..n).map(|scheme| Run { scheme, solo: None }).collect();
    if s.measure.solo {
        runs.extend(
            (0..n).flat_map(|scheme| (0..s.tenants.len()).map(move |t| Run { scheme, solo: Some(t) })),
        );
    }
    runs
}

/// Why a worker stopped early: the caller's progress callback panicked (a cancelled run).
struct WorkerCancelled;

/// What `run_parallel` runs: one item, reporting its progress in permille.
type Simulate<'a, J, T> = dyn Fn(&J, &mut dyn FnMut(u64)) -> T + Sync + 'a;

/// Run `simulate` on each item on one of `jobs` worker threads (the next item goes to the
/// next free worker); the outcomes come back in item order.
fn run_parallel<J: Sync, T: Send>(
    items: &[J],
    jobs: usize,
    simulate: &Simulate<'_, J, T>,
    progress: &mut dyn FnMut(Progress),
) -> Vec<T> {
    use std::sync::atomic::{AtomicBool, AtomicUsize};
    use std::sync::mpsc;
    let n = items.len();
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, u64)>();
    let mut outcomes: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let mut cancelled = None;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                let (tx, next, cancel) = (tx.clone(), &next, &cancel);
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n || cancel.load(Ordering::Relaxed) {
                            return done;
                        }
                        let mut report = |permille: u64| {
                            if cancel.load(Ordering::Relaxed) {
                                std::panic::resume_unwind(Box::new(WorkerCancelled));
                            }
                            let _ = tx.send((i, permille.min(1000)));
                        };
                        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            simulate(&items[i], &mut report)
                        }));
                        match run {
                            Ok(outcome) => {
                                let _ = tx.send((i, 1000));
                                done.push((i, outcome));
                            }
                            Err(p) if p.is::<WorkerCancelled>() => return done,
                            Err(p) => std::panic::resume_unwind(p),
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        let mut permille = vec![0u64; n];
        for (i, p) in rx {
            permille[i] = p;
            if cancelled.is_none() {
                let call = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    progress(Progress { done: permille.iter().sum(), total: n as u64 * 1000 })
                }));
                if let Err(payload) = call {
                    cancel.store(true, Ordering::Relaxed);
                    cancelled = Some(payload);
                }
            }
        }
        for w in workers {
            for (i, outcome) in w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
                outcomes[i] = Some(outcome);
            }
        }
    });
    if let Some(payload) = cancelled {
        std::panic::resume_unwind(payload);
    }
    outcomes.into_iter().map(|o| o.expect("every item ran")).collect()
}

/// The scenario exactly as `run_scenario` would simulate it, without running it: the
/// overrides and seed applied, every default filled in, trace paths made absolute, as TOML
/// (the `resolved_toml` of the run's output). Reads no trace file.
pub fn resolve_scenario(source: &ScenarioSource, opts: &RunOptions) -> Result<String, FtlabError> {
    let (text, name, base_dir) = scenario_text(source)?;
    let mut s = scenario::load(&text, &name, &opts.overrides, opts.seed)?;
    anchor_trace_paths(&mut s, &base_dir);
    Ok(scenario::to_toml(&s))
}

/// Statistics of a trace file in a given format.
pub fn trace_stats(path: &Path, format: TraceFormat) -> Result<TraceStats, FtlabError> {
    let reader = open(path)?;
    crate::workload::stats::trace_reader_stats(read_trace(format, reader))
        .map_err(|e| e.in_file(path.display().to_string()).into())
}

/// `ftlab capture`: convert an strace log and RocksDB's info LOG into an `ftlab-csv` trace at
/// `out` (written to `out` + `.tmp`, then renamed), returning what the conversion counted. The
/// conversion itself is `capture::convert` (no I/O); this opens and writes the files.
pub fn capture(
    strace: &Path,
    log: &Path,
    out: &Path,
    cfg: &crate::capture::CaptureConfig,
) -> Result<crate::capture::CaptureSummary, FtlabError> {
    use crate::capture::{convert, read_event_log, ConvertError};
    use crate::error::{CaptureError, CaptureInput};
    use crate::workload::ftlab_csv::{write_header, write_record};
    use std::io::Write;
    let file_of = |p: &Path| p.display().to_string();
    let to_error = |e: ConvertError, out_tmp: &Path| match e {
        ConvertError::Config { key, reason } => FtlabError::config("ftlab capture", key, reason),
        ConvertError::Strace { line, kind } => {
            CaptureError { file: file_of(strace), input: CaptureInput::Strace, line, kind }.into()
        }
        ConvertError::Log { line, kind } => {
            CaptureError { file: file_of(log), input: CaptureInput::Log, line, kind }.into()
        }
        ConvertError::Output(e) => io_error(out_tmp, e),
    };
    let tmp = PathBuf::from(format!("{}.tmp", out.display()));
    let events = read_event_log(open(log)?).map_err(|e| to_error(e, &tmp))?;
    let input = open(strace)?;
    let mut w =
        std::io::BufWriter::with_capacity(1 << 16, File::create(&tmp).map_err(|e| io_error(&tmp, e))?);
    write_header(&mut w).map_err(|e| io_error(&tmp, e))?;
    let result = convert(input, events, cfg, &mut |r| write_record(&mut w, r));
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            drop(w);
            let _ = std::fs::remove_file(&tmp);
            return Err(to_error(e, &tmp));
        }
    };
    w.flush().map_err(|e| io_error(&tmp, e))?;
    drop(w);
    std::fs::rename(&tmp, out).map_err(|e| io_error(out, e))?;
    Ok(summary)
}

/// Run one named bench case (see `BENCH_CASES`): the standard performance workload on the
/// `mqsim` device. `wall_s` covers the timed simulation, not preconditioning.
pub fn bench_case(case: &str) -> Result<BenchResult, FtlabError> {
    bench_case_with(case, BENCH_REQUESTS, &[])
}

/// `bench_case` with a request count and extra overrides (for reduced runs and scheme cases).
/// `precondition`, `precondition-closed-form` and `memory-1tb` take no requests (`requests` is
/// ignored).
pub fn bench_case_with(case: &str, requests: u64, overrides: &[String]) -> Result<BenchResult, FtlabError> {
    match case {
        "precondition" => return bench_precondition("precondition", overrides),
        "precondition-closed-form" => {
            let mut all = vec!["precondition.overwrites=closed_form".to_string()];
            all.extend_from_slice(overrides);
            return bench_precondition("precondition-closed-form", &all);
        }
        "memory-1tb" => return bench_memory(overrides),
        _ => {}
    }
    let s = bench_scenario(case, requests, overrides)?;
    let scheme_name = s.schemes[0].clone();
    let mut sim = build_simulation(&s, &scheme_name, Path::new("."), "bench")?;
    let (t0, c0) = (Instant::now(), thread_cpu_s());
    precondition(&s, &mut sim, "bench")?;
    let (precondition_wall_s, c1) = (t0.elapsed().as_secs_f64(), thread_cpu_s());
    let t1 = Instant::now();
    sim.run(&mut |_| {})?;
    let (wall_s, c2) = (t1.elapsed().as_secs_f64(), thread_cpu_s());
    let cpu = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
    Ok(BenchResult {
        case: case.into(),
        requests,
        wall_s,
        requests_per_s: requests as f64 / wall_s,
        precondition_wall_s,
        bytes_per_mapping_unit: None,
        cpu_s: cpu(c1, c2),
        precondition_cpu_s: cpu(c0, c1),
    })
}

/// CPU seconds this thread has run (`CLOCK_THREAD_CPUTIME_ID`); `None` where there is none.
fn thread_cpu_s() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes the one timespec it is given, which we own.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The scenario of each timed bench case: the standard bench workload (docs/PERFORMANCE.md),
/// kept as data in `scenarios/bench/` (a user runs one whole with `ftlab run bench/CASE`), so
/// the bench names no scheme; each file says which scheme it times.
const BENCH_SCENARIOS: &[(&str, &str)] = &[
    ("random-write", include_str!("../../../scenarios/bench/random-write.toml")),
    ("mixed-70r30w", include_str!("../../../scenarios/bench/mixed-70r30w.toml")),
    ("upi-mixed-70r30w", include_str!("../../../scenarios/bench/upi-mixed-70r30w.toml")),
];

/// The scenario of the timed bench `case` (`BENCH_SCENARIOS`) with `requests` host requests and
/// the caller's overrides after; an unknown case is a usage error naming the known ones.
fn bench_scenario(case: &str, requests: u64, overrides: &[String]) -> Result<Scenario, FtlabError> {
    let Some((_, text)) = BENCH_SCENARIOS.iter().find(|(name, _)| *name == case) else {
        return Err(FtlabError::Usage {
            arg: case.into(),
            reason: format!("unknown bench case; known: {}", BENCH_CASES.join(", ")),
        });
    };
    let mut all = vec![format!("tenants.bench.synthetic.requests={requests}")];
    all.extend_from_slice(overrides);
    scenario::load(text, &format!("scenarios/bench/{case}.toml"), &all, None)
}

/// `precondition`: the `random-write` case's preconditioning alone (random fill, one pass of
/// random overwrites, the warm-up by workload), on its scenario with its `BENCH_REQUESTS`
/// requests (a shorter source would end and be reopened over and over by the warm-up, which a
/// real run does not do); `wall_s` is its wall time and no request of the timed run is run.
/// `case` names the result (`precondition`, or `precondition-closed-form` with its override).
fn bench_precondition(case: &str, overrides: &[String]) -> Result<BenchResult, FtlabError> {
    let s = bench_scenario("random-write", BENCH_REQUESTS, overrides)?;
    let mut sim = build_simulation(&s, &s.schemes[0], Path::new("."), "bench")?;
    let (t0, c0) = (Instant::now(), thread_cpu_s());
    precondition(&s, &mut sim, "bench")?;
    let (wall_s, c1) = (t0.elapsed().as_secs_f64(), thread_cpu_s());
    let cpu_s = c0.zip(c1).map(|(a, b)| b - a);
    Ok(BenchResult {
        case: case.into(),
        requests: 0,
        wall_s,
        requests_per_s: 0.0,
        precondition_wall_s: wall_s,
        bytes_per_mapping_unit: None,
        cpu_s,
        precondition_cpu_s: cpu_s,
    })
}

/// `memory-1tb`: build the `random-write` simulation on a 1 TiB device
/// (`BENCH_MEMORY_BLOCKS_PER_PLANE`) and report the heap bytes it holds (the allocator's count
/// of bytes in use, allocated but untouched pages included) per physical mapping unit.
fn bench_memory(overrides: &[String]) -> Result<BenchResult, FtlabError> {
    let mut all = vec![format!("device.blocks_per_plane={BENCH_MEMORY_BLOCKS_PER_PLANE}")];
    all.extend_from_slice(overrides);
    let s = bench_scenario("random-write", 1, &all)?;
    let t0 = Instant::now();
    let before = heap_bytes_in_use();
    let sim = build_simulation(&s, &s.schemes[0], Path::new("."), "bench")?;
    let after = heap_bytes_in_use();
    let units = sim.ftl().geometry.n_units() as f64;
    drop(sim);
    let wall_s = t0.elapsed().as_secs_f64();
    let bytes = match (before, after) {
        (Some(b), Some(a)) => Some(a.saturating_sub(b) as f64 / units),
        _ => None,
    };
    Ok(BenchResult {
        case: "memory-1tb".into(),
        requests: 0,
        wall_s,
        requests_per_s: 0.0,
        precondition_wall_s: 0.0,
        bytes_per_mapping_unit: bytes,
        cpu_s: None,
        precondition_cpu_s: None,
    })
}

/// Heap bytes in use by this process, as glibc's allocator counts them (arena bytes in use plus
/// mmap-ed blocks); `None` on other platforms.
fn heap_bytes_in_use() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's statistics; it takes no argument.
        let m = unsafe { libc::mallinfo2() };
        Some(m.uordblks as u64 + m.hblkhd as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

fn scenario_text(source: &ScenarioSource) -> Result<(String, String, PathBuf), FtlabError> {
    match source {
        ScenarioSource::Default => {
            Ok((default_scenario_toml().to_string(), "default.toml".into(), PathBuf::from(".")))
        }
        ScenarioSource::File(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| io_error(path, e))?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            Ok((text, path.display().to_string(), base))
        }
        ScenarioSource::Text { text, base_dir, name } => Ok((text.clone(), name.clone(), base_dir.clone())),
    }
}

/// Make relative trace paths absolute (against the scenario's directory), so the resolved
/// scenario written beside the results still finds its traces.
fn anchor_trace_paths(s: &mut Scenario, base_dir: &Path) {
    // A bare file name has an empty parent, which `absolute` rejects: that is the current dir.
    let dir = if base_dir.as_os_str().is_empty() { Path::new(".") } else { base_dir };
    let base = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    for t in s.tenants.iter_mut() {
        if let scenario::Workload::Trace(tr) = &mut t.workload {
            if Path::new(&tr.path).is_relative() {
                tr.path = base.join(&tr.path).display().to_string();
            }
        }
    }
}

/// Simulated time the run is expected to reach, if the scenario bounds it.
fn horizon(s: &Scenario) -> Option<SimTime> {
    if let Some(d) = s.measure.duration_s {
        return Some(SimTime::from_secs_f64(d));
    }
    let ends: Option<Vec<f64>> = s.tenants.iter().map(|t| t.duration_s.map(|d| t.start_s + d)).collect();
    ends.map(|e| SimTime::from_secs_f64(e.into_iter().fold(0.0, f64::max)))
}

/// One simulation of `scheme_name`: shared by every tenant, or (`solo: Some(t)`) with every
/// tenant but `t` silenced.
fn run_one(
    s: &Scenario,
    scheme_name: &str,
    solo: Option<usize>,
    base_dir: &Path,
    file: &str,
    progress: &mut dyn FnMut(u64),
) -> Result<(report::SchemeResult, RunTables), FtlabError> {
    let traces = ReadCounter::default();
    let mut sim = build_simulation_counted(s, scheme_name, solo, base_dir, file, Some(&traces))?;
    let warm_up = precondition(s, &mut sim, file)?;
    // Progress in permille: of the scenario's known end, else of the trace bytes read.
    let horizon = horizon(s);
    let mut report = |now: SimTime| match horizon {
        Some(h) => progress((now.ns() as u128 * 1000 / h.ns().max(1) as u128) as u64),
        None => progress(traces.permille()),
    };
    sim.run(&mut report).map_err(|e| name_file(e, file))?;
    let (mut result, tables) = sim.finish(scheme_name)?;
    result.warm_up = warm_up;
    Ok((result, tables))
}

/// Bytes read so far from a run's trace files, against their total size: the progress of a
/// run whose length the traces decide.
#[derive(Clone, Debug, Default)]
struct ReadCounter {
    read: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
}

impl ReadCounter {
    fn permille(&self) -> u64 {
        let total = self.total.load(Ordering::Relaxed);
        if total == 0 {
            return 0;
        }
        (self.read.load(Ordering::Relaxed) as u128 * 1000 / total as u128) as u64
    }
}

/// A reader that adds the bytes it reads to a counter.
struct CountingReader<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: std::io::Read> std::io::Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Precondition `sim` as the scenario says (seeded from the scenario seed): fill, and with
/// `precondition.mode = "workload"` warm with the tenants' workloads (every tenant's, also in
/// a solo run: the device is the same), whose trace paths resolve against the current
/// directory (`run_scenario` anchors them). Returns what the warm-up did (`None` in `fill`
/// mode). `file` names the scenario in the error when the device has too little spare space.
pub fn precondition<'a>(
    s: &Scenario,
    sim: &mut Simulation<'a>,
    file: &str,
) -> Result<Option<WarmReport>, FtlabError> {
    let mut rng = crate::sim::rng(s.seed, 0x5052_4543);
    let no_room = |e: OutOfSpace| out_of_space(s, file, e);
    if s.precondition.mode != scenario::PreconditionMode::Workload {
        return sim.precondition(&s.precondition, &mut rng).map(|()| None).map_err(no_room);
    }
    let w = &s.precondition.warm;
    let logical = s.logical_units() as f64;
    let wp = WarmParams {
        window_units: (logical * w.window_capacity_fraction).ceil().max(1.0) as u64,
        cap_units: (logical * w.max_capacity_multiple).ceil() as u64,
        tolerance: w.waf_tolerance,
        closed_loop: s.tenants.iter().map(crate::simulation::closed_loop).collect(),
    };
    let ns = s.namespace_units();
    let mut open = |i: usize, pass: u32| -> Result<Source<'a>, FtlabError> {
        open_source(s, i, &s.tenants[i], ns[i], Some(pass), Path::new(""), None)
    };
    match sim.precondition_warm(&s.precondition, &mut rng, &wp, &mut open) {
        Ok(r) => Ok(Some(r)),
        Err(WarmError::OutOfSpace(e)) => Err(no_room(e)),
        Err(WarmError::Input(e)) => Err(name_file(e, file)),
    }
}

/// Precondition an array's device by fill (`[array]` requires it), its random order and
/// overwrites drawn from `seed` (each device its own).
fn precondition_seeded(
    s: &Scenario,
    sim: &mut Simulation<'_>,
    file: &str,
    seed: u64,
) -> Result<(), FtlabError> {
    assert!(s.precondition.mode != scenario::PreconditionMode::Workload, "validated: [array] fills");
    let mut rng = crate::sim::rng(seed, 0x5052_4543);
    sim.precondition(&s.precondition, &mut rng).map_err(|e| out_of_space(s, file, e))
}

/// The error of a preconditioning that found no room for tenant `tenant`'s data.
fn out_of_space(s: &Scenario, file: &str, OutOfSpace { tenant, reason }: OutOfSpace) -> FtlabError {
    let name = &s.tenants[tenant as usize].name;
    FtlabError::from(RunError::OutOfSpace {
        file: file.to_string(),
        stage: crate::error::Stage::Precondition,
        waiting: vec![name.clone()],
        erases: 0,
        n_blocks: s.geometry().n_blocks,
        reason: format!(
            "tenant {name:?}: {reason}; raise device.over_provisioning or lower \
             precondition.fill_fraction"
        ),
    })
}

/// A fresh simulation of `scheme_name` on the scenario's device, with every tenant's
/// workload opened (the edge: trace files are opened here).
pub fn build_simulation<'a>(
    s: &Scenario,
    scheme_name: &str,
    base_dir: &Path,
    file: &str,
) -> Result<Simulation<'a>, FtlabError> {
    build_simulation_counted(s, scheme_name, None, base_dir, file, None)
}

/// A fresh simulation of the scenario's device under a scheme built by the caller (a policy
/// outside the registry, such as the test-only policies of the integrity test), with the
/// scenario's stream mapper and every tenant's workload opened.
pub fn build_simulation_with<'a>(
    s: &Scenario,
    scheme: Box<dyn scheme::Scheme>,
    base_dir: &Path,
    file: &str,
) -> Result<Simulation<'a>, FtlabError> {
    assemble(s, scheme, None, false, base_dir, file, None)
}

/// What a scheme is built from, for this scenario.
pub fn scheme_context<'g>(
    s: &Scenario,
    g: &'g crate::flash::geometry::Geometry,
    ns: &'g [u32],
    tasks: &'g [crate::rt::Task],
) -> SchemeContext<'g> {
    SchemeContext {
        geometry: g,
        namespace_units: ns,
        over_provisioning: s.device.over_provisioning,
        timing: s.timing(),
        low_watermark_blocks: s.ftl.gc_low_watermark_blocks,
        tasks,
        scheduler: s.ftl.scheduler,
    }
}

fn build_simulation_counted<'a>(
    s: &Scenario,
    scheme_name: &str,
    solo: Option<usize>,
    base_dir: &Path,
    file: &str,
    traces: Option<&ReadCounter>,
) -> Result<Simulation<'a>, FtlabError> {
    build_counted(s, scheme_name, solo, false, base_dir, file, traces)
}

fn build_counted<'a>(
    s: &Scenario,
    scheme_name: &str,
    solo: Option<usize>,
    fed: bool,
    base_dir: &Path,
    file: &str,
    traces: Option<&ReadCounter>,
) -> Result<Simulation<'a>, FtlabError> {
    let ns = s.namespace_units();
    let g = s.geometry();
    let tasks = s.rt_tasks();
    let ctx = scheme_context(s, &g, &ns, &tasks);
    let table = s.scheme.get(scheme_name).cloned().unwrap_or_default();
    let scheme = scheme::build(scheme_name, &table, &ctx)
        .map_err(|e| FtlabError::config(file, format!("scheme.{scheme_name}.{}", e.key), e.reason))?;
    assemble(s, scheme, solo, fed, base_dir, file, traces)
}

/// The simulation of `scheme` on the scenario's device with every tenant's source, or with
/// only tenant `solo`'s workload (the others' sources silent: their namespaces, shares and
/// preconditioned data stay, their requests and periodic jobs do not come); `fed`: every
/// source silent (an array's device).
fn assemble<'a>(
    s: &Scenario,
    scheme: Box<dyn scheme::Scheme>,
    solo: Option<usize>,
    fed: bool,
    base_dir: &Path,
    file: &str,
    traces: Option<&ReadCounter>,
) -> Result<Simulation<'a>, FtlabError> {
    assert!(solo.is_none_or(|t| t < s.tenants.len()), "a solo run of a tenant of the scenario");
    let ns = s.namespace_units();
    let g = s.geometry();
    let mtable = s.stream.get(&s.stream_mapper).cloned().unwrap_or_default();
    let mctx = stream::MapperContext {
        geometry: &g,
        namespace_units: &ns,
        physical_streams: s.ftl.physical_streams,
        fdp: s.device.fdp.as_ref(),
    };
    let mapper = stream::build(&s.stream_mapper, &mtable, &mctx)
        .map_err(|e| FtlabError::config(file, "stream_mapper", e.reason))?;
    let mut sources = Vec::with_capacity(s.tenants.len());
    for (i, t) in s.tenants.iter().enumerate() {
        let silent = fed || solo.is_some_and(|alone| alone != i);
        let source = if silent {
            silent_source(s, t, ns[i])
        } else {
            open_source(s, i, t, ns[i], None, base_dir, traces)?
        };
        sources.push(source);
    }
    Ok(Simulation::new(s, scheme, mapper, sources))
}

/// Tenant `t`'s source in a solo run of another tenant: no request at all.
fn silent_source<'a>(s: &Scenario, t: &TenantConfig, units: u32) -> Source<'a> {
    Source::new(Records::Silent, SourceParams { name: "silent".into(), ..source_params(s, t, units) })
}

fn source_params(s: &Scenario, t: &TenantConfig, units: u32) -> SourceParams {
    SourceParams {
        name: "synthetic".into(),
        namespace_units: units,
        unit_bytes: s.geometry().unit_bytes,
        address_map: AddressMap::Wrap,
        lba_max_bytes: 0,
        time_scale: 1.0,
        start: SimTime::from_secs_f64(t.start_s),
        end: t.duration_s.map(|d| SimTime::from_secs_f64(t.start_s + d)),
        max_requests: None,
        stream_rules: t
            .stream_rules
            .iter()
            .map(|r| (r.offset_bytes, r.offset_bytes + r.size_bytes, r.stream))
            .collect(),
    }
}

/// Tenant `i`'s workload: for the timed run (`warm_pass: None`), or for pass `p` of the
/// warm-up by workload (`Some(p)`: a generator is seeded apart from the timed run's, and
/// apart for each pass; a trace is the same file, from its start).
fn open_source<'a>(
    s: &Scenario,
    i: usize,
    t: &TenantConfig,
    units: u32,
    warm_pass: Option<u32>,
    base_dir: &Path,
    traces: Option<&ReadCounter>,
) -> Result<Source<'a>, FtlabError> {
    let unit_bytes = s.geometry().unit_bytes;
    let mut p = source_params(s, t, units);
    // Purposes 1 and 2 seed the timed run's generators; 3 and 4 the warm-up's passes.
    let seed_of = |purpose: u64| match warm_pass {
        None => crate::sim::seed_for(s.seed, purpose, i as u64),
        Some(pass) => {
            crate::sim::seed_for(crate::sim::seed_for(s.seed, purpose + 2, i as u64), 0, pass as u64)
        }
    };
    let tr = match &t.workload {
        scenario::Workload::Synthetic(w) => {
            // Part j is seeded with `part_seed(seed, j)`; part 0 with `seed` itself.
            let seed = seed_of(1);
            let ns_bytes = units as u64 * unit_bytes as u64;
            let stream = w
                .try_build(ns_bytes, seed)
                .map_err(|(k, r)| FtlabError::config("scenario", synthetic_key(i, &k), r))?;
            return Ok(Source::new(Records::Synthetic(Box::new(stream)), p));
        }
        scenario::Workload::Periodic(w) => {
            let seed = seed_of(2);
            let ns_bytes = units as u64 * unit_bytes as u64;
            p.name = "periodic".into();
            let stream = w.build(ns_bytes, s.geometry().page_bytes, seed);
            return Ok(Source::new(Records::Periodic(Box::new(stream)), p));
        }
        scenario::Workload::Trace(tr) => tr,
    };
    let path = base_dir.join(&tr.path);
    p.name = path.display().to_string();
    p.address_map = tr.address_map;
    p.time_scale = tr.time_scale;
    p.max_requests = tr.max_requests;
    let name_key = |e: FtlabError| match e {
        FtlabError::Io { path, reason } => {
            FtlabError::Io { path, reason: format!("{reason} (tenants.{i}.trace.path)") }
        }
        other => other,
    };
    if tr.address_map == AddressMap::Scale {
        p.lba_max_bytes = match tr.lba_max_bytes {
            Some(m) => m,
            None => trace_stats(&path, tr.format).map_err(name_key)?.lba_max_bytes,
        };
    }
    let reader = open(&path).map_err(name_key)?;
    let Some(counter) = traces else {
        return Ok(Source::new(Records::Trace(read_trace(tr.format, reader)), p));
    };
    let size = reader.get_ref().metadata().map(|m| m.len()).unwrap_or(0);
    counter.total.fetch_add(size, Ordering::Relaxed);
    let counted = BufReader::with_capacity(
        1 << 16,
        CountingReader { inner: reader.into_inner(), read: counter.read.clone() },
    );
    Ok(Source::new(Records::Trace(read_trace(tr.format, counted)), p))
}

/// `tenants.{i}.synthetic` joined with a key relative to it (empty: the table itself).
fn synthetic_key(i: usize, key: &str) -> String {
    if key.is_empty() {
        format!("tenants.{i}.synthetic")
    } else {
        format!("tenants.{i}.synthetic.{key}")
    }
}

/// Put the scenario's name on a config, out-of-space or no-progress error the simulation raised
/// without it.
fn name_file(e: FtlabError, file: &str) -> FtlabError {
    match e {
        FtlabError::Config { key, reason, place, .. } => {
            FtlabError::Config { file: file.to_string(), key, reason, place }
        }
        FtlabError::Run(e) => FtlabError::Run(e.in_file(file)),
        other => other,
    }
}

fn open(path: &Path) -> Result<BufReader<File>, FtlabError> {
    let f = File::open(path).map_err(|e| io_error(path, e))?;
    Ok(BufReader::with_capacity(1 << 16, f))
}

fn io_error(path: &Path, e: std::io::Error) -> FtlabError {
    FtlabError::Io { path: path.display().to_string(), reason: e.to_string() }
}
