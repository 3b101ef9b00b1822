//! Determinism (DESIGN §2, §10): the same scenario and seed give byte-identical summary.json
//! and time series; another seed gives another result.

use crate::common;

use common::run_raw;
use ftlab::default_scenario_toml;

const SHORT: &[&str] = &["measure.duration_s=2.0"];

#[test]
fn same_seed_same_bytes() {
    let a = run_raw(default_scenario_toml(), SHORT).expect("runs");
    let b = run_raw(default_scenario_toml(), SHORT).expect("runs");
    assert_eq!(a.summary_json, b.summary_json);
    assert_eq!(a.timeseries, b.timeseries); // bit for bit: NaN cells included (`Column`'s `==`)
    assert_eq!(a.resolved_toml, b.resolved_toml);
}

#[test]
fn another_seed_another_result() {
    let a = run_raw(default_scenario_toml(), SHORT).expect("runs");
    let mut overrides = SHORT.to_vec();
    overrides.push("seed=43");
    let b = run_raw(default_scenario_toml(), &overrides).expect("runs");
    assert_ne!(a.summary_json, b.summary_json);
}

#[test]
fn resolved_scenario_reproduces_the_run() {
    // The resolved scenario, run again, gives the same summary: every default is in it.
    let a = run_raw(default_scenario_toml(), SHORT).expect("runs");
    let b = run_raw(&a.resolved_toml, &[]).expect("resolved scenario runs");
    assert_eq!(a.summary_json, b.summary_json);
}
