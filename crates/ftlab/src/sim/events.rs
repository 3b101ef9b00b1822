//! The event queue: events ordered by `(time, sequence number)`, so ties resolve in the
//! order they were scheduled and a run is a pure function of its inputs. It knows nothing of
//! what events mean.

use super::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A min-heap of `(time, seq, event)`.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<E: Ord + Copy> {
    heap: BinaryHeap<Reverse<(SimTime, u64, E)>>,
    seq: u64,
    len_max: usize,
}

impl<E: Ord + Copy> EventQueue<E> {
    /// `len_max` bounds the pending events (a bug guard, asserted).
    pub(crate) fn new(len_max: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(len_max.min(1 << 16)), seq: 0, len_max }
    }

    pub(crate) fn push(&mut self, at: SimTime, event: E) {
        self.heap.push(Reverse((at, self.seq, event)));
        self.seq += 1;
        assert!(
            self.heap.len() <= self.len_max,
            "event queue holds {} events, bound {}",
            self.heap.len(),
            self.len_max
        );
    }

    pub(crate) fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|Reverse((t, _, e))| (t, e))
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}
