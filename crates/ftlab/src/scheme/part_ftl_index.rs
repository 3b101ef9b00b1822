//! `part-ftl`'s index of erasable blocks: per die, one bit per block that may be erasable, so
//! that `PartFtl::erasable` (asked on every placed page, every poll and every GC start) looks
//! at a die's few marked blocks instead of every block of the die. It was a scan of the die's
//! `BlockInfo`s on every call: 71% of a part-ftl soak case's time (docs/PERFORMANCE.md).
//!
//! What this is and is not: a superset of the erasable blocks, kept by the scheme's events;
//! the scheme judges each marked block when it asks (`first`). A block is marked when any
//! event could have made it erasable: a unit placed in it or invalidated in it, a parity page
//! placed in it, its stripe (or the last live stripe with parity in it) dying. Unmarked when
//! it is erased, and when the scheme finds it with a valid unit or pinned by a live stripe
//! (either can only end with one of those events, which marks it again). A block that turns
//! erasable without an event (its last page programmed, its copy-out job over) stays marked
//! until then. So `first` returns exactly what a scan of the die in block order returned.
//! No allocation after `new`, no hashing.

use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
use std::cell::Cell;

/// The scheme's verdict on a marked block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mark {
    /// Erasable now: `first` returns it.
    Found,
    /// Not erasable yet, and may become so without an event: stays marked.
    Keep,
    /// Not erasable until an event marks it again: unmarked.
    Drop,
}

/// One bit per block, `words_per_die` words per die. `Cell`s so that a query (`&self`, as the
/// scheme's `gc_victim` is) may drop the marks it judged.
pub(super) struct ErasableIndex {
    words: Vec<Cell<u64>>,
    words_per_die: u32,
    blocks_per_die: u32,
}

impl ErasableIndex {
    pub(super) fn new(g: &Geometry) -> ErasableIndex {
        let words_per_die = g.blocks_per_die.div_ceil(64);
        ErasableIndex {
            words: vec![Cell::new(0); (words_per_die * g.n_dies) as usize],
            words_per_die,
            blocks_per_die: g.blocks_per_die,
        }
    }

    /// The word and bit of `block`.
    fn slot(&self, block: BlockIdx) -> (&Cell<u64>, u64) {
        let (die, i) = (block.0 / self.blocks_per_die, block.0 % self.blocks_per_die);
        (&self.words[(die * self.words_per_die + i / 64) as usize], 1 << (i % 64))
    }

    /// An event may have made `block` erasable.
    pub(super) fn mark(&self, block: BlockIdx) {
        let (w, bit) = self.slot(block);
        w.set(w.get() | bit);
    }

    /// `block` was erased.
    pub(super) fn unmark(&self, block: BlockIdx) {
        let (w, bit) = self.slot(block);
        w.set(w.get() & !bit);
    }

    /// The lowest-numbered marked block of `die` that `judge` finds erasable; the marks it
    /// drops on the way are cleared.
    pub(super) fn first(&self, die: DieIdx, judge: impl FnMut(BlockIdx) -> Mark) -> Option<BlockIdx> {
        self.scan(die, judge, |_| true)
    }

    /// How many marked blocks of `die` `judge` finds erasable, counting up to `cap` (the scan
    /// stops there); the marks it drops on the way are cleared, as `first` does.
    pub(super) fn count(&self, die: DieIdx, cap: u32, judge: impl FnMut(BlockIdx) -> Mark) -> u32 {
        if cap == 0 {
            return 0;
        }
        let mut found = 0;
        self.scan(die, judge, |_| {
            found += 1;
            found == cap
        });
        found
    }

    /// Visit `die`'s marked blocks in order: `judge` each, clear the marks it drops, and hand
    /// each one found to `stop`; the first for which `stop` says true ends the scan.
    fn scan(
        &self,
        die: DieIdx,
        mut judge: impl FnMut(BlockIdx) -> Mark,
        mut stop: impl FnMut(BlockIdx) -> bool,
    ) -> Option<BlockIdx> {
        let base = die.0 * self.words_per_die;
        for k in 0..self.words_per_die {
            let cell = &self.words[(base + k) as usize];
            let mut left = cell.get();
            while left != 0 {
                let bit = left & left.wrapping_neg();
                left &= left - 1;
                let block = BlockIdx(die.0 * self.blocks_per_die + k * 64 + bit.trailing_zeros());
                match judge(block) {
                    Mark::Found if stop(block) => return Some(block),
                    Mark::Found | Mark::Keep => {}
                    Mark::Drop => cell.set(cell.get() & !bit),
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(blocks_per_die: u32, n_dies: u32) -> ErasableIndex {
        let words_per_die = blocks_per_die.div_ceil(64);
        ErasableIndex {
            words: vec![Cell::new(0); (words_per_die * n_dies) as usize],
            words_per_die,
            blocks_per_die,
        }
    }

    /// Over a die of 130 blocks (three words, the last one partial), `first` gives what a
    /// scan in block order gives, for each verdict table; dropped marks are gone, kept ones
    /// stay, and the other die is untouched.
    #[test]
    fn first_is_the_scan_in_block_order() {
        let verdict = |b: u32| match b % 7 {
            0 => Mark::Found,
            1 | 2 => Mark::Drop,
            _ => Mark::Keep,
        };
        let idx = index(130, 2);
        let marked = [131u32, 133, 190, 193, 200, 259, 135, 196];
        for &b in &marked {
            idx.mark(BlockIdx(b));
        }
        idx.mark(BlockIdx(7)); // die 0
                               // The scan: the lowest marked block of die 1 whose verdict is Found.
        let mut sorted = marked;
        sorted.sort();
        let expect = sorted.iter().copied().find(|&b| verdict(b) == Mark::Found);
        assert_eq!(expect, Some(133)); // 133 = 7 x 19
        assert_eq!(idx.first(DieIdx(1), |b| verdict(b.0)), Some(BlockIdx(133)));
        // 131 (131 % 7 = 5, Keep) stays; nothing past 133 was judged, so all stay.
        let mut seen = Vec::new();
        assert_eq!(
            idx.first(DieIdx(1), |b| {
                seen.push(b.0);
                Mark::Drop
            }),
            None
        );
        assert_eq!(seen, sorted.to_vec());
        assert_eq!(idx.first(DieIdx(1), |_| Mark::Found), None, "every mark of die 1 dropped");
        assert_eq!(idx.first(DieIdx(0), |_| Mark::Found), Some(BlockIdx(7)));
        idx.unmark(BlockIdx(7));
        assert_eq!(idx.first(DieIdx(0), |_| Mark::Found), None);
    }

    /// `count` is the number of Found verdicts of the scan, capped, with the same drops.
    #[test]
    fn count_is_the_scans_found_verdicts_capped() {
        let verdict = |b: u32| match b % 7 {
            0 => Mark::Found,
            1 | 2 => Mark::Drop,
            _ => Mark::Keep,
        };
        let idx = index(130, 2);
        // Die 1 holds blocks 130..260: 133, 189 and 252 are Found (multiples of 7), 190 is a
        // Drop (190 % 7 = 1), 131 and 200 Keep.
        for b in [131u32, 133, 189, 190, 200, 252] {
            idx.mark(BlockIdx(b));
        }
        assert_eq!(idx.count(DieIdx(1), u32::MAX, |b| verdict(b.0)), 3);
        assert_eq!(idx.count(DieIdx(1), 2, |b| verdict(b.0)), 2);
        assert_eq!(idx.count(DieIdx(1), 0, |b| verdict(b.0)), 0);
        // 190 was dropped by the first count: a Found-for-all count sees the other five.
        assert_eq!(idx.count(DieIdx(1), u32::MAX, |_| Mark::Found), 5);
        assert_eq!(idx.count(DieIdx(0), u32::MAX, |_| Mark::Found), 0);
    }
}
