//! `upi`: utilitarian performance isolation (the paper copy names no authors nor venue;
//! `../shared/papers/upi-utilitarian-performance-isolation.txt`). Every tenant writes only
//! to its *allocation set* of dies; the sets are disjoint and cover every die (except
//! optional read-only dies). Reads are served wherever the data is. GC reads a tenant's data
//! from any die and writes it into the tenant's own set, so data drifts home. Every epoch the
//! scheme computes each tenant's utility (Eq. 1) from the observed reads (N_r), the expected
//! programs (Eq. 3) and the dies' traffic (Eq. 2), and moves one die from the tenant with the
//! highest utility to the one with the lowest, if the anti-thrash rule allows it.
//!
//! Two presets share this file: `upi` is the paper as written (Eq. 1-3 on smoothed counters,
//! the anti-thrash rule, read-weighted relocation) plus the space rule that keeps a set from
//! running out of room; `upi-guarded` adds two guards that are not in the paper and are
//! knobs of `upi` too: `donor_traffic_max` (anti-starvation) and `utility_gap_min`.
//!
//! What this is not: it moves no data itself (GC relocates it, through `gc_victim`'s
//! read-weighted cost-benefit and `gc_write_die`), and it knows nothing of time beyond the
//! epoch counters it is handed. `docs/schemes/upi.md` maps each equation to its line here.

use super::partitioned::{assign, check_shares, proportional_shares, PartitionUnit};
use super::{
    parse_config, to_table, Capabilities, EpochStats, Scheme, SchemeConfigError, SchemeContext, SchemeInfo,
    TenantSeries,
};
use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
use crate::ftl::blocks::BlockState;
use crate::ftl::gc::{age, VictimPolicy};
use crate::ftl::Ftl;
use crate::knobs::{check_all, config_fields, serde_defaults, Bounds, IntBounds, Knob, KnobKind};
use crate::policy::{Command, Counters, DeviceView};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

/// Knobs of `upi` (`[scheme.upi]`). Units are in the names; every knob has a default.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpiConfig {
    /// Length of an epoch in simulated seconds: how often utilities are computed and at most
    /// one die changes sets. In [0.001, 86400]. Default 1.0 (the paper gives no value).
    #[serde(default = "default_epoch_s")]
    pub(crate) epoch_s: f64,
    /// How much a block's reads count in GC's cost-benefit score when the block lies on a die
    /// outside its owner's set (§4, data relocation): 0 = never relocate for isolation (lazy),
    /// large = eager. Unitless, in [0, 1e6]. Default 1.0.
    #[serde(default = "default_one")]
    pub(crate) relocation_weight: f64,
    /// Exponent on N_r(t, c) in both sums of Eq. 1 (§6: > 1 favours the dies a tenant reads
    /// most, i.e. its common case; < 1 its rare reads, i.e. the tail). In (0, 8]. Default 1.
    #[serde(default = "default_one")]
    pub read_exponent: f64,
    /// Per-tenant exponent on 1 - Traffic(c, S) in Eq. 1 (§6 asymmetric service: a larger
    /// exponent makes a tenant more sensitive to traffic, so it gets more isolation). One per
    /// tenant in scenario order, each in (0, 8]; empty (the default) = all 1.
    #[serde(default)]
    pub(crate) traffic_exponents: Vec<f64>,
    /// Dies that belong to no allocation set once the timed run starts (§6): they hold what
    /// preconditioning wrote and serve reads only; no host write or GC copy goes there.
    /// Die indices in [0, dies), distinct. Default none.
    #[serde(default)]
    pub(crate) read_only_dies: Vec<u32>,
    /// Traffic beyond which the M/M/1 delay weight 1 / (1 - Traffic) of Eq. 1 is continued
    /// along its tangent (so Traffic >= 1, an overloaded die, still gets a finite weight that
    /// grows with the load). In (0, 1). Default 0.95.
    #[serde(default = "default_traffic_cap")]
    pub(crate) traffic_cap: f64,
    /// Dies of each tenant's initial set, in scenario order, summing to the device's dies;
    /// empty (the default) = proportional to namespace size, as `partitioned` by die.
    #[serde(default)]
    pub(crate) initial_shares: Vec<u32>,
    /// Smallest set a donor may be left with. In [1, smallest initial set]. Default 1.
    #[serde(default = "default_min_set")]
    pub(crate) min_set_dies: u32,
    /// Time constant, in epochs, of the exponential moving averages of N_r(t, c), N_w(t)'s
    /// host units and GC copies that feed Eq. 1-3 (`Smoothed`): each epoch moves an average
    /// 1/`smoothing_epochs` of the way to the epoch's count. §4 computes N_p from N_w and WAF
    /// "because GC activities can be sporadic"; WAF(t) is the ratio of the smoothed counts.
    /// 1 = no smoothing (each epoch alone). In [1, 1e6]. Default 10 (our choice; the paper
    /// gives none).
    #[serde(default = "default_smoothing_epochs")]
    pub(crate) smoothing_epochs: f64,
    /// Relocation pulls data home only while its owner's own data fills less than the
    /// device's density 1/(1 + OP) of its set (ours, not in the paper). Default false.
    #[serde(default)]
    pub(crate) room_home: bool,
    /// Anti-starvation guard (ours, not in the paper): a move is refused if Eq. 2, with the
    /// smoothed N_w as well as the smoothed WAF and N_r, predicts a traffic above this on any
    /// die the donor keeps. Fraction of a die's time, in (0, 10];
    /// absent (the `upi` default) = no guard. `upi-guarded` sets 0.5.
    #[serde(default)]
    pub(crate) donor_traffic_max: Option<f64>,
    /// A die moves only if the highest utility exceeds the lowest by more than this (ours,
    /// not in the paper: it stops cycles among three or more tenants that the pairwise
    /// anti-thrash rule lets through). In [0, 1]. Default 0; `upi-guarded` sets 0.05.
    #[serde(default)]
    pub(crate) utility_gap_min: f64,
}

fn default_epoch_s() -> f64 {
    1.0
}
fn default_one() -> f64 {
    1.0
}
fn default_traffic_cap() -> f64 {
    0.95
}
fn default_min_set() -> u32 {
    1
}
fn default_smoothing_epochs() -> f64 {
    10.0
}

/// The knobs `upi-guarded` sets when its table does not: the anti-starvation guard at 0.5
/// (where an M/M/1 queue's delay factor 1/(1 - Traffic) is 2; Eq. 2 leaves out transfers, GC
/// reads and erases, which add about 30% to a die's busy time in the UPI experiment's load
/// budget, so 0.5 by Eq. 2 is about 0.65 busy) and a utility gap of 0.05.
const GUARDED_DEFAULTS: &[(&str, f64)] = &[("donor_traffic_max", 0.5), ("utility_gap_min", 0.05)];

/// `set_of_die` value of a read-only die.
const NO_SET: u16 = u16::MAX;

/// Counters of what the epochs decided (tests and diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpiCounters {
    pub epochs: u64,
    pub transfers: u64,
    /// Moves the anti-thrash rule refused.
    pub refused_anti_thrash: u64,
    /// Moves refused because the donor was at `min_set_dies`.
    pub refused_min_set: u64,
    /// Moves refused by the space guard (the donor's own data would crowd its smaller set).
    pub(crate) refused_space: u64,
    /// Dies given to a tenant whose set was full of its own data (the space rule).
    pub(crate) space_transfers: u64,
    /// Moves refused by the anti-starvation guard (`donor_traffic_max`).
    pub refused_starvation: u64,
    /// Epochs without a move because the utilities were within `utility_gap_min`.
    pub refused_gap: u64,
    /// Open blocks a donor left on a die it gave away, closed (`Command::CloseBlock`).
    pub blocks_closed: u64,
}

pub struct Upi {
    /// `upi` or `upi-guarded`.
    name: &'static str,
    config: UpiConfig,
    /// The moving averages of the epoch counters (Eq. 1-3's inputs).
    smoothed: Smoothed,
    /// Per tenant: smoothed host page reads per second per valid page of its data, the
    /// yardstick of the relocation read term (0 before the first epoch).
    read_rate_per_page: Vec<f64>,
    /// Dies of each tenant's allocation set.
    sets: Vec<Vec<DieIdx>>,
    /// Tenant whose set holds each die, or `NO_SET`.
    set_of_die: Vec<u16>,
    /// Per tenant: index in its set of the die that takes the next host page.
    host_next: Vec<usize>,
    /// Per tenant: die of the GC page being filled, and units it still takes.
    gc_die: Vec<DieIdx>,
    gc_units_left: Vec<u32>,
    gc_next: Vec<usize>,
    geometry: Geometry,
    read_ns: f64,
    program_ns: f64,
    /// Densities of a tenant's own valid data in its set (fractions of the set's physical
    /// units). `fill_device` = 1 / (1 + over-provisioning), the density of the whole device
    /// with every namespace full: below it, GC pulls data home (relocation). A donor must stay
    /// at or below `fill_guard` = (1 + fill_device) / 2 after a move; a tenant above
    /// `fill_starved` = (3 + fill_device) / 4 gets a die (the space rule). The gaps between the
    /// three keep the space rule from undoing the utility rule's moves.
    fill_device: f64,
    fill_guard: f64,
    fill_starved: f64,
    /// Utility of each tenant at the last epoch (NaN before the first).
    utility: Vec<f64>,
    /// Open blocks of a donor on a die it gave away, not closed yet, with the epoch the move
    /// was seen at (`close_left_behind`).
    left_behind: Vec<(BlockIdx, u64)>,
    /// `ftl.gc_low_watermark_blocks`: a left-behind block is closed once its die is below it.
    low_watermark_blocks: u32,
    pub counters: UpiCounters,
}

/// `upi`'s registry entry.
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "upi",
    summary: "Utilitarian performance isolation (UPI): per-tenant die sets that move by Eq. 1-3 \
              every epoch.",
    knobs: KNOBS,
    fields: config_fields::<UpiConfig>,
    defaults: serde_defaults::<UpiConfig>,
    build,
    caps: Capabilities::labelled("UPI"),
};

/// `upi-guarded`'s registry entry: `upi` with `GUARDED_DEFAULTS`.
pub(crate) const GUARDED_INFO: SchemeInfo = SchemeInfo {
    name: "upi-guarded",
    summary: "upi with two guards not in the paper on by default: donor_traffic_max = 0.5, utility_gap_min \
              = 0.05.",
    knobs: KNOBS,
    fields: config_fields::<UpiConfig>,
    defaults: guarded_defaults,
    build: build_guarded,
    caps: Capabilities::labelled("UPI (guarded)"),
};

/// `table` with `GUARDED_DEFAULTS` for the knobs it leaves out.
fn with_guards(table: &toml::Table) -> toml::Table {
    let mut table = table.clone();
    for &(key, value) in GUARDED_DEFAULTS {
        table.entry(key).or_insert(toml::Value::Float(value));
    }
    table
}

/// `upi-guarded`'s config of an empty table.
fn guarded_defaults() -> toml::Table {
    to_table(
        &parse_config::<UpiConfig>(&with_guards(&toml::Table::new())).expect("upi-guarded's defaults parse"),
    )
}

/// `upi`: the paper's scheme.
pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    Ok(Box::new(Upi::new(table, ctx)?))
}

/// `upi-guarded`: `upi` with `GUARDED_DEFAULTS` for the knobs its table leaves out.
pub(crate) fn build_guarded(
    table: &toml::Table,
    ctx: &SchemeContext,
) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    Ok(Box::new(Upi::new_guarded(table, ctx)?))
}

impl Upi {
    pub fn new(table: &toml::Table, ctx: &SchemeContext) -> Result<Upi, SchemeConfigError> {
        Upi::with_name("upi", table, ctx)
    }

    pub fn new_guarded(table: &toml::Table, ctx: &SchemeContext) -> Result<Upi, SchemeConfigError> {
        Upi::with_name("upi-guarded", &with_guards(table), ctx)
    }

    fn with_name(
        name: &'static str,
        table: &toml::Table,
        ctx: &SchemeContext,
    ) -> Result<Upi, SchemeConfigError> {
        let mut config: UpiConfig = parse_config(table)?;
        let g = *ctx.geometry;
        let n_tenants = ctx.namespace_units.len();
        check_knobs(&config, n_tenants)?;
        if config.traffic_exponents.is_empty() {
            config.traffic_exponents = vec![1.0; n_tenants];
        }
        if config.initial_shares.is_empty() {
            config.initial_shares = proportional_shares(ctx.namespace_units, g.n_dies)
                .map_err(|e| SchemeConfigError::new("initial_shares", e.reason))?;
        }
        check_shares("initial_shares", "dies", &config.initial_shares, n_tenants, g.n_dies)?;
        // Consecutive dies in channel-first order, as `partitioned` by die.
        let sets = assign(&g, PartitionUnit::Die, &config.initial_shares);
        check_read_only(&config, &sets, g.n_dies)?;
        let mut set_of_die = vec![NO_SET; g.n_dies as usize];
        for (t, set) in sets.iter().enumerate() {
            for d in set {
                set_of_die[d.0 as usize] = t as u16;
            }
        }
        let first_dies: Vec<DieIdx> = sets.iter().map(|s| s[0]).collect();
        Ok(Upi {
            name,
            smoothed: Smoothed::new(n_tenants, g.n_dies as usize, config.smoothing_epochs),
            read_rate_per_page: vec![0.0; n_tenants],
            config,
            set_of_die,
            host_next: vec![0; n_tenants],
            gc_die: first_dies,
            gc_units_left: vec![0; n_tenants],
            gc_next: vec![0; n_tenants],
            sets,
            geometry: g,
            read_ns: ctx.timing.read.ns() as f64,
            program_ns: ctx.timing.program.ns() as f64,
            fill_device: 1.0 / (1.0 + ctx.over_provisioning),
            fill_guard: (1.0 + 1.0 / (1.0 + ctx.over_provisioning)) / 2.0,
            fill_starved: (3.0 + 1.0 / (1.0 + ctx.over_provisioning)) / 4.0,
            utility: vec![f64::NAN; n_tenants],
            left_behind: Vec::new(),
            low_watermark_blocks: ctx.low_watermark_blocks,
            counters: UpiCounters::default(),
        })
    }

    /// The allocation set of `tenant`.
    pub fn set(&self, tenant: u16) -> &[DieIdx] {
        &self.sets[tenant as usize]
    }

    /// Utilities computed at the last epoch (NaN before the first).
    pub fn utilities(&self) -> &[f64] {
        &self.utility
    }

    fn in_set(&self, tenant: u16, die: DieIdx) -> bool {
        self.set_of_die[die.0 as usize] == tenant
    }

    /// Whether a GC copy may take room on `die` without touching the GC reserve that die
    /// keeps for its own victim: its own victim's die always may (the classic argument),
    /// another die only while host writes could still open a block there.
    fn gc_may_use(die: DieIdx, victim_die: DieIdx, ftl: &Ftl) -> bool {
        die == victim_die || ftl.blocks().free_count(die) > ftl.params.host_reserve_blocks
    }

    /// Density of `t`'s own valid data in its set without `without`: units / physical units.
    fn own_density(&self, t: usize, ftl: &Ftl, without: Option<DieIdx>) -> f64 {
        let dies = self.sets[t].iter().filter(|&&d| Some(d) != without);
        let units: u64 = dies.clone().map(|&d| ftl.valid_units_on(t as u16, d)).sum();
        let per_die = self.geometry.blocks_per_die as f64 * self.geometry.units_per_block as f64;
        units as f64 / (dies.count() as f64 * per_die)
    }

    /// The space rule (not in the paper, which never runs a set out of room): a tenant whose
    /// own data fills its set beyond `fill_starved` gets a die from the tenant of lowest
    /// density that stays within `fill_guard`, whatever the utilities say; otherwise its
    /// writes could wait forever for GC to find invalid data in its set.
    fn relieve_space(&mut self, model: &EpochModel, ftl: &Ftl) -> bool {
        let ratio = |t: usize| self.own_density(t, ftl, None);
        let n = self.sets.len();
        // Starved: its own data is past `fill_starved`, or past `fill_device` with every die
        // of its set down to the host reserve (its writes wait, and GC there has little to win).
        let stuck = |t: usize| {
            self.sets[t].iter().all(|&d| ftl.blocks().free_count(d) <= ftl.params.host_reserve_blocks)
        };
        let starved_now =
            |t: usize| ratio(t) > self.fill_starved || (ratio(t) > self.fill_device && stuck(t));
        let Some(starved) =
            (0..n).filter(|&t| starved_now(t)).max_by(|&a, &b| ratio(a).total_cmp(&ratio(b)).then(b.cmp(&a)))
        else {
            return false;
        };
        let mut donors: Vec<usize> = (0..n)
            .filter(|&t| t != starved && self.sets[t].len() as u32 > self.config.min_set_dies)
            .collect();
        donors.sort_by(|&a, &b| ratio(a).total_cmp(&ratio(b)).then(a.cmp(&b)));
        for donor in donors {
            let die = self.sets[donor]
                .iter()
                .copied()
                .filter(|&d| self.own_density(donor, ftl, Some(d)) <= self.fill_guard)
                .min_by(|a, b| least_read(model, *a, *b));
            if let Some(die) = die {
                self.transfer(die, donor, starved, ftl);
                self.counters.space_transfers += 1;
                return true;
            }
        }
        false
    }

    /// One epoch's decision: the utilities of the current sets, then at most one transfer.
    fn rebalance(&mut self, model: &EpochModel, ftl: &Ftl) {
        let n = self.sets.len();
        let sizes: Vec<u32> = self.sets.iter().map(|s| s.len() as u32).collect();
        for t in 0..n {
            self.utility[t] = model.utility(t, &self.set_of_die, &sizes, self.config.traffic_exponents[t]);
        }
        if self.relieve_space(model, ftl) {
            return;
        }
        let Some((donor, receiver)) = extremes(&self.utility) else { return };
        if self.utility[donor] - self.utility[receiver] <= self.config.utility_gap_min {
            self.counters.refused_gap += 1;
            return;
        }
        if sizes[donor] <= self.config.min_set_dies {
            self.counters.refused_min_set += 1;
            return;
        }
        let die = self.sets[donor]
            .iter()
            .copied()
            .min_by(|a, b| least_read(model, *a, *b))
            .expect("a donor has dies");
        // Anti-thrash (§4): the donor's utility after the move must stay >= the receiver's now.
        let mut trial = self.set_of_die.clone();
        trial[die.0 as usize] = receiver as u16;
        let mut trial_sizes = sizes;
        trial_sizes[donor] -= 1;
        trial_sizes[receiver] += 1;
        let donor_after = model.utility(donor, &trial, &trial_sizes, self.config.traffic_exponents[donor]);
        if donor_after < self.utility[receiver] {
            self.counters.refused_anti_thrash += 1;
            return;
        }
        if self
            .config
            .donor_traffic_max
            .is_some_and(|max| model.set_traffic_max(donor, &trial, &trial_sizes) > max)
        {
            self.counters.refused_starvation += 1;
            return;
        }
        if self.own_density(donor, ftl, Some(die)) > self.fill_guard {
            self.counters.refused_space += 1;
            return;
        }
        self.transfer(die, donor, receiver, ftl);
    }

    /// Close the open blocks a donor left on the dies it gave away, once such a die has stayed
    /// away from the donor for `smoothing_epochs` epochs and is short of free blocks (ours, not
    /// in the paper, which says the old owner's data "relocate to its allocation set over
    /// time" through GC): no one writes them again, and GC takes only full blocks, so without
    /// this their space is out of everyone's reach (soak seed 991: 8 of a die's 64 blocks, open
    /// frontiers of the tenant that had the die, while the new owner's writes waited for a
    /// free block). Closing gives up a block's unwritten pages until GC erases it, so it waits:
    /// - until the die is below the GC low watermark, where GC needs the space;
    /// - until the move has lasted `smoothing_epochs` epochs, the time constant over which UPI
    ///   takes its observations as noise: a die that comes back to its donor before then
    ///   (paper-literal `upi` moves one back and forth at every epoch when two utilities
    ///   cross) finds its frontiers still open.
    ///
    /// Closed at every move, dies that changed hands every few 2 ms epochs burned their free
    /// blocks on closed, nearly empty frontiers (soak seed 76, `upi`: 1,434 moves and 1,254
    /// blocks closed in 10.5 s); closed below the watermark but at once, seeds 1209, 1313 and
    /// 1998 (`upi` at fill 1.0, below the watermark throughout) did the same. A block with a
    /// program in flight is closed at a later epoch.
    fn close_left_behind(&mut self, ftl: &Ftl, cmds: &mut Vec<Command>) {
        let epoch = self.counters.epochs;
        let wait_epochs = self.config.smoothing_epochs.ceil() as u64;
        let mut waiting = std::mem::take(&mut self.left_behind);
        waiting.retain(|&(b, noted)| {
            let i = ftl.blocks().get(b);
            let die = self.geometry.die_of_block(b);
            if i.state() != BlockState::Open || self.set_of_die[die.0 as usize] == i.owner() {
                return false;
            }
            let short = ftl.blocks().free_count(die) < self.low_watermark_blocks;
            if epoch - noted < wait_epochs || !short || !ftl.is_closable(b) {
                return true;
            }
            cmds.push(Command::CloseBlock { block: b });
            self.counters.blocks_closed += 1;
            false
        });
        self.left_behind = waiting;
    }

    /// Note `donor`'s blocks still open on `die`, which it has just given away, unless noted
    /// already (`close_left_behind`).
    fn note_left_behind(&mut self, die: DieIdx, donor: u16, ftl: &Ftl) {
        let epoch = self.counters.epochs;
        for b in self.geometry.blocks_of_die(die).map(BlockIdx) {
            let i = ftl.blocks().get(b);
            let open = i.state() == BlockState::Open && i.owner() == donor;
            if open && self.left_behind.iter().all(|&(x, _)| x != b) {
                self.left_behind.push((b, epoch));
            }
        }
    }

    fn transfer(&mut self, die: DieIdx, from: usize, to: usize, ftl: &Ftl) {
        let pos = self.sets[from].iter().position(|&d| d == die).expect("die in the donor's set");
        self.sets[from].remove(pos);
        self.sets[to].push(die);
        self.set_of_die[die.0 as usize] = to as u16;
        self.host_next[from] %= self.sets[from].len();
        self.note_left_behind(die, from as u16, ftl);
        self.counters.transfers += 1;
        assert!(!self.sets[from].is_empty(), "a donor lost its last die");
        assert_eq!(
            self.sets.iter().map(Vec::len).sum::<usize>(),
            self.set_of_die.iter().filter(|&&s| s != NO_SET).count()
        );
    }

    /// The read-weighted cost-benefit score of a collectable block, or `None` if collecting
    /// it gains nothing (fully valid and not a relocation candidate). `movable[t]`: whether
    /// `t`'s copies can leave the block's die (`copies_can_leave`); if they cannot, relocation
    /// would write them back where they were, so the read term does not count.
    fn victim_score(
        &self,
        block: BlockIdx,
        die: DieIdx,
        ftl: &Ftl,
        now: SimTime,
        movable: &[bool],
    ) -> Option<f64> {
        let info = ftl.blocks().get(block);
        let owner = info.owner as usize;
        let age_ns = age(now, info.last_write_ns).ns() as f64 + 1.0;
        let outside = !self.in_set(info.owner, die) && movable[owner];
        let reads = if outside { self.relocation_term(info.read_count, age_ns, owner) } else { 0.0 };
        self.score_of(info.valid_units, age_ns, reads)
    }

    /// The score of a block with `valid` units, `age_ns` (its age in ns + 1) and read term
    /// `reads`: age * ((1 - u) + reads) / (2u), +infinity without valid units, `None` if the
    /// benefit is not above zero.
    #[inline]
    fn score_of(&self, valid: u32, age_ns: f64, reads: f64) -> Option<f64> {
        let u = valid as f64 / self.geometry.units_per_block as f64;
        let benefit = (1.0 - u) + reads;
        if valid == 0 {
            return Some(f64::INFINITY);
        }
        (benefit > 0.0).then(|| age_ns * benefit / (2.0 * u))
    }

    /// At least the score of every block outside its owner's set with at least `v` valid
    /// units, an age (ns + 1) at most `age_ns` and at most `reads` host reads (`None`: any),
    /// of tenant `owner` (`None`: any), and never falling as `age_ns` grows. The read term
    /// times the age is w x age / (1 + x) with x = K / age, K = reads / pages / 1e-9 / the
    /// owner's read rate per page: w K age / (age + K), which rises with the age and with K,
    /// so the block's own score at the most reads and the greatest age bounds every block's.
    /// (It was w min(age, K), up to twice as loose where K is near the age: the search then
    /// visited three times the blocks.) Without a count or an owner the read term is w
    /// (`reads_max`); the factor 1 + 1e-9 covers the roundings of both sides.
    fn score_bound(
        &self,
        v: u32,
        age_ns: f64,
        owner: Option<u16>,
        reads: Option<u32>,
        reads_max: f64,
    ) -> f64 {
        let u = v as f64 / self.geometry.units_per_block as f64;
        let any_reads = age_ns * ((1.0 - u) + reads_max) / (2.0 * u);
        let (Some(t), Some(rc)) = (owner, reads) else { return any_reads };
        let reads = self.relocation_term(rc, age_ns, t as usize);
        (age_ns * ((1.0 - u) + reads) / (2.0 * u) * (1.0 + 1e-9)).min(any_reads)
    }

    /// `gc_victim` when no block scores above zero: the least recently written eligible block
    /// outside its owner's set whose copies can leave `die` (ties to the lowest index).
    fn oldest_outside(&self, die: DieIdx, ftl: &Ftl, leave: &[bool]) -> Option<BlockIdx> {
        let g = &self.geometry;
        let mut oldest: Option<(i64, u32)> = None;
        for b in g.blocks_of_die(die) {
            let info = &ftl.blocks().info[b as usize];
            if info.state != BlockState::Full || info.programmed_pages != g.pages_per_block {
                continue;
            }
            if !self.in_set(info.owner, die)
                && leave[info.owner as usize]
                && oldest.is_none_or(|(t, _)| info.last_write_ns < t)
            {
                oldest = Some((info.last_write_ns, b));
            }
        }
        oldest.map(|(_, b)| BlockIdx(b))
    }

    /// The relocation read term of a block outside its owner's set: w * x / (1 + x), where
    /// x is the block's host page reads per page per second since it was written, over its
    /// owner's average (`read_rate_per_page`). A block read as often as its owner's average
    /// page scores w/2, however fast or slow the owner, and no block scores w or more, so one
    /// weight means the same for every tenant and (1 - u) is never swamped. 0 before the
    /// first epoch and for an owner without reads.
    pub fn relocation_term(&self, read_count: u32, age_ns: f64, owner: usize) -> f64 {
        let avg = self.read_rate_per_page[owner];
        if avg <= 0.0 || read_count == 0 {
            return 0.0;
        }
        let rate = read_count as f64 / self.geometry.pages_per_block as f64 / (age_ns * 1e-9);
        let x = rate / avg;
        self.config.relocation_weight * x / (1.0 + x)
    }

    /// Per tenant: whether relocation may pull its data home (always, unless `room_home`).
    fn room_home(&self, ftl: &Ftl) -> Vec<bool> {
        (0..self.sets.len())
            .map(|t| !self.config.room_home || self.own_density(t, ftl, None) < self.fill_device)
            .collect()
    }

    /// Per tenant: whether copies of its data collected on `die`, outside its set, can leave
    /// `die`: some die of its set has free blocks above the host reserve (`gc_may_use`, what
    /// `gc_write_die` asks). If none has, `gc_write_die` writes them back onto `die`, and
    /// collecting a fully valid block gains nothing: GC would move valid data in circles
    /// while the die's owner waits for room (soak seeds 75, 78, 94: a tenant whose data
    /// outgrew a set shrunk to one die, its home die at the reserve, its data filling a die
    /// of the other tenant's set).
    fn copies_can_leave(&self, die: DieIdx, ftl: &Ftl) -> Vec<bool> {
        self.sets.iter().map(|set| set.iter().any(|&d| d != die && Self::gc_may_use(d, die, ftl))).collect()
    }

    /// Update the smoothed counters and each tenant's read rate per valid page.
    fn observe(&mut self, stats: &EpochStats, ftl: &Ftl) {
        self.smoothed.update(stats);
        let window_s = stats.window.as_secs_f64();
        let upp = self.geometry.units_per_page as f64;
        for t in 0..self.sets.len() {
            let units: u64 = (0..self.geometry.n_dies).map(|d| ftl.valid_units_on(t as u16, DieIdx(d))).sum();
            let reads_per_s = self.smoothed.tenant_reads(t) / window_s;
            self.read_rate_per_page[t] = if units == 0 { 0.0 } else { reads_per_s / (units as f64 / upp) };
        }
    }
}

impl Scheme for Upi {
    fn name(&self) -> &'static str {
        self.name
    }

    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        let t = tenant as usize;
        let set = &self.sets[t];
        let die = set[self.host_next[t] % set.len()];
        self.host_next[t] = (self.host_next[t] + 1) % set.len();
        die
    }

    /// A die of the owner's set, striped page by page; a die whose free blocks are down to the
    /// GC reserve is skipped, and if the whole set is, the copy stays on the victim's die. Per
    /// copy (no `gc_block_die`): the stripe moves on with every copy.
    fn gc_write_die(&mut self, owner: u16, victim_die: DieIdx, view: &DeviceView) -> DieIdx {
        let ftl = view.ftl;
        let t = owner as usize;
        if self.gc_units_left[t] > 0 && Self::gc_may_use(self.gc_die[t], victim_die, ftl) {
            self.gc_units_left[t] -= 1;
            return self.gc_die[t];
        }
        let set = &self.sets[t];
        let n = set.len();
        let pick =
            (0..n).map(|k| set[(self.gc_next[t] + k) % n]).find(|&d| Self::gc_may_use(d, victim_die, ftl));
        let die = match pick {
            Some(d) => {
                self.gc_next[t] = (set.iter().position(|&x| x == d).expect("in set") + 1) % n;
                d
            }
            // Only static wear leveling collects on a read-only die: its data goes to the
            // owner's die with the most free blocks rather than back onto the read-only die.
            None if self.set_of_die[victim_die.0 as usize] == NO_SET => *set
                .iter()
                .max_by_key(|d| (ftl.blocks().free_count(**d), std::cmp::Reverse(d.0)))
                .expect("a set has dies"),
            None => victim_die,
        };
        self.gc_die[t] = die;
        self.gc_units_left[t] = self.geometry.units_per_page - 1;
        die
    }

    /// Cost-benefit, age * ((1 - u) + w * reads) / (2u), where `reads` (per page of the
    /// block) counts only for a block outside its owner's set while the owner's own data in
    /// its set is below the device's density (`fill_device`). The scenario's victim policy
    /// does not apply to `upi`. Ties go to the lowest block index.
    /// If no block scores above zero, the least recently written block outside its owner's
    /// set is taken: its copies leave this die, so collecting it still frees a block here.
    /// Both the read term and that fallback need the owner's set to have room for the copies
    /// (`copies_can_leave`); without it, a fully valid block is no victim.
    /// The search is indexed (`Ftl::best_eligible`): the blocks of an owner that cannot earn
    /// the read term on this die score by their valid units and age alone, and those of one
    /// that may are bounded by the largest read term (`relocation_term` < w); it finds what a
    /// scan of every block finds.
    fn gc_victim(&self, die: DieIdx, view: &DeviceView, _policy: VictimPolicy) -> Option<BlockIdx> {
        let (ftl, now) = (view.ftl, view.now);
        if self.set_of_die[die.0 as usize] == NO_SET {
            return None; // a read-only die is never written, so it needs no space
        }
        let leave = self.copies_can_leave(die, ftl);
        let movable: Vec<bool> =
            self.room_home(ftl).iter().zip(&leave).map(|(&home, &out)| home && out).collect();
        // w x / (1 + x) < w in exact arithmetic; the margin covers its three roundings.
        let reads_max = self.config.relocation_weight * (1.0 + 1e-9);
        // The owners whose blocks here may earn the read term: outside their set, movable.
        let earns = |t: u16| movable.get(t as usize).is_some_and(|&m| m && !self.in_set(t, die));
        let plain_age = |stamp: i64| age(now, stamp).ns() as f64 + 1.0;
        let exact = |v: u32, stamp: i64| self.score_of(v, plain_age(stamp), 0.0);
        let bound = |v: u32, stamp: i64, owner: Option<u16>, reads: Option<u32>| {
            self.score_bound(v, plain_age(stamp), owner, reads, reads_max)
        };
        let score = |b: u32, _: &_| self.victim_score(BlockIdx(b), die, ftl, now, &movable);
        match ftl.best_eligible(die, earns, exact, bound, score) {
            Some(b) => Some(BlockIdx(b)),
            None => self.oldest_outside(die, ftl, &leave),
        }
    }

    fn on_run_start(&mut self, _view: &DeviceView, _cmds: &mut Vec<Command>) {
        for &d in &self.config.read_only_dies {
            let t = self.set_of_die[d as usize];
            assert_ne!(t, NO_SET, "read-only die {d} left its set twice");
            self.sets[t as usize].retain(|&x| x.0 != d);
            self.set_of_die[d as usize] = NO_SET;
            self.host_next[t as usize] %= self.sets[t as usize].len();
        }
    }

    fn epoch(&self) -> Option<SimTime> {
        Some(SimTime::from_secs_f64(self.config.epoch_s))
    }

    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        self.counters.epochs += 1;
        self.observe(view.epoch, view.ftl);
        let model = EpochModel::new(
            view.epoch,
            &self.smoothed,
            self.geometry.units_per_page,
            self.read_ns,
            self.program_ns,
            &self.config,
        );
        self.rebalance(&model, view.ftl);
        self.close_left_behind(view.ftl, cmds);
    }

    fn counters(&self, out: &mut Counters) {
        let c = &self.counters;
        out.extend([
            ("epochs", c.epochs as f64),
            ("transfers", c.transfers as f64),
            ("refused_anti_thrash", c.refused_anti_thrash as f64),
            ("refused_min_set", c.refused_min_set as f64),
            ("refused_space", c.refused_space as f64),
            ("space_transfers", c.space_transfers as f64),
            ("blocks_closed", c.blocks_closed as f64),
            ("refused_starvation", c.refused_starvation as f64),
            ("refused_gap", c.refused_gap as f64),
        ]);
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
    fn tenant_series(&self) -> Option<&dyn TenantSeries> {
        Some(self)
    }
}

impl TenantSeries for Upi {
    fn series_names(&self) -> &'static [&'static str] {
        &["alloc_set_dies", "pages_outside_set", "utility"]
    }

    fn series_values(&self, tenant: u16, view: &DeviceView, out: &mut Vec<f64>) {
        let ftl = view.ftl;
        let outside: u64 = (0..self.geometry.n_dies)
            .map(DieIdx)
            .filter(|&d| !self.in_set(tenant, d))
            .map(|d| ftl.valid_units_on(tenant, d))
            .sum();
        out.push(self.sets[tenant as usize].len() as f64);
        out.push(outside as f64 / self.geometry.units_per_page as f64);
        out.push(self.utility[tenant as usize]);
    }
}

/// Smallest smoothed host units per epoch that define a WAF (one unit per million epochs).
const HOST_UNITS_MIN: f64 = 1e-6;

/// Exponential moving averages, over epochs, of the counters that feed Eq. 1-3: N_r(t, c),
/// and each tenant's host units and GC copies (whose ratio is WAF(t) in Eq. 3). The first
/// epoch sets them; each later one moves them `alpha` = 1/`smoothing_epochs` of the way to
/// its counts: s <- s + alpha (x - s).
#[derive(Clone, Debug)]
pub struct Smoothed {
    n_dies: usize,
    alpha: f64,
    epochs: u64,
    /// N_r(t, c) per epoch, `reads[t * n_dies + c]`.
    pub reads: Vec<f64>,
    pub(crate) host_units: Vec<f64>,
    pub(crate) gc_units: Vec<f64>,
}

impl Smoothed {
    pub fn new(n_tenants: usize, n_dies: usize, smoothing_epochs: f64) -> Smoothed {
        assert!(smoothing_epochs >= 1.0, "smoothing over {smoothing_epochs} epochs");
        Smoothed {
            n_dies,
            alpha: 1.0 / smoothing_epochs,
            epochs: 0,
            reads: vec![0.0; n_tenants * n_dies],
            host_units: vec![0.0; n_tenants],
            gc_units: vec![0.0; n_tenants],
        }
    }

    /// The averages after one epoch alone (`smoothing_epochs` = 1, or any first epoch).
    pub fn of(stats: &EpochStats) -> Smoothed {
        let mut s = Smoothed::new(stats.host_units.len(), stats.n_dies, 1.0);
        s.update(stats);
        s
    }

    /// Fold in one epoch's counters.
    pub fn update(&mut self, stats: &EpochStats) {
        assert_eq!(stats.reads.len(), self.reads.len(), "epoch counters of another device");
        let a = if self.epochs == 0 { 1.0 } else { self.alpha };
        let fold =
            |s: &mut [f64], x: &[u64]| s.iter_mut().zip(x).for_each(|(s, &x)| *s += a * (x as f64 - *s));
        fold(&mut self.reads, &stats.reads);
        fold(&mut self.host_units, &stats.host_units);
        fold(&mut self.gc_units, &stats.gc_units);
        self.epochs += 1;
    }

    /// WAF(t) of Eq. 3: (host + GC units) / host units, smoothed; 1 for a tenant that has
    /// not written, or whose average has decayed below `HOST_UNITS_MIN` (a ratio of two
    /// vanishing averages says nothing, and may overflow).
    pub fn waf(&self, t: usize) -> f64 {
        let h = self.host_units[t];
        if h >= HOST_UNITS_MIN {
            (h + self.gc_units[t]) / h
        } else {
            1.0
        }
    }

    /// The smoothed host page reads of `t` per epoch, over every die.
    pub(crate) fn tenant_reads(&self, t: usize) -> f64 {
        self.reads[t * self.n_dies..(t + 1) * self.n_dies].iter().sum()
    }
}

/// The quantities of Eq. 1-3 for one epoch: N_w(t) from the epoch's own host programs, WAF(t)
/// and N_r(t, c) from the moving averages.
pub struct EpochModel {
    n_dies: usize,
    /// N_r(t, c): smoothed host page reads, `reads[t * n_dies + c]`.
    reads: Vec<f64>,
    /// N_w(t) * WAF(t): expected page programs of tenant t over the epoch (Eq. 3's numerator).
    programs: Vec<f64>,
    /// The same with N_w(t) smoothed too: the anti-starvation guard's estimate, so that a
    /// bursty writer is not judged by one calm epoch.
    programs_smoothed: Vec<f64>,
    window_ns: f64,
    read_ns: f64,
    program_ns: f64,
    read_exponent: f64,
    traffic_cap: f64,
}

impl EpochModel {
    pub fn new(
        stats: &EpochStats,
        smoothed: &Smoothed,
        units_per_page: u32,
        read_ns: f64,
        program_ns: f64,
        config: &UpiConfig,
    ) -> EpochModel {
        // N_w(t): host page programs this epoch; WAF(t) smoothed (Eq. 3, §4).
        let programs = stats
            .host_units
            .iter()
            .enumerate()
            .map(|(t, &h)| if h == 0 { 0.0 } else { h as f64 / units_per_page as f64 * smoothed.waf(t) })
            .collect::<Vec<f64>>();
        assert!(programs.iter().all(|p| p.is_finite() && *p >= 0.0), "expected programs {programs:?}");
        assert!(stats.window > SimTime::ZERO, "an epoch of zero length");
        assert_eq!(smoothed.n_dies, stats.n_dies, "averages of another device");
        let programs_smoothed = (0..programs.len())
            .map(|t| smoothed.host_units[t] / units_per_page as f64 * smoothed.waf(t))
            .collect();
        EpochModel {
            n_dies: stats.n_dies,
            reads: smoothed.reads.clone(),
            programs,
            programs_smoothed,
            window_ns: stats.window.ns() as f64,
            read_ns,
            program_ns,
            read_exponent: config.read_exponent,
            traffic_cap: config.traffic_cap,
        }
    }

    fn n_tenants(&self) -> usize {
        self.programs.len()
    }

    /// N_r(t, c).
    pub(crate) fn reads(&self, t: usize, c: usize) -> f64 {
        self.reads[t * self.n_dies + c]
    }

    /// Expected reads of die `c` from every tenant.
    pub(crate) fn reads_on_die(&self, c: usize) -> f64 {
        (0..self.n_tenants()).map(|t| self.reads(t, c)).sum()
    }

    /// Eq. 3: N_p(t, c, S) = N_w(t) * WAF(t) / |S_t| if c is in S_t, else 0.
    pub fn expected_programs(&self, t: usize, c: usize, set_of_die: &[u16], set_sizes: &[u32]) -> f64 {
        if set_of_die[c] as usize == t {
            self.programs[t] / set_sizes[t] as f64
        } else {
            0.0
        }
    }

    /// Eq. 2: Traffic(c, S) = sum over t of (N_r(t, c) * tau_r + N_p(t, c, S) * tau_p) / window.
    pub fn traffic(&self, c: usize, set_of_die: &[u16], set_sizes: &[u32]) -> f64 {
        self.traffic_with(&self.programs, c, set_of_die, set_sizes)
    }

    /// Eq. 2 with the given N_w(t) * WAF(t) per tenant.
    fn traffic_with(&self, programs: &[f64], c: usize, set_of_die: &[u16], set_sizes: &[u32]) -> f64 {
        let busy_ns: f64 = (0..self.n_tenants())
            .filter(|&t| set_of_die[c] as usize == t)
            .map(|t| programs[t] / set_sizes[t] as f64 * self.program_ns)
            .sum::<f64>()
            + (0..self.n_tenants()).map(|t| self.reads(t, c) * self.read_ns).sum::<f64>();
        busy_ns / self.window_ns
    }

    /// The highest Eq. 2 traffic over the dies of `t`'s set under `set_of_die`, with every
    /// tenant's writes smoothed (the anti-starvation guard's prediction for a donor).
    pub(crate) fn set_traffic_max(&self, t: usize, set_of_die: &[u16], set_sizes: &[u32]) -> f64 {
        (0..self.n_dies)
            .filter(|&c| set_of_die[c] as usize == t)
            .map(|c| self.traffic_with(&self.programs_smoothed, c, set_of_die, set_sizes))
            .fold(0.0, f64::max)
    }

    /// Eq. 1 with the §6 exponents: sum_c N_r^a / sum_c (N_r^a / (1 - Traffic)^g), where
    /// 1 / (1 - Traffic) is `delay_weight`. A tenant that read nothing has utility 1 (no read
    /// of it waits on any traffic).
    pub fn utility(&self, t: usize, set_of_die: &[u16], set_sizes: &[u32], traffic_exponent: f64) -> f64 {
        let mut num = 0.0;
        let mut den = 0.0;
        for c in 0..self.n_dies {
            let r = self.reads(t, c);
            if r <= 0.0 {
                continue;
            }
            let w = r.powf(self.read_exponent);
            num += w;
            den += w * delay_weight(self.traffic(c, set_of_die, set_sizes), self.traffic_cap)
                .powf(traffic_exponent);
        }
        if num == 0.0 {
            1.0
        } else {
            num / den
        }
    }
}

/// Order of dies for a transfer: fewest expected reads first (§4), then lowest index.
fn least_read(model: &EpochModel, a: DieIdx, b: DieIdx) -> std::cmp::Ordering {
    model.reads_on_die(a.0 as usize).total_cmp(&model.reads_on_die(b.0 as usize)).then(a.0.cmp(&b.0))
}

/// The M/M/1 delay factor 1 / (1 - rho) of Eq. 1, continued along its tangent beyond `cap`
/// (`1/(1-cap) + (rho - cap)/(1-cap)^2`): finite and increasing for every rho >= 0, so an
/// overloaded die (Traffic >= 1) weighs more the more it is overloaded instead of dividing
/// by zero or turning negative.
pub fn delay_weight(rho: f64, cap: f64) -> f64 {
    assert!(rho >= 0.0 && rho.is_finite(), "traffic {rho}");
    if rho <= cap {
        1.0 / (1.0 - rho)
    } else {
        let a = 1.0 / (1.0 - cap);
        a + (rho - cap) * a * a
    }
}

/// (donor, receiver): the tenants of highest and lowest utility (ties: the lowest index),
/// or `None` if all utilities are equal.
fn extremes(utility: &[f64]) -> Option<(usize, usize)> {
    let mut hi = 0;
    let mut lo = 0;
    for (t, &u) in utility.iter().enumerate() {
        if u > utility[hi] {
            hi = t;
        }
        if u < utility[lo] {
            lo = t;
        }
    }
    (utility[hi] > utility[lo]).then_some((hi, lo))
}

/// The knobs of `upi` and `upi-guarded`: the ranges `check_knobs` enforces and `ftlab
/// schemes` lists (defaults: the config's serde defaults, `GUARDED_DEFAULTS` for the preset).
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "epoch_s",
        "s",
        KnobKind::Float(Bounds::closed(0.001, 86_400.0)),
        "How often utilities are computed and at most one die changes sets.",
    ),
    Knob::new(
        "relocation_weight",
        "",
        KnobKind::Float(Bounds::closed(0.0, 1e6)),
        "Weight of a block's reads in GC's cost-benefit score when it lies outside its owner's set (0 = \
         lazy).",
    ),
    Knob::new(
        "read_exponent",
        "",
        KnobKind::Float(Bounds::open_lo(0.0, 8.0)),
        "Exponent on N_r in Eq. 1 (> 1 favours a tenant's common case, < 1 its tail).",
    ),
    Knob::new(
        "traffic_exponents",
        "",
        KnobKind::FloatList(Bounds::open_lo(0.0, 8.0)),
        "Per-tenant exponent on 1 - Traffic in Eq. 1 (asymmetric service); empty = all 1.",
    )
    .also("one per tenant, or empty"),
    Knob::new(
        "read_only_dies",
        "dies",
        KnobKind::IntList(IntBounds::ANY),
        "Dies in no allocation set once the timed run starts (serve reads only).",
    )
    .also("distinct die indices in [0, dies); every set keeps >= min_set_dies"),
    Knob::new(
        "traffic_cap",
        "",
        KnobKind::Float(Bounds::open(0.0, 1.0)),
        "Traffic beyond which Eq. 1's 1 / (1 - Traffic) continues along its tangent.",
    ),
    Knob::new(
        "initial_shares",
        "dies",
        KnobKind::IntList(IntBounds::ANY),
        "Dies of each tenant's initial set; empty = proportional to namespace size.",
    )
    .also("one per tenant, each in [1, dies], summing to the device's dies"),
    Knob::new(
        "min_set_dies",
        "dies",
        KnobKind::Int(IntBounds::at_least(1)),
        "Smallest set a donor may be left with.",
    ),
    Knob::new(
        "smoothing_epochs",
        "epochs",
        KnobKind::Float(Bounds::closed(1.0, 1e6)),
        "Time constant of the moving averages feeding Eq. 1-3 (1 = no smoothing).",
    ),
    Knob::new(
        "room_home",
        "",
        KnobKind::Bool,
        "Relocation pulls data home only while its owner's data fills less than the device's density of its \
         set (ours).",
    ),
    Knob::new(
        "donor_traffic_max",
        "",
        KnobKind::Float(Bounds::open_lo(0.0, 10.0)),
        "Anti-starvation guard: refuse a move that predicts a donor die's traffic above this (ours).",
    )
    .absent("no guard"),
    Knob::new(
        "utility_gap_min",
        "",
        KnobKind::Float(Bounds::closed(0.0, 1.0)),
        "A die moves only if the utilities differ by more than this (ours).",
    ),
];

fn check_knobs(c: &UpiConfig, n_tenants: usize) -> Result<(), SchemeConfigError> {
    check_all(KNOBS, c)?;
    if !c.traffic_exponents.is_empty() && c.traffic_exponents.len() != n_tenants {
        return Err(SchemeConfigError::new(
            "traffic_exponents",
            format!(
                "must list one exponent per tenant ({n_tenants}) or be empty, got {}",
                c.traffic_exponents.len()
            ),
        ));
    }
    Ok(())
}

/// Read-only dies are valid, distinct, and leave every set at least `min_set_dies` dies.
fn check_read_only(c: &UpiConfig, sets: &[Vec<DieIdx>], n_dies: u32) -> Result<(), SchemeConfigError> {
    for (i, &d) in c.read_only_dies.iter().enumerate() {
        if d >= n_dies {
            return Err(SchemeConfigError::new(
                format!("read_only_dies.{i}"),
                format!("must be a die index in [0, {n_dies}), got {d}"),
            ));
        }
        if c.read_only_dies[..i].contains(&d) {
            return Err(SchemeConfigError::new(
                format!("read_only_dies.{i}"),
                format!("die {d} is listed twice"),
            ));
        }
    }
    for (t, set) in sets.iter().enumerate() {
        let left = set.iter().filter(|d| !c.read_only_dies.contains(&d.0)).count() as u32;
        if left < c.min_set_dies {
            return Err(SchemeConfigError::new(
                "read_only_dies",
                format!(
                    "tenant {t}'s set keeps {left} of its {} dies, fewer than min_set_dies = {}",
                    set.len(),
                    c.min_set_dies
                ),
            ));
        }
    }
    Ok(())
}
