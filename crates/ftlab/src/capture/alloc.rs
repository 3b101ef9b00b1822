//! The block allocator of the capture's file-system model: an ext4-like first fit over free
//! extents, with a goal.
//!
//! The device is `total` blocks of 4 KiB; blocks below `first` are reserved (the journal).
//! Free space is a set of disjoint, non-adjacent extents (start → length) in a `BTreeMap`, so
//! every search is deterministic. [`Allocator::alloc`] takes `want` blocks starting at the
//! goal if it is free, else from the first free extent after it, wrapping to the start; an
//! allocation that does not fit in one extent takes several (a fragmented file).
//! [`Allocator::free`] returns an extent and merges it with its neighbours.
//!
//! Not modelled: block groups, Orlov directory spreading, mballoc's preallocation windows
//! and buddy sizes, delayed allocation (blocks are allocated when the write call happens).

use std::collections::BTreeMap;

/// Free extents of a device of `total` blocks; see the module doc.
#[derive(Clone, Debug)]
pub(crate) struct Allocator {
    free: BTreeMap<u64, u64>,
    free_blocks: u64,
    first: u64,
    total: u64,
    /// The most blocks in use at once.
    pub(crate) peak_used: u64,
}

impl Allocator {
    /// All of `[first, total)` free.
    pub(crate) fn new(first: u64, total: u64) -> Allocator {
        assert!(first < total, "allocator: reserved {first} >= total {total}");
        Allocator {
            free: BTreeMap::from([(first, total - first)]),
            free_blocks: total - first,
            first,
            total,
            peak_used: 0,
        }
    }

    /// The first block an allocation may take (the goal of a new file).
    pub(crate) fn first(&self) -> u64 {
        self.first
    }

    pub(crate) fn free_blocks(&self) -> u64 {
        self.free_blocks
    }

    /// Allocate `want` blocks near `goal`, appending the extents (start, len) to `out`.
    /// `false` (and nothing allocated) when fewer than `want` blocks are free.
    pub(crate) fn alloc(&mut self, goal: u64, want: u64, out: &mut Vec<(u64, u64)>) -> bool {
        if want > self.free_blocks {
            return false;
        }
        let mut goal = goal.clamp(self.first, self.total - 1);
        let mut left = want;
        while left > 0 {
            let (start, len) = self.extent_at_or_after(goal);
            let from = start.max(goal);
            let take = left.min(start + len - from);
            self.take(start, len, from, take);
            out.push((from, take));
            left -= take;
            goal = from + take;
            if goal >= self.total {
                goal = self.first;
            }
        }
        self.free_blocks -= want;
        self.peak_used = self.peak_used.max(self.total - self.first - self.free_blocks);
        true
    }

    /// The free extent holding `goal`, else the first one after it, else the first of all.
    fn extent_at_or_after(&self, goal: u64) -> (u64, u64) {
        if let Some((&s, &l)) = self.free.range(..=goal).next_back() {
            if s + l > goal {
                return (s, l);
            }
        }
        let (&s, &l) = self
            .free
            .range(goal..)
            .next()
            .or_else(|| self.free.iter().next())
            .expect("alloc: no free extent though free_blocks > 0");
        (s, l)
    }

    /// Remove `[from, from + take)` from the free extent `(start, len)`.
    fn take(&mut self, start: u64, len: u64, from: u64, take: u64) {
        self.free.remove(&start);
        if from > start {
            self.free.insert(start, from - start);
        }
        let end = from + take;
        if end < start + len {
            self.free.insert(end, start + len - end);
        }
    }

    /// Return `[start, start + len)`; it must be allocated (asserted).
    pub(crate) fn free(&mut self, start: u64, len: u64) {
        assert!(
            len > 0 && start >= self.first && start + len <= self.total,
            "free: extent {start}+{len} out of range"
        );
        let (mut s, mut l) = (start, len);
        if let Some((&ps, &pl)) = self.free.range(..start).next_back() {
            assert!(ps + pl <= start, "free: {start}+{len} overlaps the free extent {ps}+{pl}");
            if ps + pl == start {
                self.free.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some((&ns, &nl)) = self.free.range(start..).next() {
            assert!(ns >= start + len, "free: {start}+{len} overlaps the free extent {ns}+{nl}");
            if ns == start + len {
                self.free.remove(&ns);
                l += nl;
            }
        }
        self.free.insert(s, l);
        self.free_blocks += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_with_goal_wraps_and_merges() {
        let mut a = Allocator::new(10, 100);
        let mut out = Vec::new();
        assert!(a.alloc(0, 5, &mut out)); // goal below `first` starts at the first block
        assert!(a.alloc(15, 5, &mut out)); // the goal is free: taken there
        assert!(a.alloc(12, 3, &mut out)); // 12 is taken: the next free extent, at 20
        assert_eq!(out, vec![(10, 5), (15, 5), (20, 3)]);
        a.free(15, 5);
        out.clear();
        assert!(a.alloc(12, 7, &mut out)); // first fit after the goal: 15..20, then 23..25
        assert_eq!(out, vec![(15, 5), (23, 2)]);
        out.clear();
        assert!(a.alloc(95, 8, &mut out)); // wraps from the end to the first free extent
        assert_eq!(out, vec![(95, 5), (25, 3)]);
        assert!(!a.alloc(0, a.free_blocks() + 1, &mut out));
        for &(s, l) in &[(10, 5), (15, 5), (20, 3), (23, 2), (95, 5), (25, 3)] {
            a.free(s, l);
        }
        assert_eq!((a.free_blocks(), a.free.len()), (90, 1), "all merged back into one extent");
        assert_eq!(a.peak_used, 23);
    }

    #[test]
    #[should_panic(expected = "overlaps")]
    fn freeing_a_free_extent_is_a_bug() {
        let mut a = Allocator::new(0, 10);
        a.free(2, 2);
    }
}
