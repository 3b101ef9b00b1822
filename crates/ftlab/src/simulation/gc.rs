//! GC's home in the engine: when a die collects and what (`maybe_start_gc`: foreground below
//! the low watermark, background on an idle die below the high one, static wear leveling after
//! another job's erase; the victim is the scheme's `gc_victim`, by default the FTL's choice in
//! `ftl/gc.rs`), partial-GC steps (`step_gc`, `Command::StepGc`) and WAO-GC's write-and-step
//! unit (`unit_*`, `grant_unit_step`, over `Timed::units`; the unit's state and its reading of
//! the PaRT-FTL paper are `step_unit.rs`'s), and the copy loop every job's page goes through
//! (`copy_page`, `copy_unit`, `copy_die`; under the instant executor the rest of a block in one
//! loop, `copy_rest_at_once` over `Ftl::copy_block_at_once`). Both executors call into it: the
//! instant one copies a page as its read is issued (`Executor::job_read`), the timed one when
//! the read completes (`complete`'s `job_read_done`). Not a job's life (sources, reads,
//! parity: `jobs.rs`; what a completed read or erase means: `complete.rs`) nor the job table
//! (`job_table.rs`).

use super::engine::{Engine, Executor};
use super::executor::{Instant, Timed, PREFETCH_AHEAD_UNITS};
use super::job_table::{CopyOf, Job, NoCopyRoom};
use super::ops::{FlashOp, OpKind, Owner};
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, NONE};
use crate::policy::{Cause, Dest, JobKind, OpClass};
use crate::sim::time::SimTime;

/// When GC starts, on which victim, and its partial steps.
impl<X: Executor> Engine<'_, X> {
    /// Start collecting on `die` if it needs it: foreground below the low watermark,
    /// background below the high one when the die is idle, or a static wear-leveling move.
    /// A paused partial-GC job on a die short of space is let run to its end instead.
    pub(super) fn maybe_start_gc(&mut self, die: DieIdx) {
        let d = die.0 as usize;
        let free = self.ftl.blocks().free_count(die);
        if !X::may_collect(self, die) {
            // A read die of the scheme's roles collects in its turn as a write die; a die in a
            // window without background work only when down to its host reserve (the
            // scheme's excursion).
            let must = self.pol.may_write(die) && free <= self.p.reserve;
            if !(must && self.pol.excursion(die, self.now)) {
                return;
            }
        }
        if self.jobs.collector[d] != NONE {
            let id = self.jobs.collector[d];
            let job = self.jobs.get_mut(id);
            if job.kind == JobKind::Gc && job.budget == 0 && free < self.p.low_watermark {
                job.budget = u32::MAX;
                self.job_pump(id);
            }
            return;
        }
        // A migration waiting for the die goes first: it frees a block of the die as GC does
        // (its copies leave the die), and GC would otherwise starve it on a busy die.
        if self.serve_waiting(die) {
            return;
        }
        let idle = X::die_idle(self, die);
        let wanted =
            free < self.p.low_watermark || (self.p.background_gc && idle && free < self.p.high_watermark);
        let mut victim = None;
        let mut kind = JobKind::Gc;
        if self.p.static_gap > 0 && std::mem::take(&mut self.jobs.wl_check[d]) {
            victim = self
                .ftl
                .static_wl_victim(die, self.p.static_gap)
                .filter(|&b| self.pol.scheme.may_level(b, &self.view()));
            kind = JobKind::WearLevel;
        }
        if victim.is_none() && wanted {
            victim = self.pol.scheme.gc_victim(die, &self.victim_view(), self.p.policy);
            kind = JobKind::Gc;
        }
        if let Some(v) = victim {
            self.start_collect(kind, v, u32::MAX);
        }
    }

    /// A one-block job (GC or wear leveling) on `victim` with `budget` page reads.
    fn start_collect(&mut self, kind: JobKind, victim: BlockIdx, budget: u32) {
        let id =
            self.jobs.insert(Job::new(kind, crate::policy::Dest::Scheme, budget, u32::MAX, SimTime::MAX));
        self.sink.job_counts.start(kind);
        self.begin_block(id, victim);
    }

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

/// The copy loop: a page of a job's source, unit by unit, each where the job's destination
/// rule and the policies say.
impl<X: Executor> Engine<'_, X> {
    /// Copy the still-valid units of `page` of `block` (just read by job `id`); it stops at a
    /// copy that finds no room (`JobTable::no_room`).
    pub(super) fn copy_page(&mut self, id: u32, block: BlockIdx, page: u32) {
        let g = self.ftl.geometry;
        let (shared, stream) = {
            let info = self.ftl.blocks().get(block);
            (info.multi_tenant, info.stream)
        };
        // What a job keeps for its life (kind, deadline, destination rule) and while it moves
        // this block (its die), read once per page.
        let job = self.jobs.get(id);
        let copy = CopyOf {
            id,
            class: job.kind.class(),
            deadline: job.deadline,
            by_scheme: job.dest == Dest::Scheme,
            victim_die: job.die,
            shared,
            from_stream: stream,
            block_die: job.block_die,
            block_stream: job.block_stream,
        };
        let first = g.ppa(block, page, 0);
        for slot in 0..g.units_per_page {
            let src = Ppa(first.0 + slot);
            let lpn = self.ftl.p2l(src);
            if lpn != NONE && !self.copy_unit(&copy, self.ftl.unit_tenant(src), lpn, src) {
                return;
            }
        }
    }

    /// Copy `lpn` of `owner` from `src` where job `c.id`'s destination rule says; false,
    /// having copied nothing and noted it (`JobTable::no_room`), if that die has no free block.
    fn copy_unit(&mut self, c: &CopyOf, owner: u16, lpn: u32, src: Ppa) -> bool {
        let (id, class, deadline) = (c.id, c.class, c.deadline);
        let stream = match c.block_stream {
            Some(s) => s,
            None => {
                let (pol, v) = self.policies_and_view();
                pol.mapper.gc_stream(owner, lpn, c.from_stream, &v)
            }
        };
        let die = match c.block_die {
            Some(d) => d,
            None if c.by_scheme => {
                let (pol, v) = self.policies_and_view();
                pol.scheme.gc_write_die(owner, c.victim_die, &v)
            }
            None => self.copy_die(id, owner),
        };
        let key = FrontierKey { tenant: owner, stream, class: WriteClass::Gc };
        let Ok(placed) = self.ftl.allocate(key, die, X::stamp(self)) else {
            let kind = self.jobs.get(id).kind;
            self.jobs.no_room = Some(NoCopyRoom { kind, owner, victim_die: c.victim_die, die });
            return false;
        };
        self.ftl.map_copy(owner, lpn, src, placed.ppa);
        // The page's program goes first: a policy that hears of the copy below may start a job
        // whose copies fill the next page of this same frontier, and pages program in order.
        if let Some(page) = placed.page_full {
            let n_units = self.ftl.geometry.units_per_page as u16;
            X::issue(self, FlashOp::program(class, owner, die, page, n_units, Owner::Job(id), deadline));
        }
        self.sink.metrics[owner as usize].gc_units += 1;
        self.sink.metrics[owner as usize].gc_copies_for_others += c.shared as u64;
        self.sink.device.gc_units += 1;
        self.sink.streams.copied(stream);
        self.sink.epoch.gc_units[owner as usize] += 1;
        X::unit_copied(self);
        self.notify_invalidated(owner, lpn, src, Cause::Moved);
        self.notify_placed(owner, lpn, placed.ppa, stream, WriteClass::Gc);
        true
    }

    /// The die a copy of job `id` (with `Dest::Dies`) goes to.
    fn copy_die(&mut self, id: u32, owner: u16) -> DieIdx {
        let job = self.jobs.get(id);
        let source_die = job.die;
        let Dest::Dies(dies) = &job.dest else {
            let (pol, v) = self.policies_and_view();
            return pol.scheme.gc_write_die(owner, source_die, &v);
        };
        let reserve = self.ftl.params.host_reserve_blocks;
        let n = dies.len();
        let pick = (0..n)
            .map(|k| (job.dest_next + k) % n)
            .find(|&i| self.ftl.blocks().free_count(dies[i]) > reserve);
        match pick {
            Some(i) => {
                let die = dies[i];
                self.jobs.get_mut(id).dest_next = (i + 1) % n;
                die
            }
            None => {
                self.sink.job_counts.fallback_copies += 1;
                source_die
            }
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

/// The copy loop under the instant executor: the rest of a block at once.
impl Engine<'_, Instant> {
    /// Copy the valid units of `page` of job `id`'s source `block` (just counted as read by
    /// `job_pump`) and of every later page of the block in one loop, with the policies'
    /// per-block answers (`Job::block_die`, `block_stream`); the job's cursor ends past the
    /// last page, so `job_pump` goes on to the erase. Returns false, having done nothing, unless
    /// nothing can come between two of these copies: the job has no read budget (a budget
    /// pauses it between pages), both policies answered for the whole block, and neither
    /// hears placements or invalidations (a hook could push commands that run jobs between
    /// copies). Then the copies, their programs (which complete at once) and the counts are
    /// those `job_pump` and `copy_page` make page by page, in the same order.
    pub(super) fn copy_rest_at_once(&mut self, id: u32, block: BlockIdx, page: u32) -> bool {
        let job = self.jobs.get(id);
        let (Some(die), Some(stream)) = (job.block_die, job.block_stream) else {
            return false;
        };
        if job.budget != u32::MAX || self.pol.interests.placed || self.pol.interests.invalidated {
            return false;
        }
        let kind = job.kind;
        let owner = self.ftl.blocks().get(block).owner;
        let key = FrontierKey { tenant: owner, stream, class: WriteClass::Gc };
        let stamp = self.exec.stamp;
        let Some(run) = self.ftl.copy_block_at_once(block, page, key, die, stamp, PREFETCH_AHEAD_UNITS)
        else {
            return false;
        };
        if run.no_room {
            let victim_die = self.jobs.get(id).die;
            self.jobs.no_room = Some(NoCopyRoom { kind, owner, victim_die, die });
        }
        // What `copy_unit` counts per copy and `job_pump` per page read after `page` (which
        // it counted itself, and which held a valid unit).
        assert!(run.pages_read >= 1, "a page read by a job held no valid unit");
        self.sink.device.flash_pages_programmed += run.pages_programmed as u64;
        self.sink.metrics[owner as usize].gc_units += run.units as u64;
        self.sink.device.gc_units += run.units as u64;
        for _ in 0..run.units {
            self.sink.streams.copied(stream);
        }
        self.sink.epoch.gc_units[owner as usize] += run.units as u64;
        self.sink.job_counts.page_reads[kind as usize] += (run.pages_read - 1) as u64;
        let job = self.jobs.get_mut(id);
        job.step_reads += run.pages_read - 1;
        job.next_page = self.ftl.geometry.pages_per_block;
        true
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
