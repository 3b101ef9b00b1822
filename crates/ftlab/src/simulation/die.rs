//! The timed executor's paths (`Engine<Timed>`, and `impl Executor for Timed`; its state is
//! `executor::Timed`): what each die executes, starting the next
//! operation (or a multi-plane group of them), the read transfer, completion, and
//! program/erase suspend. The flash array times the phases; the scheduler chooses the
//! operations; this file ties them to the event loop. It does not decide what an operation
//! means on completion (`complete`'s `complete_op`).

use super::engine::{Engine, Executor};
use super::executor::Timed;
use super::ops::{Event, FlashOp, OpKind, Owner, PREFETCH_P2L_AHEAD_UNITS, REBUILD_MEMBER};
use crate::error::FtlabError;
use crate::flash::array::ArrayOp;
use crate::flash::board::BusPhase;
use crate::flash::geometry::{BlockIdx, DieIdx, PLANES_MAX};
use crate::policy::JobKind;
use crate::policy::OpClass;
use crate::sim::time::SimTime;

/// Queued operations examined when looking for a multi-plane partner or a read to serve
/// during a suspension.
const SCAN_MAX: usize = 16;

/// Host reads served during one suspension before the operation resumes (so a stream of
/// reads cannot starve a program or erase); an operation is suspended at most once.
const SUSPEND_READS_MAX: u32 = 8;

/// `FlashOp::read_tag`'s low bits: a die's count of non-read operations started, wrapping.
const STARTS_MASK: u16 = REBUILD_MEMBER - 1;

/// Bits of the die index in an `ArrayDone` event; the generation takes the rest.
const DIE_BITS: u32 = 12;

/// A job's operation (GC, wear leveling, migration, parity), not a host one.
fn is_background(class: OpClass) -> bool {
    !matches!(class, OpClass::HostRead | OpClass::HostWrite)
}

/// `ArrayDone`'s payload: die and generation in one u32 (dies < 4096 by validation; the
/// generation only has to differ from the few stale events that may be pending).
pub(super) fn array_done_tag(die: DieIdx, gen: u32) -> u32 {
    debug_assert!(die.0 < 1 << DIE_BITS);
    die.0 | gen << DIE_BITS
}

impl Engine<'_, Timed> {
    /// Queue `op` at its die and start it if the die is idle (or suspend for a host read).
    /// Inlined into its few callers, which build `op` field by field: called, it read `op`
    /// back from the caller's stack in wider loads than those stores, which cannot be
    /// forwarded (a `perf` profile put a third of its samples on two such loads).
    #[inline(always)]
    pub(super) fn queue_op(&mut self, op: FlashOp) {
        let die = op.die;
        self.exec.ops_live += 1;
        assert!(
            self.exec.ops_live <= self.exec.ops_max,
            "{} flash operations live, bound {}",
            self.exec.ops_live,
            self.exec.ops_max
        );
        let mut op = self.in_block_order(op);
        self.unit_on_issue(&op);
        let d = die.0 as usize;
        if op.class == OpClass::HostRead {
            // The die's count of non-read starts now; one less if a non-read operation is
            // running or suspended, so that `start` counts this read as blocked.
            let exec = &self.exec.dies[d];
            let behind = exec.suspended.is_some()
                || (exec.current.n_ops > 0 && exec.current.ops[0].class != OpClass::HostRead);
            let starts = self.exec.nonread_starts[d].wrapping_sub(behind as u16) & STARTS_MASK;
            op.read_tag = (op.read_tag & REBUILD_MEMBER) | starts;
        } else {
            self.die_status[d].writes_queued += 1;
        }
        self.exec.sched.push(die, op);
        if op.class == OpClass::HostRead && self.p.suspend {
            self.try_suspend(die);
        }
        self.dispatch(die);
    }

    /// Under a deadline-ordered scheduler, a program is due no earlier than the previous
    /// program of its block, so the pages of a block are still programmed in order; under a
    /// per-tenant one with frontiers shared by tenants, every program of a block waits in its
    /// owner's queue (`Timed::programs_by_owner`), for the same reason.
    #[inline]
    fn in_block_order(&mut self, mut op: FlashOp) -> FlashOp {
        if op.kind == OpKind::Program && self.exec.programs_by_owner {
            let owner = self.ftl.blocks().get(op.block).owner;
            op.tenant = if (owner as usize) < self.sink.metrics.len() { owner } else { op.tenant };
        }
        if op.kind == OpKind::Program && !self.exec.program_deadline.is_empty() {
            let last = &mut self.exec.program_deadline[op.block.0 as usize];
            op.deadline = op.deadline.max(*last);
            *last = op.deadline;
        }
        op
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

    /// `dispatch` on a die whose array is idle.
    #[inline(never)]
    fn dispatch_idle(&mut self, die: DieIdx) {
        let d = die.0 as usize;
        if self.exec.dies[d].suspended.is_some() {
            let read = (self.exec.dies[d].reads_in_suspension < SUSPEND_READS_MAX)
                .then(|| {
                    self.exec
                        .sched
                        .take_matching(die, OpClass::HostRead, SCAN_MAX, |o| o.class == OpClass::HostRead)
                })
                .flatten();
            match read {
                Some(op) => {
                    self.exec.dies[d].reads_in_suspension += 1;
                    self.start(die, op);
                }
                None => self.resume(die),
            }
            return;
        }
        if self.unit_holds(die) {
            // Inside WAO-GC's write-and-step unit: only the step's operations (step_unit.rs).
            if let Some(op) = self.unit_next(die) {
                self.start(die, op);
            }
            return;
        }
        if !self.pol.may_write(die) {
            // A read die (the scheme's roles): host reads only; the rest waits its turn.
            if let Some(op) = self
                .exec
                .sched
                .take_matching(die, OpClass::HostRead, usize::MAX, |o| o.class == OpClass::HostRead)
            {
                self.start(die, op);
            }
            return;
        }
        let urgent = self.ftl.blocks().free_count(die) <= self.p.reserve;
        if !(self.pol.may_run_jobs(die) || urgent && self.pol.excursion(die, self.now)) {
            // A window without background work (the scheme's Deterministic Window): host
            // operations only, reads first; jobs wait for the window to end.
            self.start_host_op(die);
            return;
        }
        match self.exec.sched.pop(die, urgent) {
            Some(op) => self.start(die, op),
            None => self.maybe_start_gc(die),
        }
    }

    /// Start the next host read queued at `die`, else its next host program, if any.
    fn start_host_op(&mut self, die: DieIdx) {
        let sched = &mut self.exec.sched;
        let op = sched
            .take_matching(die, OpClass::HostRead, usize::MAX, |o| o.class == OpClass::HostRead)
            .or_else(|| {
                sched.take_matching(die, OpClass::HostWrite, usize::MAX, |o| o.class == OpClass::HostWrite)
            });
        if let Some(op) = op {
            self.start(die, op);
        }
    }

    /// Start `first` on idle `die`, with multi-plane partners when the device has them.
    fn start(&mut self, die: DieIdx, first: FlashOp) {
        let d = die.0 as usize;
        assert_eq!(self.exec.dies[d].current.n_ops, 0, "die {} started while executing", die.0);
        assert!(
            first.class == OpClass::HostRead || self.pol.may_write(die),
            "a {:?} {:?} started on die {}, which the scheme keeps for reads",
            first.class,
            first.kind,
            die.0
        );
        assert!(
            matches!(first.class, OpClass::HostRead | OpClass::HostWrite) || self.pol.may_run_jobs(die),
            "a {:?} {:?} started on die {} in a window without background work",
            first.class,
            first.kind,
            die.0
        );
        self.unit_on_start(die, &first);
        self.exec.dies[d].current.ops[0] = first;
        self.exec.dies[d].current.n_ops = 1;
        if self.p.multi_plane {
            self.add_partners(die);
        }
        self.count_blocked_reads(die);
        let g = self.ftl.geometry;
        let group = &self.exec.dies[d].current;
        let array_op = match first.kind {
            OpKind::Read => {
                ArrayOp::Read { bytes: group.ops().iter().map(|o| o.n_units as u32 * g.unit_bytes).sum() }
            }
            OpKind::Program => ArrayOp::Program { bytes: g.page_bytes * group.n_ops as u32 },
            OpKind::Erase => ArrayOp::Erase,
        };
        self.die_status[d].busy = Some(first.class);
        if first.kind == OpKind::Read {
            for i in 0..group.n_ops as usize {
                let op = &self.exec.dies[d].current.ops[i];
                if matches!(op.owner(), Owner::Job(_)) {
                    self.prefetch_for_gc_read(op);
                }
            }
        }
        if self.p.background_free && is_background(first.class) {
            // `device.background_free` (IODA's "Ideal"): done at once, no die or bus time.
            self.exec.array.occupy(die, self.now);
            let exec = &mut self.exec.dies[d];
            (exec.array_end, exec.suspendable_from, exec.delay) = (self.now, SimTime::MAX, SimTime::ZERO);
            self.events.push(self.now, Event::ArrayDone(array_done_tag(die, exec.gen)));
            return;
        }
        if self.exec.array.has_board() {
            self.start_on_board(die, array_op);
            return;
        }
        let t = *self.exec.array.timing();
        let exec = &mut self.exec.dies[d];
        let delay = std::mem::replace(&mut exec.delay, SimTime::ZERO);
        let done = self.exec.array.begin_after(die, array_op, self.now, delay);
        exec.array_end = done;
        exec.suspendable_from = match first.kind {
            OpKind::Read => SimTime::MAX,
            OpKind::Program => done - t.program,
            OpKind::Erase => done - t.erase,
        };
        self.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
    }

    /// `start` on the Cosmos board (`flash::board`; no suspension there): a read or an erase
    /// begins its array phase; a program first waits for its transfers through the page buffer.
    fn start_on_board(&mut self, die: DieIdx, op: ArrayOp) {
        self.exec.array.occupy(die, self.now);
        let t = *self.exec.array.timing();
        let now = self.now + t.command;
        let exec = &mut self.exec.dies[die.0 as usize];
        exec.suspendable_from = SimTime::MAX;
        exec.delay = SimTime::ZERO;
        let done = match op {
            ArrayOp::Program { bytes } => {
                exec.array_end = SimTime::MAX;
                let board = self.exec.array.board_mut().expect("a board");
                if let Some(end) = board.request(die, BusPhase::ProgramIn { bytes }, now) {
                    let ch = board.channel_of(die);
                    self.events.push(end, Event::BusGrant(ch));
                }
                return;
            }
            ArrayOp::Read { .. } => now + t.read,
            ArrayOp::Erase => now + t.erase,
        };
        exec.array_end = done;
        self.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
    }

    /// A grant of the board's way arbiter on channel `ch` ended: the next grant starts, and
    /// the die whose bus phase this ended goes on (a program to tPROG, anything else is done).
    pub(super) fn bus_grant(&mut self, ch: u32) -> Result<(), FtlabError> {
        let board = self.exec.array.board_mut().expect("a board");
        let (finished, next) = board.grant_end(ch, self.now);
        if let Some(end) = next {
            self.events.push(end, Event::BusGrant(ch));
        }
        match finished {
            Some((die, BusPhase::ProgramIn { .. })) => {
                let done = self.now + self.exec.array.timing().program;
                let exec = &mut self.exec.dies[die.0 as usize];
                exec.array_end = done;
                self.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
                Ok(())
            }
            Some((die, _)) => self.op_done(die),
            None => Ok(()),
        }
    }

    /// The group just started on `die`: a host read in it that a non-read operation went
    /// before since it was queued is counted as blocked; a non-read group counts as started.
    fn count_blocked_reads(&mut self, die: DieIdx) {
        let d = die.0 as usize;
        let starts = self.exec.nonread_starts[d] & STARTS_MASK;
        let group = &self.exec.dies[d].current;
        if group.ops[0].class != OpClass::HostRead {
            self.exec.nonread_starts[d] = self.exec.nonread_starts[d].wrapping_add(1);
            return;
        }
        let blocked = group.ops().iter().filter(|o| o.read_tag & STARTS_MASK != starts).count();
        self.sink.device.reads_blocked += blocked as u64;
    }

    /// The copies of a GC read need its units' L2P entries when the read completes, a tR
    /// later; and the next reads of the victim (pages are read in order) its next P2L line.
    fn prefetch_for_gc_read(&self, op: &FlashOp) {
        let g = &self.ftl.geometry;
        let first = g.ppa(op.block, op.page, 0).0;
        self.ftl.prefetch_l2p_of_units(first, g.units_per_page);
        self.ftl.prefetch_p2l(first + PREFETCH_P2L_AHEAD_UNITS);
    }

    /// Add queued operations of the same kind on other planes of `die`: the first such in
    /// `first`'s queue per plane, whatever their class (so two programs of one block, which
    /// share its plane, are never taken out of order).
    fn add_partners(&mut self, die: DieIdx) {
        let g = self.ftl.geometry;
        let d = die.0 as usize;
        let first = self.exec.dies[d].current.ops[0];
        let mut planes = 1u32 << g.plane_of(first.block);
        while (self.exec.dies[d].current.n_ops as u32) < g.planes_per_die.min(PLANES_MAX) {
            let found = self.exec.sched.take_matching(die, first.class, SCAN_MAX, |o| {
                o.kind == first.kind && planes & (1 << g.plane_of(o.block)) == 0
            });
            let Some(op) = found else { break };
            planes |= 1 << g.plane_of(op.block);
            let group = &mut self.exec.dies[d].current;
            group.ops[group.n_ops as usize] = op;
            group.n_ops += 1;
            self.sink.device.multi_plane_ops += 1;
        }
    }

    /// A host read was queued at `die`: if the die is in the array phase of a program or
    /// erase that was not suspended before, suspend it so the read goes first.
    fn try_suspend(&mut self, die: DieIdx) {
        if self.unit_holds(die) {
            // WAO-GC's write-and-step unit is not preempted (step_unit.rs).
            return;
        }
        let exec = &mut self.exec.dies[die.0 as usize];
        if exec.current.n_ops == 0
            || exec.current.kind() == OpKind::Read
            || exec.suspended.is_some()
            || self.now < exec.suspendable_from
        {
            return;
        }
        exec.suspended = Some((exec.current, exec.array_end - self.now));
        exec.reads_in_suspension = 0;
        exec.current.n_ops = 0;
        exec.gen = exec.gen.wrapping_add(1);
        exec.delay = self.exec.array.timing().suspend;
        self.die_status[die.0 as usize].busy = None;
        self.exec.array.end(die, self.now);
        self.sink.device.suspensions += 1;
    }

    /// No read is waiting: resume the suspended operation for its remaining time.
    fn resume(&mut self, die: DieIdx) {
        let exec = &mut self.exec.dies[die.0 as usize];
        let (group, remaining) = exec.suspended.take().expect("resume without a suspended operation");
        self.exec.array.occupy(die, self.now);
        let done = self.now + self.exec.array.timing().suspend + remaining;
        self.die_status[die.0 as usize].busy = Some(group.ops[0].class);
        exec.current = group;
        exec.array_end = done;
        exec.suspendable_from = SimTime::MAX;
        exec.delay = SimTime::ZERO;
        self.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
    }

    /// A die's array phase ended (ignored if a suspension made it stale).
    pub(super) fn array_done(&mut self, tag: u32) -> Result<(), FtlabError> {
        let die = DieIdx(tag & ((1 << DIE_BITS) - 1));
        let exec = &self.exec.dies[die.0 as usize];
        if array_done_tag(die, exec.gen) != tag {
            return Ok(());
        }
        let group = &exec.current;
        assert!(group.n_ops > 0, "array phase ended on an idle die");
        if self.p.background_free && is_background(group.ops[0].class) {
            return self.op_done(die);
        }
        if let Some(board) = self.exec.array.board_mut() {
            // The Cosmos board: a status check, and for a read its transfers (`bus_grant`).
            let phase = match group.kind() {
                OpKind::Read => BusPhase::ReadOut {
                    bytes: group.ops().iter().map(|o| o.n_units as u32 * self.ftl.geometry.unit_bytes).sum(),
                },
                _ => BusPhase::Status,
            };
            if let Some(end) = board.request(die, phase, self.now) {
                let ch = board.channel_of(die);
                self.events.push(end, Event::BusGrant(ch));
            }
            return Ok(());
        }
        if group.kind() == OpKind::Read {
            let unit = self.ftl.geometry.unit_bytes;
            let bytes = group.ops().iter().map(|o| o.n_units as u32 * unit).sum();
            let done = self.exec.array.read_transfer(die, bytes, self.now);
            self.events.push(done, Event::XferDone(die.0));
            return Ok(());
        }
        self.op_done(die)
    }

    /// The operation (group) on `die` has completed.
    pub(super) fn op_done(&mut self, die: DieIdx) -> Result<(), FtlabError> {
        self.exec.array.end(die, self.now);
        let d = die.0 as usize;
        // Copy the operations out: completing one may start the next one on this die. One
        // operation (the common case) is copied alone, not the whole group.
        let n_ops = self.exec.dies[d].current.n_ops;
        assert!(n_ops > 0, "completion on an idle die");
        let armed_done = self.unit_before_complete(die);
        let writes = self.exec.dies[d].current.ops().iter().filter(|o| o.class != OpClass::HostRead).count();
        self.die_status[d].writes_queued -= writes as u32;
        self.exec.dies[d].current.n_ops = 0;
        self.die_status[d].busy = None;
        self.exec.ops_live -= n_ops as usize;
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
