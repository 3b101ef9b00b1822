//! The die path as the timed executor's own methods (`impl Timed`; its state is
//! `executor.rs`'s): queueing an operation at its die (`queue_op`, with the block order of
//! programs), what an idle die does next (`next_step`), starting an operation or a
//! multi-plane group (`start`, on the Cosmos board `start_on_board`), program/erase suspend
//! and resume, the end of an array phase or bus grant (`array_done`, `bus_grant`) and of a
//! group (`end_group`), and the write-and-step unit's hooks in them (`unit_*`, over
//! `Timed::units`). Each borrows what it needs of the engine explicitly: the start, suspend and
//! resume through `DieCx` (the clock, the FTL, the policies, the parameters, the die status
//! the policies see, the event queue and the device counters); the hot choice and ends
//! (`next_step`, `array_done`, `end_group`) only the few fields they read, as arguments, so no
//! `DieCx` is built where nothing starts. What these methods cannot do is hand back to the
//! caller, `Engine<Timed>` in `die.rs`: a die with nothing to do starts GC (`maybe_start_gc`),
//! a finished group is completed (`complete_op`) and its unit step begun. It sits above the
//! parts and below `engine`, and calls no engine path.

use super::executor::Timed;
use super::ops::{Event, FlashOp, OpKind, Owner, Params, PREFETCH_P2L_AHEAD_UNITS, REBUILD_MEMBER};
use super::policies::Policies;
use crate::flash::array::ArrayOp;
use crate::flash::board::BusPhase;
use crate::flash::geometry::{DieIdx, PLANES_MAX};
use crate::ftl::{Ftl, NONE};
use crate::metrics::DeviceCounters;
use crate::policy::{DieStatus, OpClass};
use crate::sim::events::EventQueue;
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

/// What the die path borrows of the engine besides the executor (disjoint borrows of its
/// fields, `Engine::die_cx`).
pub(super) struct DieCx<'e> {
    pub(super) now: SimTime,
    pub(super) ftl: &'e Ftl,
    pub(super) pol: &'e mut Policies,
    pub(super) p: &'e Params,
    /// The die status the policies see (`busy`, `writes_queued` are the executor's to set).
    pub(super) status: &'e mut [DieStatus],
    pub(super) events: &'e mut EventQueue<Event>,
    pub(super) device: &'e mut DeviceCounters,
    /// Tenants of the run (a block owner at or past it is preconditioning's padding).
    pub(super) n_tenants: usize,
}

/// What a die whose array is idle does next (`Timed::next_step`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum DieNext {
    /// Start the operation `next_step` took off the die's queue and placed first in the
    /// die's (empty) group, with partners if any (`start`).
    Start,
    /// Resume the suspended program or erase (no read is waiting).
    Resume,
    /// Nothing is queued: the die may start GC (`maybe_start_gc`).
    Gc,
    /// Nothing the die may start now.
    Wait,
}

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

impl Timed {
    /// Queue `op` at its die (or suspend the die's program or erase for a host read); the
    /// engine's `queue_op` then dispatches the die. Inlined (see `Engine::queue_op`).
    #[inline(always)]
    pub(super) fn queue_op(&mut self, op: FlashOp, cx: &mut DieCx) {
        let die = op.die;
        self.ops_live += 1;
        assert!(
            self.ops_live <= self.ops_max,
            "{} flash operations live, bound {}",
            self.ops_live,
            self.ops_max
        );
        let mut op = self.in_block_order(op, cx);
        self.unit_on_issue(&op);
        let d = die.0 as usize;
        if op.class == OpClass::HostRead {
            // The die's count of non-read starts now; one less if a non-read operation is
            // running or suspended, so that `start` counts this read as blocked.
            let exec = &self.dies[d];
            let behind = exec.suspended.is_some()
                || (exec.current.n_ops > 0 && exec.current.ops[0].class != OpClass::HostRead);
            let starts = self.nonread_starts[d].wrapping_sub(behind as u16) & STARTS_MASK;
            op.read_tag = (op.read_tag & REBUILD_MEMBER) | starts;
        } else {
            cx.status[d].writes_queued += 1;
        }
        self.sched.push(die, op);
        if op.class == OpClass::HostRead && cx.p.suspend {
            self.try_suspend(die, cx);
        }
    }

    /// Under a deadline-ordered scheduler, a program is due no earlier than the previous
    /// program of its block, so the pages of a block are still programmed in order; under a
    /// per-tenant one with frontiers shared by tenants, every program of a block waits in its
    /// owner's queue (`Timed::programs_by_owner`), for the same reason.
    #[inline]
    fn in_block_order(&mut self, mut op: FlashOp, cx: &DieCx) -> FlashOp {
        if op.kind == OpKind::Program && self.programs_by_owner {
            let owner = cx.ftl.blocks().get(op.block).owner;
            op.tenant = if (owner as usize) < cx.n_tenants { owner } else { op.tenant };
        }
        if op.kind == OpKind::Program && !self.program_deadline.is_empty() {
            let last = &mut self.program_deadline[op.block.0 as usize];
            op.deadline = op.deadline.max(*last);
            *last = op.deadline;
        }
        op
    }

    /// What `die`, whose array is idle, does next: start an operation (taken off its queue and
    /// placed first in the die's group, `stage`), resume its suspended one, start GC (nothing
    /// to do), or wait. Inlined into the engine's `dispatch_idle`, which does it at once; it
    /// borrows only what the choice reads, so the borrows the start needs (`DieCx`) are made
    /// only when an operation starts. The operation stays in the group rather than travel in
    /// the answer: moved through an enum it was copied in overlapping 16-byte halves and read
    /// back across them, which the store buffer cannot forward (+6% CPU on random-write's
    /// timed run, at +0.8% instructions).
    #[inline]
    pub(super) fn next_step(
        &mut self,
        die: DieIdx,
        pol: &mut Policies,
        ftl: &Ftl,
        p: &Params,
        now: SimTime,
    ) -> DieNext {
        let d = die.0 as usize;
        if self.dies[d].suspended.is_some() {
            let read = (self.dies[d].reads_in_suspension < SUSPEND_READS_MAX)
                .then(|| {
                    self.sched
                        .take_matching(die, OpClass::HostRead, SCAN_MAX, |o| o.class == OpClass::HostRead)
                })
                .flatten();
            return match read {
                Some(op) => {
                    self.dies[d].reads_in_suspension += 1;
                    self.stage(d, op)
                }
                None => DieNext::Resume,
            };
        }
        if self.unit_holds(die) {
            // Inside WAO-GC's write-and-step unit: only the step's operations (step_unit.rs).
            return match self.unit_next(die) {
                Some(op) => self.stage(d, op),
                None => DieNext::Wait,
            };
        }
        if !pol.may_write(die) {
            // A read die (the scheme's roles): host reads only; the rest waits its turn.
            let read = self
                .sched
                .take_matching(die, OpClass::HostRead, usize::MAX, |o| o.class == OpClass::HostRead);
            return match read {
                Some(op) => self.stage(d, op),
                None => DieNext::Wait,
            };
        }
        let urgent = ftl.blocks().free_count(die) <= p.reserve;
        if !(pol.may_run_jobs(die) || urgent && pol.excursion(die, now)) {
            // A window without background work (the scheme's Deterministic Window): host
            // operations only, reads first; jobs wait for the window to end.
            return match self.next_host_op(die) {
                Some(op) => self.stage(d, op),
                None => DieNext::Wait,
            };
        }
        match self.sched.pop(die, urgent) {
            Some(op) => self.stage(d, op),
            None => DieNext::Gc,
        }
    }

    /// `op` goes first in die `d`'s group, which `start` starts (the group stays empty,
    /// `n_ops == 0`, until then).
    #[inline(always)]
    fn stage(&mut self, d: usize, op: FlashOp) -> DieNext {
        self.dies[d].current.ops[0] = op;
        DieNext::Start
    }

    /// The next host read queued at `die`, else its next host program, if any.
    fn next_host_op(&mut self, die: DieIdx) -> Option<FlashOp> {
        let sched = &mut self.sched;
        sched.take_matching(die, OpClass::HostRead, usize::MAX, |o| o.class == OpClass::HostRead).or_else(
            || sched.take_matching(die, OpClass::HostWrite, usize::MAX, |o| o.class == OpClass::HostWrite),
        )
    }

    /// Start the operation placed first in idle `die`'s group (`stage`), with multi-plane
    /// partners when the device has them.
    pub(super) fn start(&mut self, die: DieIdx, cx: &mut DieCx) {
        let d = die.0 as usize;
        let first = self.dies[d].current.ops[0];
        assert_eq!(self.dies[d].current.n_ops, 0, "die {} started while executing", die.0);
        assert!(
            first.class == OpClass::HostRead || cx.pol.may_write(die),
            "a {:?} {:?} started on die {}, which the scheme keeps for reads",
            first.class,
            first.kind,
            die.0
        );
        assert!(
            matches!(first.class, OpClass::HostRead | OpClass::HostWrite) || cx.pol.may_run_jobs(die),
            "a {:?} {:?} started on die {} in a window without background work",
            first.class,
            first.kind,
            die.0
        );
        self.unit_on_start(die, &first);
        self.dies[d].current.n_ops = 1;
        if cx.p.multi_plane {
            self.add_partners(die, cx);
        }
        self.count_blocked_reads(die, cx);
        let g = cx.ftl.geometry;
        let group = &self.dies[d].current;
        let array_op = match first.kind {
            OpKind::Read => {
                ArrayOp::Read { bytes: group.ops().iter().map(|o| o.n_units as u32 * g.unit_bytes).sum() }
            }
            OpKind::Program => ArrayOp::Program { bytes: g.page_bytes * group.n_ops as u32 },
            OpKind::Erase => ArrayOp::Erase,
        };
        cx.status[d].busy = Some(first.class);
        if first.kind == OpKind::Read {
            for i in 0..group.n_ops as usize {
                let op = &self.dies[d].current.ops[i];
                if matches!(op.owner(), Owner::Job(_)) {
                    prefetch_for_gc_read(cx.ftl, op);
                }
            }
        }
        if cx.p.background_free && is_background(first.class) {
            // `device.background_free` (IODA's "Ideal"): done at once, no die or bus time.
            self.array.occupy(die, cx.now);
            let exec = &mut self.dies[d];
            (exec.array_end, exec.suspendable_from, exec.delay) = (cx.now, SimTime::MAX, SimTime::ZERO);
            cx.events.push(cx.now, Event::ArrayDone(array_done_tag(die, exec.gen)));
            return;
        }
        if self.array.has_board() {
            self.start_on_board(die, array_op, cx);
            return;
        }
        let t = *self.array.timing();
        let exec = &mut self.dies[d];
        let delay = std::mem::replace(&mut exec.delay, SimTime::ZERO);
        let done = self.array.begin_after(die, array_op, cx.now, delay);
        exec.array_end = done;
        exec.suspendable_from = match first.kind {
            OpKind::Read => SimTime::MAX,
            OpKind::Program => done - t.program,
            OpKind::Erase => done - t.erase,
        };
        cx.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
    }

    /// `start` on the Cosmos board (`flash::board`; no suspension there): a read or an erase
    /// begins its array phase; a program first waits for its transfers through the page buffer.
    fn start_on_board(&mut self, die: DieIdx, op: ArrayOp, cx: &mut DieCx) {
        self.array.occupy(die, cx.now);
        let t = *self.array.timing();
        let now = cx.now + t.command;
        let exec = &mut self.dies[die.0 as usize];
        exec.suspendable_from = SimTime::MAX;
        exec.delay = SimTime::ZERO;
        let done = match op {
            ArrayOp::Program { bytes } => {
                exec.array_end = SimTime::MAX;
                let board = self.array.board_mut().expect("a board");
                if let Some(end) = board.request(die, BusPhase::ProgramIn { bytes }, now) {
                    let ch = board.channel_of(die);
                    cx.events.push(end, Event::BusGrant(ch));
                }
                return;
            }
            ArrayOp::Read { .. } => now + t.read,
            ArrayOp::Erase => now + t.erase,
        };
        exec.array_end = done;
        cx.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
    }

    /// A grant of the board's way arbiter on channel `ch` ended: the next grant starts, and
    /// the die whose bus phase this ended goes on (a program to tPROG, anything else is done:
    /// returned, for the engine's `op_done`).
    pub(super) fn bus_grant(&mut self, ch: u32, cx: &mut DieCx) -> Option<DieIdx> {
        let board = self.array.board_mut().expect("a board");
        let (finished, next) = board.grant_end(ch, cx.now);
        if let Some(end) = next {
            cx.events.push(end, Event::BusGrant(ch));
        }
        match finished {
            Some((die, BusPhase::ProgramIn { .. })) => {
                let done = cx.now + self.array.timing().program;
                let exec = &mut self.dies[die.0 as usize];
                exec.array_end = done;
                cx.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
                None
            }
            Some((die, _)) => Some(die),
            None => None,
        }
    }

    /// The group just started on `die`: a host read in it that a non-read operation went
    /// before since it was queued is counted as blocked; a non-read group counts as started.
    fn count_blocked_reads(&mut self, die: DieIdx, cx: &mut DieCx) {
        let d = die.0 as usize;
        let starts = self.nonread_starts[d] & STARTS_MASK;
        let group = &self.dies[d].current;
        if group.ops[0].class != OpClass::HostRead {
            self.nonread_starts[d] = self.nonread_starts[d].wrapping_add(1);
            return;
        }
        let blocked = group.ops().iter().filter(|o| o.read_tag & STARTS_MASK != starts).count();
        cx.device.reads_blocked += blocked as u64;
    }

    /// Add queued operations of the same kind on other planes of `die`: the first such in
    /// `first`'s queue per plane, whatever their class (so two programs of one block, which
    /// share its plane, are never taken out of order).
    fn add_partners(&mut self, die: DieIdx, cx: &mut DieCx) {
        let g = cx.ftl.geometry;
        let d = die.0 as usize;
        let first = self.dies[d].current.ops[0];
        let mut planes = 1u32 << g.plane_of(first.block);
        while (self.dies[d].current.n_ops as u32) < g.planes_per_die.min(PLANES_MAX) {
            let found = self.sched.take_matching(die, first.class, SCAN_MAX, |o| {
                o.kind == first.kind && planes & (1 << g.plane_of(o.block)) == 0
            });
            let Some(op) = found else { break };
            planes |= 1 << g.plane_of(op.block);
            let group = &mut self.dies[d].current;
            group.ops[group.n_ops as usize] = op;
            group.n_ops += 1;
            cx.device.multi_plane_ops += 1;
        }
    }

    /// A host read was queued at `die`: if the die is in the array phase of a program or
    /// erase that was not suspended before, suspend it so the read goes first.
    fn try_suspend(&mut self, die: DieIdx, cx: &mut DieCx) {
        if self.unit_holds(die) {
            // WAO-GC's write-and-step unit is not preempted (step_unit.rs).
            return;
        }
        let exec = &mut self.dies[die.0 as usize];
        if exec.current.n_ops == 0
            || exec.current.kind() == OpKind::Read
            || exec.suspended.is_some()
            || cx.now < exec.suspendable_from
        {
            return;
        }
        exec.suspended = Some((exec.current, exec.array_end - cx.now));
        exec.reads_in_suspension = 0;
        exec.current.n_ops = 0;
        exec.gen = exec.gen.wrapping_add(1);
        exec.delay = self.array.timing().suspend;
        cx.status[die.0 as usize].busy = None;
        self.array.end(die, cx.now);
        cx.device.suspensions += 1;
    }

    /// No read is waiting: resume the suspended operation for its remaining time.
    pub(super) fn resume(&mut self, die: DieIdx, cx: &mut DieCx) {
        let exec = &mut self.dies[die.0 as usize];
        let (group, remaining) = exec.suspended.take().expect("resume without a suspended operation");
        self.array.occupy(die, cx.now);
        let done = cx.now + self.array.timing().suspend + remaining;
        cx.status[die.0 as usize].busy = Some(group.ops[0].class);
        exec.current = group;
        exec.array_end = done;
        exec.suspendable_from = SimTime::MAX;
        exec.delay = SimTime::ZERO;
        cx.events.push(done, Event::ArrayDone(array_done_tag(die, exec.gen)));
    }

    /// A die's array phase ended (ignored if a suspension made it stale). Returns the die if
    /// its operation is done (for the engine's `op_done`). It borrows the parameters, the
    /// FTL's unit size and the event queue, not a whole `DieCx` (it runs once per operation).
    pub(super) fn array_done(
        &mut self,
        tag: u32,
        p: &Params,
        unit_bytes: u32,
        events: &mut EventQueue<Event>,
        now: SimTime,
    ) -> Option<DieIdx> {
        let die = DieIdx(tag & ((1 << DIE_BITS) - 1));
        let exec = &self.dies[die.0 as usize];
        if array_done_tag(die, exec.gen) != tag {
            return None;
        }
        let group = &exec.current;
        assert!(group.n_ops > 0, "array phase ended on an idle die");
        if p.background_free && is_background(group.ops[0].class) {
            return Some(die);
        }
        if let Some(board) = self.array.board_mut() {
            // The Cosmos board: a status check, and for a read its transfers (`bus_grant`).
            let phase = match group.kind() {
                OpKind::Read => BusPhase::ReadOut {
                    bytes: group.ops().iter().map(|o| o.n_units as u32 * unit_bytes).sum(),
                },
                _ => BusPhase::Status,
            };
            if let Some(end) = board.request(die, phase, now) {
                let ch = board.channel_of(die);
                events.push(end, Event::BusGrant(ch));
            }
            return None;
        }
        if group.kind() == OpKind::Read {
            let bytes = group.ops().iter().map(|o| o.n_units as u32 * unit_bytes).sum();
            let done = self.array.read_transfer(die, bytes, now);
            events.push(done, Event::XferDone(die.0));
            return None;
        }
        Some(die)
    }

    /// The operation (group) on `die` has completed: the die is free, its operations no
    /// longer live. Returns their number (they stay in `current.ops` for the engine's
    /// `op_done` to complete) and whether the group was an armed host program
    /// (`unit_before_complete`).
    pub(super) fn end_group(&mut self, die: DieIdx, now: SimTime, status: &mut DieStatus) -> (u8, bool) {
        self.array.end(die, now);
        let d = die.0 as usize;
        let n_ops = self.dies[d].current.n_ops;
        assert!(n_ops > 0, "completion on an idle die");
        let armed_done = self.unit_before_complete(die);
        let writes = self.dies[d].current.ops().iter().filter(|o| o.class != OpClass::HostRead).count();
        status.writes_queued -= writes as u32;
        self.dies[d].current.n_ops = 0;
        status.busy = None;
        self.ops_live -= n_ops as usize;
        (n_ops, armed_done)
    }
}

/// The copies of a GC read need its units' L2P entries when the read completes, a tR
/// later; and the next reads of the victim (pages are read in order) its next P2L line.
fn prefetch_for_gc_read(ftl: &Ftl, op: &FlashOp) {
    let g = &ftl.geometry;
    let first = g.ppa(op.block, op.page, 0).0;
    ftl.prefetch_l2p_of_units(first, g.units_per_page);
    ftl.prefetch_p2l(first + PREFETCH_P2L_AHEAD_UNITS);
}

/// The write-and-step unit's hooks in die execution, over `Timed::units` (`step_unit.rs`).
impl Timed {
    /// A group starts on `die`: a host program arms the die if a step waits for one.
    #[inline]
    pub(super) fn unit_on_start(&mut self, die: DieIdx, first: &FlashOp) {
        if !self.units_in_use {
            return;
        }
        let u = &mut self.units[die.0 as usize];
        if u.pending > 0 && first.class == OpClass::HostWrite && !u.holds() {
            u.pending -= 1;
            u.armed = true;
        }
    }

    /// `op` is issued: count it if it belongs to the step running on its die.
    #[inline]
    pub(super) fn unit_on_issue(&mut self, op: &FlashOp) {
        if !self.units_in_use {
            return;
        }
        let u = &mut self.units[op.die.0 as usize];
        if u.job != NONE && op.owner() == Owner::Job(u.job) {
            u.live += 1;
        }
    }

    /// The group running on `die` completes (before its completions are applied). Returns
    /// whether it was an armed host program, whose step starts once it has completed (the die
    /// stays armed meanwhile, so that nothing a completion issues starts in between). A
    /// completed erase ends its step here, before the erase's completion may start another
    /// job on the die.
    #[inline]
    pub(super) fn unit_before_complete(&mut self, die: DieIdx) -> bool {
        if !self.units_in_use {
            return false;
        }
        let d = die.0 as usize;
        let u = &mut self.units[d];
        let group = self.dies[d].running();
        if u.armed {
            assert_eq!(
                group[0].class,
                OpClass::HostWrite,
                "an armed die {d} ran a {:?} inside its unit",
                group[0].class
            );
            return true;
        }
        if u.job == NONE {
            return false;
        }
        for op in group {
            if op.owner() == Owner::Job(u.job) {
                assert!(u.live > 0, "a step of die {d} completed more operations than it issued");
                u.live -= 1;
                if op.kind == OpKind::Erase {
                    assert_eq!(u.live, 0, "a step's erase ran with other operations of it live");
                    u.job = NONE;
                }
            }
        }
        false
    }

    /// Whether `die` is inside a unit (never, until a unit is asked for).
    #[inline]
    pub(super) fn unit_holds(&self, die: DieIdx) -> bool {
        self.units_in_use && self.units[die.0 as usize].holds()
    }

    /// The next operation of the step holding `die`, if any is queued (`dispatch`).
    pub(super) fn unit_next(&mut self, die: DieIdx) -> Option<FlashOp> {
        let job = self.units[die.0 as usize].job;
        if job == NONE {
            // Between an armed program's completion and its step's start.
            return None;
        }
        let code = Owner::Job(job).code();
        self.sched.take_matching(die, OpClass::Gc, usize::MAX, |o| o.owner == code)
    }
}
