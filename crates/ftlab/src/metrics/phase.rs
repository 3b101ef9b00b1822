//! Measurement phases (`[[measure.phases]]`): named intervals of simulated time inside the
//! measured phase, each with its own read and write latency histograms (of requests that
//! arrived in it), per-tenant WAF and the dies' busy fractions. They answer "before and after
//! the workload changed" without a second run. What this is not: a restart of the run's
//! counters (the whole measured phase is still reported as before), nor a time series (that
//! is `timeseries`, at a fixed window).

use super::OpStats;
use crate::sim::time::SimTime;

/// The cumulative counters a phase takes differences of, at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Snapshot {
    /// Per tenant: host units written, units of its data copied by jobs.
    pub(crate) host_units: Vec<u64>,
    pub(crate) gc_units: Vec<u64>,
    pub(crate) flash_pages_programmed: u64,
    pub(crate) erases: u64,
    /// Per die: busy time so far.
    pub(crate) die_busy_ns: Vec<u64>,
    pub(crate) at: SimTime,
}

/// One phase while the run goes on.
#[derive(Clone, Debug)]
pub(crate) struct Phase {
    pub(crate) name: String,
    pub(crate) start: SimTime,
    /// `SimTime::MAX` for a phase that lasts to the end of the run.
    pub(crate) end: SimTime,
    /// Per tenant.
    pub(crate) read: Vec<OpStats>,
    pub(crate) write: Vec<OpStats>,
    pub(crate) at_start: Option<Snapshot>,
    pub(crate) at_end: Option<Snapshot>,
}

impl Phase {
    pub(crate) fn new(name: String, start: SimTime, end: SimTime, n_tenants: usize) -> Phase {
        assert!(start < end, "phase {name} is empty");
        Phase {
            name,
            start,
            end,
            read: vec![OpStats::default(); n_tenants],
            write: vec![OpStats::default(); n_tenants],
            at_start: None,
            at_end: None,
        }
    }

    /// Whether a request that arrived at `arrival` belongs to this phase.
    #[inline]
    pub(crate) fn contains(&self, arrival: SimTime) -> bool {
        arrival >= self.start && arrival < self.end
    }

    /// What the phase measured, given the snapshots at its two ends.
    pub(crate) fn result(&self, units_per_page: u32) -> PhaseResult {
        let a = self.at_start.as_ref().expect("a phase that started");
        let b = self.at_end.as_ref().expect("a phase that ended");
        assert!(b.at >= a.at, "phase {} ends before it starts", self.name);
        let span_ns = (b.at - a.at).ns();
        let diff = |x: &[u64], y: &[u64]| -> Vec<u64> { x.iter().zip(y).map(|(&x, &y)| y - x).collect() };
        let util = a
            .die_busy_ns
            .iter()
            .zip(&b.die_busy_ns)
            .map(|(&x, &y)| if span_ns == 0 { 0.0 } else { (y - x) as f64 / span_ns as f64 })
            .collect();
        PhaseResult {
            name: self.name.clone(),
            start: a.at,
            end: b.at,
            read: self.read.clone(),
            write: self.write.clone(),
            host_units: diff(&a.host_units, &b.host_units),
            gc_units: diff(&a.gc_units, &b.gc_units),
            flash_pages_programmed: b.flash_pages_programmed - a.flash_pages_programmed,
            erases: b.erases - a.erases,
            die_utilisation: util,
            units_per_page,
        }
    }
}

/// What one phase measured (`summary.json`: `schemes.<s>.phases.<name>`).
#[derive(Clone, Debug)]
pub(crate) struct PhaseResult {
    pub(crate) name: String,
    pub(crate) start: SimTime,
    pub(crate) end: SimTime,
    /// Per tenant, of requests that arrived in the phase (completed by the end of the run).
    pub(crate) read: Vec<OpStats>,
    pub(crate) write: Vec<OpStats>,
    /// Per tenant, in the phase.
    pub(crate) host_units: Vec<u64>,
    pub(crate) gc_units: Vec<u64>,
    pub(crate) flash_pages_programmed: u64,
    pub(crate) erases: u64,
    /// Per die: busy fraction of the phase.
    pub(crate) die_utilisation: Vec<f64>,
    pub(crate) units_per_page: u32,
}
