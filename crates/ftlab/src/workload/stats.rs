//! `TraceStats`: summary statistics of a trace (`ftlab trace stats`). Not used by the simulator.

use serde::Serialize;

/// What `ftlab trace stats --json` prints; key names are part of the CLI contract.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Sum of request sizes, all operations.
    pub bytes: u64,
    /// Last timestamp minus first, in seconds.
    pub duration_s: f64,
    /// Distinct 4 KiB pages touched by any request.
    pub footprint_pages: u64,
    /// Lowest byte offset of any request.
    pub lba_min_bytes: u64,
    /// Highest byte offset reached by any request (offset + size - 1).
    pub lba_max_bytes: u64,
}
