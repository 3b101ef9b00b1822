//! Workload inputs: trace parsers (one file per format, each over `impl BufRead`) and
//! synthetic generators (`generator.rs`, merged into multi-part workloads by `synthetic.rs`). Everything here
//! produces plain `TraceRecord`s; nothing here knows about the device, the FTL or the scheme, and nothing
//! here opens a file.
//!
//! Conventions shared by every parser (the machinery is [`LineReader`] and `Field`):
//! - Streaming: one reused line buffer, lines of at most [`MAX_LINE_BYTES`]; a parser never holds more than
//!   one line and a few counters, whatever the size of the trace.
//! - Blank lines (empty or only whitespace) are skipped everywhere; `\r\n` line ends are accepted. Headers
//!   and non-I/O lines are skipped where a format has them (see each module).
//! - Records come out in file order. Timestamps are converted to nanoseconds exactly (decimal fractions are
//!   split into integer and fraction digits, never rounded through a float; digits below 1 ns are truncated)
//!   and are not rebased, sorted or checked for monotonicity: real traces do go backwards now and then.
//! - A read or write of size 0 is an error (`size must be > 0`); a trim of size 0 is accepted. Where a format
//!   declares zero-size requests legal (SPC, vscsi), they are skipped. `offset + size` must fit in 64 bits.
//! - Errors name the 1-based line and, for a bad field, its 1-based position, its name and what was expected:
//!   `line 17: field 6 (Size): expected an unsigned integer, got "abc"`. After the first error the iterator
//!   is finished: it returns `None` from then on. The error is typed: a `LineError` holds the line and a
//!   `TraceErrorKind` (`error::trace`) with the column, the text found and what was expected; the edge that
//!   opened the file names it.

pub(crate) mod alibaba;
pub(crate) mod blkparse;
pub(crate) mod fio;
pub(crate) mod fiu;
pub(crate) mod ftlab_csv;
pub(crate) mod generator;
pub(crate) mod mqsim;
pub(crate) mod msprod;
pub(crate) mod msr;
pub(crate) mod periodic;
pub(crate) mod spc;
pub(crate) mod stats;
pub(crate) mod synthetic;
pub(crate) mod systor;
pub(crate) mod tencent;
pub(crate) mod vscsi;

use crate::error::trace::Column;
pub(crate) use crate::error::trace::{Arity, HeaderBlock, TraceErrorKind};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, ErrorKind, Read};
use std::iter::FusedIterator;

/// The operation a host request performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoOp {
    Read,
    Write,
    Trim,
}

/// One host request as read from a trace or produced by a generator.
///
/// `time` is the trace's own timestamp converted to nanoseconds; it is not rebased (the
/// host subtracts the first record's time). For closed-loop generators it is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: SimTime,
    pub op: IoOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// Virtual stream id (a trace column or a rule); 0 when the source has none.
    pub stream: u16,
}

/// A malformed trace line: its 1-based line and what is wrong (typed: `TraceErrorKind`).
/// The file name is added at the edge that opened the file (`error::TraceError`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct LineError {
    /// 1-based line number in the input.
    pub line: u64,
    pub kind: TraceErrorKind,
}

impl LineError {
    /// This error in file `file` (the edge that opened it names it).
    pub(crate) fn in_file(self, file: impl Into<String>) -> crate::error::TraceError {
        crate::error::TraceError { file: file.into(), line: self.line, kind: self.kind }
    }
}

/// A streaming parser: an iterator of records that also knows the line it last read (so
/// the host can name the line of a record it rejects).
pub trait TraceReader: Iterator<Item = Result<TraceRecord, LineError>> + Send {
    /// 1-based line number of the last line read (0 before the first).
    fn line(&self) -> u64;

    /// Records read so far that were well formed but deliberately not turned into requests,
    /// for formats that count them (`vscsi`: SCSI commands other than READ/WRITE and
    /// zero-length transfers). 0 for formats that skip nothing or do not count.
    fn skipped(&self) -> u64 {
        0
    }
}

/// A stream of trace records. Each parser is one of these over any `BufRead`.
pub(crate) type RecordStream<'a> = Box<dyn TraceReader + 'a>;

/// The trace formats ftlab reads. The names are the ones a user types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// MSR Cambridge CSV.
    Msr,
    /// MQSim / SSDsim ASCII (`disksim` and `ssdsim` are accepted as aliases).
    #[serde(alias = "disksim", alias = "ssdsim")]
    Mqsim,
    /// SNIA SYSTOR'17 CSV.
    Systor,
    /// SPC / UMass (Financial, WebSearch).
    Spc,
    /// Tencent CBS CSV.
    Tencent,
    /// Alibaba block-trace CSV.
    Alibaba,
    /// blkparse default text output (D events).
    Blkparse,
    /// fio iolog v2 / v3.
    Fio,
    /// SNIA Microsoft production-server traces: CSV exports of Windows ETW kernel traces.
    Msprod,
    /// FIU SRCMap / IODedup traces (`ts pid process lba size op major minor md5`).
    Fiu,
    /// CloudPhysics vscsi traces as CSV (`version,time,op,size,lbn`, SCSI opcodes).
    Vscsi,
    /// ftlab's own CSV `time_ns,op,offset_bytes,size_bytes,stream` (with trims and stream
    /// ids; what `ftlab capture` writes).
    #[serde(rename = "ftlab-csv")]
    FtlabCsv,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 12] = [
        TraceFormat::Msr,
        TraceFormat::Mqsim,
        TraceFormat::Systor,
        TraceFormat::Spc,
        TraceFormat::Tencent,
        TraceFormat::Alibaba,
        TraceFormat::Blkparse,
        TraceFormat::Fio,
        TraceFormat::Msprod,
        TraceFormat::Fiu,
        TraceFormat::Vscsi,
        TraceFormat::FtlabCsv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Systor => "systor",
            TraceFormat::Spc => "spc",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Fio => "fio",
            TraceFormat::Msprod => "msprod",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Vscsi => "vscsi",
            TraceFormat::FtlabCsv => "ftlab-csv",
        }
    }

    /// Parse a user-typed format name; `disksim` and `ssdsim` are aliases of `mqsim`.
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        match name {
            "disksim" | "ssdsim" => Some(TraceFormat::Mqsim),
            _ => TraceFormat::ALL.into_iter().find(|f| f.name() == name),
        }
    }
}

/// Open a streaming parser for `format` over `input`.
pub fn read_trace<'a, R: BufRead + Send + 'a>(format: TraceFormat, input: R) -> RecordStream<'a> {
    match format {
        TraceFormat::Msr => Box::new(msr::MsrReader::new(input)),
        TraceFormat::Mqsim => Box::new(mqsim::MqsimReader::new(input)),
        TraceFormat::Systor => Box::new(systor::SystorReader::new(input)),
        TraceFormat::Spc => Box::new(spc::SpcReader::new(input)),
        TraceFormat::Tencent => Box::new(tencent::TencentReader::new(input)),
        TraceFormat::Alibaba => Box::new(alibaba::AlibabaReader::new(input)),
        TraceFormat::Blkparse => Box::new(blkparse::BlkparseReader::new(input)),
        TraceFormat::Fio => Box::new(fio::FioReader::new(input)),
        TraceFormat::Msprod => Box::new(msprod::MsprodReader::new(input)),
        TraceFormat::Fiu => Box::new(fiu::FiuReader::new(input)),
        TraceFormat::Vscsi => Box::new(vscsi::VscsiReader::new(input)),
        TraceFormat::FtlabCsv => Box::new(ftlab_csv::FtlabCsvReader::new(input)),
    }
}

// ---------------------------------------------------------------------------------------
// Shared parsing machinery: the streaming line driver and the field helpers every format
// uses, so that the formats only describe their columns.
// ---------------------------------------------------------------------------------------

/// Longest accepted line in bytes, terminator included. A longer line is an error, which
/// keeps memory bounded even on a file without line breaks.
pub const MAX_LINE_BYTES: u64 = 64 * 1024;

/// Bytes per sector in the sector-addressed formats (MQSim, Tencent, SPC, blkparse, FIU,
/// vscsi).
pub(crate) const SECTOR_BYTES: u64 = 512;

/// One format's line grammar, driven by [`LineReader`].
pub(crate) trait LineFormat: Default {
    /// Parse one non-blank line, given without its line terminator. `Ok(None)`: the line is
    /// valid but carries no request (a header, a non-I/O event). `Err`: the reason, without
    /// the line number (the reader adds it).
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind>;

    /// Called once at the end of the input; a format with a mandatory header reports its
    /// absence here.
    fn finish(&mut self) -> Result<(), TraceErrorKind> {
        Ok(())
    }

    /// Well-formed lines skipped so far that a format counts (see [`TraceReader::skipped`]).
    fn skipped(&self) -> u64 {
        0
    }
}

/// The streaming reader behind every parser: reads `input` line by line into one reused
/// buffer, skips blank lines, hands the others to the format `F`, and numbers the errors.
/// Fused: after the first error (or the end) it returns `None`.
pub(crate) struct LineReader<R, F> {
    input: R,
    buf: String,
    line: u64,
    format: F,
    done: bool,
}

impl<R: BufRead, F: LineFormat> LineReader<R, F> {
    pub(crate) fn new(input: R) -> Self {
        LineReader { input, buf: String::with_capacity(256), line: 0, format: F::default(), done: false }
    }

    /// Read the next line into `buf`; `Ok(false)` at the end of the input.
    fn read_next(&mut self) -> Result<bool, TraceErrorKind> {
        self.buf.clear();
        let n = match (&mut self.input).take(MAX_LINE_BYTES).read_line(&mut self.buf) {
            Ok(n) => n as u64,
            Err(e) if e.kind() == ErrorKind::InvalidData => return Err(TraceErrorKind::NotUtf8),
            Err(e) => return Err(TraceErrorKind::Read { reason: e.to_string() }),
        };
        let at_eof = |input: &mut R| matches!(input.fill_buf(), Ok(rest) if rest.is_empty());
        if n == MAX_LINE_BYTES && !self.buf.ends_with('\n') && !at_eof(&mut self.input) {
            return Err(TraceErrorKind::LineTooLong { max_bytes: MAX_LINE_BYTES });
        }
        Ok(n > 0)
    }

    fn fail(&mut self, line: u64, kind: TraceErrorKind) -> Option<Result<TraceRecord, LineError>> {
        self.done = true;
        Some(Err(LineError { line, kind }))
    }
}

impl<R: BufRead, F: LineFormat> Iterator for LineReader<R, F> {
    type Item = Result<TraceRecord, LineError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.read_next() {
                Err(kind) => return self.fail(self.line + 1, kind),
                Ok(false) => {
                    self.done = true;
                    let end = self.line + 1;
                    return self.format.finish().err().map(|kind| Err(LineError { line: end, kind }));
                }
                Ok(true) => self.line += 1,
            }
            let text = self.buf.trim_end_matches(['\n', '\r']);
            if text.trim().is_empty() {
                continue;
            }
            match self.format.parse_line(text) {
                Ok(Some(record)) => return Some(Ok(record)),
                Ok(None) => {}
                Err(kind) => return self.fail(self.line, kind),
            }
        }
        None
    }
}

impl<R: BufRead, F: LineFormat> FusedIterator for LineReader<R, F> {}

impl<R: BufRead + Send, F: LineFormat + Send> TraceReader for LineReader<R, F> {
    fn line(&self) -> u64 {
        self.line
    }

    fn skipped(&self) -> u64 {
        self.format.skipped()
    }
}

/// The comma-separated fields of a line, each trimmed of surrounding whitespace.
pub(crate) fn csv_fields(line: &str) -> impl Iterator<Item = &str> {
    line.split(',').map(str::trim)
}

/// The first `N` items of `parts` (padded with `""`) and how many items there were in all.
pub(crate) fn first_fields<'a, const N: usize>(
    parts: impl Iterator<Item = &'a str>,
) -> ([&'a str; N], usize) {
    let mut fields = [""; N];
    let mut count = 0;
    for part in parts {
        if count < N {
            fields[count] = part;
        }
        count += 1;
    }
    (fields, count)
}

/// Exactly `N` fields, or an error naming the expected `layout` and the count found.
pub(crate) fn exact_fields<'a, const N: usize>(
    parts: impl Iterator<Item = &'a str>,
    layout: &'static str,
) -> Result<[&'a str; N], TraceErrorKind> {
    let (fields, count) = first_fields::<N>(parts);
    if count != N {
        return Err(TraceErrorKind::FieldCount { expected: Arity::Exactly(N), layout, found: count });
    }
    Ok(fields)
}

/// A column of a format: its 1-based position and its name, for error messages
/// (`error::trace::Column`). Its methods parse the column's text strictly (no signs, no
/// spaces, no exponents).
pub(crate) type Field = Column;

impl Field {
    pub(crate) const fn new(index: usize, name: &'static str) -> Field {
        Field { index, name }
    }

    /// `field 5 (Size): expected <expected>, got "<found>"`.
    pub(crate) fn error(self, expected: impl Into<String>, found: &str) -> TraceErrorKind {
        TraceErrorKind::BadField { field: self, expected: expected.into(), found: found.to_string() }
    }

    fn not_a_number(self, expected: &'static str, text: &str) -> TraceErrorKind {
        if text.starts_with('-') {
            TraceErrorKind::Negative { field: self, expected, found: text.to_string() }
        } else {
            self.error(expected, text)
        }
    }

    fn too_large(self, text: &str, hex: bool) -> TraceErrorKind {
        TraceErrorKind::TooLarge { field: self, found: text.to_string(), max: u64::MAX, hex }
    }

    /// A decimal unsigned integer that fits in 64 bits.
    pub(crate) fn u64(self, text: &str) -> Result<u64, TraceErrorKind> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.not_a_number("an unsigned integer", text));
        }
        text.bytes()
            .try_fold(0u64, |acc, b| acc.checked_mul(10)?.checked_add(u64::from(b - b'0')))
            .ok_or_else(|| self.too_large(text, false))
    }

    /// A hexadecimal unsigned integer with a `0x` (or `0X`) prefix, digits in either case,
    /// that fits in 64 bits (`0x00001000` = 4096).
    pub(crate) fn hex_u64(self, text: &str) -> Result<u64, TraceErrorKind> {
        let digits = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
        let Some(digits) = digits.filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit()))
        else {
            return Err(self.not_a_number("a hexadecimal number with a 0x prefix", text));
        };
        u64::from_str_radix(digits, 16).map_err(|_| self.too_large(text, true))
    }

    /// A stream id: an unsigned integer of at most 65535.
    pub(crate) fn u16(self, text: &str) -> Result<u16, TraceErrorKind> {
        let value = self.u64(text)?;
        u16::try_from(value).map_err(|_| TraceErrorKind::OutOfRange {
            field: self,
            value,
            max: u64::from(u16::MAX),
            what: "a stream id",
        })
    }

    /// `value * factor`, or an error saying that `value` `unit` overflow 64 bits.
    pub(crate) fn scale(self, value: u64, factor: u64, unit: &'static str) -> Result<u64, TraceErrorKind> {
        value.checked_mul(factor).ok_or(TraceErrorKind::ScaleOverflow { field: self, value, unit })
    }

    /// A count of 512-byte sectors, converted to bytes.
    pub(crate) fn sectors(self, text: &str) -> Result<u64, TraceErrorKind> {
        self.scale(self.u64(text)?, SECTOR_BYTES, "sectors of 512 bytes")
    }

    /// A non-negative decimal number (`123`, `123.`, `123.456`) in a unit of `unit_ns`
    /// nanoseconds (a power of ten: 1 s = 1_000_000_000), converted exactly to whole
    /// nanoseconds; fraction digits below 1 ns are dropped.
    pub(crate) fn decimal_ns(self, text: &str, unit_ns: u64) -> Result<u64, TraceErrorKind> {
        debug_assert!(unit_ns > 0 && 10u64.pow(unit_ns.ilog10()) == unit_ns, "unit {unit_ns}");
        let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(frac) {
            return Err(self.not_a_number("a non-negative decimal number", text));
        }
        let places = unit_ns.ilog10() as usize;
        let kept = &frac[..frac.len().min(places)];
        let frac_ns = kept.bytes().fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0'))
            * 10u64.pow((places - kept.len()) as u32);
        self.u64(whole)?
            .checked_mul(unit_ns)
            .and_then(|ns| ns.checked_add(frac_ns))
            .ok_or_else(|| TraceErrorKind::ClockOverflow { field: self, found: text.to_string() })
    }

    /// An operation code, matched case-insensitively against `codes`; `expected` lists them
    /// for the error message.
    pub(crate) fn op(
        self,
        text: &str,
        codes: &[(&str, IoOp)],
        expected: &str,
    ) -> Result<IoOp, TraceErrorKind> {
        codes
            .iter()
            .find(|(code, _)| code.eq_ignore_ascii_case(text))
            .map(|&(_, op)| op)
            .ok_or_else(|| self.error(expected, text))
    }
}

/// `record` if its size and range are acceptable (see the module doc); `size` is the
/// column the size came from, for the error message.
pub(crate) fn checked(record: TraceRecord, size: Field) -> Result<Option<TraceRecord>, TraceErrorKind> {
    if record.size_bytes == 0 && record.op != IoOp::Trim {
        return Err(TraceErrorKind::ZeroSize { field: size });
    }
    if record.offset_bytes.checked_add(record.size_bytes).is_none() {
        return Err(TraceErrorKind::AddressOverflow {
            field: size,
            offset_bytes: record.offset_bytes,
            size_bytes: record.size_bytes,
        });
    }
    Ok(Some(record))
}
