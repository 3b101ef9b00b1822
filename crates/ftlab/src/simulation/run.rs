//! The event loop of the timed run (`Engine<Timed>::run`): it starts the tenants, phases and
//! epochs, pops events in time order and hands each to its path, rolls the time-series
//! windows, and checks the progress guards after every event. Not what the events do (`host`,
//! `die`, `jobs`, `commands`, ...) nor the guards' errors (`watchdog`).

use super::engine::Engine;
use super::executor::Timed;
use super::ops::Event;
use crate::error::FtlabError;
use crate::flash::geometry::DieIdx;
use crate::metrics::phase::Snapshot;
use crate::policy::DeviceView;
use crate::sim::time::SimTime;

impl Engine<'_, Timed> {
    /// Run to the end; `progress(now)` is called now and then.
    pub(super) fn run(&mut self, progress: &mut dyn FnMut(SimTime)) -> Result<(), FtlabError> {
        self.start_run()?;
        while let Some((t, ev)) = self.events.pop() {
            if self.p.end.is_some_and(|end| t > end) {
                self.now = self.p.end.unwrap();
                break;
            }
            assert!(t >= self.now, "time went backwards: {t:?} < {:?}", self.now);
            self.now = t;
            if self.sink.ts.needs_roll(t) {
                self.check_rows(t)?;
                self.roll_windows();
            }
            self.handle(ev)?;
            self.prefetch_next_location();
            self.progress.events_handled += 1;
            if self.progress.due(self.now) {
                self.watchdog()?;
            }
            if self.progress.events_handled.is_multiple_of(1 << 16) {
                progress(self.now);
            }
            if self.host.done() {
                break;
            }
        }
        if !(self.host.done() || self.p.end.is_some_and(|e| self.now >= e)) {
            return Err(self.stall_error());
        }
        progress(self.now);
        Ok(())
    }

    /// The run starts: policies hear of it, tenants' first arrivals, phases and epochs are
    /// queued, and the measured phase starts now or after `measure.warmup_s`.
    pub(super) fn start_run(&mut self) -> Result<(), FtlabError> {
        self.sink.streams.start_timed();
        self.sink.epoch.clear();
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_run_start(&v, &mut pol.cmds);
        self.apply_commands();
        if self.p.warmup == SimTime::ZERO {
            self.start_measuring();
        } else {
            self.events.push(self.p.warmup, Event::MeasureStart);
        }
        for t in 0..self.host.tenants.len() {
            self.host.tenants[t].next = self.host.tenants[t].source.next_request()?;
            let start = self.host.tenants[t].start;
            self.host.tenants[t].arrival_at = Some(start);
            self.events.push(start, Event::Arrival(t as u16));
        }
        for (i, p) in self.sink.phases.iter().enumerate() {
            self.events.push(p.start, Event::PhaseStart(i as u16));
            if p.end != SimTime::MAX {
                self.events.push(p.end, Event::PhaseEnd(i as u16));
            }
        }
        if let Some(e) = self.pol.scheme.epoch() {
            self.sink.epoch.window = e;
            self.events.push(e, Event::Epoch);
            self.progress.epochs_queued += 1;
        }
        if let Some(e) = self.pol.mapper.epoch() {
            self.events.push(e, Event::MapperEpoch);
            self.progress.epochs_queued += 1;
        }
        self.progressed();
        Ok(())
    }

    pub(super) fn handle(&mut self, ev: Event) -> Result<(), FtlabError> {
        match ev {
            Event::Arrival(t) => {
                self.host.tenants[t as usize].arrival_at = None;
                self.pump(t)?;
            }
            Event::ArrayDone(tag) => self.array_done(tag)?,
            Event::XferDone(d) => self.op_done(DieIdx(d))?,
            Event::BusGrant(ch) => self.bus_grant(ch)?,
            Event::Complete(id) => self.complete_request(id)?,
            Event::Epoch => {
                self.progress.epochs_queued -= 1;
                self.scheme_epoch()?
            }
            Event::MapperEpoch => {
                self.progress.epochs_queued -= 1;
                let (pol, v) = self.policies_and_view();
                pol.mapper.on_epoch(&v, &mut pol.cmds);
                self.apply_commands();
                let more = self.host.fed || self.events.len() > self.progress.epochs_queued;
                if !self.host.done() && more {
                    let e = self.pol.mapper.epoch().expect("a mapper with epochs keeps them");
                    self.events.push(self.now + e, Event::MapperEpoch);
                    self.progress.epochs_queued += 1;
                }
            }
            Event::MeasureStart => self.start_measuring(),
            Event::PhaseStart(i) => self.sink.phases[i as usize].at_start = Some(self.snapshot()),
            Event::PhaseEnd(i) => self.sink.phases[i as usize].at_end = Some(self.snapshot()),
        }
        Ok(())
    }

    fn scheme_epoch(&mut self) -> Result<(), FtlabError> {
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_epoch(&v, &mut pol.cmds);
        self.sink.epoch.clear();
        self.apply_commands();
        if !self.host.done() {
            // The scheme may have given stalled writers room (a new die).
            self.wake_stalled()?;
            // With nothing else pending, epochs alone would tick forever: stop, and let
            // the run end as a stall (reported by `stall_error`).
            // Another tick of the mapper's epoch is no work either.
            // A fed device keeps its epochs while idle: its feeder may inject more.
            if self.host.fed || self.events.len() > self.progress.epochs_queued {
                self.events.push(self.now + self.sink.epoch.window, Event::Epoch);
                self.progress.epochs_queued += 1;
            }
        }
        Ok(())
    }

    /// The measured phase starts: every counter restarts (latencies are filtered by arrival).
    fn start_measuring(&mut self) {
        self.sink.start_measuring(self.exec.array.die_busy_ns());
        let (pol, v) = self.policies_and_view();
        pol.scheme.on_measure_start(&v);
    }

    /// The cumulative counters phases take differences of.
    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            host_units: self.sink.metrics.iter().map(|m| m.host_units).collect(),
            gc_units: self.sink.metrics.iter().map(|m| m.gc_units).collect(),
            flash_pages_programmed: self.sink.device.flash_pages_programmed,
            erases: self.sink.device.erases,
            die_busy_ns: self.exec.array.die_busy_ns().to_vec(),
            at: self.now,
        }
    }

    /// The time series may not outgrow its bound (a long trace and a short window).
    pub(super) fn check_rows(&self, now: SimTime) -> Result<(), FtlabError> {
        let rows = self.sink.ts.rows_at(now);
        if rows as f64 > crate::scenario::MAX_TIMESERIES_ROWS {
            return Err(FtlabError::config(
                "scenario",
                "measure.window_s",
                format!(
                    "the run reached {:.0} s, which at this window is {rows} time-series rows, more than \
                     {}; raise measure.window_s",
                    now.as_secs_f64(),
                    crate::scenario::MAX_TIMESERIES_ROWS
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn roll_windows(&mut self) {
        let v = DeviceView { ftl: &self.ftl, now: self.now, dies: &self.die_status, epoch: &self.sink.epoch };
        let (scheme, streams) = (&self.pol.scheme, &mut self.sink.streams);
        self.sink.ts.roll(self.now, &mut |t, out| {
            scheme.series_values(t, &v, out);
            streams.series_values(t, out);
        });
    }
}
