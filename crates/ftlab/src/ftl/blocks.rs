//! The blocks' table (`Blocks`): every block's state (a `BlockInfo` of `ftl::block_info`, whose
//! types this module re-exports), the per-(die, plane) free-block pools (dynamic wear leveling
//! lives here: the pool hands out the least-worn free block), the greedy GC key of every block
//! and the index of a scored victim search (`ftl::victim_index`), kept in step with the state.
//! Not the mapping (see `ftl::mod`) and not the choice of GC victims (see `ftl::gc`).

pub(crate) use super::block_info::{BlockInfo, N_WRITE_CLASSES, OWNER_NONE};
pub use super::block_info::{BlockState, WriteClass};
use super::victim_index::VictimIndex;
use super::Div;
use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
use std::cell::{RefCell, RefMut};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `Blocks::greedy_keys` value of a block that may not be a GC victim.
pub const NOT_COLLECTABLE: u32 = u32::MAX;

/// Blocks per run of a die's greedy keys whose minimum `Blocks::greedy_run_mins` keeps (the
/// die's last run may be shorter).
pub(crate) const GREEDY_RUN_BLOCKS: u32 = 64;

/// Every block's state, and a pool of free blocks per die.
#[derive(Clone, Debug)]
pub struct Blocks {
    pub info: Vec<BlockInfo>,
    /// Free blocks per die, or per (die, plane), keyed (erase count or 0, block).
    pools: Vec<BinaryHeap<Reverse<(u32, u32)>>>,
    /// Free blocks per die (the sum of its pools).
    free_per_die: Vec<u32>,
    pools_per_die: u32,
    blocks_per_pool: u32,
    dynamic_wear_leveling: bool,
    /// Per block: its valid units if it is a greedy GC candidate (full, every page
    /// programmed, at least one invalid unit), else `NOT_COLLECTABLE`. A dense copy of what
    /// `info` says, so a victim search reads 4 bytes per block instead of a `BlockInfo`.
    greedy_keys: Vec<u32>,
    /// Per die, per run of `GREEDY_RUN_BLOCKS` of its blocks (at `die * runs_per_die + run`):
    /// the least greedy key of the run, so that a greedy search reads a die's runs and one run,
    /// not every key of the die. Kept by `refresh_key`.
    greedy_run_mins: Vec<u32>,
    runs_per_die: u32,
    blocks_per_die_div: Div,
    /// The index of a scored victim search, kept once `enable_bounds` was called (a run whose
    /// victims are scored); `None` before, and the search scans. In a `RefCell` because a
    /// search (through `&Ftl`) catches its blocks up; nothing else borrows it.
    index: RefCell<Option<VictimIndex>>,
    units_per_block: u32,
    pages_per_block: u32,
    n_dies: u32,
    blocks_per_die: u32,
}

impl Blocks {
    /// `pools_per_die` is 1 (one pool per die) or the die's planes (one pool per plane, for
    /// frontiers that take a block on a given plane).
    pub(crate) fn new(geometry: &Geometry, dynamic_wear_leveling: bool, pools_per_die: u32) -> Blocks {
        assert!(pools_per_die == 1 || pools_per_die == geometry.planes_per_die);
        let blocks_per_pool = geometry.blocks_per_die / pools_per_die;
        let runs_per_die = geometry.blocks_per_die.div_ceil(GREEDY_RUN_BLOCKS);
        let pools = (0..geometry.n_dies * pools_per_die)
            .map(|pool| {
                let first = pool * blocks_per_pool;
                (first..first + blocks_per_pool).map(|b| Reverse((0u32, b))).collect::<BinaryHeap<_>>()
            })
            .collect();
        Blocks {
            info: vec![BlockInfo::FREE; geometry.n_blocks as usize],
            pools,
            free_per_die: vec![geometry.blocks_per_die; geometry.n_dies as usize],
            pools_per_die,
            blocks_per_pool,
            dynamic_wear_leveling,
            greedy_keys: vec![NOT_COLLECTABLE; geometry.n_blocks as usize],
            greedy_run_mins: vec![NOT_COLLECTABLE; (geometry.n_dies * runs_per_die) as usize],
            runs_per_die,
            blocks_per_die_div: Div::new(geometry.blocks_per_die),
            index: RefCell::new(None),
            n_dies: geometry.n_dies,
            blocks_per_die: geometry.blocks_per_die,
            units_per_block: geometry.units_per_block,
            pages_per_block: geometry.pages_per_block,
        }
    }

    /// Greedy keys of every block (see `greedy_key`), indexed by block.
    pub fn greedy_keys(&self) -> &[u32] {
        &self.greedy_keys
    }

    /// The least greedy key of each run of `GREEDY_RUN_BLOCKS` of `die`'s blocks, in order.
    pub(crate) fn greedy_run_mins(&self, die: DieIdx) -> &[u32] {
        let first = (die.0 * self.runs_per_die) as usize;
        &self.greedy_run_mins[first..first + self.runs_per_die as usize]
    }

    /// The greedy keys of run `run` of `die`'s blocks (`GREEDY_RUN_BLOCKS` of them, fewer
    /// for the die's last run): the keys `greedy_run_mins(die)[run]` is the least of.
    pub(crate) fn greedy_run_keys(&self, die: DieIdx, run: u32) -> &[u32] {
        let die_first = die.0 * self.blocks_per_die;
        let first = die_first + run * GREEDY_RUN_BLOCKS;
        let end = (first + GREEDY_RUN_BLOCKS).min(die_first + self.blocks_per_die);
        &self.greedy_keys[first as usize..end as usize]
    }

    /// What `greedy_keys[block]` must hold, computed from `info`.
    pub(crate) fn greedy_key(&self, block: BlockIdx) -> u32 {
        let info = &self.info[block.0 as usize];
        let collectable = info.state == BlockState::Full && info.programmed_pages == self.pages_per_block;
        if collectable && info.valid_units < self.units_per_block {
            info.valid_units
        } else {
            NOT_COLLECTABLE
        }
    }

    /// `refresh_key` after `block`'s valid units changed and nothing else did: a block that
    /// is not collectable (open, or a page of it still to program, as where every host unit
    /// and every copy lands; or a GC victim being copied) has the key `NOT_COLLECTABLE` and no
    /// place in the victim index whatever its valid units, so only a collectable block is
    /// refreshed.
    #[inline(always)]
    pub(crate) fn refresh_key_valid(&mut self, block: BlockIdx) {
        let info = &self.info[block.0 as usize];
        if info.state == BlockState::Full && info.programmed_pages == self.pages_per_block {
            self.refresh_key(block);
        } else {
            debug_assert_eq!(self.greedy_keys[block.0 as usize], NOT_COLLECTABLE);
        }
    }

    /// Bring `greedy_keys[block]` and the victim index in step with `info` after a change of
    /// its state, valid units or programmed pages (every such change goes through `Ftl` and
    /// calls this).
    #[inline(always)]
    pub(crate) fn refresh_key(&mut self, block: BlockIdx) {
        let b = block.0 as usize;
        let key = self.greedy_key(block);
        let old = std::mem::replace(&mut self.greedy_keys[b], key);
        if key != old {
            self.refresh_run_min(block.0, old, key);
        }
        if let Some(index) = self.index.get_mut() {
            index.refresh(block.0, self.info[b].owner);
        }
    }

    /// `block`'s greedy key went from `old` to `key`: its run's minimum follows. A key below
    /// the minimum is the new one; a key that was the minimum and rose may leave the run's
    /// minimum to another block, so the run is read again (keys rise only when a block leaves
    /// the candidates: once per GC victim, erase or reopening).
    #[inline(always)]
    fn refresh_run_min(&mut self, block: u32, old: u32, key: u32) {
        let die = self.blocks_per_die_div.div(block);
        let run = (block - die * self.blocks_per_die) / GREEDY_RUN_BLOCKS;
        let r = (die * self.runs_per_die + run) as usize;
        let min = self.greedy_run_mins[r];
        if key < min {
            self.greedy_run_mins[r] = key;
        } else if old == min {
            let keys = self.greedy_run_keys(DieIdx(die), run);
            self.greedy_run_mins[r] = keys.iter().copied().min().expect("a run has blocks");
        }
    }

    /// Keep the victim index from now on (built from the blocks' state now), with an owner
    /// slot for each of `n_tenants` tenants.
    pub(crate) fn enable_bounds(&mut self, n_tenants: usize) {
        *self.index.get_mut() = Some(self.new_index(n_tenants));
    }

    /// A victim index of the blocks' state now, with an owner slot for each of `n_tenants`.
    fn new_index(&self, n_tenants: usize) -> VictimIndex {
        let mut index = VictimIndex::new(
            self.n_dies,
            self.blocks_per_die,
            self.units_per_block,
            self.pages_per_block,
            n_tenants,
        );
        index.rebuild(&self.info);
        index
    }

    /// A host read was served from `block`: its read count rises (read-aware relocation).
    #[inline]
    pub(crate) fn note_read(&mut self, block: BlockIdx) {
        let info = &mut self.info[block.0 as usize];
        info.read_count = info.read_count.saturating_add(1);
        if let Some(index) = self.index.get_mut() {
            index.note_read(block.0, info);
        }
    }

    /// The victim index if it is kept (`enable_bounds`). Not built at a scored search without
    /// it: built for `upi` under greedy, it cost the bench case `upi-mixed-70r30w` 3.3 MiB,
    /// over the bench's 80 MiB (docs/PERFORMANCE.md).
    pub(crate) fn kept_index(&self) -> Option<RefMut<'_, VictimIndex>> {
        RefMut::filter_map(self.index.borrow_mut(), Option::as_mut).ok()
    }

    /// The victim index anew (after the write stamps moved).
    pub(crate) fn rebuild_index(&mut self) {
        if let Some(index) = self.index.get_mut() {
            index.rebuild(&self.info);
        }
    }

    /// The greedy run minima and the victim index agree with the blocks' state (integrity
    /// checks).
    pub(crate) fn check_index(&self) {
        for die in (0..self.n_dies).map(DieIdx) {
            for (run, &kept) in (0..).zip(self.greedy_run_mins(die)) {
                let min = self.greedy_run_keys(die, run).iter().copied().min().expect("a run has blocks");
                assert_eq!(kept, min, "greedy run {run} of die {}", die.0);
            }
        }
        if let Some(index) = self.index.borrow_mut().as_mut() {
            index.check(&self.info);
        }
    }

    /// Prefetch `block`'s state (both cache lines where its entry straddles two) and, for a
    /// change of its valid units (`with_key`), its greedy key. A hint only.
    #[inline(always)]
    pub(crate) fn prefetch(&self, block: u32, with_key: bool) {
        super::table::prefetch_whole(&self.info, block as usize);
        if with_key {
            super::table::prefetch(&self.greedy_keys, block as usize);
        }
    }

    pub fn get(&self, block: BlockIdx) -> &BlockInfo {
        &self.info[block.0 as usize]
    }

    pub(crate) fn get_mut(&mut self, block: BlockIdx) -> &mut BlockInfo {
        &mut self.info[block.0 as usize]
    }

    /// Free blocks of `die`.
    pub fn free_count(&self, die: DieIdx) -> u32 {
        self.free_per_die[die.0 as usize]
    }

    /// Take a free block of `die` (the least-worn one under dynamic wear leveling, else the
    /// lowest-numbered), or `None` if the die has none.
    pub(crate) fn take_free(&mut self, die: DieIdx) -> Option<BlockIdx> {
        let first = (die.0 * self.pools_per_die) as usize;
        let pool = if self.pools_per_die == 1 {
            first
        } else {
            (first..first + self.pools_per_die as usize)
                .filter_map(|p| self.pools[p].peek().map(|&Reverse(k)| (k, p)))
                .min()
                .map(|(_, p)| p)?
        };
        if self.pools[pool].is_empty() {
            return None;
        }
        Some(self.pop_pool(die, pool))
    }

    /// Take a free block of `die` on `plane` (least-worn first), or any plane's if that plane
    /// has none. Needs one pool per plane.
    pub(crate) fn take_free_on(&mut self, die: DieIdx, plane: u32) -> Option<BlockIdx> {
        assert!(self.pools_per_die > 1, "plane-aware allocation without per-plane pools");
        let pool = (die.0 * self.pools_per_die + plane) as usize;
        if self.pools[pool].is_empty() {
            return self.take_free(die);
        }
        Some(self.pop_pool(die, pool))
    }

    fn pop_pool(&mut self, die: DieIdx, pool: usize) -> BlockIdx {
        let Reverse((_, b)) = self.pools[pool].pop().expect("a non-empty pool");
        self.free_per_die[die.0 as usize] -= 1;
        let info = &self.info[b as usize];
        assert_eq!(info.state, BlockState::Free, "block {b} in the free pool is not free");
        assert_eq!(info.valid_units, 0, "free block {b} holds valid data");
        BlockIdx(b)
    }

    /// Return an erased block to its die's pool.
    pub(crate) fn release(&mut self, die: DieIdx, block: BlockIdx) {
        let info = &mut self.info[block.0 as usize];
        assert_eq!(info.valid_units, 0, "erasing block {} that holds valid data", block.0);
        assert_eq!(info.state, BlockState::Victim, "erasing block {} that is not a GC victim", block.0);
        let erase_count = info.erase_count + 1;
        *info = BlockInfo { erase_count, ..BlockInfo::FREE };
        self.refresh_key(block);
        let key = if self.dynamic_wear_leveling { erase_count } else { 0 };
        let pool = block.0 / self.blocks_per_pool;
        debug_assert_eq!(pool / self.pools_per_die, die.0);
        self.pools[pool as usize].push(Reverse((key, block.0)));
        self.free_per_die[die.0 as usize] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{BlockState, Blocks, GREEDY_RUN_BLOCKS, NOT_COLLECTABLE};
    use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
    use rand::Rng as _;

    /// `greedy_run_mins` against a reference taken from the keys themselves, after each of
    /// 20,000 random changes of a block (filled with 0 to 4 valid units of 4, or freed), on
    /// 2 dies of 150 blocks: runs of 64, 64 and a short last run of 22. Keys fall one by one
    /// (as invalidations make them) and rise (as a block leaves the candidates), including
    /// the rise of a run's minimum that another block shares.
    #[test]
    fn run_minima_follow_every_key_change() {
        let g = Geometry::new(1, 2, 1, 1, 150, 4, 4096, 4096).expect("a valid geometry");
        let mut blocks = Blocks::new(&g, false, 1);
        let mut rng = crate::sim::rng(7, 0);
        for _ in 0..20_000 {
            let b = BlockIdx(rng.random_range(0..g.n_blocks));
            let info = &mut blocks.info[b.0 as usize];
            if rng.random_bool(0.2) {
                info.state = BlockState::Free;
                info.valid_units = 0;
            } else {
                info.state = BlockState::Full;
                info.programmed_pages = g.pages_per_block;
                info.valid_units = rng.random_range(0..=g.units_per_block);
            }
            blocks.refresh_key(b);
            for die in 0..g.n_dies {
                let first = (die * g.blocks_per_die) as usize;
                let keys = &blocks.greedy_keys()[first..first + g.blocks_per_die as usize];
                let want: Vec<u32> = keys
                    .chunks(GREEDY_RUN_BLOCKS as usize)
                    .map(|run| run.iter().copied().min().unwrap_or(NOT_COLLECTABLE))
                    .collect();
                assert_eq!(want.len(), 3, "150 blocks make runs of 64, 64 and 22");
                assert_eq!(blocks.greedy_run_mins(DieIdx(die)), want.as_slice(), "die {die}");
            }
        }
        assert!(blocks.greedy_keys().contains(&0), "no block ever had 0 valid units");
        assert!(blocks.greedy_keys().contains(&NOT_COLLECTABLE), "no block left the candidates");
    }
}
