//! GC victim selection (greedy, cost-benefit) and the static wear-leveling check. Only the
//! choice: moving the data and erasing is driven by the simulation (timed) or by
//! `simulation::precondition` (instant). Schemes may replace the choice (see `scheme`); a
//! scored choice of theirs can use the same bounded search (`Ftl::best_eligible`).

use super::blocks::{BlockInfo, BlockState, ChunkMin, CHUNK_BLOCKS, NOT_COLLECTABLE};
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
                debug_assert_eq!(victim, self.scored_victim(die, policy, now), "greedy keys out of step");
                victim
            }
            VictimPolicy::CostBenefit => {
                let upb = self.geometry.units_per_block;
                let bound = |c: &ChunkMin| cost_benefit(c.valid_units, upb, age(now, c.last_write_ns));
                let score = |_: u32, info: &BlockInfo| {
                    (info.valid_units < upb)
                        .then(|| cost_benefit(info.valid_units, upb, age(now, info.last_write_ns)))
                };
                let victim = self.best_eligible(die, bound, score).map(|(_, b)| BlockIdx(b));
                debug_assert_eq!(victim, self.scored_victim(die, policy, now), "bounded search differs");
                victim
            }
        }
    }

    /// The eligible block of `die` (full, every page programmed) with the highest `score`
    /// (`None`: no candidate), ties to the lowest index, with its score: what a scan of the
    /// die's blocks in order finds (and does, without `Ftl::enable_victim_bounds`). `bound` must be at least
    /// the score of every eligible block of a chunk, computed from the chunk's fewest valid units and
    /// oldest stamp (`ChunkMin`) by the same floating-point steps as the score, each monotone; a chunk
    /// whose bound is below the best score found is skipped unread. The chunk of highest bound is
    /// searched first, so that the best starts high.
    pub(crate) fn best_eligible(
        &self,
        die: DieIdx,
        bound: impl Fn(&ChunkMin) -> f64,
        mut score: impl FnMut(u32, &BlockInfo) -> Option<f64>,
    ) -> Option<(f64, u32)> {
        let blocks = self.geometry.blocks_of_die(die);
        if !self.blocks().bounds() {
            return self.scan_eligible(die, score);
        }
        if blocks.is_empty() {
            return None;
        }
        let chunks = self.blocks().chunks();
        let (c0, c1) = (blocks.start / CHUNK_BLOCKS, (blocks.end - 1) / CHUNK_BLOCKS + 1);
        // The chunk's eligible blocks within the die (a chunk may straddle two dies).
        let mask = |c: u32| {
            let first = c * CHUNK_BLOCKS;
            let lo = blocks.start.saturating_sub(first).min(CHUNK_BLOCKS);
            let hi = (blocks.end - first).min(CHUNK_BLOCKS);
            let range = (u64::MAX >> (64 - hi)) & !((1u64 << lo) - 1);
            chunks[c as usize].eligible & range
        };
        let mut best: Option<(f64, u32)> = None;
        let mut search = |c: u32, best: &mut Option<(f64, u32)>| {
            let mut bits = mask(c);
            while bits != 0 {
                let b = c * CHUNK_BLOCKS + bits.trailing_zeros();
                bits &= bits - 1;
                let Some(s) = score(b, &self.blocks().info[b as usize]) else { continue };
                if best.is_none_or(|(bs, bb)| s > bs || (s == bs && b < bb)) {
                    *best = Some((s, b));
                }
            }
        };
        let top = (c0..c1)
            .filter(|&c| mask(c) != 0)
            .map(|c| (bound(&chunks[c as usize]), c))
            .reduce(|a, b| if b.0 > a.0 { b } else { a });
        let (_, top) = top?;
        search(top, &mut best);
        for c in (c0..c1).filter(|&c| c != top) {
            if best.is_some_and(|(bs, _)| bound(&chunks[c as usize]) < bs) {
                continue;
            }
            search(c, &mut best);
        }
        best
    }

    /// The greedy victim from the dense keys: the first block of the die with the fewest
    /// valid units among the candidates (what `scored_victim` finds under `Greedy`).
    fn greedy_victim(&self, die: DieIdx) -> Option<BlockIdx> {
        let blocks = self.geometry.blocks_of_die(die);
        let keys = &self.blocks().greedy_keys()[blocks.start as usize..blocks.end as usize];
        let min = keys.iter().copied().min().filter(|&k| k != NOT_COLLECTABLE)?;
        let pos = keys.iter().position(|&k| k == min).expect("the minimum is in the slice");
        Some(BlockIdx(blocks.start + pos as u32))
    }

    /// `best_eligible` without minima kept (`Ftl::enable_victim_bounds`): a scan of every
    /// block of the die.
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
    /// of the bounded search, `best_eligible`).
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
