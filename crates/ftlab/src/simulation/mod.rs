//! The top-level `Simulation` of one scheme on one device: the discrete-event loop that ties
//! host, FTL, scheme, stream mapper, scheduler and flash array together (DESIGN §2). Host
//! I/O paths are in `host_io`, GC in `gc`, the instant preconditioning in `precondition`.
//! No file I/O: workload sources arrive already opened.

mod die;
mod gc;
mod host_io;
mod precondition;

use crate::error::FtlabError;
use crate::flash::array::FlashArray;
use crate::flash::geometry::{BlockIdx, DieIdx, PLANES_MAX};
use crate::ftl::{Ftl, FtlParams, NONE};
use crate::host::{HostRequest, Source};
use crate::metrics::report::SchemeResult;
use crate::metrics::timeseries::TimeSeries;
use crate::metrics::{DeviceCounters, TenantMetrics};
use crate::scenario::{Replay, Scenario};
use crate::sched::{OpClass, Scheduler};
use crate::scheme::{EpochStats, Scheme};
use crate::sim::events::EventQueue;
use crate::sim::slab::Slab;
use crate::sim::time::SimTime;
use crate::stream::StreamMapper;
use crate::api::{Column, Table};
use std::collections::VecDeque;

pub use precondition::{OutOfSpace, PreconditionGc};

/// How far ahead of a GC read's units the P2L is prefetched: one cache line of entries.
const PREFETCH_P2L_AHEAD_UNITS: u32 = 16;

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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpKind {
    Read,
    Program,
    Erase,
}

/// One flash operation in flight or queued.
#[derive(Clone, Copy, Debug)]
struct FlashOp {
    kind: OpKind,
    class: OpClass,
    die: DieIdx,
    block: BlockIdx,
    page: u32,
    /// Units read, or real (not padding) units programmed.
    n_units: u32,
    /// Host read/program: the request; GC read: the victim's die; else `NONE`.
    owner: u32,
}

impl FlashOp {
    /// A placeholder for the unused slots of a die's operation group.
    const NONE: FlashOp = FlashOp {
        kind: OpKind::Erase,
        class: OpClass::Gc,
        die: DieIdx(NONE),
        block: BlockIdx(NONE),
        page: 0,
        n_units: 0,
        owner: NONE,
    };
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
}

impl Params {
    fn of(s: &Scenario) -> Params {
        Params {
            low_watermark: s.ftl.gc_low_watermark_blocks.expect("resolved"),
            high_watermark: s.ftl.gc_high_watermark_blocks.expect("resolved"),
            reserve: s.ftl.gc_reserve_blocks,
            background_gc: s.ftl.background_gc,
            policy: s.ftl.gc_policy,
            static_gap: s.ftl.static_wear_leveling_gap,
            buffer_units: s.ftl.write_buffer_bytes / s.device.mapping_unit_bytes.expect("resolved") as u64,
            dram_latency: SimTime::from_secs_f64(s.ftl.dram_latency_us / 1e6),
            multi_plane: s.device.multi_plane.expect("resolved"),
            suspend: s.device.program_erase_suspend.expect("resolved"),
            warmup: SimTime::from_secs_f64(s.measure.warmup_s),
            end: s.measure.duration_s.map(SimTime::from_secs_f64),
        }
    }
}

/// One scheme's simulation of a scenario.
pub struct Simulation<'a> {
    now: SimTime,
    events: EventQueue<Event>,
    array: FlashArray,
    sched: Scheduler<FlashOp>,
    ftl: Ftl,
    scheme: Box<dyn Scheme>,
    mapper: Box<dyn StreamMapper>,
    /// Flash operations queued or running, and their bound (asserted).
    ops_live: usize,
    ops_max: usize,
    reqs: Slab<Request>,
    /// What each die executes.
    dies: Vec<die::DieExec>,
    tenants: Vec<Tenant<'a>>,
    /// Victim being collected per die, or `NONE`.
    gc_victim: Vec<u32>,
    gc_reads_left: Vec<u32>,
    wl_check: Vec<bool>,
    /// Per (tenant, stream): (request owning the open host page, real units in it).
    host_page: Vec<(u32, u32)>,
    buffer_used: u64,
    p: Params,
    metrics: Vec<TenantMetrics>,
    device: DeviceCounters,
    epoch: EpochStats,
    ts: TimeSeries,
    events_handled: u64,
    names: Vec<String>,
    scratch_ppas: Vec<crate::flash::geometry::Ppa>,
}

impl<'a> Simulation<'a> {
    /// A fresh device for `scenario` under `scheme` and `mapper`, fed by `sources` (one per
    /// tenant, in scenario order).
    pub fn new(s: &Scenario, scheme: Box<dyn Scheme>, mapper: Box<dyn StreamMapper>, sources: Vec<Source<'a>>) -> Self {
        let g = s.geometry();
        let ns = s.namespace_units();
        let ftl = Ftl::new(
            g,
            FtlParams {
                namespace_units: ns.clone(),
                physical_streams: s.ftl.physical_streams,
                host_reserve_blocks: s.ftl.gc_reserve_blocks,
                dynamic_wear_leveling: s.ftl.dynamic_wear_leveling,
                integrity: s.check.integrity,
                frontier_planes: if s.device.multi_plane.expect("resolved") { g.planes_per_die.min(PLANES_MAX) } else { 1 },
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
        // Bounds (asserted): every queued op belongs to a request, a GC job or a program.
        let ops_max = qd_total * 64 + n_dies * (2 * g.pages_per_block as usize + 8) + g.n_blocks as usize;
        let names: Vec<String> = s.tenants.iter().map(|t| t.name.clone()).collect();
        let extra = scheme.series_names();
        Simulation {
            now: SimTime::ZERO,
            events: EventQueue::new(2 * n_dies + 2 * tenants.len() + qd_total + 8),
            array: FlashArray::new(g, s.timing()),
            sched: Scheduler::new(s.ftl.scheduler, g.n_dies, ops_max),
            ftl,
            scheme,
            mapper,
            ops_live: 0,
            ops_max,
            reqs: Slab::new(qd_total),
            dies: vec![die::DieExec::idle(FlashOp::NONE); n_dies],
            gc_victim: vec![NONE; n_dies],
            gc_reads_left: vec![0; n_dies],
            wl_check: vec![false; n_dies],
            host_page: vec![(NONE, 0); tenants.len() * s.ftl.physical_streams as usize],
            buffer_used: 0,
            p: Params::of(s),
            metrics: vec![TenantMetrics::default(); tenants.len()],
            device: DeviceCounters::default(),
            epoch: EpochStats::new(tenants.len(), n_dies),
            ts: TimeSeries::new(SimTime::from_secs_f64(s.measure.window_s), names.clone(), extra),
            tenants,
            events_handled: 0,
            names,
            scratch_ppas: Vec::new(),
        }
    }

    /// The FTL (for tests).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Full sweep of the FTL's invariants and, with `[check] integrity`, of every logical
    /// page against the oracle (tests). Returns the oracle checks done so far.
    pub fn check_integrity(&mut self) -> u64 {
        self.ftl.check_consistency();
        self.ftl.oracle.as_ref().map_or(0, |o| o.checks)
    }

    /// Fill the namespaces before the timed run (see `precondition`).
    pub fn precondition(
        &mut self,
        cfg: &crate::scenario::PreconditionConfig,
        gc: PreconditionGc,
        rng: &mut crate::sim::Rng,
    ) -> Result<(), precondition::OutOfSpace> {
        precondition::precondition(&mut self.ftl, self.scheme.as_mut(), self.mapper.as_mut(), cfg, gc, rng)
    }

    /// Run to the end; `progress(now)` is called now and then.
    pub fn run(&mut self, progress: &mut dyn FnMut(SimTime)) -> Result<(), FtlabError> {
        self.scheme.on_run_start(&self.ftl);
        for t in 0..self.tenants.len() {
            self.tenants[t].next = self.tenants[t].source.next_request()?;
            let start = self.tenants[t].start;
            self.tenants[t].arrival_at = Some(start);
            self.events.push(start, Event::Arrival(t as u16));
        }
        if let Some(e) = self.scheme.epoch() {
            self.epoch.window = e;
            self.events.push(e, Event::Epoch);
        }
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
                self.scheme.on_epoch(self.now, &self.epoch, &self.ftl);
                self.epoch.clear();
                if !self.host_done() {
                    // The scheme may have given stalled writers room (a new die).
                    self.wake_stalled()?;
                    // With nothing else pending, epochs alone would tick forever: stop, and let
                    // the run end as a stall (reported by `stall_error`).
                    if !self.events.is_empty() {
                        self.events.push(self.now + self.epoch.window, Event::Epoch);
                    }
                }
            }
        }
        Ok(())
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
        let (scheme, ftl) = (&self.scheme, &self.ftl);
        self.ts.roll(self.now, &mut |t, out| scheme.series_values(t, ftl, out));
    }

    /// The measured results and the tables of this run.
    pub fn finish(self, scheme_name: &str) -> (SchemeResult, RunTables) {
        let g = self.ftl.geometry;
        let erase: Vec<u32> = self.ftl.blocks.info.iter().map(|b| b.erase_count).collect();
        let sim_time = self.now;
        let busy = self.array.die_busy_ns();
        let util = busy.iter().map(|&b| if sim_time.ns() == 0 { 0.0 } else { b as f64 / sim_time.ns() as f64 }).collect();
        let (scheme, ftl) = (&self.scheme, &self.ftl);
        let timeseries = self.ts.finish(&mut |t, out| scheme.series_values(t, ftl, out));
        let tenants: Vec<(String, TenantMetrics)> = self.names.into_iter().zip(self.metrics).collect();
        let tables = RunTables { timeseries, latency_cdf: cdf_table(&tenants), wear: wear_table(&g, &erase) };
        let result = SchemeResult {
            scheme: scheme_name.to_string(),
            tenants,
            device: self.device,
            units_per_page: g.units_per_page,
            erase_count_min: erase.iter().copied().min().unwrap_or(0),
            erase_count_max: erase.iter().copied().max().unwrap_or(0),
            erase_count_mean: erase.iter().map(|&e| e as f64).sum::<f64>() / erase.len().max(1) as f64,
            sim_time,
            measured: sim_time.saturating_sub(self.p.warmup),
            die_utilisation: util,
            integrity_checks: self.ftl.oracle.as_ref().map_or(0, |o| o.checks),
        };
        (result, tables)
    }
}

/// The tables of one scheme's run (the caller adds the `scheme` column).
#[derive(Clone, Debug)]
pub struct RunTables {
    /// One row per tenant and window.
    pub timeseries: Table,
    /// Empirical latency CDF: one row per (tenant, op, histogram bucket).
    pub latency_cdf: Table,
    /// Erase count of every block: one row per block.
    pub wear: Table,
}

fn cdf_table(tenants: &[(String, TenantMetrics)]) -> Table {
    let (mut tenant, mut op, mut lat, mut cdf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (name, m) in tenants {
        for (op_name, stats) in [("read", &m.read), ("write", &m.write), ("trim", &m.trim)] {
            for (l, c) in stats.hist.cdf_points() {
                tenant.push(name.clone());
                op.push(op_name.to_string());
                lat.push(l);
                cdf.push(c);
            }
        }
    }
    Table {
        columns: vec![
            ("tenant".into(), Column::Str(tenant)),
            ("op".into(), Column::Str(op)),
            ("latency_us".into(), Column::F64(lat)),
            ("cdf".into(), Column::F64(cdf)),
        ],
    }
}

fn wear_table(g: &crate::flash::geometry::Geometry, erase: &[u32]) -> Table {
    let die = (0..g.n_blocks).map(|b| (b / g.blocks_per_die) as u64).collect();
    let block = (0..g.n_blocks).map(|b| (b % g.blocks_per_die) as u64).collect();
    let channel = (0..g.n_blocks).map(|b| g.channel_of(DieIdx(b / g.blocks_per_die)) as u64).collect();
    Table {
        columns: vec![
            ("channel".into(), Column::U64(channel)),
            ("die".into(), Column::U64(die)),
            ("block".into(), Column::U64(block)),
            ("erase_count".into(), Column::U64(erase.iter().map(|&e| e as u64).collect())),
        ],
    }
}

fn closed_loop(t: &crate::scenario::TenantConfig) -> bool {
    match (&t.trace, &t.synthetic) {
        (Some(tr), _) => tr.replay == Replay::Closed,
        (_, Some(g)) => g.arrival == crate::workload::generator::Arrival::Closed,
        _ => unreachable!("validated: one workload per tenant"),
    }
}
