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
    /// Swap channel `hot` with `cool` (the partner, `SwapPolicy::partner_window`); `imbalance`
    /// is the trigger's max / mean now (before any projection).
    Swap { hot: usize, cool: usize, imbalance: f64 },
    /// The trigger is met but no partner qualifies (a load slower by the factor `threshold`,
    /// on a channel the swap leaves room on): rechecked when one does
    /// (`SwapPolicy::next_change_s`).
    Wait { imbalance: f64 },
    /// The trigger is not met (no channel's wear reaches the target before the policy could
    /// act, or nothing erased yet); `imbalance` may exceed the threshold when the channels
    /// above it are falling back on their own.
    Below { imbalance: f64 },
    /// No swap is possible: fewer than two swappable channels or a single vSSD holds them all.
    Never,
}

/// Per channel, what the swap rule reads (all slices one entry per channel): `before_start`
/// the erases before the device was put in service (preconditioning), `since_start` the erases
/// since (the run's start), so that their sum is the channel's absolute wear in erases;
/// `rate_now_per_s` the erase rate of the load the channel holds now (erases a second, since
/// the last swap ended), `wear` its wear (mean erase count, preconditioning included) and
/// `owner` its vSSD (`NO_OWNER`: not swappable).
#[derive(Clone, Copy, Debug)]
pub struct ChannelState<'a> {
    pub before_start: &'a [f64],
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
    /// The trigger's window (`rate_window`): `Cumulative` compares the channels' absolute
    /// wear (all their erases, preconditioning included) against its deadlines, `SinceSwap`
    /// the current rates.
    pub window: RateWindow,
    /// Over which window "the channel that has the minimum rate of wearout" is measured
    /// (`partner_window`): `Cumulative` (the least worn, over the device's life, of the
    /// qualifying channels), or `SinceSwap` (the lowest current rate: the reading before issue
    /// 40, which ping-pongs the hottest loads between the most-worn channels).
    pub partner_window: RateWindow,
    /// Seconds to the next check (the scheme's `epoch_s`): under `Cumulative` the trigger fires
    /// if waiting that long would miss a deadline.
    pub lookahead_s: f64,
    /// Erases one swap adds to each of its two channels (its migration's source erases; 0
    /// before one was measured): the deadlines leave room for the swap's own wear.
    pub swap_erases: f64,
    /// Seconds the policy is blind after a swap starts: the swap's time plus the floor before
    /// the next check (`swap_interval_min_s`). Deadlines closer together than this are served
    /// earliest first, each one blind time after the one before.
    pub blind_s: f64,
}

/// The sums a `Cumulative` decision rests on, over the swappable channels `sw`: absolute
/// counts `a` (indexed by channel), their sum, the rates' sum and the count of channels.
struct Totals {
    a: Vec<f64>,
    sum_a: f64,
    sum_r: f64,
    n: f64,
}

impl Totals {
    fn of(s: &ChannelState, sw: &[usize]) -> Totals {
        let a: Vec<f64> = (0..s.owner.len()).map(|c| s.before_start[c] + s.since_start[c]).collect();
        let sum_a = sw.iter().map(|&c| a[c]).sum();
        let sum_r = sw.iter().map(|&c| s.rate_now_per_s[c]).sum();
        Totals { a, sum_a, sum_r, n: sw.len() as f64 }
    }
}

impl SwapPolicy {
    /// The rule on one check. Over the swappable channels: the trigger (`earliest` under
    /// `Cumulative`, `trigger_since_swap` under `SinceSwap`), which also names `hot`; then
    /// "the channel that has the minimum rate of wearout" among the other vSSDs'
    /// (`partner`). `Swap` if both exist, `Wait` if no partner.
    pub fn decide(&self, s: &ChannelState) -> Decision {
        let Some(sw) = swappable(s) else { return Decision::Never };
        let (imbalance, hot) = match self.window {
            RateWindow::SinceSwap => self.trigger_since_swap(s, &sw),
            RateWindow::Cumulative => {
                let t = Totals::of(s, &sw);
                let imbalance = max_over_mean(&t.a, &sw);
                let hot = self.earliest(s, &sw, &t).filter(|&(_, slack)| slack < self.lookahead_s);
                (imbalance, hot.map(|(c, _)| c))
            }
        };
        let Some(hot) = hot else { return Decision::Below { imbalance } };
        match self.partner(s, &sw, hot) {
            Some(cool) => Decision::Swap { hot, cool, imbalance },
            None => Decision::Wait { imbalance },
        }
    }

    /// `SinceSwap`: the current rates' max / mean, and the most-worn channel (highest `wear`,
    /// lowest index on a tie) if it exceeds `threshold`.
    fn trigger_since_swap(&self, s: &ChannelState, sw: &[usize]) -> (f64, Option<usize>) {
        let imbalance = max_over_mean(s.rate_now_per_s, sw);
        let hot = *sw
            .iter()
            .max_by(|&&a, &&b| s.wear[a].total_cmp(&s.wear[b]).then(b.cmp(&a)))
            .expect("two channels");
        (imbalance, (imbalance > self.threshold).then_some(hot))
    }

    /// `Cumulative`: each channel's deadline, and the earliest one with the slack of all of
    /// them. A channel's deadline d_i is when its absolute count a_i, with one swap's erases
    /// s on it (the swap that would relieve it), passes θ times the mean with the mean's share
    /// of that swap's erases on both its channels: a_i + r_i·d + s = θ·(A + R·d + 2s)/n (A, R
    /// the sums of the counts and the current rates, n channels). Rates are constant between
    /// swaps, so both sides are linear in d: a channel whose load wears at most θ times the
    /// mean rate (r_i ≤ θ·R/n) never passes, or falls back below on its own (the channel a
    /// swap just relieved), and needs no swap; a faster one passes at d_i (already passed:
    /// d_i < 0). After each swap the policy is blind for `blind_s` (B), so with the deadlines
    /// sorted the slack is min over k of d_(k) − (k − 1)·B (earliest deadline first). Returns
    /// (earliest channel, slack): the trigger fires when the slack is below `lookahead_s`
    /// (waiting for the next check would miss a deadline). Channels past their deadline are
    /// due now, the most worn first; then the lower index.
    fn earliest(&self, s: &ChannelState, sw: &[usize], t: &Totals) -> Option<(usize, f64)> {
        let (th, sw_e) = (self.threshold, self.swap_erases);
        let mut due: Vec<(f64, usize)> = sw
            .iter()
            .filter_map(|&c| {
                let num = th * (t.sum_a + 2.0 * sw_e) / t.n - t.a[c] - sw_e;
                let den = s.rate_now_per_s[c] - th * t.sum_r / t.n;
                (den > 0.0).then(|| (num / den, c))
            })
            .collect();
        due.sort_by(|x, y| {
            x.0.max(0.0).total_cmp(&y.0.max(0.0)).then(t.a[y.1].total_cmp(&t.a[x.1])).then(x.1.cmp(&y.1))
        });
        let slack = due
            .iter()
            .enumerate()
            .map(|(k, &(d, _))| d - k as f64 * self.blind_s)
            .fold(f64::INFINITY, f64::min);
        due.first().map(|&(_, c)| (c, slack))
    }

    /// The partner of `hot` among the other vSSDs' channels (`partner_window`). `Cumulative`:
    /// of those that qualify now (`room_in_s`), first those whose load wears at most θ times
    /// the mean rate (`hot`, holding it, never passes the target again: `earliest`; a faster
    /// one is taken only when none of those has room, and then `hot` is relieved again at its
    /// own deadline), then the least worn (absolute: its rate of wearout over the device's
    /// life is the lowest), then the lowest current rate, then index. Without the preference
    /// a hot channel took a load just above θ times the mean and passed the target again at
    /// once (1.1004-1.1011 on the reproduction's loads); without the faster partners,
    /// channels holding such loads were never swapped and pinned the others at the target
    /// (docs/schemes/flashblox.md). `SinceSwap`: the lowest current rate (then wear, then
    /// index), if below `hot`'s.
    fn partner(&self, s: &ChannelState, sw: &[usize], hot: usize) -> Option<usize> {
        let others = sw.iter().copied().filter(|&c| s.owner[c] != s.owner[hot]);
        let r = s.rate_now_per_s;
        match self.partner_window {
            RateWindow::Cumulative => {
                let t = Totals::of(s, sw);
                let fast = |c: usize| r[c] > self.threshold * t.sum_r / t.n;
                others.filter(|&c| self.room_in_s(s, &t, hot, c) == Some(0.0)).min_by(|&a, &b| {
                    fast(a)
                        .cmp(&fast(b))
                        .then(t.a[a].total_cmp(&t.a[b]))
                        .then(r[a].total_cmp(&r[b]))
                        .then(a.cmp(&b))
                })
            }
            RateWindow::SinceSwap => others
                .min_by(|&a, &b| r[a].total_cmp(&r[b]).then(s.wear[a].total_cmp(&s.wear[b])).then(a.cmp(&b)))
                .filter(|&c| r[hot] > r[c]),
        }
    }

    /// Seconds from now until channel `c` qualifies as `hot`'s partner under `Cumulative` at
    /// the current rates (0: now; `None`: not before the next swap). Its load must wear at
    /// most 1/`threshold` as fast as `hot`'s (a swap that gains less than the target's factor
    /// is not worth a migration, and equal loads are never swapped); and the swap must leave
    /// room on `c`: with this swap's erases and those of the one that will relieve
    /// it, c stays within θ times the mean with those four erases' share,
    /// a_c + 2s ≤ θ·(A + 4s)/n. The left side minus the right falls at θ·R/n − r_c, so a
    /// channel slower than that gains the room in time.
    fn room_in_s(&self, s: &ChannelState, t: &Totals, hot: usize, c: usize) -> Option<f64> {
        let r = s.rate_now_per_s;
        let (th, sw_e) = (self.threshold, self.swap_erases);
        if !(r[c] < r[hot] && r[c] * th <= r[hot]) {
            return None;
        }
        let over = t.a[c] + 2.0 * sw_e - th * (t.sum_a + 4.0 * sw_e) / t.n;
        if over <= 0.0 {
            return Some(0.0);
        }
        let gain = th * t.sum_r / t.n - r[c];
        (gain > 0.0).then(|| over / gain)
    }

    /// Under `Cumulative`, the seconds from now until this decision can change at the current
    /// rates (the lifetime model's next check; `None`: not before the next swap). Deadlines
    /// are fixed times between swaps, so `Below` lasts until the slack falls below
    /// `lookahead_s`; `Wait` until some channel qualifies as `hot`'s partner (`room_in_s`).
    pub fn next_change_s(&self, s: &ChannelState) -> Option<f64> {
        let sw = swappable(s)?;
        let t = Totals::of(s, &sw);
        let (hot, slack) = self.earliest(s, &sw, &t)?;
        if slack >= self.lookahead_s {
            return Some(slack - self.lookahead_s);
        }
        if self.partner_window == RateWindow::SinceSwap {
            return None;
        }
        sw.iter()
            .copied()
            .filter(|&c| s.owner[c] != s.owner[hot])
            .filter_map(|c| self.room_in_s(s, &t, hot, c))
            .min_by(f64::total_cmp)
    }
}

/// The swappable channels (`None`: fewer than two, or a single vSSD holds them all).
fn swappable(s: &ChannelState) -> Option<Vec<usize>> {
    let sw: Vec<usize> = (0..s.owner.len()).filter(|&c| s.owner[c] != NO_OWNER).collect();
    let first = *sw.first()?;
    (sw.len() >= 2 && !sw.iter().all(|&c| s.owner[c] == s.owner[first])).then_some(sw)
}

/// Max / mean of `v` over `sw` (0 when the mean is not positive).
fn max_over_mean(v: &[f64], sw: &[usize]) -> f64 {
    let mean = sw.iter().map(|&c| v[c]).sum::<f64>() / sw.len() as f64;
    let max = sw.iter().map(|&c| v[c]).fold(0.0, f64::max);
    if mean > 0.0 {
        max / mean
    } else {
        0.0
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
