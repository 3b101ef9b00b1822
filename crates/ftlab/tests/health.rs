//! A tenant's health in summary.json (DESIGN §12, docs/scenario.md `[measure]`): `max_wait_s`,
//! `stall_s_max`, `backlog_max`, `starved` and `unstable` (a backlog beyond
//! `backlog_queue_depths_max` queue depths at any time), and the validation of the two knobs.
//!
//! Expected values are worked by hand from the `tiny` preset's datasheet numbers (read 25 µs,
//! a 4 KiB transfer on a 333 MT/s x 8 bit bus = ceil(4096 x 10^9 / 333 x 10^6) = 12301 ns),
//! as in `tests/host.rs`: at queue depth 1 a read of a programmed page takes exactly
//! ONE = tR + transfer = 37301 ns, so a burst of n reads arriving at 0 is served one after the
//! other, read k completing at k x ONE.

use crate::common;

use common::{run, run_raw, temp_file, tiny};
use ftlab::FtlabError;
use serde_json::Value;

const ONE_NS: u64 = 25_000 + 12_301;

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// `n` single-unit reads all arriving at 0 (MQSim format), on distinct units below 12000 (the
/// tiny device's namespace is 12288 units, all written by the sequential preconditioning).
fn burst(n: usize) -> String {
    (0..n).map(|i| format!("0 0 {} 8 1\n", (i % 12_000) * 8)).collect()
}

/// One tenant over the whole `tiny` device replaying `trace` at queue depth `qd`, filled
/// sequentially, with `measure` lines (and solo runs when `solo`).
fn trace_scenario(trace: &str, qd: u32, measure: &str) -> String {
    let path = temp_file(&format!("health-{:x}.trace", fxhash(trace)), trace);
    tiny(
        &["unified"],
        &format!(
            "[ftl]\nbackground_gc = false\n[precondition]\norder = \"sequential\"\noverwrite_passes = \
             0.0\n[measure]\n{measure}\n"
        ),
        &format!(
            "[[tenants]]\nname = \"t\"\nnamespace_fraction = 1.0\nqueue_depth = {qd}\n[tenants.trace]\npath \
             = \"{}\"\nformat = \"mqsim\"\n",
            path.display()
        ),
    )
}

fn tenant(s: &Value) -> &Value {
    &s["schemes"]["unified"]["tenants"]["t"]
}

fn ns(v: &Value, key: &str) -> u64 {
    let s = v[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number: {v}"));
    (s * 1e9).round() as u64
}

/// Eight reads at 0, queue depth 1: all eight are outstanding just after 0 (one in the device,
/// seven queued in the host), so `backlog_max` = 8; the last waits 8 x ONE; reads complete
/// every ONE from the arrival on, so the longest stall is ONE. Nothing is left at the end, so
/// the backlog did not grow: only `backlog_max` can make the tenant unstable, and it does past
/// 8 requests = 8 queue depths (the default limit 4 and 7.5; not 8, the bound is strict).
#[test]
fn a_queue_depth_one_burst_worked_by_hand() {
    let trace = burst(8);
    for (limit, unstable) in
        [("", true), ("backlog_queue_depths_max = 7.5", true), ("backlog_queue_depths_max = 8", false)]
    {
        let s = run(&trace_scenario(&trace, 1, limit), &[]);
        let t = tenant(&s);
        assert_eq!(t["unmapped_reads"], 0, "every read goes to flash");
        assert_eq!(t["backlog_max"], 8);
        assert_eq!(ns(t, "max_wait_s"), 8 * ONE_NS);
        assert_eq!(ns(t, "stall_s_max"), ONE_NS);
        assert_eq!(t["outstanding_at_end"], 0);
        assert_eq!(t["unstable"], unstable, "{limit:?}");
        assert_eq!(t["starved"], false, "8 x ONE is 0.3 ms, far below the default 1 s");
    }
    let s = run(&trace_scenario(&trace, 1, ""), &[]);
    assert_eq!(tenant(&s)["backlog_limit"], 4.0);
    assert_eq!(tenant(&s)["starvation_wait_s"], 1.0);
}

/// Starved is strict: a bound equal to the longest wait (8 x ONE = 298408 ns) is not
/// exceeded; one a nanosecond shorter is.
#[test]
fn starved_is_a_wait_beyond_the_bound() {
    let trace = burst(8);
    for (bound, starved) in [("0.000298408", false), ("0.000298407", true)] {
        let s = run(&trace_scenario(&trace, 1, &format!("starvation_wait_s = {bound}")), &[]);
        assert_eq!(tenant(&s)["starved"], starved, "bound {bound}");
        assert_eq!(tenant(&s)["starvation_wait_s"].as_f64(), Some(bound.parse::<f64>().unwrap()));
    }
}

/// The run cut at 130 µs (between 3 x ONE = 111.903 µs and 4 x ONE): three reads done, the
/// fourth in the device, four in the host, all arrived at 0. The oldest outstanding request
/// waited the whole 130 µs; the stretch since the third completion (130000 - 3 x ONE) is
/// shorter than ONE.
#[test]
fn requests_outstanding_at_the_end_count_with_their_wait_so_far() {
    let s = run(&trace_scenario(&burst(8), 1, "duration_s = 0.00013"), &[]);
    let t = tenant(&s);
    assert_eq!(t["read"]["count"], 3);
    assert_eq!(t["outstanding_at_end"], 5);
    assert_eq!(t["backlog_max"], 8);
    assert_eq!(ns(t, "max_wait_s"), 130_000);
    assert_eq!(ns(t, "stall_s_max"), ONE_NS);
}

/// A run with a starved tenant: 28000 reads at 0 at queue depth 1 are served one by one, so
/// the last waits 28000 x ONE = 1.044 s, beyond the default bound of 1 s. (The backlog limit is
/// lifted, so starvation alone decides.) A healthy run: the same burst cut to 2000 reads
/// (74.6 ms) at queue depth 1024, where the backlog (2000) stays under 4 queue depths.
#[test]
fn a_starved_tenant_is_flagged_and_a_healthy_one_is_not() {
    let s = run(&trace_scenario(&burst(28_000), 1, "backlog_queue_depths_max = 1000000"), &[]);
    let t = tenant(&s);
    assert_eq!(ns(t, "max_wait_s"), 28_000 * ONE_NS);
    assert_eq!((t["starved"].as_bool(), t["unstable"].as_bool()), (Some(true), Some(false)));
    let s = run(&trace_scenario(&burst(2000), 1024, ""), &[]);
    let t = tenant(&s);
    assert_eq!(t["backlog_max"], 2000, "all 2000 outstanding just after 0");
    assert!(ns(t, "max_wait_s") <= 2000 * ONE_NS, "parallel dies serve no slower than one at a time");
    assert_eq!((t["starved"].as_bool(), t["unstable"].as_bool()), (Some(false), Some(false)));
}

/// A closed-loop tenant keeps exactly its queue depth outstanding: it issues only when one
/// completes, so nothing ever waits in the host and `backlog_max` is the queue depth; it can
/// only be unstable by the backlog with a limit below one queue depth (not allowed).
#[test]
fn a_closed_loop_tenant_has_its_queue_depth_outstanding() {
    let text = tiny(
        &["unified"],
        "[measure]\nduration_s = 0.05",
        "[[tenants]]\nname = \"t\"\nnamespace_fraction = 0.9\nqueue_depth = 6\n[tenants.synthetic]\narrival \
         = \"closed\"\nread_ratio = 0.7\n",
    );
    let s = run(&text, &["measure.solo=true"]);
    let t = tenant(&s);
    assert_eq!(t["backlog_max"], 6);
    assert_eq!((t["starved"].as_bool(), t["unstable"].as_bool()), (Some(false), Some(false)));
    // The only tenant's solo run is its shared run: the same health.
    for key in ["backlog_max", "max_wait_s", "stall_s_max", "starved", "unstable"] {
        assert_eq!(t["solo"][key], t[key], "solo {key}");
    }
}

/// The knobs' ranges, with the key and the range in the error.
#[test]
fn the_knobs_are_validated() {
    let trace = burst(1);
    let cases = [
        ("starvation_wait_s = 0.0", "measure.starvation_wait_s", "must be in (0, 10000000] seconds, got 0"),
        ("starvation_wait_s = -1.0", "measure.starvation_wait_s", "must be in (0, 10000000] seconds, got -1"),
        (
            "starvation_wait_s = 10000001.0",
            "measure.starvation_wait_s",
            "must be in (0, 10000000] seconds, got 10000001",
        ),
        ("starvation_wait_s = nan", "measure.starvation_wait_s", "got NaN"),
        (
            "backlog_queue_depths_max = 0.5",
            "measure.backlog_queue_depths_max",
            "must be in [1, 1000000] queue depths",
        ),
        ("backlog_queue_depths_max = 1000001.0", "measure.backlog_queue_depths_max", "got 1000001"),
        ("backlog_queue_depths_max = inf", "measure.backlog_queue_depths_max", "got inf"),
        ("starvation_wait_s = \"1s\"", "measure.starvation_wait_s", "invalid type: string \"1s\""),
    ];
    let mut failures = Vec::new();
    for (line, key, reason) in cases {
        match run_raw(&trace_scenario(&trace, 1, line), &[]) {
            Err(FtlabError::Config { key: k, reason: r, .. }) if k == key && r.contains(reason) => {}
            other => failures.push(format!("{line}: expected {key}: {reason}, got {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    for line in [
        "starvation_wait_s = 10000000.0",
        "backlog_queue_depths_max = 1.0",
        "backlog_queue_depths_max = 1000000.0",
    ] {
        assert!(run_raw(&trace_scenario(&trace, 1, line), &[]).is_ok(), "{line} is in range");
    }
    // `--set` reaches the knobs.
    let s = run(&trace_scenario(&burst(8), 1, ""), &["measure.backlog_queue_depths_max=8"]);
    assert_eq!(tenant(&s)["unstable"], false);
}
