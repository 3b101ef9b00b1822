//! WAO-GC's write-and-step unit (`Command::StepGcUnit`), as the PaRT-FTL paper analyses
//! WAO-GC (§IV-B, Eq. 13-14): "a partial garbage collection step is executed after a page
//! write request", and "the worst-case latency for a page read occurs when trying to read a
//! page on a flash die that is busy performing a partial garbage collection step for a write
//! request", t_r + t_w + max(t_e, c(t_r + t_w)). So a step and the host program it follows
//! are one non-preemptive unit on their die: from the program's start until the step's last
//! operation ends the die starts nothing else, and a host read queued meanwhile waits for the
//! whole unit. A step is at most c victim page reads with their copies, or the victim's erase
//! alone (n = ⌈v/c⌉ + 1 steps per victim; `jobs.rs`).
//!
//! What this is not: the trigger and the victim are the scheme's (`scheme/wao_gc.rs`); between
//! units the scheduler orders operations as usual (under EDF a read with an earlier deadline
//! goes before a waiting write, so it waits for at most the unit in progress). The unit is
//! the timed executor's: its per-die state lives in `Timed::units` and these paths are
//! `Engine<Timed>`'s (the executor's `step_gc_unit` leads here). Preconditioning (the instant
//! executor) has no time, and takes the step as a plain `StepGc` (`executor.rs`).

use super::engine::Engine;
use super::executor::Timed;
use super::{FlashOp, OpKind, Owner};
use crate::flash::geometry::DieIdx;
use crate::ftl::NONE;
use crate::policy::OpClass;

/// One die's unit state.
#[derive(Clone, Copy, Debug)]
pub(super) struct StepUnit {
    /// Steps asked whose host program has not started yet.
    pending: u32,
    /// Victim page reads of one step (c).
    pages: u32,
    /// The host program running on the die is followed by a step.
    armed: bool,
    /// The job whose step runs now (the die starts only its operations), or `NONE`.
    job: u32,
    /// That step's operations issued on the die and not yet complete.
    live: u32,
}

impl StepUnit {
    pub(super) const IDLE: StepUnit = StepUnit { pending: 0, pages: 0, armed: false, job: NONE, live: 0 };

    /// The die is inside a unit: its host program runs or its step does (`Engine::unit_holds`
    /// skips the look when no unit was ever asked for).
    #[inline]
    pub(super) fn holds(&self) -> bool {
        self.armed || self.job != NONE
    }

    /// Nothing asked, armed or running: the state every unit has until the first request.
    pub(super) fn is_idle(&self) -> bool {
        self.pending == 0 && !self.armed && self.job == NONE && self.live == 0
    }

    /// The unit's invariants on die `d`, whose running operations are `running` (tests): an
    /// armed die runs its host program and no step yet; a die with no step has none of its
    /// operations live; a step's operations live are live operations.
    pub(super) fn check(&self, d: usize, running: &[FlashOp], ops_live: usize) {
        if self.armed {
            assert_eq!(self.job, NONE, "die {d} is armed while its step {} runs", self.job);
            assert!(
                running.first().is_some_and(|o| o.class == OpClass::HostWrite),
                "die {d} is armed and runs no host program"
            );
        }
        if self.job == NONE {
            assert_eq!(self.live, 0, "die {d} runs no step and counts {} step operations", self.live);
        }
        assert!(
            self.live as usize <= ops_live,
            "die {d}'s step counts {} operations, {ops_live} live",
            self.live
        );
    }
}

impl Engine<'_, Timed> {
    /// `Command::StepGcUnit`: a step follows the next host program to start on `die` (or the
    /// one running now, if it has none yet).
    pub(super) fn unit_request(&mut self, die: DieIdx, pages: u32) {
        self.sink.job_counts.gc_steps += 1;
        self.exec.units_in_use = true;
        let d = die.0 as usize;
        let running_write =
            self.exec.dies[d].running().first().is_some_and(|o| o.class == OpClass::HostWrite);
        let u = &mut self.exec.units[d];
        u.pages = pages;
        if running_write && !u.holds() {
            u.armed = true;
        } else {
            u.pending += 1;
        }
    }

    /// A group starts on `die`: a host program arms the die if a step waits for one.
    #[inline]
    pub(super) fn unit_on_start(&mut self, die: DieIdx, first: &FlashOp) {
        if !self.exec.units_in_use {
            return;
        }
        let u = &mut self.exec.units[die.0 as usize];
        if u.pending > 0 && first.class == OpClass::HostWrite && !u.holds() {
            u.pending -= 1;
            u.armed = true;
        }
    }

    /// `op` is issued: count it if it belongs to the step running on its die.
    #[inline]
    pub(super) fn unit_on_issue(&mut self, op: &FlashOp) {
        if !self.exec.units_in_use {
            return;
        }
        let u = &mut self.exec.units[op.die.0 as usize];
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
        if !self.exec.units_in_use {
            return false;
        }
        let d = die.0 as usize;
        let u = &mut self.exec.units[d];
        let group = self.exec.dies[d].running();
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

    /// After the group's completions: start the step of a completed armed program, or end
    /// the step whose last operation completed.
    #[inline]
    pub(super) fn unit_after_complete(&mut self, die: DieIdx, armed_done: bool) {
        if !self.exec.units_in_use {
            return;
        }
        let d = die.0 as usize;
        if armed_done {
            self.exec.units[d].armed = false;
            let pages = self.exec.units[d].pages;
            if let Some(id) = self.grant_unit_step(die, pages) {
                self.exec.units[d].job = id;
                self.exec.units[d].live = 0;
                self.job_pump(id);
            }
        }
        if self.exec.units[d].job != NONE && self.exec.units[d].live == 0 {
            self.exec.units[d].job = NONE;
        }
    }

    /// Whether `die` is inside a unit (never, until a unit is asked for).
    #[inline]
    pub(super) fn unit_holds(&self, die: DieIdx) -> bool {
        self.exec.units_in_use && self.exec.units[die.0 as usize].holds()
    }

    /// The next operation of the step holding `die`, if any is queued (`dispatch`).
    pub(super) fn unit_next(&mut self, die: DieIdx) -> Option<FlashOp> {
        let job = self.exec.units[die.0 as usize].job;
        if job == NONE {
            // Between an armed program's completion and its step's start.
            return None;
        }
        let code = Owner::Job(job).code();
        self.exec.sched.take_matching(die, OpClass::Gc, usize::MAX, |o| o.owner == code)
    }
}
