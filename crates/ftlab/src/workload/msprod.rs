//! SNIA IOTTA "Microsoft Production Server Traces" (Kavalanekar, Worthington, Zhang, Sharda,
//! "Characterization of storage workload traces from production Windows servers", IISWC 2008:
//! DAP, DTRS, LM-TBE, MSN, Exchange, RADIUS, ...): CSV exports of Windows ETW (Event Tracing
//! for Windows) kernel traces, as the `xperf` trace dumper writes them. Format name `msprod`.
//!
//! Layout. A header block comes first: a `BeginHeader` line, one line per event kind naming
//! its columns, an `EndHeader` line. Then one event per line, comma-separated, the event kind
//! first; fields are padded with spaces. Only `DiskRead` and `DiskWrite` events are requests:
//!
//! `DiskRead|DiskWrite, TimeStamp, Process Name ( PID), ThreadID, IrpPtr, ByteOffset, IOSize,
//! ElapsedTime, DiskNum, IrpFlags, DiskSvcTime, I/O Pri, VolSnap, FileObject, FileName`
//!
//! - `TimeStamp` is microseconds since the start of the trace (an integer; a decimal fraction is accepted and
//!   converted exactly): time = TimeStamp × 1000 ns.
//! - `ByteOffset` and `IOSize` are bytes, written in hexadecimal with a `0x` prefix (`0x00001000` = 4096); a
//!   decimal number there is an error, not a guess.
//! - `DiskNum` becomes the stream id (at most 65535), as the volume id of `tencent` and the ASU of `spc`; a
//!   trace of several disks is otherwise read as one address space (there is no disk filter, as no other
//!   format has one).
//! - The other columns are not used and not validated. A line needs at least the 15 columns; more are
//!   accepted, since `FileName` (the last) may itself contain commas.
//! - Skipped on purpose: every other event kind (`DiskReadInit`, `DiskWriteInit`, `DiskFlush`,
//!   `DiskFlushInit`, `FileIo*`, `HardFault`, process, thread and context-switch events, ...), and the header
//!   lines. A further `BeginHeader` ... `EndHeader` block after events (dumps concatenated) is skipped too.
//! - Checked: the first non-blank line must be `BeginHeader` ("missing header" otherwise), a header block
//!   must end with `EndHeader`, and where the header names the columns of `DiskRead` or `DiskWrite` they must
//!   be the ones above (compared ignoring case and spaces), so that a dump with another column order is
//!   rejected rather than misread.
//!
//! Sources (no specification of these files by SNIA or Microsoft was found; the layout is the
//! header the files carry, as quoted by others):
//! - the column lists: the SNIA IOTTA README of the Microsoft TPC-E ETW traces (same authors, same tooling),
//!   section "Disk- and File-related Trace Event Headers (found at beginning of file)"; the `BeginHeader` ...
//!   `EndHeader` block: a trace-conversion tool's README quoting the head of a "Microsoft Server Trace"
//!   (iotta.snia.org/traces/block-io/158);
//! - hexadecimal `ByteOffset` and `IOSize`: three independent readers of these files (a Java reader of
//!   `MSNStorageFileServer` samples, two Python loaders) strip a `0x` and parse base 16;
//! - microseconds: Microsoft's xperf command-line reference, topic "format": "Event timestamps in the xperf
//!   trace dump are always presented in microseconds" (a later Windows 8.1 copy of that page says
//!   milliseconds; the 2008 traces predate it), and the Stony Brook SNIA DataSeries converter
//!   (`pre-processor`, mode `mps`), which divides `TimeStamp` and `ElapsedTime` by 10^6 to get seconds.
//!
//! Not here: the shared rules (blank lines, CRLF, zero sizes, errors) are in the `workload`
//! module doc; nothing here opens a file.

use super::{
    checked, csv_fields, first_fields, Arity, Field, HeaderBlock, IoOp, LineFormat, LineReader,
    TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming Microsoft production-server trace parser over any `BufRead`.
pub(crate) type MsprodReader<R> = LineReader<R, Msprod>;

const LAYOUT: &str = "DiskRead|DiskWrite, TimeStamp, Process Name ( PID), ThreadID, IrpPtr, ByteOffset, \
                      IOSize, ElapsedTime, DiskNum, IrpFlags, DiskSvcTime, I/O Pri, VolSnap, FileObject, \
                      FileName";
/// The columns of a `DiskRead` / `DiskWrite` line after the event kind.
const COLUMNS: [&str; 14] = [
    "TimeStamp",
    "Process Name ( PID)",
    "ThreadID",
    "IrpPtr",
    "ByteOffset",
    "IOSize",
    "ElapsedTime",
    "DiskNum",
    "IrpFlags",
    "DiskSvcTime",
    "I/O Pri",
    "VolSnap",
    "FileObject",
    "FileName",
];
const BEGIN: &str = "BeginHeader";
const END: &str = "EndHeader";
const TIMESTAMP: Field = Field::new(2, "TimeStamp");
const BYTE_OFFSET: Field = Field::new(6, "ByteOffset");
const IO_SIZE: Field = Field::new(7, "IOSize");
const DISK_NUM: Field = Field::new(9, "DiskNum");

/// Where the reader is in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Nothing read yet: the next line must be `BeginHeader`.
    #[default]
    Start,
    /// Between `BeginHeader` and `EndHeader`.
    Header,
    /// After `EndHeader`: event lines.
    Events,
}

/// The line grammar; remembers whether it is in a header block.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Msprod {
    state: State,
}

/// The request kind of an event line, `None` for the kinds that are not requests.
fn disk_op(kind: &str) -> Option<IoOp> {
    match kind {
        "DiskRead" => Some(IoOp::Read),
        "DiskWrite" => Some(IoOp::Write),
        _ => None,
    }
}

/// Column names compared ignoring ASCII case and whitespace (`Process Name ( PID)`).
fn same_name(a: &str, b: &str) -> bool {
    fn squeezed(s: &str) -> impl Iterator<Item = char> + '_ {
        s.chars().filter(|c| !c.is_whitespace()).map(|c| c.to_ascii_lowercase())
    }
    squeezed(a).eq(squeezed(b))
}

/// A header line: if it names the columns of `DiskRead` or `DiskWrite`, they must be ours.
fn check_header_line(line: &str) -> Result<(), TraceErrorKind> {
    let mut fields = csv_fields(line);
    let kind = fields.next().unwrap_or("");
    if disk_op(kind).is_none() {
        return Ok(());
    }
    let mut count = 1;
    for (i, name) in fields.enumerate() {
        count += 1;
        match COLUMNS.get(i) {
            Some(want) if same_name(name, want) => {}
            Some(want) => {
                return Err(TraceErrorKind::HeaderColumn {
                    field: Field::new(i + 2, want),
                    event: kind.to_string(),
                    found: name.to_string(),
                    layout: LAYOUT,
                });
            }
            None => {}
        }
    }
    if count != COLUMNS.len() + 1 {
        return Err(TraceErrorKind::HeaderColumnCount {
            event: kind.to_string(),
            found: count,
            expected: COLUMNS.len() + 1,
            layout: LAYOUT,
        });
    }
    Ok(())
}

/// A `DiskRead` or `DiskWrite` line.
fn parse_event(op: IoOp, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
    let (f, count) = first_fields::<15>(csv_fields(line));
    if count < 15 {
        return Err(TraceErrorKind::FieldCount {
            expected: Arity::AtLeast(15),
            layout: LAYOUT,
            found: count,
        });
    }
    let record = TraceRecord {
        time: SimTime::from_ns(TIMESTAMP.decimal_ns(f[1], 1_000)?),
        op,
        offset_bytes: BYTE_OFFSET.hex_u64(f[5])?,
        size_bytes: IO_SIZE.hex_u64(f[6])?,
        stream: DISK_NUM.u16(f[8])?,
    };
    checked(record, IO_SIZE)
}

impl LineFormat for Msprod {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let marker = line.trim();
        match (self.state, marker) {
            (State::Start | State::Events, BEGIN) => self.state = State::Header,
            (State::Start, _) => {
                return Err(TraceErrorKind::MissingHeader {
                    expected: &[BEGIN],
                    found: Some(line.to_string()),
                })
            }
            (State::Header, END) => self.state = State::Events,
            (State::Header, BEGIN) => return Err(TraceErrorKind::HeaderBlock(HeaderBlock::NestedBegin)),
            (State::Header, _) => check_header_line(line)?,
            (State::Events, END) => return Err(TraceErrorKind::HeaderBlock(HeaderBlock::EndWithoutBegin)),
            (State::Events, _) => {
                let kind = csv_fields(line).next().unwrap_or("");
                if let Some(op) = disk_op(kind) {
                    return parse_event(op, line);
                }
            }
        }
        Ok(None)
    }

    fn finish(&mut self) -> Result<(), TraceErrorKind> {
        match self.state {
            State::Start => Err(TraceErrorKind::MissingHeader { expected: &[BEGIN], found: None }),
            State::Header => Err(TraceErrorKind::HeaderBlock(HeaderBlock::Unterminated)),
            State::Events => Ok(()),
        }
    }
}
