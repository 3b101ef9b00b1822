//! The lifetime half of `ftlab reproduce flashblox` natively, for before/after comparisons of
//! the swap policy without Python: runs a scenario twice (`scheme.flashblox.swaps=false`, the
//! load's own erase rates; `swaps=true`, the swap counters), merges them as the reproduction's
//! `model_summary` does, feeds the fast-forward model (`ftlab::lifetime`, horizon 10x the ideal
//! lifetime) and prints the reproduction's lifetime measures (imbalance with swaps, lifetime
//! over ideal, minutes per migration and days between swaps at full-device scale, fraction of
//! time swapping) plus the swap run's scheme counters, as one JSON object on stdout, and
//! `device_scale_log`: the swaps of the fast-forward on the device's own time scale as the
//! scheme's swap log has them (day, pair, imbalance before and after; the first and last
//! few, and the swaps per pair) and the imbalance over the second half of that life.
//! `cargo run --profile test-release --example flashblox_lifetime -- SCENARIO.toml [KEY=VALUE ...]`.
//! Full-device scale: the `flashblox` preset's 1,024 blocks per plane x 256 pages per block
//! over the run's. Not a replacement for `ftlab reproduce` (no claims, no sensitivity).

use ftlab::internals::metrics::lifetime_model::{device_scale, inputs_from_run, ModelRun};
use serde_json::{json, Value};

const SCHEME: &str = "flashblox";
const SWAP_COUNTERS: [&str; 4] = ["n_swaps", "n_swaps_completed", "swap_device_time_s", "swap_blocks"];

fn run(path: &str, overrides: &[String], swaps: bool) -> ftlab::RunOutput {
    let mut o = overrides.to_vec();
    o.push(format!("scheme.flashblox.swaps={swaps}"));
    let opts = ftlab::RunOptions { seed: None, overrides: o, jobs: Some(1) };
    ftlab::run_scenario(&ftlab::ScenarioSource::File(path.into()), &opts, &mut |_| {}).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    })
}

/// `hardware`'s summary with `swap`'s swap counters, each tenant's rate scaled up by the swap
/// run's migration erases (the model takes them out again): the reproduction's `model_summary`.
fn model_summary(hardware: &str, swap: &Value) -> Value {
    let mut doc: Value = serde_json::from_str(hardware).expect("summary.json");
    let data = &mut doc["schemes"][SCHEME];
    let c = &swap["schemes"][SCHEME]["scheme_counters"];
    for k in SWAP_COUNTERS {
        data["scheme_counters"][k] = c[k].clone();
    }
    let secs = data["device"]["measured_s"].as_f64().unwrap_or(0.0);
    let extra = if secs > 0.0 { c["swap_blocks"].as_f64().unwrap_or(0.0) / secs } else { 0.0 };
    let tenants = data["tenants"].as_object_mut().expect("tenants");
    let total: f64 = tenants.values().map(|t| t["wear"]["erase_rate_per_s"].as_f64().unwrap_or(0.0)).sum();
    if total > 0.0 {
        for t in tenants.values_mut() {
            let r = t["wear"]["erase_rate_per_s"].as_f64().unwrap_or(0.0);
            t["wear"]["erase_rate_per_s"] = json!(r * (total + extra) / total);
        }
    }
    doc
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: flashblox_lifetime SCENARIO.toml [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let overrides: Vec<String> = args.collect();
    let hardware = run(&path, &overrides, false);
    let swap = run(&path, &overrides, true);
    let swap_summary: Value = serde_json::from_str(&swap.summary_json).expect("summary.json");
    let summary = model_summary(&hardware.summary_json, &swap_summary).to_string();
    let probe: Value = serde_json::from_str(
        &ftlab::lifetime(&summary, &swap.resolved_toml, SCHEME, 1.0).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        }),
    )
    .expect("JSON");
    let ideal = ideal_s(&probe["inputs"]);
    let life: Value = serde_json::from_str(
        &ftlab::lifetime(&summary, &swap.resolved_toml, SCHEME, 10.0 * ideal).expect("model"),
    )
    .expect("JSON");
    let w = &life["with_swaps"];
    let c = &swap_summary["schemes"][SCHEME]["scheme_counters"];
    let done = c["n_swaps_completed"].as_f64().unwrap_or(0.0);
    let t_swap = if done > 0.0 { c["swap_device_time_s"].as_f64().unwrap_or(0.0) / done } else { f64::NAN };
    let doc: toml::Table = swap.resolved_toml.parse().expect("resolved TOML");
    let dev = &doc["device"];
    let scale = 1024.0 * 256.0
        / (dev["blocks_per_plane"].as_integer().unwrap() * dev["pages_per_block"].as_integer().unwrap())
            as f64;
    let interval = w["mean_interval_s"].as_f64().unwrap_or(f64::NAN);
    let out = json!({
        "imbalance_with_swaps": w["imbalance"],
        "imbalance_without_swaps": life["without_swaps"]["imbalance"],
        "lifetime_vs_ideal": w["first_wear_out_s"].as_f64().map(|s| s / ideal),
        "lifetime_vs_ideal_without_swaps":
            life["without_swaps"]["first_wear_out_s"].as_f64().map(|s| s / ideal),
        "model_n_swaps": w["n_swaps"],
        "swap_minutes": t_swap * scale / 60.0,
        "swap_interval_days": interval * scale / 86_400.0,
        "swap_time_fraction": t_swap / interval,
        "model_swap_time_fraction": w["swap_time_fraction"],
        "swap_bound": life["swap_bound"],
        "worst_case": life["worst_case"],
        "device_scale": life["device_scale"],
        "device_scale_log": device_scale_log(&summary, &swap.resolved_toml, scale),
        "swap_run_counters": c,
        "inputs": life["inputs"],
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("serializes"));
}

/// Blocks x (pe_cycles − wear at start) over the total erase rate (the reproduction's
/// `ideal_lifetime_s`).
fn ideal_s(inputs: &Value) -> f64 {
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    let pe = f(&inputs["pe_cycles"]);
    let arr = |k: &str| inputs[k].as_array().cloned().unwrap_or_default();
    let budget: f64 =
        arr("blocks").iter().zip(arr("wear_start")).map(|(b, w)| f(b) * (pe - f(&w)).max(0.0)).sum();
    let rate: f64 = arr("rate_per_s").iter().map(f).sum();
    if rate > 0.0 {
        budget / rate
    } else {
        1e9
    }
}

/// Max / mean of `v` (NaN when the mean is not positive).
fn imbalance(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    if mean > 0.0 {
        v.iter().copied().fold(f64::MIN, f64::max) / mean
    } else {
        f64::NAN
    }
}

/// The channels' wear at `t_s` (linear between the run's points).
fn wear_at(run: &ModelRun, t_s: f64) -> Vec<f64> {
    let i = run.series.iter().position(|p| p.0 >= t_s).unwrap_or(run.series.len() - 1);
    if i == 0 {
        return run.series[0].1.clone();
    }
    let ((t0, w0), (t1, w1)) = (&run.series[i - 1], &run.series[i]);
    let f = if t1 > t0 { ((t_s - t0) / (t1 - t0)).clamp(0.0, 1.0) } else { 1.0 };
    w0.iter().zip(w1).map(|(a, b)| a + f * (b - a)).collect()
}

/// The device-scale run's swaps as the scheme's swap log has them (day, pair, the trigger's
/// max / mean of the absolute wear before and after), the first and last
/// `LOG_SHOWN`, the swaps per pair, and over the second half of the life to the first
/// wear-out T: the largest wear imbalance (cumulative, the slides' quantity) and the imbalance
/// of the erases within [T/2, T] (a rate over a window, which no rule of the slides bounds).
fn device_scale_log(summary: &str, resolved_toml: &str, capacity_scale: f64) -> Value {
    const LOG_SHOWN: usize = 12;
    let input = inputs_from_run(summary, resolved_toml, SCHEME).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let Some((m, run, _)) = device_scale(&input, capacity_scale) else { return Value::Null };
    let absolute = |w: &[f64]| -> Vec<f64> { (0..w.len()).map(|c| w[c] * m.blocks[c]).collect() };
    let day = |s: f64| s / 86_400.0;
    let log: Vec<Value> = run
        .swap_pairs
        .iter()
        .enumerate()
        .map(|(i, &(hot, cool))| {
            let (start, end) = (&run.series[1 + 2 * i], &run.series[2 + 2 * i]);
            json!({"day": day(start.0), "hot": hot, "cool": cool,
                   "imbalance_before": imbalance(&absolute(&start.1)),
                   "imbalance_after": imbalance(&absolute(&end.1)),
                   "wear_hot_before": start.1[hot], "wear_cool_before": start.1[cool]})
        })
        .collect();
    let mut per_pair = std::collections::BTreeMap::<String, usize>::new();
    for &(a, b) in &run.swap_pairs {
        *per_pair.entry(format!("{}-{}", a.min(b), a.max(b))).or_default() += 1;
    }
    let t_end = run.first_wear_out_s.unwrap_or_else(|| run.series.last().map_or(0.0, |p| p.0));
    let half = wear_at(&run, t_end / 2.0);
    let end = wear_at(&run, t_end);
    let within: Vec<f64> = (0..end.len()).map(|c| (end[c] - half[c]) * m.blocks[c]).collect();
    let cum_max = run
        .series
        .iter()
        .filter(|p| p.0 >= t_end / 2.0 && p.0 <= t_end)
        .map(|p| imbalance(&p.1))
        .fold(imbalance(&half), f64::max);
    // The swaps around the second half's largest imbalance (each swap's start and end are
    // points of the series, 1 + 2i and 2 + 2i).
    let worst = (1..run.series.len() - 1)
        .filter(|&i| run.series[i].0 >= t_end / 2.0 && run.series[i].0 <= t_end)
        .max_by(|&i, &j| imbalance(&run.series[i].1).total_cmp(&imbalance(&run.series[j].1)))
        .map(|i| (i - 1) / 2);
    let around: Vec<&Value> =
        worst.map_or(vec![], |k| log[k.saturating_sub(3)..(k + 2).min(log.len())].iter().collect());
    let n = log.len();
    let mut per_tenth = [0usize; 10];
    for &t in run.swap_times_s.iter().filter(|&&t| t <= t_end && t_end > 0.0) {
        per_tenth[((t / t_end * 10.0) as usize).min(9)] += 1;
    }
    json!({
        "swaps_per_tenth_of_life": per_tenth,
        "first": log.iter().take(LOG_SHOWN).collect::<Vec<_>>(),
        "last": log.iter().skip(n.saturating_sub(LOG_SHOWN)).collect::<Vec<_>>(),
        "swaps_per_pair": per_pair,
        "second_half": {
            "from_day": day(t_end / 2.0), "to_day": day(t_end),
            "swaps": run.swap_times_s.iter().filter(|&&t| t >= t_end / 2.0 && t <= t_end).count(),
            "wear_imbalance_max": cum_max,
            "swaps_around_the_max": around,
            "erases_within_imbalance": imbalance(&within),
            "erases_within_per_channel": within,
            "wear_at_half": half, "wear_at_end": end,
        },
    })
}
