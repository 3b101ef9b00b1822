//! The `Engine`: the owned parts of one simulation and the executor `X` that runs its flash
//! operations, built from the scenario (`new`), handed from the instant to the timed executor
//! (`into_timed`), and what every path reads of it: the policies' view of the device and the
//! block's tenant. It declares `Executor`, what the engine asks of its executor; `Instant` and
//! `Timed` implement it (`precondition`, `die`). It calls no path: not the event loop (`run`),
//! the host paths (`host`), the policies' hooks and commands (`commands`), the jobs and their
//! copies (`jobs`, `gc`, `copy`), an
//! operation's completion (`complete`) or die execution (`die`).

use super::executor::{Instant, Timed};
use super::host_port::HostPort;
use super::job_table::JobTable;
use super::ops::{Event, FlashOp, Params};
use super::policies::Policies;
use super::progress::Progress;
use super::sink::MetricsSink;
use crate::error::FtlabError;
use crate::flash::geometry::DieIdx;
use crate::flash::geometry::{BlockIdx, Ppa, PLANES_MAX};
use crate::ftl::{Ftl, FtlParams};
use crate::host::Source;
use crate::policy::JobKind;
use crate::policy::{DeviceView, DieStatus};
use crate::scenario::Scenario;
use crate::scheme::Scheme;
use crate::sim::events::EventQueue;
use crate::sim::time::SimTime;
use crate::stream::StreamMapper;

/// How flash operations execute; the points where preconditioning and the timed run differ.
pub(super) trait Executor: Sized {
    /// Run `op`: complete it now or queue it at its die.
    fn issue(e: &mut Engine<'_, Self>, op: FlashOp);

    /// Job `id` reads a page with valid units (`op`): copy them now, or issue the read.
    fn job_read(e: &mut Engine<'_, Self>, id: u32, op: FlashOp);

    /// The write stamp of a unit handed out now (see `BlockInfo::last_write_ns`).
    fn stamp(e: &Engine<'_, Self>) -> i64;

    /// The simulated time of a host write for the stream measurements (none before the run).
    fn write_time(e: &Engine<'_, Self>) -> Option<SimTime>;

    /// Whether `die` may start a job now (the scheme's read dies wait their turn in the run).
    fn may_collect(e: &Engine<'_, Self>, die: DieIdx) -> bool;

    /// Whether `die` counts as idle for background GC.
    fn die_idle(e: &Engine<'_, Self>, die: DieIdx) -> bool;

    /// A job took `block` as its source.
    fn source_taken(e: &mut Engine<'_, Self>, block: BlockIdx);

    /// A job copied a unit (the time series counts it in the run).
    fn unit_copied(e: &mut Engine<'_, Self>);

    /// A job of `kind` erased `block` (the run's livelock bound and time series count it).
    fn erased(e: &mut Engine<'_, Self>, block: BlockIdx, kind: JobKind) -> Result<(), FtlabError>;

    /// A policy asked `die` to look at its queue again.
    fn dispatch(e: &mut Engine<'_, Self>, die: DieIdx);

    /// `Command::StepGcUnit`: a partial-GC step of `pages` reads with the next host program
    /// on `die` as one unit (`step_unit`), or a plain step where no time passes.
    fn step_gc_unit(e: &mut Engine<'_, Self>, die: DieIdx, pages: u32);
}

/// One scheme's simulation state, executed by `X`.
pub(super) struct Engine<'a, X> {
    pub(super) now: SimTime,
    /// Pending events of the timed run (arrivals, completions, epochs, phases).
    pub(super) events: EventQueue<Event>,
    pub(super) ftl: Ftl,
    pub(super) pol: Policies,
    pub(super) host: HostPort<'a>,
    pub(super) jobs: JobTable,
    /// What each die executes and which job holds it, as policies see it (the executor keeps
    /// `busy` and `writes_queued`, the job table `job`).
    pub(super) die_status: Vec<DieStatus>,
    pub(super) sink: MetricsSink,
    pub(super) progress: Progress,
    pub(super) p: Params,
    /// Scratch for a rebuild's stripe members (kept, so reads allocate nothing).
    pub(super) scratch_ppas: Vec<Ppa>,
    /// The executor: `Instant` (preconditioning) or `Timed` (the die executor).
    pub(super) exec: X,
}

impl<'a> Engine<'a, Instant> {
    /// A fresh device for `s` under `scheme` and `mapper`, fed by `sources` (one per tenant,
    /// in scenario order), with the instant executor, and the timed executor for its run.
    pub(super) fn new(
        s: &Scenario,
        scheme: Box<dyn Scheme>,
        mapper: Box<dyn StreamMapper>,
        sources: Vec<Source<'a>>,
    ) -> (Self, Timed) {
        let g = s.geometry();
        assert!(
            g.units_per_page <= u16::MAX as u32,
            "{} units per page do not fit an operation's count",
            g.units_per_page
        );
        let ns = s.namespace_units();
        let mut ftl = Ftl::new(
            g,
            FtlParams {
                namespace_units: ns.clone(),
                physical_streams: s.ftl.physical_streams,
                host_reserve_blocks: s.ftl.gc_reserve_blocks,
                dynamic_wear_leveling: s.ftl.dynamic_wear_leveling,
                integrity: s.check.integrity,
                frontier_planes: if s.device.multi_plane { g.planes_per_die.min(PLANES_MAX) } else { 1 },
                frontier_per_tenant: s.ftl.frontier_per_tenant
                    || scheme.frontier_per_tenant()
                    || mapper.frontier_per_tenant(),
            },
        );
        if s.ftl.gc_policy == crate::ftl::gc::VictimPolicy::CostBenefit {
            // Scored victims (the scenario's policy, and `upi`'s own under it): bound the search.
            ftl.enable_victim_bounds();
        }
        let host = HostPort::new(s, sources, &ns);
        let qd_total = host.queue_depth_total();
        let n_dies = g.n_dies as usize;
        let mut jobs = JobTable::new(n_dies);
        // Bounds (asserted, a guard against operations never completed): besides a request's
        // own (`qd_total * 64`), every live operation is a job's page read, a program or an
        // erase of a distinct page or block: a page is read by one job at a time, programmed
        // once per erase, a block erased once at a time. Copies' programs are not bounded by
        // their job's reads in flight: a migration's reads outrun its destinations' programs,
        // which wait at those dies (soak seed 3268: a flashblox swap with over 4,250 operations
        // live, over the earlier bound of 3,408, which counted 3 per page of a block per die).
        let n_pages = g.n_blocks as usize * g.pages_per_block as usize;
        let ops_max = qd_total * 64 + 2 * n_pages + g.n_blocks as usize + n_dies * 16 + jobs.jobs_max();
        jobs.parity_pending_max = ops_max;
        let mut timed = Timed::new(s, ops_max, host.tenants.len());
        timed.programs_by_owner = s.ftl.scheduler.table().per_tenant && !ftl.params.frontier_per_tenant;
        let scheme_buffer = scheme.write_buffer_units();
        let sink = MetricsSink::new(s, &ns, scheme.as_ref(), mapper.as_ref(), host.names.clone());
        let engine = Engine {
            now: SimTime::ZERO,
            events: EventQueue::new(2 * n_dies + 2 * host.tenants.len() + qd_total + 8),
            ftl,
            pol: Policies::new(scheme, mapper),
            host,
            jobs,
            die_status: vec![DieStatus::IDLE; n_dies],
            sink,
            progress: Progress::new(&g),
            p: Params {
                buffer_units: scheme_buffer.unwrap_or(s.ftl.write_buffer_bytes / g.unit_bytes as u64),
                ..Params::of(s)
            },
            scratch_ppas: Vec::new(),
            exec: Instant::new(ops_max),
        };
        (engine, timed)
    }

    /// Preconditioning is over: the same parts go on under the timed executor.
    pub(super) fn into_timed(mut self, timed: Timed) -> Engine<'a, Timed> {
        self.exec.assert_drained();
        self.end_precondition();
        Engine {
            now: self.now,
            events: self.events,
            ftl: self.ftl,
            pol: self.pol,
            host: self.host,
            jobs: self.jobs,
            die_status: self.die_status,
            sink: self.sink,
            progress: self.progress,
            p: self.p,
            scratch_ppas: self.scratch_ppas,
            exec: timed,
        }
    }

    /// Preconditioning (if any) is over: keep its wear apart.
    pub(super) fn end_precondition(&mut self) {
        if self.sink.erase_precondition.is_none() {
            self.sink.erase_precondition =
                Some(self.ftl.blocks().info.iter().map(|b| b.erase_count).collect());
        }
    }
}

impl<X: Executor> Engine<'_, X> {
    /// The read-only view of the device that policy hooks get.
    #[inline]
    pub(super) fn view(&self) -> DeviceView<'_> {
        DeviceView { ftl: &self.ftl, now: self.now, dies: &self.die_status, epoch: &self.sink.epoch }
    }

    /// The view GC's victim choice is handed: its clock is the write stamps' (`Executor::stamp`:
    /// the run's time, or preconditioning's own clock while the run's stands at 0), so a
    /// block's age is the time since its last write in preconditioning too.
    #[inline]
    pub(super) fn victim_view(&self) -> DeviceView<'_> {
        let stamp = X::stamp(self);
        assert!(stamp >= 0, "no write stamp is negative while victims are chosen: {stamp}");
        DeviceView {
            ftl: &self.ftl,
            now: SimTime(stamp as u64),
            dies: &self.die_status,
            epoch: &self.sink.epoch,
        }
    }

    /// The policies, and the view of the device they are handed (disjoint borrows).
    #[inline]
    pub(super) fn policies_and_view(&mut self) -> (&mut Policies, DeviceView<'_>) {
        (
            &mut self.pol,
            DeviceView { ftl: &self.ftl, now: self.now, dies: &self.die_status, epoch: &self.sink.epoch },
        )
    }

    /// Every part's invariants, swept in full (tests; the hot paths assert theirs as they go).
    pub(super) fn check_parts(&self) {
        let n_dies = self.ftl.geometry.n_dies as usize;
        assert_eq!(self.die_status.len(), n_dies, "one die status per die");
        self.host.check();
        self.jobs.check(&self.ftl, &self.die_status);
        self.pol.check();
        self.sink.check(self.host.tenants.len());
    }

    /// The tenant whose data `block` holds, or 0 (preconditioning's padding programs carry it).
    #[inline]
    pub(super) fn block_tenant(&self, block: BlockIdx) -> u16 {
        let o = self.ftl.blocks().get(block).owner;
        if (o as usize) < self.sink.metrics.len() {
            o
        } else {
            0
        }
    }
}
