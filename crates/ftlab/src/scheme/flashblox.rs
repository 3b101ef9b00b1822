//! `flashblox` (Huang et al., FAST'17; specification: the talk's slides,
//! `papers/flashblox-slides.txt`; docs/schemes/flashblox.md): each tenant is a vSSD that is
//! channel-isolated (whole channels of its own), die-isolated (dies of its own, which may share
//! channels with other die-isolated vSSDs) or software-isolated (all dies left over, shared,
//! isolated by the engine's fair-share scheduler: `ftl.scheduler = "fair"`, deficit round robin
//! over per-tenant queues at each die, see `sched`; the scheme refuses a software vSSD under
//! any other scheduler rather than change the setting; an optional per-tenant token bucket at
//! admission, `iops_max`, is off by default). Wear is balanced by swapping channels, fired by
//! the measured erase rates (the slides: "Using erase rate as the trigger condition for
//! swapping"): under `rate_window = "cumulative"`, when a channel whose load wears faster
//! than `swap_threshold` times the mean rate would otherwise carry its absolute wear
//! (preconditioning included) past `swap_threshold` times the mean before the policy could
//! next act (deadlines, earliest first; under `since_swap`, when max / mean of the current
//! rates exceeds it), that channel exchanges its data with a less-worn channel of another
//! vSSD that holds a slower load (`SwapPolicy::decide`, shared with the lifetime model),
//! through migration jobs (real reads and programs, rate-limited) while both vSSDs keep
//! serving I/O; the two vSSDs' channel assignments are exchanged when it starts, so new
//! writes already go to the new home; the leaving vSSD's open
//! blocks there are closed and migrated too, and what a swap leaves behind (open blocks, copies
//! with no room at home) is closed later, preferred by GC, and GC is started where it holds
//! writers up ("Left behind by a swap" in the docs). No swap schedule is an
//! input: the interval between swaps is what the trigger makes of the load. Wear leveling
//! inside a die is the engine's (dynamic and static), as before. Not the lifetime projection
//! (`metrics::lifetime`) nor the swap bound's arithmetic (`metrics::lifetime_model`).

use super::{
    parse_config, partitioned, to_table, Capabilities, Scheme, SchemeConfigError, SchemeContext, SchemeInfo,
};
use crate::error::{FtlabError, LifetimeError};
use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
use crate::flash::timing::Timing;
use crate::ftl::blocks::OWNER_NONE;
use crate::ftl::gc::VictimPolicy;
use crate::knobs::{check_all, config_fields, serde_defaults, Bounds, IntBounds, Knob, KnobKind};
use crate::policy::{Cause, Command, Counters, Dest, DeviceView, Interests, Invalidated, Migration};
use crate::sched::SchedulerKind;
use crate::scheme::swap::{ChannelLoads, Number, SwapRule};
pub use crate::scheme::swap::{ChannelState, Decision, RateWindow, SwapPolicy, NO_OWNER};
use crate::scheme::swap_log::{bandwidth_time_s, SwapLog, SwapRecord};
use crate::scheme::Admission;
use crate::sim::time::SimTime;
use crate::workload::IoOp;
use serde::{Deserialize, Serialize};

/// Knobs of `flashblox` (`[scheme.flashblox]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FlashbloxConfig {
    /// One vSSD per tenant, in scenario order. Empty (the default): every tenant
    /// channel-isolated, channels in proportion to namespace size.
    #[serde(default)]
    pub(crate) tenants: Vec<Vssd>,
    /// Interval at which erase rates are read and the swap trigger is checked, in seconds.
    /// Default 0.05; range (0, 3600].
    #[serde(default = "default_epoch_s")]
    pub(crate) epoch_s: f64,
    /// Swap channels for wear balance. Default true.
    #[serde(default = "default_true")]
    pub(crate) swaps: bool,
    /// The wear-imbalance target 1 + x: under `cumulative` the trigger keeps max / mean of
    /// the channel-isolated channels' absolute wear within it (`SwapPolicy`); under
    /// `since_swap` a swap starts when max / mean of the current rates exceeds it. Default
    /// 1.1: the slides' target with their x = 0.1; range [1, 1000].
    #[serde(default = "default_threshold")]
    pub(crate) swap_threshold: f64,
    /// What the trigger compares: `cumulative` (default; each channel's absolute wear, its
    /// erases before the run and since, with the rate of the load it holds now to find when
    /// it would pass the target) or `since_swap` (the current rates alone, since the last swap
    /// ended). The slides say "erase rate" and no window; ours, docs/schemes/flashblox.md.
    #[serde(default)]
    pub(crate) rate_window: RateWindow,
    /// The window over which "the channel that has the minimum rate of wearout" (the swap's
    /// partner) is measured: `cumulative` (default; over the device's life: the least-worn
    /// channel, among the other vSSDs' channels whose load now wears at most 1/`swap_threshold`
    /// as fast as the relieved channel's and that the swap leaves room on, slow loads first;
    /// `SwapPolicy`) or `since_swap` (the lowest
    /// current rate: the reading before issue 40, which sends the hottest loads back and
    /// forth between the most-worn channels). Ours, docs/schemes/flashblox.md.
    #[serde(default)]
    pub(crate) partner_window: RateWindow,
    /// Least time between the end of a swap and the next trigger check (and the shortest
    /// window the current erase rates are measured over), in seconds: a floor, not a schedule.
    /// Default 1.0; range [0, 10^7].
    #[serde(default = "default_interval")]
    pub(crate) swap_interval_min_s: f64,
    /// Page reads in flight per migrating die (the migration's rate limit). Default 4;
    /// range [1, 1024].
    #[serde(default = "default_reads_in_flight")]
    pub(crate) swap_reads_in_flight_max: u32,
}

/// One tenant's vSSD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum Vssd {
    /// `channels` whole channels of its own (hardware isolation; swappable).
    Channel { channels: u32 },
    /// `dies` dies of its own, taken from the channels no channel vSSD holds, spread over
    /// channels (channel-first order). Left out: the die vSSDs without it share the dies left
    /// in proportion to their namespaces (`fill_die_counts`), so they follow the device.
    Die {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dies: Option<u32>,
    },
    /// The dies nobody else holds, shared by every software vSSD; isolated by the fair-share
    /// scheduler (`ftl.scheduler = "fair"`, required), and optionally also by a token bucket at
    /// admission: at most `iops_max` requests a second (default 0 = unlimited, no bucket),
    /// bursts of `burst` requests.
    Software {
        #[serde(default)]
        iops_max: f64,
        #[serde(default = "default_burst")]
        burst: u32,
    },
}

fn default_epoch_s() -> f64 {
    0.05
}
fn default_true() -> bool {
    true
}
fn default_threshold() -> f64 {
    1.1
}
fn default_interval() -> f64 {
    1.0
}
fn default_reads_in_flight() -> u32 {
    4
}
fn default_burst() -> u32 {
    8
}

/// A swap in progress: its start and its record (pair, data moved, erases) so far.
#[derive(Clone, Copy, Debug)]
struct Swap {
    start: SimTime,
    rec: SwapRecord,
}

pub(crate) struct Flashblox {
    config: FlashbloxConfig,
    g: Geometry,
    timing: Timing,
    /// The completed swaps (`swap_log`), and the erases of blocks swaps listed.
    log: SwapLog,
    n_swap_erases: u64,
    /// Per tenant: the dies it writes, and the next one (round-robin).
    dies: Vec<Vec<DieIdx>>,
    next: Vec<usize>,
    /// `home[t * n_dies + d]`: die `d` is tenant `t`'s.
    home: Vec<bool>,
    /// Per channel: the channel vSSD holding it, or `NO_OWNER`.
    channel_owner: Vec<u16>,
    /// Host units each tenant wrote, and host and GC units it programmed, since `window_start`
    /// (the last swap's end, or the run's start): the current rate of wearout of the load it
    /// brings to its channels (`current_rates`).
    window_host_units: Vec<u64>,
    window_units: Vec<u64>,
    window_start: SimTime,
    /// Erases per channel since the run started (the `cumulative` window).
    total_erases: Vec<u64>,
    /// Erases per channel before the run started (preconditioning): with `total_erases`, the
    /// channel's absolute wear, which the `cumulative` trigger compares.
    erases_before_start: Vec<f64>,
    /// The trigger's max / mean at its last check (0 before any check).
    trigger_imbalance_last: f64,
    swap: Option<Swap>,
    /// Per block: listed by the swap in progress and not erased since.
    in_swap: Vec<bool>,
    pending_blocks: u64,
    /// Per die: it may hold a block of a tenant whose home it is not (left there by a swap,
    /// or by a copy that had no room at home): the dies `close_left_open` and
    /// `left_behind_victim` look at. Cleared when a look finds none.
    foreign: Vec<bool>,
    n_blocks_closed: u64,
    // Counters.
    n_swaps: u64,
    n_swaps_completed: u64,
    swap_time_ns: u64,
    swap_units_moved: u64,
    swap_blocks: u64,
    /// Start of the first and of the last swap (the measured interval between swaps), and of
    /// the run (they are reported from it).
    run_start: SimTime,
    swap_start_first: Option<SimTime>,
    swap_start_last: Option<SimTime>,
    /// Token buckets of software vSSDs: tokens and the time they were counted.
    tokens: Vec<f64>,
    tokens_at: Vec<SimTime>,
    n_deferrals: u64,
}

pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    let mut config: FlashbloxConfig = parse_config(table)?;
    check_knobs(&config)?;
    let g = *ctx.geometry;
    let n = ctx.namespace_units.len();
    if config.tenants.is_empty() {
        let shares = partitioned::proportional_shares(ctx.namespace_units, g.channels)
            .map_err(|e| SchemeConfigError::new("tenants", e.reason))?;
        config.tenants = shares.into_iter().map(|channels| Vssd::Channel { channels }).collect();
    }
    if config.tenants.len() != n {
        return Err(SchemeConfigError::new(
            "tenants",
            format!("must list one vSSD per tenant ({n}), got {}", config.tenants.len()),
        ));
    }
    // Software vSSDs share dies and are isolated by the engine's fair-share scheduler; the
    // scheme does not change the engine's setting behind the user's back.
    if let Some(i) = config.tenants.iter().position(|v| matches!(v, Vssd::Software { .. })) {
        if ctx.scheduler != SchedulerKind::Fair {
            let got = serde_json::to_value(ctx.scheduler)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            return Err(SchemeConfigError::new(
                format!("tenants.{i}"),
                format!(
                    "a software-isolated vSSD is isolated by the fair-share scheduler: set ftl.scheduler = \
                     \"fair\" (it is \"{got}\")"
                ),
            ));
        }
    }
    fill_die_counts(&g, &mut config.tenants, ctx.namespace_units)?;
    let (dies, channel_owner) = allocate(&g, &config.tenants)?;
    check_capacity(&g, &config.tenants, &dies, ctx)?;
    let n_dies = g.n_dies as usize;
    let mut home = vec![false; n * n_dies];
    for (t, set) in dies.iter().enumerate() {
        for d in set {
            home[t * n_dies + d.0 as usize] = true;
        }
    }
    Ok(Box::new(Flashblox {
        g,
        timing: ctx.timing,
        log: SwapLog::default(),
        n_swap_erases: 0,
        next: vec![0; n],
        dies,
        home,
        channel_owner,
        window_host_units: vec![0; n],
        window_units: vec![0; n],
        window_start: SimTime::ZERO,
        total_erases: vec![0; g.channels as usize],
        erases_before_start: vec![0.0; g.channels as usize],
        trigger_imbalance_last: 0.0,
        swap: None,
        in_swap: vec![false; g.n_blocks as usize],
        pending_blocks: 0,
        foreign: vec![false; g.n_dies as usize],
        n_blocks_closed: 0,
        n_swaps: 0,
        n_swaps_completed: 0,
        swap_time_ns: 0,
        swap_units_moved: 0,
        swap_blocks: 0,
        run_start: SimTime::ZERO,
        swap_start_first: None,
        swap_start_last: None,
        tokens: config
            .tenants
            .iter()
            .map(|v| if let Vssd::Software { burst, .. } = v { *burst as f64 } else { 0.0 })
            .collect(),
        tokens_at: vec![SimTime::ZERO; n],
        n_deferrals: 0,
        config,
    }))
}

/// The fields of one vSSD in `tenants` (`kind` picks which apply).
const VSSD_KNOBS: &[Knob] = &[
    Knob::new(
        "kind",
        "",
        KnobKind::Choice(&["channel", "die", "software"]),
        "Hardware (whole channels), die, or software (shared dies, fair scheduler) isolation.",
    ),
    Knob::new("channels", "channels", KnobKind::Int(IntBounds::ANY), "channel: whole channels of its own.")
        .also("in [1, channels left]"),
    Knob::new(
        "dies",
        "dies",
        KnobKind::Int(IntBounds::ANY),
        "die: dies of its own on the channels no channel vSSD holds.",
    )
    .also("in [1, dies left]; left out: the dies left in proportion to namespace size"),
    Knob::new(
        "iops_max",
        "requests/s",
        KnobKind::Float(Bounds::closed(0.0, 1e9)),
        "software: token bucket rate at admission (0 = no bucket).",
    ),
    Knob::new(
        "burst",
        "requests",
        KnobKind::Int(IntBounds::new(1, 1_000_000)),
        "software: token bucket depth.",
    ),
];

/// The knobs of `flashblox`: the ranges `check_knobs` enforces and `ftlab schemes` lists.
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "tenants",
        "",
        KnobKind::Tables(VSSD_KNOBS),
        "One vSSD per tenant, in scenario order; empty = channel-isolated, channels in proportion to \
         namespace size.",
    )
    .also("one per tenant; software vSSDs need ftl.scheduler = \"fair\""),
    Knob::new(
        "epoch_s",
        "s",
        KnobKind::Float(Bounds::open_lo(0.0, 3600.0)),
        "Interval at which erase rates are read and the swap trigger checked.",
    ),
    Knob::new("swaps", "", KnobKind::Bool, "Swap channels for wear balance."),
    Knob::new(
        "swap_threshold",
        "",
        KnobKind::Float(Bounds::closed(1.0, 1000.0)),
        "The wear-imbalance target the swaps keep (max / mean of the channels' wear; slides: 1 + x).",
    ),
    Knob::new(
        "rate_window",
        "",
        KnobKind::Choice(&["cumulative", "since_swap"]),
        "What the trigger compares: the channels' whole wear and current rates, or the rates since \
         the last swap.",
    ),
    Knob::new(
        "partner_window",
        "",
        KnobKind::Choice(&["cumulative", "since_swap"]),
        "Window of the swap partner's \"minimum rate of wearout\": the device's life (the least \
         worn), or since the last swap.",
    ),
    Knob::new(
        "swap_interval_min_s",
        "s",
        KnobKind::Float(Bounds::closed(0.0, 1e7)),
        "Least time between the end of a swap and the next trigger check (a floor).",
    ),
    Knob::new(
        "swap_reads_in_flight_max",
        "pages",
        KnobKind::Int(IntBounds::new(1, 1024)),
        "Page reads in flight per migrating die (the swap's rate limit).",
    ),
];

/// `flashblox`'s registry entry.
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "flashblox",
    summary: "FlashBlox (FAST '17): channel-, die- or software-isolated vSSDs, channel swaps for wear \
              balance.",
    knobs: KNOBS,
    fields: config_fields::<FlashbloxConfig>,
    defaults: serde_defaults::<FlashbloxConfig>,
    build,
    caps: Capabilities { lifetime: Some(lifetime_setup), ..Capabilities::labelled("FlashBlox") },
};

fn check_knobs(c: &FlashbloxConfig) -> Result<(), SchemeConfigError> {
    check_all(KNOBS, c)
}

/// Dies per tenant and the channel vSSD of each channel: channel vSSDs take consecutive
/// channels from channel 0; die vSSDs take dies of the remaining channels in channel-first
/// order; software vSSDs share every die left. Errors name the tenant's key.
pub(crate) fn allocate(
    g: &Geometry,
    vssds: &[Vssd],
) -> Result<(Vec<Vec<DieIdx>>, Vec<u16>), SchemeConfigError> {
    let mut channel_owner = vec![NO_OWNER; g.channels as usize];
    let mut sets = vec![Vec::new(); vssds.len()];
    let mut next_channel = 0u32;
    for (t, v) in vssds.iter().enumerate() {
        if let Vssd::Channel { channels } = *v {
            let left = g.channels - next_channel;
            if channels == 0 || channels > left {
                return Err(SchemeConfigError::new(
                    format!("tenants.{t}.channels"),
                    format!(
                        "must be in [1, {left}]: the device has {} channels and the vSSDs before it hold \
                         {next_channel}; got {channels}",
                        g.channels
                    ),
                ));
            }
            for c in next_channel..next_channel + channels {
                channel_owner[c as usize] = t as u16;
            }
            sets[t] = g
                .dies_channel_first()
                .into_iter()
                .filter(|&d| (next_channel..next_channel + channels).contains(&g.channel_of(d)))
                .collect();
            next_channel += channels;
        }
    }
    let mut free: Vec<DieIdx> =
        g.dies_channel_first().into_iter().filter(|&d| g.channel_of(d) >= next_channel).collect();
    for (t, v) in vssds.iter().enumerate() {
        if let Vssd::Die { dies } = *v {
            let dies = dies.expect("filled by fill_die_counts");
            let left = free.len() as u32;
            if dies == 0 || dies > left {
                return Err(SchemeConfigError::new(
                    format!("tenants.{t}.dies"),
                    format!(
                        "must be in [1, {left}]: {left} dies are left on the channels no channel-isolated \
                         vSSD holds (and no die-isolated vSSD before it took); got {dies}"
                    ),
                ));
            }
            sets[t] = free.drain(..dies as usize).collect();
        }
    }
    for (t, v) in vssds.iter().enumerate() {
        if let Vssd::Software { .. } = v {
            if free.is_empty() {
                return Err(SchemeConfigError::new(
                    format!("tenants.{t}.kind"),
                    "a software-isolated vSSD shares the dies no channel- or die-isolated vSSD holds, and \
                     none are left; give those fewer channels or dies",
                ));
            }
            sets[t] = free.clone();
        }
    }
    Ok((sets, channel_owner))
}

/// Die vSSDs that leave out `dies` get the dies left (on the channels no channel vSSD holds,
/// after the die vSSDs that set it) in proportion to their namespaces: largest remainder, at
/// least one each (`partitioned::proportional_shares`). E.g. namespaces of 1/4, 1/4 and 1/2
/// on 8 dies: 2, 2 and 4 dies; on 16 dies: 4, 4 and 8.
fn fill_die_counts(
    g: &Geometry,
    vssds: &mut [Vssd],
    namespace_units: &[u32],
) -> Result<(), SchemeConfigError> {
    let open: Vec<usize> =
        (0..vssds.len()).filter(|&t| matches!(vssds[t], Vssd::Die { dies: None })).collect();
    let Some(&first) = open.first() else { return Ok(()) };
    let channels: u32 =
        vssds.iter().map(|v| if let Vssd::Channel { channels } = *v { channels } else { 0 }).sum();
    let set: u32 = vssds.iter().map(|v| if let Vssd::Die { dies: Some(d) } = *v { d } else { 0 }).sum();
    let left =
        (g.channels.saturating_sub(channels) * g.chips_per_channel * g.dies_per_chip).saturating_sub(set);
    let ns: Vec<u32> = open.iter().map(|&t| namespace_units[t]).collect();
    let shares = partitioned::proportional_shares(&ns, left).map_err(|_| {
        SchemeConfigError::new(
            format!("tenants.{first}.dies"),
            format!(
                "{} die vSSDs leave out dies, but only {left} dies are left for them (on the channels no \
                 channel vSSD holds, after the dies set): set it",
                open.len()
            ),
        )
    })?;
    for (&t, d) in open.iter().zip(shares) {
        vssds[t] = Vssd::Die { dies: Some(d) };
    }
    Ok(())
}

/// Each dedicated vSSD's namespace fits its dies' logical capacity; the software vSSDs'
/// namespaces together fit their shared dies'.
fn check_capacity(
    g: &Geometry,
    vssds: &[Vssd],
    sets: &[Vec<DieIdx>],
    ctx: &SchemeContext,
) -> Result<(), SchemeConfigError> {
    let logical = |n_dies: usize| {
        (n_dies as f64 * g.blocks_per_die as f64 * g.units_per_block as f64 / (1.0 + ctx.over_provisioning))
            .floor() as u64
    };
    let mut software = (0u64, 0usize, None);
    for (t, v) in vssds.iter().enumerate() {
        let need = ctx.namespace_units[t] as u64;
        if let Vssd::Software { .. } = v {
            software = (software.0 + need, sets[t].len(), Some(software.2.unwrap_or(t)));
            continue;
        }
        let have = logical(sets[t].len());
        if need > have {
            let key = if matches!(v, Vssd::Channel { .. }) { "channels" } else { "dies" };
            return Err(SchemeConfigError::new(
                format!("tenants.{t}.{key}"),
                format!(
                    "tenant {t}'s namespace ({need} units) exceeds the logical capacity of its {} dies \
                     ({have} units at {:.1}% over-provisioning)",
                    sets[t].len(),
                    ctx.over_provisioning * 100.0
                ),
            ));
        }
    }
    if let (need, n_dies, Some(t)) = software {
        if need > logical(n_dies) {
            return Err(SchemeConfigError::new(
                format!("tenants.{t}.kind"),
                format!(
                    "the software-isolated vSSDs' namespaces ({need} units) exceed the logical capacity of \
                     their {n_dies} shared dies ({} units)",
                    logical(n_dies)
                ),
            ));
        }
    }
    Ok(())
}

impl Flashblox {
    fn is_home(&self, t: u16, die: DieIdx) -> bool {
        self.home[t as usize * self.g.n_dies as usize + die.0 as usize]
    }

    fn channel_dies(&self, c: u32) -> Vec<DieIdx> {
        self.g.dies_channel_first().into_iter().filter(|&d| self.g.channel_of(d) == c).collect()
    }

    /// Mean erase count of the blocks of channel `c` (its wear so far).
    fn channel_wear(&self, c: u32, view: &DeviceView) -> f64 {
        let info = &view.ftl.blocks().info;
        let dies = self.channel_dies(c);
        let sum: u64 = dies
            .iter()
            .flat_map(|&d| self.g.blocks_of_die(d))
            .map(|b| info[b as usize].erase_count as u64)
            .sum();
        sum as f64 / (dies.len() as f64 * self.g.blocks_per_die as f64)
    }

    /// The swap policy of `[scheme.flashblox]`: the check interval as the trigger's lookahead,
    /// each swap's erases the mean of those measured so far (0 before the first swap).
    fn policy(&self) -> SwapPolicy {
        SwapPolicy {
            threshold: self.config.swap_threshold,
            window: self.config.rate_window,
            partner_window: self.config.partner_window,
            lookahead_s: self.config.epoch_s,
            swap_erases: if self.n_swaps > 0 {
                self.swap_blocks as f64 / self.n_swaps as f64 / 2.0
            } else {
                0.0
            },
            blind_s: self.swap_time_mean_s() + self.config.swap_interval_min_s,
        }
    }

    /// The mean device time of the swaps completed so far (0 before one).
    fn swap_time_mean_s(&self) -> f64 {
        if self.n_swaps_completed > 0 {
            self.swap_time_ns as f64 / 1e9 / self.n_swaps_completed as f64
        } else {
            0.0
        }
    }

    /// The swap rule (`SwapPolicy::decide`) on the measured erase counts since the run
    /// started, the current rates (`current_rates`) and wear, the channel's mean erase count.
    /// Per channel, the erase rate of the load it holds now, in blocks a second: its vSSD's
    /// units programmed (host writes and GC copies) since the last swap ended, in blocks (a
    /// block is erased once per `units_per_block` units programmed into it), spread evenly
    /// over the vSSD's channels, over `secs`; 0 for a vSSD that wrote nothing since (a
    /// read-only load: its GC of blocks a swap left behind is not its load), and for a channel
    /// no channel vSSD holds. Not the channels' erases since the swap: right after one those
    /// are mostly the departed vSSD's (its closed and left-behind blocks collected there).
    fn current_rates(&self, secs: f64) -> Vec<f64> {
        let owner = &self.channel_owner;
        let held = |t: u16| owner.iter().filter(|&&o| o == t).count() as f64;
        owner
            .iter()
            .map(|&t| {
                if t == NO_OWNER {
                    return 0.0;
                }
                let t = t as usize;
                if self.window_host_units[t] == 0 {
                    return 0.0;
                }
                let blocks = self.window_units[t] as f64 / self.g.units_per_block as f64;
                blocks / held(t as u16) / secs
            })
            .collect()
    }

    fn swap_decision(&self, view: &DeviceView) -> Decision {
        let n = self.g.channels as usize;
        let owner = &self.channel_owner;
        let secs = view.now.saturating_sub(self.window_start).as_secs_f64().max(1e-9);
        let rate = self.current_rates(secs);
        let since_start: Vec<f64> = self.total_erases.iter().map(|&e| e as f64).collect();
        let policy = self.policy();
        // Whether the trigger fires does not depend on wear: read the blocks' erase counts only
        // when it does (most checks are below it).
        let zero = vec![0.0; n];
        let pre = &self.erases_before_start;
        let first = policy.decide(&ChannelState {
            before_start: pre,
            since_start: &since_start,
            rate_now_per_s: &rate,
            wear: &zero,
            owner,
        });
        if matches!(first, Decision::Below { .. } | Decision::Never) {
            return first;
        }
        let wear: Vec<f64> = (0..n as u32)
            .map(|c| if owner[c as usize] == NO_OWNER { 0.0 } else { self.channel_wear(c, view) })
            .collect();
        policy.decide(&ChannelState {
            before_start: pre,
            since_start: &since_start,
            rate_now_per_s: &rate,
            wear: &wear,
            owner,
        })
    }

    /// Tenant `t`'s dies and home from the channels it holds now (`channel_owner`).
    fn rehome(&mut self, t: u16) {
        let mine: Vec<u32> = (0..self.g.channels).filter(|&c| self.channel_owner[c as usize] == t).collect();
        self.dies[t as usize] = self
            .g
            .dies_channel_first()
            .into_iter()
            .filter(|d| mine.contains(&self.g.channel_of(*d)))
            .collect();
        self.next[t as usize] = 0;
        let n_dies = self.g.n_dies as usize;
        let row = &mut self.home[t as usize * n_dies..(t as usize + 1) * n_dies];
        row.fill(false);
        for d in &self.dies[t as usize] {
            row[d.0 as usize] = true;
        }
    }

    /// Exchange channels `hot` and `cool` between their vSSDs and migrate each one's data to
    /// its new home: one migration per source die, to the dies of the other channel. Its open
    /// blocks there are closed first (those with a program still in flight later, by
    /// `close_left_open`), so the migration carries their data too.
    fn start_swap(
        &mut self,
        hot: u32,
        cool: u32,
        imbalance: f64,
        view: &DeviceView,
        cmds: &mut Vec<Command>,
    ) {
        let (a, b) = (self.channel_owner[hot as usize], self.channel_owner[cool as usize]);
        self.channel_owner.swap(hot as usize, cool as usize);
        self.rehome(a);
        self.rehome(b);
        // Closes go first: the migrations' copies must not land in a block being closed.
        let mut migrations = Vec::new();
        let mut rec = SwapRecord {
            start_s: view.now.saturating_sub(self.run_start).as_secs_f64(),
            hot,
            cool,
            tenant_hot: a,
            imbalance_before: imbalance,
            ..SwapRecord::default()
        };
        for (from, to, owner) in [(hot, cool, a), (cool, hot, b)] {
            let dest = self.channel_dies(to);
            for die in self.channel_dies(from) {
                self.foreign[die.0 as usize] = true;
                let blocks = self.swap_sources(die, owner, view, cmds);
                for blk in &blocks {
                    self.in_swap[blk.0 as usize] = true;
                }
                self.pending_blocks += blocks.len() as u64;
                self.swap_blocks += blocks.len() as u64;
                if from == hot {
                    rec.blocks_from_hot += blocks.len() as u64;
                } else {
                    rec.blocks_from_cool += blocks.len() as u64;
                }
                if !blocks.is_empty() {
                    let reads_in_flight_max = self.config.swap_reads_in_flight_max;
                    migrations.push(Command::Migrate(Migration {
                        blocks,
                        dest: Dest::Dies(dest.clone()),
                        erase_sources: true,
                        reads_in_flight_max,
                        deadline: SimTime::MAX,
                    }));
                }
            }
        }
        cmds.append(&mut migrations);
        self.n_swaps += 1;
        self.swap_start_first.get_or_insert(view.now);
        self.swap_start_last = Some(view.now);
        self.swap = Some(Swap { start: view.now, rec });
        if self.pending_blocks == 0 {
            self.end_swap(view.now);
        }
    }

    /// The blocks of `owner` on `die` (a die it leaves) that a swap migrates: its full blocks
    /// with valid data, and its open blocks with valid data. It closes (pushes
    /// `Command::CloseBlock` for) every open block of `owner` there with no program in flight;
    /// closed with no valid data, a block is GC's at no cost.
    fn swap_sources(
        &mut self,
        die: DieIdx,
        owner: u16,
        view: &DeviceView,
        cmds: &mut Vec<Command>,
    ) -> Vec<BlockIdx> {
        let mut blocks = Vec::new();
        for blk in self.g.blocks_of_die(die).map(BlockIdx) {
            let i = view.ftl.blocks().get(blk);
            if i.owner != owner {
                continue;
            }
            let listed = if view.ftl.is_closable(blk) {
                cmds.push(Command::CloseBlock { block: blk });
                self.n_blocks_closed += 1;
                true
            } else {
                view.ftl.is_collectable(blk)
            };
            if listed && i.valid_units > 0 {
                blocks.push(blk);
            }
        }
        blocks
    }

    /// On each `foreign`-marked die short of room (fewer than 2 free blocks above the host
    /// reserve), close every open block of a tenant whose home the die is not (the
    /// frontiers a swap left behind, or a copy that had no room at home opened) whose
    /// programs have all completed and whose tenant's home has room for its data
    /// (`home_has_room`): nobody will fill them, and open they hold space GC cannot reclaim.
    /// Closed, they are ordinary victims (`left_behind_victim` prefers them). Without room
    /// at home the block stays open: closed, its data could only come back onto this die,
    /// block after block (GC would copy it in circles). On a die with room they stay open
    /// too: closing gives up their unwritten pages, worth it only when the die needs them
    /// (closing at every check, the long run of `tests/lifetime_model.rs` at seed 7 closed
    /// 160 blocks, each erased early; closing only here, 70).
    /// A die is unmarked once it holds no block of a tenant whose home it is not. Returns
    /// whether it closed any.
    fn close_left_open(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) -> bool {
        let mut closed = false;
        for d in 0..self.g.n_dies {
            if !self.foreign[d as usize] {
                continue;
            }
            let mut left = false;
            let short = view.ftl.blocks().free_count(DieIdx(d)) <= view.ftl.params.host_reserve_blocks + 1;
            for blk in self.g.blocks_of_die(DieIdx(d)).map(BlockIdx) {
                let i = view.ftl.blocks().get(blk);
                if i.owner == OWNER_NONE || self.is_home(i.owner, DieIdx(d)) {
                    continue;
                }
                left = true;
                if short && view.ftl.is_closable(blk) && self.home_has_room(i.owner, DieIdx(d), view) {
                    cmds.push(Command::CloseBlock { block: blk });
                    self.n_blocks_closed += 1;
                    closed = true;
                }
            }
            self.foreign[d as usize] = left;
        }
        closed
    }

    /// The collectable block on `die` of a tenant whose home `die` is not and whose home has
    /// room for its copies (a die above the host reserve, as `gc_write_die` asks), fewest
    /// valid units first: collecting it frees a whole block here, its copies leave the die.
    fn left_behind_victim(&self, die: DieIdx, view: &DeviceView) -> Option<BlockIdx> {
        if !self.foreign[die.0 as usize] {
            return None;
        }
        self.g
            .blocks_of_die(die)
            .map(BlockIdx)
            .filter(|&blk| {
                let i = view.ftl.blocks().get(blk);
                i.owner != OWNER_NONE
                    && !self.is_home(i.owner, die)
                    && view.ftl.is_collectable(blk)
                    && self.home_has_room(i.owner, die, view)
            })
            .min_by_key(|&blk| view.ftl.blocks().get(blk).valid_units)
    }

    /// Start GC where blocks left behind block writers: on each `foreign`-marked die down to
    /// the host reserve (its writers wait) that holds a collectable block of a tenant whose
    /// home it is not. If that tenant's home has room (`home_has_room`), on the die itself
    /// (`gc_victim` takes the block, its copies go home); if not, on the home's dies short of
    /// that room, to make it. A die's GC starts only on its own events (a write short of space,
    /// the die going idle), and such a die may have none: its writers wait, and the home's
    /// dies may be idle while the data they hold dies by overwrites elsewhere (a left-behind
    /// copy's new version is written at home). One block's page reads each; once started,
    /// the engine's own rules keep GC going (a die short of space runs it to the end).
    fn start_stuck_gc(&self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let reserve = view.ftl.params.host_reserve_blocks;
        let pages = self.g.pages_per_block;
        let mut poked = vec![false; self.g.n_dies as usize];
        let mut poke = |d: DieIdx, cmds: &mut Vec<Command>| {
            if !std::mem::replace(&mut poked[d.0 as usize], true) {
                cmds.push(Command::StepGc { die: d, pages });
            }
        };
        for d in (0..self.g.n_dies).map(DieIdx) {
            if !self.foreign[d.0 as usize] || view.ftl.blocks().free_count(d) > reserve {
                continue;
            }
            let mut owners = vec![false; self.dies.len()];
            for blk in self.g.blocks_of_die(d).map(BlockIdx) {
                let t = view.ftl.blocks().get(blk).owner;
                if t != OWNER_NONE && !self.is_home(t, d) && view.ftl.is_collectable(blk) {
                    owners[t as usize] = true;
                }
            }
            for t in (0..owners.len()).filter(|&t| owners[t]) {
                if self.home_has_room(t as u16, d, view) {
                    poke(d, cmds);
                    continue;
                }
                for &h in &self.dies[t] {
                    if h != d && view.ftl.blocks().free_count(h) <= reserve + 1 {
                        poke(h, cmds);
                    }
                }
            }
        }
    }

    /// Whether a die of tenant `t`'s home other than `die` has at least 2 free blocks above
    /// the host reserve: room for a whole block's copies with one block to spare.
    /// `gc_write_die` sends a copy home only to a die above the reserve, so with 1 block of
    /// room the copies of a block would open it, take the die to the reserve and the rest
    /// would come back onto `die`, to be closed and collected again (circles: a grid case,
    /// legacy mapper at 15% over-provisioning, did this until the livelock bound ended it).
    fn home_has_room(&self, t: u16, die: DieIdx, view: &DeviceView) -> bool {
        let reserve = view.ftl.params.host_reserve_blocks;
        self.dies[t as usize].iter().any(|&d| d != die && view.ftl.blocks().free_count(d) > reserve + 1)
    }

    /// Max / mean over the channel-isolated channels of their absolute wear in erases (before
    /// the run started and since, as counted at the last check; 0 before any): the trigger's.
    fn cumulative_imbalance(&self) -> f64 {
        let e: Vec<f64> = (0..self.channel_owner.len())
            .filter(|&c| self.channel_owner[c] != NO_OWNER)
            .map(|c| self.erases_before_start[c] + self.total_erases[c] as f64)
            .collect();
        let mean = e.iter().sum::<f64>() / e.len().max(1) as f64;
        if mean > 0.0 {
            e.iter().copied().fold(0.0, f64::max) / mean
        } else {
            0.0
        }
    }

    fn end_swap(&mut self, now: SimTime) {
        let s = self.swap.take().expect("a swap in progress");
        self.swap_time_ns += now.saturating_sub(s.start).ns();
        let mut rec = s.rec;
        rec.end_s = now.saturating_sub(self.run_start).as_secs_f64();
        rec.imbalance_after = self.cumulative_imbalance();
        self.log.push(rec, bandwidth_time_s(&self.g, &self.timing, &rec));
        self.n_swaps_completed += 1;
        self.window_units.fill(0);
        self.window_host_units.fill(0);
        self.window_start = now;
    }
}

impl Scheme for Flashblox {
    fn name(&self) -> &'static str {
        "flashblox"
    }

    fn interests(&self) -> Interests {
        if self.config.swaps && self.channel_owner.iter().filter(|&&o| o != NO_OWNER).count() >= 2 {
            Interests { placed: false, invalidated: true, erased: true }
        } else {
            Interests::NONE
        }
    }

    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        let t = tenant as usize;
        let die = self.dies[t][self.next[t]];
        self.next[t] = (self.next[t] + 1) % self.dies[t].len();
        die
    }

    /// Copies stay on the victim's die when it is the owner's; data left outside its home (by
    /// a swap) goes home to a die above the host reserve, else stays (the reserve argument).
    fn gc_write_die(&mut self, owner: u16, victim_die: DieIdx, view: &DeviceView) -> DieIdx {
        if self.is_home(owner, victim_die) {
            return victim_die;
        }
        let t = owner as usize;
        let n = self.dies[t].len();
        let reserve = view.ftl.params.host_reserve_blocks;
        match (0..n)
            .map(|k| (self.next[t] + k) % n)
            .find(|&i| view.ftl.blocks().free_count(self.dies[t][i]) > reserve)
        {
            Some(i) => {
                self.next[t] = (i + 1) % n;
                self.dies[t][i]
            }
            None => {
                self.foreign[victim_die.0 as usize] = true;
                victim_die
            }
        }
    }

    /// The scenario's policy victim, unless a block left behind on `die` by a swap (see
    /// `left_behind_victim`) has no more valid units: collecting it frees a whole block here
    /// (its copies go home), and a fully valid one is the only way to free its block at all.
    fn gc_victim(&self, die: DieIdx, view: &DeviceView, policy: VictimPolicy) -> Option<BlockIdx> {
        let mine = view.ftl.select_victim(die, policy, view.now);
        let Some(left) = self.left_behind_victim(die, view) else { return mine };
        let valid = |b: BlockIdx| view.ftl.blocks().get(b).valid_units;
        match mine {
            Some(m) if valid(m) < valid(left) => Some(m),
            _ => Some(left),
        }
    }

    fn epoch(&self) -> Option<SimTime> {
        Some(SimTime::from_secs_f64(self.config.epoch_s))
    }

    fn on_run_start(&mut self, view: &DeviceView, _cmds: &mut Vec<Command>) {
        self.window_start = view.now;
        self.window_units.fill(0);
        self.window_host_units.fill(0);
        self.total_erases.fill(0);
        let per_channel = |c: u32| self.channel_dies(c).len() as f64 * self.g.blocks_per_die as f64;
        self.erases_before_start =
            (0..self.g.channels).map(|c| self.channel_wear(c, view) * per_channel(c)).collect();
        self.run_start = view.now;
        self.tokens_at.fill(view.now);
    }

    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        for (d, &e) in view.epoch.erases.iter().enumerate() {
            let c = self.g.channel_of(DieIdx(d as u32)) as usize;
            self.total_erases[c] += e;
        }
        for (t, (h, g)) in view.epoch.host_units.iter().zip(&view.epoch.gc_units).enumerate() {
            self.window_host_units[t] += h;
            self.window_units[t] += h + g;
        }
        if !self.config.swaps || self.swap.is_some() {
            return;
        }
        // A swap waits for the next check after closes (its sources are read from this view,
        // where the blocks are still open).
        let closed = self.close_left_open(view, cmds);
        self.start_stuck_gc(view, cmds);
        if closed {
            return;
        }
        if view.now.saturating_sub(self.window_start).as_secs_f64() < self.config.swap_interval_min_s {
            return;
        }
        match self.swap_decision(view) {
            Decision::Swap { hot, cool, imbalance } => {
                self.trigger_imbalance_last = imbalance;
                self.start_swap(hot as u32, cool as u32, imbalance, view, cmds);
            }
            Decision::Wait { imbalance } | Decision::Below { imbalance } => {
                self.trigger_imbalance_last = imbalance
            }
            Decision::Never => {}
        }
    }

    fn on_invalidated(&mut self, view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        if ev.cause == Cause::Moved && self.in_swap[view.ftl.geometry.block_of(ev.ppa).0 as usize] {
            self.swap_units_moved += 1;
            let channel = self.g.channel_of(self.g.die_of(ev.ppa));
            if let Some(s) = self.swap.as_mut() {
                if channel == s.rec.hot {
                    s.rec.units_from_hot += 1;
                } else {
                    s.rec.units_from_cool += 1;
                }
            }
        }
    }

    fn on_erased(&mut self, view: &DeviceView, block: BlockIdx, _cmds: &mut Vec<Command>) {
        if std::mem::take(&mut self.in_swap[block.0 as usize]) {
            self.n_swap_erases += 1;
            if let Some(s) = self.swap.as_mut() {
                s.rec.blocks_erased += 1;
            }
            self.pending_blocks -= 1;
            if self.pending_blocks == 0 {
                self.end_swap(view.now);
            }
        }
    }

    /// Software vSSDs with `iops_max` > 0: one token per request from a bucket of `burst`
    /// refilled at `iops_max` a second.
    fn admit(&mut self, tenant: u16, _op: IoOp, view: &DeviceView) -> Admission {
        let t = tenant as usize;
        let Vssd::Software { iops_max, burst } = self.config.tenants[t] else { return Admission::Admit };
        if iops_max <= 0.0 {
            return Admission::Admit;
        }
        let dt = view.now.saturating_sub(self.tokens_at[t]).as_secs_f64();
        self.tokens[t] = (self.tokens[t] + dt * iops_max).min(burst as f64);
        self.tokens_at[t] = view.now;
        if self.tokens[t] >= 1.0 {
            self.tokens[t] -= 1.0;
            return Admission::Admit;
        }
        self.n_deferrals += 1;
        let wait_ns = ((1.0 - self.tokens[t]) / iops_max * 1e9).ceil().max(1.0) as u64;
        Admission::Defer(SimTime(view.now.ns() + wait_ns))
    }

    fn counters(&self, out: &mut Counters) {
        out.push(("n_swaps", self.n_swaps as f64));
        out.push(("n_swaps_completed", self.n_swaps_completed as f64));
        out.push(("swap_device_time_s", self.swap_time_ns as f64 / 1e9));
        out.push(("swap_units_moved", self.swap_units_moved as f64));
        out.push(("swap_blocks", self.swap_blocks as f64));
        out.push(("swap_in_progress_at_end", if self.swap.is_some() { 1.0 } else { 0.0 }));
        // The measured interval: (last start − first start) / (n_swaps − 1), from these two
        // (seconds from the run's start; 0 without a swap).
        let since_start =
            |t: Option<SimTime>| t.map_or(0.0, |t| t.saturating_sub(self.run_start).as_secs_f64());
        out.push(("swap_first_start_s", since_start(self.swap_start_first)));
        out.push(("swap_last_start_s", since_start(self.swap_start_last)));
        out.push(("trigger_imbalance_last", self.trigger_imbalance_last));
        out.push(("software_deferrals", self.n_deferrals as f64));
        out.push(("blocks_closed", self.n_blocks_closed as f64));
        // The migrations' cost: erases of the blocks swaps listed (the wear they add), bytes
        // copied, and per completed swap the least time from the device's bandwidth and the
        // log of the most recent (docs/schemes/flashblox.md, "Counters").
        out.push(("swap_erases", self.n_swap_erases as f64));
        out.push(("swap_bytes_moved", self.swap_units_moved as f64 * self.g.unit_bytes as f64));
        self.log.counters(out);
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}

/// The lifetime model's hook (`Capabilities::lifetime`, `swap::LifetimeHook`): per-vSSD rates
/// (the tenants' `wear.erase_rate_per_s`, less the erases the swaps caused, spread over each
/// channel vSSD's channels), the swap rule of `[scheme.flashblox]` in the resolved scenario
/// (none when `swaps = false`) and each swap's measured cost.
pub(crate) fn lifetime_setup(
    p: &serde_json::Value,
    resolved_toml: &str,
    num: Number,
    loads: &mut ChannelLoads,
) -> Result<SwapRule, FtlabError> {
    let file = "scenario.resolved.toml";
    let doc: toml::Table = resolved_toml.parse().map_err(|e: toml::de::Error| {
        let (line, column) = e.span().map_or((0, 0), |s| crate::error::line_column(resolved_toml, s.start));
        LifetimeError::Malformed { file: file.into(), line, column, reason: e.message().trim().to_string() }
    })?;
    let table = doc
        .get("scheme")
        .and_then(|s| s.get(INFO.name))
        .cloned()
        .unwrap_or(toml::Value::Table(toml::Table::new()));
    let cfg: FlashbloxConfig = table.try_into().map_err(|e: toml::de::Error| LifetimeError::Missing {
        file: file.into(),
        key: format!("scheme.{}", INFO.name),
        what: e.message().trim().to_string(),
    })?;
    let c = &p["scheme_counters"];
    let n_swaps = num(&c["n_swaps"], "scheme_counters.n_swaps")?;
    let done = num(&c["n_swaps_completed"], "scheme_counters.n_swaps_completed")?;
    let secs = num(&p["device"]["measured_s"], "device.measured_s")?;
    let swap_blocks = num(&c["swap_blocks"], "scheme_counters.swap_blocks")?;
    let mut rule = SwapRule::NONE;
    if cfg.swaps {
        rule.threshold = cfg.swap_threshold;
        rule.window = cfg.rate_window;
        rule.partner_window = cfg.partner_window;
        rule.interval_min_s = cfg.swap_interval_min_s;
        rule.epoch_s = cfg.epoch_s;
    }
    rule.swap_time_s = if done > 0.0 {
        num(&c["swap_device_time_s"], "scheme_counters.swap_device_time_s")? / done
    } else {
        0.0
    };
    rule.swap_erases = if n_swaps > 0.0 { swap_blocks / n_swaps / 2.0 } else { 0.0 };
    // Channel vSSDs hold consecutive channels from 0 at the start (`allocate`).
    let tenants: Vec<&serde_json::Value> =
        p["tenants"].as_object().map(|m| m.values().collect()).unwrap_or_default();
    let rates: Vec<f64> = tenants
        .iter()
        .enumerate()
        .map(|(t, v)| num(&v["wear"]["erase_rate_per_s"], &format!("tenants.{t}.wear.erase_rate_per_s")))
        .collect::<Result<_, _>>()?;
    let total: f64 = rates.iter().sum();
    // The swaps' own erases are in the measured rates: take them out, in proportion.
    let keep = if total > 0.0 && secs > 0.0 { ((total - swap_blocks / secs) / total).max(0.0) } else { 1.0 };
    let mut next = 0usize;
    for (t, v) in cfg.tenants.iter().enumerate() {
        if let Vssd::Channel { channels } = *v {
            for ch in next..next + channels as usize {
                loads.owner[ch] = t as u16;
                loads.rate_per_s[ch] = rates.get(t).copied().unwrap_or(0.0) * keep / channels as f64;
            }
            next += channels as usize;
        }
    }
    Ok(rule)
}
