//! CloudPhysics vscsi traces (VMware ESXi `vscsiStats` command traces of production virtual
//! disks, the traces of Waldspurger et al., "Efficient MRC Construction with SHARDS", FAST'15),
//! in their published CSV form, one SCSI command per line: `version,time,op,size,lbn`, e.g.
//! `1,33898,2a,512,42932745`. Format name `vscsi`.
//!
//! - `version` is the trace record version, `1` or `2` (the two binary record layouts); it changes nothing
//!   here, and anything else is an error.
//! - `time` is in seconds (an integer in the published file; a decimal fraction is accepted and converted
//!   exactly): time = time x 10^9 ns.
//! - `op` is the SCSI operation code (the first byte of the command) in hexadecimal, without a prefix as
//!   published (`28`, `2a`, `88`, `8a`) or with one (`0x2a`); digits in either case; at most `ff`. It is
//!   never read as decimal: `28` is READ(10) (0x28), not 28 = 0x1c. Reads: READ(6) `08`, READ(10) `28`,
//!   READ(12) `a8`, READ(16) `88`. Writes: WRITE(6) `0a`, WRITE(10) `2a`, WRITE(12) `aa`, WRITE(16) `8a`, and
//!   WRITE AND VERIFY(10/12/16) `2e`, `ae`, `8e` (they write the data, then verify).
//! - `size` is the transfer length in bytes; `lbn` the first logical block, in 512-byte sectors: offset = lbn
//!   x 512.
//! - Skipped and counted (`TraceReader::skipped`, shown by `ftlab trace stats` as `skipped`): every other
//!   operation code (TEST UNIT READY `00`, INQUIRY `12`, SYNCHRONIZE CACHE `35`/`91`, UNMAP `42`, WRITE SAME,
//!   the variable-length `7f` whose service action is not in the trace, ...), and a read or write of size 0
//!   (legal in SCSI: a transfer length of 0 moves no data). A skipped line is still validated: all five
//!   fields must parse.
//! - An optional header line `version,time,op,size,lbn` (names in any case) is skipped wherever it appears
//!   (concatenated files); it is not counted.
//! - The stream is 0 (one file is one virtual disk).
//!
//! Sources (docs/scenario.md, "Trace formats", quotes them):
//! - the CSV form, its header and the bare hexadecimal opcodes: the CloudPhysics trace that libCacheSim
//!   publishes as CSV (`data/trace.csv`, header `version,time,op,size,lbn`, rows such as
//!   `1,33898,2a,512,42932745`);
//! - `time` in seconds: libCacheSim's FAQ ("In the trace.csv, the time unit is in sec"); that file's times
//!   run from 33898 to 41098, two hours of a production virtual disk, where microseconds would make 113
//!   thousand requests arrive within 7.2 ms. The binary records' `ts` is in microseconds (libCacheSim's
//!   `vscsi.h`: "trace uses microsec", divided by 10^6), so the CSV holds the binary time divided by 10^6;
//! - the record fields and the version as `ver >> 8` being 1 or 2: libCacheSim's vscsi reader (`vscsi.h`,
//!   "Created by CloudPhysics");
//! - `lbn` in 512-byte sectors and `len` in bytes: libCacheSim's vscsi preprocessing script ("the trace has
//!   sector size 512 bytes", lba = lbn x 512);
//! - the operation codes: the T10 SCSI operation-code list (t10.org/lists/op-num.htm).
//!
//! No variant with decimal opcodes was found, so none is offered: a decimal `40` would read as
//! 0x40 (not a read or a write: skipped and counted, so `skipped_records` shows it). Not done,
//! unlike one converter: an `lbn` of 0 is a normal request (block 0 exists), and a
//! READ(6)/WRITE(6) of size 0 is not read as 256 blocks (`size` is the bytes transferred).
//!
//! Not here: the shared rules (blank lines, CRLF, no monotonicity check, errors) are in the
//! `workload` module doc; nothing here opens a file.

use super::{
    checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord,
};
use crate::sim::time::SimTime;

/// Streaming vscsi CSV parser over any `BufRead`.
pub(crate) type VscsiReader<R> = LineReader<R, Vscsi>;

const HEADER: [&str; 5] = ["version", "time", "op", "size", "lbn"];
const LAYOUT: &str = "version,time,op,size,lbn";
const VERSION: Field = Field::new(1, "version");
const TIME: Field = Field::new(2, "time");
const OP: Field = Field::new(3, "op");
const SIZE: Field = Field::new(4, "size");
const LBN: Field = Field::new(5, "lbn");

const READS: [u8; 4] = [0x08, 0x28, 0xa8, 0x88];
const WRITES: [u8; 7] = [0x0a, 0x2a, 0xaa, 0x8a, 0x2e, 0xae, 0x8e];

/// The vscsi line grammar; counts the lines it skips.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Vscsi {
    skipped: u64,
}

fn is_header(line: &str) -> bool {
    let mut names = csv_fields(line);
    HEADER.iter().all(|h| names.next().is_some_and(|n| n.eq_ignore_ascii_case(h))) && names.next().is_none()
}

/// A SCSI operation code in hexadecimal, with or without a `0x` prefix, at most `ff`.
fn opcode(text: &str) -> Result<u8, TraceErrorKind> {
    let digits = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(OP.error("a SCSI operation code in hexadecimal (28, 2a or 0x2a)", text));
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 2 {
        return Err(TraceErrorKind::NotA {
            field: OP,
            found: text.to_string(),
            what: "a SCSI operation code (at most ff = 255)",
        });
    }
    Ok(u8::from_str_radix(if significant.is_empty() { "0" } else { significant }, 16)
        .expect("at most two hex digits"))
}

impl LineFormat for Vscsi {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        if is_header(line) {
            return Ok(None);
        }
        let [version, time, op, size, lbn] = exact_fields::<5>(csv_fields(line), LAYOUT)?;
        match VERSION.u64(version)? {
            1 | 2 => {}
            value => {
                let expected = "1 or 2 (the vscsi record version)";
                return Err(TraceErrorKind::NotAllowed { field: VERSION, value, expected });
            }
        }
        let time = TIME.decimal_ns(time, 1_000_000_000)?;
        let code = opcode(op)?;
        let size = SIZE.u64(size)?;
        let offset = LBN.sectors(lbn)?;
        let op = if READS.contains(&code) {
            IoOp::Read
        } else if WRITES.contains(&code) {
            IoOp::Write
        } else {
            self.skipped += 1;
            return Ok(None);
        };
        if size == 0 {
            self.skipped += 1;
            return Ok(None);
        }
        let record = TraceRecord {
            time: SimTime::from_ns(time),
            op,
            offset_bytes: offset,
            size_bytes: size,
            stream: 0,
        };
        checked(record, SIZE)
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}
