//! blkparse default text output (blktrace), reading only the `D` (issue to driver) events:
//! `maj,min cpu seq secs.nsecs pid action rwbs sector + count [process]`, e.g.
//! `  8,0    1       17     0.000123456  4242  D   W 2048 + 8 [fio]`.
//!
//! - time = `secs.nsecs` (seconds with 9 fraction digits, relative to the start of the trace), converted
//!   exactly to nanoseconds. offset = sector * 512, size = count * 512.
//! - `rwbs` (blkparse's `fill_rwbs`): one of `D` (discard), `W`, `R`, `N` (no data), with an optional leading
//!   `F` (flush) and trailing flags `F` (FUA), `A`, `S`, `M`; `B` and `E` (older barrier, secure erase) are
//!   also accepted. A `D` makes the event a trim, else `W` a write, else `R` a read.
//! - Skipped: every action other than `D`; `D` events without data (`N`, a count of 0, or no `sector + count`
//!   at all, as blkparse prints for zero-sector and SCSI pass-through requests); `Input file ... added`
//!   lines; and the summary blocks, which start at a `CPUn (dev):` or `Total (dev):` line and last until the
//!   next event line.
//! - The device, CPU, sequence number, pid and process are not used: the stream is 0 (a trace of several
//!   devices is read as one address space).
//!
//! Not here: custom `-f`/`-F` formats and blkparse's binary `-d` dumps are not read. The
//! shared rules are in the `workload` module doc; nothing here opens a file.

use super::{checked, first_fields, Arity, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord};
use crate::sim::time::SimTime;

/// Streaming blkparse parser over any `BufRead`.
pub(crate) type BlkparseReader<R> = LineReader<R, Blkparse>;

const LAYOUT: &str = "maj,min cpu seq time pid action rwbs sector + count [process]";
const DEVICE: Field = Field::new(1, "maj,min");
const TIME: Field = Field::new(4, "time");
const RWBS: Field = Field::new(7, "rwbs");
const SECTOR: Field = Field::new(8, "sector");
const PLUS: Field = Field::new(9, "+");
const COUNT: Field = Field::new(10, "count");

/// The blkparse line grammar; remembers whether it is inside a summary block.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Blkparse {
    in_summary: bool,
    /// Dispatch (`D`) events that carry no request: no data direction (`N`, a flush), no
    /// sector range, or zero sectors (`TraceReader::skipped`). Other actions (Q, G, I, C, ...)
    /// are the same requests' other events and are not counted.
    skipped: u64,
}

/// `8,0` / `259,1`: the first token of every event line.
fn is_device(token: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    token.split_once(',').is_some_and(|(major, minor)| digits(major) && digits(minor))
}

/// `CPU0 (8,0):` or `Total (sda):`, the first line of a summary block.
fn starts_summary(first: &str, line: &str) -> bool {
    (first == "Total" || first.strip_prefix("CPU").is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        && line.trim_end().ends_with("):")
}

/// The operation of a data-carrying `rwbs`, `None` for `N` (no data).
fn rwbs_op(rwbs: &str) -> Result<Option<IoOp>, TraceErrorKind> {
    if rwbs.is_empty() || !rwbs.bytes().all(|b| b"RWDNFASMBE".contains(&b)) {
        return Err(RWBS.error("R, W, D or N with optional F/A/S/M flags", rwbs));
    }
    Ok(if rwbs.contains('D') {
        Some(IoOp::Trim)
    } else if rwbs.contains('W') {
        Some(IoOp::Write)
    } else if rwbs.contains('R') {
        Some(IoOp::Read)
    } else if rwbs.contains('N') {
        None
    } else {
        return Err(RWBS.error("one of R, W, D or N", rwbs));
    })
}

/// `sector + count` from the (up to three) tokens after `rwbs`, of which there were
/// `rest_count`; `None` when the event has no sector range.
fn sector_range(rest: [&str; 3], rest_count: usize) -> Result<Option<(u64, u64)>, TraceErrorKind> {
    let [sector, plus, sectors] = rest;
    if rest_count == 0 {
        return Err(TraceErrorKind::FieldCount { expected: Arity::AtLeast(8), layout: LAYOUT, found: 7 });
    }
    let bracketed = |t: &str| t.starts_with('[') || t.starts_with('(');
    if bracketed(sector) || bracketed(plus) {
        return Ok(None); // zero sectors, or a pass-through request given in bytes
    }
    if plus != "+" {
        return Err(PLUS.error("\"+\" between sector and count", plus));
    }
    Ok(Some((SECTOR.sectors(sector)?, COUNT.sectors(sectors)?)))
}

impl Blkparse {
    fn parse_event(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let (head, count) = first_fields::<10>(line.split_ascii_whitespace());
        if count < 7 {
            return Err(TraceErrorKind::FieldCount {
                expected: Arity::AtLeast(7),
                layout: LAYOUT,
                found: count,
            });
        }
        let [_dev, _cpu, _seq, time, _pid, action, rwbs, sector, plus, sectors] = head;
        let time = TIME.decimal_ns(time, 1_000_000_000)?;
        if action != "D" {
            return Ok(None);
        }
        let op = rwbs_op(rwbs)?;
        let range = sector_range([sector, plus, sectors], count - 7)?;
        let (Some(op), Some((offset, size))) = (op, range.filter(|&(_, size)| size > 0)) else {
            self.skipped += 1;
            return Ok(None);
        };
        let record = TraceRecord {
            time: SimTime::from_ns(time),
            op,
            offset_bytes: offset,
            size_bytes: size,
            stream: 0,
        };
        checked(record, COUNT)
    }
}

impl LineFormat for Blkparse {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let first = line.split_ascii_whitespace().next().unwrap_or("");
        if is_device(first) {
            self.in_summary = false;
            return self.parse_event(line);
        }
        if starts_summary(first, line) {
            self.in_summary = true;
        }
        if self.in_summary || line.starts_with("Input file ") {
            return Ok(None);
        }
        Err(DEVICE.error(format!("an event line starting with maj,min ({LAYOUT})"), first))
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}
