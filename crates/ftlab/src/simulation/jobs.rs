//! Background jobs (DESIGN §11): every background flash operation belongs to a job in one
//! table. A job is data: a kind, its source blocks and a cursor over them (block, page), a
//! budget of page reads per step, a bound on reads in flight, a destination rule and a
//! deadline its operations inherit. GC and static wear leveling are one-block jobs the engine
//! starts itself; migrations, partial-GC steps and parity programs come from policy
//! `Command`s. One job at a time holds a die's collector slot (it is moving a source block of
//! that die), which keeps GC's reserve argument: a victim's copies always fit on its die.
//! Copies check validity when their read completes, so a host overwrite in between is never
//! resurrected. `JobTable` is the engine's part that holds them; the paths over it are
//! generic over the executor (a job's page read completes at once under `Instant`). A job
//! takes the policies' answers for a whole source block once (`gc_block_die`,
//! `gc_block_stream`), and under `Instant`, where nothing can come between two copies, copies
//! the rest of the block in one loop (`copy_rest_at_once`).

use super::engine::{Engine, Executor};
use super::executor::{Instant, Timed, PREFETCH_AHEAD_UNITS};
use super::job_table::{CopyOf, Job, NoCopyRoom};
use super::ops::{FlashOp, OpKind, Owner};
use crate::error::FtlabError;
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, NONE};
use crate::policy::{Cause, Command, Dest, JobKind, Migration, OpClass};
use crate::sim::time::SimTime;

impl<X: Executor> Engine<'_, X> {
    /// Start collecting on `die` if it needs it: foreground below the low watermark,
    /// background below the high one when the die is idle, or a static wear-leveling move.
    /// A paused partial-GC job on a die short of space is let run to its end instead.
    pub(super) fn maybe_start_gc(&mut self, die: DieIdx) {
        if !X::may_collect(self, die) {
            // A read die of the scheme's roles: it collects in its turn as a write die.
            return;
        }
        let d = die.0 as usize;
        let free = self.ftl.blocks().free_count(die);
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
            victim = self.pol.scheme.gc_victim(die, &self.view(), self.p.policy);
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

    /// Job `id` takes `block` (collectable, on a die whose slot is free) as its source.
    fn begin_block(&mut self, id: u32, block: BlockIdx) {
        assert!(self.ftl.is_collectable(block), "job source {} is not collectable", block.0);
        let die = self.ftl.geometry.die_of_block(block);
        let d = die.0 as usize;
        assert_eq!(self.jobs.collector[d], NONE, "die {} has two collecting jobs", die.0);
        self.ftl.mark_victim(block);
        X::source_taken(self, block);
        self.jobs.collector[d] = id;
        // The policies' answers for the whole block, where they give one (their hooks' docs:
        // a function of the block's owner, die and stream, so exact for every copy). A block
        // of several tenants' data has no one owner: each copy asks for its own tenant.
        let info = self.ftl.blocks().get(block);
        let (owner, from_stream, shared) = (info.owner, info.stream, info.multi_tenant);
        let by_scheme = self.jobs.get(id).dest == Dest::Scheme;
        let block_die = if by_scheme && !shared { self.pol.scheme.gc_block_die(owner, die) } else { None };
        let block_stream = if shared { None } else { self.pol.mapper.gc_block_stream(owner, from_stream) };
        let job = self.jobs.get_mut(id);
        self.die_status[d].job = Some(job.kind);
        job.block = block;
        job.die = die;
        job.next_page = 0;
        job.erasing = false;
        job.block_die = block_die;
        job.block_stream = block_stream;
        self.job_pump(id);
    }

    /// Issue job `id`'s next reads while its budget and its bound on reads in flight allow;
    /// erase the source when every page is read and copied.
    pub(super) fn job_pump(&mut self, id: u32) {
        let g = self.ftl.geometry;
        loop {
            if self.jobs.no_room.is_some() {
                // The run is ending (`NoCopyRoom`; the instant executor's copies of the last
                // read may have found it): the source keeps what was not copied.
                return;
            }
            let job = self.jobs.get(id);
            if job.erasing || job.block.0 == NONE {
                return;
            }
            if job.next_page == g.pages_per_block {
                if job.reads_in_flight == 0 && !job.erase_sources {
                    self.leave_source(id);
                    return;
                }
                if job.reads_in_flight == 0 {
                    if job.unit && job.budget != u32::MAX && (job.step_reads > 0 || job.budget == 0) {
                        // §IV-B's n = ⌈v/c⌉ + 1: the erase is a step of its own.
                        return;
                    }
                    let (die, block, kind, deadline) = (job.die, job.block, job.kind, job.deadline);
                    let job = self.jobs.get_mut(id);
                    job.erasing = true;
                    if job.unit && job.budget != u32::MAX {
                        job.budget = 0;
                    }
                    let op = FlashOp {
                        kind: OpKind::Erase,
                        class: kind.class(),
                        tenant: 0,
                        die,
                        block,
                        page: 0,
                        n_units: 0,
                        read_tag: 0,
                        owner: Owner::Job(id).code(),
                        deadline,
                    };
                    X::issue(self, op);
                }
                return;
            }
            if job.reads_in_flight >= job.reads_in_flight_max || job.budget == 0 {
                return;
            }
            let (block, page, die, kind, deadline) =
                (job.block, job.next_page, job.die, job.kind, job.deadline);
            let first = g.ppa(block, page, 0);
            let valid =
                self.ftl.p2l_range(first, g.units_per_page).iter().filter(|&&l| l != NONE).count() as u32;
            let job = self.jobs.get_mut(id);
            job.next_page += 1;
            if valid == 0 {
                continue;
            }
            if job.budget != u32::MAX {
                job.budget -= 1;
            }
            job.step_reads += 1;
            self.sink.job_counts.page_reads[kind as usize] += 1;
            X::job_read(
                self,
                id,
                FlashOp {
                    kind: OpKind::Read,
                    class: kind.class(),
                    tenant: 0,
                    die,
                    block,
                    page,
                    n_units: valid as u16,
                    read_tag: 0,
                    owner: Owner::Job(id).code(),
                    deadline,
                },
            );
        }
    }

    /// A job's page read completed: copy the page's still-valid units, then go on; an error if
    /// a copy found no room (`NoCopyRoom`).
    pub(super) fn job_read_done(&mut self, id: u32, op: FlashOp) -> Result<(), FtlabError> {
        self.copy_page(id, op.block, op.page);
        if let Some(n) = self.jobs.no_room {
            return Err(self.no_copy_room_error(n));
        }
        let job = self.jobs.get_mut(id);
        assert!(job.reads_in_flight > 0, "a job read completed with none in flight");
        job.reads_in_flight -= 1;
        self.job_pump(id);
        Ok(())
    }

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

    /// A job's erase completed: the source is free; go to the next source or end the job.
    pub(super) fn job_erase_done(&mut self, id: u32, op: FlashOp) -> Result<(), crate::error::FtlabError> {
        let d = op.die.0 as usize;
        let kind = self.jobs.get(id).kind;
        assert_eq!(self.jobs.get(id).block, op.block, "erase of a block that is not the job's source");
        assert_eq!(self.jobs.collector[d], id, "erase by a job that does not hold the die");
        let erased = self.ftl.blocks().info[op.block.0 as usize];
        self.sink.wear.erase(d, erased.owner, erased.erase_count + 1, self.now);
        self.ftl.erase(op.block);
        self.sink.device.erases += 1;
        self.sink.device.blocks_multi_tenant += erased.multi_tenant as u64;
        self.sink.job_counts.erases[kind as usize] += 1;
        self.sink.epoch.erases[d] += 1;
        X::erased(self, op.block, kind)?;
        self.jobs.collector[d] = NONE;
        self.die_status[d].job = None;
        // A wear-leveling erase does not look for the next wear-leveling victim: leveling
        // moves at most one cold block per erase of another job on the die. Re-armed by its
        // own erases, it moved cold blocks back to back while a scheme's migrations kept
        // raising the die's most-erased count, and the host's operations, queued behind those
        // jobs, waited until the livelock bound ended the run (soak seed 635).
        self.jobs.wl_check[d] |= kind != JobKind::WearLevel;
        let job = self.jobs.get_mut(id);
        job.block = BlockIdx(NONE);
        self.next_source(id);
        self.notify_erased(op.block);
        self.drop_stale_parity(op.block);
        self.maybe_start_gc(op.die);
        self.retry_parity();
        self.wake_stalled()
    }

    /// A copy-only job has moved every valid unit of its source: the block goes back to full
    /// (of dead data), the die's slot is free, and the job moves on.
    fn leave_source(&mut self, id: u32) {
        let job = self.jobs.get(id);
        let (block, die) = (job.block, job.die);
        assert!(
            !job.erase_sources && job.reads_in_flight == 0,
            "leaving a source that is to be erased or still read"
        );
        assert_eq!(
            self.ftl.blocks().get(block).valid_units,
            0,
            "a copy-only job left valid data in block {}",
            block.0
        );
        self.ftl.unmark_victim(block);
        let d = die.0 as usize;
        assert_eq!(self.jobs.collector[d], id, "leaving a source of a die the job does not hold");
        self.jobs.collector[d] = NONE;
        self.die_status[d].job = None;
        self.jobs.get_mut(id).block = BlockIdx(NONE);
        self.sink.job_counts.sources_left += 1;
        self.next_source(id);
        self.maybe_start_gc(die);
    }

    /// Job `id` moves on to its next collectable source (or waits for its die's slot), or
    /// ends when none is left.
    fn next_source(&mut self, id: u32) {
        loop {
            let job = self.jobs.get_mut(id);
            let Some(&block) = job.sources.get(job.next_source) else {
                self.jobs.remove(id);
                return;
            };
            job.next_source += 1;
            if !self.ftl.is_collectable(block) {
                self.sink.job_counts.migrate_skipped_blocks += 1;
                continue;
            }
            let die = self.ftl.geometry.die_of_block(block);
            if self.jobs.collector[die.0 as usize] == NONE {
                self.begin_block(id, block);
            } else {
                self.jobs.get_mut(id).next_source -= 1;
                self.jobs.waiting.push(id);
            }
            return;
        }
    }

    /// A waiting job whose next source is on `die` takes the die's free slot. Returns whether
    /// one did.
    fn serve_waiting(&mut self, die: DieIdx) -> bool {
        let g = self.ftl.geometry;
        let Some(i) = self.jobs.waiting.iter().position(|&id| {
            let job = self.jobs.get(id);
            g.die_of_block(job.sources[job.next_source]) == die
        }) else {
            return false;
        };
        let id = self.jobs.waiting.remove(i);
        self.next_source(id);
        true
    }

    /// Turn one policy command into a job.
    pub(super) fn apply_command(&mut self, cmd: Command) {
        match cmd {
            Command::Migrate(m) => self.start_migration(m),
            Command::StepGc { die, pages } => self.step_gc(die, pages),
            Command::StepGcUnit { die, pages } => X::step_gc_unit(self, die, pages),
            Command::Dispatch { die } => {
                X::dispatch(self, die);
            }
            Command::CloseBlock { block } => self.ftl.close_block(block),
            Command::ProgramParity { tenant, stream, die, data } => {
                // Waiting parity goes first (in order); then the program needs a job slot and
                // room on its die.
                if !self.jobs.parity_pending.is_empty() || !self.program_parity(tenant, stream, die, &data) {
                    self.sink.job_counts.parity_deferred += 1;
                    self.jobs.parity_pending.push_back((tenant, stream, die, data));
                    assert!(
                        self.jobs.parity_pending.len() <= self.jobs.parity_pending_max,
                        "parity programs pile up waiting for space"
                    );
                }
            }
        }
    }

    fn start_migration(&mut self, m: Migration) {
        let g = self.ftl.geometry;
        assert!(m.blocks.iter().all(|b| b.0 < g.n_blocks), "migration of a block past the device");
        if let Dest::Dies(d) = &m.dest {
            assert!(
                !d.is_empty() && d.iter().all(|x| x.0 < g.n_dies),
                "migration to no die or a die past the device"
            );
        }
        let mut job = Job::new(JobKind::Migrate, m.dest, u32::MAX, m.reads_in_flight_max, m.deadline);
        job.sources = m.blocks;
        job.erase_sources = m.erase_sources;
        let id = self.jobs.insert(job);
        self.sink.job_counts.start(JobKind::Migrate);
        self.next_source(id);
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
        match self.pol.scheme.gc_victim(die, &self.view(), self.p.policy) {
            Some(v) => self.start_collect(JobKind::Gc, v, pages),
            None => self.sink.job_counts.gc_steps_refused += 1,
        }
    }

    /// Program one parity page of (tenant, stream) on `die`, the XOR of `data`; false if the
    /// die has no room or `parity_in_flight_max` programs are in flight.
    fn program_parity(
        &mut self,
        tenant: u16,
        stream: u8,
        die: DieIdx,
        data: &crate::policy::StripePages,
    ) -> bool {
        if self.jobs.parity_in_flight >= self.jobs.parity_in_flight_max {
            return false;
        }
        let key = FrontierKey { tenant, stream, class: WriteClass::Parity };
        let Ok(placed) = self.ftl.allocate(key, die, X::stamp(self)) else {
            self.maybe_start_gc(die);
            return false;
        };
        let (block, page) = match placed.page_full {
            Some(p) => p,
            None => self.ftl.pad_page(key, die).expect("the page just opened"),
        };
        let g = self.ftl.geometry;
        assert!(
            data.as_slice().iter().all(|&d| self.ftl.page_is_allocated(d)),
            "parity of a data page not yet written"
        );
        let parity = g.ppa(block, page, 0);
        self.ftl.oracle_seal_parity(parity, data.as_slice());
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_parity_placed(data, parity, &v);
        let id = self.jobs.insert(Job::new(JobKind::Parity, Dest::Scheme, 0, 1, SimTime::MAX));
        self.jobs.parity_in_flight += 1;
        self.sink.job_counts.start(JobKind::Parity);
        let op = FlashOp::program(
            JobKind::Parity.class(),
            tenant,
            die,
            (block, page),
            0,
            Owner::Job(id),
            SimTime::MAX,
        );
        X::issue(self, op);
        if self.ftl.blocks().free_count(die) < self.p.low_watermark {
            self.maybe_start_gc(die);
        }
        true
    }

    /// A parity program completed: its job is done.
    pub(super) fn parity_done(&mut self, id: u32) {
        assert_eq!(self.jobs.get(id).kind, JobKind::Parity);
        assert!(self.jobs.parity_in_flight > 0, "a parity program completed that was never counted");
        self.jobs.remove(id);
        self.jobs.parity_in_flight -= 1;
        self.retry_parity();
    }

    /// Waiting parity programs with data in the erased `block` cover data that is gone.
    fn drop_stale_parity(&mut self, block: BlockIdx) {
        let g = self.ftl.geometry;
        let before = self.jobs.parity_pending.len();
        self.jobs
            .parity_pending
            .retain(|(_, _, _, data)| !data.as_slice().iter().any(|&p| g.block_of(p) == block));
        self.sink.job_counts.parity_dropped += (before - self.jobs.parity_pending.len()) as u64;
    }

    /// Retry parity programs that waited for space, in order.
    fn retry_parity(&mut self) {
        // Not re-entered: an instant program completes inside `program_parity`, and its
        // `parity_done` would retry the front entry the outer loop is programming.
        if self.jobs.parity_retrying {
            return;
        }
        self.jobs.parity_retrying = true;
        while let Some(&(t, s, die, data)) = self.jobs.parity_pending.front() {
            if !self.program_parity(t, s, die, &data) {
                break;
            }
            self.jobs.parity_pending.pop_front();
        }
        self.jobs.parity_retrying = false;
    }
}

impl Engine<'_, Timed> {
    /// One unit step of `pages` reads (or the victim's erase) for `die`'s partial-GC job,
    /// started with the scheme's victim if the die has no collector (`step_unit.rs`). Returns
    /// the job, or `None` if there is no victim (counted refused) or another job holds the
    /// die, which then takes the step as a plain `StepGc`.
    pub(super) fn grant_unit_step(&mut self, die: DieIdx, pages: u32) -> Option<u32> {
        let d = die.0 as usize;
        if self.jobs.collector[d] == NONE {
            let Some(v) = self.pol.scheme.gc_victim(die, &self.view(), self.p.policy) else {
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
