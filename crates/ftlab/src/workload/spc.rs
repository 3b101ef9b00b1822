//! SPC trace file format (UMass Financial, WebSearch): CSV
//! `asu,lba,size_bytes,opcode,timestamp_s`, e.g. `0,303567,3584,w,0.000000`.
//!
//! - `asu` (application specific unit) becomes the stream id (at most 65535).
//! - `lba` counts 512-byte sectors: offset = lba * 512. `size_bytes` is bytes.
//! - `opcode` is `r` or `w` (any case). `timestamp_s` is seconds with a decimal fraction, converted exactly
//!   to nanoseconds.
//! - The SPC specification makes the five fields above mandatory and allows optional fields after them: those
//!   are ignored. It also declares a size of 0 legal: such records carry no data and are skipped and counted
//!   (`TraceReader::skipped`), not reported as errors (unlike the other formats).
//!
//! Not here: the shared rules are in the `workload` module doc; nothing here opens a file.

use super::{
    checked, csv_fields, first_fields, Arity, Field, IoOp, LineFormat, LineReader, TraceErrorKind,
    TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming SPC parser over any `BufRead`.
pub(crate) type SpcReader<R> = LineReader<R, Spc>;

const LAYOUT: &str = "asu,lba,size_bytes,opcode,timestamp_s[,optional...]";
const ASU: Field = Field::new(1, "asu");
const LBA: Field = Field::new(2, "lba");
const SIZE: Field = Field::new(3, "size_bytes");
const OPCODE: Field = Field::new(4, "opcode");
const TIMESTAMP: Field = Field::new(5, "timestamp_s");

/// The SPC line grammar; counts the zero-size records it skips.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Spc {
    skipped: u64,
}

impl LineFormat for Spc {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let ([asu, lba, size, opcode, ts], count) = first_fields::<5>(csv_fields(line));
        if count < 5 {
            return Err(TraceErrorKind::FieldCount {
                expected: Arity::AtLeast(5),
                layout: LAYOUT,
                found: count,
            });
        }
        let stream = ASU.u16(asu)?;
        let offset = LBA.sectors(lba)?;
        let size = SIZE.u64(size)?;
        let op = OPCODE.op(opcode, &[("r", IoOp::Read), ("w", IoOp::Write)], "\"r\" or \"w\"")?;
        let time = TIMESTAMP.decimal_ns(ts, 1_000_000_000)?;
        if size == 0 {
            self.skipped += 1;
            return Ok(None);
        }
        let record =
            TraceRecord { time: SimTime::from_ns(time), op, offset_bytes: offset, size_bytes: size, stream };
        checked(record, SIZE)
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}
