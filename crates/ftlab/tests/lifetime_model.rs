//! The fast-forward lifetime model (`metrics/lifetime_model.rs`, `ftlab lifetime`) against
//! detailed runs on the tiny device with a low endurance (`pe_cycles = 60`): the model is fed
//! a *short* detailed run (its vSSDs' erase rates and swap costs) and predicts the *long* run,
//! which simulates to past the first wear-out. They must agree within 10% on the time to the
//! first wear-out and on the number of swaps over the long run.

mod common;

use common::{run_raw, tiny_on};
use ftlab::metrics::lifetime_model::inputs_from_run;
use serde_json::Value;

fn scenario(duration_s: f64, scheme_knobs: &str) -> String {
    let rest = format!(
        r#"
[scheme.flashblox]
epoch_s = 0.05
swap_threshold = 1.2
swap_interval_min_s = 4.0
{scheme_knobs}
[measure]
duration_s = {duration_s}
[[tenants]]
name = "hot"
namespace_fraction = 0.5
queue_depth = 8
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.2
arrival = "poisson"
rate_iops = 2500.0
requests = 10000000
[[tenants]]
name = "cold"
namespace_fraction = 0.5
queue_depth = 4
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.9
arrival = "poisson"
rate_iops = 1000.0
requests = 10000000
"#
    );
    tiny_on(&["flashblox"], "pe_cycles = 60", "", &rest).replace("integrity = true", "integrity = false")
}

fn within(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * b.abs(), "{what}: model {a} vs detailed {b} (more than {}% apart)", tol * 100.0);
}

#[test]
fn model_predicts_the_long_detailed_run() {
    let short = run_raw(&scenario(12.0, ""), &[]).expect("short run");
    let input = inputs_from_run(&short.summary_json, &short.resolved_toml, "flashblox").expect("inputs");
    assert!(input.owner.iter().all(|&o| o != ftlab::metrics::lifetime_model::FIXED), "both channels are swappable");
    let long_secs = 150.0;
    let long = run_raw(&scenario(long_secs, ""), &[]).expect("long run");
    let s: Value = serde_json::from_str(&long.summary_json).unwrap();
    let p = &s["schemes"]["flashblox"];
    let wear_out = p["device"]["first_wear_out_s"].as_f64().expect("the long run wears a block out");
    let swaps = p["scheme_counters"]["n_swaps"].as_f64().unwrap();
    assert!(swaps >= 3.0, "{swaps} swaps in the long run");
    // Time to first wear-out (the model stops there) and swaps over the long run's length.
    let to_wear_out = input.run(true, 1e9);
    within(to_wear_out.first_wear_out_s.expect("the model wears out"), wear_out, 0.10, "time to first wear-out");
    let model_swaps = input.run_to(true, long_secs, false).swap_times_s.len() as f64;
    within(model_swaps, swaps, 0.10, "swaps over the long run");
    // And without swaps, the first channel wears out sooner (the model's baseline).
    let none = input.run(false, 1e9).first_wear_out_s.unwrap();
    assert!(none < to_wear_out.first_wear_out_s.unwrap(), "swaps delay the first wear-out: {none}");
}

