//! Background jobs (DESIGN §11): every background flash operation belongs to a job in one
//! table. A job is data: a kind, its source blocks and a cursor over them (block, page), a
//! budget of page reads per step, a bound on reads in flight, a destination rule and a
//! deadline its operations inherit. GC and static wear leveling are one-block jobs the engine
//! starts itself; migrations, partial-GC steps and parity programs come from policy
//! `Command`s. One job at a time holds a die's collector slot (it is moving a source block of
//! that die), which keeps GC's reserve argument: a victim's copies always fit on its die.
//! Copies check validity when their read completes, so a host overwrite in between is never
//! resurrected. `JobTable` (`job_table.rs`) is the engine's part that holds them; the paths
//! here (a job's sources and reads, migrations, parity, and the policies' hooks `notify_*`
//! with the commands they push, `apply_commands`) are generic over the executor (a job's page
//! read completes at once under `Instant`). A job takes the policies' answers for a whole
//! source block once (`gc_block_die`, `gc_block_stream`). When GC starts, its steps and the
//! copies of every job are `gc.rs`'s; what a job's completed read or erase means is
//! `complete.rs`'s.

use super::engine::{Engine, Executor};
use super::job_table::Job;
use super::ops::{FlashOp, OpKind, Owner};
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, NONE};
use crate::policy::{Cause, Command, Dest, Invalidated, JobKind, Migration, Placed};
use crate::sim::time::SimTime;

/// Rounds of commands one hook may cascade into (a policy bug guard).
const COMMAND_ROUNDS_MAX: u32 = 1_000;

impl<X: Executor> Engine<'_, X> {
    /// Job `id` takes `block` (collectable, on a die whose slot is free) as its source.
    pub(super) fn begin_block(&mut self, id: u32, block: BlockIdx) {
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
    pub(super) fn next_source(&mut self, id: u32) {
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
    pub(super) fn serve_waiting(&mut self, die: DieIdx) -> bool {
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

    /// Apply the commands policy hooks pushed (they may push more).
    pub(super) fn apply_commands(&mut self) {
        let mut rounds = 0;
        while !self.pol.cmds.is_empty() {
            rounds += 1;
            assert!(
                rounds <= COMMAND_ROUNDS_MAX,
                "policy commands cascaded over {COMMAND_ROUNDS_MAX} rounds"
            );
            let mut batch = std::mem::take(&mut self.pol.cmds);
            for c in batch.drain(..) {
                self.apply_command(c);
            }
            if self.pol.cmds.is_empty() {
                self.pol.cmds = batch;
            }
        }
    }

    /// Tell the policies that want it that a unit was placed.
    #[inline]
    pub(super) fn notify_placed(&mut self, tenant: u16, lpn: u32, ppa: Ppa, stream: u8, class: WriteClass) {
        if !self.pol.interests.placed {
            return;
        }
        let ev = Placed { tenant, lpn, ppa, stream, class };
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_placed(&v, &ev, &mut pol.cmds);
        pol.mapper.on_placed(&v, &ev, &mut pol.cmds);
        self.apply_commands();
    }

    /// Tell the policies that want it that a unit's data died.
    #[inline]
    pub(super) fn notify_invalidated(&mut self, tenant: u16, lpn: u32, ppa: Ppa, cause: Cause) {
        if !self.pol.interests.invalidated {
            return;
        }
        let ev = Invalidated { tenant, lpn, ppa, cause };
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_invalidated(&v, &ev, &mut pol.cmds);
        pol.mapper.on_invalidated(&v, &ev, &mut pol.cmds);
        self.apply_commands();
    }

    /// Tell the policies that want it that a block was erased.
    pub(super) fn notify_erased(&mut self, block: BlockIdx) {
        if !self.pol.interests.erased {
            return;
        }
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_erased(&v, block, &mut pol.cmds);
        pol.mapper.on_erased(&v, block, &mut pol.cmds);
        self.apply_commands();
    }

    /// Turn one policy command into a job.
    fn apply_command(&mut self, cmd: Command) {
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
    pub(super) fn drop_stale_parity(&mut self, block: BlockIdx) {
        let g = self.ftl.geometry;
        let before = self.jobs.parity_pending.len();
        self.jobs
            .parity_pending
            .retain(|(_, _, _, data)| !data.as_slice().iter().any(|&p| g.block_of(p) == block));
        self.sink.job_counts.parity_dropped += (before - self.jobs.parity_pending.len()) as u64;
    }

    /// Retry parity programs that waited for space, in order.
    pub(super) fn retry_parity(&mut self) {
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
