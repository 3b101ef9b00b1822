//! The copy loop every job's page goes through (GC, wear leveling, migrations): `copy_page`
//! unit by unit, each where the job's destination rule and the policies say (`copy_unit`,
//! `copy_die`), telling the policies of each copy (`commands.rs`'s hooks); under the instant
//! executor the rest of a block in one loop (`copy_rest_at_once` over
//! `Ftl::copy_block_at_once`). Both executors call it: the instant one copies a page as its
//! read is issued (`Executor::job_read`), the timed one when the read completes (`complete`'s
//! `job_read_done`). It is the top of the job paths, since a copy's hooks may push commands
//! that start jobs. Not a job's life (`jobs.rs`) nor when GC starts.

use super::engine::{Engine, Executor};
use super::executor::{Instant, PREFETCH_AHEAD_UNITS};
use super::job_table::{CopyOf, NoCopyRoom};
use super::ops::{FlashOp, Owner};
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, NONE};
use crate::policy::{Cause, Dest};

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
