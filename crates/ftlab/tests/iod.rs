//! `iod` (NVMe I/O Determinism, docs/schemes/iod.md) end to end on the tiny device, integrity
//! oracle on: with Predictable Latency Mode off it places, collects and measures exactly as
//! `partitioned` with the same sets; with it on, each set's windows alternate, a Deterministic
//! Window ends at its declared limits (time, writes) or in an excursion, the engine starts no
//! job operation in one (an `assert!` in the die dispatch, on in every run here), and the host's
//! staggered schedule gives each set its share of Non-Deterministic time.

use crate::common;

use common::{run, run_raw, tiny};

/// Two tenants on the tiny device: "kv" reads and writes, "log" writes only.
fn two_sets(schemes: &[&str], iod: &str) -> String {
    let tenants = r#"
[precondition]
fill_fraction = 1.0
[measure]
duration_s = 2.0
[[tenants]]
name = "kv"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "zipf"
read_ratio = 0.8
arrival = "poisson"
rate_iops = 2000.0
[[tenants]]
name = "log"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
arrival = "poisson"
rate_iops = 1000.0
"#;
    let extra = format!("[scheme.partitioned]\nby = \"die\"\n[scheme.iod]\nby = \"die\"\n{iod}");
    tiny(schemes, &extra, tenants)
}

fn counter(s: &serde_json::Value, key: &str) -> f64 {
    s["schemes"]["iod"]["scheme_counters"][key].as_f64().unwrap_or_else(|| panic!("no counter {key}"))
}

#[test]
fn without_plm_iod_is_partitioned() {
    let s = run(&two_sets(&["partitioned", "iod"], "plm = false"), &[]);
    let (p, i) = (&s["schemes"]["partitioned"], &s["schemes"]["iod"]);
    assert_eq!(p["device"], i["device"], "device counters");
    assert_eq!(p["tenants"], i["tenants"], "tenants' results");
    assert!(i["device"]["erases"].as_u64().unwrap() > 0, "GC ran");
    assert!(i["scheme_counters"].get("set0_status").is_none(), "no log page without PLM");
}

#[test]
fn windows_alternate_and_gc_runs() {
    let s = run(&two_sets(&["iod"], "dtwin_time_ms_max = 20.0\nndwin_time_ms_min = 10.0"), &[]);
    let sim_s = s["schemes"]["iod"]["device"]["sim_time_ns"].as_f64().unwrap() * 1e-9;
    assert!(s["schemes"]["iod"]["device"]["erases"].as_u64().unwrap() > 0, "GC ran");
    for set in 0..2 {
        let c = |k: &str| counter(&s, &format!("set{set}_{k}"));
        assert!(c("dtwins") >= 10.0 && c("ndwins") >= 10.0, "set {set}: windows alternate");
        assert!(c("exceeded_time") >= 1.0, "set {set}: a DTWIN ended at its time maximum");
        assert!(
            (c("dtwin_s_total") + c("ndwin_s_total") - sim_s).abs() < 0.01,
            "set {set}: windows tile the run"
        );
        // The log page declares what the scenario says (ms), and no reads or writes limit.
        assert_eq!((c("dtwin_tmax"), c("ndwin_tmin_hi"), c("ndwin_tmin_lo")), (20.0, 10.0, 10.0));
        assert!(s["schemes"]["iod"]["scheme_counters"].get(format!("set{set}_dtwin_rt")).is_none());
        assert!([1.0, 2.0].contains(&c("status")));
        assert_ne!(c("event_type") as u16 & (1 << 14), 0, "set {set}: event bit 14 (DTWIN exceeded)");
    }
}

#[test]
fn a_writes_limit_ends_deterministic_windows() {
    let s = run(&two_sets(&["iod"], "dtwin_writes_typical = 16\ndtwin_time_ms_max = 1000.0"), &[]);
    // "log" (set 1) writes about 1000 units/s: 16 units end a DTWIN long before its second.
    assert!(counter(&s, "set1_exceeded_writes") >= 10.0);
    assert_eq!(counter(&s, "set1_dtwin_wt"), 16.0);
    assert!(counter(&s, "set1_dtwin_we") <= 16.0);
}

/// A writes limit derived from free space (`dtwin_writes_derived`): each DTWIN declares the
/// writes its set takes before a die is down to the GC low watermark, so the writer's set
/// leaves its DTWINs on that limit (bit 14) and never in an excursion (its reserve, below the
/// low watermark, is never reached in a DTWIN); with no writes limit, the same load runs its
/// dies down to the reserve inside DTWINs (excursions).
#[test]
fn a_writes_limit_derived_from_free_space_prevents_excursions() {
    let long = "dtwin_time_ms_max = 1000.0";
    let derived = run(&two_sets(&["iod"], &format!("{long}\ndtwin_writes_derived = true")), &[]);
    assert!(counter(&derived, "set1_exceeded_writes") >= 1.0, "the derived limit ended a DTWIN");
    assert_eq!(counter(&derived, "set1_excursions"), 0.0, "no excursion under the derived limit");
    assert!(counter(&derived, "set1_dtwin_we") <= counter(&derived, "set1_dtwin_wt"));
    let none = run(&two_sets(&["iod"], long), &[]);
    assert!(counter(&none, "set1_excursions") >= 1.0, "without a writes limit: excursions");
}

#[test]
fn the_host_schedule_staggers_the_sets() {
    let knobs = "windows = \"host\"\nhost_cycle_ms = 40.0\nhost_ndwin_ms = 10.0\nndwin_time_ms_min = 5.0\n\
                 dtwin_time_ms_max = 1000.0";
    let s = run(&two_sets(&["iod"], knobs), &[]);
    let sim_s = s["schemes"]["iod"]["device"]["sim_time_ns"].as_f64().unwrap() * 1e-9;
    for set in 0..2 {
        let c = |k: &str| counter(&s, &format!("set{set}_{k}"));
        // Two requests a cycle (NDWIN, then DTWIN); excursions add NDWIN time.
        assert!(c("host_requests") >= 2.0 * (sim_s / 0.04).floor() - 2.0, "set {set}");
        let share = c("ndwin_s_total") / sim_s;
        assert!((0.2..0.5).contains(&share), "set {set}: NDWIN share {share}");
    }
}

#[test]
fn bad_window_knobs_name_their_key() {
    for (knobs, key) in [
        ("tick_ms = 10.0\ndtwin_time_ms_max = 5.0", "scheme.iod.tick_ms"),
        ("host_cycle_ms = 10.0\nhost_ndwin_ms = 10.0", "scheme.iod.host_ndwin_ms"),
        ("dtwin_writes_typical = 0", "scheme.iod.dtwin_writes_typical"),
        ("dtwin_writes_typical = 16\ndtwin_writes_derived = true", "scheme.iod.dtwin_writes_derived"),
    ] {
        let err = run_raw(&two_sets(&["iod"], knobs), &[]).expect_err("an error").to_string();
        assert!(err.contains(key), "{knobs}: {err}");
    }
}
