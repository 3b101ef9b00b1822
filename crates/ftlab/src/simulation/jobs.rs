//! Background jobs (DESIGN §11) on their dies' collector slots: every background flash
//! operation belongs to a job in one table (`JobTable`, `job_table.rs`). A job is data: a kind,
//! its source blocks and a cursor over them (block, page), a budget of page reads per step, a
//! bound on reads in flight, a destination rule and a deadline its operations inherit. One job
//! at a time holds a die's collector slot (it is moving a source block of that die), which
//! keeps GC's reserve argument: a victim's copies always fit on its die. This file is a job's
//! life on the slot (`begin_block`, whose policies' answers for the whole source block it
//! takes once, `gc_block_die` and `gc_block_stream`; its page reads and the source's erase,
//! `job_pump`; leaving a copied source, `leave_source`; the next source, `next_source`) and
//! who takes a slot when it frees or its die runs short (`maybe_start_gc`: a waiting
//! migration first, `serve_waiting`, then static wear leveling, then GC, foreground below the
//! low watermark and background on an idle die below the high one, on the scheme's
//! `gc_victim`, by default the FTL's choice in `ftl/gc.rs`). The two call each other by
//! nature (a job that leaves its source frees the slot, and a GC job starts by taking a
//! source), so they share this file, the lowest of the job paths. Not the policies' commands
//! that start migrations, steps and parity programs (`commands.rs`), GC's partial steps
//! (`gc.rs`), the copy loop (`copy.rs`), or what a completed read or erase means
//! (`complete.rs`). Generic over the executor (a job's page read completes at once under
//! `Instant`).

use super::engine::{Engine, Executor};
use super::job_table::Job;
use super::ops::{FlashOp, OpKind, Owner};
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::ftl::NONE;
use crate::policy::{Dest, JobKind};
use crate::sim::time::SimTime;

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
            let valid = self.ftl.valid_in_range(first, g.units_per_page);
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
        self.jobs.free_slot(d, id);
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
        let Some(id) = self.jobs.take_waiting(die, &self.ftl.geometry) else {
            return false;
        };
        self.next_source(id);
        true
    }

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
    pub(super) fn start_collect(&mut self, kind: JobKind, victim: BlockIdx, budget: u32) {
        let id =
            self.jobs.insert(Job::new(kind, crate::policy::Dest::Scheme, budget, u32::MAX, SimTime::MAX));
        self.sink.job_counts.start(kind);
        self.begin_block(id, victim);
    }
}
