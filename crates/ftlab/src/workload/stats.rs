//! `TraceStats`: summary statistics of a trace (`ftlab trace stats`), computed in one
//! streaming pass by [`trace_stats`]. Not used by the simulator, and it opens no file.
//!
//! The footprint is kept as page ranges that are merged as they accumulate, so memory grows
//! with the number of disjoint extents the trace touches, not with the number of requests
//! or pages (a sequential trace of any length needs a few ranges).

use super::{IoOp, LineError, RecordStream, TraceRecord};
use serde::Serialize;

/// Bytes per page of the footprint.
pub(crate) const PAGE_BYTES: u64 = 4096;

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
    /// Well-formed lines the parser skipped and counted (`vscsi`: SCSI commands other than
    /// READ/WRITE, zero-length transfers); see `TraceReader::skipped`. Filled in by
    /// [`trace_reader_stats`]; 0 from [`trace_stats`], which sees only records.
    pub skipped: u64,
}

/// Statistics of a whole trace, or its first error.
///
/// - `duration_s` is the latest minus the earliest timestamp (records need not be sorted).
/// - `bytes` sums all sizes (saturating at `u64::MAX`).
/// - `footprint_pages`, `lba_min_bytes` and `lba_max_bytes` count only requests of size > 0 (a zero-size trim
///   touches no byte); with none, all three are 0.
pub fn trace_stats(
    records: impl Iterator<Item = Result<TraceRecord, LineError>>,
) -> Result<TraceStats, LineError> {
    let mut acc = Accumulator::default();
    for record in records {
        acc.add(&record?);
    }
    Ok(acc.finish())
}

/// [`trace_stats`] of a parser, with `skipped` taken from it at the end.
pub fn trace_reader_stats(mut records: RecordStream<'_>) -> Result<TraceStats, LineError> {
    let mut stats = trace_stats(records.by_ref())?;
    stats.skipped = records.skipped();
    Ok(stats)
}

#[derive(Default)]
struct Accumulator {
    stats: TraceStats,
    time_min: Option<u64>,
    time_max: u64,
    lba_min: Option<u64>,
    pages: PageSet,
}

impl Accumulator {
    fn add(&mut self, r: &TraceRecord) {
        let s = &mut self.stats;
        s.requests += 1;
        match r.op {
            IoOp::Read => s.reads += 1,
            IoOp::Write => s.writes += 1,
            IoOp::Trim => s.trims += 1,
        }
        s.bytes = s.bytes.saturating_add(r.size_bytes);
        let t = r.time.ns();
        self.time_min = Some(self.time_min.map_or(t, |m| m.min(t)));
        self.time_max = self.time_max.max(t);
        if r.size_bytes > 0 {
            let last = r.offset_bytes.saturating_add(r.size_bytes - 1);
            self.lba_min = Some(self.lba_min.map_or(r.offset_bytes, |m| m.min(r.offset_bytes)));
            s.lba_max_bytes = s.lba_max_bytes.max(last);
            self.pages.insert(r.offset_bytes / PAGE_BYTES, last / PAGE_BYTES + 1);
        }
    }

    fn finish(mut self) -> TraceStats {
        let span_ns = self.time_min.map_or(0, |min| self.time_max - min);
        self.stats.duration_s = span_ns as f64 / 1e9;
        self.stats.lba_min_bytes = self.lba_min.unwrap_or(0);
        self.stats.footprint_pages = self.pages.count();
        self.stats
    }
}

/// A set of page numbers as half-open ranges `[start, end)`. Ranges are appended as they
/// come (extending the last one when they touch it) and sorted and merged whenever the
/// list has doubled since the last merge, so the cost is amortised O(log n) per insert.
#[derive(Default)]
struct PageSet {
    ranges: Vec<(u64, u64)>,
    merged_len: usize,
}

impl PageSet {
    const MIN_MERGE: usize = 1024;

    fn insert(&mut self, start: u64, end: u64) {
        if let Some(last) = self.ranges.last_mut() {
            if start >= last.0 && start <= last.1 {
                last.1 = last.1.max(end);
                return;
            }
        }
        self.ranges.push((start, end));
        if self.ranges.len() >= (2 * self.merged_len).max(Self::MIN_MERGE) {
            self.merge();
        }
    }

    /// Sort the ranges and merge those that overlap or touch.
    fn merge(&mut self) {
        self.ranges.sort_unstable();
        let mut out = 0;
        for i in 0..self.ranges.len() {
            let (start, end) = self.ranges[i];
            if out > 0 && start <= self.ranges[out - 1].1 {
                self.ranges[out - 1].1 = self.ranges[out - 1].1.max(end);
            } else {
                self.ranges[out] = (start, end);
                out += 1;
            }
        }
        self.ranges.truncate(out);
        self.merged_len = out;
    }

    fn count(&mut self) -> u64 {
        self.merge();
        self.ranges.iter().map(|&(start, end)| end - start).sum()
    }
}
