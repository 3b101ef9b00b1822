//! GC's partial steps in the engine: `step_gc` (`Command::StepGc`: more page reads for the
//! die's GC job, or a new one on the scheme's victim) and WAO-GC's write-and-step unit
//! (`unit_*`, `grant_unit_step`, over `Timed::units`; the unit's state and its reading of the
//! PaRT-FTL paper are `step_unit.rs`'s). When a die collects and on which victim is
//! `jobs.rs`'s (`maybe_start_gc`, beside the job life it starts), the copies `copy.rs`'s, the
//! victim choice itself `ftl/gc.rs`'s. Not a job's life (`jobs.rs`) nor what a completed read
//! or erase means (`complete.rs`).

use super::engine::{Engine, Executor};
use super::executor::Timed;
use super::ops::{FlashOp, OpKind, Owner};
use crate::flash::geometry::DieIdx;
use crate::ftl::NONE;
use crate::policy::{JobKind, OpClass};

impl<X: Executor> Engine<'_, X> {
    /// Partial GC: `pages` more page reads for the die's GC job, or a new one.
    pub(super) fn step_gc(&mut self, die: DieIdx, pages: u32) {
        self.sink.job_counts.gc_steps += 1;
        let d = die.0 as usize;
        let id = self.jobs.collector[d];
        if id != NONE {
            let job = self.jobs.get_mut(id);
            if matches!(job.kind, JobKind::Gc | JobKind::WearLevel) {
                job.budget = job.budget.saturating_add(pages);
                self.job_pump(id);
            } else {
                self.sink.job_counts.gc_steps_refused += 1;
            }
            return;
        }
        match self.pol.scheme.gc_victim(die, &self.victim_view(), self.p.policy) {
            Some(v) => self.start_collect(JobKind::Gc, v, pages),
            None => self.sink.job_counts.gc_steps_refused += 1,
        }
    }
}

/// Partial GC as write-and-step units (the timed executor's; `step_unit.rs`).
impl Engine<'_, Timed> {
    /// One unit step of `pages` reads (or the victim's erase) for `die`'s partial-GC job,
    /// started with the scheme's victim if the die has no collector (`step_unit.rs`). Returns
    /// the job, or `None` if there is no victim (counted refused) or another job holds the
    /// die, which then takes the step as a plain `StepGc`.
    pub(super) fn grant_unit_step(&mut self, die: DieIdx, pages: u32) -> Option<u32> {
        let d = die.0 as usize;
        if self.jobs.collector[d] == NONE {
            let Some(v) = self.pol.scheme.gc_victim(die, &self.victim_view(), self.p.policy) else {
                self.sink.job_counts.gc_steps_refused += 1;
                return None;
            };
            self.start_collect(JobKind::Gc, v, 0);
            let id = self.jobs.collector[d];
            self.jobs.get_mut(id).unit = true;
        }
        let id = self.jobs.collector[d];
        let job = self.jobs.get_mut(id);
        if job.kind == JobKind::Gc && job.budget != u32::MAX {
            // A partial-GC job that preconditioning's plain steps left paused: its next steps
            // are units too (only the timed executor grants unit steps).
            job.unit = true;
        }
        if !job.unit || job.budget == u32::MAX {
            // Wear leveling, a migration, or the foreground GC running the job to its end.
            self.sink.job_counts.gc_steps -= 1;
            self.step_gc(die, pages);
            return None;
        }
        job.budget = pages;
        job.step_reads = 0;
        Some(id)
    }
}

/// The write-and-step unit's paths over `Timed::units` (`step_unit.rs`).
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
