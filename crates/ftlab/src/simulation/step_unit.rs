//! WAO-GC's write-and-step unit (`Command::StepGcUnit`), as the PaRT-FTL paper analyses
//! WAO-GC (§IV-B, Eq. 13-14): "a partial garbage collection step is executed after a page
//! write request", and "the worst-case latency for a page read occurs when trying to read a
//! page on a flash die that is busy performing a partial garbage collection step for a write
//! request", t_r + t_w + max(t_e, c(t_r + t_w)). So a step and the host program it follows
//! are one non-preemptive unit on their die: from the program's start until the step's last
//! operation ends the die starts nothing else, and a host read queued meanwhile waits for the
//! whole unit. A step is at most c victim page reads with their copies, or the victim's erase
//! alone (n = ⌈v/c⌉ + 1 steps per victim; `gc.rs`).
//!
//! What this is not: the trigger and the victim are the scheme's (`scheme/wao_gc.rs`); between
//! units the scheduler orders operations as usual (under EDF a read with an earlier deadline
//! goes before a waiting write, so it waits for at most the unit in progress). The unit is
//! the timed executor's: this file holds one die's state (`StepUnit`, in `Timed::units`); the
//! paths over it are `Engine<Timed>`'s where they start jobs (`unit_*` in `gc.rs`; the
//! executor's `step_gc_unit` leads there) and `Timed`'s in die execution (`die_exec.rs`).
//! Preconditioning (the instant executor) has no time, and takes the step as a plain
//! `StepGc` (`precondition.rs`).

use super::ops::FlashOp;
use crate::ftl::NONE;
use crate::policy::OpClass;

/// One die's unit state.
#[derive(Clone, Copy, Debug)]
pub(super) struct StepUnit {
    /// Steps asked whose host program has not started yet.
    pub(super) pending: u32,
    /// Victim page reads of one step (c).
    pub(super) pages: u32,
    /// The host program running on the die is followed by a step.
    pub(super) armed: bool,
    /// The job whose step runs now (the die starts only its operations), or `NONE`.
    pub(super) job: u32,
    /// That step's operations issued on the die and not yet complete.
    pub(super) live: u32,
}

impl StepUnit {
    pub(super) const IDLE: StepUnit = StepUnit { pending: 0, pages: 0, armed: false, job: NONE, live: 0 };

    /// The die is inside a unit: its host program runs or its step does (`Timed::unit_holds`
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
