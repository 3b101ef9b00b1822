//! MSR Cambridge block traces (SNIA IOTTA): CSV without a header,
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! - `Timestamp` is a Windows FILETIME (100 ns ticks since 1601): time = ticks * 100 ns.
//! - `Type` is `Read` or `Write` (any letter case); `Offset` and `Size` are bytes.
//! - `Hostname`, `DiskNumber` and `ResponseTime` are not used (each MSR file is one disk, so the stream is 0)
//!   and not validated beyond the field count.
//!
//! Not here: the shared rules (blank lines, errors, zero sizes) are in the `workload`
//! module doc; nothing here opens a file.

use super::{
    checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming MSR parser over any `BufRead`.
pub(crate) type MsrReader<R> = LineReader<R, Msr>;

const LAYOUT: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";
const TIMESTAMP: Field = Field::new(1, "Timestamp");
const TYPE: Field = Field::new(4, "Type");
const OFFSET: Field = Field::new(5, "Offset");
const SIZE: Field = Field::new(6, "Size");

/// The MSR line grammar (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Msr;

impl LineFormat for Msr {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let [ts, _host, _disk, ty, offset, size, _response] = exact_fields::<7>(csv_fields(line), LAYOUT)?;
        let time = TIMESTAMP.scale(TIMESTAMP.u64(ts)?, 100, "ticks of 100 ns")?;
        let op = TYPE.op(ty, &[("Read", IoOp::Read), ("Write", IoOp::Write)], "\"Read\" or \"Write\"")?;
        let record = TraceRecord {
            time: SimTime::from_ns(time),
            op,
            offset_bytes: OFFSET.u64(offset)?,
            size_bytes: SIZE.u64(size)?,
            stream: 0,
        };
        checked(record, SIZE)
    }
}
