//! Flash operation schedulers: the queues of pending operations at each die and the choice of
//! the next one when the die goes idle. Which class goes to which queue, and in what order
//! the queues are served, is data (`ClassTable`), one row per `SchedulerKind`:
//! - `priority`: host reads, then host writes and parity, then GC and migration;
//! - `fifo`: one queue in arrival order;
//! - `edf`: earliest deadline first within a foreground queue (host, parity) and a background queue (jobs),
//!   the earlier head of the two first; operations without a deadline carry `SimTime::MAX` and keep arrival
//!   order among themselves;
//! - `fair`: a fair-share scheduler across tenants. At each die, host operations (host reads, host writes,
//!   parity) wait in one FIFO queue per tenant, served by deficit round robin (Shreedhar & Varghese,
//!   "Efficient fair queuing using deficit round robin", SIGCOMM 1995) with equal weights over the tenants
//!   that have work queued at that die. An operation's cost is its estimated service time on the array
//!   (`FairCosts`: a read is tR + one page's transfer, a program tPROG + one page's transfer, from the device
//!   timing); the quantum is the largest cost, so a tenant always serves at least one operation per turn. A
//!   tenant joins the tail of the die's round with a deficit of zero when its queue goes from empty to
//!   non-empty, and leaves it (deficit reset) when its queue empties. Background operations (GC, migration)
//!   wait in one FIFO queue served after host work. Operations taken out of turn by `take_matching`
//!   (multi-plane partners, reads during a suspension) are charged to their tenant's deficit (saturating at
//!   zero). Per-tenant state is indexed `die * n_tenants + tenant`: no allocation or hashing per operation.
//!
//! When a die's free space is critical (`gc_urgent`), the table's urgent queue goes first
//! (under `fair`, the background queue, as under `priority`).
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
    /// Fair share across tenants: deficit round robin over per-tenant host queues at each
    /// die, costs = estimated service times; background after host work, first when free
    /// space is critical.
    Fair,
}

/// Per-operation costs of the fair scheduler (any time unit; `SimTime` nanoseconds from
/// `FairCosts::from_timing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FairCosts {
    /// Cost of each `OpClass` (indexed by `class as usize`); background classes are unused.
    pub(crate) cost_of: [u64; N_CLASSES],
}

impl FairCosts {
    /// All costs 1 (deficit round robin degenerates to round robin by operations).
    pub(crate) const UNIT: FairCosts = FairCosts { cost_of: [1; N_CLASSES] };

    /// Read: tR + one page's transfer; program (host write, parity): tPROG + one page's transfer.
    pub(crate) fn from_timing(t: &crate::flash::timing::Timing, page_bytes: u32) -> FairCosts {
        FairCosts::new(t.page_read(page_bytes).0, t.page_program(page_bytes).0)
    }

    /// Host reads cost `read`, host writes and parity `program`.
    pub fn new(read: u64, program: u64) -> FairCosts {
        // Classes: host read, host write, gc, migrate, parity.
        FairCosts { cost_of: [read.max(1), program.max(1), 0, 0, program.max(1)] }
    }

    /// The DRR quantum: the largest host cost.
    pub(crate) fn quantum(&self) -> u64 {
        self.cost_of.iter().copied().max().unwrap_or(1).max(1)
    }
}
/// How classes map to queues and how queues are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClassTable {
    /// Queue of each `OpClass` (indexed by `class as usize`).
    pub(crate) queue_of: [u8; N_CLASSES],
    pub(crate) n_queues: u8,
    /// Queue served first when free space is critical.
    pub(crate) urgent_queue: u8,
    /// Queues are kept in deadline order and the queue with the earliest head goes first
    /// (else queues are FIFO and served in index order).
    pub(crate) by_deadline: bool,
    /// Queue 0 is split per tenant and served by deficit round robin (`fair`).
    pub(crate) per_tenant: bool,
}

impl SchedulerKind {
    /// The class table of this kind.
    pub(crate) fn table(self) -> ClassTable {
        // Classes: host read, host write, gc, migrate, parity.
        match self {
            SchedulerKind::Priority => ClassTable {
                queue_of: [0, 1, 2, 2, 1],
                n_queues: 3,
                urgent_queue: 2,
                by_deadline: false,
                per_tenant: false,
            },
            SchedulerKind::Fifo => ClassTable {
                queue_of: [0; N_CLASSES],
                n_queues: 1,
                urgent_queue: 0,
                by_deadline: false,
                per_tenant: false,
            },
            SchedulerKind::Edf => ClassTable {
                queue_of: [0, 0, 1, 1, 0],
                n_queues: 2,
                urgent_queue: 1,
                by_deadline: true,
                per_tenant: false,
            },
            SchedulerKind::Fair => ClassTable {
                queue_of: [0, 0, 1, 1, 0],
                n_queues: 2,
                urgent_queue: 1,
                by_deadline: false,
                per_tenant: true,
            },
        }
    }
}

/// What the scheduler needs to know of an operation.
pub trait SchedOp: Copy {
    fn class(&self) -> OpClass;
    /// Absolute deadline (`SimTime::MAX`: none).
    fn deadline(&self) -> SimTime;
    /// The tenant the operation is done for (`fair` queues host operations by it).
    fn tenant(&self) -> u16;
    /// Whether it goes to the front of its queue, behind only the operations that went there
    /// the same way, whatever its deadline: PaRT-FTL §V, "If there is a read request for a
    /// page on a write flash die, a rebuild operation will be initialized by adding the pages
    /// that need to be read for the rebuild to the front of the queue."
    #[inline]
    fn front(&self) -> bool {
        false
    }
}

/// An operation's place in a deadline-ordered queue: a front operation (`SchedOp::front`)
/// sorts before every deadline.
#[inline]
fn due<Op: SchedOp>(op: &Op) -> SimTime {
    if op.front() {
        SimTime::ZERO
    } else {
        op.deadline()
    }
}

/// Queues of at most this many queues per die.
const QUEUES_MAX: usize = N_CLASSES;

/// Per-die queues of pending operations (`Op`: the caller's operation record).
#[derive(Clone, Debug)]
pub struct Scheduler<Op> {
    table: ClassTable,
    /// `queues[die * n_queues + q]` (under `fair`, queue 0 is unused: see `tenant_queues`).
    queues: Vec<VecDeque<Op>>,
    pending: usize,
    pending_max: usize,
    /// Boxed: the other kinds' `Scheduler` (and the `Simulation` around it) keeps its size.
    fair: Box<Fair<Op>>,
}

/// The per-tenant part of `fair` (empty vectors for the other kinds).
#[derive(Clone, Debug)]
struct Fair<Op> {
    n_tenants: usize,
    costs: FairCosts,
    quantum: u64,
    /// `tenant_queues[die * n_tenants + tenant]`: host operations.
    tenant_queues: Vec<VecDeque<Op>>,
    /// `deficit[die * n_tenants + tenant]`.
    deficit: Vec<u64>,
    /// Per die: the tenants with host work queued, in round order (capacity `n_tenants`,
    /// each tenant at most once: never reallocates).
    active: Vec<VecDeque<u16>>,
    /// Per die: the head of `active` has received its quantum for the current turn.
    head_charged: Vec<bool>,
}

impl<Op: SchedOp> Scheduler<Op> {
    /// `pending_max` bounds the operations queued over all dies (a bug guard). `fair` gets
    /// one tenant and unit costs here; see `with_tenants`.
    pub fn new(kind: SchedulerKind, n_dies: u32, pending_max: usize) -> Scheduler<Op> {
        Scheduler::with_tenants(kind, n_dies, pending_max, 1, FairCosts::UNIT)
    }

    /// As `new`, with the tenant count and operation costs `fair` uses (ignored otherwise).
    pub fn with_tenants(
        kind: SchedulerKind,
        n_dies: u32,
        pending_max: usize,
        n_tenants: usize,
        costs: FairCosts,
    ) -> Scheduler<Op> {
        let table = kind.table();
        assert!((1..=QUEUES_MAX).contains(&(table.n_queues as usize)) && table.urgent_queue < table.n_queues);
        assert!(table.queue_of.iter().all(|&q| q < table.n_queues), "class mapped to a missing queue");
        assert!(!(table.per_tenant && table.by_deadline), "a per-tenant queue is FIFO");
        let queues = (0..n_dies as usize * table.n_queues as usize).map(|_| VecDeque::new()).collect();
        let n_dies = n_dies as usize;
        let fair = if table.per_tenant {
            assert!(
                (1..=u16::MAX as usize + 1).contains(&n_tenants),
                "fair scheduler with {n_tenants} tenants"
            );
            Fair {
                n_tenants,
                costs,
                quantum: costs.quantum(),
                tenant_queues: (0..n_dies * n_tenants).map(|_| VecDeque::new()).collect(),
                deficit: vec![0; n_dies * n_tenants],
                active: (0..n_dies).map(|_| VecDeque::with_capacity(n_tenants)).collect(),
                head_charged: vec![false; n_dies],
            }
        } else {
            Fair {
                n_tenants: 0,
                costs,
                quantum: 0,
                tenant_queues: Vec::new(),
                deficit: Vec::new(),
                active: Vec::new(),
                head_charged: Vec::new(),
            }
        };
        Scheduler { table, queues, pending: 0, pending_max, fair: Box::new(fair) }
    }

    #[inline]
    fn base(&self, die: DieIdx) -> usize {
        die.0 as usize * self.table.n_queues as usize
    }

    /// Queue `op` at `die`. Inlined into the engine's `queue_op`, so that an operation built
    /// field by field goes to its queue from registers (see `queue_op`).
    #[inline(always)]
    pub fn push(&mut self, die: DieIdx, op: Op) {
        let qi = self.table.queue_of[op.class() as usize];
        if self.table.per_tenant && qi == 0 {
            self.push_tenant(die, op);
        } else {
            let queue = &mut self.queues[die.0 as usize * self.table.n_queues as usize + qi as usize];
            if op.front() {
                // Behind the front operations already there (in their arrival order).
                let at = queue.partition_point(|o| o.front());
                queue.insert(at, op);
            } else if self.table.by_deadline && queue.back().is_some_and(|b| due(b) > op.deadline()) {
                // After every operation due no later (arrival order among equal deadlines).
                let at = queue.partition_point(|o| due(o) <= op.deadline());
                queue.insert(at, op);
            } else {
                queue.push_back(op);
            }
        }
        self.pending += 1;
        assert!(
            self.pending <= self.pending_max,
            "scheduler holds {} operations, bound {}",
            self.pending,
            self.pending_max
        );
    }

    // Out of line: the other kinds' push/pop stay as compact as before.
    #[inline(never)]
    fn push_tenant(&mut self, die: DieIdx, op: Op) {
        let f = &mut self.fair;
        let t = op.tenant() as usize;
        assert!(t < f.n_tenants, "operation of tenant {t}, fair scheduler built for {}", f.n_tenants);
        let i = die.0 as usize * f.n_tenants + t;
        let queue = &mut f.tenant_queues[i];
        if queue.is_empty() {
            // Joins the tail of the die's round with no credit.
            f.deficit[i] = 0;
            f.active[die.0 as usize].push_back(t as u16);
        }
        if op.front() {
            let at = queue.partition_point(|o| o.front());
            queue.insert(at, op);
        } else {
            queue.push_back(op);
        }
    }

    /// Deficit round robin over the die's active tenants.
    // Out of line: the other kinds' push/pop stay as compact as before.
    #[inline(never)]
    fn pop_tenant(&mut self, die: DieIdx) -> Option<Op> {
        let f = &mut self.fair;
        let d = die.0 as usize;
        loop {
            let t = *f.active[d].front()? as usize;
            let i = d * f.n_tenants + t;
            if !f.head_charged[d] {
                f.deficit[i] += f.quantum;
                f.head_charged[d] = true;
            }
            let cost = f.costs.cost_of[f.tenant_queues[i][0].class() as usize];
            if cost <= f.deficit[i] {
                f.deficit[i] -= cost;
                let op = f.tenant_queues[i].pop_front().expect("an active tenant has work");
                if f.tenant_queues[i].is_empty() {
                    f.deficit[i] = 0;
                    f.active[d].pop_front();
                    f.head_charged[d] = false;
                }
                return Some(op);
            }
            // Turn over: the tenant keeps its deficit and goes to the tail of the round.
            f.active[d].rotate_left(1);
            f.head_charged[d] = false;
        }
    }

    /// The next operation for idle `die`; `gc_urgent` serves the urgent queue first.
    #[inline]
    pub fn pop(&mut self, die: DieIdx, gc_urgent: bool) -> Option<Op> {
        let base = self.base(die);
        let n = self.table.n_queues as usize;
        let urgent = base + self.table.urgent_queue as usize;
        let q = if gc_urgent && !self.queues[urgent].is_empty() {
            self.table.urgent_queue as usize
        } else if self.table.by_deadline {
            // The queue whose head is due first (ties: the lower queue).
            (0..n)
                .filter(|&q| !self.queues[base + q].is_empty())
                .min_by_key(|&q| (due(&self.queues[base + q][0]), q))?
        } else if self.table.per_tenant {
            if let Some(op) = self.pop_tenant(die) {
                self.pending -= 1;
                return Some(op);
            }
            (1..n).find(|&q| !self.queues[base + q].is_empty())?
        } else {
            (0..n).find(|&q| !self.queues[base + q].is_empty())?
        };
        let op = self.queues[base + q].pop_front().expect("a non-empty queue");
        self.pending -= 1;
        Some(op)
    }

    /// Remove and return the first of the first `scan_max` operations queued at `die` in
    /// `class`'s queue that `pred` accepts (multi-plane partners, reads during a suspension).
    /// Under `fair` a host class scans the die's tenant queues in round order, up to
    /// `scan_max` operations in all, and charges the operation to its tenant's deficit.
    pub fn take_matching(
        &mut self,
        die: DieIdx,
        class: OpClass,
        scan_max: usize,
        mut pred: impl FnMut(&Op) -> bool,
    ) -> Option<Op> {
        let qi = self.table.queue_of[class as usize];
        if self.table.per_tenant && qi == 0 {
            let op = self.take_matching_tenant(die, scan_max, pred)?;
            self.pending -= 1;
            return Some(op);
        }
        let q = self.base(die) + qi as usize;
        let queue = &mut self.queues[q];
        let i = queue.iter().take(scan_max).position(&mut pred)?;
        self.pending -= 1;
        queue.remove(i)
    }

    // Out of line: the other kinds' push/pop stay as compact as before.
    #[inline(never)]
    fn take_matching_tenant(
        &mut self,
        die: DieIdx,
        scan_max: usize,
        mut pred: impl FnMut(&Op) -> bool,
    ) -> Option<Op> {
        let f = &mut self.fair;
        let d = die.0 as usize;
        let mut budget = scan_max;
        for pos in 0..f.active[d].len() {
            if budget == 0 {
                return None;
            }
            let t = f.active[d][pos] as usize;
            let i = d * f.n_tenants + t;
            let queue = &mut f.tenant_queues[i];
            let scanned = queue.len().min(budget);
            if let Some(k) = queue.iter().take(scanned).position(&mut pred) {
                let op = queue.remove(k).expect("a scanned operation");
                f.deficit[i] = f.deficit[i].saturating_sub(f.costs.cost_of[op.class() as usize]);
                if f.tenant_queues[i].is_empty() {
                    f.deficit[i] = 0;
                    f.active[d].remove(pos);
                    if pos == 0 {
                        f.head_charged[d] = false;
                    }
                }
                return Some(op);
            }
            budget -= scanned;
        }
        None
    }

    pub fn is_empty(&self, die: DieIdx) -> bool {
        let base = self.base(die);
        self.queues[base..base + self.table.n_queues as usize].iter().all(VecDeque::is_empty)
            && (!self.table.per_tenant || self.fair.active[die.0 as usize].is_empty())
    }

    /// Operations queued at `die`.
    pub fn queued(&self, die: DieIdx) -> usize {
        let base = self.base(die);
        let shared: usize =
            self.queues[base..base + self.table.n_queues as usize].iter().map(VecDeque::len).sum();
        if self.table.per_tenant {
            let b = die.0 as usize * self.fair.n_tenants;
            shared
                + self.fair.tenant_queues[b..b + self.fair.n_tenants].iter().map(VecDeque::len).sum::<usize>()
        } else {
            shared
        }
    }

    /// Operations queued (not started) over all dies.
    pub fn pending(&self) -> usize {
        self.pending
    }
}
