//! Metrics (DESIGN §8): per-tenant latency histograms and counters, device counters, the
//! time series of fixed windows, and the Report (`report`). Collects what the simulation
//! tells it; decides nothing.

pub mod latency;
pub mod report;
pub mod timeseries;

use latency::LatencyHist;

/// Latency and volume of one (tenant, operation).
#[derive(Clone, Debug, Default)]
pub struct OpStats {
    pub hist: LatencyHist,
    pub bytes: u64,
}

/// Everything measured for one tenant.
#[derive(Clone, Debug, Default)]
pub struct TenantMetrics {
    pub read: OpStats,
    pub write: OpStats,
    pub trim: OpStats,
    /// Mapping units written by the host (measured phase).
    pub host_units: u64,
    /// Mapping units of this tenant's data copied by GC (measured phase).
    pub gc_units: u64,
    /// Units read that were never written (or trimmed): served without flash access.
    pub unmapped_reads: u64,
    /// Units read whose page was not yet programmed: served from the controller's buffer.
    pub buffer_reads: u64,
}

/// Device-wide counters (measured phase).
#[derive(Clone, Debug, Default)]
pub struct DeviceCounters {
    pub host_units: u64,
    /// Flash pages programmed, host and GC, padding included.
    pub flash_pages_programmed: u64,
    pub gc_units: u64,
    pub erases: u64,
    /// Host flash-page reads issued.
    pub flash_reads: u64,
    /// Reads rebuilt from parity (PaRT-FTL); 0 for schemes without parity.
    pub rebuilt_reads: u64,
    /// Programs and erases suspended for a host read.
    pub suspensions: u64,
    /// Operations that ran as the second (third, fourth) plane of a multi-plane operation.
    pub multi_plane_ops: u64,
}
