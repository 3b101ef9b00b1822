//! Tencent CBS block traces (SNIA IOTTA): CSV
//! `timestamp_s,offset_sectors,size_sectors,io_type,volume_id`, no header.
//!
//! - `timestamp_s` is seconds (an integer in the published traces; a decimal fraction is accepted and
//!   converted exactly to nanoseconds).
//! - `offset_sectors` and `size_sectors` count 512-byte sectors.
//! - `io_type` is `1` for a write and `0` for a read (note: the opposite of MQSim).
//! - `volume_id` becomes the stream id; a volume id above 65535 is an error.
//!
//! Not here: the shared rules are in the `workload` module doc; nothing here opens a file.

use super::{
    checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming Tencent CBS parser over any `BufRead`.
pub(crate) type TencentReader<R> = LineReader<R, Tencent>;

const LAYOUT: &str = "timestamp_s,offset_sectors,size_sectors,io_type,volume_id";
const TIMESTAMP: Field = Field::new(1, "timestamp_s");
const OFFSET: Field = Field::new(2, "offset_sectors");
const SIZE: Field = Field::new(3, "size_sectors");
const IO_TYPE: Field = Field::new(4, "io_type");
const VOLUME: Field = Field::new(5, "volume_id");

/// The Tencent CBS line grammar (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tencent;

impl LineFormat for Tencent {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let [ts, offset, size, io_type, volume] = exact_fields::<5>(csv_fields(line), LAYOUT)?;
        let time = TIMESTAMP.decimal_ns(ts, 1_000_000_000)?;
        let op = IO_TYPE.op(io_type, &[("0", IoOp::Read), ("1", IoOp::Write)], "0 (read) or 1 (write)")?;
        let record = TraceRecord {
            time: SimTime::from_ns(time),
            op,
            offset_bytes: OFFSET.sectors(offset)?,
            size_bytes: SIZE.sectors(size)?,
            stream: VOLUME.u16(volume)?,
        };
        checked(record, SIZE)
    }
}
