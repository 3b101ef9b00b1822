//! Metrics (DESIGN §8): per-tenant latency histograms and counters, device counters, job
//! counters, backlogs, health (waits, stalls, the most outstanding), deadlines, the time series of fixed
//! windows, the tables handed to the caller (`table`) and the Report (`report`). Collects what the simulation
//! tells it; decides nothing.

pub(crate) mod backlog;
pub(crate) mod deadline;
pub(crate) mod health;
pub(crate) mod latency;
pub(crate) mod lifetime;
pub(crate) mod lifetime_model;
pub(crate) mod phase;
pub(crate) mod report;
pub(crate) mod streams;
pub(crate) mod table;
pub(crate) mod timeseries;

use crate::policy::{JobKind, N_JOB_KINDS};
use crate::sim::time::SimTime;
use backlog::{Backlog, BacklogVerdict};
use deadline::TaskStats;
use health::{Health, HealthVerdict};
use latency::LatencyHist;

/// Latency and volume of one (tenant, operation).
#[derive(Clone, Debug, Default)]
pub(crate) struct OpStats {
    pub(crate) hist: LatencyHist,
    pub(crate) bytes: u64,
}

/// Everything measured for one tenant. Counters cover the measured phase (from
/// `measure.warmup_s`); latencies are those of requests that arrived in it.
#[derive(Clone, Debug)]
pub struct TenantMetrics {
    pub(crate) read: OpStats,
    pub(crate) write: OpStats,
    pub(crate) trim: OpStats,
    /// Mapping units written by the host.
    pub(crate) host_units: u64,
    /// Mapping units of this tenant's data copied by GC (and other jobs).
    pub gc_units: u64,
    /// Of `gc_units`, those copied out of source blocks that held data of more than one
    /// tenant (`BlockInfo::multi_tenant`): copies this tenant's data took because it shared
    /// blocks with others. 0 where no block mixes tenants.
    pub gc_copies_for_others: u64,
    /// Units read that were never written (or trimmed): served without flash access.
    pub(crate) unmapped_reads: u64,
    /// Units read whose page was not yet programmed: served from the controller's buffer.
    pub(crate) buffer_reads: u64,
    /// Trace records whose timestamp went backwards, replayed at their predecessor's time
    /// (whole run).
    pub(crate) reordered_arrivals: u64,
    /// Trace records well formed but carrying no request, skipped and counted by their
    /// format (whole run; `TraceReader::skipped`).
    pub(crate) skipped_records: u64,
    /// Request records of the trace that the run did not replay (cut by `measure.duration_s`,
    /// the tenant's `duration_s` or `trace.max_requests`; `host::Source::records_not_replayed`);
    /// 0 for generated workloads.
    pub(crate) records_not_replayed: u64,
    /// Write requests that arrived by the end and did not complete (in flight or waiting in
    /// the host): host writes left unserved, which gate wear claims (DESIGN §12).
    pub(crate) writes_outstanding_at_end: u64,
    /// Arrivals and completions (whole run), for the backlog.
    pub(crate) backlog: Backlog,
    /// Set at the end.
    pub(crate) verdict: Option<BacklogVerdict>,
    /// Waits, stalls and the most requests outstanding (measured phase).
    pub(crate) health: Health,
    /// Set at the end.
    pub(crate) health_verdict: Option<HealthVerdict>,
    /// Per periodic task (empty for other workloads).
    pub(crate) tasks: Vec<TaskStats>,
}

impl TenantMetrics {
    /// Metrics binned by `window`, measured from `warmup`, with one `TaskStats` per name.
    pub(crate) fn new(window: SimTime, warmup: SimTime, task_names: Vec<String>) -> TenantMetrics {
        TenantMetrics {
            read: OpStats::default(),
            write: OpStats::default(),
            trim: OpStats::default(),
            host_units: 0,
            gc_units: 0,
            gc_copies_for_others: 0,
            unmapped_reads: 0,
            buffer_reads: 0,
            reordered_arrivals: 0,
            skipped_records: 0,
            records_not_replayed: 0,
            writes_outstanding_at_end: 0,
            backlog: Backlog::new(window),
            verdict: None,
            health: Health::new(warmup),
            health_verdict: None,
            tasks: task_names.into_iter().map(TaskStats::new).collect(),
        }
    }

    /// Forget the counters of the phase before the measurement (latencies are filtered by
    /// arrival time instead; backlogs and reorderings cover the whole run).
    pub(crate) fn reset_counters(&mut self) {
        self.host_units = 0;
        self.gc_units = 0;
        self.gc_copies_for_others = 0;
        self.unmapped_reads = 0;
        self.buffer_reads = 0;
    }
}

/// Device-wide counters (measured phase).
#[derive(Clone, Debug, Default)]
pub struct DeviceCounters {
    pub host_units: u64,
    /// Flash pages programmed: host, GC and other jobs, parity, padding included.
    pub(crate) flash_pages_programmed: u64,
    /// Units copied by jobs (GC, wear leveling, migration).
    pub gc_units: u64,
    pub(crate) erases: u64,
    /// Of `erases`, those of blocks that held data of more than one tenant since their
    /// previous erase (`BlockInfo::multi_tenant`).
    pub blocks_multi_tenant: u64,
    /// Host flash-page reads issued.
    pub flash_reads: u64,
    /// Reads rebuilt from parity (PaRT-FTL); 0 for schemes without parity.
    pub rebuilt_reads: u64,
    /// Programs and erases suspended for a host read.
    pub(crate) suspensions: u64,
    /// Host flash reads (rebuild members included) that waited while their die ran a program,
    /// an erase or a job's read: queued when one was running, or one started before them.
    pub(crate) reads_blocked: u64,
    /// The longest parity rebuild: from its member reads' issue to the last one's completion
    /// (for a request with several rebuilds, all issued together, the last of them).
    pub(crate) read_rebuilt_ns_max: u64,
    /// Operations that ran as the second (third, fourth) plane of a multi-plane operation.
    pub(crate) multi_plane_ops: u64,
}

/// What the engine's jobs did (measured phase).
#[derive(Clone, Debug, Default)]
pub struct JobCounters {
    /// Jobs started, per `JobKind`.
    pub started: [u64; N_JOB_KINDS],
    /// Page reads issued by jobs, per `JobKind`.
    pub page_reads: [u64; N_JOB_KINDS],
    /// Blocks erased by jobs, per `JobKind`.
    pub erases: [u64; N_JOB_KINDS],
    /// Migration sources skipped because they were not collectable when reached (free, open,
    /// or another job's victim).
    pub(crate) migrate_skipped_blocks: u64,
    /// Copies of a `Dest::Dies` job that stayed on their source die (no destination had room).
    pub(crate) fallback_copies: u64,
    /// Partial-GC steps requested (`Command::StepGc`).
    pub gc_steps: u64,
    /// Steps that found nothing to do: no victim, or a migration held the die.
    pub(crate) gc_steps_refused: u64,
    /// Parity programs that waited for a free block.
    pub(crate) parity_deferred: u64,
    /// Sources a copy-only migration emptied and left unerased (`Migration::erase_sources`).
    pub(crate) sources_left: u64,
    /// Waiting parity programs dropped because a block of their data was erased first (the
    /// stripe's data is gone; its scheme never hears of the parity page).
    pub(crate) parity_dropped: u64,
}

impl JobCounters {
    pub(crate) fn start(&mut self, kind: JobKind) {
        self.started[kind as usize] += 1;
    }
}
