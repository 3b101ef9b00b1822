//! `JobTable`, the engine's part that holds the background jobs: each job's data (`Job`: kind,
//! sources and cursor, budget, reads in flight, destination rule, deadline), the per-die
//! collector slots, jobs waiting for a slot, parity programs waiting and in flight, the
//! wear-leveling checks, with their invariants. What touches only this data is its methods (a
//! die's slot freed, the waiting job for a die taken, a parity program deferred, ended or
//! dropped); the job paths, which reach the FTL, the policies and the executor too, are
//! `jobs.rs`'s, `commands.rs`'s and `copy.rs`'s.

use crate::flash::geometry::{BlockIdx, DieIdx, Geometry};
use crate::ftl::Ftl;
use crate::ftl::NONE;
use crate::policy::{Dest, DieStatus, JobKind, StripePages};
use crate::sim::slab::Slab;
use crate::sim::time::SimTime;
use std::collections::VecDeque;

/// What the copies of one page of a job's source share (`copy_page`).
pub(super) struct CopyOf {
    pub(super) id: u32,
    pub(super) class: crate::policy::OpClass,
    pub(super) deadline: SimTime,
    /// The job's destination rule is `Dest::Scheme` (the scheme's `gc_write_die`).
    pub(super) by_scheme: bool,
    pub(super) victim_die: DieIdx,
    /// The source block held units of more than one tenant (`BlockInfo::multi_tenant`): each
    /// copy is its tenant's `gc_copies_for_others`.
    pub(super) shared: bool,
    pub(super) from_stream: u8,
    /// The policies' answers for the whole source block (`Job::block_die`, `block_stream`).
    pub(super) block_die: Option<DieIdx>,
    pub(super) block_stream: Option<u8>,
}

/// A job's copy that found no free block on its destination die (a scheme that sends copies
/// off their die, which GC's reserve does not cover). Every job stops where it is, the copy's
/// unit still valid in its source, and the run ends with `RunError::OutOfSpace`
/// (`Engine::no_copy_room_reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NoCopyRoom {
    pub(super) kind: JobKind,
    /// The tenant whose data was being copied.
    pub(super) owner: u16,
    pub(super) victim_die: DieIdx,
    pub(super) die: DieIdx,
}

/// One background job.
#[derive(Clone, Debug)]
pub(super) struct Job {
    pub(super) kind: JobKind,
    /// Sources still to move after the current one (migrations), and the next one's index.
    pub(super) sources: Vec<BlockIdx>,
    pub(super) next_source: usize,
    /// The block being moved (`NONE` while waiting for a die's slot).
    pub(super) block: BlockIdx,
    pub(super) die: DieIdx,
    /// Next page of `block` to look at.
    pub(super) next_page: u32,
    pub(super) reads_in_flight: u32,
    pub(super) reads_in_flight_max: u32,
    /// Page reads allowed before the job pauses (`u32::MAX`: unbounded).
    pub(super) budget: u32,
    pub(super) dest: Dest,
    pub(super) dest_next: usize,
    pub(super) deadline: SimTime,
    pub(super) erasing: bool,
    /// Erase each source once copied (false: a copy-only migration).
    pub(super) erase_sources: bool,
    /// A partial-GC job of write-and-step units (`step_unit.rs`): each step is its budget of
    /// reads or the erase alone, and unused budget lapses when the step ends.
    pub(super) unit: bool,
    /// Page reads issued in the current unit step.
    pub(super) step_reads: u32,
    /// The die every copy of `block` goes to, if the scheme names one for the whole block
    /// (`Scheme::gc_block_die`, asked when the job takes the block; never for `Dest::Dies`);
    /// `None`: asked per copy.
    pub(super) block_die: Option<DieIdx>,
    /// The stream of every copy of `block`, if the mapper names one for the whole block
    /// (`StreamMapper::gc_block_stream`); `None`: asked per copy.
    pub(super) block_stream: Option<u8>,
}

impl Job {
    pub(super) fn new(
        kind: JobKind,
        dest: Dest,
        budget: u32,
        reads_in_flight_max: u32,
        deadline: SimTime,
    ) -> Job {
        assert!(reads_in_flight_max >= 1, "a job must be allowed one read in flight");
        Job {
            kind,
            sources: Vec::new(),
            next_source: 0,
            block: BlockIdx(NONE),
            die: DieIdx(NONE),
            next_page: 0,
            reads_in_flight: 0,
            reads_in_flight_max,
            budget,
            dest,
            dest_next: 0,
            deadline,
            erasing: false,
            erase_sources: true,
            unit: false,
            step_reads: 0,
            block_die: None,
            block_stream: None,
        }
    }
}

/// The job table. Invariants: a die's collector slot is free (`NONE`) or held by a live job
/// moving a source block of that die, as its `DieStatus::job` says; at most
/// `parity_in_flight_max` parity programs are in flight (`check`).
pub(super) struct JobTable {
    pub(super) slab: Slab<Job>,
    pub(super) jobs_max: usize,
    /// Per die: the job moving a source block of the die, or `NONE` (one at a time).
    pub(super) collector: Vec<u32>,
    /// Jobs waiting for the collector slot of their next source block's die.
    pub(super) waiting: Vec<u32>,
    /// Parity programs waiting for a free block: (tenant, stream, die).
    pub(super) parity_pending: VecDeque<(u16, u8, DieIdx, StripePages)>,
    /// Parity programs issued and not yet complete, at most `parity_in_flight_max` (half the
    /// job bound): a burst of parity (a scheme sealing many stripes at once) waits in
    /// `parity_pending` instead of taking every job slot.
    pub(super) parity_in_flight: usize,
    pub(super) parity_in_flight_max: usize,
    pub(super) parity_retrying: bool,
    /// Bound on parity programs waiting (asserted): the engine's bound on operations.
    pub(super) parity_pending_max: usize,
    /// Per die: look for a static wear-leveling victim at its next chance (set by the erases
    /// of jobs other than wear leveling: at most one leveling move per such erase).
    pub(super) wl_check: Vec<bool>,
    /// Set by the first copy that found no room: no job moves after it (`job_pump`).
    pub(super) no_room: Option<NoCopyRoom>,
}

impl JobTable {
    pub(super) fn new(n_dies: usize) -> JobTable {
        let jobs_max = 4 * n_dies + 1024;
        JobTable {
            slab: Slab::new(jobs_max),
            jobs_max,
            collector: vec![NONE; n_dies],
            waiting: Vec::new(),
            parity_pending: VecDeque::new(),
            parity_in_flight: 0,
            parity_in_flight_max: jobs_max / 2,
            parity_retrying: false,
            parity_pending_max: usize::MAX,
            wl_check: vec![false; n_dies],
            no_room: None,
        }
    }

    /// The bound on live jobs.
    pub(super) fn jobs_max(&self) -> usize {
        self.jobs_max
    }

    #[inline]
    pub(super) fn get(&self, id: u32) -> &Job {
        self.slab.get(id)
    }

    #[inline]
    pub(super) fn get_mut(&mut self, id: u32) -> &mut Job {
        self.slab.get_mut(id)
    }

    pub(super) fn insert(&mut self, job: Job) -> u32 {
        self.slab.insert(job)
    }

    pub(super) fn remove(&mut self, id: u32) {
        self.slab.remove(id)
    }

    /// Job `id` leaves die `d`'s collector slot, which it held.
    #[inline]
    pub(super) fn free_slot(&mut self, d: usize, id: u32) {
        assert_eq!(self.collector[d], id, "leaving a source of a die the job does not hold");
        self.collector[d] = NONE;
    }

    /// The first waiting job whose next source is on `die`, taken off the waiting list.
    #[inline]
    pub(super) fn take_waiting(&mut self, die: DieIdx, g: &Geometry) -> Option<u32> {
        let i = self.waiting.iter().position(|&id| {
            let job = self.get(id);
            g.die_of_block(job.sources[job.next_source]) == die
        })?;
        Some(self.waiting.remove(i))
    }

    /// Parity job `id`'s program completed: the job is gone, one fewer in flight.
    #[inline]
    pub(super) fn end_parity(&mut self, id: u32) {
        assert_eq!(self.get(id).kind, JobKind::Parity);
        assert!(self.parity_in_flight > 0, "a parity program completed that was never counted");
        self.remove(id);
        self.parity_in_flight -= 1;
    }

    /// A parity program of (tenant, stream) on `die` over `data` waits for room, after those
    /// already waiting (within `parity_pending_max`, asserted).
    #[inline]
    pub(super) fn defer_parity(&mut self, tenant: u16, stream: u8, die: DieIdx, data: StripePages) {
        self.parity_pending.push_back((tenant, stream, die, data));
        assert!(
            self.parity_pending.len() <= self.parity_pending_max,
            "parity programs pile up waiting for space"
        );
    }

    /// Drop the waiting parity programs with data in the erased `block` (their data is gone);
    /// returns how many.
    #[inline]
    pub(super) fn drop_parity_of(&mut self, block: BlockIdx, g: &Geometry) -> u64 {
        let before = self.parity_pending.len();
        self.parity_pending
            .retain(|(_, _, _, data)| !data.as_slice().iter().any(|&p| g.block_of(p) == block));
        (before - self.parity_pending.len()) as u64
    }

    /// The part's invariants, swept in full (tests).
    pub(super) fn check(&self, ftl: &Ftl, dies: &[DieStatus]) {
        assert!(
            self.parity_in_flight <= self.parity_in_flight_max,
            "{} parity programs in flight",
            self.parity_in_flight
        );
        assert!(self.slab.live() <= self.jobs_max, "{} jobs live, bound {}", self.slab.live(), self.jobs_max);
        for (d, &id) in self.collector.iter().enumerate() {
            if id == NONE {
                assert!(dies[d].job.is_none(), "die {d} shows a job and has none");
                continue;
            }
            let job = self.slab.get(id);
            assert_eq!(
                job.die.0 as usize, d,
                "job {id} holds die {d} and moves a block of die {}",
                job.die.0
            );
            assert_eq!(
                ftl.geometry.die_of_block(job.block).0 as usize,
                d,
                "job {id} moves a block of another die"
            );
            assert_eq!(dies[d].job, Some(job.kind), "die {d} shows another job");
        }
        for &id in &self.waiting {
            assert_eq!(self.slab.get(id).block.0, NONE, "a waiting job {id} holds a source");
        }
    }
}
