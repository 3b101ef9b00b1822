//! Flash operation schedulers: the queues of pending operations at each die and the choice of
//! the next one when the die goes idle. Which class goes to which queue, and in what order
//! the queues are served, is data (`ClassTable`), one row per `SchedulerKind`:
//! - `priority`: host reads, then host writes and parity, then GC and migration;
//! - `fifo`: one queue in arrival order;
//! - `edf`: earliest deadline first within a foreground queue (host, parity) and a
//!   background queue (jobs), the earlier head of the two first; operations without a
//!   deadline carry `SimTime::MAX` and keep arrival order among themselves.
//!
//! When a die's free space is critical (`gc_urgent`), the table's urgent queue goes first.
//! It does not time anything (see `flash::array`). Every queue is bounded by an assertion.

use crate::flash::geometry::DieIdx;
use crate::policy::{OpClass, N_CLASSES};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Flash operation scheduler at each die (`ftl.scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    /// Host reads, then host writes, then GC; GC first when a die's free space is critical.
    #[default]
    Priority,
    /// One queue in arrival order.
    Fifo,
    /// Earliest deadline first (PaRT-FTL): host operations by their request's deadline,
    /// jobs' operations by theirs; background jobs first when free space is critical.
    Edf,
}

/// How classes map to queues and how queues are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassTable {
    /// Queue of each `OpClass` (indexed by `class as usize`).
    pub queue_of: [u8; N_CLASSES],
    pub n_queues: u8,
    /// Queue served first when free space is critical.
    pub urgent_queue: u8,
    /// Queues are kept in deadline order and the queue with the earliest head goes first
    /// (else queues are FIFO and served in index order).
    pub by_deadline: bool,
}

impl SchedulerKind {
    /// The class table of this kind.
    pub fn table(self) -> ClassTable {
        // Classes: host read, host write, gc, migrate, parity.
        match self {
            SchedulerKind::Priority => ClassTable { queue_of: [0, 1, 2, 2, 1], n_queues: 3, urgent_queue: 2, by_deadline: false },
            SchedulerKind::Fifo => ClassTable { queue_of: [0; N_CLASSES], n_queues: 1, urgent_queue: 0, by_deadline: false },
            SchedulerKind::Edf => ClassTable { queue_of: [0, 0, 1, 1, 0], n_queues: 2, urgent_queue: 1, by_deadline: true },
        }
    }
}

/// What the scheduler needs to know of an operation.
pub trait SchedOp: Copy {
    fn class(&self) -> OpClass;
    /// Absolute deadline (`SimTime::MAX`: none).
    fn deadline(&self) -> SimTime;
}

/// Queues of at most this many queues per die.
const QUEUES_MAX: usize = N_CLASSES;

/// Per-die queues of pending operations (`Op`: the caller's operation record).
#[derive(Clone, Debug)]
pub struct Scheduler<Op> {
    table: ClassTable,
    /// `queues[die * n_queues + q]`.
    queues: Vec<VecDeque<Op>>,
    pending: usize,
    pending_max: usize,
}

impl<Op: SchedOp> Scheduler<Op> {
    /// `pending_max` bounds the operations queued over all dies (a bug guard).
    pub fn new(kind: SchedulerKind, n_dies: u32, pending_max: usize) -> Scheduler<Op> {
        let table = kind.table();
        assert!((1..=QUEUES_MAX).contains(&(table.n_queues as usize)) && table.urgent_queue < table.n_queues);
        assert!(table.queue_of.iter().all(|&q| q < table.n_queues), "class mapped to a missing queue");
        let queues = (0..n_dies as usize * table.n_queues as usize).map(|_| VecDeque::new()).collect();
        Scheduler { table, queues, pending: 0, pending_max }
    }

    pub fn table(&self) -> &ClassTable {
        &self.table
    }

    #[inline]
    fn base(&self, die: DieIdx) -> usize {
        die.0 as usize * self.table.n_queues as usize
    }

    #[inline]
    pub fn push(&mut self, die: DieIdx, op: Op) {
        let q = self.base(die) + self.table.queue_of[op.class() as usize] as usize;
        let queue = &mut self.queues[q];
        if self.table.by_deadline && queue.back().is_some_and(|b| b.deadline() > op.deadline()) {
            // After every operation due no later (arrival order among equal deadlines).
            let at = queue.partition_point(|o| o.deadline() <= op.deadline());
            queue.insert(at, op);
        } else {
            queue.push_back(op);
        }
        self.pending += 1;
        assert!(self.pending <= self.pending_max, "scheduler holds {} operations, bound {}", self.pending, self.pending_max);
    }

    /// The next operation for idle `die`; `gc_urgent` serves the urgent queue first.
    #[inline]
    pub fn pop(&mut self, die: DieIdx, gc_urgent: bool) -> Option<Op> {
        let base = self.base(die);
        let n = self.table.n_queues as usize;
        let q = if gc_urgent && !self.queues[base + self.table.urgent_queue as usize].is_empty() {
            self.table.urgent_queue as usize
        } else if self.table.by_deadline {
            // The queue whose head is due first (ties: the lower queue).
            (0..n).filter(|&q| !self.queues[base + q].is_empty()).min_by_key(|&q| (self.queues[base + q][0].deadline(), q))?
        } else {
            (0..n).find(|&q| !self.queues[base + q].is_empty())?
        };
        let op = self.queues[base + q].pop_front().expect("a non-empty queue");
        self.pending -= 1;
        Some(op)
    }

    /// Remove and return the first of the first `scan_max` operations queued at `die` in
    /// `class`'s queue that `pred` accepts (multi-plane partners, reads during a suspension).
    pub fn take_matching(&mut self, die: DieIdx, class: OpClass, scan_max: usize, mut pred: impl FnMut(&Op) -> bool) -> Option<Op> {
        let q = self.base(die) + self.table.queue_of[class as usize] as usize;
        let queue = &mut self.queues[q];
        let i = queue.iter().take(scan_max).position(&mut pred)?;
        self.pending -= 1;
        queue.remove(i)
    }

    pub fn is_empty(&self, die: DieIdx) -> bool {
        let base = self.base(die);
        self.queues[base..base + self.table.n_queues as usize].iter().all(VecDeque::is_empty)
    }

    /// Operations queued at `die`.
    pub fn queued(&self, die: DieIdx) -> usize {
        let base = self.base(die);
        self.queues[base..base + self.table.n_queues as usize].iter().map(VecDeque::len).sum()
    }

    /// Operations queued (not started) over all dies.
    pub fn pending(&self) -> usize {
        self.pending
    }
}
