//! Alibaba cloud block traces: CSV
//! `device_id,opcode,offset_bytes,length_bytes,timestamp_us`, no header.
//!
//! - `device_id` becomes the stream id (at most 65535).
//! - `opcode` is `R` or `W` (any case); `offset_bytes` and `length_bytes` are bytes.
//! - `timestamp_us` is microseconds (an integer in the published traces; a decimal fraction is accepted and
//!   converted exactly to nanoseconds).
//!
//! Not here: the shared rules are in the `workload` module doc; nothing here opens a file.

use super::{
    checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming Alibaba parser over any `BufRead`.
pub(crate) type AlibabaReader<R> = LineReader<R, Alibaba>;

const LAYOUT: &str = "device_id,opcode,offset_bytes,length_bytes,timestamp_us";
const DEVICE: Field = Field::new(1, "device_id");
const OPCODE: Field = Field::new(2, "opcode");
const OFFSET: Field = Field::new(3, "offset_bytes");
const LENGTH: Field = Field::new(4, "length_bytes");
const TIMESTAMP: Field = Field::new(5, "timestamp_us");

/// The Alibaba line grammar (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Alibaba;

impl LineFormat for Alibaba {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let [device, opcode, offset, length, ts] = exact_fields::<5>(csv_fields(line), LAYOUT)?;
        let stream = DEVICE.u16(device)?;
        let op = OPCODE.op(opcode, &[("R", IoOp::Read), ("W", IoOp::Write)], "\"R\" or \"W\"")?;
        let record = TraceRecord {
            time: SimTime::from_ns(TIMESTAMP.decimal_ns(ts, 1_000)?),
            op,
            offset_bytes: OFFSET.u64(offset)?,
            size_bytes: LENGTH.u64(length)?,
            stream,
        };
        checked(record, LENGTH)
    }
}
