//! The fed run (`Engine<Timed>` driven from above): a host layer over several devices (an
//! array, `crate::array`) starts each device's run, asks for its next event's time, has it
//! handle exactly one event, moves its clock to a time of the feeder's own events, injects
//! requests into its tenants' queues and takes the ids of the requests it completed. The event
//! handling is `run.rs`'s (`handle`, the window roll, the guards); only the loop is the
//! feeder's, so one device in an array behaves as it does alone. It also answers the
//! feeder's fail-fast probe (`busy_remaining`: IODA's predictable-latency read and its busy
//! remaining time). Not the loop of a run of one device (`run.rs`), which this leaves
//! untouched.

use super::engine::Engine;
use super::executor::Timed;
use super::ops::{OpKind, Owner};
use crate::error::FtlabError;
use crate::flash::geometry::DieIdx;
use crate::ftl::NONE;
use crate::host::HostRequest;
use crate::sim::time::SimTime;

impl Engine<'_, Timed> {
    /// The fed run starts: the port stays open for injected requests (its tenants' own
    /// sources are silent), then the run starts as `run` starts it.
    pub(super) fn start_fed(&mut self) -> Result<(), FtlabError> {
        self.host.fed = true;
        self.start_run()
    }

    /// When the next event is due, if one is pending.
    pub(super) fn next_event_time(&mut self) -> Option<SimTime> {
        self.events.peek_time()
    }

    /// Handle the next event (there is one: the feeder asked `next_event_time`), as the loop
    /// of `run` handles it: clock, window roll, the event, the location prefetch, the guards.
    pub(super) fn step_one(&mut self) -> Result<(), FtlabError> {
        let (t, ev) = self.events.pop().expect("the feeder steps a device with an event pending");
        self.advance_to(t)?;
        self.handle(ev)?;
        self.prefetch_next_location();
        self.progress.events_handled += 1;
        if self.progress.due(self.now) {
            self.watchdog()?;
        }
        Ok(())
    }

    /// Move the clock to `t` (not before now, nor past the next pending event: the feeder's
    /// one order of events across devices guarantees both), rolling the time-series windows.
    pub(super) fn advance_to(&mut self, t: SimTime) -> Result<(), FtlabError> {
        assert!(t >= self.now, "a fed device's time went backwards: {t:?} < {:?}", self.now);
        self.now = t;
        if self.sink.ts.needs_roll(t) {
            self.check_rows(t)?;
            self.roll_windows();
        }
        Ok(())
    }

    /// Tenant `t` takes request `req` now (its arrival is now): it is submitted as `pump`
    /// submits a request the scheme admitted. The feeder keeps within the tenant's queue
    /// depth (asserted). Returns the request's id, which `take_completed` hands back.
    pub(super) fn inject(&mut self, t: u16, mut req: HostRequest) -> Result<u32, FtlabError> {
        let tenant = &self.host.tenants[t as usize];
        assert!(self.host.fed, "requests are injected into a fed port only");
        assert!(tenant.outstanding < tenant.queue_depth, "the feeder keeps within the queue depth");
        req.arrival = self.now;
        self.submit(t, req, false)
    }

    /// Room in tenant `t`'s queue.
    pub(super) fn queue_room(&self, t: u16) -> u32 {
        let tenant = &self.host.tenants[t as usize];
        tenant.queue_depth - tenant.outstanding
    }

    /// The ids of the requests completed since the last call, in completion order.
    pub(super) fn take_completed(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.host.completed);
    }

    /// IODA's fail-fast probe: whether a read of tenant `t`'s units `[first, first + n)` would
    /// meet background work, and if so the busy remaining time. A unit is behind background
    /// work when its die's collector slot is held by a job (GC, wear leveling, migration)
    /// that may run now (not held off by a Deterministic Window). The largest over the read's
    /// dies (`die_busy_remaining`); `None` when none is busy. Units not on flash (unmapped, or
    /// in the write buffer) meet no die.
    pub(super) fn busy_remaining(&mut self, t: u16, first: u32, n: u32) -> Option<SimTime> {
        let g = self.ftl.geometry;
        let ns = self.host.tenants[t as usize].namespace_units;
        let mut worst: Option<SimTime> = None;
        for i in 0..n {
            let Some(ppa) = self.ftl.lookup(t, (first + i) % ns) else { continue };
            if !self.ftl.is_programmed(ppa) {
                continue;
            }
            let die = g.die_of(ppa);
            let j = self.jobs.collector[die.0 as usize];
            if j == NONE || !self.pol.may_run_jobs(die) {
                continue;
            }
            let brt = self.die_busy_remaining(die, j);
            worst = Some(worst.map_or(brt, |w| w.max(brt)));
        }
        worst
    }

    /// What the device knows of when job `j` on `die` ends: the operation the die runs now
    /// ends when its array phase was scheduled to (`DieExec::array_end`), a suspended one
    /// still owes its remaining time, and the job's work not yet issued follows at the die's
    /// timing: the valid units its source block still holds, in pages, each a read and a
    /// program, then the erase (not counted again when the erase is the operation running).
    /// FEMU books a whole GC on the die at once and reads its end (`gc_endtime`); ftlab issues
    /// a job's copies a few pages at a time, interleaved with host work, so beyond the
    /// operation in progress no end is scheduled anywhere, and this counts the rest.
    fn die_busy_remaining(&self, die: DieIdx, j: u32) -> SimTime {
        let g = self.ftl.geometry;
        let tm = *self.exec.array.timing();
        let exec = &self.exec.dies[die.0 as usize];
        let job = self.jobs.get(j);
        let running = exec.running();
        let in_progress = match running.first() {
            Some(_) if exec.array_end != SimTime::MAX => exec.array_end.saturating_sub(self.now),
            _ => SimTime::ZERO,
        };
        let suspended = exec.suspended.map_or(SimTime::ZERO, |(_, left)| left);
        let erase_running = running.first().is_some_and(|op| {
            op.kind == OpKind::Erase && op.block == job.block && matches!(op.owner(), Owner::Job(x) if x == j)
        });
        let valid = if job.block.0 == NONE || job.erasing {
            0
        } else {
            self.ftl.blocks().info[job.block.0 as usize].valid_units()
        };
        let left = JobLeft {
            in_progress,
            suspended,
            pages: valid.div_ceil(g.units_per_page),
            erase: job.block.0 != NONE && !erase_running,
        };
        left.time(tm.read, tm.program, tm.erase)
    }
}

/// What is left of a background job on its die, as `die_busy_remaining` reads it.
#[derive(Clone, Copy, Debug)]
struct JobLeft {
    /// The rest of the operation the die runs now (its scheduled end less now).
    in_progress: SimTime,
    /// The rest of a suspended operation.
    suspended: SimTime,
    /// Pages still to copy, each a read and a program.
    pages: u32,
    /// The source block's erase is still to run.
    erase: bool,
}

impl JobLeft {
    /// The busy remaining time at the die's read, program and erase times.
    fn time(self, read: SimTime, program: SimTime, erase: SimTime) -> SimTime {
        let copies = (read.0 + program.0) * self.pages as u64;
        SimTime(self.in_progress.0 + self.suspended.0 + copies + if self.erase { erase.0 } else { 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (in progress, suspended, pages, erase still to run) -> the busy remaining time at FEMU's
    /// timings (read 40 µs, program 200 µs, erase 2 ms), by arithmetic written here.
    #[test]
    fn the_busy_remaining_time_is_the_running_operation_and_the_jobs_work_left() {
        let us = |x: u64| SimTime(x * 1000);
        let cases = [
            (0, 0, 0, true, 2_000),
            (0, 0, 5, true, 5 * 240 + 2_000),
            (150, 0, 5, true, 150 + 5 * 240 + 2_000),
            // The erase running: its rest only.
            (1_200, 0, 0, false, 1_200),
            // A suspended program owes its rest beside the read running.
            (30, 120, 2, true, 30 + 120 + 2 * 240 + 2_000),
        ];
        for (in_progress, suspended, pages, erase, want) in cases {
            let left = JobLeft { in_progress: us(in_progress), suspended: us(suspended), pages, erase };
            assert_eq!(left.time(us(40), us(200), us(2_000)), us(want), "{left:?}");
        }
    }
}
