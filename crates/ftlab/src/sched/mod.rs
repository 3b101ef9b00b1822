//! Flash operation schedulers: the queue of pending operations at each die and the choice of
//! the next one when the die goes idle. `priority` serves host reads, then host writes, then
//! GC (GC first when the die's free space is critical); `fifo` serves in arrival order. It
//! does not time anything (see `flash::array`). Every queue is bounded by an assertion. The
//! queued operations are stored by value, so taking the next one reads the queue in order.

use crate::flash::geometry::DieIdx;
use crate::scenario::SchedulerKind;
use std::collections::VecDeque;

/// Priority class of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    HostRead = 0,
    HostWrite = 1,
    Gc = 2,
}

/// Per-die queues of pending operations (`Op`: the caller's operation record).
#[derive(Clone, Debug)]
pub struct Scheduler<Op> {
    kind: SchedulerKind,
    queues: Vec<[VecDeque<Op>; 3]>,
    pending: usize,
    pending_max: usize,
}

impl<Op: Copy> Scheduler<Op> {
    /// `pending_max` bounds the operations queued over all dies (a bug guard).
    pub fn new(kind: SchedulerKind, n_dies: u32, pending_max: usize) -> Scheduler<Op> {
        let queues = (0..n_dies).map(|_| Default::default()).collect();
        Scheduler { kind, queues, pending: 0, pending_max }
    }

    #[inline]
    pub fn push(&mut self, die: DieIdx, class: OpClass, op: Op) {
        let q = match self.kind {
            SchedulerKind::Priority => class as usize,
            SchedulerKind::Fifo => 0,
        };
        self.queues[die.0 as usize][q].push_back(op);
        self.pending += 1;
        assert!(self.pending <= self.pending_max, "scheduler holds {} operations, bound {}", self.pending, self.pending_max);
    }

    /// The next operation for idle `die`; `gc_urgent` puts GC first (free space critical).
    #[inline]
    pub fn pop(&mut self, die: DieIdx, gc_urgent: bool) -> Option<Op> {
        let qs = &mut self.queues[die.0 as usize];
        let order: [usize; 3] = if gc_urgent { [2, 0, 1] } else { [0, 1, 2] };
        let op = order.iter().find_map(|&q| qs[q].pop_front())?;
        self.pending -= 1;
        Some(op)
    }

    /// Remove and return the first of the first `scan_max` operations queued at `die` in
    /// `class`'s queue that `pred` accepts (multi-plane partners, reads during a suspension).
    pub fn take_matching(&mut self, die: DieIdx, class: OpClass, scan_max: usize, mut pred: impl FnMut(&Op) -> bool) -> Option<Op> {
        let q = match self.kind {
            SchedulerKind::Priority => class as usize,
            SchedulerKind::Fifo => 0,
        };
        let queue = &mut self.queues[die.0 as usize][q];
        let i = queue.iter().take(scan_max).position(&mut pred)?;
        self.pending -= 1;
        queue.remove(i)
    }

    pub fn is_empty(&self, die: DieIdx) -> bool {
        self.queues[die.0 as usize].iter().all(VecDeque::is_empty)
    }

    /// Operations queued (not started) over all dies.
    pub fn pending(&self) -> usize {
        self.pending
    }
}
