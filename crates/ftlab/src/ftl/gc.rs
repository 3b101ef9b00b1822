//! GC victim selection (greedy, cost-benefit) and the static wear-leveling check. Only the
//! choice: when GC runs, its steps and the copies are the engine's GC paths (its start
//! `simulation::jobs`, its steps `simulation::gc`, the copy loop `simulation::copy`, under both
//! executors), the erase a job's (`simulation::jobs`). Schemes
//! may replace the choice (see `scheme`); a scored choice of theirs can use the same indexed
//! search (`Ftl::best_eligible`).

use super::blocks::{BlockInfo, BlockState, GREEDY_RUN_BLOCKS, NOT_COLLECTABLE};
use super::victim_index::SlotScore;
use super::Ftl;
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

/// How GC picks a victim among a die's full blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    /// Fewest valid units.
    Greedy,
    /// Largest age * (1 - u) / (2u), u the valid fraction (Rosenblum & Ousterhout, LFS).
    CostBenefit,
}

impl Ftl {
    /// Whether `block` may be taken as a GC victim: full, all pages programmed.
    pub fn is_collectable(&self, block: BlockIdx) -> bool {
        let info = self.blocks().get(block);
        info.state == BlockState::Full && info.programmed_pages == self.geometry.pages_per_block
    }

    /// A victim on `die` under `policy`, or `None` if no full block has an invalid unit.
    /// Ties go to the lowest block index (deterministic).
    pub fn select_victim(&self, die: DieIdx, policy: VictimPolicy, now: SimTime) -> Option<BlockIdx> {
        match policy {
            VictimPolicy::Greedy => {
                let victim = self.greedy_victim(die);
                if self.checks_victims() {
                    assert_eq!(
                        victim,
                        self.scored_victim(die, policy, now),
                        "greedy victim of die {}",
                        die.0
                    );
                }
                victim
            }
            VictimPolicy::CostBenefit => {
                let upb = self.geometry.units_per_block;
                let exact = |v: u32, stamp: i64| (v < upb).then(|| cost_benefit(v, upb, age(now, stamp)));
                let score = |_: u32, info: &BlockInfo| exact(info.valid_units, info.last_write_ns);
                let victim = self.best_eligible(die, |_| false, exact, |_, _, _, _| 0.0, score).map(BlockIdx);
                debug_assert_eq!(victim, self.scored_victim(die, policy, now), "indexed search differs");
                victim
            }
        }
    }

    /// The eligible block of `die` (full, every page programmed) with the highest `score`
    /// (`None`: no candidate), ties to the lowest index: what a scan of the die's blocks in
    /// order finds, by that scan unless `Ftl::enable_victim_bounds` built the index. (Building
    /// it at the first search for a scheme that scores under greedy, `upi`, made the bench
    /// case `upi-mixed-70r30w` 0.90x the CPU but put its peak RSS over the bench's 80 MiB; see
    /// docs/PERFORMANCE.md.) With the index (`ftl::victim_index`), the blocks of an owner for
    /// which `bounded` is false must score `exact(valid units, write stamp)`; those of the others at
    /// most `bound(v, stamp, owner, reads)` if they have at least v valid units, a stamp at
    /// least `stamp` and at most `reads` host reads (`None`: any number), `owner` being theirs
    /// (`None`: any owner from the index's last owner slot on). Neither may rise as the stamp
    /// grows, and a block without valid units must score +infinity. With the integrity
    /// oracle on, every search is checked against the scan.
    pub(crate) fn best_eligible(
        &self,
        die: DieIdx,
        bounded: impl Fn(u16) -> bool,
        exact: impl Fn(u32, i64) -> Option<f64>,
        bound: impl Fn(u32, i64, Option<u16>, Option<u32>) -> f64,
        mut score: impl FnMut(u32, &BlockInfo) -> Option<f64>,
    ) -> Option<u32> {
        let Some(mut index) = self.blocks().kept_index() else {
            return self.scan_eligible(die, score).map(|(_, b)| b);
        };
        let last = index.n_slots() - 1;
        let n_tenants = self.params.namespace_units.len() as u32;
        // Slot `last` holds every tenant from `last` on (and blocks of no tenant).
        let kind = |slot: u32| {
            let any =
                if slot < last { bounded(slot as u16) } else { (last..n_tenants).any(|t| bounded(t as u16)) };
            if any {
                SlotScore::Bounded
            } else {
                SlotScore::Exact
            }
        };
        let slot_bound =
            |v, stamp, slot: u32, reads| bound(v, stamp, (slot < last).then_some(slot as u16), reads);
        let victim = index.best(die.0, &self.blocks().info, kind, exact, slot_bound, &mut score);
        drop(index);
        if self.checks_victims() {
            let scan = self.scan_eligible(die, &mut score).map(|(_, b)| b);
            assert_eq!(victim, scan, "the indexed victim search on die {} differs from a scan", die.0);
        }
        victim
    }

    /// The greedy victim from the dense keys: the first block of the die with the fewest
    /// valid units among the candidates (what `scored_victim` finds under `Greedy`). The
    /// minima of the die's runs of 64 keys (`Blocks::greedy_run_mins`, kept as keys change)
    /// give the first run holding the smallest; the first position of that key is then sought
    /// in that run only. (Before the kept minima, every search took them over all the die's
    /// keys: 2,048 on the `mqsim` device, 5% of the bench's preconditioning.)
    fn greedy_victim(&self, die: DieIdx) -> Option<BlockIdx> {
        let mut best = (NOT_COLLECTABLE, 0);
        for (r, &min) in (0..).zip(self.blocks().greedy_run_mins(die)) {
            if min < best.0 {
                best = (min, r);
            }
        }
        if best.0 == NOT_COLLECTABLE {
            return None;
        }
        let (min, run) = best;
        let keys = self.blocks().greedy_run_keys(die, run);
        let pos = keys.iter().position(|&k| k == min).expect("the minimum is in its run") as u32;
        Some(BlockIdx(self.geometry.blocks_of_die(die).start + run * GREEDY_RUN_BLOCKS + pos))
    }

    /// `best_eligible` without the index: a scan of every block of the die (also the integrity
    /// oracle's reference).
    fn scan_eligible(
        &self,
        die: DieIdx,
        mut score: impl FnMut(u32, &BlockInfo) -> Option<f64>,
    ) -> Option<(f64, u32)> {
        let mut best: Option<(f64, u32)> = None;
        for b in self.geometry.blocks_of_die(die) {
            let info = &self.blocks().info[b as usize];
            if info.state != BlockState::Full || info.programmed_pages != self.geometry.pages_per_block {
                continue;
            }
            if let Some(s) = score(b, info) {
                if best.is_none_or(|(bs, _)| s > bs) {
                    best = Some((s, b));
                }
            }
        }
        best
    }

    /// The victim by a scan of the die's `BlockInfo`s, scoring each candidate (the reference
    /// of the indexed search, `best_eligible`).
    pub(crate) fn scored_victim(&self, die: DieIdx, policy: VictimPolicy, now: SimTime) -> Option<BlockIdx> {
        let upb = self.geometry.units_per_block;
        let mut best: Option<(f64, u32)> = None;
        for b in self.geometry.blocks_of_die(die) {
            let info = &self.blocks().info[b as usize];
            if info.state != BlockState::Full
                || info.valid_units >= upb
                || info.programmed_pages * self.geometry.units_per_page != upb
            {
                continue;
            }
            let score = match policy {
                VictimPolicy::Greedy => -(info.valid_units as f64),
                VictimPolicy::CostBenefit => {
                    cost_benefit(info.valid_units, upb, age(now, info.last_write_ns))
                }
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| BlockIdx(b))
    }

    /// Static wear leveling: if the erase-count gap on `die` (max over all blocks minus min
    /// over full blocks) exceeds `gap`, the least-erased full block, whose cold data should
    /// move so the block can take hot writes.
    pub(crate) fn static_wl_victim(&self, die: DieIdx, gap: u32) -> Option<BlockIdx> {
        let mut max = 0;
        let mut coldest: Option<(u32, u32)> = None;
        for b in self.geometry.blocks_of_die(die) {
            let info = &self.blocks().info[b as usize];
            max = max.max(info.erase_count);
            if self.is_collectable(BlockIdx(b)) && coldest.is_none_or(|(e, _)| info.erase_count < e) {
                coldest = Some((info.erase_count, b));
            }
        }
        coldest.filter(|&(e, _)| max - e > gap).map(|(_, b)| BlockIdx(b))
    }
}

/// Age of a block with write stamp `last_write_ns` at `now` (0 if stamped later).
pub(crate) fn age(now: SimTime, last_write_ns: i64) -> SimTime {
    SimTime((now.ns() as i128 - last_write_ns as i128).max(0) as u64)
}

/// Cost-benefit score of a block with `valid` of `units` valid units and `age` since its
/// last write: age * (1 - u) / (2u); an empty block scores infinity.
pub(crate) fn cost_benefit(valid: u32, units: u32, age: SimTime) -> f64 {
    if valid == 0 {
        return f64::INFINITY;
    }
    let u = valid as f64 / units as f64;
    (age.ns() as f64 + 1.0) * (1.0 - u) / (2.0 * u)
}
