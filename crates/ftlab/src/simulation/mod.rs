//! The engine (DESIGN §2, §11): the `Simulation` of one scheme on one device, a discrete-event
//! loop over owned parts. `Engine<X>` holds them: the host port (`host`), the job table
//! (`jobs`), the policies (`policies`), the metrics sink (`sink`), the progress guards
//! (`progress`), the FTL, and an executor `X` (`executor`): `Instant` completes every flash
//! operation at once (preconditioning), `Timed` is the die executor (`die`) that times them on
//! the flash array. Both share every path through monomorphised code; no run-time flag picks
//! between them. This file holds the operation types and the public `Simulation`, which
//! preconditions with `Engine<Instant>` and then runs `Engine<Timed>` (`run`); `finish` hands
//! back what the run measured. No file I/O: workload sources arrive already opened.

mod die;
mod engine;
mod executor;
mod finish;
mod host;
mod jobs;
mod policies;
mod precondition;
mod progress;
mod run;
mod sink;
mod step_unit;
mod warm;

use crate::error::FtlabError;
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::ftl::{Ftl, NONE};
use crate::host::{HostRequest, Source};
use crate::metrics::health::HealthLimits;
use crate::metrics::report::SchemeResult;
use crate::metrics::{DeviceCounters, JobCounters};
use crate::policy::OpClass;
use crate::scenario::{PreconditionConfig, Scenario};
use crate::sched::SchedOp;
use crate::scheme::Scheme;
use crate::sim::time::SimTime;
use crate::sim::Rng;
use crate::stream::StreamMapper;
use engine::Engine;
use executor::{Instant, Timed};

#[cfg(test)]
mod watchdog_tests;
pub(crate) use finish::RunTables;
pub(crate) use host::closed_loop;
pub(crate) use precondition::OutOfSpace;
pub(crate) use warm::{WarmError, WarmOpener, WarmParams, WarmReport};

/// Units of a request whose mapping entries and locations are prefetched, at most (64 KiB of
/// 4 KiB units; a larger request's later units are not): by the warm-up and the timed run.
const PREFETCH_UNITS_MAX: u32 = 16;

/// How far ahead of a GC read's units the P2L is prefetched: one cache line of entries.
const PREFETCH_P2L_AHEAD_UNITS: u32 = 16;

/// What happens at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// Tenant's next request is due.
    Arrival(u16),
    /// A die's array phase ended (die and generation, see `die::array_done_tag`; stale after
    /// a suspension).
    ArrayDone(u32),
    /// A die's read transfer ended.
    XferDone(u32),
    /// A grant of the Cosmos board's way arbiter ended on this channel (`flash::board`).
    BusGrant(u32),
    /// A request served without flash completes.
    Complete(u32),
    /// The scheme's epoch tick.
    Epoch,
    /// The stream mapper's epoch tick.
    MapperEpoch,
    /// The measured phase starts (`measure.warmup_s`): counters restart.
    MeasureStart,
    /// A `[[measure.phases]]` entry starts / ends (index).
    PhaseStart(u16),
    PhaseEnd(u16),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpKind {
    Read,
    Program,
    Erase,
}

/// Who an operation belongs to; its completion dispatches on this. Stored in a `FlashOp`
/// packed into a `u32` (`OwnerCode`), which keeps operations at 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// A host request (slab index).
    Request(u32),
    /// A background job (slab index).
    Job(u32),
    /// A page of the write buffer (no request waits for it).
    Buffer,
    /// A preconditioning page (instant executor).
    Precondition,
}

/// An `Owner` in 32 bits: the kind in the top two bits, the slab index below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OwnerCode(u32);

const OWNER_TAG_SHIFT: u32 = 30;
const OWNER_ID_MASK: u32 = (1 << OWNER_TAG_SHIFT) - 1;

impl Owner {
    #[inline]
    fn code(self) -> OwnerCode {
        let (tag, id) = match self {
            Owner::Request(id) => (0, id),
            Owner::Job(id) => (1, id),
            Owner::Buffer => (2, 0),
            Owner::Precondition => (3, 0),
        };
        assert!(id <= OWNER_ID_MASK, "owner index {id} does not fit in 30 bits");
        OwnerCode(tag << OWNER_TAG_SHIFT | id)
    }
}

impl OwnerCode {
    #[inline]
    fn owner(self) -> Owner {
        let id = self.0 & OWNER_ID_MASK;
        match self.0 >> OWNER_TAG_SHIFT {
            0 => Owner::Request(id),
            1 => Owner::Job(id),
            2 => Owner::Buffer,
            _ => Owner::Precondition,
        }
    }
}

/// One flash operation in flight or queued.
#[derive(Clone, Copy, Debug)]
struct FlashOp {
    kind: OpKind,
    class: OpClass,
    /// The tenant it is done for: a host operation's request's tenant, a copy's or parity
    /// program's data owner, 0 for a job's reads and erases (background classes: not looked
    /// up, the `fair` scheduler queues only host classes by tenant).
    tenant: u16,
    die: DieIdx,
    block: BlockIdx,
    page: u32,
    /// Units read, or real (not padding) units programmed.
    n_units: u16,
    /// Host reads only (`die::read_tag`): the top bit marks a member read of a parity rebuild;
    /// the low 15 bits hold the die's count of program, erase and job operations started when
    /// the read was queued (wrapping), so that its start can tell whether one ran before it.
    read_tag: u16,
    owner: OwnerCode,
    /// Inherited from the request or job (`SimTime::MAX`: none).
    deadline: SimTime,
}

impl FlashOp {
    /// A placeholder for the unused slots of a die's operation group.
    const NONE: FlashOp = FlashOp {
        kind: OpKind::Erase,
        class: OpClass::Gc,
        tenant: 0,
        die: DieIdx(NONE),
        block: BlockIdx(NONE),
        page: 0,
        n_units: 0,
        read_tag: 0,
        owner: OwnerCode(3 << OWNER_TAG_SHIFT),
        deadline: SimTime::MAX,
    };
}

// Operations are copied through the scheduler's queues and the dies' groups: keep them small.
const _: () = assert!(std::mem::size_of::<FlashOp>() == 32);

impl FlashOp {
    #[inline]
    fn owner(&self) -> Owner {
        self.owner.owner()
    }

    /// The program of `page` of `block` on `die` (`(block, page)` as `Placement::page_full`
    /// gives it), holding `n_units` real (not padding) units of `tenant`, for `owner`.
    #[inline]
    fn program(
        class: OpClass,
        tenant: u16,
        die: DieIdx,
        (block, page): (BlockIdx, u32),
        n_units: u16,
        owner: Owner,
        deadline: SimTime,
    ) -> FlashOp {
        FlashOp {
            kind: OpKind::Program,
            class,
            tenant,
            die,
            block,
            page,
            n_units,
            read_tag: 0,
            owner: owner.code(),
            deadline,
        }
    }
}

impl SchedOp for FlashOp {
    #[inline]
    fn class(&self) -> OpClass {
        self.class
    }
    #[inline]
    fn deadline(&self) -> SimTime {
        self.deadline
    }
    #[inline]
    fn tenant(&self) -> u16 {
        self.tenant
    }
    /// A rebuild's member reads (PaRT-FTL §V: "to the front of the queue").
    #[inline]
    fn front(&self) -> bool {
        self.read_tag & die::REBUILD_MEMBER != 0
    }
}

/// One host request in flight.
#[derive(Clone, Copy, Debug)]
struct Request {
    tenant: u16,
    req: HostRequest,
    /// Units placed so far (writes).
    next_unit: u32,
    /// Outstanding flash reads, or units placed but not programmed (write-through).
    pending: u32,
    /// Member reads of this request's parity rebuilds outstanding, and when they were issued
    /// (all at once, when the request started).
    rebuild_pending: u32,
    rebuild_at: SimTime,
    /// A write the scheme's admission deferred, parked in its tenant's stall queue so that the
    /// requests behind it go on (`Scheme::deferred_writes_wait_in_queue`): asked again when it
    /// reaches the queue's head. False for every other request.
    parked: bool,
}

/// Knobs the loop needs, resolved from the scenario.
#[derive(Clone, Debug)]
struct Params {
    low_watermark: u32,
    high_watermark: u32,
    reserve: u32,
    background_gc: bool,
    policy: crate::ftl::gc::VictimPolicy,
    static_gap: u32,
    /// Write-buffer capacity in units; 0 = write-through.
    buffer_units: u64,
    dram_latency: SimTime,
    multi_plane: bool,
    suspend: bool,
    warmup: SimTime,
    end: Option<SimTime>,
    /// `measure.starvation_wait_s` and `measure.backlog_queue_depths_max`.
    health: HealthLimits,
    /// Simulated time one unit takes at the device's program bandwidth (preconditioning's
    /// write stamps, see `precondition`).
    unit_program_ns: i64,
}

impl Params {
    fn of(s: &Scenario) -> Params {
        let g = s.geometry();
        let t = s.timing();
        Params {
            low_watermark: s.ftl.gc_low_watermark_blocks,
            high_watermark: s.ftl.gc_high_watermark_blocks,
            reserve: s.ftl.gc_reserve_blocks,
            background_gc: s.ftl.background_gc,
            policy: s.ftl.gc_policy,
            static_gap: s.ftl.static_wear_leveling_gap,
            buffer_units: s.ftl.write_buffer_bytes / g.unit_bytes as u64,
            dram_latency: SimTime::from_secs_f64(s.ftl.dram_latency_us / 1e6),
            multi_plane: s.device.multi_plane,
            suspend: s.device.program_erase_suspend,
            warmup: SimTime::from_secs_f64(s.measure.warmup_s),
            end: s.measure.duration_s.map(SimTime::from_secs_f64),
            health: HealthLimits {
                starvation_wait: SimTime::from_secs_f64(s.measure.starvation_wait_s),
                backlog_queue_depths_max: s.measure.backlog_queue_depths_max,
            },
            unit_program_ns: (t.program.ns() / (g.n_dies as u64 * g.units_per_page as u64)).max(1) as i64,
        }
    }
}

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
