//! The event queue: events ordered by `(time, sequence number)`, so ties resolve in the
//! order they were scheduled and a run is a pure function of its inputs. It knows nothing of
//! what events mean.
//!
//! A binary min-heap on the key `(time, seq)`, compared as one `u128` (no branch). Keys are
//! unique (`seq` counts pushes), so the order of pops is the keys' order whatever the heap's
//! layout. Removing the minimum is deferred: `pop` hands out the root and leaves a hole there,
//! which the next `push` fills (one sift, where a removal and an insertion would take two) or
//! the next `pop` closes with the last entry. The event loop pushes about one event per event
//! it handles (a die's next operation), so most holes are filled by a push. The hole moves
//! down only while a child is due before the event filling it: an event due soon (a read's
//! transfer, a short phase) stops near the root, which a sift down to a leaf and back up
//! would not (a fifth fewer heap instructions on the bench).

use super::time::SimTime;

/// One pending event and its key.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time.0 as u128) << 64 | self.seq as u128
    }
}

/// A min-heap of `(time, seq, event)`.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<E: Copy> {
    heap: Vec<Entry<E>>,
    /// The root was popped: `heap[0]` is stale until a push fills it or a pop closes it.
    hole: bool,
    seq: u64,
    len_max: usize,
}

impl<E: Copy> EventQueue<E> {
    /// `len_max` bounds the pending events (a bug guard, asserted).
    pub(crate) fn new(len_max: usize) -> Self {
        EventQueue { heap: Vec::with_capacity(len_max.min(1 << 16)), hole: false, seq: 0, len_max }
    }

    pub(crate) fn push(&mut self, at: SimTime, event: E) {
        let e = Entry { time: at, seq: self.seq, event };
        self.seq += 1;
        if self.hole {
            self.hole = false;
            self.sift_from_root(e);
        } else {
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1, e);
        }
        assert!(
            self.len() <= self.len_max,
            "event queue holds {} events, bound {}",
            self.len(),
            self.len_max
        );
    }

    pub(crate) fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().expect("a hole is in a non-empty heap");
            if !self.heap.is_empty() {
                self.sift_from_root(last);
            }
        }
        let root = self.heap.first()?;
        self.hole = true;
        Some((root.time, root.event))
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Put `e` in the root's place: move the hole down along the smaller children while one
    /// is due before `e` (keys are unique: no ties).
    #[inline]
    fn sift_from_root(&mut self, e: Entry<E>) {
        let h = &mut self.heap[..];
        let n = h.len();
        let k = e.key();
        let mut pos = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (h[child + 1].key() < h[child].key()) as usize;
            if k < h[child].key() {
                h[pos] = e;
                return;
            }
            h[pos] = h[child];
            pos = child;
            child = 2 * pos + 1;
        }
        if child + 1 == n && h[child].key() < k {
            h[pos] = h[child];
            pos = child;
        }
        h[pos] = e;
    }

    /// Put `e` at `pos` (a hole or its own slot), moving it up past larger parents.
    #[inline]
    fn sift_up(&mut self, mut pos: usize, e: Entry<E>) {
        let k = e.key();
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.heap[parent].key() <= k {
                break;
            }
            self.heap[pos] = self.heap[parent];
            pos = parent;
        }
        self.heap[pos] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use rand::Rng;
    use std::collections::BTreeSet;

    /// Random interleavings of pushes and pops (many ties in time) pop in `(time, push
    /// order)` order, as a sorted set of the same keys does, and `len` counts what is pending.
    #[test]
    fn pops_in_time_then_push_order() {
        for seed in 0..20u64 {
            let mut r = rng(seed, 0);
            let mut q = EventQueue::new(10_000);
            let mut reference = BTreeSet::new();
            let (mut pushed, mut now) = (0u64, 0u64);
            for _ in 0..5_000 {
                if reference.is_empty() || r.random_bool(0.55) {
                    let at = now + r.random_range(0..4u64) * 10;
                    q.push(SimTime(at), pushed);
                    reference.insert((at, pushed));
                    pushed += 1;
                } else {
                    let (at, id) = reference.pop_first().expect("not empty");
                    assert_eq!(q.pop(), Some((SimTime(at), id)));
                    now = at;
                }
                assert_eq!(q.len(), reference.len());
                assert_eq!(q.is_empty(), reference.is_empty());
            }
            while let Some((at, id)) = reference.pop_first() {
                assert_eq!(q.pop(), Some((SimTime(at), id)));
            }
            assert_eq!(q.pop(), None);
            assert!(q.is_empty());
        }
    }
}
