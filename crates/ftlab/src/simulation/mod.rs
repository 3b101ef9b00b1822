//! The engine (DESIGN §2, §11): the `Simulation` of one scheme on one device, a discrete-event
//! loop over owned parts. `Engine<X>` (`engine`) holds them: the host port (`host_port`), the
//! job table (`job_table`), the policies (`policies`), the metrics sink (`sink`), the progress
//! guards (`progress`), the FTL, and an executor `X` (`executor`): `Instant` completes every
//! flash operation at once (preconditioning), `Timed` is the die executor (`die`) that times
//! them on the flash array. Both share every path through monomorphised code; no run-time flag
//! picks between them. The files are layered one way (docs/ARCHITECTURE.md, checked by
//! tests/layers.rs): `ops` at the bottom, then the executors' state and the parts, the engine,
//! its paths, and this file at the top: the public `Simulation`, which preconditions with
//! `Engine<Instant>` and then runs `Engine<Timed>` (`run`); `finish` hands back what the run
//! measured. A host layer above several devices (`crate::array`) drives each one's timed
//! run event by event instead (`feed`). No file I/O: workload sources arrive already opened.

mod commands;
mod complete;
mod copy;
mod die;
mod die_exec;
mod engine;
mod executor;
mod feed;
mod finish;
mod gc;
mod host;
mod host_port;
mod job_table;
mod jobs;
mod ops;
mod policies;
mod precondition;
mod progress;
mod run;
mod sink;
mod steady;
mod step_unit;
mod warm;
mod watchdog;

use crate::error::FtlabError;
use crate::ftl::Ftl;
use crate::host::{HostRequest, Source};
use crate::metrics::report::{SchemeResult, WarmReport};
use crate::metrics::{DeviceCounters, JobCounters};
use crate::scenario::{PreconditionConfig, Scenario};
use crate::scheme::Scheme;
use crate::sim::time::SimTime;
use crate::sim::Rng;
use crate::stream::StreamMapper;
use engine::Engine;
use executor::{Instant, Timed};

#[cfg(test)]
mod watchdog_tests;
pub(crate) use finish::RunTables;
pub(crate) use host_port::closed_loop;
pub(crate) use precondition::OutOfSpace;
pub(crate) use warm::{WarmError, WarmOpener, WarmParams};

/// Where a `Simulation` is in its life: preconditioning (the instant executor, with the
/// timed one waiting), the timed run, or between the two (only while the parts move).
enum Stage<'a> {
    Warm { engine: Box<Engine<'a, Instant>>, timed: Box<Timed> },
    Timed(Box<Engine<'a, Timed>>),
    Moving,
}

/// One scheme's simulation of a scenario: preconditioned (optionally) once, run once, then
/// finished.
pub struct Simulation<'a> {
    stage: Stage<'a>,
}

impl<'a> Simulation<'a> {
    /// A fresh device for `scenario` under `scheme` and `mapper`, fed by `sources` (one per
    /// tenant, in scenario order).
    pub(crate) fn new(
        s: &Scenario,
        scheme: Box<dyn Scheme>,
        mapper: Box<dyn StreamMapper>,
        sources: Vec<Source<'a>>,
    ) -> Self {
        let (engine, timed) = Engine::new(s, scheme, mapper, sources);
        Simulation { stage: Stage::Warm { engine: Box::new(engine), timed: Box::new(timed) } }
    }

    /// Fill the namespaces as `cfg` says, tenants interleaved unit by unit, with `rng` drawing
    /// the random order and overwrites (the instant executor; see `precondition`).
    pub(crate) fn precondition(&mut self, cfg: &PreconditionConfig, rng: &mut Rng) -> Result<(), OutOfSpace> {
        match &mut self.stage {
            Stage::Warm { engine, .. } => engine.precondition(cfg, rng),
            _ => panic!("preconditioning runs once, before the timed run"),
        }
    }

    /// Fill as `precondition` does, then warm the device with the tenants' workloads (opened
    /// by `open`) until its WAF converges or the cap is hit (the instant executor; see `warm`).
    pub(crate) fn precondition_warm<'o>(
        &mut self,
        cfg: &PreconditionConfig,
        rng: &mut Rng,
        wp: &WarmParams,
        open: &mut WarmOpener<'o, 'a>,
    ) -> Result<WarmReport, WarmError> {
        match &mut self.stage {
            Stage::Warm { engine, .. } => engine.precondition_warm(cfg, rng, wp, open),
            _ => panic!("preconditioning runs once, before the timed run"),
        }
    }

    /// Run to the end; `progress(now)` is called now and then.
    pub fn run(&mut self, progress: &mut dyn FnMut(SimTime)) -> Result<(), FtlabError> {
        let Stage::Warm { engine, timed } = std::mem::replace(&mut self.stage, Stage::Moving) else {
            panic!("a simulation runs once");
        };
        let mut engine = Box::new(engine.into_timed(*timed));
        let result = engine.run(progress);
        self.stage = Stage::Timed(engine);
        result
    }

    /// Start the timed run fed from above (`feed`): the caller injects requests and steps the
    /// device one event at a time, in its own order of events across devices.
    pub(crate) fn start_fed(&mut self) -> Result<(), FtlabError> {
        let Stage::Warm { engine, timed } = std::mem::replace(&mut self.stage, Stage::Moving) else {
            panic!("a simulation runs once");
        };
        let mut engine = Box::new(engine.into_timed(*timed));
        let result = engine.start_fed();
        self.stage = Stage::Timed(engine);
        result
    }

    fn fed(&mut self) -> &mut Engine<'a, Timed> {
        match &mut self.stage {
            Stage::Timed(engine) if engine.host.fed => engine,
            _ => panic!("a fed run, started"),
        }
    }

    /// A fed run: when the device's next event is due, if one is pending.
    pub(crate) fn next_event_time(&mut self) -> Option<SimTime> {
        self.fed().next_event_time()
    }

    /// A fed run: handle the device's next event.
    pub(crate) fn step_one(&mut self) -> Result<(), FtlabError> {
        self.fed().step_one()
    }

    /// A fed run: the device's clock moves to `t` (at or before its next event).
    pub(crate) fn advance_to(&mut self, t: SimTime) -> Result<(), FtlabError> {
        self.fed().advance_to(t)
    }

    /// A fed run: tenant `t` takes `req` now; returns its id.
    pub(crate) fn inject(&mut self, t: u16, req: HostRequest) -> Result<u32, FtlabError> {
        self.fed().inject(t, req)
    }

    /// A fed run: room in tenant `t`'s queue.
    pub(crate) fn queue_room(&mut self, t: u16) -> u32 {
        self.fed().queue_room(t)
    }

    /// A fed run: IODA's fail-fast probe of a read of tenant `t`'s units `[first, first + n)`:
    /// the busy remaining time of the background work it would meet, if any (`feed`).
    pub(crate) fn busy_remaining(&mut self, t: u16, first: u32, n: u32) -> Option<SimTime> {
        self.fed().busy_remaining(t, first, n)
    }

    /// A fed run: the ids of the requests completed since the last call, appended to `out`.
    pub(crate) fn take_completed(&mut self, out: &mut Vec<u32>) {
        self.fed().take_completed(out)
    }

    /// The measured results and the tables of this run.
    pub fn finish(self, scheme_name: &str) -> Result<(SchemeResult, RunTables), FtlabError> {
        match self.stage {
            Stage::Timed(engine) => engine.finish(scheme_name),
            _ => panic!("a simulation finishes after its run"),
        }
    }

    /// The FTL (for tests).
    pub fn ftl(&self) -> &Ftl {
        match &self.stage {
            Stage::Warm { engine, .. } => &engine.ftl,
            Stage::Timed(engine) => &engine.ftl,
            Stage::Moving => unreachable!("the parts are moving"),
        }
    }

    /// The scheme (for tests that inspect its state).
    pub fn scheme(&self) -> &dyn Scheme {
        match &self.stage {
            Stage::Warm { engine, .. } => engine.pol.scheme.as_ref(),
            Stage::Timed(engine) => engine.pol.scheme.as_ref(),
            Stage::Moving => unreachable!("the parts are moving"),
        }
    }

    /// What the jobs did so far in the measured phase (for tests).
    pub fn job_counters(&self) -> &JobCounters {
        match &self.stage {
            Stage::Warm { engine, .. } => &engine.sink.job_counts,
            Stage::Timed(engine) => &engine.sink.job_counts,
            Stage::Moving => unreachable!("the parts are moving"),
        }
    }

    /// The device counters so far in the measured phase (for tests).
    pub fn device_counters(&self) -> &DeviceCounters {
        match &self.stage {
            Stage::Warm { engine, .. } => &engine.sink.device,
            Stage::Timed(engine) => &engine.sink.device,
            Stage::Moving => unreachable!("the parts are moving"),
        }
    }

    /// Full sweep of the FTL's invariants, of every part's invariants and, with `[check]
    /// integrity`, of every logical page against the oracle (tests). Returns the oracle
    /// checks done so far.
    pub fn check_integrity(&mut self) -> u64 {
        let ftl = match &mut self.stage {
            Stage::Warm { engine, timed } => {
                engine.check_parts();
                timed.check(&engine.ftl);
                &mut engine.ftl
            }
            Stage::Timed(engine) => {
                engine.check_parts();
                engine.exec.check(&engine.ftl);
                &mut engine.ftl
            }
            Stage::Moving => unreachable!("the parts are moving"),
        };
        ftl.check_consistency();
        ftl.oracle_checks()
    }

    /// The progress guards (watchdog tests set their bound).
    #[cfg(test)]
    fn progress_mut(&mut self) -> &mut progress::Progress {
        match &mut self.stage {
            Stage::Warm { engine, .. } => &mut engine.progress,
            Stage::Timed(engine) => &mut engine.progress,
            Stage::Moving => unreachable!("the parts are moving"),
        }
    }
}
