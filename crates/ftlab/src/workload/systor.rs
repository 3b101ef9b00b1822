//! SNIA SYSTOR'17 enterprise VDI traces: CSV with the header
//! `Timestamp,Response,IOType,LUN,Offset,Size`.
//!
//! - The header must be the first non-blank line (names compared case-insensitively); otherwise the error is
//!   "missing header". A repeated header line later in the file (concatenated files) is skipped.
//! - `Timestamp` is seconds with a decimal fraction (`1456095145.133076000`), converted exactly to
//!   nanoseconds. `IOType` is `R` or `W` (any case); `Offset`, `Size` are bytes.
//! - `Response` (may be empty in real files) and `LUN` are not used; the stream is 0.
//!
//! Not here: the shared rules are in the `workload` module doc; nothing here opens a file.

use super::{
    checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming SYSTOR'17 parser over any `BufRead`.
pub(crate) type SystorReader<R> = LineReader<R, Systor>;

const HEADER: [&str; 6] = ["Timestamp", "Response", "IOType", "LUN", "Offset", "Size"];
const LAYOUT: &str = "Timestamp,Response,IOType,LUN,Offset,Size";
const TIMESTAMP: Field = Field::new(1, "Timestamp");
const IOTYPE: Field = Field::new(3, "IOType");
const OFFSET: Field = Field::new(5, "Offset");
const SIZE: Field = Field::new(6, "Size");

/// The SYSTOR'17 line grammar; remembers whether the header was seen.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Systor {
    seen_header: bool,
}

fn is_header(line: &str) -> bool {
    let mut names = csv_fields(line);
    HEADER.iter().all(|h| names.next().is_some_and(|n| n.eq_ignore_ascii_case(h))) && names.next().is_none()
}

impl LineFormat for Systor {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        if is_header(line) {
            self.seen_header = true;
            return Ok(None);
        }
        if !self.seen_header {
            return Err(TraceErrorKind::MissingHeader { expected: &[LAYOUT], found: Some(line.to_string()) });
        }
        let [ts, _response, io_type, _lun, offset, size] = exact_fields::<6>(csv_fields(line), LAYOUT)?;
        let op = IOTYPE.op(io_type, &[("R", IoOp::Read), ("W", IoOp::Write)], "\"R\" or \"W\"")?;
        let record = TraceRecord {
            time: SimTime::from_ns(TIMESTAMP.decimal_ns(ts, 1_000_000_000)?),
            op,
            offset_bytes: OFFSET.u64(offset)?,
            size_bytes: SIZE.u64(size)?,
            stream: 0,
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
