//! The metrics sink of the engine: every counter, histogram and series the run measures —
//! per-tenant metrics, device and job counters, the scheme's epoch counters, the time series,
//! per-stream and wear measurements, the measured phases — and what preconditioning left
//! (its wear, its erases). Invariant: one entry per tenant in every per-tenant table
//! (`check`). The paths that count are the engine's (`host`, `jobs`, `commands`, `copy`,
//! `die`, ...); what is measured and how is in `metrics/`.

use crate::metrics::lifetime::WearCounters;
use crate::metrics::phase::Phase;
use crate::metrics::streams::StreamStats;
use crate::metrics::timeseries::TimeSeries;
use crate::metrics::{DeviceCounters, JobCounters, TenantMetrics};
use crate::policy::EpochStats;
use crate::scenario::Scenario;
use crate::scheme::Scheme;
use crate::sim::time::SimTime;
use crate::stream::StreamMapper;

/// What the run measures.
pub(super) struct MetricsSink {
    pub(super) metrics: Vec<TenantMetrics>,
    pub(super) device: DeviceCounters,
    pub(super) job_counts: JobCounters,
    /// The counters of the scheme's epoch in progress (policies see them).
    pub(super) epoch: EpochStats,
    pub(super) ts: TimeSeries,
    /// Per-stream measurements (every mapper, measured by the engine).
    pub(super) streams: StreamStats,
    /// Erases of the measured phase per die and per tenant (lifetime metrics).
    pub(super) wear: WearCounters,
    /// `[[measure.phases]]`, in scenario order.
    pub(super) phases: Vec<Phase>,
    /// Die busy time when the measured phase started.
    pub(super) busy_at_measure: Vec<u64>,
    /// Erase count of every block when preconditioning ended.
    pub(super) erase_precondition: Option<Vec<u32>>,
    pub(super) precondition_erases: u64,
    /// What the closed-form fill wrote (`precondition.overwrites = "closed_form"`).
    pub(super) closed_form: Option<crate::metrics::report::ClosedFormReport>,
}

impl MetricsSink {
    /// The measurements of `s` (namespaces `ns`) under `scheme` and `mapper`, whose series
    /// join the time series.
    pub(super) fn new(
        s: &Scenario,
        ns: &[u32],
        scheme: &dyn Scheme,
        mapper: &dyn StreamMapper,
        names: Vec<String>,
    ) -> MetricsSink {
        let n_dies = s.geometry().n_dies as usize;
        let n_tenants = s.tenants.len();
        let window = SimTime::from_secs_f64(s.measure.window_s);
        let warmup = SimTime::from_secs_f64(s.measure.warmup_s);
        let stream_series = mapper.stream_series();
        let mut extra = scheme.series_names().to_vec();
        if stream_series {
            extra.extend(crate::metrics::streams::series_names());
        }
        MetricsSink {
            metrics: s.tenants.iter().map(|t| TenantMetrics::new(window, warmup, t.task_names())).collect(),
            device: DeviceCounters::default(),
            job_counts: JobCounters::default(),
            epoch: EpochStats::new(n_tenants, n_dies),
            ts: TimeSeries::new(window, names, extra),
            streams: StreamStats::new(ns, stream_series, s.measure.stream_lifetimes),
            wear: WearCounters::new(n_dies, n_tenants, s.device.pe_cycles),
            phases: s
                .measure
                .phases
                .iter()
                .map(|p| {
                    Phase::new(
                        p.name.clone(),
                        SimTime::from_secs_f64(p.start_s),
                        p.end_s.map_or(SimTime::MAX, SimTime::from_secs_f64),
                        n_tenants,
                    )
                })
                .collect(),
            busy_at_measure: vec![0; n_dies],
            erase_precondition: None,
            precondition_erases: 0,
            closed_form: None,
        }
    }

    /// The measured phase starts: every counter restarts (latencies are filtered by arrival);
    /// `die_busy_ns` is each die's busy time so far.
    pub(super) fn start_measuring(&mut self, die_busy_ns: &[u64]) {
        for m in &mut self.metrics {
            m.reset_counters();
        }
        self.device = DeviceCounters::default();
        self.job_counts = JobCounters::default();
        self.wear.reset();
        self.streams.start_measuring();
        self.busy_at_measure = die_busy_ns.to_vec();
    }

    /// The part's invariants (tests).
    pub(super) fn check(&self, n_tenants: usize) {
        assert_eq!(self.metrics.len(), n_tenants, "one metrics entry per tenant");
        assert_eq!(self.epoch.host_units.len(), n_tenants, "one epoch counter per tenant");
        assert_eq!(self.epoch.gc_units.len(), n_tenants, "one epoch GC counter per tenant");
        for p in &self.phases {
            assert!(
                p.read.len() == n_tenants && p.write.len() == n_tenants,
                "phase {} counts every tenant",
                p.name
            );
        }
    }
}
