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

/// What the swap rule decides on one check (`decide`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Swap channel `hot` (the most worn) with `cool` (another vSSD's, lowest current rate);
    /// `imbalance` is the trigger's max / mean.
    Swap { hot: usize, cool: usize, imbalance: f64 },
    /// The trigger is met but the most-worn channel already has the lowest current rate of
    /// the candidates: nothing to gain until another channel passes it in wear.
    Wait { imbalance: f64 },
    /// The trigger is not met (max / mean at most the threshold, or nothing erased yet).
    Below { imbalance: f64 },
    /// No swap is possible: fewer than two swappable channels or a single vSSD holds them all.
    Never,
}

/// The slides' swap rule on plain numbers, per channel: `trigger` the erase counts (or rates)
/// over the trigger's window, `rate` the current erase rate of the load the channel holds,
/// `wear` its wear, `owner` its vSSD (`NO_OWNER`: not swappable). Over the swappable
/// channels: if max / mean of `trigger` exceeds `threshold`, "the channel that has incurred the
/// maximum wearout" (highest `wear`, lowest index on a tie) is paired with "the channel that
/// has the minimum rate of wearout" among the other vSSDs' (lowest `rate`, then `wear`, then
/// index), and swaps if its own rate is higher. The scheme and the lifetime model both decide
/// with this function.
pub fn decide(trigger: &[f64], rate: &[f64], wear: &[f64], owner: &[u16], threshold: f64) -> Decision {
    let sw: Vec<usize> = (0..owner.len()).filter(|&c| owner[c] != NO_OWNER).collect();
    let Some(&first) = sw.first() else { return Decision::Never };
    if sw.len() < 2 || sw.iter().all(|&c| owner[c] == owner[first]) {
        return Decision::Never;
    }
    let mean = sw.iter().map(|&c| trigger[c]).sum::<f64>() / sw.len() as f64;
    let max = sw.iter().map(|&c| trigger[c]).fold(0.0, f64::max);
    let imbalance = if mean > 0.0 { max / mean } else { 0.0 };
    if mean <= 0.0 || imbalance <= threshold {
        return Decision::Below { imbalance };
    }
    let hot =
        *sw.iter().max_by(|&&a, &&b| wear[a].total_cmp(&wear[b]).then(b.cmp(&a))).expect("two channels");
    let cool = sw
        .iter()
        .copied()
        .filter(|&c| owner[c] != owner[hot])
        .min_by(|&a, &b| rate[a].total_cmp(&rate[b]).then(wear[a].total_cmp(&wear[b])).then(a.cmp(&b)))
        .expect("another vSSD's channel");
    if rate[hot] > rate[cool] {
        Decision::Swap { hot, cool, imbalance }
    } else {
        Decision::Wait { imbalance }
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
