//! The fed run (`Engine<Timed>` driven from above): a host layer over several devices (an
//! array, `crate::array`) starts each device's run, asks for its next event's time, has it
//! handle exactly one event, moves its clock to a time of the feeder's own events, injects
//! requests into its tenants' queues and takes the ids of the requests it completed. The event
//! handling is `run.rs`'s (`handle`, the window roll, the guards); only the loop is the
//! feeder's, so one device in an array behaves as it does alone. Not the loop of a run of one
//! device (`run.rs`), which this leaves untouched.

use super::engine::Engine;
use super::executor::Timed;
use crate::error::FtlabError;
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
}
