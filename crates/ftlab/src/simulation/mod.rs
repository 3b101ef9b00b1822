//! The engine (DESIGN §2, §11): the `Simulation` of one scheme on one device, a discrete-event
//! loop that ties host, FTL, policies (scheme, stream mapper), jobs, scheduler and flash array
//! together. Every flash operation names its owner (a request, a job, the write buffer or
//! preconditioning) and its completion dispatches on it. Host I/O paths are in `host_io`,
//! background jobs (GC, wear leveling, migration, parity) in `jobs`, die execution in `die`,
//! the instant executor that preconditions through the same code in `precondition`, and what
//! the run hands back in `finish`. No file I/O: workload sources arrive already opened.

mod die;
mod finish;
mod host_io;
mod jobs;
mod precondition;
mod step_unit;

use crate::error::FtlabError;
use crate::flash::array::FlashArray;
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa, PLANES_MAX};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{Ftl, FtlParams, NONE};
use crate::host::{HostRequest, Source};
use crate::metrics::lifetime::WearCounters;
use crate::metrics::streams::StreamStats;
use crate::metrics::timeseries::TimeSeries;
use crate::metrics::phase::{Phase, Snapshot};
use crate::metrics::{DeviceCounters, JobCounters, TenantMetrics};
use crate::policy::{Cause, Command, DieStatus, EpochStats, Interests, Invalidated, OpClass, Placed};
use crate::scenario::{Replay, Scenario};
use crate::sched::{FairCosts, SchedOp, Scheduler};
use crate::scheme::Scheme;
use crate::sim::events::EventQueue;
use crate::sim::slab::Slab;
use crate::metrics::health::HealthLimits;
use crate::sim::time::SimTime;
use crate::stream::StreamMapper;
use std::collections::VecDeque;

#[cfg(test)]
mod watchdog_tests;
pub use finish::RunTables;
pub use precondition::OutOfSpace;

/// How far ahead of a GC read's units the P2L is prefetched: one cache line of entries.
const PREFETCH_P2L_AHEAD_UNITS: u32 = 16;

/// Rounds of commands one hook may cascade into (a policy bug guard).
const COMMAND_ROUNDS_MAX: u32 = 1_000;

/// The progress watchdog's event bound (see `watchdog`): events handled while requests are
/// outstanding and no tenant completed one or placed a host unit, per flash page of the
/// device, plus a floor for small devices. Relocating every valid page of the device once
/// takes about 4 events per page (read, transfer, program, their completions); the erase
/// bound of `livelock_error` ends a copy-in-circles livelock first, this one ends cycles
/// without erases (epochs ticking, copy-only jobs).
const WATCHDOG_EVENTS_PER_PAGE: u64 = 16;
const WATCHDOG_EVENTS_FLOOR: u64 = 1 << 22;
/// The watchdog's simulated-time bound: no request of any tenant completes and no host unit
/// is placed for this long while requests are outstanding (a real SSD answers in ms).
const WATCHDOG_NS: u64 = 600_000_000_000;

/// What happens at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Tenant's next request is due.
    Arrival(u16),
    /// A die's array phase ended (die and generation, see `die::array_done_tag`; stale after
    /// a suspension).
    ArrayDone(u32),
    /// A die's read transfer ended.
    XferDone(u32),
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
}

/// Host-side state of one tenant.
struct Tenant<'a> {
    source: Source<'a>,
    next: Option<HostRequest>,
    outstanding: u32,
    queue_depth: u32,
    closed_loop: bool,
    start: SimTime,
    arrival_at: Option<SimTime>,
    /// Writes waiting for a free block or buffer space, in order.
    stalled: VecDeque<u32>,
    namespace_units: u32,
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
        let r = s.resolved();
        Params {
            low_watermark: r.gc_low_watermark_blocks,
            high_watermark: r.gc_high_watermark_blocks,
            reserve: s.ftl.gc_reserve_blocks,
            background_gc: s.ftl.background_gc,
            policy: s.ftl.gc_policy,
            static_gap: s.ftl.static_wear_leveling_gap,
            buffer_units: r.write_buffer_bytes / g.unit_bytes as u64,
            dram_latency: SimTime::from_secs_f64(s.ftl.dram_latency_us / 1e6),
            multi_plane: r.multi_plane,
            suspend: r.program_erase_suspend,
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

/// The read-only `DeviceView` of the simulation's current state (a macro, so the borrow of the
/// view's fields stays disjoint from the `&mut` borrow of the policy it is handed to).
macro_rules! view {
    ($s:ident) => {
        crate::policy::DeviceView { ftl: &$s.ftl, now: $s.now, dies: &$s.die_status, epoch: &$s.epoch }
    };
}
use view;

/// One scheme's simulation of a scenario.
pub struct Simulation<'a> {
    now: SimTime,
    /// False while preconditioning: operations then complete at once (instant executor).
    timed: bool,
    /// Write stamp of preconditioning writes (negative, see `precondition`).
    pre_stamp: i64,
    /// Preconditioning treats dies as idle (background GC to the high watermark) only at its
    /// end; while it writes, dies are busy and GC keeps them at the low watermark.
    pre_idle: bool,
    /// Operations issued in instant mode, completed in order by `drain_instant` from
    /// `instant_next` on (a `Vec` cleared when drained stays in cache; a ring would not).
    instant: Vec<FlashOp>,
    instant_next: usize,
    events: EventQueue<Event>,
    array: FlashArray,
    sched: Scheduler<FlashOp>,
    ftl: Ftl,
    scheme: Box<dyn Scheme>,
    mapper: Box<dyn StreamMapper>,
    interests: Interests,
    /// Commands pushed by policy hooks, applied after each hook.
    cmds: Vec<Command>,
    /// Flash operations queued or running, and their bound (asserted).
    ops_live: usize,
    ops_max: usize,
    reqs: Slab<Request>,
    tenants: Vec<Tenant<'a>>,
    /// What each die executes.
    dies: Vec<die::DieExec>,
    /// What each die executes, as policies see it.
    die_status: Vec<DieStatus>,
    jobs: Slab<jobs::Job>,
    /// Per die: the job moving a source block of the die, or `NONE` (one at a time).
    collector: Vec<u32>,
    /// Jobs waiting for the collector slot of their next source block's die.
    waiting_jobs: Vec<u32>,
    /// Parity programs waiting for a free block: (tenant, stream, die).
    parity_pending: VecDeque<(u16, u8, DieIdx, crate::policy::StripePages)>,
    /// Parity programs issued and not yet complete, at most `parity_in_flight_max` (half the
    /// job bound): a burst of parity (a scheme sealing many stripes at once) waits in
    /// `parity_pending` instead of taking every job slot.
    parity_in_flight: usize,
    parity_in_flight_max: usize,
    parity_retrying: bool,
    wl_check: Vec<bool>,
    /// Per (tenant, stream): (request owning the open host page, real units in it).
    host_page: Vec<(u32, u32)>,
    buffer_used: u64,
    p: Params,
    metrics: Vec<TenantMetrics>,
    device: DeviceCounters,
    job_counts: JobCounters,
    epoch: EpochStats,
    ts: TimeSeries,
    /// Per-stream measurements (every mapper, measured by the engine).
    streams: StreamStats,
    events_handled: u64,
    names: Vec<String>,
    scratch_ppas: Vec<Ppa>,
    /// Per block: deadline of its last program issued (EDF keeps a block's programs in order).
    program_deadline: Vec<SimTime>,
    /// Die busy time when the measured phase started.
    busy_at_measure: Vec<u64>,
    /// `[[measure.phases]]`, in scenario order.
    phases: Vec<Phase>,
    /// Erase count of every block when preconditioning ended.
    erase_precondition: Option<Vec<u32>>,
    precondition_erases: u64,
    /// Blocks erased while requests were outstanding, since any tenant last completed one or
    /// placed a host unit (see `livelock_error`).
    erases_without_progress: u64,
    /// `events_handled` and the simulated time when a tenant last completed a request or
    /// placed a host unit (the progress watchdog, see `watchdog`).
    progress_events_at: u64,
    progress_at: SimTime,
    /// Its event bound for this device.
    watchdog_events: u64,
    /// `Event::Epoch` and `Event::MapperEpoch` in the queue: epochs alone do not keep a run
    /// going (each would otherwise see the other pending and tick for ever).
    epochs_queued: usize,
    /// Erases of the measured phase per die and per tenant (lifetime metrics).
    wear: WearCounters,
    /// Per die: program, erase and job-read operations started, wrapping (`die::read_tag`).
    nonread_starts: Vec<u16>,
    /// Per die: WAO-GC's write-and-step unit (`step_unit.rs`).
    units: Vec<step_unit::StepUnit>,
}

impl<'a> Simulation<'a> {
    /// A fresh device for `scenario` under `scheme` and `mapper`, fed by `sources` (one per
    /// tenant, in scenario order).
    pub fn new(s: &Scenario, scheme: Box<dyn Scheme>, mapper: Box<dyn StreamMapper>, sources: Vec<Source<'a>>) -> Self {
        let g = s.geometry();
        assert!(g.units_per_page <= u16::MAX as u32, "{} units per page do not fit an operation's count", g.units_per_page);
        let ns = s.namespace_units();
        let r = s.resolved();
        let ftl = Ftl::new(
            g,
            FtlParams {
                namespace_units: ns.clone(),
                physical_streams: s.ftl.physical_streams,
                host_reserve_blocks: s.ftl.gc_reserve_blocks,
                dynamic_wear_leveling: s.ftl.dynamic_wear_leveling,
                integrity: s.check.integrity,
                frontier_planes: if r.multi_plane { g.planes_per_die.min(PLANES_MAX) } else { 1 },
            },
        );
        let tenants: Vec<Tenant> = sources
            .into_iter()
            .zip(&s.tenants)
            .zip(&ns)
            .map(|((source, t), &units)| Tenant {
                source,
                next: None,
                outstanding: 0,
                queue_depth: t.queue_depth,
                closed_loop: closed_loop(t),
                start: SimTime::from_secs_f64(t.start_s),
                arrival_at: None,
                stalled: VecDeque::new(),
                namespace_units: units,
            })
            .collect();
        let qd_total: usize = tenants.iter().map(|t| t.queue_depth as usize).sum();
        let n_dies = g.n_dies as usize;
        let jobs_max = 4 * n_dies + 1024;
        // Bounds (asserted): every queued op belongs to a request, a job or a program.
        let ops_max = qd_total * 64 + n_dies * (3 * g.pages_per_block as usize + 16) + g.n_blocks as usize + jobs_max;
        let names: Vec<String> = s.tenants.iter().map(|t| t.name.clone()).collect();
        let window = SimTime::from_secs_f64(s.measure.window_s);
        let warmup = SimTime::from_secs_f64(s.measure.warmup_s);
        let metrics = s.tenants.iter().map(|t| TenantMetrics::new(window, warmup, t.task_names())).collect();
        let stream_series = mapper.name() != "legacy";
        let mut extra = scheme.series_names().to_vec();
        if stream_series {
            extra.extend(crate::metrics::streams::series_names());
        }
        let interests = scheme.interests().or(mapper.interests());
        let scheme_buffer = scheme.write_buffer_units();
        Simulation {
            now: SimTime::ZERO,
            timed: false,
            pre_stamp: 0,
            pre_idle: false,
            instant: Vec::new(),
            instant_next: 0,
            events: EventQueue::new(2 * n_dies + 2 * tenants.len() + qd_total + 8),
            array: FlashArray::new(g, s.timing()),
            sched: Scheduler::with_tenants(s.ftl.scheduler, g.n_dies, ops_max, tenants.len(), FairCosts::from_timing(&s.timing(), g.page_bytes)),
            ftl,
            scheme,
            mapper,
            interests,
            cmds: Vec::new(),
            ops_live: 0,
            ops_max,
            reqs: Slab::new(qd_total),
            dies: vec![die::DieExec::idle(FlashOp::NONE); n_dies],
            die_status: vec![DieStatus::IDLE; n_dies],
            jobs: Slab::new(jobs_max),
            collector: vec![NONE; n_dies],
            waiting_jobs: Vec::new(),
            units: vec![step_unit::StepUnit::IDLE; n_dies],
            parity_pending: VecDeque::new(),
            parity_in_flight: 0,
            parity_in_flight_max: jobs_max / 2,
            parity_retrying: false,
            wl_check: vec![false; n_dies],
            host_page: vec![(NONE, 0); tenants.len() * s.ftl.physical_streams as usize],
            buffer_used: 0,
            p: Params { buffer_units: scheme_buffer.unwrap_or(r.write_buffer_bytes / g.unit_bytes as u64), ..Params::of(s) },
            metrics,
            device: DeviceCounters::default(),
            job_counts: JobCounters::default(),
            epoch: EpochStats::new(tenants.len(), n_dies),
            ts: TimeSeries::new(window, names.clone(), extra),
            streams: StreamStats::new(&ns, stream_series),
            tenants,
            events_handled: 0,
            names,
            scratch_ppas: Vec::new(),
            program_deadline: if s.ftl.scheduler.table().by_deadline { vec![SimTime::ZERO; g.n_blocks as usize] } else { Vec::new() },
            busy_at_measure: vec![0; n_dies],
            phases: s.measure.phases.iter().map(|p| Phase::new(p.name.clone(), SimTime::from_secs_f64(p.start_s), p.end_s.map_or(SimTime::MAX, SimTime::from_secs_f64), s.tenants.len())).collect(),
            erase_precondition: None,
            precondition_erases: 0,
            erases_without_progress: 0,
            progress_events_at: 0,
            progress_at: SimTime::ZERO,
            watchdog_events: WATCHDOG_EVENTS_FLOOR + WATCHDOG_EVENTS_PER_PAGE * g.n_blocks as u64 * g.pages_per_block as u64,
            epochs_queued: 0,
            wear: WearCounters::new(n_dies, s.tenants.len(), s.device.pe_cycles.expect("filled by resolve_device")),
            nonread_starts: vec![0; n_dies],
        }
    }

    /// The FTL (for tests).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// The scheme (for tests that inspect its state).
    pub fn scheme(&self) -> &dyn Scheme {
        self.scheme.as_ref()
    }

    /// What the jobs did so far in the measured phase (for tests).
    pub fn job_counters(&self) -> &JobCounters {
        &self.job_counts
    }

    /// The device counters so far in the measured phase (for tests).
    pub fn device_counters(&self) -> &DeviceCounters {
        &self.device
    }

    /// Full sweep of the FTL's invariants and, with `[check] integrity`, of every logical
    /// page against the oracle (tests). Returns the oracle checks done so far.
    pub fn check_integrity(&mut self) -> u64 {
        self.ftl.check_consistency();
        self.ftl.oracle_checks()
    }

    /// Run to the end; `progress(now)` is called now and then.
    pub fn run(&mut self, progress: &mut dyn FnMut(SimTime)) -> Result<(), FtlabError> {
        assert!(!self.timed, "a simulation runs once");
        self.end_precondition();
        self.timed = true;
        self.streams.start_timed();
        self.epoch.clear();
        self.scheme.on_run_start(&view!(self), &mut self.cmds);
        self.apply_commands();
        if self.p.warmup == SimTime::ZERO {
            self.start_measuring();
        } else {
            self.events.push(self.p.warmup, Event::MeasureStart);
        }
        for t in 0..self.tenants.len() {
            self.tenants[t].next = self.tenants[t].source.next_request()?;
            let start = self.tenants[t].start;
            self.tenants[t].arrival_at = Some(start);
            self.events.push(start, Event::Arrival(t as u16));
        }
        for (i, p) in self.phases.iter().enumerate() {
            self.events.push(p.start, Event::PhaseStart(i as u16));
            if p.end != SimTime::MAX {
                self.events.push(p.end, Event::PhaseEnd(i as u16));
            }
        }
        if let Some(e) = self.scheme.epoch() {
            self.epoch.window = e;
            self.events.push(e, Event::Epoch);
            self.epochs_queued += 1;
        }
        if let Some(e) = self.mapper.epoch() {
            self.events.push(e, Event::MapperEpoch);
            self.epochs_queued += 1;
        }
        self.progressed();
        while let Some((t, ev)) = self.events.pop() {
            if self.p.end.is_some_and(|end| t > end) {
                self.now = self.p.end.unwrap();
                break;
            }
            assert!(t >= self.now, "time went backwards: {t:?} < {:?}", self.now);
            self.now = t;
            if self.ts.needs_roll(t) {
                self.check_rows(t)?;
                self.roll_windows();
            }
            self.handle(ev)?;
            self.events_handled += 1;
            if self.events_handled - self.progress_events_at > self.watchdog_events
                || (self.now - self.progress_at).ns() > WATCHDOG_NS
            {
                self.watchdog()?;
            }
            if self.events_handled.is_multiple_of(1 << 16) {
                progress(self.now);
            }
            if self.host_done() {
                break;
            }
        }
        if !(self.host_done() || self.p.end.is_some_and(|e| self.now >= e)) {
            return Err(self.stall_error());
        }
        progress(self.now);
        Ok(())
    }

    fn handle(&mut self, ev: Event) -> Result<(), FtlabError> {
        match ev {
            Event::Arrival(t) => {
                self.tenants[t as usize].arrival_at = None;
                self.pump(t)?;
            }
            Event::ArrayDone(tag) => self.array_done(tag)?,
            Event::XferDone(d) => self.op_done(DieIdx(d))?,
            Event::Complete(id) => self.complete_request(id)?,
            Event::Epoch => {
                self.epochs_queued -= 1;
                self.scheme_epoch()?
            }
            Event::MapperEpoch => {
                self.epochs_queued -= 1;
                self.mapper.on_epoch(&view!(self), &mut self.cmds);
                self.apply_commands();
                if !self.host_done() && self.events.len() > self.epochs_queued {
                    let e = self.mapper.epoch().expect("a mapper with epochs keeps them");
                    self.events.push(self.now + e, Event::MapperEpoch);
                    self.epochs_queued += 1;
                }
            }
            Event::MeasureStart => self.start_measuring(),
            Event::PhaseStart(i) => self.phases[i as usize].at_start = Some(self.snapshot()),
            Event::PhaseEnd(i) => self.phases[i as usize].at_end = Some(self.snapshot()),
        }
        Ok(())
    }

    fn scheme_epoch(&mut self) -> Result<(), FtlabError> {
        self.scheme.on_epoch(&view!(self), &mut self.cmds);
        self.epoch.clear();
        self.apply_commands();
        if !self.host_done() {
            // The scheme may have given stalled writers room (a new die).
            self.wake_stalled()?;
            // With nothing else pending, epochs alone would tick forever: stop, and let
            // the run end as a stall (reported by `stall_error`).
            // Another tick of the mapper's epoch is no work either.
            if self.events.len() > self.epochs_queued {
                self.events.push(self.now + self.epoch.window, Event::Epoch);
                self.epochs_queued += 1;
            }
        }
        Ok(())
    }

    /// The measured phase starts: every counter restarts (latencies are filtered by arrival).
    fn start_measuring(&mut self) {
        for m in &mut self.metrics {
            m.reset_counters();
        }
        self.device = DeviceCounters::default();
        self.job_counts = JobCounters::default();
        self.wear.reset();
        self.streams.start_measuring();
        self.busy_at_measure = self.array.die_busy_ns().to_vec();
    }

    /// The cumulative counters phases take differences of.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            host_units: self.metrics.iter().map(|m| m.host_units).collect(),
            gc_units: self.metrics.iter().map(|m| m.gc_units).collect(),
            flash_pages_programmed: self.device.flash_pages_programmed,
            erases: self.device.erases,
            die_busy_ns: self.array.die_busy_ns().to_vec(),
            at: self.now,
        }
    }

    /// Preconditioning (if any) is over: keep its wear apart.
    fn end_precondition(&mut self) {
        if self.erase_precondition.is_none() {
            self.erase_precondition = Some(self.ftl.blocks().info.iter().map(|b| b.erase_count).collect());
        }
    }

    /// Apply the commands policy hooks pushed (they may push more).
    fn apply_commands(&mut self) {
        let mut rounds = 0;
        while !self.cmds.is_empty() {
            rounds += 1;
            assert!(rounds <= COMMAND_ROUNDS_MAX, "policy commands cascaded over {COMMAND_ROUNDS_MAX} rounds");
            let mut batch = std::mem::take(&mut self.cmds);
            for c in batch.drain(..) {
                self.apply_command(c);
            }
            if self.cmds.is_empty() {
                self.cmds = batch;
            }
        }
    }

    /// Tell the policies that want it that a unit was placed.
    #[inline]
    fn notify_placed(&mut self, tenant: u16, lpn: u32, ppa: Ppa, stream: u8, class: WriteClass) {
        if !self.interests.placed {
            return;
        }
        let ev = Placed { tenant, lpn, ppa, stream, class };
        self.scheme.on_placed(&view!(self), &ev, &mut self.cmds);
        self.mapper.on_placed(&view!(self), &ev, &mut self.cmds);
        self.apply_commands();
    }

    /// Tell the policies that want it that a unit's data died.
    #[inline]
    fn notify_invalidated(&mut self, tenant: u16, lpn: u32, ppa: Ppa, cause: Cause) {
        if !self.interests.invalidated {
            return;
        }
        let ev = Invalidated { tenant, lpn, ppa, cause };
        self.scheme.on_invalidated(&view!(self), &ev, &mut self.cmds);
        self.mapper.on_invalidated(&view!(self), &ev, &mut self.cmds);
        self.apply_commands();
    }

    /// Tell the policies that want it that a block was erased.
    fn notify_erased(&mut self, block: BlockIdx) {
        if !self.interests.erased {
            return;
        }
        self.scheme.on_erased(&view!(self), block, &mut self.cmds);
        self.mapper.on_erased(&view!(self), block, &mut self.cmds);
        self.apply_commands();
    }

    /// The write stamp of a unit handed out now (see `BlockInfo::last_write_ns`).
    #[inline]
    fn stamp(&self) -> i64 {
        if self.timed {
            self.now.ns() as i64
        } else {
            self.pre_stamp
        }
    }

    /// The run cannot go on: with writes stalled for space it is the scenario's capacity (a
    /// config error); anything else is a simulator bug.
    fn stall_error(&self) -> FtlabError {
        let stalled: Vec<&str> =
            self.tenants.iter().zip(&self.names).filter(|(t, _)| !t.stalled.is_empty()).map(|(_, n)| n.as_str()).collect();
        assert!(!stalled.is_empty(), "simulation stalled at {:?} with host work left and no write waiting (deadlock)", self.now);
        FtlabError::config(
            "scenario",
            "device.over_provisioning",
            format!(
                "the device ran out of space at {:.6} s: writes of {} wait for free blocks, and GC finds no block with invalid data to collect; raise device.over_provisioning or lower precondition.fill_fraction",
                self.now.as_secs_f64(),
                stalled.join(", ")
            ),
        )
    }

    /// Requests were outstanding while GC and wear leveling erased more blocks than the device
    /// has, and no tenant completed one or placed a host unit meanwhile: every block could have
    /// been reclaimed once, so the jobs only move valid data in circles (a device full of valid
    /// data under a placement that leaves the writers no room, or their operations queued for
    /// ever behind urgent jobs on dies they never free). Without this bound such a run never
    /// ends: its jobs keep the event queue alive. The bound is device-wide: one tenant starved
    /// while another progresses is slow, not stuck.
    pub(super) fn livelock_error(&self) -> FtlabError {
        let waiting: Vec<String> = self
            .tenants
            .iter()
            .zip(&self.names)
            .filter(|(t, _)| t.outstanding > 0)
            .map(|(t, n)| if t.stalled.is_empty() { format!("{} requests of {n} wait behind GC and wear leveling", t.outstanding) } else { format!("writes of {n} wait for free blocks") })
            .collect();
        assert!(!waiting.is_empty(), "livelock with nothing outstanding");
        FtlabError::config(
            "scenario",
            "device.over_provisioning",
            format!(
                "the device ran out of space at {:.6} s: {}, and GC and wear leveling erased {} blocks (more than the device's {}) while no request progressed, moving valid data in circles; raise device.over_provisioning or lower precondition.fill_fraction",
                self.now.as_secs_f64(),
                waiting.join("; "),
                self.erases_without_progress,
                self.ftl.geometry.n_blocks
            ),
        )
    }

    /// A tenant completed a request or placed a host unit: the livelock bound and the
    /// progress watchdog start over.
    #[inline]
    pub(super) fn progressed(&mut self) {
        self.erases_without_progress = 0;
        self.progress_events_at = self.events_handled;
        self.progress_at = self.now;
    }

    /// The progress watchdog fired: `watchdog_events` events or `WATCHDOG_NS` of simulated time
    /// passed since the last progress. With nothing outstanding (an idle gap between
    /// arrivals) that is no fault and the count starts over; with requests outstanding the run
    /// ends with an error instead of running for ever.
    #[cold]
    fn watchdog(&mut self) -> Result<(), FtlabError> {
        if self.tenants.iter().all(|t| t.outstanding == 0) {
            self.progress_events_at = self.events_handled;
            self.progress_at = self.now;
            return Ok(());
        }
        let waiting: Vec<String> = self
            .tenants
            .iter()
            .zip(&self.names)
            .filter(|(t, _)| t.outstanding > 0)
            .map(|(t, n)| format!("{} requests of {n}", t.outstanding))
            .collect();
        Err(FtlabError::config(
            "scenario",
            "device.over_provisioning",
            format!(
                "the run made no progress from {:.6} s to {:.6} s: {} outstanding, and in {} events (bound {}) no request completed and no host unit was placed; GC erased {} blocks meanwhile; raise device.over_provisioning or lower precondition.fill_fraction",
                self.progress_at.as_secs_f64(),
                self.now.as_secs_f64(),
                waiting.join(", "),
                self.events_handled - self.progress_events_at,
                self.watchdog_events,
                self.erases_without_progress,
            ),
        ))
    }

    /// The time series may not outgrow its bound (a long trace and a short window).
    fn check_rows(&self, now: SimTime) -> Result<(), FtlabError> {
        let rows = self.ts.rows_at(now);
        if rows as f64 > crate::scenario::MAX_TIMESERIES_ROWS {
            return Err(FtlabError::config(
                "scenario",
                "measure.window_s",
                format!(
                    "the run reached {:.0} s, which at this window is {rows} time-series rows, more than {}; raise measure.window_s",
                    now.as_secs_f64(),
                    crate::scenario::MAX_TIMESERIES_ROWS
                ),
            ));
        }
        Ok(())
    }

    fn host_done(&self) -> bool {
        self.tenants.iter().all(|t| t.next.is_none() && t.outstanding == 0)
    }

    fn roll_windows(&mut self) {
        let v = view!(self);
        let (scheme, streams) = (&self.scheme, &mut self.streams);
        self.ts.roll(self.now, &mut |t, out| {
            scheme.series_values(t, &v, out);
            streams.series_values(t, out);
        });
    }
}

fn closed_loop(t: &crate::scenario::TenantConfig) -> bool {
    match (&t.trace, &t.synthetic) {
        (Some(tr), _) => tr.replay == Replay::Closed,
        (_, Some(g)) => g.arrival == crate::workload::generator::Arrival::Closed,
        _ => false,
    }
}
