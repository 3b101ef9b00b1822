//! The fast-forward lifetime model behind `ftlab lifetime` (docs/lifetime.md) and the
//! FlashBlox swap bound (slides: K ≥ (N−1−x)/(N·x)). The model takes each channel's erase
//! rate (per vSSD, measured by a detailed run) and each swap's measured cost, and advances
//! wear analytically, event to event (trigger checks, swap ends, wear-out), with the swap rule
//! the scheme runs (`scheme::swap::SwapPolicy::decide`, the same trigger window), so years take
//! microseconds. The swaps fire when the trigger does: the interval between swaps and the
//! time spent swapping are outputs (`SwapStats`), never inputs. Pure arithmetic on plain data:
//! extracting the inputs from a run's `summary.json` is `inputs_from_run`, which asks the
//! scheme's registry entry for its swaps (`scheme::Capabilities::lifetime`); no file I/O, no
//! simulation, no scheme named.

use crate::error::{FtlabError, LifetimeError};
use crate::scheme::swap::{ChannelLoads, ChannelState, Decision, RateWindow, SwapPolicy, SwapRule, NO_OWNER};
use serde_json::{json, Value};

/// The real-valued bound of the slides: rounds of cycling K after which the wear imbalance
/// (max / mean) of `n` channels is at most `1 + x`: K ≥ (N − 1 − x) / (N·x).
pub fn swap_rounds_bound(n: u32, x: f64) -> f64 {
    (n as f64 - 1.0 - x) / (n as f64 * x)
}

/// The slides' wear imbalance after `k` rounds of cycling over `n` channels:
/// (K + 1) / (K + 1/N) (the most-worn channel took one round more than the average). Only the
/// unit tests use it (they check the swap-round bounds against it).
#[cfg(test)]
fn imbalance_after_rounds(n: u32, k: f64) -> f64 {
    (k + 1.0) / (k + 1.0 / n as f64)
}

/// No vSSD may swap this channel.
pub const FIXED: u16 = NO_OWNER;

/// The least whole K meeting the bound, ceil((N−1−x)/(N·x)) (`None` for x ≤ 0: no K does).
pub fn swap_rounds_whole(n: u32, x: f64) -> Option<u64> {
    (x > 0.0).then(|| (swap_rounds_bound(n, x) - 1e-12).ceil().max(0.0) as u64)
}

/// What the model advances.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInput {
    pub pe_cycles: f64,
    /// Per channel: blocks, most-worn block's erase count at time 0, erase rate (erases a
    /// second over the whole channel) of the load it holds at time 0, and the vSSD holding it
    /// (`FIXED` if it cannot be swapped).
    pub blocks: Vec<f64>,
    pub wear_start: Vec<f64>,
    pub rate_per_s: Vec<f64>,
    pub owner: Vec<u16>,
    /// The swap rule (the scheme's config, `scheme::swap::SwapRule`) and each swap's cost.
    pub swap_threshold: f64,
    /// The trigger's window: `Cumulative` compares the erases since time 0 (the wear the
    /// model added), `SinceSwap` the current rates (constant between swaps here).
    pub rate_window: RateWindow,
    /// The window of the partner's "minimum rate of wearout" (`SwapPolicy::partner_window`).
    pub partner_window: RateWindow,
    pub swap_interval_min_s: f64,
    pub epoch_s: f64,
    pub swap_time_s: f64,
    /// Erases one swap adds to each of its two channels.
    pub swap_erases: f64,
}

/// What the model found.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRun {
    /// When the first channel's most-worn block reaches `pe_cycles` (`None`: never).
    pub first_wear_out_s: Option<f64>,
    /// Start time of every swap up to the wear-out (or the horizon).
    pub swap_times_s: Vec<f64>,
    /// The channels of every swap, (most worn, partner), in the order of `swap_times_s`.
    pub swap_pairs: Vec<(usize, usize)>,
    /// (time, wear of each channel) at time 0, at each swap's start and end, and at the end;
    /// wear is linear in between.
    pub series: Vec<(f64, Vec<f64>)>,
}

/// Most swaps one model run may make: a run that reaches it stops there, and says so
/// (`swaps_capped` beside each `n_swaps`).
pub(crate) const SWAPS_MAX: usize = 1_000_000;

impl ModelInput {
    fn slope(&self, c: usize, rate: &[f64]) -> f64 {
        rate[c] / self.blocks[c]
    }

    /// Time from now until some channel reaches `pe_cycles` at the current rates.
    fn time_to_wear_out(&self, wear: &[f64], rate: &[f64]) -> Option<f64> {
        (0..wear.len())
            .filter_map(|c| {
                let left = self.pe_cycles - wear[c];
                let s = self.slope(c, rate);
                if left <= 0.0 {
                    Some(0.0)
                } else if s > 0.0 {
                    Some(left / s)
                } else {
                    None
                }
            })
            .min_by(f64::total_cmp)
    }

    /// The erases each channel took since time 0 (from its wear: wear is per block).
    fn erases_since_start(&self, wear: &[f64]) -> Vec<f64> {
        (0..wear.len()).map(|c| (wear[c] - self.wear_start[c]) * self.blocks[c]).collect()
    }

    /// The swap policy of this input: the rule's knobs, the check interval as the trigger's
    /// lookahead, each swap's erases.
    pub fn policy(&self) -> SwapPolicy {
        SwapPolicy {
            threshold: self.swap_threshold,
            window: self.rate_window,
            partner_window: self.partner_window,
            lookahead_s: self.epoch_s,
            swap_erases: self.swap_erases,
            blind_s: self.swap_time_s + self.swap_interval_min_s,
        }
    }

    /// The swap rule now (`SwapPolicy::decide`) on the erases before time 0 (the wear the
    /// model starts from), the erases since (the wear it added), the current rates, the wear
    /// and the owners; and, for the cumulative window, the time from now until its answer can
    /// change (`SwapPolicy::next_change_s`).
    fn decision(&self, wear: &[f64], rate: &[f64], owner: &[u16]) -> (Decision, Option<f64>) {
        let since_start = self.erases_since_start(wear);
        let pre: Vec<f64> = (0..wear.len()).map(|c| self.wear_start[c] * self.blocks[c]).collect();
        let state =
            ChannelState { before_start: &pre, since_start: &since_start, rate_now_per_s: rate, wear, owner };
        let policy = self.policy();
        (policy.decide(&state), policy.next_change_s(&state))
    }

    /// Earliest time from now at which another channel's wear passes the most-worn one's.
    fn next_crossing(&self, wear: &[f64], rate: &[f64], owner: &[u16]) -> Option<f64> {
        let sw: Vec<usize> = (0..wear.len()).filter(|&c| owner[c] != FIXED).collect();
        let hot = *sw.iter().max_by(|&&a, &&b| wear[a].total_cmp(&wear[b]).then(b.cmp(&a)))?;
        sw.iter()
            .filter(|&&c| c != hot && self.slope(c, rate) > self.slope(hot, rate))
            .map(|&c| (wear[hot] - wear[c]) / (self.slope(c, rate) - self.slope(hot, rate)))
            .min_by(f64::total_cmp)
    }

    fn on_epoch_grid(&self, t: f64) -> f64 {
        if self.epoch_s > 0.0 {
            (t / self.epoch_s - 1e-9).ceil() * self.epoch_s
        } else {
            t
        }
    }

    /// The first check at or after `t + d` on the epoch grid, and strictly after `t` (so that
    /// a check that found the trigger exactly at its threshold moves on).
    fn check_after(&self, t: f64, d: f64) -> f64 {
        let at = self.on_epoch_grid(t + d);
        if at > t {
            at
        } else if self.epoch_s > 0.0 {
            // t / epoch may round to just below a whole k when t is on the grid: then k + 1.
            let next = ((t / self.epoch_s).floor() + 1.0) * self.epoch_s;
            if next > t {
                next
            } else {
                ((t / self.epoch_s).floor() + 2.0) * self.epoch_s
            }
        } else {
            t + f64::EPSILON * t.abs().max(1.0)
        }
    }

    /// Advance wear from time 0 to the first wear-out or `horizon_s`, swapping when `swaps`.
    pub fn run(&self, swaps: bool, horizon_s: f64) -> ModelRun {
        self.run_to(swaps, horizon_s, true)
    }

    /// As `run`, going on past the first wear-out to `horizon_s` unless `stop_at_wear_out`
    /// (the device of the model does not stop; the count of swaps over a fixed span does).
    /// Checks, as the scheme's: the first once `swap_interval_min_s` has passed, then at the
    /// epochs where the decision can first change (`SwapPolicy::next_change_s`; under
    /// `since_swap`, when the most-worn channel stops being the slowest, `next_crossing`), the
    /// next `swap_interval_min_s` after a swap.
    pub fn run_to(&self, swaps: bool, horizon_s: f64, stop_at_wear_out: bool) -> ModelRun {
        let (mut wear, mut rate, mut owner) =
            (self.wear_start.clone(), self.rate_per_s.clone(), self.owner.clone());
        let mut out = ModelRun {
            first_wear_out_s: None,
            swap_times_s: Vec::new(),
            swap_pairs: Vec::new(),
            series: vec![(0.0, wear.clone())],
        };
        let mut t = 0.0;
        let mut check = if swaps { Some(self.on_epoch_grid(self.swap_interval_min_s)) } else { None };
        while t < horizon_s && out.swap_times_s.len() < SWAPS_MAX {
            let until_out = if out.first_wear_out_s.is_none() {
                self.time_to_wear_out(&wear, &rate).map(|d| t + d)
            } else {
                None
            };
            let next = check.unwrap_or(f64::INFINITY).min(until_out.unwrap_or(f64::INFINITY)).min(horizon_s);
            let dt = next - t;
            for (c, w) in wear.iter_mut().enumerate() {
                *w += self.slope(c, &rate) * dt;
            }
            t = next;
            if until_out.is_some_and(|w| w <= t) {
                out.first_wear_out_s = Some(t);
                if stop_at_wear_out {
                    break;
                }
            }
            if check.is_none_or(|ct| ct > t) {
                continue;
            }
            let (decision, change) = self.decision(&wear, &rate, &owner);
            check = match decision {
                Decision::Never => None,
                Decision::Below { .. } => match self.rate_window {
                    // Constant rates between swaps: below now is below for good.
                    RateWindow::SinceSwap => None,
                    RateWindow::Cumulative => change.map(|d| self.check_after(t, d)),
                },
                Decision::Wait { .. } => match self.rate_window {
                    RateWindow::SinceSwap => self
                        .next_crossing(&wear, &rate, &owner)
                        .map(|d| self.check_after(t, d.max(self.epoch_s))),
                    RateWindow::Cumulative => change.map(|d| self.check_after(t, d.max(self.epoch_s))),
                },
                Decision::Swap { hot, cool, .. } => {
                    out.swap_times_s.push(t);
                    out.swap_pairs.push((hot, cool));
                    out.series.push((t, wear.clone()));
                    rate.swap(hot, cool);
                    owner.swap(hot, cool);
                    for c in [hot, cool] {
                        wear[c] += self.swap_erases / self.blocks[c];
                    }
                    let end = t + self.swap_time_s;
                    for (c, w) in wear.iter_mut().enumerate() {
                        *w += self.slope(c, &rate) * self.swap_time_s;
                    }
                    t = end;
                    out.series.push((t, wear.clone()));
                    Some(self.on_epoch_grid(end + self.swap_interval_min_s))
                }
            };
        }
        out.series.push((t, wear));
        out
    }
}

/// What the swaps of one model run cost and how often they came: all measured from the run
/// (`ModelRun::swap_times_s`, `first_wear_out_s`) and the swap's measured device time.
#[derive(Clone, Debug, PartialEq)]
pub struct SwapStats {
    pub n_swaps: usize,
    /// The span the stats cover: to the first wear-out, else to the run's end.
    pub(crate) span_s: f64,
    /// Mean, least and greatest time between consecutive swap starts (`None`: < 2 swaps).
    pub interval_s_mean: Option<f64>,
    pub interval_s_min: Option<f64>,
    pub interval_s_max: Option<f64>,
    /// Time a swap runs in the span: n_swaps × the swap's time, and that over the span.
    pub swap_time_s_total: f64,
    pub swap_time_fraction: Option<f64>,
}

impl SwapStats {
    pub fn of(run: &ModelRun, swap_time_s: f64) -> SwapStats {
        let times = &run.swap_times_s;
        let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
        let span_s = run.first_wear_out_s.unwrap_or_else(|| run.series.last().map_or(0.0, |p| p.0));
        let total = times.len() as f64 * swap_time_s;
        SwapStats {
            n_swaps: times.len(),
            span_s,
            interval_s_mean: (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64),
            interval_s_min: gaps.iter().copied().min_by(f64::total_cmp),
            interval_s_max: gaps.iter().copied().max_by(f64::total_cmp),
            swap_time_s_total: total,
            swap_time_fraction: (span_s > 0.0).then(|| total / span_s),
        }
    }
}

/// Max / mean of the channels' wear (`None` when the mean is not positive).
pub(crate) fn wear_imbalance(wear: &[f64]) -> Option<f64> {
    let mean = wear.iter().sum::<f64>() / wear.len().max(1) as f64;
    (mean > 0.0).then(|| wear.iter().copied().fold(f64::MIN, f64::max) / mean)
}

/// Whether the run fitted the slides' N·K swaps before its first wear-out, N the swappable
/// channels, K = ceil((N−1−x)/(N·x)) with 1 + x the trigger's threshold, and whether the
/// wear imbalance there is within 1 + x (`bound_holds`); `why` gives the arithmetic.
pub fn swap_bound_check(input: &ModelInput, run: &ModelRun) -> Value {
    let n = input.owner.iter().filter(|&&o| o != FIXED).count() as u32;
    let x = input.swap_threshold - 1.0;
    let k = if x.is_finite() && n >= 2 { swap_rounds_whole(n, x) } else { None };
    let stats = SwapStats::of(run, input.swap_time_s);
    let imb = run.series.last().and_then(|p| wear_imbalance(&p.1));
    let (Some(k), Some(wear_out)) = (k, run.first_wear_out_s) else {
        return json!({
            "n_channels": n, "x": x.is_finite().then_some(x), "k_rounds": k,
            "n_k": k.map(|k| k * n as u64), "n_swaps_to_first_wear_out": stats.n_swaps,
            "fits": Value::Null, "imbalance_at_first_wear_out": imb, "bound_holds": Value::Null,
            "why": "no bound to check: fewer than two swappable channels, a threshold of 1 (x = 0), \
                    or no wear-out in the horizon"
        });
    };
    let nk = k * n as u64;
    let fits = stats.n_swaps as u64 >= nk;
    let holds = imb.is_some_and(|v| v <= 1.0 + x);
    let imb_text = imb.map_or("-".into(), |v| format!("{v:.4}"));
    let mut why = format!(
        "{} swaps before the first wear-out at {wear_out:.6e} s {} N·K = {n}·{k} = {nk} (K = ceil(({n} − 1 \
         − {x:.4})/({n}·{x:.4})) = ceil({:.4}))",
        stats.n_swaps,
        if fits { ">=" } else { "<" },
        swap_rounds_bound(n, x)
    );
    if !fits {
        let at = |i: f64| format!("{:.6e} s", i * nk as f64);
        why += &format!(
            "; the trigger (max/mean > {:.4}) fired {} times, mean interval {}: N·K swaps at that interval \
             would take {}",
            input.swap_threshold,
            stats.n_swaps,
            stats.interval_s_mean.map_or("-".into(), |i| format!("{i:.6e} s")),
            stats.interval_s_mean.map_or("-".into(), at),
        );
    }
    why += &format!(
        "; wear imbalance at the wear-out {imb_text} {} 1 + x = {:.4}",
        if holds { "<=" } else { ">" },
        1.0 + x
    );
    if fits && !holds {
        why += ": the swaps fitted but did not balance the wear (the slides' pair rule, most-worn channel \
                with the lowest-rate one, need not send every load round every channel, as the bound's \
                one-hot worst case assumes)";
    }
    json!({
        "n_channels": n, "x": x, "k_real": swap_rounds_bound(n, x), "k_rounds": k, "n_k": nk,
        "n_swaps_to_first_wear_out": stats.n_swaps, "fits": fits, "imbalance_at_first_wear_out": imb,
        "bound_holds": holds, "why": why
    })
}

/// The model's input from a detailed run: its `summary.json` text, its resolved scenario
/// and the scheme's name. A scheme whose registry entry has a lifetime hook
/// (`scheme::Capabilities::lifetime`: one that swaps channels) gives its swap rule, costs and
/// per-tenant loads; any other scheme gives per-channel rates and no swaps.
pub fn inputs_from_run(summary: &str, resolved_toml: &str, scheme: &str) -> Result<ModelInput, FtlabError> {
    let file = "summary.json";
    let bad = |key: &str, what: &str| -> FtlabError {
        let key =
            if key.is_empty() { format!("schemes.{scheme}") } else { format!("schemes.{scheme}.{key}") };
        LifetimeError::Missing { file: file.into(), key, what: what.into() }.into()
    };
    let s: Value = serde_json::from_str(summary).map_err(|e| LifetimeError::Malformed {
        file: file.into(),
        line: e.line() as u64,
        column: e.column() as u64,
        reason: format!("not JSON: {e}"),
    })?;
    let p = s["schemes"].get(scheme).ok_or_else(|| bad("", "no such scheme in this run"))?;
    let num = |v: &Value, key: &str| {
        v.as_f64().ok_or_else(|| bad(key, "missing or not a number (a run of an older ftlab?)"))
    };
    let pe_cycles = num(&p["device"]["pe_cycles"], "device.pe_cycles")?;
    let channels = p["channels"].as_array().ok_or_else(|| bad("channels", "missing"))?;
    let (mut blocks, mut wear_start, mut rate_per_s) = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in channels.iter().enumerate() {
        blocks.push(num(&c["blocks"], &format!("channels.{i}.blocks"))?);
        wear_start.push(num(&c["erase_count_max_start"], &format!("channels.{i}.erase_count_max_start"))?);
        rate_per_s.push(num(&c["erase_rate_per_s"], &format!("channels.{i}.erase_rate_per_s"))?);
    }
    let mut loads = ChannelLoads { owner: vec![FIXED; channels.len()], rate_per_s };
    let rule = match crate::scheme::info(scheme).and_then(|i| i.caps.lifetime) {
        Some(hook) => hook(p, resolved_toml, &num, &mut loads)?,
        None => SwapRule::NONE,
    };
    Ok(ModelInput {
        pe_cycles,
        blocks,
        wear_start,
        rate_per_s: loads.rate_per_s,
        owner: loads.owner,
        swap_threshold: rule.threshold,
        rate_window: rule.window,
        partner_window: rule.partner_window,
        swap_interval_min_s: rule.interval_min_s,
        epoch_s: rule.epoch_s,
        swap_time_s: rule.swap_time_s,
        swap_erases: rule.swap_erases,
    })
}

/// `ftlab lifetime`'s answer, as JSON: the inputs, and the model with and without swaps
/// (time to first wear-out in seconds and days, the swaps and what they cost: `SwapStats`,
/// the wear imbalance at the end, the wear series), and with swaps the slides' N·K check,
/// their worst case and the model on the device's own time scale (`device_scale`).
pub(crate) fn lifetime_json(input: &ModelInput, horizon_s: f64, capacity_scale: f64) -> String {
    let run = |swaps| {
        let r = input.run(swaps, horizon_s);
        let st = SwapStats::of(&r, input.swap_time_s);
        let v = json!({
            "first_wear_out_s": r.first_wear_out_s,
            "first_wear_out_days": r.first_wear_out_s.map(|s| s / 86_400.0),
            "n_swaps": r.swap_times_s.len(),
            "swaps_capped": r.swap_times_s.len() >= SWAPS_MAX,
            "mean_interval_s": st.interval_s_mean,
            "interval_s_min": st.interval_s_min,
            "interval_s_max": st.interval_s_max,
            "swap_time_s_total": st.swap_time_s_total,
            "swap_time_fraction": st.swap_time_fraction,
            "span_s": st.span_s,
            "imbalance": r.series.last().and_then(|p| wear_imbalance(&p.1)),
            "swap_times_s": r.swap_times_s,
            "series": r.series.iter().map(|(t, w)| json!({"t_s": t, "wear": w})).collect::<Vec<_>>(),
        });
        (r, v)
    };
    let (with, with_json) = run(true);
    let owner: Vec<Value> =
        input.owner.iter().map(|&o| if o == FIXED { Value::Null } else { json!(o) }).collect();
    let swap_threshold =
        if input.swap_threshold.is_finite() { json!(input.swap_threshold) } else { Value::Null };
    let v = json!({
        "inputs": {
            "pe_cycles": input.pe_cycles,
            "blocks": input.blocks,
            "wear_start": input.wear_start,
            "rate_per_s": input.rate_per_s,
            "owner": owner,
            "swap_threshold": swap_threshold,
            "rate_window": input.rate_window,
            "partner_window": input.partner_window,
            "swap_interval_min_s": input.swap_interval_min_s,
            "epoch_s": input.epoch_s,
            "swap_time_s": input.swap_time_s,
            "swap_erases": input.swap_erases,
        },
        "with_swaps": with_json,
        "without_swaps": run(false).1,
        "swap_bound": swap_bound_check(input, &with),
        "worst_case": worst_case_json(input),
        "device_scale": device_scale_json(input, capacity_scale),
    });
    serde_json::to_string_pretty(&v).expect("serializes")
}

/// The slides' worst case, "For an SSD with 5 years lifetime, swap once per 12 days can
/// guarantee the channels are well balanced for worst case": one vSSD does every erase on one
/// of the input's N swappable channels (N − 1 idle vSSDs), at the rate that wears every block
/// evenly in `life_s` (the ideal lifetime), swaps free and instantaneous (the slides'
/// equation has no cost), with the input's trigger, floor and epoch. The model's swaps to the
/// first wear-out, their mean and last interval (`None` without a trigger or < 2 swaps).
pub fn worst_case(input: &ModelInput, life_s: f64) -> Option<(ModelRun, SwapStats)> {
    let n = input.owner.iter().filter(|&&o| o != FIXED).count();
    if n < 2 || !input.swap_threshold.is_finite() {
        return None;
    }
    let blocks = input.blocks.iter().sum::<f64>() / input.blocks.len() as f64;
    let mut rate = vec![0.0; n];
    rate[0] = n as f64 * blocks * input.pe_cycles / life_s;
    let m = ModelInput {
        pe_cycles: input.pe_cycles,
        blocks: vec![blocks; n],
        wear_start: vec![0.0; n],
        rate_per_s: rate,
        owner: (0..n as u16).collect(),
        swap_threshold: input.swap_threshold,
        rate_window: input.rate_window,
        partner_window: input.partner_window,
        swap_interval_min_s: input.swap_interval_min_s,
        epoch_s: input.epoch_s,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    };
    let run = m.run(true, 10.0 * life_s);
    let stats = SwapStats::of(&run, 0.0);
    Some((run, stats))
}

/// The slides' lifetime of the worst case: "5 years", of 365 days.
pub const SLIDES_LIFE_S: f64 = 5.0 * 365.0 * 86_400.0;

/// The preset device's capacity over the run's, from a resolved scenario's `[device]`: the
/// preset's blocks per plane x pages per block over the run's (1 without a preset, or when a
/// key is missing). A channel swap moves a channel's data, so its time scales by this.
pub(crate) fn capacity_scale(resolved_toml: &str) -> f64 {
    let Ok(doc) = resolved_toml.parse::<toml::Table>() else { return 1.0 };
    let dev = doc.get("device");
    let get = |k: &str| dev.and_then(|d| d.get(k)).and_then(|v| v.as_integer()).map(|v| v as f64);
    let full = dev
        .and_then(|d| d.get("preset"))
        .and_then(|p| p.as_str())
        .and_then(crate::scenario::presets::preset)
        .and_then(|p| Some(p.blocks_per_plane? as f64 * p.pages_per_block? as f64));
    match (full, get("blocks_per_plane"), get("pages_per_block")) {
        (Some(full), Some(b), Some(p)) if b * p > 0.0 => full / (b * p),
        _ => 1.0,
    }
}

/// The model on the device's own time scale, as the slides state their numbers ("For an SSD
/// with 5 years lifetime"; "Channel migration takes 15 minutes, once per 19 days"): the run's
/// per-channel rates scaled by `rate_scale` so that the ideal lifetime (every block worn
/// evenly) is 5 years, each swap's time scaled by `capacity_scale` (the full device's
/// channel holds that much more data; the bandwidth is the same), its wear per block
/// unchanged, and no floor between swaps beyond their own time (the floor is the quick
/// form's, DESIGN §12). Run to the first wear-out. `None` without a swap rule or erases.
pub fn device_scale(input: &ModelInput, capacity_scale: f64) -> Option<(ModelInput, ModelRun, f64)> {
    let budget: f64 =
        input.blocks.iter().zip(&input.wear_start).map(|(b, w)| b * (input.pe_cycles - w).max(0.0)).sum();
    let rate: f64 = input.rate_per_s.iter().sum();
    if !(input.swap_threshold.is_finite() && rate > 0.0 && budget > 0.0) {
        return None;
    }
    let rate_scale = budget / rate / SLIDES_LIFE_S;
    let mut m = input.clone();
    m.rate_per_s.iter_mut().for_each(|r| *r *= rate_scale);
    m.swap_time_s *= capacity_scale;
    m.swap_interval_min_s = 0.0;
    let run = m.run(true, 10.0 * SLIDES_LIFE_S);
    Some((m, run, rate_scale))
}

fn device_scale_json(input: &ModelInput, capacity_scale: f64) -> Value {
    let Some((m, run, rate_scale)) = device_scale(input, capacity_scale) else { return Value::Null };
    let st = SwapStats::of(&run, m.swap_time_s);
    let day = |s: f64| s / 86_400.0;
    json!({
        "life_days_ideal": day(SLIDES_LIFE_S),
        "rate_scale": rate_scale,
        "capacity_scale": capacity_scale,
        "swap_minutes": m.swap_time_s / 60.0,
        "n_swaps": st.n_swaps,
        "swaps_capped": run.swap_times_s.len() >= SWAPS_MAX,
        "interval_days_mean": st.interval_s_mean.map(day),
        "interval_days_min": st.interval_s_min.map(day),
        "interval_days_max": st.interval_s_max.map(day),
        "swap_time_fraction": st.swap_time_fraction,
        "first_wear_out_days": run.first_wear_out_s.map(day),
        "lifetime_vs_ideal": run.first_wear_out_s.map(|s| s / SLIDES_LIFE_S),
        "imbalance": run.series.last().and_then(|p| wear_imbalance(&p.1)),
    })
}

fn worst_case_json(input: &ModelInput) -> Value {
    let Some((run, st)) = worst_case(input, SLIDES_LIFE_S) else { return Value::Null };
    let day = |s: f64| s / 86_400.0;
    let last = run.swap_times_s.windows(2).last().map(|w| day(w[1] - w[0]));
    json!({
        "life_days": day(SLIDES_LIFE_S),
        "n_channels": input.owner.iter().filter(|&&o| o != FIXED).count(),
        "swap_threshold": input.swap_threshold,
        "first_wear_out_days": run.first_wear_out_s.map(day),
        "n_swaps": st.n_swaps,
        "swaps_capped": run.swap_times_s.len() >= SWAPS_MAX,
        "interval_days_mean": st.interval_s_mean.map(day),
        "interval_days_last": last,
        "imbalance": run.series.last().and_then(|p| wear_imbalance(&p.1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slides_example_n16_x01() {
        // (16 − 1 − 0.1) / (16 · 0.1) = 14.9 / 1.6 = 9.3125; the slides print K = 9.
        let k = swap_rounds_bound(16, 0.1);
        assert!((k - 9.3125).abs() < 1e-12, "{k}");
        assert_eq!(k.floor(), 9.0, "the slides' 9 is the bound rounded down (or to nearest)");
        assert_eq!(k.round(), 9.0);
        assert_eq!(k.ceil(), 10.0, "the least integer K that meets the bound");
        // Read back through the imbalance: K = 9 gives 10 / 9.0625 = 1.1034 > 1.1 (misses the
        // target slightly), K = 10 gives 11 / 10.0625 = 1.0932 <= 1.1.
        assert!((imbalance_after_rounds(16, 9.0) - 10.0 / 9.0625).abs() < 1e-12);
        assert!(imbalance_after_rounds(16, 9.0) > 1.1 && imbalance_after_rounds(16, 10.0) <= 1.1);
        assert!((imbalance_after_rounds(16, k) - 1.1).abs() < 1e-12, "the real bound meets 1 + x exactly");
        // "swap NK times": 16 · 9 = 144 (the slides print 148); 5 years / 144 swaps = 12.7 days
        // (the slides: "once per 12 days").
        assert_eq!(16.0 * k.floor(), 144.0);
        assert_eq!((5.0 * 365.0 / 144.0f64).floor(), 12.0);
    }

    fn two_channels() -> ModelInput {
        ModelInput {
            pe_cycles: 100.0,
            blocks: vec![10.0, 10.0],
            wear_start: vec![0.0, 0.0],
            rate_per_s: vec![10.0, 0.0],
            owner: vec![0, 1],
            swap_threshold: 1.5,
            rate_window: RateWindow::SinceSwap,
            partner_window: RateWindow::Cumulative,
            swap_interval_min_s: 1.0,
            epoch_s: 0.5,
            swap_time_s: 0.0,
            swap_erases: 0.0,
        }
    }

    #[test]
    fn no_swaps_wears_the_hot_channel_at_its_rate() {
        // 10 erases/s over 10 blocks = 1 cycle/s: 100 cycles in 100 s.
        let r = two_channels().run(false, 1e9);
        assert_eq!(r.first_wear_out_s, Some(100.0));
        assert!(r.swap_times_s.is_empty());
    }

    #[test]
    fn free_swaps_every_second_double_the_lifetime() {
        // Swapping every 1 s at no cost alternates the load: each channel ages 0.5 cycles/s on
        // average, so wear-out comes at about 200 s (the hot channel of the last second leads
        // by at most 1 cycle: 199 s).
        let r = two_channels().run(true, 1e9);
        let t = r.first_wear_out_s.unwrap();
        assert!((199.0..=200.0).contains(&t), "{t}");
        assert!((198..=200).contains(&r.swap_times_s.len()), "{}", r.swap_times_s.len());
    }
}
