//! ftlab's native trace format `ftlab-csv`: CSV with the header
//! `time_ns,op,offset_bytes,size_bytes,stream`, one request per line.
//!
//! - The header must be the first non-blank line (names compared case-insensitively); otherwise the error is
//!   "missing header". A repeated header later (concatenated files) is skipped. Lines starting with `#` are
//!   comments and are skipped.
//! - `time_ns` is an unsigned integer in nanoseconds (`ftlab capture` writes it relative to the first traced
//!   event); `op` is `read`, `write` or `trim` (any case); `offset_bytes` and `size_bytes` are bytes;
//!   `stream` is the virtual stream id (0..=65535). A trim carries a stream id too: the stream of the data it
//!   discards.
//! - [`write_header`] and [`write_record`] write the same format (what `ftlab capture` emits), so a written
//!   trace reads back record for record.
//!
//! Not here: the shared rules are in the `workload` module doc; nothing here opens a file.

use super::{
    checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;
use std::io::{self, Write};

/// Streaming ftlab-csv parser over any `BufRead`.
pub(crate) type FtlabCsvReader<R> = LineReader<R, FtlabCsv>;

const HEADER: [&str; 5] = ["time_ns", "op", "offset_bytes", "size_bytes", "stream"];
/// The header line, without its terminator.
pub(crate) const LAYOUT: &str = "time_ns,op,offset_bytes,size_bytes,stream";
const TIME: Field = Field::new(1, "time_ns");
const OP: Field = Field::new(2, "op");
const OFFSET: Field = Field::new(3, "offset_bytes");
const SIZE: Field = Field::new(4, "size_bytes");
const STREAM: Field = Field::new(5, "stream");
const OPS: [(&str, IoOp); 3] = [("read", IoOp::Read), ("write", IoOp::Write), ("trim", IoOp::Trim)];

/// The ftlab-csv line grammar; remembers whether the header was seen.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FtlabCsv {
    seen_header: bool,
}

fn is_header(line: &str) -> bool {
    let mut names = csv_fields(line);
    HEADER.iter().all(|h| names.next().is_some_and(|n| n.eq_ignore_ascii_case(h))) && names.next().is_none()
}

impl LineFormat for FtlabCsv {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        if line.trim_start().starts_with('#') {
            return Ok(None);
        }
        if is_header(line) {
            self.seen_header = true;
            return Ok(None);
        }
        if !self.seen_header {
            return Err(TraceErrorKind::MissingHeader { expected: &[LAYOUT], found: Some(line.to_string()) });
        }
        let [time, op, offset, size, stream] = exact_fields::<5>(csv_fields(line), LAYOUT)?;
        let record = TraceRecord {
            time: SimTime::from_ns(TIME.u64(time)?),
            op: OP.op(op, &OPS, "\"read\", \"write\" or \"trim\"")?,
            offset_bytes: OFFSET.u64(offset)?,
            size_bytes: SIZE.u64(size)?,
            stream: STREAM.u16(stream)?,
        };
        checked(record, SIZE)
    }

    fn finish(&mut self) -> Result<(), TraceErrorKind> {
        if self.seen_header {
            Ok(())
        } else {
            Err(TraceErrorKind::MissingHeader { expected: &[LAYOUT], found: None })
        }
    }
}

/// Write the header line.
pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{LAYOUT}")
}

/// Write one record as a line of the format.
pub fn write_record(out: &mut impl Write, r: &TraceRecord) -> io::Result<()> {
    let op = match r.op {
        IoOp::Read => "read",
        IoOp::Write => "write",
        IoOp::Trim => "trim",
    };
    writeln!(out, "{},{op},{},{},{}", r.time.ns(), r.offset_bytes, r.size_bytes, r.stream)
}
