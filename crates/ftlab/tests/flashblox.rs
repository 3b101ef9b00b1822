//! `flashblox` (scheme/flashblox.rs, docs/schemes/flashblox.md): vSSD allocation and its
//! errors per kind, the swap trigger on a constructed erase-rate imbalance (one channel does
//! every erase), a swap's migration under the integrity oracle while both vSSDs write and
//! read, the software vSSDs' token bucket, determinism, and the slides' swap bound on a
//! detailed run (one hot vSSD over two channels: imbalance within (K+1)/(K+1/N) after K rounds).

mod common;

use common::{run, run_raw, tiny};
use ftlab::api::{build_simulation, precondition};
use ftlab::scenario;
use serde_json::Value;
use std::path::Path;

/// Tenant `hot` overwrites at random, `cold` reads (and writes a little when `cold_writes`).
fn tenants(cold_writes: bool) -> String {
    let cold_read_ratio = if cold_writes { 0.8 } else { 1.0 };
    format!(
        r#"
[measure]
duration_s = 4.0
[[tenants]]
name = "hot"
namespace_fraction = 0.5
queue_depth = 8
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.2
arrival = "closed"
requests = 200000
[[tenants]]
name = "cold"
namespace_fraction = 0.5
queue_depth = 4
[tenants.synthetic]
pattern = "uniform"
read_ratio = {cold_read_ratio}
arrival = "poisson"
rate_iops = 1500.0
requests = 100000
"#
    )
}

/// Under `ftl.scheduler = "fair"`, which software vSSDs require.
fn flashblox(knobs: &str, cold_writes: bool) -> String {
    tiny(&["flashblox"], &format!("[ftl]\nscheduler = \"fair\"\n[scheme.flashblox]\n{knobs}\n"), &tenants(cold_writes))
}

fn counter(s: &Value, key: &str) -> f64 {
    s["schemes"]["flashblox"]["scheme_counters"][key].as_f64().unwrap_or_else(|| panic!("no counter {key}"))
}

const SWAPPY: &str = "epoch_s = 0.01\nswap_interval_min_s = 0.3\nswap_threshold = 1.5";

#[test]
fn one_hot_channel_triggers_swaps_and_spreads_the_erases() {
    // Two channels, one per vSSD; `hot` does every erase, so the erase-rate imbalance is
    // max / mean = r / (r / 2) = 2 > 1.5: the trigger fires once the interval has passed.
    let s = run(&flashblox(SWAPPY, false), &[]);
    let swaps = counter(&s, "n_swaps");
    assert!(swaps >= 2.0, "{swaps} swaps in 4 s with a 0.3 s interval");
    assert!(counter(&s, "n_swaps_completed") >= swaps - 1.0);
    assert!(counter(&s, "swap_units_moved") > 0.0 && counter(&s, "swap_device_time_s") > 0.0);
    let p = &s["schemes"]["flashblox"];
    assert!(p["jobs"]["migrate"]["page_reads"].as_u64().unwrap() > 0, "swaps move data through migration jobs");
    // Both channels wore: the hot vSSD's writes went to each in turn.
    for c in 0..2 {
        assert!(p["channels"][c]["erases"].as_u64().unwrap() > 20, "channel {c} never erased");
    }
    // Without swaps the reader's channel is never erased.
    let off = run(&flashblox("swaps = false", false), &[]);
    assert_eq!(counter(&off, "n_swaps"), 0.0);
    assert_eq!(off["schemes"]["flashblox"]["channels"][1]["erases"].as_u64(), Some(0));
    // Max / mean of two channels' rates cannot exceed 2: a threshold of 2 never fires.
    let never = run(&flashblox("epoch_s = 0.01\nswap_interval_min_s = 0.3\nswap_threshold = 2.0", false), &[]);
    assert_eq!(counter(&never, "n_swaps"), 0.0);
}

#[test]
fn swap_migration_loses_nothing_while_both_vssds_write_and_read() {
    let text = flashblox(SWAPPY, true);
    let s = scenario::load(&text, "fbx.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build_simulation(&s, "flashblox", Path::new("."), "fbx.toml").expect("builds");
    precondition(&s, &mut sim, "fbx.toml").expect("preconditions");
    sim.run(&mut |_| {}).expect("runs");
    let checks = sim.check_integrity();
    assert!(checks > 100_000, "the oracle checked {checks} reads and copies");
    let mut c = Vec::new();
    sim.scheme().counters(&mut c);
    let get = |k: &str| c.iter().find(|(n, _)| *n == k).unwrap().1;
    assert!(get("n_swaps_completed") >= 1.0, "no swap completed: {c:?}");
    assert!(get("swap_units_moved") > 1000.0, "{c:?}");
}

#[test]
fn allocation_errors_name_the_key() {
    let cases = [
        ("tenants = [{kind = \"channel\", channels = 2}, {kind = \"channel\", channels = 1}]", "tenants.1.channels", "[1, 0]"),
        ("tenants = [{kind = \"channel\", channels = 3}, {kind = \"software\"}]", "tenants.0.channels", "[1, 2]"),
        ("tenants = [{kind = \"channel\", channels = 1}, {kind = \"die\", dies = 3}]", "tenants.1.dies", "[1, 2]"),
        ("tenants = [{kind = \"die\", dies = 0}, {kind = \"software\"}]", "tenants.0.dies", "[1, 4]"),
        ("tenants = [{kind = \"channel\", channels = 2}, {kind = \"software\"}]", "tenants.1.kind", "none are left"),
        ("tenants = [{kind = \"die\", dies = 4}, {kind = \"software\"}]", "tenants.1.kind", "none are left"),
        ("tenants = [{kind = \"software\"}]", "scheme.flashblox.tenants", "one vSSD per tenant (2)"),
        ("tenants = [{kind = \"disk\"}, {kind = \"software\"}]", "tenants", "disk"),
        ("tenants = [{kind = \"die\", dies = 1, channels = 1}, {kind = \"software\"}]", "tenants", "channels"),
        ("tenants = [{kind = \"software\", iops_max = -1.0}, {kind = \"software\"}]", "tenants.0.iops_max", "[0, 1000000000]"),
        ("swap_threshold = 0.5", "swap_threshold", "[1, 1000]"),
        ("swap_reads_in_flight_max = 0", "swap_reads_in_flight_max", "[1, 1024]"),
        ("epoch_s = 0.0", "epoch_s", "(0, 3600]"),
    ];
    for (knobs, key, range) in cases {
        let e = run_raw(&flashblox(knobs, false), &[]).err().unwrap_or_else(|| panic!("{knobs} accepted")).to_string();
        assert!(e.contains(key) && e.contains(range), "{knobs}: {e}");
    }
    // A software vSSD under any scheduler but `fair` is refused (the scheme does not change
    // the engine's setting); channel and die vSSDs run under any.
    let software = flashblox("tenants = [{kind = \"channel\", channels = 1}, {kind = \"software\"}]", false);
    for sched in ["priority", "fifo", "edf"] {
        let e = run_raw(&software, &[&format!("ftl.scheduler={sched}")]).err().unwrap_or_else(|| panic!("{sched} accepted")).to_string();
        assert!(e.contains("scheme.flashblox.tenants.1") && e.contains("ftl.scheduler = \"fair\"") && e.contains(&format!("it is \"{sched}\"")), "{sched}: {e}");
    }
    let hardware = flashblox("tenants = [{kind = \"channel\", channels = 1}, {kind = \"die\", dies = 2}]\nswaps = false", false);
    run_raw(&hardware, &["ftl.scheduler=priority", "measure.duration_s=0.05"]).unwrap_or_else(|e| panic!("channel and die vSSDs under priority: {e}"));
}

#[test]
fn kinds_share_the_device_as_allocated() {
    // Channel 0 to `hot`; `cold` is software-isolated on channel 1's two dies.
    let s = run(&flashblox("tenants = [{kind = \"channel\", channels = 1}, {kind = \"software\"}]\nswaps = false", true), &[]);
    let p = &s["schemes"]["flashblox"];
    let util = p["device"]["die_utilisation"].as_array().unwrap().iter().map(|u| u.as_f64().unwrap()).collect::<Vec<_>>();
    assert!(util.iter().all(|&u| u > 0.0), "every die serves someone: {util:?}");
    // Die-isolated: one die each on channel 1... plus software on what is left.
    let d = run(&flashblox("tenants = [{kind = \"die\", dies = 2}, {kind = \"software\"}]\nswaps = false", true), &[]);
    assert!(d["schemes"]["flashblox"]["tenants"]["hot"]["write"]["count"].as_u64().unwrap() > 1000);
}

#[test]
fn software_token_bucket_caps_iops() {
    // `hot` software-isolated at 400 requests a second (closed loop, so it would go faster).
    const RATE: f64 = 400.0;
    let knobs = format!("tenants = [{{kind = \"software\", iops_max = {RATE}, burst = 8}}, {{kind = \"software\"}}]");
    let s = run(&flashblox(&knobs, false), &[]);
    let t = &s["schemes"]["flashblox"]["tenants"]["hot"];
    let secs = s["schemes"]["flashblox"]["device"]["measured_s"].as_f64().unwrap();
    let iops = (t["read"]["count"].as_f64().unwrap() + t["write"]["count"].as_f64().unwrap()) / secs;
    // At most the rate plus one burst over the run, at least 95% of it (closed loop never idles).
    assert!(iops <= RATE + 8.0 / secs && iops >= 0.95 * RATE, "{iops} IOPS at a {RATE} cap");
    assert!(counter(&s, "software_deferrals") > 0.0);
}

#[test]
fn same_seed_same_summary() {
    let a = run_raw(&flashblox(SWAPPY, true), &[]).unwrap().summary_json;
    let b = run_raw(&flashblox(SWAPPY, true), &[]).unwrap().summary_json;
    assert_eq!(a, b);
}

#[test]
fn detailed_run_with_swaps_stays_within_the_slides_bound() {
    // Slides ("Quantifying the Swapping Frequency"): after K rounds of cycling over N channels
    // the wear imbalance (most-worn channel / mean) is at most (K + 1) / (K + 1/N); a round is
    // N swaps ("after swap NK times"). The slides' worst case is this scenario: `hot` does
    // every erase, `cold` only reads (N = 2, one channel each). Over the measured run the
    // channels' erases (the tenants' and the swaps' own) must stay within the bound for the
    // rounds the run completed: K = floor(swaps / N).
    const N: f64 = 2.0;
    let knobs = "epoch_s = 0.01\nswap_interval_min_s = 0.3\nswap_threshold = 1.5";
    let text = flashblox(knobs, false).replace("duration_s = 4.0", "duration_s = 40.0");
    let s = run(&text, &[]);
    let p = &s["schemes"]["flashblox"];
    let erases: Vec<f64> = (0..2).map(|c| p["channels"][c]["erases"].as_f64().unwrap()).collect();
    let imbalance = |e: &[f64]| e.iter().cloned().fold(0.0, f64::max) / (e.iter().sum::<f64>() / e.len() as f64);
    let swaps = counter(&s, "n_swaps_completed");
    let k = (swaps / N).floor();
    assert!(k >= 4.0, "{swaps} swaps: too few rounds for a tight bound");
    let bound = (k + 1.0) / (k + 1.0 / N);
    let measured = imbalance(&erases);
    assert!(measured <= bound, "erases per channel {erases:?}: imbalance {measured} after {swaps} swaps (K = {k}) exceeds the slides' {bound}");
    // The same run without swaps: every erase on `hot`'s channel, imbalance N = 2, beyond the
    // bound (so the check above can fail).
    let off = run(&text.replace(knobs, "swaps = false"), &[]);
    let off_erases: Vec<f64> = (0..2).map(|c| off["schemes"]["flashblox"]["channels"][c]["erases"].as_f64().unwrap()).collect();
    assert!(imbalance(&off_erases) > bound, "without swaps {off_erases:?}");
}
