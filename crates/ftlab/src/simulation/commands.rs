//! The policies' hooks and the commands they push (DESIGN §11): `notify_placed`,
//! `notify_invalidated` and `notify_erased` tell the policies that want it, and
//! `apply_commands` turns what they pushed into work: a migration (`start_migration`, a job of
//! several sources, `jobs.rs`), a partial-GC step (`step_gc` in `gc.rs`, or the executor's
//! write-and-step unit, `Executor::step_gc_unit`), a die's dispatch, a block's close, or a
//! parity program (`program_parity`, with the programs that wait for room,
//! `JobTable::parity_pending`, retried in order and dropped when their data is erased). A
//! command may start jobs whose copies tell the policies again (`copy.rs` calls the hooks), so
//! this file sits above the job and GC paths and below the copy loop. Generic over the
//! executor.

use super::engine::{Engine, Executor};
use super::job_table::Job;
use super::ops::{FlashOp, Owner};
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::FrontierKey;
use crate::policy::{Cause, Command, Dest, Invalidated, JobKind, Migration, Placed};
use crate::sim::time::SimTime;

/// Rounds of commands one hook may cascade into (a policy bug guard).
const COMMAND_ROUNDS_MAX: u32 = 1_000;

impl<X: Executor> Engine<'_, X> {
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
                    self.jobs.defer_parity(tenant, stream, die, data);
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
        self.jobs.end_parity(id);
        self.retry_parity();
    }

    /// Waiting parity programs with data in the erased `block` cover data that is gone.
    pub(super) fn drop_stale_parity(&mut self, block: BlockIdx) {
        self.sink.job_counts.parity_dropped += self.jobs.drop_parity_of(block, &self.ftl.geometry);
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
