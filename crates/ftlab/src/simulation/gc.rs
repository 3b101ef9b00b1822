//! GC's partial steps in the engine: `step_gc` (`Command::StepGc`: more page reads for the
//! die's GC job, or a new one on the scheme's victim) and WAO-GC's write-and-step unit where
//! it starts jobs (`unit_request`, `unit_after_complete`, `grant_unit_step`, over
//! `Timed::units`; its hooks in die execution are `Timed`'s, `die_exec.rs`; the unit's state
//! and its reading of the PaRT-FTL paper are `step_unit.rs`'s). When a die collects and on which victim is
//! `jobs.rs`'s (`maybe_start_gc`, beside the job life it starts), the copies `copy.rs`'s, the
//! victim choice itself `ftl/gc.rs`'s. Not a job's life (`jobs.rs`) nor what a completed read
//! or erase means (`complete.rs`).

use super::engine::{Engine, Executor};
use super::executor::Timed;
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
}
