//! Solo runs (`measure.solo`): every tenant is also run alone under each scheme, and
//! `summary.json` has its latencies alone (`solo`) and shared over alone (`slowdown`). The
//! expectations come from independent runs: a solo run must equal the same scenario with the
//! neighbours' workloads started after the run's end, and the solo run of a scenario's only
//! tenant must equal its shared run. Not a test of the terminal table or the report (Python).

use crate::common;

use common::{metric, reader_writer_pair};
use ftlab::{run_scenario, Progress, RunOptions, RunOutput, ScenarioSource};
use serde_json::Value;
use std::path::PathBuf;

/// One tenant doing mixed I/O, preconditioned (GC runs), under two schemes.
const ALONE: &str = r#"seed = 5
schemes = ["unified", "partitioned"]
[device]
preset = "tiny"
[precondition]
fill_fraction = 0.8
[check]
integrity = true
[[tenants]]
name = "only"
namespace_fraction = 0.9
[tenants.synthetic]
pattern = "zipf"
read_ratio = 0.6
arrival = "poisson"
rate_iops = 3000.0
requests = 4000
"#;

const SCHEMES: [&str; 2] = ["partitioned", "unified"];
const STATS: [(&str, &str, &str); 4] = [
    ("read", "mean_us", "read_mean"),
    ("read", "p99_us", "read_p99"),
    ("write", "mean_us", "write_mean"),
    ("write", "p99_us", "write_p99"),
];

fn run_with(
    text: &str,
    overrides: &[&str],
    jobs: Option<usize>,
    progress: &mut dyn FnMut(Progress),
) -> RunOutput {
    let source =
        ScenarioSource::Text { text: text.into(), base_dir: PathBuf::from("."), name: "solo.toml".into() };
    let opts = RunOptions { seed: None, overrides: overrides.iter().map(|s| s.to_string()).collect(), jobs };
    run_scenario(&source, &opts, progress).unwrap_or_else(|e| panic!("scenario failed: {e}"))
}

fn summary(text: &str, overrides: &[&str]) -> Value {
    serde_json::from_str(&run_with(text, overrides, None, &mut |_| {}).summary_json)
        .expect("summary.json parses")
}

fn tenant<'a>(s: &'a Value, scheme: &str, name: &str) -> &'a Value {
    &s["schemes"][scheme]["tenants"][name]
}

/// The summary without what solo runs add.
fn without_solo(mut s: Value) -> Value {
    s.as_object_mut().expect("an object").remove("measure");
    for (_, scheme) in s["schemes"].as_object_mut().expect("schemes").iter_mut() {
        for (_, t) in scheme["tenants"].as_object_mut().expect("tenants").iter_mut() {
            let t = t.as_object_mut().expect("a tenant");
            assert!(
                t.remove("solo").is_some() && t.remove("slowdown").is_some(),
                "every tenant has solo and slowdown"
            );
        }
    }
    s
}

#[test]
fn the_only_tenant_alone_is_its_shared_run() {
    let off = run_with(ALONE, &[], None, &mut |_| {});
    let on = run_with(ALONE, &["measure.solo=true"], None, &mut |_| {});
    assert!(
        !off.summary_json.contains("solo") && !off.resolved_toml.contains("solo"),
        "solo off adds nothing"
    );
    assert!(on.resolved_toml.contains("solo = true"));
    let (off_v, on_v): (Value, Value) =
        (serde_json::from_str(&off.summary_json).unwrap(), serde_json::from_str(&on.summary_json).unwrap());
    assert_eq!(on_v["measure"]["solo"], Value::Bool(true));
    // The shared runs are untouched by solo runs, and so are the tables.
    assert_eq!(without_solo(on_v.clone()), off_v);
    for (a, b) in
        [(&on.timeseries, &off.timeseries), (&on.latency_cdf, &off.latency_cdf), (&on.wear, &off.wear)]
    {
        assert_eq!(a, b);
    }
    for scheme in ["unified", "partitioned"] {
        let t = tenant(&on_v, scheme, "only");
        assert!(t["read"]["count"].as_u64().unwrap() > 1000 && t["write"]["count"].as_u64().unwrap() > 1000);
        for (op, key, slow) in STATS {
            assert_eq!(t["solo"][op][key], t[op][key], "{scheme} {op} {key}: solo differs from shared");
            assert_eq!(t["slowdown"][slow].as_f64(), Some(1.0), "{scheme} {slow}");
        }
        for op in ["read", "write"] {
            assert_eq!(t["solo"][op]["count"], t[op]["count"]);
        }
    }
}

#[test]
fn a_solo_run_is_the_scenario_with_its_neighbour_absent() {
    let solo = summary(&reader_writer_pair(0.0, 0.0), &["measure.solo=true"]);
    let reader_alone = summary(&reader_writer_pair(0.0, 1000.0), &[]);
    let writer_alone = summary(&reader_writer_pair(1000.0, 0.0), &[]);
    for scheme in SCHEMES {
        for (name, op, alone) in [("reader", "read", &reader_alone), ("writer", "write", &writer_alone)] {
            assert!(metric(alone, scheme, name, op, "count") > 100.0, "{scheme} {name} ran");
            for key in ["count", "mean_us", "p99_us"] {
                assert_eq!(
                    tenant(&solo, scheme, name)["solo"][op][key].as_f64(),
                    Some(metric(alone, scheme, name, op, key)),
                    "{scheme} {name} {op} {key}: solo run differs from the run with the neighbour absent"
                );
            }
        }
    }
}

#[test]
fn a_heavy_writer_slows_the_reader_under_unified_more_than_partitioned() {
    let s = summary(&reader_writer_pair(0.0, 0.0), &["measure.solo=true"]);
    let slowdown =
        |scheme: &str, key: &str| tenant(&s, scheme, "reader")["slowdown"][key].as_f64().expect("a number");
    let (unified, partitioned) = (slowdown("unified", "read_p99"), slowdown("partitioned", "read_p99"));
    println!(
        "reader read p99 slowdown: unified {unified}, partitioned {partitioned}; mean: unified {}, \
         partitioned {}",
        slowdown("unified", "read_mean"),
        slowdown("partitioned", "read_mean")
    );
    assert!(unified > 1.5, "unified reader's read p99 slowdown {unified}");
    assert!(partitioned < unified, "partitioned {partitioned} vs unified {unified}");
    // Channel partitions share nothing a reader uses: alone and shared are the same run for it.
    assert_eq!(partitioned, 1.0);
    assert!(slowdown("unified", "read_mean") > 1.0);
}

#[test]
fn slowdown_is_null_for_an_op_a_tenant_never_issues() {
    let s = summary(&reader_writer_pair(0.0, 0.0), &["measure.solo=true"]);
    for scheme in SCHEMES {
        let (reader, writer) = (tenant(&s, scheme, "reader"), tenant(&s, scheme, "writer"));
        assert_eq!(reader["solo"]["write"]["count"], 0);
        assert_eq!(writer["solo"]["read"]["count"], 0);
        for key in ["write_mean", "write_p99"] {
            assert!(reader["slowdown"][key].is_null(), "{scheme} reader {key}: {}", reader["slowdown"][key]);
            assert!(writer["slowdown"][key].is_number(), "{scheme} writer {key}");
        }
        for key in ["read_mean", "read_p99"] {
            assert!(writer["slowdown"][key].is_null(), "{scheme} writer {key}: {}", writer["slowdown"][key]);
            assert!(reader["slowdown"][key].is_number(), "{scheme} reader {key}");
        }
    }
}

#[test]
fn solo_runs_are_identical_for_any_jobs_and_progress_covers_them() {
    let text = reader_writer_pair(0.0, 0.0);
    let go = |jobs: usize| {
        let mut last = None;
        let out =
            run_with(&text, &["measure.solo=true"], Some(jobs), &mut |p| last = Some((p.done, p.total)));
        (out, last.expect("progress was reported"))
    };
    let (one, p1) = go(1);
    let (two, p2) = go(2);
    assert_eq!(one.summary_json, two.summary_json);
    assert_eq!(one.timeseries, two.timeseries);
    // Two schemes, each shared and with each of two tenants alone: six simulations.
    for (done, total) in [p1, p2] {
        assert_eq!((done, total), (6000, 6000));
    }
}
