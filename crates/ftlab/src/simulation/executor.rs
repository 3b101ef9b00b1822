//! The `Executor`: what runs the engine's flash operations. `Instant` completes them at once
//! in issue order, with no time passing (preconditioning); `Timed` is the die executor that
//! queues them at their dies and times them on the flash array (the run; its paths are in
//! `die`). The engine is generic over it, so every shared path (placement, jobs, completions)
//! is compiled once per executor with no run-time test of which one runs. This file holds the
//! trait, the instant executor and the timed executor's state; not die scheduling (`die`).

use super::die::DieExec;
use super::engine::Engine;
use super::step_unit::StepUnit;
use super::FlashOp;
use crate::error::FtlabError;
use crate::flash::array::FlashArray;
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::ftl::Ftl;
use crate::policy::JobKind;
use crate::scenario::Scenario;
use crate::sched::{FairCosts, Scheduler};
use crate::sim::time::SimTime;

/// How flash operations execute; the points where preconditioning and the timed run differ.
pub(super) trait Executor: Sized {
    /// Run `op`: complete it now or queue it at its die.
    fn issue(e: &mut Engine<'_, Self>, op: FlashOp);

    /// Job `id` reads a page with valid units (`op`): copy them now, or issue the read.
    fn job_read(e: &mut Engine<'_, Self>, id: u32, op: FlashOp);

    /// The write stamp of a unit handed out now (see `BlockInfo::last_write_ns`).
    fn stamp(e: &Engine<'_, Self>) -> i64;

    /// The simulated time of a host write for the stream measurements (none before the run).
    fn write_time(e: &Engine<'_, Self>) -> Option<SimTime>;

    /// Whether `die` may start a job now (the scheme's read dies wait their turn in the run).
    fn may_collect(e: &Engine<'_, Self>, die: DieIdx) -> bool;

    /// Whether `die` counts as idle for background GC.
    fn die_idle(e: &Engine<'_, Self>, die: DieIdx) -> bool;

    /// A job took `block` as its source.
    fn source_taken(e: &mut Engine<'_, Self>, block: BlockIdx);

    /// A job copied a unit (the time series counts it in the run).
    fn unit_copied(e: &mut Engine<'_, Self>);

    /// A job of `kind` erased `block` (the run's livelock bound and time series count it).
    fn erased(e: &mut Engine<'_, Self>, block: BlockIdx, kind: JobKind) -> Result<(), FtlabError>;

    /// A policy asked `die` to look at its queue again.
    fn dispatch(e: &mut Engine<'_, Self>, die: DieIdx);

    /// `Command::StepGcUnit`: a partial-GC step of `pages` reads with the next host program
    /// on `die` as one unit (`step_unit`), or a plain step where no time passes.
    fn step_gc_unit(e: &mut Engine<'_, Self>, die: DieIdx, pages: u32);
}

/// The instant executor of preconditioning: a program completes at once (it has no follow-up
/// work) and anything else is queued for `drain`, so an erase, which may start the next job,
/// never recurses into it. Job reads do not become operations: the job copies the page.
pub(super) struct Instant {
    /// Operations issued, completed in order from `next` on (a `Vec` cleared when drained
    /// stays in cache; a ring would not). Invariant: at most `ops_max` queued.
    queue: Vec<FlashOp>,
    next: usize,
    ops_max: usize,
    /// Write stamp of preconditioning writes (negative, see `precondition`).
    pub(super) stamp: i64,
    /// Preconditioning treats dies as idle (background GC to the high watermark) only at its
    /// end; while it writes, dies are busy and GC keeps them at the low watermark.
    pub(super) idle: bool,
    /// The source block whose L2P entries are being prefetched ahead of its copies, and its
    /// next page to prefetch (`prefetch_ahead`); a hint only.
    pf_block: BlockIdx,
    pf_page: u32,
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

impl Engine<'_, Instant> {
    /// Prefetch the L2P entries of `block`'s valid units up to the pages `PREFETCH_AHEAD_UNITS`
    /// past `page` (the one being copied), from where the last call stopped.
    #[inline]
    fn prefetch_ahead(&mut self, block: BlockIdx, page: u32) {
        let g = self.ftl.geometry;
        if self.exec.pf_block != block {
            self.exec.pf_block = block;
            self.exec.pf_page = page;
        }
        let end = (page + 1 + PREFETCH_AHEAD_UNITS.div_ceil(g.units_per_page)).min(g.pages_per_block);
        let from = self.exec.pf_page.max(page);
        if from < end {
            let first = block.0 * g.units_per_block;
            self.ftl.prefetch_l2p_of_units(first + from * g.units_per_page, (end - from) * g.units_per_page);
            self.exec.pf_page = end;
        }
    }

    /// The program of `page` of `block` (a copy's or preconditioning's: no request or job
    /// waits for it) completes now: exactly what `program_done` does for such a program.
    #[inline]
    pub(super) fn programmed_at_once(&mut self, block: BlockIdx, page: u32) {
        self.ftl.programmed(block, page);
        self.sink.device.flash_pages_programmed += 1;
    }

    /// Complete every operation the instant executor holds, in issue order (completions may
    /// issue more).
    pub(super) fn drain_instant(&mut self) {
        while let Some(&op) = self.exec.queue.get(self.exec.next) {
            self.exec.next += 1;
            self.complete_op(op).expect("instant operations raise no input error");
        }
        self.exec.queue.clear();
        self.exec.next = 0;
    }
}

impl Executor for Instant {
    #[inline]
    fn issue(e: &mut Engine<'_, Self>, op: FlashOp) {
        if op.kind == super::OpKind::Program {
            match op.owner() {
                // A copy's or preconditioning's page: exactly what `program_done` does for it,
                // without the dispatch on kind and owner (one per copied page here).
                super::Owner::Job(_) | super::Owner::Precondition
                    if op.class != crate::policy::OpClass::Parity =>
                {
                    e.programmed_at_once(op.block, op.page)
                }
                _ => e.complete_op(op).expect("an instant program raises no input error"),
            }
            return;
        }
        let x = &mut e.exec;
        x.queue.push(op);
        let queued = x.queue.len() - x.next;
        assert!(queued <= x.ops_max, "{queued} instant operations queued, bound {}", x.ops_max);
    }

    /// Copies the page now; where nothing can come between two copies, with every page of
    /// the block after it in the same loop (`copy_rest_at_once`).
    #[inline]
    fn job_read(e: &mut Engine<'_, Self>, id: u32, op: FlashOp) {
        if !e.copy_rest_at_once(id, op.block, op.page) {
            e.prefetch_ahead(op.block, op.page);
            e.copy_page(id, op.block, op.page);
        }
    }

    #[inline]
    fn stamp(e: &Engine<'_, Self>) -> i64 {
        e.exec.stamp
    }

    #[inline]
    fn write_time(_: &Engine<'_, Self>) -> Option<SimTime> {
        None
    }

    #[inline]
    fn may_collect(_: &Engine<'_, Self>, _: DieIdx) -> bool {
        true
    }

    #[inline]
    fn die_idle(e: &Engine<'_, Self>, _: DieIdx) -> bool {
        e.exec.idle
    }

    /// The whole block is copied next: start fetching its L2P entries, `PREFETCH_AHEAD_UNITS`
    /// ahead of the copies (the timed run prefetches page by page when each read starts, a tR
    /// ahead).
    #[inline]
    fn source_taken(e: &mut Engine<'_, Self>, block: BlockIdx) {
        e.exec.pf_block = BlockIdx(crate::ftl::NONE);
        e.prefetch_ahead(block, 0);
    }

    #[inline]
    fn unit_copied(_: &mut Engine<'_, Self>) {}

    #[inline]
    fn erased(_: &mut Engine<'_, Self>, _: BlockIdx, _: JobKind) -> Result<(), FtlabError> {
        Ok(())
    }

    #[inline]
    fn dispatch(_: &mut Engine<'_, Self>, _: DieIdx) {}

    /// No time passes, so nothing can wait behind a unit: the step is a plain `StepGc`.
    #[inline]
    fn step_gc_unit(e: &mut Engine<'_, Self>, die: DieIdx, pages: u32) {
        e.step_gc(die, pages);
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
    /// Per die: program, erase and job-read operations started, wrapping (`die::read_tag`).
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

impl Executor for Timed {
    // `issue` and `job_read` inline into their callers, with `queue_op` and the scheduler's
    // `push` (see `queue_op`): the operation then goes from registers to its queue.
    #[inline(always)]
    fn issue(e: &mut Engine<'_, Self>, op: FlashOp) {
        e.queue_op(op);
    }

    #[inline(always)]
    fn job_read(e: &mut Engine<'_, Self>, id: u32, op: FlashOp) {
        e.jobs.get_mut(id).reads_in_flight += 1;
        e.queue_op(op);
    }

    #[inline]
    fn stamp(e: &Engine<'_, Self>) -> i64 {
        e.now.ns() as i64
    }

    #[inline]
    fn write_time(e: &Engine<'_, Self>) -> Option<SimTime> {
        Some(e.now)
    }

    #[inline]
    fn may_collect(e: &Engine<'_, Self>, die: DieIdx) -> bool {
        e.pol.may_write(die)
    }

    #[inline]
    fn die_idle(e: &Engine<'_, Self>, die: DieIdx) -> bool {
        !e.exec.array.is_busy(die) && e.exec.sched.is_empty(die)
    }

    #[inline]
    fn source_taken(_: &mut Engine<'_, Self>, _: BlockIdx) {}

    #[inline]
    fn unit_copied(e: &mut Engine<'_, Self>) {
        e.sink.ts.count_gc_units(1);
    }

    #[inline]
    fn erased(e: &mut Engine<'_, Self>, block: BlockIdx, kind: JobKind) -> Result<(), FtlabError> {
        if let Some(d) = e.exec.program_deadline.get_mut(block.0 as usize) {
            *d = SimTime::ZERO;
        }
        e.count_erase_without_progress(kind)?;
        e.sink.ts.count_erase();
        Ok(())
    }

    #[inline]
    fn dispatch(e: &mut Engine<'_, Self>, die: DieIdx) {
        e.dispatch(die);
    }

    #[inline]
    fn step_gc_unit(e: &mut Engine<'_, Self>, die: DieIdx, pages: u32) {
        e.unit_request(die, pages);
    }
}
