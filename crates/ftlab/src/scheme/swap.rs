//! Channel swaps by erase imbalance: the swap rule of a scheme that moves tenants' load
//! between channels (the FlashBlox slides' rule, run by `scheme::flashblox`), and what such a
//! scheme gives the fast-forward lifetime model (`metrics::lifetime_model`) through its
//! registry entry (`Capabilities::lifetime`): each channel's owner and load, and the rule's
//! parameters and measured costs. The rule is here, beside the registry, because the scheme
//! and the model both run it; it names no scheme.
//!
//! What this is not: it moves no data (the scheme pushes `Command::Migrate`) and advances no
//! wear (the model does).

use crate::error::FtlabError;
use serde::{Deserialize, Serialize};

/// The window of the erase rates the swap trigger compares (`rate_window`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateWindow {
    /// Erases since the run started (the device put in service after preconditioning) over
    /// the time since: each channel's mean erase rate so far. All channels share the window,
    /// so max / mean of the rates is max / mean of the erase counts since the start.
    #[default]
    Cumulative,
    /// Erases since the last swap ended (or the run started): the rate of the load each
    /// channel holds now. With a steady load this is constant, so the trigger fires at every
    /// check once the floor `swap_interval_min_s` has passed: the floor becomes the schedule.
    SinceSwap,
}

/// No channel vSSD holds the channel (it cannot be swapped).
pub const NO_OWNER: u16 = u16::MAX;

/// What the swap rule decides on one check (`SwapPolicy::decide`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Swap channel `hot` (the most worn) with `cool` (the partner, `SwapPolicy::partner_window`);
    /// `imbalance` is the trigger's max / mean now (before any projection).
    Swap { hot: usize, cool: usize, imbalance: f64 },
    /// The trigger is met but no partner's load wears the most-worn channel slower by the
    /// factor `threshold`: nothing to gain until another channel passes it in wear.
    Wait { imbalance: f64 },
    /// The trigger is not met (max / mean at most the threshold, or nothing erased yet).
    Below { imbalance: f64 },
    /// No swap is possible: fewer than two swappable channels or a single vSSD holds them all.
    Never,
}

/// Per channel, what the swap rule reads (all slices one entry per channel): `since_start` the
/// erases since the device was put in service (the run's start, after preconditioning),
/// `rate_now_per_s` the erase rate of the load the channel holds now (erases a second, since
/// the last swap ended), `wear` its wear (mean erase count, preconditioning included) and
/// `owner` its vSSD (`NO_OWNER`: not swappable).
#[derive(Clone, Copy, Debug)]
pub struct ChannelState<'a> {
    pub since_start: &'a [f64],
    pub rate_now_per_s: &'a [f64],
    pub wear: &'a [f64],
    pub owner: &'a [u16],
}

/// The slides' swap rule with the choices they leave open (docs/schemes/flashblox.md, "The
/// swap policy"): its knobs are `[scheme.flashblox]`'s (`FlashbloxConfig`), its costs the
/// scheme's measurements. The scheme and the lifetime model both decide with `decide`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwapPolicy {
    /// 1 + x: the wear-imbalance target (`swap_threshold`).
    pub threshold: f64,
    /// The trigger's window (`rate_window`): `Cumulative` compares the erases since service
    /// start (the wear imbalance), `SinceSwap` the current rates.
    pub window: RateWindow,
    /// Over which window "the channel that has the minimum rate of wearout" is measured
    /// (`partner_window`): `Cumulative` (the least worn since service start, among the channels
    /// whose load now wears slower than the most-worn's by the factor `threshold`), or
    /// `SinceSwap` (the lowest current rate: the reading before issue 40, which ping-pongs
    /// the hottest loads between the most-worn channels).
    pub partner_window: RateWindow,
    /// Seconds to the next check (the scheme's `epoch_s`): under `Cumulative` the trigger fires
    /// if the imbalance at the current rates would pass `threshold` by then.
    pub lookahead_s: f64,
    /// Erases one swap adds to each of its two channels (its migration's source erases; 0
    /// before one was measured): the trigger fires early enough for the swap's own wear.
    pub swap_erases: f64,
}

impl SwapPolicy {
    /// The rule on one check. Over the swappable channels: the trigger (`trigger_imbalance`);
    /// then the pair: "the channel that has incurred the maximum wearout" (highest `wear`,
    /// lowest index on a tie) and "the channel that has the minimum rate of wearout" among
    /// the other vSSDs' (`partner`). `Swap` if both exist, `Wait` if no partner.
    pub fn decide(&self, s: &ChannelState) -> Decision {
        let sw: Vec<usize> = (0..s.owner.len()).filter(|&c| s.owner[c] != NO_OWNER).collect();
        let Some(&first) = sw.first() else { return Decision::Never };
        if sw.len() < 2 || sw.iter().all(|&c| s.owner[c] == s.owner[first]) {
            return Decision::Never;
        }
        let (imbalance, fires) = self.trigger(s, &sw);
        if !fires {
            return Decision::Below { imbalance };
        }
        let hot = *sw
            .iter()
            .max_by(|&&a, &&b| s.wear[a].total_cmp(&s.wear[b]).then(b.cmp(&a)))
            .expect("two channels");
        match self.partner(s, &sw, hot) {
            Some(cool) => Decision::Swap { hot, cool, imbalance },
            None => Decision::Wait { imbalance },
        }
    }

    /// Max / mean of the trigger's counts now, and whether the trigger fires. `SinceSwap`:
    /// the current rates' max / mean exceeds `threshold`. `Cumulative`: the erases since
    /// service start projected to the next check at the current rates (p = e + r·lookahead),
    /// with one swap's erases on the most-worn and the mean's share of two, (max p + s) /
    /// (mean p + 2s/n), exceeds `threshold`: if waiting for the next check and then swapping
    /// would leave the imbalance above the target, the swap starts now.
    fn trigger(&self, s: &ChannelState, sw: &[usize]) -> (f64, bool) {
        let counts = match self.window {
            RateWindow::Cumulative => s.since_start,
            RateWindow::SinceSwap => s.rate_now_per_s,
        };
        let n = sw.len() as f64;
        let mean = sw.iter().map(|&c| counts[c]).sum::<f64>() / n;
        let max = sw.iter().map(|&c| counts[c]).fold(0.0, f64::max);
        let imbalance = if mean > 0.0 { max / mean } else { 0.0 };
        if mean <= 0.0 {
            return (imbalance, false);
        }
        if self.window == RateWindow::SinceSwap {
            return (imbalance, imbalance > self.threshold);
        }
        let p: Vec<f64> = sw.iter().map(|&c| counts[c] + s.rate_now_per_s[c] * self.lookahead_s).collect();
        let p_mean = p.iter().sum::<f64>() / n + 2.0 * self.swap_erases / n;
        let p_max = p.iter().copied().fold(0.0, f64::max) + self.swap_erases;
        (imbalance, p_max > self.threshold * p_mean)
    }

    /// The partner of `hot` among the other vSSDs' channels (`partner_window`). `Cumulative`:
    /// of those
    /// whose load now wears at most the swappable channels' mean rate (so that,
    /// once it holds that load, the most-worn channel's lead over the mean shrinks) and at
    /// most 1/`threshold` as fast as `hot`'s (a swap that gains less than the target's factor
    /// is not worth a migration, and equal loads are never swapped), the one with the fewest
    /// erases since service start (its rate of wearout since then is the lowest: all share
    /// the window), then the lowest current rate, then index. `SinceSwap`: the lowest current
    /// rate (then wear, then index), if below `hot`'s.
    fn partner(&self, s: &ChannelState, sw: &[usize], hot: usize) -> Option<usize> {
        let others = sw.iter().copied().filter(|&c| s.owner[c] != s.owner[hot]);
        let r = s.rate_now_per_s;
        let mean_rate = sw.iter().map(|&c| r[c]).sum::<f64>() / sw.len() as f64;
        match self.partner_window {
            RateWindow::Cumulative => others
                .filter(|&c| r[c] <= mean_rate && r[c] * self.threshold <= r[hot] && r[c] < r[hot])
                .min_by(|&a, &b| {
                    s.since_start[a].total_cmp(&s.since_start[b]).then(r[a].total_cmp(&r[b])).then(a.cmp(&b))
                }),
            RateWindow::SinceSwap => others
                .min_by(|&a, &b| r[a].total_cmp(&r[b]).then(s.wear[a].total_cmp(&s.wear[b])).then(a.cmp(&b)))
                .filter(|&c| r[hot] > r[c]),
        }
    }
}

/// Each channel's load as the lifetime model starts from it: the tenant holding it
/// (`NO_OWNER`: not swappable) and the erase rate of that load (erases a second over the
/// channel). The model fills it from the run's per-channel rates; a scheme's hook may replace
/// them with per-tenant ones.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelLoads {
    pub(crate) owner: Vec<u16>,
    pub(crate) rate_per_s: Vec<f64>,
}

/// The swap rule as the lifetime model runs it, from a run: the trigger's threshold
/// (infinite: no swaps), window, floor between checks and check interval, and each swap's
/// measured device time and erases added to each of its two channels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwapRule {
    pub(crate) threshold: f64,
    pub(crate) window: RateWindow,
    pub(crate) partner_window: RateWindow,
    pub(crate) interval_min_s: f64,
    pub(crate) epoch_s: f64,
    pub(crate) swap_time_s: f64,
    pub(crate) swap_erases: f64,
}

impl SwapRule {
    /// No swaps.
    pub(crate) const NONE: SwapRule = SwapRule {
        threshold: f64::INFINITY,
        window: RateWindow::Cumulative,
        partner_window: RateWindow::Cumulative,
        interval_min_s: 0.0,
        epoch_s: 0.0,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    };
}

/// A number of a run's summary.json at a key (an error naming the key when missing).
pub(crate) type Number<'a> = &'a dyn Fn(&serde_json::Value, &str) -> Result<f64, FtlabError>;

/// The lifetime model's hook of a scheme that swaps channels: from the scheme's entry of a
/// run's summary.json (`schemes.<name>`), the run's resolved scenario text and `number` (reads
/// a number of the entry, naming its key in errors), its channels' owners and loads (filled in
/// `loads`) and its swap rule.
pub(crate) type LifetimeHook = fn(
    run: &serde_json::Value,
    resolved_toml: &str,
    number: Number,
    loads: &mut ChannelLoads,
) -> Result<SwapRule, FtlabError>;
