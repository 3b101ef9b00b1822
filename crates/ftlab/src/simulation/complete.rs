//! What an operation's completion means (`complete_op`), timed and instant alike: both
//! executors call it when a flash operation ends, and it hands the operation to the path of
//! its owner: a host read (`host`'s `host_read_done`), a program of any owner
//! (`program_done`: a request's units, the write buffer, a parity job), a job's page read
//! (`job_read_done`: `copy`'s copy loop, then `jobs`' pump) or a job's erase (`job_erase_done`:
//! the source freed, the next source, GC, parity and the stalled host writes woken). It sits
//! above the host, job and GC paths it calls and below the executors that call it
//! (docs/ARCHITECTURE.md's layer order), so none of those paths calls back into another
//! through a completion. Not the executors' queues (`die`, `precondition`).

use super::engine::{Engine, Executor};
use super::ops::{FlashOp, OpKind, Owner};
use crate::error::FtlabError;
use crate::flash::geometry::BlockIdx;
use crate::ftl::NONE;
use crate::policy::{JobKind, OpClass};

impl<X: Executor> Engine<'_, X> {
    /// What an operation's completion means, by kind and owner (timed and instant alike).
    #[inline]
    pub(super) fn complete_op(&mut self, op: FlashOp) -> Result<(), FtlabError> {
        match (op.kind, op.owner()) {
            (OpKind::Read, Owner::Request(_)) => self.host_read_done(op),
            (OpKind::Read, Owner::Job(id)) => self.job_read_done(id, op),
            (OpKind::Program, _) => self.program_done(op),
            (OpKind::Erase, Owner::Job(id)) => self.job_erase_done(id, op),
            (kind, owner) => panic!("a {kind:?} owned by {owner:?}"),
        }
    }

    /// A program completed: what it means depends on its owner.
    pub(super) fn program_done(&mut self, op: FlashOp) -> Result<(), FtlabError> {
        self.ftl.programmed(op.block, op.page);
        self.sink.device.flash_pages_programmed += 1;
        match op.owner() {
            Owner::Request(id) => {
                let r = self.host.reqs.get_mut(id);
                assert!(r.pending >= op.n_units as u32, "program completes more units than pending");
                r.pending -= op.n_units as u32;
                if r.pending == 0 && r.next_unit == r.req.n_units {
                    self.complete_request(id)?;
                }
                Ok(())
            }
            Owner::Buffer => {
                assert!(self.host.buffer_used >= op.n_units as u64);
                self.host.buffer_used -= op.n_units as u64;
                self.wake_stalled()
            }
            // A parity program's job ends with it; a copy's job may have ended already.
            Owner::Job(id) if op.class == OpClass::Parity => {
                self.parity_done(id);
                Ok(())
            }
            Owner::Job(_) | Owner::Precondition => Ok(()),
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

    /// A job's erase completed: the source is free; go to the next source or end the job.
    pub(super) fn job_erase_done(&mut self, id: u32, op: FlashOp) -> Result<(), FtlabError> {
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
}
