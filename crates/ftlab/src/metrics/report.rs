//! The Report: what one scheme's run measured (`SchemeResult`) and the `summary.json`
//! built from all schemes of a scenario. Key names are a contract (see README and
//! docs/scenario.md); key order is fixed, so the same results give byte-identical JSON. Every
//! counter covers the measured phase (from `measure.warmup_s`) except where its key says
//! otherwise (`erase_count_*` and `precondition_erases` are the device's wear). Not the time
//! series (see `timeseries`) and not the terminal table (Python).

use super::deadline::TaskStats;
use super::health::{HealthLimits, HealthVerdict};
use super::lifetime::{LifetimeResult, WearGroup};
use super::phase::PhaseResult;
use super::streams::StreamsResult;
use super::{latency::LatencySummary, DeviceCounters, JobCounters, OpStats, TenantMetrics};
use crate::policy::{Counters, JobKind};
use crate::sim::time::SimTime;
use serde_json::{json, Map, Value};

/// What a warm-up by workload did (`summary.json`'s `device.warm_up`; the warm-up is
/// `simulation::warm`).
#[derive(Clone, Debug, PartialEq)]
pub struct WarmReport {
    /// Host units written by the warm-up (after the fill).
    pub(crate) host_units: u64,
    /// Device WAF of each completed window, in order.
    pub(crate) waf_windows: Vec<f64>,
    /// The last two windows agreed within the tolerance.
    pub(crate) converged: bool,
    /// The warm-up stopped at `max_capacity_multiple` without converging.
    pub(crate) cap_hit: bool,
    /// Every tenant's source ended a pass without writing: the warm-up had no writes left.
    pub(crate) writes_ended: bool,
    /// The tenant (index) whose write found no room: the warm-up stopped there (a write
    /// of a request may have been placed in part; the units placed are valid data).
    pub(crate) out_of_space: Option<u16>,
    /// Per tenant: passes over its workload begun (1 = never reopened).
    pub(crate) passes: Vec<u32>,
}

/// What the closed-form fill wrote (`precondition.overwrites = "closed_form"`,
/// `simulation::steady`): the profile's victim valid fraction, the room it spread the log
/// over, and the live and stale units it programmed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClosedFormReport {
    pub(crate) victim_valid_fraction: f64,
    pub(crate) room_units: u64,
    pub(crate) live_units: u64,
    pub(crate) stale_units: u64,
}

/// What an array's host layer measured for one tenant (`[array]`; `crate::array`): its
/// array requests' latencies (arrival to the completion of the last device request), the
/// reads it rebuilt and the rows its writes wrote whole or by read-modify-write. Counts cover
/// requests arriving in the measured phase.
#[derive(Clone, Debug, Default)]
pub(crate) struct ArrayTenantResult {
    pub(crate) read: OpStats,
    pub(crate) write: OpStats,
    /// Read pieces (runs of units in one chunk) rebuilt from the other devices of their row.
    pub(crate) chunks_rebuilt: u64,
    pub(crate) stripe_writes_full: u64,
    pub(crate) stripe_writes_rmw: u64,
    /// `[array] fail_fast`: read pieces a busy device failed at once, and those of them whose
    /// row had another busy chunk (RAID-5 rebuilds only one).
    pub(crate) reads_failed_fast: u64,
    pub(crate) reads_multi_busy: u64,
    /// `[array] fail_fast` other than `"iod3"`: a write's read-modify-write read pieces a
    /// busy device failed at once, and those of them rebuilt from the rest of their row.
    pub(crate) rmw_reads_failed_fast: u64,
    pub(crate) rmw_reads_rebuilt: u64,
}

/// What one scheme's run on an array measured at its host layer (each device's own result is
/// a `SchemeResult` named `<scheme>/dev<i>`).
#[derive(Clone, Debug)]
pub(crate) struct ArrayResult {
    pub(crate) scheme: String,
    pub(crate) devices: u32,
    pub(crate) chunk_kib: u32,
    pub(crate) rebuild_device: Option<u32>,
    /// `[array] fail_fast` (`"off"`, `"random"`, `"brt"`, `"iod3"`) and `stagger`.
    pub(crate) fail_fast: &'static str,
    pub(crate) stagger: bool,
    pub(crate) tenants: Vec<(String, ArrayTenantResult)>,
    /// The devices' results' names, in device order.
    pub(crate) device_names: Vec<String>,
    /// Device requests the host layer issued (reads, writes, rebuild members).
    pub(crate) device_requests: u64,
    /// Array-oracle checks (0 when `[check] integrity` is off).
    pub(crate) integrity_checks: u64,
    pub(crate) sim_time: SimTime,
    pub(crate) measured: SimTime,
}

/// What one scheme's run measured.
#[derive(Clone, Debug)]
pub struct SchemeResult {
    pub(crate) scheme: String,
    /// `[[measure.phases]]`, in scenario order (empty without phases).
    pub(crate) phases: Vec<PhaseResult>,
    pub tenants: Vec<(String, TenantMetrics)>,
    pub(crate) queue_depths: Vec<u32>,
    pub device: DeviceCounters,
    pub(crate) jobs: JobCounters,
    /// The scheme's and the stream mapper's own counters.
    pub(crate) scheme_counters: Counters,
    pub mapper_counters: Counters,
    /// The stream mapper's structured report (`StreamMapper::report`), if it has one.
    pub(crate) mapper_report: Option<(&'static str, Value)>,
    /// Mapping units per flash page (for the device WAF).
    pub(crate) units_per_page: u32,
    /// Erase counts of all blocks at the end (preconditioning included: the device's wear).
    pub(crate) erase_count_min: u32,
    pub(crate) erase_count_max: u32,
    pub(crate) erase_count_mean: f64,
    /// Blocks erased while preconditioning.
    pub(crate) precondition_erases: u64,
    /// Simulated time at the end of the run.
    pub(crate) sim_time: SimTime,
    /// Length of the measured phase (end minus warm-up), the denominator of IOPS.
    pub(crate) measured: SimTime,
    /// Busy fraction of each die over the measured phase.
    pub(crate) die_utilisation: Vec<f64>,
    /// Integrity-oracle checks performed (0 when it is off).
    pub(crate) integrity_checks: u64,
    /// Time-series latencies beyond the histograms' range.
    pub(crate) timeseries_saturated: u64,
    pub(crate) write_buffer_bytes: u64,
    /// Per-stream counts (physical and virtual streams).
    pub streams: StreamsResult,
    /// Wear and projected lifetime per channel, tenant and device (`metrics::lifetime`).
    pub(crate) lifetime: LifetimeResult,
    /// `measure.starvation_wait_s` and `measure.backlog_queue_depths_max`, the bounds of
    /// each tenant's `starved` and `unstable`.
    pub(crate) health_limits: HealthLimits,
    /// With `measure.solo`: each tenant's latencies when it ran alone under this scheme, in
    /// tenant order (set by `api::run_scenario`; `None` without solo runs).
    pub(crate) solo: Option<Vec<SoloResult>>,
    /// What the warm-up by workload did (`precondition.mode = "workload"`; set by
    /// `api::run_scenario`), `None` in `fill` mode.
    pub(crate) warm_up: Option<WarmReport>,
    /// What the closed-form fill wrote; `None` where the overwrites were simulated.
    pub(crate) closed_form: Option<ClosedFormReport>,
}

/// What a solo run (`measure.solo`) keeps of its tenant: the read and write latencies it had
/// alone, and its health (waits, stalls, backlog, `unstable`). Not the solo run's other
/// counters, time series or tables.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SoloResult {
    pub(crate) read: LatencySummary,
    pub(crate) write: LatencySummary,
    pub(crate) health: HealthVerdict,
    pub(crate) unstable: bool,
}

impl SoloResult {
    /// The read and write latencies and the health of `t`, a tenant's metrics from its solo
    /// run (after its end).
    pub(crate) fn of(t: &TenantMetrics) -> SoloResult {
        SoloResult {
            read: t.read.hist.summary(),
            write: t.write.hist.summary(),
            health: t.health_verdict.expect("the run's end sets the health verdict"),
            unstable: t.verdict.expect("the run's end sets the verdict").unstable,
        }
    }
}

/// `summary.json` for a scenario's schemes. With solo runs (every result's `solo` set), `measure.solo` says
/// so and each tenant has `solo` and `slowdown`; without them the JSON has neither.
/// With an array (`arrays` not empty: one per scheme), `schemes` holds each device's result
/// (`<scheme>/dev<i>`) and `array` the host layer's.
pub(crate) fn summary_json(
    seed: u64,
    scenario: &str,
    results: &[SchemeResult],
    arrays: &[ArrayResult],
) -> String {
    let solo = results.first().is_some_and(|r| r.solo.is_some());
    assert!(results.iter().all(|r| r.solo.is_some() == solo), "solo runs for every scheme or none");
    let mut schemes = Map::new();
    for r in results {
        schemes.insert(r.scheme.clone(), scheme_json(r));
    }
    let mut v = json!({
        "ftlab_version": env!("CARGO_PKG_VERSION"),
        "seed": seed,
        "scenario": scenario,
    });
    if solo {
        v["measure"] = json!({"solo": true});
    }
    v["schemes"] = Value::Object(schemes);
    if let Some(first) = arrays.first() {
        let mut by_scheme = Map::new();
        for a in arrays {
            by_scheme.insert(a.scheme.clone(), array_json(a));
        }
        v["array"] = json!({
            "devices": first.devices,
            "chunk_kib": first.chunk_kib,
            "rebuild_device": first.rebuild_device,
            "fail_fast": first.fail_fast,
            "stagger": first.stagger,
            "schemes": by_scheme,
        });
    }
    let mut s = serde_json::to_string_pretty(&v).expect("summary serializes");
    s.push('\n');
    s
}

fn array_json(a: &ArrayResult) -> Value {
    let secs = a.measured.as_secs_f64();
    let mut tenants = Map::new();
    for (name, t) in &a.tenants {
        tenants.insert(
            name.clone(),
            json!({
                "read": array_op_json(&t.read, secs),
                "write": array_op_json(&t.write, secs),
                "chunks_rebuilt": t.chunks_rebuilt,
                "stripe_writes_full": t.stripe_writes_full,
                "stripe_writes_rmw": t.stripe_writes_rmw,
                "reads_failed_fast": t.reads_failed_fast,
                "reads_multi_busy": t.reads_multi_busy,
                "rmw_reads_failed_fast": t.rmw_reads_failed_fast,
                "rmw_reads_rebuilt": t.rmw_reads_rebuilt,
            }),
        );
    }
    json!({
        "tenants": tenants,
        "devices": a.device_names,
        "device_requests": a.device_requests,
        "integrity_checks": a.integrity_checks,
        "sim_time_ns": a.sim_time.ns(),
        "measured_s": round6(secs),
    })
}

fn scheme_json(r: &SchemeResult) -> Value {
    let secs = r.measured.as_secs_f64();
    let mut tenants = Map::new();
    for (((name, t), &qd), wear) in r.tenants.iter().zip(&r.queue_depths).zip(&r.lifetime.tenants) {
        let mut v = tenant_json(t, qd, secs, &r.health_limits);
        v["wear"] = wear_json(wear);
        tenants.insert(name.clone(), v);
    }
    if let Some(solo) = &r.solo {
        assert_eq!(solo.len(), r.tenants.len(), "one solo run per tenant");
        for ((name, t), alone) in r.tenants.iter().zip(solo) {
            let v = tenants.get_mut(name).expect("inserted above");
            v["solo"] = json!({"read": solo_op_json(&alone.read), "write": solo_op_json(&alone.write)});
            health_json(&mut v["solo"], &alone.health, alone.unstable, None);
            v["slowdown"] = slowdown_json(t, alone);
        }
    }
    let d = &r.device;
    let device_waf = ratio((d.flash_pages_programmed * r.units_per_page as u64) as f64, d.host_units as f64);
    let util_mean = if r.die_utilisation.is_empty() {
        0.0
    } else {
        r.die_utilisation.iter().sum::<f64>() / r.die_utilisation.len() as f64
    };
    let mut v = json!({
        "tenants": tenants,
        "device": {
            "waf": device_waf,
            "host_pages_written": d.host_units,
            "flash_pages_programmed": d.flash_pages_programmed,
            "gc_pages_copied": d.gc_units,
            "erases": d.erases,
            "blocks_multi_tenant": d.blocks_multi_tenant,
            "precondition_erases": r.precondition_erases,
            "erase_count_min": r.erase_count_min,
            "erase_count_max": r.erase_count_max,
            "erase_count_mean": round6(r.erase_count_mean),
            "wear_imbalance": ratio(r.erase_count_max as f64, r.erase_count_mean),
            "pe_cycles": r.lifetime.pe_cycles,
            "erase_rate_per_s": round6(r.lifetime.device.erase_rate_per_s),
            "erase_rate_imbalance": r.lifetime.erase_rate_imbalance.map(round6),
            "lifetime_days": r.lifetime.lifetime_days_first_channel.map(round6),
            "lifetime_days_balanced": r.lifetime.device.lifetime_days.map(round6),
            "first_wear_out_s": r.lifetime.first_wear_out.map(|t| round6(t.as_secs_f64())),
            "flash_reads": d.flash_reads,
            "rebuilt_reads": d.rebuilt_reads,
            "suspensions": d.suspensions,
            "reads_blocked": d.reads_blocked,
            "read_rebuilt_us_max": d.read_rebuilt_ns_max as f64 / 1e3,
            "multi_plane_ops": d.multi_plane_ops,
            "die_utilisation_mean": round6(util_mean),
            "die_utilisation_max": round6(r.die_utilisation.iter().copied().fold(0.0, f64::max)),
            "die_utilisation": r.die_utilisation.iter().map(|&u| round6(u)).collect::<Vec<_>>(),
            "write_buffer_bytes": r.write_buffer_bytes,
            "timeseries_latency_saturated": r.timeseries_saturated,
            "integrity_checks": r.integrity_checks,
            "sim_time_ns": r.sim_time.ns(),
            "measured_s": round6(secs),
        },
        "channels": r.lifetime.channels.iter().enumerate().map(|(c, w)| {
            let mut v = json!({"channel": c, "erase_count_max_start": w.erase_count_max_start});
            let wear = wear_json(w).as_object().expect("an object").clone();
            v.as_object_mut().expect("an object").extend(wear);
            v
        }).collect::<Vec<_>>(),
        "jobs": jobs_json(&r.jobs),
        "scheme_counters": counters_json(&r.scheme_counters),
        "mapper_counters": counters_json(&r.mapper_counters),
        "streams": streams_json(&r.streams, &r.tenants),
    });
    v["precondition"] = precondition_json(r);
    if !r.phases.is_empty() {
        let names: Vec<&str> = r.tenants.iter().map(|(n, _)| n.as_str()).collect();
        v["phases"] =
            r.phases.iter().map(|p| (p.name.clone(), phase_json(p, &names))).collect::<Map<_, _>>().into();
    }
    if let Some((key, report)) = &r.mapper_report {
        v["mapper_report"] = json!({ *key: report });
    }
    v
}

/// How preconditioning ended: the mode, and what the warm-up by workload did (the host
/// pages it wrote, each window's device WAF, whether it converged or hit its cap, or ran out
/// of writes or of room (the tenant whose write found none), and how many passes over each
/// tenant's workload it began), and, where the fill was the closed form (`overwrites`
/// absent: simulated), what it wrote.
fn precondition_json(r: &SchemeResult) -> Value {
    let mut v = warm_json(r);
    if let Some(c) = &r.closed_form {
        v["overwrites"] = json!("closed_form");
        v["closed_form_victim_valid_fraction"] = json!(round6(c.victim_valid_fraction));
        v["closed_form_room_units"] = json!(c.room_units);
        v["closed_form_live_units"] = json!(c.live_units);
        v["closed_form_stale_units"] = json!(c.stale_units);
    }
    v
}

/// The mode and the warm-up's part of `precondition_json`.
fn warm_json(r: &SchemeResult) -> Value {
    let Some(w) = &r.warm_up else { return json!({"mode": "fill"}) };
    let passes: Map<String, Value> =
        r.tenants.iter().zip(&w.passes).map(|((n, _), &p)| (n.clone(), json!(p))).collect();
    json!({
        "mode": "workload",
        "warm_host_pages_written": w.host_units,
        "warm_windows": w.waf_windows.len(),
        "warm_waf_windows": w.waf_windows.iter().map(|&x| round6(x)).collect::<Vec<_>>(),
        "warm_converged": w.converged,
        "warm_cap_hit": w.cap_hit,
        "warm_writes_ended": w.writes_ended,
        "warm_out_of_space": w.out_of_space.map(|t| r.tenants[t as usize].0.clone()),
        "warm_passes": passes,
    })
}

/// One phase: per tenant read and write latencies and WAF; the device's WAF, erases and die
/// utilisation (each die, the mean and the busiest).
fn phase_json(p: &PhaseResult, names: &[&str]) -> Value {
    let secs = (p.end - p.start).as_secs_f64();
    let mut tenants = Map::new();
    for (t, name) in names.iter().enumerate() {
        let waf = ratio((p.host_units[t] + p.gc_units[t]) as f64, p.host_units[t] as f64);
        tenants.insert(
            name.to_string(),
            json!({"read": op_json(&p.read[t], secs), "write": op_json(&p.write[t], secs), "waf": waf}),
        );
    }
    let host: u64 = p.host_units.iter().sum();
    let util = &p.die_utilisation;
    let util_mean = if util.is_empty() { 0.0 } else { util.iter().sum::<f64>() / util.len() as f64 };
    json!({
        "start_s": round6(p.start.as_secs_f64()),
        "end_s": round6(p.end.as_secs_f64()),
        "tenants": tenants,
        "device": {
            "waf": ratio((p.flash_pages_programmed * p.units_per_page as u64) as f64, host as f64),
            "erases": p.erases,
            "die_utilisation_mean": round6(util_mean),
            "die_utilisation_max": round6(util.iter().copied().fold(0.0, f64::max)),
            "die_utilisation": util.iter().map(|&u| round6(u)).collect::<Vec<_>>(),
        },
    })
}

fn tenant_json(t: &TenantMetrics, queue_depth: u32, secs: f64, limits: &HealthLimits) -> Value {
    let v = t.verdict.expect("the run's end sets the verdict");
    let h = t.health_verdict.expect("the run's end sets the health verdict");
    let mut m = json!({
        "read": op_json(&t.read, secs),
        "write": op_json(&t.write, secs),
        "trim": op_json(&t.trim, secs),
        "waf": ratio((t.host_units + t.gc_units) as f64, t.host_units as f64),
        "gc_pages_copied": t.gc_units,
        "gc_copies_for_others": t.gc_copies_for_others,
        "host_pages_written": t.host_units,
        "unmapped_reads": t.unmapped_reads,
        "buffer_reads": t.buffer_reads,
        "queue_depth": queue_depth,
        "outstanding_at_end": v.outstanding_at_end,
        "writes_outstanding_at_end": t.writes_outstanding_at_end,
        "backlog_growth": round6(v.growth),
        "unstable": v.unstable,
    });
    health_json(&mut m, &h, v.unstable, Some((limits, queue_depth)));
    m["reordered_arrivals"] = json!(t.reordered_arrivals);
    m["skipped_records"] = json!(t.skipped_records);
    m["records_not_replayed"] = json!(t.records_not_replayed);
    if !t.tasks.is_empty() {
        m["deadlines"] = deadlines_json(&t.tasks);
    }
    m
}

/// A tenant's health keys into `v` (after `unstable`): `backlog_max`, `backlog_max_error`, `max_wait_s`,
/// `stall_s_max` (seconds to the nanosecond, not rounded), `starved`; with `limits`, the bounds they were
/// judged by (`backlog_limit`: the limit in queue depths times the queue depth, and
/// `starvation_wait_s`). Without limits (a solo run, whose bounds are its shared run's),
/// `unstable` is written here too.
fn health_json(v: &mut Value, h: &HealthVerdict, unstable: bool, limits: Option<(&HealthLimits, u32)>) {
    if limits.is_none() {
        v["unstable"] = json!(unstable);
    }
    v["backlog_max"] = json!(h.backlog_max);
    v["backlog_max_error"] = json!(h.backlog_max_error);
    if let Some((l, qd)) = limits {
        v["backlog_limit"] = json!(round6(l.backlog_queue_depths_max * qd as f64));
    }
    v["max_wait_s"] = json!(h.wait_ns_max as f64 / 1e9);
    if let Some((l, _)) = limits {
        v["starvation_wait_s"] = json!(l.starvation_wait.as_secs_f64());
    }
    v["stall_s_max"] = json!(h.stall_ns_max as f64 / 1e9);
    v["starved"] = json!(h.starved);
}

/// `streams`: per physical stream the host units written and the units copied into it; per
/// tenant, per virtual stream with any count, units written, dead (with a known write time, and
/// from before the timed run) and their mean lifetime (null if none died).
fn streams_json(s: &StreamsResult, tenants: &[(String, TenantMetrics)]) -> Value {
    let physical: Vec<Value> = s
        .host_units
        .iter()
        .zip(&s.gc_units)
        .enumerate()
        .map(|(i, (h, g))| json!({"stream": i, "host_units_written": h, "gc_units_copied": g}))
        .collect();
    let mut virt = Map::new();
    for ((name, _), streams) in tenants.iter().zip(&s.virtual_streams) {
        let rows: Vec<Value> = streams
            .iter()
            .map(|(vs, st)| {
                json!({
                    "stream": vs.map_or(json!("other"), |v| json!(v)),
                    "units_written": st.n_units_written,
                    "units_dead": st.n_units_dead,
                    "units_dead_unknown_age": st.n_units_dead_unknown,
                    "lifetime_s_mean": st.lifetime_s_mean().map(round6),
                })
            })
            .collect();
        virt.insert(name.clone(), Value::Array(rows));
    }
    json!({"physical": physical, "virtual": virt, "write_times_capped": s.write_times_capped})
}

fn deadlines_json(tasks: &[TaskStats]) -> Value {
    let mut per = Map::new();
    for s in tasks {
        let mean = if s.completed == 0 {
            0.0
        } else {
            (s.response_sum_ns as f64 / s.completed as f64).round() / 1e3
        };
        per.insert(
            s.name.clone(),
            json!({
                "released": s.released(),
                "completed": s.completed,
                "misses": s.misses(),
                "missed_outstanding": s.missed_outstanding,
                "pending_at_end": s.pending_at_end,
                "response_mean_us": mean,
                "response_max_us": s.response_max_ns as f64 / 1e3,
            }),
        );
    }
    json!({
        "released": tasks.iter().map(TaskStats::released).sum::<u64>(),
        "misses": tasks.iter().map(TaskStats::misses).sum::<u64>(),
        "tasks": per,
    })
}

/// One group's wear (a tenant's blocks, a channel): see `metrics::lifetime`.
fn wear_json(w: &WearGroup) -> Value {
    json!({
        "blocks": w.blocks,
        "erases": w.erases,
        "erase_rate_per_s": round6(w.erase_rate_per_s),
        "erase_count_min": w.erase_count_min,
        "erase_count_max": w.erase_count_max,
        "erase_count_mean": round6(w.erase_count_mean),
        "wear_imbalance": w.wear_imbalance.map(round6),
        "lifetime_days": w.lifetime_days.map(round6),
    })
}

fn jobs_json(j: &JobCounters) -> Value {
    let mut m = Map::new();
    for k in JobKind::ALL {
        let i = k as usize;
        m.insert(
            k.name().into(),
            json!({ "started": j.started[i], "page_reads": j.page_reads[i], "erases": j.erases[i] }),
        );
    }
    m.insert("migrate_skipped_blocks".into(), json!(j.migrate_skipped_blocks));
    m.insert("fallback_copies".into(), json!(j.fallback_copies));
    m.insert("gc_steps".into(), json!(j.gc_steps));
    m.insert("gc_steps_refused".into(), json!(j.gc_steps_refused));
    m.insert("parity_deferred".into(), json!(j.parity_deferred));
    m.insert("parity_dropped".into(), json!(j.parity_dropped));
    m.insert("sources_left".into(), json!(j.sources_left));
    Value::Object(m)
}

fn counters_json(c: &Counters) -> Value {
    let mut m = Map::new();
    for (k, v) in c {
        assert!(m.insert((*k).to_string(), json!(round6(*v))).is_none(), "counter {k} reported twice");
    }
    Value::Object(m)
}

fn op_json(op: &OpStats, secs: f64) -> Value {
    let LatencySummary { count, mean_us, p50_us, p90_us, p99_us, p999_us, p9999_us, max_us } =
        op.hist.summary();
    json!({
        "count": count,
        "bytes": op.bytes,
        "iops": if secs > 0.0 { round6(count as f64 / secs) } else { 0.0 },
        "mean_us": mean_us,
        "p50_us": p50_us,
        "p90_us": p90_us,
        "p99_us": p99_us,
        "p999_us": p999_us,
        "p9999_us": p9999_us,
        "max_us": max_us,
        "saturated": op.hist.saturated(),
    })
}

/// An array request's latencies (`op_json`'s, and the p95: IODA reports the 95th to the
/// 99.99th percentiles, "improves the 95–99.99th latencies by up to 75×").
fn array_op_json(op: &OpStats, secs: f64) -> Value {
    let mut v = op_json(op, secs);
    v["p95_us"] = json!(op.hist.p95_us());
    v
}

/// A solo run's latencies of one op: mean and p99 (µs) and the count they are over.
fn solo_op_json(s: &LatencySummary) -> Value {
    json!({"mean_us": s.mean_us, "p99_us": s.p99_us, "count": s.count})
}

/// Shared over solo of each op's mean and p99 latency, rounded to 6 decimals; null when
/// either run has no request of that op (or the solo value is 0), never NaN or infinite.
fn slowdown_json(shared: &TenantMetrics, alone: &SoloResult) -> Value {
    let (read, write) = (shared.read.hist.summary(), shared.write.hist.summary());
    let of = |s: &LatencySummary, a: &LatencySummary, f: fn(&LatencySummary) -> f64| {
        if s.count == 0 || a.count == 0 {
            Value::Null
        } else {
            ratio(f(s), f(a))
        }
    };
    json!({
        "read_mean": of(&read, &alone.read, |x| x.mean_us),
        "read_p99": of(&read, &alone.read, |x| x.p99_us),
        "write_mean": of(&write, &alone.write, |x| x.mean_us),
        "write_p99": of(&write, &alone.write, |x| x.p99_us),
    })
}

/// `num / den` rounded to 6 decimals, or JSON null when `den` is 0 (undefined, e.g. the
/// WAF of a tenant that wrote nothing).
fn ratio(num: f64, den: f64) -> Value {
    if den == 0.0 {
        Value::Null
    } else {
        json!(round6(num / den))
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
