//! The timed executor's paths as the engine sees them (`Engine<Timed>`, and `impl Executor
//! for Timed`): the die path itself is `Timed`'s own (`die_exec.rs`), handed its borrows of
//! the engine (`die_cx`); what it hands back is done here, in the same order as before it was
//! split off: a die with nothing to do starts GC (`maybe_start_gc`), a completed group's
//! operations are completed (`complete`'s `complete_op`), its write-and-step unit's step
//! begun (`unit_after_complete`) and the die dispatched again. It does not decide what an
//! operation means on completion.

use super::die_exec::{DieCx, DieNext};
use super::engine::{Engine, Executor};
use super::executor::Timed;
use super::ops::FlashOp;
use crate::error::FtlabError;
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::policy::JobKind;
use crate::sim::time::SimTime;

impl Engine<'_, Timed> {
    /// The timed executor and what its die path borrows of the rest (disjoint fields).
    #[inline(always)]
    fn die_cx(&mut self) -> (&mut Timed, DieCx<'_>) {
        let cx = DieCx {
            now: self.now,
            ftl: &self.ftl,
            pol: &mut self.pol,
            p: &self.p,
            status: &mut self.die_status,
            events: &mut self.events,
            device: &mut self.sink.device,
            n_tenants: self.sink.metrics.len(),
        };
        (&mut self.exec, cx)
    }

    /// Queue `op` at its die and start it if the die is idle (or suspend for a host read).
    /// Inlined into its few callers, which build `op` field by field: called, it read `op`
    /// back from the caller's stack in wider loads than those stores, which cannot be
    /// forwarded (a `perf` profile put a third of its samples on two such loads).
    #[inline(always)]
    pub(super) fn queue_op(&mut self, op: FlashOp) {
        let die = op.die;
        let (exec, mut cx) = self.die_cx();
        exec.queue_op(op, &mut cx);
        self.dispatch(die);
    }

    /// Start the next queued operation on `die` if it is idle; run background GC if the die
    /// has nothing to do. (The busy test is inlined into callers: about half the calls find
    /// the die busy, and return without the body's prologue.)
    #[inline]
    pub(super) fn dispatch(&mut self, die: DieIdx) {
        if !self.exec.array.is_busy(die) {
            self.dispatch_idle(die);
        }
    }

    /// `dispatch` on a die whose array is idle: its next step (`Timed::next_step`), done.
    #[inline(never)]
    fn dispatch_idle(&mut self, die: DieIdx) {
        match self.exec.next_step(die, &mut self.pol, &self.ftl, &self.p, self.now) {
            DieNext::Start => {
                let (exec, mut cx) = self.die_cx();
                exec.start(die, &mut cx);
            }
            DieNext::Resume => {
                let (exec, mut cx) = self.die_cx();
                exec.resume(die, &mut cx);
            }
            DieNext::Gc => self.maybe_start_gc(die),
            DieNext::Wait => {}
        }
    }

    /// A grant of the board's way arbiter on channel `ch` ended (`Timed::bus_grant`); a die
    /// whose operation it ended completes it.
    pub(super) fn bus_grant(&mut self, ch: u32) -> Result<(), FtlabError> {
        let (exec, mut cx) = self.die_cx();
        match exec.bus_grant(ch, &mut cx) {
            Some(die) => self.op_done(die),
            None => Ok(()),
        }
    }

    /// A die's array phase ended (`Timed::array_done`); a die whose operation it ended
    /// completes it.
    pub(super) fn array_done(&mut self, tag: u32) -> Result<(), FtlabError> {
        let unit_bytes = self.ftl.geometry.unit_bytes;
        match self.exec.array_done(tag, &self.p, unit_bytes, &mut self.events, self.now) {
            Some(die) => self.op_done(die),
            None => Ok(()),
        }
    }

    /// The operation (group) on `die` has completed.
    pub(super) fn op_done(&mut self, die: DieIdx) -> Result<(), FtlabError> {
        let d = die.0 as usize;
        let (n_ops, armed_done) = self.exec.end_group(die, self.now, &mut self.die_status[d]);
        // Copy the operations out: completing one may start the next one on this die. One
        // operation (the common case) is copied alone, not the whole group.
        if n_ops == 1 {
            let op = self.exec.dies[d].current.ops[0];
            self.complete_op(op)?;
        } else {
            let group = self.exec.dies[d].current;
            for &op in &group.ops[..n_ops as usize] {
                self.complete_op(op)?;
            }
        }
        self.unit_after_complete(die, armed_done);
        self.dispatch(die);
        Ok(())
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
        e.pol.may_write(die) && e.pol.may_run_jobs(die)
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
