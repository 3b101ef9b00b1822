//! The warm-up by workload (`[precondition] mode = "workload"`, docs/scenario.md): a short
//! and a long run of the default scenario start from the same steady state (their device
//! WAFs agree), which does not depend on the warm-up's window length; hitting the warm-up's
//! cap is reported, the warm-up is deterministic serial and parallel, and its knobs are
//! validated with precise errors.

use crate::common;

use ftlab::{run_scenario, FtlabError, RunOptions, ScenarioSource};
use serde_json::Value;

/// The default scenario (`scenarios/default.toml`) with `overrides`, seed `seed`, solo runs
/// off (they do not change a scheme's device counters); returns summary.json.
fn default_run(seed: u64, overrides: &[&str], jobs: Option<usize>) -> Value {
    let mut o: Vec<String> = vec!["measure.solo=false".into()];
    o.extend(overrides.iter().map(|s| s.to_string()));
    let opts = RunOptions { seed: Some(seed), overrides: o, jobs };
    let out = run_scenario(&ScenarioSource::Default, &opts, &mut |_| {})
        .unwrap_or_else(|e| panic!("default scenario: {e}"));
    serde_json::from_str(&out.summary_json).expect("summary.json parses")
}

fn waf(s: &Value, scheme: &str) -> f64 {
    s["schemes"][scheme]["device"]["waf"].as_f64().unwrap_or_else(|| panic!("no {scheme} device.waf"))
}

/// The issue's check (issue 23, item 3; issue 44, item 4): the device WAF of a 1 s and a 6 s
/// run of the default scenario agree within 10%, under every scheme of the default. A 1 s run
/// writes about 2,100 host pages, so GC collects only some 50 victim blocks in it: one seed's
/// 1 s WAF moves by about ±0.5 with the seed (GC runs a block at a time per die), which is
/// noise, not the start state. The check is therefore on the mean over five seeds (the
/// default's 42 and 1 to 4) of each duration, |mean 1 s − mean 6 s| ≤ 10% of the mean 6 s.
/// `upi` is checked since its victim choice ages blocks on preconditioning's own clock
/// (`Engine::victim_view`); before, its 1 s WAF was 0.80x its 6 s WAF at seed 42. Under
/// `mode = "fill"` the same check fails for `unified` (seed 42: 2.19 at 1 s against 3.09 at 6 s).
#[test]
fn short_and_long_runs_start_in_the_same_steady_state() {
    let schemes = ["unified", "partitioned", "flashblox", "upi"];
    let set = r#"schemes=["unified","partitioned","flashblox","upi"]"#;
    let seeds = [42u64, 1, 2, 3, 4];
    let mut failures = Vec::new();
    let mut sums = [[0.0f64; 2]; 4];
    for &seed in &seeds {
        for (k, d) in ["1", "6"].iter().enumerate() {
            let s = default_run(seed, &[set, &format!("measure.duration_s={d}")], None);
            for (i, scheme) in schemes.iter().enumerate() {
                assert_eq!(
                    s["schemes"][scheme]["precondition"]["mode"], "workload",
                    "the default scenario writes: workload is its default"
                );
                sums[i][k] += waf(&s, scheme);
            }
        }
    }
    for (i, scheme) in schemes.iter().enumerate() {
        let (short, long) = (sums[i][0] / seeds.len() as f64, sums[i][1] / seeds.len() as f64);
        if (short - long).abs() > 0.10 * long {
            failures.push(format!(
                "{scheme}: mean device WAF {short:.4} at 1 s, {long:.4} at 6 s ({:+.1}%)",
                100.0 * (short / long - 1.0)
            ));
        }
    }
    assert!(failures.is_empty(), "1 s and 6 s disagree by more than 10%:\n{}", failures.join("\n"));
}

/// Cost-benefit victim choice (`upi` always uses it) ages a block by the time since its last
/// write. While preconditioning the run's clock stands at 0 and the write stamps advance on
/// preconditioning's own clock; GC must age blocks on the stamps' clock, or every block
/// written since the warm-up's last window counts as age 0 and GC takes older, fuller blocks.
/// Then the device the timed run starts from depends on how long the warm-up ran: the same
/// 6 s `upi` run after warm-up windows of a quarter and of one logical capacity gave device
/// WAFs 2.70 and 3.44 (seed 42). The steady state must not depend on the warm-up's window:
/// the two runs agree within the 10% of the check above.
#[test]
fn the_steady_state_does_not_depend_on_the_warm_up_window() {
    let set = r#"schemes=["upi"]"#;
    let wafs: Vec<f64> = ["0.25", "1.0"]
        .iter()
        .map(|w| {
            let window = format!("precondition.warm.window_capacity_fraction={w}");
            let s = default_run(42, &[set, "measure.duration_s=6", &window], None);
            assert_eq!(s["schemes"]["upi"]["precondition"]["warm_converged"], true, "window {w}");
            waf(&s, "upi")
        })
        .collect();
    let (short, long) = (wafs[0], wafs[1]);
    assert!(
        (short - long).abs() <= 0.10 * long,
        "upi's 6 s device WAF after windows of 0.25 and 1.0 capacities: {short:.4} and {long:.4}"
    );
}

/// The cap is hit and reported. Windows open at the warm-up's first erase, which comes after
/// at least one host unit, so the second window closes at ≥ 1 + 2W host units (W the window);
/// a cap of exactly two windows (2W) therefore stops the warm-up before it can compare two
/// windows: it cannot converge. By hand, on the default device: 8 dies × 256 blocks × 128
/// pages = 262,144 units, logical 262,144 / 1.25 = 209,715 (floor); window 0.05 × 209,715 =
/// 10,485.75 -> 10,486 units (ceil), cap 0.1 × 209,715 = 20,971.5 -> 20,972 units.
#[test]
fn hitting_the_cap_is_reported() {
    let set = [
        "schemes=[\"unified\"]",
        "measure.duration_s=0.5",
        "precondition.warm.window_capacity_fraction=0.05",
        "precondition.warm.max_capacity_multiple=0.1",
    ];
    let s = default_run(42, &set, None);
    let p = &s["schemes"]["unified"]["precondition"];
    assert_eq!(p["mode"], "workload");
    assert_eq!(p["warm_cap_hit"], true, "{p}");
    assert_eq!(p["warm_converged"], false, "{p}");
    assert_eq!(p["warm_writes_ended"], false, "{p}");
    let written = p["warm_host_pages_written"].as_u64().expect("a count");
    // It stops at the first request that reaches the cap: at most one request past it
    // (ingest's largest request is 64 KiB = 16 units, and a request may straddle one more).
    assert!((20_972..20_972 + 17).contains(&written), "warm-up wrote {written} host pages, cap 20,972: {p}");
    assert!(p["warm_windows"].as_u64().expect("a count") <= 1, "{p}");
    assert_eq!(
        p["warm_waf_windows"].as_array().expect("a list").len() as u64,
        p["warm_windows"].as_u64().unwrap()
    );
}

/// The warm-up (generators, merge, windows) gives a byte-identical summary.json whether the
/// schemes run on one thread or two.
#[test]
fn warm_up_is_deterministic_serial_or_parallel() {
    let set = [r#"schemes=["unified","partitioned"]"#, "measure.duration_s=0.5"];
    let opts = |jobs| RunOptions {
        seed: Some(5),
        overrides: set.iter().map(|s| s.to_string()).collect(),
        jobs: Some(jobs),
    };
    let a = run_scenario(&ScenarioSource::Default, &opts(1), &mut |_| {}).expect("runs").summary_json;
    let b = run_scenario(&ScenarioSource::Default, &opts(2), &mut |_| {}).expect("runs").summary_json;
    assert_eq!(a, b);
    assert!(a.contains("\"warm_host_pages_written\""), "the warm-up ran");
}

/// `fill` stays available, and reports only its mode.
#[test]
fn fill_mode_is_kept() {
    let s = default_run(
        42,
        &["schemes=[\"unified\"]", "measure.duration_s=0.5", "precondition.mode=\"fill\""],
        None,
    );
    let p = &s["schemes"]["unified"]["precondition"];
    assert_eq!(p, &serde_json::json!({"mode": "fill"}));
}

/// The default mode: `workload` where a tenant writes and the fill is not empty; `fill` for a
/// read-only workload (nothing to warm with) and for `fill_fraction = 0` (an empty device
/// asked for, which a warm-up would fill).
#[test]
fn the_default_mode_follows_the_workload() {
    let tenant = |read_ratio: f64| {
        format!(
            "[[tenants]]\nname = \"t\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\nread_ratio = \
             {read_ratio}\n"
        )
    };
    let cases =
        [(1.0, "", "fill"), (0.5, "", "workload"), (0.5, "[precondition]\nfill_fraction = 0.0\n", "fill")];
    for (read_ratio, extra, want) in cases {
        let text = common::tiny(
            &["unified"],
            &format!("[measure]\nduration_s = 0.01\n{extra}"),
            &tenant(read_ratio),
        );
        let s = common::run(&text, &[]);
        assert_eq!(
            s["schemes"]["unified"]["precondition"]["mode"], want,
            "read_ratio {read_ratio}, {extra:?}"
        );
    }
}

/// Each bad value gets an error naming its key, the allowed range and the value.
#[test]
fn bad_warm_up_knobs_are_refused_with_precise_errors() {
    let writer = "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\nread_ratio = \
                  0.0\nrequests = 10\n";
    let reader = "[[tenants]]\nname = \"r\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\nread_ratio = \
                  1.0\nrequests = 10\n";
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            writer,
            "[precondition.warm]\nwindow_capacity_fraction = 0.0\n",
            "precondition.warm.window_capacity_fraction",
            &["[0.01, 10]", "got 0"],
        ),
        (
            writer,
            "[precondition.warm]\nwindow_capacity_fraction = 11.0\n",
            "precondition.warm.window_capacity_fraction",
            &["[0.01, 10]", "got 11"],
        ),
        (
            writer,
            "[precondition.warm]\nwaf_tolerance = 0.0\n",
            "precondition.warm.waf_tolerance",
            &["(0, 1]", "got 0"],
        ),
        (
            writer,
            "[precondition.warm]\nwaf_tolerance = 1.5\n",
            "precondition.warm.waf_tolerance",
            &["(0, 1]", "got 1.5"],
        ),
        (
            writer,
            "[precondition.warm]\nmax_capacity_multiple = 0.4\n",
            "precondition.warm.max_capacity_multiple",
            &["[0.5, 1000]", "two windows", "got 0.4"],
        ),
        (
            writer,
            "[precondition.warm]\nmax_capacity_multiple = 1001.0\n",
            "precondition.warm.max_capacity_multiple",
            &["[0.5, 1000]", "got 1001"],
        ),
        (writer, "[precondition.warm]\nwindow = 0.1\n", "precondition.warm.window", &["unknown field"]),
        (
            writer,
            "[precondition]\nmode = \"warm\"\n",
            "precondition.mode",
            &["unknown variant", "fill", "workload"],
        ),
        (
            reader,
            "[precondition]\nmode = \"workload\"\n",
            "precondition.mode",
            &["no tenant's workload writes", "use \"fill\""],
        ),
        (
            writer,
            "[precondition]\nmode = \"workload\"\n[scheme.part-ftl]\n",
            "precondition.mode",
            &["cannot warm part-ftl", "simulated time", "use \"fill\""],
        ),
    ];
    let mut failures = Vec::new();
    for (tenants, extra, key, fragments) in cases {
        let schemes: &[&str] =
            if extra.contains("part-ftl") { &["unified", "part-ftl"] } else { &["unified"] };
        let text = common::tiny(schemes, extra, tenants);
        match common::run_raw(&text, &[]) {
            Err(FtlabError::Config { key: k, reason, .. })
                if k == *key && fragments.iter().all(|f| reason.contains(f)) => {}
            Err(e) => failures.push(format!("{extra:?}: expected {key} with {fragments:?}, got {e:?}")),
            Ok(_) => failures.push(format!("{extra:?}: accepted")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A trace tenant is warmed by replaying its trace from the start, again and again (wrapping)
/// until the warm-up ends, and the timed run still replays it once. The trace: ten 4 KiB
/// WRITE(10)s (vscsi), one a second, at units 0..9. The `tiny` device has 4 × 64 × 64 =
/// 16,384 units, logical floor(16,384 / 1.25) = 13,107, so a window is ceil(0.25 × 13,107) =
/// 3,277 units: two windows need at least 6,554 units, over 655 passes of 10. Each pass but
/// the last writes all 10 units, so after p passes begun the warm-up wrote 10(p − 1) + k units,
/// k in [1, 10].
#[test]
fn a_trace_is_replayed_from_its_start_until_the_warm_up_ends() {
    let mut text = String::from("version,time,op,size,lbn\n");
    for t in 0..10 {
        text += &format!("1,{t},2a,4096,{}\n", 8 * t);
    }
    let tenants = vscsi_tenant("warm-wrap.csv", &text);
    let s = common::run(&common::tiny(&["unified"], "", &tenants), &[]);
    let p = &s["schemes"]["unified"]["precondition"];
    assert_eq!(p["mode"], "workload", "{p}");
    let passes = p["warm_passes"]["v"].as_u64().expect("passes");
    let written = p["warm_host_pages_written"].as_u64().expect("written");
    assert!(passes > 655, "{p}");
    assert!(
        (10 * (passes - 1) + 1..=10 * passes).contains(&written),
        "{written} units in {passes} passes: {p}"
    );
    assert!(p["warm_converged"] == true || p["warm_cap_hit"] == true, "{p}");
    let t = &s["schemes"]["unified"]["tenants"]["v"];
    assert_eq!(t["write"]["count"].as_u64(), Some(10), "the timed run replays the trace once: {t}");
    assert_eq!(t["records_not_replayed"].as_u64(), Some(0), "{t}");
}

/// No data loss after a warm-up by workload: the integrity oracle checks every read and copy
/// of the timed run (and `check_integrity` the whole mapping at the end of the run, in
/// `finish`) under the bundled scenarios' schemes: the default's four, `rtgc.toml` (rtgc and
/// wao-gc on periodic tasks) and `wao-gc.toml`, each warmed by its workload. (part-ftl is
/// refused in `workload` mode, see `bad_warm_up_knobs_are_refused_with_precise_errors`.)
#[test]
fn the_oracle_holds_after_a_warm_up() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let sources = [
        ScenarioSource::Default,
        ScenarioSource::File(dir.join("rtgc.toml")),
        ScenarioSource::File(dir.join("wao-gc.toml")),
    ];
    for source in &sources {
        let overrides = [
            "check.integrity=true",
            "measure.solo=false",
            "measure.duration_s=0.5",
            "precondition.mode=\"workload\"",
        ];
        let opts = RunOptions {
            seed: None,
            overrides: overrides.iter().map(|s| s.to_string()).collect(),
            jobs: None,
        };
        let out = run_scenario(source, &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{source:?}: {e}"));
        let s: Value = serde_json::from_str(&out.summary_json).expect("parses");
        for (scheme, v) in s["schemes"].as_object().expect("schemes") {
            assert_eq!(v["precondition"]["mode"], "workload", "{source:?} {scheme}");
            assert!(
                v["precondition"]["warm_host_pages_written"].as_u64().unwrap() > 0,
                "{source:?} {scheme}: {}",
                v["precondition"]
            );
            assert!(
                v["device"]["integrity_checks"].as_u64().unwrap() > 0,
                "{source:?} {scheme}: the oracle checked nothing"
            );
        }
    }
}

/// A warm-up whose first request is a read: the trace of
/// `a_trace_is_replayed_from_its_start_until_the_warm_up_ends` with its first record a
/// READ(10) of unit 0 (at t = 0, before any write) and nine WRITE(10)s of units 1..9. Reads
/// move no count, so the warm-up can only stop after a write: after p passes begun it wrote
/// 9(p − 1) + k units, k in [1, 9]; two windows of 3,277 units need 6,554, so p ≥ 729
/// (9 × 728 = 6,552). The timed run still replays the trace once: one read, nine writes.
#[test]
fn a_warm_up_may_start_with_a_read() {
    let mut text = String::from("version,time,op,size,lbn\n1,0,28,4096,0\n");
    for t in 1..10 {
        text += &format!("1,{t},2a,4096,{}\n", 8 * t);
    }
    let tenants = vscsi_tenant("warm-read-first.csv", &text);
    let s = common::run(&common::tiny(&["unified"], "", &tenants), &[]);
    let p = &s["schemes"]["unified"]["precondition"];
    assert_eq!(p["mode"], "workload", "{p}");
    let passes = p["warm_passes"]["v"].as_u64().expect("passes");
    let written = p["warm_host_pages_written"].as_u64().expect("written");
    assert!(passes >= 729, "{p}");
    assert!(
        (9 * (passes - 1) + 1..=9 * passes).contains(&written),
        "{written} units in {passes} passes: {p}"
    );
    let t = &s["schemes"]["unified"]["tenants"]["v"];
    assert_eq!(t["read"]["count"].as_u64(), Some(1), "{t}");
    assert_eq!(t["write"]["count"].as_u64(), Some(9), "{t}");
}

/// A malformed record the warm-up meets while it looks requests ahead (its ring holds 16; the
/// bad record is the trace's 8th, on line 9 after the header) stops the run with an error
/// naming the trace file, that line, the field and the value.
#[test]
fn a_bad_record_met_by_the_warm_up_is_a_precise_error() {
    let mut text = String::from("version,time,op,size,lbn\n");
    for t in 0..10 {
        let lbn = if t == 7 { "zz".to_string() } else { (8 * t).to_string() };
        text += &format!("1,{t},2a,4096,{lbn}\n");
    }
    let tenants = vscsi_tenant("warm-bad-record.csv", &text);
    let err = match common::run_raw(&common::tiny(&["unified"], "", &tenants), &[]) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a malformed trace record was accepted"),
    };
    // `FILE:LINE:`, as compilers write a place.
    assert!(err.contains("warm-bad-record.csv:9:"), "{err}");
    assert!(err.contains("lbn") && err.contains("zz"), "{err}");
}

/// One tenant `v` on half the namespace, replaying the vscsi trace `text` (written to a temp
/// file `name`).
fn vscsi_tenant(name: &str, text: &str) -> String {
    let path = common::temp_file(name, text);
    format!(
        "[[tenants]]\nname = \"v\"\nnamespace_fraction = 0.5\n[tenants.trace]\npath = \"{}\"\nformat = \
         \"vscsi\"\n",
        path.display()
    )
}
