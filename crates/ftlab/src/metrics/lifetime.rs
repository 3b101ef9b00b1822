//! Lifetime metrics of every run, whatever the scheme: erase counts (min, max, mean over the
//! blocks of a group), the erase rate of the measured phase, wear imbalance (max / mean) and
//! the projected lifetime at `device.pe_cycles`, per channel, per tenant and for the device.
//! `WearCounters` counts the measured phase's erases per die and per tenant (the owner of the
//! erased block's data); `LifetimeResult::compute` turns them and the blocks' erase counts
//! into the report's numbers. The projection (`lifetime_days`) is documented in
//! docs/lifetime.md. Decides nothing; not the per-block table (`wear.parquet`,
//! `table::wear_table`) and not the fast-forward model of `ftlab lifetime` (`lifetime_model`).

use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
use crate::ftl::blocks::{BlockInfo, OWNER_NONE};
use crate::sim::time::SimTime;

/// Seconds per day.
pub(crate) const SECONDS_PER_DAY: f64 = 86_400.0;

/// Erases of the measured phase, per die and per tenant (reset when the measurement starts).
#[derive(Clone, Debug)]
pub(crate) struct WearCounters {
    pub(crate) per_die: Vec<u64>,
    /// Indexed by the owner of the erased block's data; blocks with no owner are not counted
    /// here (they are in `per_die`).
    pub(crate) per_tenant: Vec<u64>,
    /// `device.pe_cycles`.
    pub(crate) pe_cycles: u32,
    /// When a block's erase count first reached `pe_cycles` (whole run, not reset).
    pub(crate) first_wear_out: Option<SimTime>,
}

impl WearCounters {
    pub(crate) fn new(n_dies: usize, n_tenants: usize, pe_cycles: u32) -> WearCounters {
        WearCounters {
            per_die: vec![0; n_dies],
            per_tenant: vec![0; n_tenants],
            pe_cycles,
            first_wear_out: None,
        }
    }

    /// Block of `die` whose data belonged to `owner` (`OWNER_NONE` for none) was erased at
    /// `now`, its erase count becoming `count`.
    pub(crate) fn erase(&mut self, die: usize, owner: u16, count: u32, now: SimTime) {
        if count >= self.pe_cycles && self.first_wear_out.is_none() {
            self.first_wear_out = Some(now);
        }
        self.per_die[die] += 1;
        if owner != OWNER_NONE {
            if let Some(t) = self.per_tenant.get_mut(owner as usize) {
                *t += 1;
            }
        }
    }

    pub(crate) fn reset(&mut self) {
        self.per_die.fill(0);
        self.per_tenant.fill(0);
    }
}

/// The wear of one group of blocks (a channel, a tenant's blocks, the device).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WearGroup {
    pub(crate) blocks: u64,
    /// Erases in the measured phase.
    pub(crate) erases: u64,
    /// `erases / measured seconds` (0 when nothing was measured).
    pub(crate) erase_rate_per_s: f64,
    pub(crate) erase_count_min: u32,
    pub(crate) erase_count_max: u32,
    pub(crate) erase_count_mean: f64,
    /// Largest erase count when the timed run started (after preconditioning).
    pub(crate) erase_count_max_start: u32,
    /// `erase_count_max / erase_count_mean`; `None` when the mean is 0.
    pub(crate) wear_imbalance: Option<f64>,
    /// `lifetime_days(pe_cycles, erase_count_max, blocks, erase_rate_per_s)`.
    pub(crate) lifetime_days: Option<f64>,
}

impl WearGroup {
    /// The group of blocks whose erase counts are `counts`, erased `erases` times in
    /// `secs` measured seconds.
    pub(crate) fn of(counts: impl Iterator<Item = u32>, erases: u64, secs: f64, pe_cycles: u32) -> WearGroup {
        let (mut n, mut min, mut max, mut sum) = (0u64, u32::MAX, 0u32, 0u64);
        for c in counts {
            n += 1;
            min = min.min(c);
            max = max.max(c);
            sum += c as u64;
        }
        let mean = if n == 0 { 0.0 } else { sum as f64 / n as f64 };
        let rate = if secs > 0.0 { erases as f64 / secs } else { 0.0 };
        WearGroup {
            blocks: n,
            erases,
            erase_rate_per_s: rate,
            erase_count_min: if n == 0 { 0 } else { min },
            erase_count_max: max,
            erase_count_mean: mean,
            erase_count_max_start: 0,
            wear_imbalance: if mean > 0.0 { Some(max as f64 / mean) } else { None },
            lifetime_days: lifetime_days(pe_cycles, max, n, rate),
        }
    }
}

/// Projected lifetime in days of a group of `blocks` blocks whose most-worn block has
/// `erase_count_max` erases, erased `erase_rate_per_s` times a second in total: the group's
/// erases are assumed spread evenly over its blocks (wear leveling inside the group), so each
/// block ages `erase_rate_per_s / blocks` erases a second and the most-worn one reaches
/// `pe_cycles` after
///
/// `days = (pe_cycles - erase_count_max) * blocks / erase_rate_per_s / 86400`.
///
/// 0 when the most-worn block is already at or past `pe_cycles`; `None` (never, at this rate)
/// when the group was not erased or has no blocks.
pub(crate) fn lifetime_days(
    pe_cycles: u32,
    erase_count_max: u32,
    blocks: u64,
    erase_rate_per_s: f64,
) -> Option<f64> {
    if erase_count_max >= pe_cycles {
        return Some(0.0);
    }
    if blocks == 0 || erase_rate_per_s <= 0.0 {
        return None;
    }
    let left = (pe_cycles - erase_count_max) as f64;
    Some(left * blocks as f64 / erase_rate_per_s / SECONDS_PER_DAY)
}

/// Lifetime metrics of one run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LifetimeResult {
    pub(crate) pe_cycles: u32,
    pub(crate) device: WearGroup,
    /// When a block first reached `pe_cycles`, if one did.
    pub(crate) first_wear_out: Option<SimTime>,
    /// The device's first wear-out with no balancing between channels: the least
    /// `lifetime_days` over channels (`None` if no channel was erased).
    pub(crate) lifetime_days_first_channel: Option<f64>,
    /// Max over channels of the erase rate / their mean (`None` when nothing was erased).
    pub(crate) erase_rate_imbalance: Option<f64>,
    pub(crate) channels: Vec<WearGroup>,
    /// Per tenant: the blocks holding its data at the end (open, full or being collected)
    /// and the erases of blocks of its data.
    pub(crate) tenants: Vec<WearGroup>,
}

impl LifetimeResult {
    /// `start`: each block's erase count when the timed run started.
    pub(crate) fn compute(
        g: &Geometry,
        blocks: &[BlockInfo],
        start: &[u32],
        wear: &WearCounters,
        secs: f64,
    ) -> LifetimeResult {
        let pe_cycles = wear.pe_cycles;
        let counts = || blocks.iter().map(|b| b.erase_count);
        let mut device = WearGroup::of(counts(), wear.per_die.iter().sum(), secs, pe_cycles);
        device.erase_count_max_start = start.iter().copied().max().unwrap_or(0);
        let channels: Vec<WearGroup> = (0..g.channels)
            .map(|c| {
                let in_channel = |b: usize| g.channel_of(g.die_of_block(BlockIdx(b as u32))) == c;
                let erases = (0..g.n_dies)
                    .filter(|&d| g.channel_of(DieIdx(d)) == c)
                    .map(|d| wear.per_die[d as usize])
                    .sum();
                let mut w = WearGroup::of(
                    blocks.iter().enumerate().filter(|(b, _)| in_channel(*b)).map(|(_, i)| i.erase_count),
                    erases,
                    secs,
                    pe_cycles,
                );
                w.erase_count_max_start =
                    (0..blocks.len()).filter(|&b| in_channel(b)).map(|b| start[b]).max().unwrap_or(0);
                w
            })
            .collect();
        let tenants = (0..wear.per_tenant.len())
            .map(|t| {
                let own = blocks.iter().filter(|b| b.owner == t as u16).map(|b| b.erase_count);
                WearGroup::of(own, wear.per_tenant[t], secs, pe_cycles)
            })
            .collect();
        let first = channels.iter().filter_map(|c| c.lifetime_days).min_by(f64::total_cmp);
        let rates: Vec<f64> = channels.iter().map(|c| c.erase_rate_per_s).collect();
        let rate_mean = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
        let rate_imbalance =
            if rate_mean > 0.0 { Some(rates.iter().copied().fold(0.0, f64::max) / rate_mean) } else { None };
        LifetimeResult {
            pe_cycles,
            device,
            first_wear_out: wear.first_wear_out,
            lifetime_days_first_channel: first,
            erase_rate_imbalance: rate_imbalance,
            channels,
            tenants,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_projection() {
        // 100 blocks, most worn at 1000 of 3000 cycles, 2 erases a second in the group:
        // each block ages 2/100 = 0.02 erases/s; 2000 cycles left take 100000 s = 1.157407 days.
        let d = lifetime_days(3000, 1000, 100, 2.0).unwrap();
        assert!((d - 100_000.0 / 86_400.0).abs() < 1e-12, "{d}");
        assert_eq!(lifetime_days(3000, 3000, 100, 2.0), Some(0.0));
        assert_eq!(lifetime_days(3000, 10, 100, 0.0), None);
    }

    #[test]
    fn group_statistics() {
        // Counts 1, 2, 3, 6: mean 3, imbalance 2; 8 erases in 4 s = 2/s; (10 - 6) * 4 / 2 s.
        let g = WearGroup::of([1u32, 2, 3, 6].into_iter(), 8, 4.0, 10);
        assert_eq!((g.blocks, g.erase_count_min, g.erase_count_max), (4, 1, 6));
        assert_eq!(g.erase_count_mean, 3.0);
        assert_eq!(g.wear_imbalance, Some(2.0));
        assert_eq!(g.erase_rate_per_s, 2.0);
        assert!((g.lifetime_days.unwrap() - 8.0 / 86_400.0).abs() < 1e-15);
    }
}
