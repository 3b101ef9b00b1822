//! The fast-forward lifetime model (`metrics/lifetime_model.rs`, `ftlab lifetime`) against
//! detailed runs on the tiny device with a low endurance (`pe_cycles = 60`): the model is fed
//! a *short* detailed run (its vSSDs' erase rates and swap costs) and predicts the *long* run,
//! which simulates to past the first wear-out. They must agree within 10% on the time to the
//! first wear-out and on the number of swaps over the long run. And the slides' swap bound
//! K >= (N-1-x)/(N x) both ways on the model alone (N = 16, x = 0.1: see below).

use crate::common;

use common::{run_raw, tiny_on};
use ftlab::internals::metrics::lifetime_model::inputs_from_run;
use serde_json::Value;

fn scenario(duration_s: f64, scheme_knobs: &str) -> String {
    let rest = format!(
        r#"
[scheme.flashblox]
epoch_s = 0.05
swap_threshold = 1.2
swap_interval_min_s = 4.0
{scheme_knobs}
# At 60 P/E cycles the preconditioning's erases are a visible part of the lifetime; the model's
# tolerance was worked out on fill's start (warmed by the workload, the model said 76.6 s
# against the detailed run's 67.7 s; docs/scenario.md, "Warm-up by workload").
[precondition]
mode = "fill"
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
    assert!(
        (a - b).abs() <= tol * b.abs(),
        "{what}: model {a} vs detailed {b} (more than {}% apart)",
        tol * 100.0
    );
}

#[test]
fn model_predicts_the_long_detailed_run() {
    // The window since the last swap: swaps every ~5 s, so both vSSDs' loads are averaged over
    // many short stays and the short run's rates hold for the long run.
    let since = "rate_window = \"since_swap\"";
    let short = run_raw(&scenario(12.0, since), &[]).expect("short run");
    let input = inputs_from_run(&short.summary_json, &short.resolved_toml, "flashblox").expect("inputs");
    assert!(
        input.owner.iter().all(|&o| o != ftlab::internals::metrics::lifetime_model::FIXED),
        "both channels are swappable"
    );
    let long_secs = 150.0;
    let long = run_raw(&scenario(long_secs, since), &[]).expect("long run");
    let s: Value = serde_json::from_str(&long.summary_json).unwrap();
    let p = &s["schemes"]["flashblox"];
    let wear_out = p["device"]["first_wear_out_s"].as_f64().expect("the long run wears a block out");
    let swaps = p["scheme_counters"]["n_swaps"].as_f64().unwrap();
    assert!(swaps >= 3.0, "{swaps} swaps in the long run");
    // Time to first wear-out (the model stops there) and swaps over the long run's length.
    let to_wear_out = input.run(true, 1e9);
    within(
        to_wear_out.first_wear_out_s.expect("the model wears out"),
        wear_out,
        0.10,
        "time to first wear-out",
    );
    let model_swaps = input.run_to(true, long_secs, false).swap_times_s.len() as f64;
    within(model_swaps, swaps, 0.10, "swaps over the long run");
    // And without swaps, the first channel wears out sooner (the model's baseline).
    let none = input.run(false, 1e9).first_wear_out_s.unwrap();
    assert!(none < to_wear_out.first_wear_out_s.unwrap(), "swaps delay the first wear-out: {none}");
}

#[test]
fn model_predicts_the_cumulative_triggers_swaps() {
    // The cumulative window (the default) at 1 + x = 1.05: the swaps come further and further
    // apart (measured: 12 in 150 s, the last near 106 s), and the model, fed the short run,
    // must make as many over the long run's length (within 10%). Its time to the first
    // wear-out is not compared: the long run's erase rates drift once the swaps grow rare
    // (measured 2026-11-26 at 1.1: the cold vSSD's channel from ~33 to 66-94 erases/s after
    // the first minute), which the short run's constant rates cannot follow (at 1.05: model
    // 94.2 s against 81.3 s detailed); docs/lifetime.md.
    // Compared in total over seeds 7-12: one seed's count of the detailed run moves by up to
    // 2 of ~12 (+-17%) with the seed or any change of flashblox's block handling, more than
    // the 10% (measured 2026-11-26, model vs detailed per seed: before the swap closed open
    // blocks 12/12, 12/13, 12/11, 12/13, 12/12, 11/13, seed 12 already 15% apart; after it
    // 12/10, 11/12, 12/11, 11/12, 12/12, 12/10).
    let knobs = "";
    let (mut model_total, mut detailed_total) = (0.0, 0.0);
    for seed in 7..=12 {
        let text = |secs| {
            scenario(secs, knobs)
                .replace("swap_threshold = 1.2", "swap_threshold = 1.05")
                .replace("seed = 7", &format!("seed = {seed}"))
        };
        let short = run_raw(&text(12.0), &[]).expect("short run");
        let input = inputs_from_run(&short.summary_json, &short.resolved_toml, "flashblox").expect("inputs");
        assert_eq!(input.rate_window, RateWindow::Cumulative, "the default window");
        let long_secs = 150.0;
        let long = run_raw(&text(long_secs), &[]).expect("long run");
        let s: Value = serde_json::from_str(&long.summary_json).unwrap();
        let swaps = s["schemes"]["flashblox"]["scheme_counters"]["n_swaps"].as_f64().unwrap();
        assert!(swaps >= 5.0, "seed {seed}: {swaps} swaps in the long run");
        model_total += input.run_to(true, long_secs, false).swap_times_s.len() as f64;
        detailed_total += swaps;
    }
    within(model_total, detailed_total, 0.10, "swaps over the long runs of seeds 7-12 (cumulative window)");
}

// ---- The swap bound of the slides, both ways ------------------------------------------------
//
// Slides (/work/shared/papers/flashblox-slides.txt, "Quantifying the Swapping Frequency"):
// "Assume there are N channels, wear imbalance target: 1+x, after K rounds of cycling:
//  Wear Imbalance = (MK + M)/(MK + M/N) = (K + 1)/(K + 1/N) <= (1 + x);  K >= (N - 1 - x)/(Nx)"
// and "If N = 16, x = 0.1, then K = 9, which means after swap NK = 148 times, we can
// guarantee the wear imbalance is bounded in 1.1".
//
// The reading under which the model and the equation are the same thing: the worst case is one
// vSSD doing every erase (M per swap period) and N − 1 idle ones; a round is N swaps (the hot
// load has visited every channel once, "swap NK times"); wear imbalance is the most-worn
// channel's wear over the mean. After K rounds every channel holds M·K; during the next period
// the channel that took the load reaches M·K + M while the mean is M·K + M/N: the equation's
// numerator and denominator. So "imbalance <= 1 + x after K rounds" means: at every time after
// the N·K-th swap, max / mean <= 1 + x.

use ftlab::internals::metrics::lifetime_model::{swap_rounds_bound, ModelInput, ModelRun};
use ftlab::internals::scheme::flashblox::RateWindow;

const N: usize = 16;
const X: f64 = 0.1;
/// The swap period (the model's `swap_interval_min_s`) and one cycle of wear per second on
/// the hot channel: M = PERIOD cycles per period.
const PERIOD: f64 = 1000.0;

/// N channels of 64 blocks each, one vSSD per channel; `rates` in cycles a second (x64 erases
/// a second); swaps free and instantaneous (the slides' equation has no swap cost), checked at
/// the period; an endurance never reached.
fn channels(rates: &[f64]) -> ModelInput {
    ModelInput {
        pe_cycles: 1e15,
        blocks: vec![64.0; rates.len()],
        wear_start: vec![0.0; rates.len()],
        rate_per_s: rates.iter().map(|r| r * 64.0).collect(),
        owner: (0..rates.len() as u16).collect(),
        swap_threshold: 1.05,
        rate_window: RateWindow::SinceSwap,
        partner_window: RateWindow::Cumulative,
        swap_interval_min_s: PERIOD,
        epoch_s: 1.0,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    }
}

fn imbalance(wear: &[f64]) -> f64 {
    let mean = wear.iter().sum::<f64>() / wear.len() as f64;
    wear.iter().cloned().fold(f64::MIN, f64::max) / mean
}

/// The largest wear imbalance at or after the `swaps`-th swap (1-based) to the run's end. Wear
/// is linear between the series' points, and max / mean of linear functions (a convex over a
/// linear function) is quasi-convex, so its largest value over a segment is at an end point:
/// the series' points suffice.
fn worst_imbalance_after(run: &ModelRun, swaps: usize) -> f64 {
    let from = run.swap_times_s[swaps - 1];
    run.series.iter().filter(|(t, _)| *t >= from).map(|(_, w)| imbalance(w)).fold(f64::MIN, f64::max)
}

#[test]
fn swap_bound_worst_case_meets_one_plus_x_after_the_bounds_rounds_and_not_before() {
    // The slides' worst case: channel 0's vSSD does every erase, 15 vSSDs idle.
    let mut rates = vec![0.0; N];
    rates[0] = 1.0;
    let rounds_max = 16;
    let run = channels(&rates).run_to(true, PERIOD * (N * (rounds_max + 1)) as f64 * 1.01, false);
    assert!(run.swap_times_s.len() >= N * rounds_max, "{} swaps", run.swap_times_s.len());
    // The model swaps once a period (the hot load moves on as soon as it may): N·K swaps take
    // about N·K periods (each check waits for the hot channel to pass the most-worn one, at
    // most an epoch).
    let t = run.swap_times_s[N * rounds_max - 1];
    assert!((t / (PERIOD * (N * rounds_max) as f64) - 1.0).abs() < 0.01, "swap {} at {t} s", N * rounds_max);
    let bound = swap_rounds_bound(N as u32, X); // 9.3125: K = 10 is the least whole number of rounds
    for k in 1..=rounds_max {
        let worst = worst_imbalance_after(&run, N * k);
        // The equation's value for K rounds, written out here (not the library's function).
        let slides = (k as f64 + 1.0) / (k as f64 + 1.0 / N as f64);
        assert!(
            (worst - slides).abs() < 0.01 * slides,
            "K = {k}: the model's worst imbalance after {} swaps is {worst}, the slides' {slides}",
            N * k
        );
        assert_eq!(
            worst <= 1.0 + X,
            k as f64 >= bound,
            "K = {k} (bound {bound}): worst imbalance after {} swaps {worst}",
            N * k
        );
    }
    // So the model needs N·10 = 160 swaps for 1.1; after N·9 = 144 (the slides' "K = 9") the
    // imbalance still reaches 10/9.0625 = 1.103 > 1.1.
    assert!(worst_imbalance_after(&run, N * 10) <= 1.1 && worst_imbalance_after(&run, N * 9) > 1.1);
}

/// The imbalance after N·ceil(K) swaps of the model on `rates` (cycles a second per channel),
/// checked against 1 + x and against the one-hot worst case's own value.
fn assert_within_bound(rates: &[f64]) {
    let k = swap_rounds_bound(N as u32, X).ceil() as usize;
    let worst_case = (k as f64 + 1.0) / (k as f64 + 1.0 / N as f64);
    let run = channels(rates).run_to(true, PERIOD * (N * (k + 2)) as f64 * 1.5, false);
    assert!(run.swap_times_s.len() >= N * k, "{rates:?}: only {} swaps", run.swap_times_s.len());
    let worst = worst_imbalance_after(&run, N * k);
    assert!(
        worst <= 1.0 + X && worst <= worst_case + 1e-9,
        "{rates:?}: imbalance {worst} after {} swaps",
        N * k
    );
}

#[test]
fn swap_bound_holds_for_milder_two_level_skews() {
    // The bound is the worst case: with every vSSD erasing, one or four hot vSSDs over cooler
    // ones (rates 1 vs 0.01, 1 vs 0.1), the imbalance after N·ceil(K) = 160 swaps is within
    // 1 + x too, and within the one-hot case's value.
    assert_within_bound(&(0..N).map(|c| if c < 1 { 1.0 } else { 0.01 }).collect::<Vec<_>>());
    assert_within_bound(&(0..N).map(|c| if c < 4 { 1.0 } else { 0.1 }).collect::<Vec<_>>());
}

// ---- Swaps measured, not imposed: the interval and the time spent swapping are outputs ------
//
// The model swaps when the trigger (`scheme::flashblox::decide`) fires; `SwapStats` measures
// the interval between swaps and the time spent swapping from the run. Each case below is
// worked by hand (docs/schemes/flashblox.md, "Swap trigger"; docs/lifetime.md, "Swaps in the
// model").

use ftlab::internals::metrics::lifetime_model::{swap_bound_check, SwapStats};

/// Two channels of 10 blocks, one vSSD each; vSSD 0 erases 10 blocks a second (1 cycle/s),
/// vSSD 1 nothing.
fn one_hot_pair(
    window: RateWindow,
    threshold: f64,
    floor_s: f64,
    epoch_s: f64,
    swap_time_s: f64,
    pe_cycles: f64,
) -> ModelInput {
    ModelInput {
        pe_cycles,
        blocks: vec![10.0, 10.0],
        wear_start: vec![0.0, 0.0],
        rate_per_s: vec![10.0, 0.0],
        owner: vec![0, 1],
        swap_threshold: threshold,
        rate_window: window,
        partner_window: RateWindow::Cumulative,
        swap_interval_min_s: floor_s,
        epoch_s,
        swap_time_s,
        swap_erases: 0.0,
    }
}

#[test]
fn cumulative_trigger_swaps_at_the_hand_worked_times() {
    // Cumulative window, two channels, threshold θ: the channel holding the hot load (count h)
    // against the other (count o) fires when h / ((h + o)/2) > θ, i.e. h > ρ·o with
    // ρ = θ/(2 − θ) (θ = 1.5: ρ = 3). The first check, at the floor F = 1 s, finds 10 erases
    // against 0 (imbalance 2): swap 1 at t1 = F. Then the hot load must take its new channel
    // past ρ times the other's count: at swap k the two counts are r·F·ρ^(k−2) and
    // r·F·ρ^(k−1) (r = 10/s), their sum r·t_k, so t_k = F·(ρ^(k−1) + ρ^(k−2)) for k ≥ 2:
    // 4, 12, 36, 108, 324, 972, 2916 s. No schedule is given: the gaps grow by ρ.
    let input = one_hot_pair(RateWindow::Cumulative, 1.5, 1.0, 1e-6, 0.0, 1e12);
    let run = input.run_to(true, 5000.0, false);
    let rho: f64 = 1.5 / (2.0 - 1.5);
    let hand: Vec<f64> =
        (1..=8).map(|k| if k == 1 { 1.0 } else { rho.powi(k - 1) + rho.powi(k - 2) }).collect();
    assert_eq!(run.swap_times_s.len(), hand.len(), "{:?}", run.swap_times_s);
    for (got, want) in run.swap_times_s.iter().zip(&hand) {
        assert!((got - want).abs() <= 1e-5 * want, "swap at {got} s, by hand {want} s");
    }
    // The measured interval: the mean gap between swap starts, (t8 − t1)/7 = 2915/7 s.
    let st = SwapStats::of(&run, 0.0);
    let mean = st.interval_s_mean.unwrap();
    assert!((mean - 2915.0 / 7.0).abs() < 1e-3, "{mean}");
    assert!(
        (st.interval_s_min.unwrap() - 3.0).abs() < 1e-3 && (st.interval_s_max.unwrap() - 1944.0).abs() < 1e-2,
        "{st:?}"
    );
    // A threshold the pair cannot exceed (max / mean of two channels is at most 2) never fires.
    assert!(one_hot_pair(RateWindow::Cumulative, 2.0, 1.0, 1e-6, 0.0, 1e12)
        .run_to(true, 5000.0, false)
        .swap_times_s
        .is_empty());
}

#[test]
fn since_swap_interval_is_the_floor_plus_the_swap_time() {
    // Window since the last swap: the rates are constant between swaps, so the trigger (2 >
    // 1.5) holds at every check and the floor F = 1 s after each swap's end is the schedule:
    // swap k starts at 1 + 1.25·(k − 1) s (swap time τ = 0.25 s). The hot load sits on
    // channel 0 for [0, 1], then 1.25 s on each channel in turn. Endurance 100.3 cycles:
    // channel 0 has 1 + 1.25·79 = 99.75 after 79 more visits, its 80th starts at
    // 2.25 + 2.5·79 = 199.75 s and it wears out 0.55 s later, at 200.3 s (channel 1 would at
    // 201.3 s). Swaps started before 200.3 s: 1 + 1.25·(k − 1) < 200.3, k ≤ 160. Time spent
    // swapping: 160 · 0.25 = 40 s of 200.3 s.
    let input = one_hot_pair(RateWindow::SinceSwap, 1.5, 1.0, 0.25, 0.25, 100.3);
    let run = input.run(true, 1e9);
    let wear_out = run.first_wear_out_s.unwrap();
    assert!((wear_out - 200.3).abs() < 1e-9, "{wear_out}");
    let st = SwapStats::of(&run, input.swap_time_s);
    assert_eq!(st.n_swaps, 160);
    assert!(
        (st.interval_s_mean.unwrap() - 1.25).abs() < 1e-12
            && (st.interval_s_max.unwrap() - 1.25).abs() < 1e-12,
        "{st:?}"
    );
    assert!((st.swap_time_s_total - 40.0).abs() < 1e-12);
    assert!((st.swap_time_fraction.unwrap() - 40.0 / 200.3).abs() < 1e-12, "{st:?}");
}

#[test]
fn a_fixed_interval_of_ideal_over_nk_fits_only_k_minus_1_rounds() {
    // The recipe the reproduction used to impose (issue 21): swap every T/(N·K), T the ideal
    // lifetime (all blocks worn evenly). Slides' worst case on N = 8 channels, x = 0.1:
    // K = ceil((8 − 1 − 0.1)/(8 · 0.1)) = ceil(8.625) = 9, N·K = 72. Each period the hot
    // channel takes M = r·T/(72·B) = N·PE/72 = PE/9 cycles, so the channel that took the load
    // first reaches PE on its 9th visit, after 8 rounds = 64 swaps: 64 < 72, and the
    // imbalance there is 9M / ((9M + 7·8M)/8) = 9/8.125 = 1.1077 > 1.1. (The floor is set
    // 0.1% above T/(N·K) so that swap 65 does not tie with the wear-out.)
    let (n, pe, blocks, rate) = (8usize, 3000.0, 64.0, 1.0e3);
    let ideal = n as f64 * blocks * pe / rate;
    let mut rates = vec![0.0; n];
    rates[0] = rate;
    let input = ModelInput {
        pe_cycles: pe,
        blocks: vec![blocks; n],
        wear_start: vec![0.0; n],
        rate_per_s: rates,
        owner: (0..n as u16).collect(),
        swap_threshold: 1.1,
        rate_window: RateWindow::SinceSwap,
        partner_window: RateWindow::Cumulative,
        swap_interval_min_s: ideal / 72.0 * 1.001,
        epoch_s: ideal / 72.0 * 1e-6,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    };
    let run = input.run(true, 10.0 * ideal);
    assert_eq!(run.swap_times_s.len(), 64);
    let imb = imbalance(&run.series.last().unwrap().1);
    assert!((imb - 9.0 / 8.125).abs() < 2e-3, "{imb}");
    let check = swap_bound_check(&input, &run);
    assert_eq!(check["k_rounds"], 9);
    assert_eq!(check["n_k"], 72);
    assert_eq!(check["fits"], false);
    assert_eq!(check["bound_holds"], false);
    let why = check["why"].as_str().unwrap();
    assert!(
        why.contains("64 swaps") && why.contains("N·K = 8·9 = 72") && why.contains("> 1 + x = 1.1000"),
        "{why}"
    );
}

#[test]
fn cumulative_trigger_fits_nk_swaps_in_the_slides_worst_case() {
    // The same worst case under the erase-rate trigger (cumulative window, 1 + x = 1.1): the
    // trigger fires while max / mean of the erases exceeds 1.1, so it makes as many swaps as
    // that takes. It must fit at least N·K = 72 before the first wear-out, and the wear
    // imbalance there stays within 1.1 plus one check's overshoot (an epoch of the hot load
    // on one channel of 8: 1e-6 of a period here).
    let (n, pe, blocks, rate) = (8usize, 3000.0, 64.0, 1.0e3);
    let ideal = n as f64 * blocks * pe / rate;
    let mut rates = vec![0.0; n];
    rates[0] = rate;
    let input = ModelInput {
        pe_cycles: pe,
        blocks: vec![blocks; n],
        wear_start: vec![0.0; n],
        rate_per_s: rates,
        owner: (0..n as u16).collect(),
        swap_threshold: 1.1,
        rate_window: RateWindow::Cumulative,
        partner_window: RateWindow::Cumulative,
        swap_interval_min_s: ideal * 1e-6,
        epoch_s: ideal * 1e-7,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    };
    let run = input.run(true, 10.0 * ideal);
    let check = swap_bound_check(&input, &run);
    assert_eq!(check["fits"], true, "{check}");
    assert_eq!(check["bound_holds"], true, "{check}");
    assert!(run.swap_times_s.len() >= 72);
    let imb = imbalance(&run.series.last().unwrap().1);
    assert!(imb <= 1.1 + 1e-3, "imbalance {imb} at the first wear-out");
    // The first wear-out comes when the most-worn channel reaches PE, the mean at PE / imb:
    // at T / imb of the ideal lifetime T (to within the overshoot).
    let wear_out = run.first_wear_out_s.unwrap();
    assert!(
        (wear_out - ideal / imb).abs() <= 1e-3 * ideal,
        "wear-out at {wear_out} s, T / imbalance = {}",
        ideal / imb
    );
}

#[test]
fn worst_case_is_the_slides_one_hot_case_over_five_years() {
    // `worst_case` (the slides' "For an SSD with 5 years lifetime, swap once per 12 days ...
    // for worst case"): one vSSD of 16 does every erase, at the rate that wears every block
    // evenly in 5 × 365 days, swaps free. With no swap erases, the mean wear at any time is
    // PE · t / life, so the first wear-out (max = PE) comes at life / imbalance exactly; the
    // cumulative trigger at 1.1 keeps the imbalance within 1.1 plus one check's overshoot and
    // fits N·K = 160 swaps.
    use ftlab::internals::metrics::lifetime_model::{worst_case, SLIDES_LIFE_S};
    let mut input = channels(&[1.0; N]);
    input.pe_cycles = 3000.0;
    input.swap_threshold = 1.1;
    input.rate_window = RateWindow::Cumulative;
    input.swap_interval_min_s = 6.0;
    input.epoch_s = 0.05;
    assert_eq!(SLIDES_LIFE_S, 1825.0 * 86_400.0);
    let (run, st) = worst_case(&input, SLIDES_LIFE_S).expect("16 swappable channels");
    let imb = imbalance(&run.series.last().unwrap().1);
    let wear_out = run.first_wear_out_s.unwrap();
    assert!(
        (wear_out - SLIDES_LIFE_S / imb).abs() <= 1e-6 * SLIDES_LIFE_S,
        "{wear_out} vs {}",
        SLIDES_LIFE_S / imb
    );
    assert!(imb <= 1.1 + 1e-3, "{imb}");
    assert!(st.n_swaps >= 160, "{}", st.n_swaps);
    assert!(st.interval_s_mean.unwrap() * (st.n_swaps - 1) as f64 <= wear_out);
}
