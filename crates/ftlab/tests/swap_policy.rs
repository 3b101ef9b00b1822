//! The FlashBlox swap policy (`scheme::swap::SwapPolicy`, docs/schemes/flashblox.md "The swap
//! policy") on per-channel erase counts, no engine: the fast-forward lifetime model
//! (`metrics::lifetime_model`) advances the counts and runs the policy at its checks, and the
//! tests read the swaps it made. Issue 40: the hot load cycles through every channel instead
//! of ping-ponging between the most-worn ones; the wear imbalance stays within 1 + x at the
//! horizon and over its second half (one hot load, and graded loads); equal loads are never
//! swapped; the fewest swaps that keep the bound are close to the slides' N·K; and the model
//! charges every swap's measured erases and time (item 2).

use ftlab::internals::metrics::lifetime_model::{ModelInput, ModelRun};
use ftlab::internals::scheme::flashblox::RateWindow;
use ftlab::swap_rounds_whole;

const X: f64 = 0.1;
const DAY_S: f64 = 86_400.0;

/// One vSSD per channel, 64 blocks each, `rates` in cycles a second (x64 erases a second),
/// the slides' target 1 + x = 1.1 under the cumulative trigger, swaps free and instantaneous
/// (the slides' equation has no cost), an endurance never reached.
fn channels(rates: &[f64], floor_s: f64, epoch_s: f64, partner_window: RateWindow) -> ModelInput {
    let n = rates.len();
    ModelInput {
        pe_cycles: 1e15,
        blocks: vec![64.0; n],
        wear_start: vec![0.0; n],
        rate_per_s: rates.iter().map(|r| r * 64.0).collect(),
        owner: (0..n as u16).collect(),
        swap_threshold: 1.0 + X,
        rate_window: RateWindow::Cumulative,
        partner_window,
        swap_interval_min_s: floor_s,
        epoch_s,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    }
}

fn one_hot(n: usize) -> Vec<f64> {
    let mut r = vec![0.0; n];
    r[0] = 1.0;
    r
}

fn imbalance(wear: &[f64]) -> f64 {
    let mean = wear.iter().sum::<f64>() / wear.len() as f64;
    wear.iter().cloned().fold(f64::MIN, f64::max) / mean
}

/// The channels' wear at `t_s`, linear between the run's points.
fn wear_at(run: &ModelRun, t_s: f64) -> Vec<f64> {
    let i = run.series.iter().position(|p| p.0 >= t_s).expect("t within the run");
    if i == 0 {
        return run.series[0].1.clone();
    }
    let ((t0, w0), (t1, w1)) = (&run.series[i - 1], &run.series[i]);
    let f = if t1 > t0 { (t_s - t0) / (t1 - t0) } else { 1.0 };
    w0.iter().zip(w1).map(|(a, b)| a + f * (b - a)).collect()
}

/// The largest wear imbalance from `from_s` to the run's end. Wear is linear between the
/// run's points, so each channel's wear over the mean is monotone there and the largest value
/// is at a point (or at `from_s`).
fn imbalance_max_from(run: &ModelRun, from_s: f64) -> f64 {
    run.series
        .iter()
        .filter(|p| p.0 >= from_s)
        .map(|p| imbalance(&p.1))
        .fold(imbalance(&wear_at(run, from_s)), f64::max)
}

/// Where the load that starts on channel `start` is after each swap (the start first).
fn path_of_load(run: &ModelRun, start: usize) -> Vec<usize> {
    let mut at = start;
    let mut path = vec![at];
    for &(a, b) in &run.swap_pairs {
        at = if at == a {
            b
        } else if at == b {
            a
        } else {
            at
        };
        path.push(at);
    }
    path
}

#[test]
fn one_hot_load_visits_every_channel_within_n_swaps() {
    // The slides' worst case: one vSSD does every erase. Its load must cycle through all N
    // channels ("K rounds of cycling"): from any swap on, the next N swaps take it to every
    // channel (N − 1 moves suffice; one spare for a tie). (Today's rule passed this too: with
    // one hot load its ties on the current rate fall to the least worn.)
    for n in [4usize, 8, 16] {
        let run = channels(&one_hot(n), 100.0, 0.05, RateWindow::Cumulative).run_to(true, DAY_S, false);
        let path = path_of_load(&run, 0);
        assert!(path.len() > 3 * n, "N = {n}: {} swaps in a day", run.swap_pairs.len());
        for s in 0..path.len() - n {
            let mut seen = vec![false; n];
            path[s..=s + n].iter().for_each(|&c| seen[c] = true);
            assert!(
                seen.iter().all(|&v| v),
                "N = {n}: swaps {s}..{} visit only {:?}",
                s + n,
                &path[s..=s + n]
            );
        }
    }
}

#[test]
fn graded_loads_are_not_ping_ponged_between_two_channels() {
    // Graded loads over 16 channels (rates 0.7^c and 1/(c + 1)): the reading before issue 40
    // ("minimum rate of wearout" = the lowest current rate) gives the channel just relieved
    // (the most worn, now holding the slowest load) the next hot load whenever another
    // channel becomes the most worn: it swapped only channels 0, 1 and 15 (0.7^c) and 0 and 15
    // (1/(c + 1)), the same pair back and forth, and the imbalance stayed at 2.74 and 2.51.
    // Failed before this change. Now every channel takes part, no swap undoes the one before
    // it, and every channel holds the hottest load at some time.
    let grades: [Vec<f64>; 2] =
        [(0..16).map(|c| 0.7f64.powi(c)).collect(), (0..16).map(|c| 1.0 / (c as f64 + 1.0)).collect()];
    for rates in &grades {
        let run = channels(rates, 100.0, 0.05, RateWindow::Cumulative).run_to(true, 4.0 * DAY_S, false);
        let pairs = &run.swap_pairs;
        let mut swapped = vec![false; 16];
        for &(a, b) in pairs {
            swapped[a] = true;
            swapped[b] = true;
        }
        assert!(swapped.iter().all(|&v| v), "channels never swapped: {swapped:?}");
        for w in pairs.windows(2) {
            let same = |p: (usize, usize)| (p.0.min(p.1), p.0.max(p.1));
            assert_ne!(same(w[0]), same(w[1]), "a swap undone by the next");
        }
        let mut held = vec![false; 16];
        path_of_load(&run, 0).into_iter().for_each(|c| held[c] = true);
        assert!(held.iter().all(|&v| v), "the hottest load never reached: {held:?}");
    }
}

#[test]
fn imbalance_stays_within_1_plus_x_at_the_horizon_and_over_its_second_half() {
    // The held-out check of issue 40: 8 channels, one written flat out, seven read-only, swaps
    // free but at most every 100 s (the floor), a day: the wear imbalance (most-worn channel
    // over the mean) must stay at or below 1.1 over the day's second half and at its end. The
    // trigger is checked every 10 s here: without its lookahead (fire if the imbalance would
    // pass 1.1 by the next check) the hot channel overshot between checks. Also 16 channels,
    // and graded loads (0.7^c, 1/(c + 1); 2.74 and 2.51 before this change) checked at the
    // scheme's default epoch, 0.05 s. (Graded loads checked only every 10 s reach 1.102: after
    // a swap the floor leaves the policy blind for 100 s while a third channel climbs;
    // docs/schemes/flashblox.md.)
    let cases: [(&str, Vec<f64>, f64); 4] = [
        ("held-out, 8 channels", one_hot(8), 10.0),
        ("16 channels", one_hot(16), 10.0),
        ("graded 0.7^c", (0..16).map(|c| 0.7f64.powi(c)).collect(), 0.05),
        ("graded 1/(c + 1)", (0..16).map(|c| 1.0 / (c as f64 + 1.0)).collect(), 0.05),
    ];
    for (name, rates, epoch_s) in &cases {
        let run = channels(rates, 100.0, *epoch_s, RateWindow::Cumulative).run_to(true, DAY_S, false);
        let end = imbalance(&run.series.last().unwrap().1);
        let second_half = imbalance_max_from(&run, DAY_S / 2.0);
        assert!(end <= 1.0 + X, "{name}: {end} at the horizon");
        assert!(second_half <= 1.0 + X + 1e-9, "{name}: up to {second_half} over the second half");
    }
}

#[test]
fn equal_loads_are_never_swapped() {
    // Equal erase rates on every channel: swapping permutes equal loads and gains nothing.
    // Unequal wear at the start (preconditioning) changes nothing; nor do rates 0.1% apart
    // (measurement noise).
    let mut input = channels(&[1.0; 8], 1.0, 0.05, RateWindow::Cumulative);
    input.wear_start = (0..8).map(|c| c as f64 * 10.0).collect();
    assert!(input.run_to(true, DAY_S, false).swap_pairs.is_empty());
    let noisy: Vec<f64> = (0..8).map(|c| 1.0 + 1e-3 * c as f64).collect();
    let run = channels(&noisy, 1.0, 0.05, RateWindow::Cumulative).run_to(true, DAY_S, false);
    assert!(run.swap_pairs.is_empty(), "{} swaps", run.swap_pairs.len());
}

#[test]
fn the_fewest_swaps_that_keep_the_bound_are_close_to_n_k() {
    // The slides: after N·K swaps of cycling the imbalance is within 1 + x (N = 16, x = 0.1:
    // K = ceil(9.3125) = 10, N·K = 160; N = 8: K = 9, 72). The policy swaps only when the
    // trigger fires; its floor (least time between a swap and the next check) sets how
    // coarse it may be. Over a horizon T with one hot load, the coarsest floor of a geometric
    // sweep whose run keeps the imbalance within 1 + x at T and over T's second half makes
    // the fewest swaps that keep the bound; that number must be within 1.25x of N·K either way
    // (measured: 69 for N = 8, 141 for N = 16; before this change the model's check could
    // stall on an epoch boundary, t / epoch rounding just below a whole number).
    let horizon_s = 5.0 * 365.0 * DAY_S;
    for n in [8usize, 16] {
        let nk = (swap_rounds_whole(n as u32, X).unwrap() * n as u64) as f64;
        let mut fewest = usize::MAX;
        let mut floor_s = horizon_s * 1e-5;
        while floor_s < horizon_s / 4.0 {
            let run = channels(&one_hot(n), floor_s, horizon_s * 1e-7, RateWindow::Cumulative)
                .run_to(true, horizon_s, false);
            if imbalance_max_from(&run, horizon_s / 2.0) <= 1.0 + X + 1e-9 {
                fewest = fewest.min(run.swap_pairs.len());
            }
            floor_s *= 1.1;
        }
        assert!(
            (nk / 1.25..=nk * 1.25).contains(&(fewest as f64)),
            "N = {n}: the fewest swaps keeping 1 + x are {fewest}, N·K = {nk}"
        );
    }
}

#[test]
fn device_scale_measures_the_interval_on_a_five_year_life_without_the_quick_floor() {
    // `device_scale` (docs/lifetime.md): the run's rates scaled so that the ideal lifetime is
    // the slides' 5 years, a swap's time scaled by the capacity (x512: the quick form's
    // channel over the full preset's), no floor but the swap's own time. One hot load on 8
    // channels of 64 blocks at 3,000 cycles: budget 8·64·3000 = 1,536,000 erases; at 100
    // erases/s the ideal life is 15,360 s, so the rates scale by 15,360 / (5·365·86,400).
    // The input's floor (10^6 s, longer than the unscaled life) does not apply there.
    let mut input = channels(&one_hot(8), 1e6, 0.05, RateWindow::Cumulative);
    input.pe_cycles = 3000.0;
    input.rate_per_s = vec![0.0; 8];
    input.rate_per_s[0] = 100.0;
    input.swap_time_s = 3.0;
    input.swap_erases = 32.0;
    let life_s = 5.0 * 365.0 * DAY_S;
    let (m, run, rate_scale) =
        ftlab::internals::metrics::lifetime_model::device_scale(&input, 512.0).unwrap();
    assert!((rate_scale - 15_360.0 / life_s).abs() < 1e-15, "{rate_scale}");
    assert_eq!((m.swap_time_s, m.swap_interval_min_s), (3.0 * 512.0, 0.0));
    let wear_out = run.first_wear_out_s.expect("wears out within 10 lives");
    let n = run.swap_times_s.len();
    assert!(n >= 72, "{n} swaps: at least the slides' N·K = 72");
    // Balanced to 1 + x, each swap's own erases (half a cycle per block on each of its two
    // channels) the only loss: the first wear-out comes after 1/1.1 of the ideal life, less
    // those erases' share, and well before it.
    let swap_cycles = n as f64 * 2.0 * 32.0 / 64.0 / 8.0;
    assert!(wear_out >= life_s * (1.0 / 1.1 - swap_cycles / 3000.0) && wear_out < life_s, "{wear_out}");
    // Unscaled, the input's floor allows no swap before the first wear-out (at 1/8 of the
    // 15,360 s ideal life): the quick form's floor would have been the answer.
    let unscaled = input.run(true, 10.0 * 15_360.0);
    assert!(unscaled.swap_times_s.is_empty() && unscaled.first_wear_out_s == Some(1920.0), "{unscaled:?}");
}

#[test]
fn the_fast_forward_charges_every_swaps_erases_and_its_measured_time() {
    // Issue 40 item 2: a migration's cost is measured by the detailed run and charged by the
    // model. Wear is conserved: over the run, the erases the channels took (wear gained x
    // blocks) are the loads' erases (the sum of the rates, which swaps only permute, x the
    // time) plus `swap_erases` on each of a swap's two channels, per swap. And the time spent
    // swapping is the swaps' number x the measured swap time over the span. One hot load on 4
    // channels (1 cycle/s over 64 blocks), each swap 5 s and 32 erases a channel, floor 10 s.
    let mut input = channels(&one_hot(4), 10.0, 0.05, RateWindow::Cumulative);
    input.swap_time_s = 5.0;
    input.swap_erases = 32.0;
    let run = input.run_to(true, 2_000.0, false);
    let n = run.swap_times_s.len();
    assert!(n >= 20, "{n} swaps");
    let (t_end, w_end) = run.series.last().unwrap();
    let taken: f64 = w_end.iter().zip(&input.wear_start).map(|(w, s)| (w - s) * 64.0).sum();
    let loads = input.rate_per_s.iter().sum::<f64>() * t_end;
    let charged = n as f64 * 2.0 * 32.0;
    assert!((taken - loads - charged).abs() < 1e-6 * taken, "{taken} vs {loads} + {charged}");
    // Free swaps wear only by the loads: the charge is the migrations', nothing else.
    let mut free = input.clone();
    free.swap_erases = 0.0;
    let r = free.run_to(true, 2_000.0, false);
    let (t, w) = r.series.last().unwrap();
    let taken_free: f64 = w.iter().zip(&free.wear_start).map(|(w, s)| (w - s) * 64.0).sum();
    assert!((taken_free - free.rate_per_s.iter().sum::<f64>() * t).abs() < 1e-6 * taken_free);
    let st = ftlab::internals::metrics::lifetime_model::SwapStats::of(&run, input.swap_time_s);
    assert_eq!(st.swap_time_s_total, n as f64 * 5.0);
    let fraction = st.swap_time_fraction.expect("a span");
    assert!((fraction - n as f64 * 5.0 / t_end).abs() < 1e-12, "{fraction}");
}
