//! The executors' state, low in `simulation/` (it imports only `ops` and `step_unit`): what runs
//! the engine's flash operations. `Instant` completes them at once in issue order, with no time
//! passing (preconditioning); `Timed` is the die executor that queues them at their dies and
//! times them on the flash array (the run): the array, the scheduler, each die's execution
//! (`DieExec`, its operation `Group`) and write-and-step unit. This file holds their data and
//! invariants; the `Executor` trait is the engine's (`engine`), and the executors' paths are
//! `precondition` (`Instant`) and, for `Timed`, its own methods in `die_exec` with the
//! engine's side in `die`.

use super::ops::{FlashOp, OpKind};
use super::step_unit::StepUnit;
use crate::flash::array::FlashArray;
use crate::flash::geometry::{BlockIdx, PLANES_MAX};
use crate::ftl::Ftl;
use crate::scenario::Scenario;
use crate::sched::{FairCosts, Scheduler};
use crate::sim::time::SimTime;

/// The instant executor of preconditioning: a program completes at once (it has no follow-up
/// work) and anything else is queued for `drain`, so an erase, which may start the next job,
/// never recurses into it. Job reads do not become operations: the job copies the page.
pub(super) struct Instant {
    /// Operations issued, completed in order from `next` on (a `Vec` cleared when drained
    /// stays in cache; a ring would not). Invariant: at most `ops_max` queued.
    pub(super) queue: Vec<FlashOp>,
    pub(super) next: usize,
    pub(super) ops_max: usize,
    /// Write stamp of preconditioning writes (negative, see `precondition`).
    pub(super) stamp: i64,
    /// Preconditioning treats dies as idle (background GC to the high watermark) only at its
    /// end; while it writes, dies are busy and GC keeps them at the low watermark.
    pub(super) idle: bool,
    /// The source block whose L2P entries are being prefetched ahead of its copies, and its
    /// next page to prefetch (`prefetch_ahead`); a hint only.
    pub(super) pf_block: BlockIdx,
    pub(super) pf_page: u32,
}

/// Units of a job's source whose L2P entries are prefetched ahead of its copies (instant
/// executor): enough to cover a miss's latency, few enough not to stall on the line-fill
/// buffers as a whole block's 256 prefetches at once did.
pub(super) const PREFETCH_AHEAD_UNITS: u32 = 24;

impl Instant {
    pub(super) fn new(ops_max: usize) -> Instant {
        Instant {
            queue: Vec::new(),
            next: 0,
            ops_max,
            stamp: 0,
            idle: false,
            pf_block: BlockIdx(crate::ftl::NONE),
            pf_page: 0,
        }
    }

    /// The executor holds nothing (it is handed over to the timed run).
    pub(super) fn assert_drained(&self) {
        assert_eq!(self.queue.len(), self.next, "instant operations left undone");
    }
}

/// The die executor of the timed run: the flash array that times the phases, the scheduler's
/// queues, what each die executes, and each die's write-and-step unit. Invariants: `ops_live`
/// (queued or running) never exceeds `ops_max`; a die executes at most one group; a unit's
/// own (`StepUnit::check`).
pub(super) struct Timed {
    pub(super) array: FlashArray,
    pub(super) sched: Scheduler<FlashOp>,
    pub(super) dies: Vec<DieExec>,
    pub(super) ops_live: usize,
    pub(super) ops_max: usize,
    /// Per block: deadline of its last program issued (EDF keeps a block's programs in
    /// order); empty unless the scheduler orders by deadline.
    pub(super) program_deadline: Vec<SimTime>,
    /// Every program waits in the queue of its block's `owner` (the per-tenant queues of
    /// `fair` keep a block's programs in order only if they share one queue): set where the
    /// scheduler queues per tenant and tenants share frontiers, so a block holds several
    /// tenants' pages. A page of another tenant's data in a shared block is charged to the
    /// block's owner's share.
    pub(super) programs_by_owner: bool,
    /// Per die: program, erase and job-read operations started, wrapping (`die_exec`'s `STARTS_MASK`).
    pub(super) nonread_starts: Vec<u16>,
    /// Per die: WAO-GC's write-and-step unit (`step_unit`).
    pub(super) units: Vec<StepUnit>,
    /// A unit was ever asked for (`unit_request`): until then every unit is idle and the
    /// per-operation unit hooks are skipped (they would do nothing).
    pub(super) units_in_use: bool,
}

impl Timed {
    pub(super) fn new(s: &Scenario, ops_max: usize, n_tenants: usize) -> Timed {
        let g = s.geometry();
        let n_dies = g.n_dies as usize;
        Timed {
            array: FlashArray::new(g, s.timing()),
            sched: Scheduler::with_tenants(
                s.ftl.scheduler,
                g.n_dies,
                ops_max,
                n_tenants,
                FairCosts::from_timing(&s.timing(), g.page_bytes),
            ),
            dies: vec![DieExec::idle(FlashOp::NONE); n_dies],
            ops_live: 0,
            ops_max,
            program_deadline: if s.ftl.scheduler.table().by_deadline {
                vec![SimTime::ZERO; g.n_blocks as usize]
            } else {
                Vec::new()
            },
            programs_by_owner: false,
            nonread_starts: vec![0; n_dies],
            units: vec![StepUnit::IDLE; n_dies],
            units_in_use: false,
        }
    }

    /// The executor's invariants, swept in full (tests).
    pub(super) fn check(&self, ftl: &Ftl) {
        let n_dies = ftl.geometry.n_dies as usize;
        assert!(self.ops_live <= self.ops_max, "{} operations live, bound {}", self.ops_live, self.ops_max);
        assert_eq!(self.dies.len(), n_dies, "one execution state per die");
        assert_eq!(self.nonread_starts.len(), n_dies, "one start count per die");
        assert!(
            self.program_deadline.is_empty() || self.program_deadline.len() == ftl.geometry.n_blocks as usize
        );
        let running: usize = self.dies.iter().map(|d| d.running().len()).sum();
        assert!(running <= self.ops_live, "{running} operations run, {} live", self.ops_live);
        assert_eq!(self.units.len(), n_dies, "one write-and-step unit per die");
        for (d, (u, x)) in self.units.iter().zip(&self.dies).enumerate() {
            u.check(d, x.running(), self.ops_live);
            assert!(self.units_in_use || u.is_idle(), "die {d}'s unit is in use unannounced");
        }
    }
}

/// The operations one die executes together (one, or one per plane); only the first
/// `n_ops` entries are meaningful.
#[derive(Clone, Copy, Debug)]
pub(super) struct Group {
    pub(super) ops: [FlashOp; PLANES_MAX as usize],
    pub(super) n_ops: u8,
}

impl Group {
    pub(super) fn ops(&self) -> &[FlashOp] {
        &self.ops[..self.n_ops as usize]
    }

    pub(super) fn kind(&self) -> OpKind {
        self.ops[0].kind
    }
}

/// Execution state of one die.
#[derive(Clone, Copy, Debug)]
pub(super) struct DieExec {
    /// What the die is executing (`n_ops == 0`: nothing).
    pub(super) current: Group,
    /// When the current program/erase array phase ends.
    pub(super) array_end: SimTime,
    /// From when the current operation may be suspended (`SimTime::MAX`: never).
    pub(super) suspendable_from: SimTime,
    /// Generation of the pending `ArrayDone`; a suspension makes the old one stale.
    pub(super) gen: u32,
    /// A suspended program or erase and its remaining array time.
    pub(super) suspended: Option<(Group, SimTime)>,
    /// Host reads served during the current suspension.
    pub(super) reads_in_suspension: u32,
    /// Delay before the next operation starts (the suspend latency).
    pub(super) delay: SimTime,
}

impl DieExec {
    /// The operations running on the die (none when it is idle or its operation suspended).
    pub(super) fn running(&self) -> &[FlashOp] {
        self.current.ops()
    }

    pub(super) fn idle(filler: FlashOp) -> DieExec {
        DieExec {
            current: Group { ops: [filler; PLANES_MAX as usize], n_ops: 0 },
            array_end: SimTime::ZERO,
            suspendable_from: SimTime::MAX,
            gen: 0,
            suspended: None,
            reads_in_suspension: 0,
            delay: SimTime::ZERO,
        }
    }
}
