//! The host side of one tenant: its workload source (a trace or a generator) turned into
//! `HostRequest`s in the tenant's namespace: address mapping (wrap, scale, reject), time
//! scaling (trace times are rebased on the first record, synthetic ones are taken as they
//! are) and the tenant's start and stop times. Queueing, replay modes and completion are
//! in `simulation::host`. Reads no file: a trace arrives as a `RecordStream`.

use crate::error::{FtlabError, TraceError, TraceErrorKind};
use crate::sim::time::round_u64;
use crate::sim::time::SimTime;
use crate::workload::periodic::PeriodicStream;
use crate::workload::synthetic::SyntheticStream;
use crate::workload::{IoOp, RecordStream, TraceRecord};
use serde::{Deserialize, Serialize};

/// How trace addresses outside the namespace are handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMap {
    /// Offset modulo the namespace size.
    #[default]
    Wrap,
    /// Offsets scaled by namespace size / `lba_max_bytes`.
    Scale,
    /// An address past the namespace is an error naming the trace line.
    Reject,
}

/// `HostRequest::task` of a request that belongs to no periodic task.
pub(crate) const NO_TASK: u16 = u16::MAX;

/// The latest arrival a run accepts: 10^7 simulated seconds (about 116 days), the same bound
/// the scenario puts on durations.
pub(crate) const ARRIVAL_MAX: SimTime = SimTime(10_000_000 * 1_000_000_000);

/// One host request, in mapping units of its tenant's namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRequest {
    /// When it arrives (for closed-loop replay: overwritten at submission).
    pub arrival: SimTime,
    pub(crate) op: IoOp,
    pub(crate) first_lpn: u32,
    /// Units covered; unit `i` is `(first_lpn + i) % namespace_units`.
    pub(crate) n_units: u32,
    pub(crate) bytes: u64,
    pub(crate) stream: u16,
    /// Absolute deadline (`SimTime::MAX`: none); its flash operations inherit it (EDF).
    pub(crate) deadline: SimTime,
    /// Periodic task it is a job of, or `NO_TASK`.
    pub(crate) task: u16,
}

impl HostRequest {
    /// Unit `i` of the request in a namespace of `ns` units: `(first_lpn + i) % ns`, without
    /// the division when the sum is already below `ns` (nearly always).
    #[inline(always)]
    pub(crate) fn unit_lpn(&self, i: u32, ns: u32) -> u32 {
        let x = self.first_lpn + i;
        if x < ns {
            x
        } else {
            x % ns
        }
    }
}

/// Where a tenant's requests come from.
pub enum Records<'a> {
    Trace(RecordStream<'a>),
    /// A synthetic workload; its record times are already relative to the tenant's start
    /// (not rebased on the first record, so a part's `start_s` offset is kept).
    Synthetic(Box<SyntheticStream>),
    /// Periodic real-time tasks; times and deadlines relative to the tenant's start.
    Periodic(Box<PeriodicStream>),
    /// No request at all: a neighbour silenced in a solo run (`measure.solo`), whose
    /// namespace, share and preconditioned data stay while its workload does not run.
    Silent,
}

/// How a source maps its records into the namespace and onto the simulated clock.
#[derive(Clone, Debug)]
pub struct SourceParams {
    /// Shown in errors (the trace path, or "synthetic").
    pub name: String,
    pub namespace_units: u32,
    pub unit_bytes: u32,
    pub address_map: AddressMap,
    /// For `scale`: the highest byte address of the trace.
    pub lba_max_bytes: u64,
    pub time_scale: f64,
    pub start: SimTime,
    /// Requests arriving at or after this are not issued.
    pub end: Option<SimTime>,
    pub max_requests: Option<u64>,
    /// Address-range stream rules `(first byte, end byte, virtual stream)` in the namespace;
    /// the first that holds a request's first byte sets its stream.
    pub stream_rules: Vec<(u64, u64, u16)>,
}

/// A tenant's stream of `HostRequest`s.
pub struct Source<'a> {
    records: Records<'a>,
    p: SourceParams,
    first_time: Option<SimTime>,
    last_arrival: SimTime,
    issued: u64,
    /// Records read but not issued because they arrive at or after the tenant's end.
    cut: u64,
    /// Records whose timestamp went backwards (replayed at their predecessor's time).
    pub(crate) reordered: u64,
}

impl<'a> Source<'a> {
    pub fn new(records: Records<'a>, p: SourceParams) -> Source<'a> {
        assert!(p.namespace_units > 0 && p.time_scale > 0.0);
        let last_arrival = p.start;
        // A trace's times are rebased on its first record; a generator's start at zero.
        let first_time = match records {
            Records::Trace(_) => None,
            Records::Synthetic(_) | Records::Periodic(_) | Records::Silent => Some(SimTime::ZERO),
        };
        Source { records, p, first_time, last_arrival, issued: 0, cut: 0, reordered: 0 }
    }

    /// Trace records read so far that were well formed but carried no request (a format's
    /// counted skips, e.g. vscsi's non-READ/WRITE SCSI commands); 0 for generators.
    pub(crate) fn skipped_records(&self) -> u64 {
        match &self.records {
            Records::Trace(r) => r.skipped(),
            Records::Synthetic(_) | Records::Periodic(_) | Records::Silent => 0,
        }
    }

    /// Request records of the trace not replayed: the ones cut at the tenant's end, `pending`
    /// more (issued by `next_request` but not arrived when the run stopped: the caller's
    /// look-ahead), and every request record left in the trace, which this reads to its end
    /// (a malformed line there is an error, as in a full replay). Records the format skips are
    /// not counted. 0 for generators, whose end is their configuration, not a cut.
    pub(crate) fn records_not_replayed(&mut self, pending: u64) -> Result<u64, FtlabError> {
        let Records::Trace(s) = &mut self.records else { return Ok(0) };
        let mut n = self.cut + pending;
        for r in s.by_ref() {
            match r {
                Ok(_) => n += 1,
                Err(e) => return Err(e.in_file(&self.p.name).into()),
            }
        }
        Ok(n)
    }

    /// A request issued by `next_request` and dropped at the tenant's end (closed-loop replay
    /// past its stop time): counted as not replayed.
    pub(crate) fn drop_at_end(&mut self) {
        self.cut += 1;
    }

    /// The next request, `Ok(None)` when the source is exhausted or past its end time.
    pub fn next_request(&mut self) -> Result<Option<HostRequest>, FtlabError> {
        if self.p.max_requests.is_some_and(|m| self.issued >= m) {
            return Ok(None);
        }
        let (record, deadline, task) = match &mut self.records {
            Records::Trace(s) => match s.next() {
                None => return Ok(None),
                Some(Err(e)) => return Err(e.in_file(&self.p.name).into()),
                Some(Ok(r)) => (r, SimTime::MAX, NO_TASK),
            },
            Records::Synthetic(g) => match g.next() {
                None => return Ok(None),
                Some(r) => (r, SimTime::MAX, NO_TASK),
            },
            Records::Periodic(p) => match p.next() {
                None => return Ok(None),
                Some(j) => (j.record, self.p.start + j.deadline, j.task),
            },
            Records::Silent => return Ok(None),
        };
        let arrival = self.arrival(record.time)?;
        if self.p.end.is_some_and(|end| arrival >= end) {
            self.cut += 1;
            return Ok(None);
        }
        self.issued += 1;
        let (first_lpn, n_units) = self.map_address(&record)?;
        let bytes = record.size_bytes;
        let stream = self.stream_of(first_lpn, record.stream);
        Ok(Some(HostRequest { arrival, op: record.op, first_lpn, n_units, bytes, stream, deadline, task }))
    }

    /// Whether `now` is at or past the tenant's stop time (closed-loop replay checks this at
    /// each submission, since its records carry no arrival time).
    pub(crate) fn past_end(&self, now: SimTime) -> bool {
        self.p.end.is_some_and(|end| now >= end)
    }

    fn arrival(&mut self, time: SimTime) -> Result<SimTime, FtlabError> {
        let first = *self.first_time.get_or_insert(time);
        let d = time.ns().saturating_sub(first.ns());
        // With time_scale 1 and start + d below 2^53, every floating-point step below is exact
        // (d x 1.0 = d; start + d is a double below ARRIVAL_MAX; its rounding is itself), so
        // the arrival is start + d: the same value without the conversions.
        const EXACT_NS: u64 = 1 << 53;
        if self.p.time_scale == 1.0 && d < EXACT_NS && self.p.start.ns() < EXACT_NS - d {
            return Ok(self.reorder(self.p.start + SimTime(d)));
        }
        let rel = d as f64 * self.p.time_scale;
        if self.p.start.ns() as f64 + rel > ARRIVAL_MAX.ns() as f64 {
            return Err(self.error(TraceErrorKind::ArrivalPastLimit {
                at_s: (self.p.start.ns() as f64 + rel) / 1e9,
                limit_s: ARRIVAL_MAX.ns() / 1_000_000_000,
            }));
        }
        Ok(self.reorder(self.p.start + SimTime(round_u64(rel))))
    }

    /// An arrival earlier than the last one is replayed at the last one's time (counted).
    #[inline]
    fn reorder(&mut self, mut arrival: SimTime) -> SimTime {
        if arrival < self.last_arrival {
            self.reordered += 1;
            arrival = self.last_arrival;
        }
        self.last_arrival = arrival;
        arrival
    }

    /// A trace error of this source's file at the line last read.
    fn error(&self, kind: TraceErrorKind) -> FtlabError {
        TraceError { file: self.p.name.clone(), line: self.line(), kind }.into()
    }

    fn line(&self) -> u64 {
        match &self.records {
            Records::Trace(s) => s.line(),
            Records::Synthetic(_) | Records::Periodic(_) | Records::Silent => self.issued,
        }
    }

    /// The virtual stream of a request starting at `first_lpn`: the first stream rule's that
    /// holds its first byte, else the record's.
    #[inline]
    fn stream_of(&self, first_lpn: u32, record_stream: u16) -> u16 {
        let byte = first_lpn as u64 * self.p.unit_bytes as u64;
        self.p
            .stream_rules
            .iter()
            .find(|&&(lo, hi, _)| lo <= byte && byte < hi)
            .map_or(record_stream, |r| r.2)
    }

    fn map_address(&self, r: &TraceRecord) -> Result<(u32, u32), FtlabError> {
        let unit = self.p.unit_bytes as u64;
        let ns_bytes = self.p.namespace_units as u64 * unit;
        let size = r.size_bytes.max(1);
        let offset = match self.p.address_map {
            // The same value without the division when the offset is inside the namespace (a
            // generator's always are).
            AddressMap::Wrap if r.offset_bytes < ns_bytes => r.offset_bytes,
            AddressMap::Wrap => r.offset_bytes % ns_bytes,
            AddressMap::Scale => {
                let scaled = r.offset_bytes as u128 * ns_bytes as u128 / (self.p.lba_max_bytes as u128 + 1);
                scaled as u64
            }
            AddressMap::Reject => {
                if r.offset_bytes.saturating_add(size) > ns_bytes {
                    return Err(self.error(TraceErrorKind::OutsideNamespace {
                        start_bytes: r.offset_bytes,
                        end_bytes: r.offset_bytes.saturating_add(size),
                        namespace_bytes: ns_bytes,
                    }));
                }
                r.offset_bytes
            }
        };
        let (first, last) = if unit.is_power_of_two() {
            // Units are nearly always a power of two: shifts and a mask, the same values as
            // the divisions below.
            let shift = unit.trailing_zeros();
            let first = offset >> shift;
            (first, (((r.offset_bytes & (unit - 1)) + size - 1) >> shift) + first)
        } else {
            let first = offset / unit;
            (first, (r.offset_bytes % unit + size - 1) / unit + first)
        };
        let n_units = last - first + 1;
        if n_units > self.p.namespace_units as u64 {
            return Err(self.error(TraceErrorKind::LargerThanNamespace {
                size_bytes: size,
                n_units,
                namespace_units: self.p.namespace_units,
                namespace_bytes: ns_bytes,
            }));
        }
        Ok((first as u32, n_units as u32))
    }
}
