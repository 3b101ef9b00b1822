//! The Report: what one scheme's run measured (`SchemeResult`) and the `summary.json`
//! built from all schemes of a scenario. Key names are a contract (see README); key order
//! is fixed, so the same results give byte-identical JSON. Not the time series (see
//! `timeseries`) and not the terminal table (Python).

use super::{latency::LatencySummary, DeviceCounters, OpStats, TenantMetrics};
use crate::sim::time::SimTime;
use serde_json::{json, Value};

/// What one scheme's run measured.
#[derive(Clone, Debug)]
pub struct SchemeResult {
    pub scheme: String,
    pub tenants: Vec<(String, TenantMetrics)>,
    pub device: DeviceCounters,
    /// Mapping units per flash page (for the device WAF).
    pub units_per_page: u32,
    /// Erase counts of all blocks at the end (preconditioning included).
    pub erase_count_min: u32,
    pub erase_count_max: u32,
    pub erase_count_mean: f64,
    /// Simulated time at the end of the run.
    pub sim_time: SimTime,
    /// Length of the measured phase (end minus warm-up), the denominator of IOPS.
    pub measured: SimTime,
    /// Busy fraction of each die over the run.
    pub die_utilisation: Vec<f64>,
    /// Integrity-oracle checks performed (0 when it is off).
    pub integrity_checks: u64,
}

/// `summary.json` for a scenario's schemes.
pub fn summary_json(seed: u64, scenario: &str, results: &[SchemeResult]) -> String {
    let mut schemes = serde_json::Map::new();
    for r in results {
        schemes.insert(r.scheme.clone(), scheme_json(r));
    }
    let v = json!({
        "ftlab_version": env!("CARGO_PKG_VERSION"),
        "seed": seed,
        "scenario": scenario,
        "schemes": schemes,
    });
    let mut s = serde_json::to_string_pretty(&v).expect("summary serializes");
    s.push('\n');
    s
}

fn scheme_json(r: &SchemeResult) -> Value {
    let secs = r.measured.as_secs_f64();
    let mut tenants = serde_json::Map::new();
    for (name, t) in &r.tenants {
        tenants.insert(name.clone(), tenant_json(t, secs));
    }
    let d = &r.device;
    let device_waf = ratio((d.flash_pages_programmed * r.units_per_page as u64) as f64, d.host_units as f64);
    let util_mean = if r.die_utilisation.is_empty() { 0.0 } else { r.die_utilisation.iter().sum::<f64>() / r.die_utilisation.len() as f64 };
    json!({
        "tenants": tenants,
        "device": {
            "waf": device_waf,
            "host_pages_written": d.host_units,
            "flash_pages_programmed": d.flash_pages_programmed,
            "gc_pages_copied": d.gc_units,
            "erases": d.erases,
            "erase_count_min": r.erase_count_min,
            "erase_count_max": r.erase_count_max,
            "erase_count_mean": round6(r.erase_count_mean),
            "wear_imbalance": ratio(r.erase_count_max as f64, r.erase_count_mean),
            "flash_reads": d.flash_reads,
            "rebuilt_reads": d.rebuilt_reads,
            "suspensions": d.suspensions,
            "multi_plane_ops": d.multi_plane_ops,
            "die_utilisation_mean": round6(util_mean),
            "die_utilisation": r.die_utilisation.iter().map(|&u| round6(u)).collect::<Vec<_>>(),
            "integrity_checks": r.integrity_checks,
            "sim_time_ns": r.sim_time.ns(),
            "measured_s": round6(secs),
        },
    })
}

fn tenant_json(t: &TenantMetrics, secs: f64) -> Value {
    json!({
        "read": op_json(&t.read, secs),
        "write": op_json(&t.write, secs),
        "trim": op_json(&t.trim, secs),
        "waf": ratio((t.host_units + t.gc_units) as f64, t.host_units as f64),
        "gc_pages_copied": t.gc_units,
        "host_pages_written": t.host_units,
        "unmapped_reads": t.unmapped_reads,
        "buffer_reads": t.buffer_reads,
    })
}

fn op_json(op: &OpStats, secs: f64) -> Value {
    let LatencySummary { count, mean_us, p50_us, p90_us, p99_us, p999_us, p9999_us, max_us } = op.hist.summary();
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
