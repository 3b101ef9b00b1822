//! CloudPhysics vscsi traces (VMware ESXi `vscsiStats` command traces of production virtual
//! disks, the traces of Waldspurger et al., "Efficient MRC Construction with SHARDS", FAST'15),
//! as CSV, one SCSI command per line: `version,time,op,size,lbn`, e.g.
//! `1,1339522000150,0x2a,8192,4096`. Format name `vscsi`.
//!
//! - `version` is the trace record version, `1` or `2` (the two binary record layouts); it
//!   changes nothing here, and anything else is an error.
//! - `time` is microseconds (an integer; a decimal fraction is accepted and converted
//!   exactly): time = time × 1000 ns.
//! - `op` is the SCSI operation code (the first byte of the command), in decimal (`42`) or in
//!   hexadecimal with a `0x` prefix (`0x2a`, either digit case); at most 255.
//!   Reads: READ(6) `0x08`, READ(10) `0x28`, READ(12) `0xa8`, READ(16) `0x88`.
//!   Writes: WRITE(6) `0x0a`, WRITE(10) `0x2a`, WRITE(12) `0xaa`, WRITE(16) `0x8a`, and
//!   WRITE AND VERIFY(10/12/16) `0x2e`, `0xae`, `0x8e` (they write the data, then verify).
//! - `size` is the transfer length in bytes; `lbn` the first logical block, in 512-byte
//!   sectors: offset = lbn × 512.
//! - Skipped and counted (`TraceReader::skipped`, shown by `ftlab trace stats` as
//!   `skipped`): every other operation code (TEST UNIT READY `0x00`, INQUIRY `0x12`,
//!   SYNCHRONIZE CACHE `0x35`/`0x91`, UNMAP `0x42`, WRITE SAME, the variable-length `0x7f`
//!   whose service action is not in the trace, ...), and a read or write of size 0 (legal in
//!   SCSI: a transfer length of 0 moves no data). A skipped line is still validated: all five
//!   fields must parse.
//! - An optional header line `version,time,op,size,lbn` (names in any case) is skipped
//!   wherever it appears (concatenated files); it is not counted.
//! - The stream is 0 (one file is one virtual disk).
//!
//! Sources:
//! - the record fields (`cmd`, `ver`, `len`, `lbn`, `ts`, in the two versions' binary
//!   layouts), `ts` in microseconds ("trace uses microsec", divided by 10^6 for seconds) and
//!   the version as `ver >> 8` being 1 or 2: libCacheSim's vscsi reader (`vscsi.h`, "Created by
//!   CloudPhysics"), and PyMimircache's copy of it;
//! - `lbn` in 512-byte sectors and `len` in bytes: libCacheSim's vscsi preprocessing script
//!   ("the trace has sector size 512 bytes", lba = lbn × 512, asserts len % 512 == 0), and the
//!   SHARDS paper's description of the traces as block I/O of virtual disks;
//! - the operation codes: the T10 SCSI operation-code list (t10.org/lists/op-num.htm), which
//!   both public converters of these traces cite; they also show that real traces contain
//!   non-I/O commands (they skip them: one drops `cmd == 0` and `lbn == 0`, the other every
//!   code outside READ/WRITE(6/10/12/16)).
//!
//! Assumed: the CSV column order `version,time,op,size,lbn` is the one the project was given
//! (no public specification of a CSV form was found; the published traces are binary), with
//! the binary fields' units unchanged. Not done, unlike one converter: an `lbn` of 0 is a
//! normal request (block 0 exists), and a READ(6)/WRITE(6) of size 0 is not read as 256
//! blocks (`size` is the bytes transferred, not the command's length field).
//!
//! Not here: the shared rules (blank lines, CRLF, no monotonicity check, errors) are in the
//! `workload` module doc; nothing here opens a file.

use super::{checked, csv_fields, exact_fields, Field, IoOp, LineFormat, LineReader, TraceRecord};
use crate::sim::time::SimTime;

/// Streaming vscsi CSV parser over any `BufRead`.
pub type VscsiReader<R> = LineReader<R, Vscsi>;

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
pub struct Vscsi {
    skipped: u64,
}

fn is_header(line: &str) -> bool {
    let mut names = csv_fields(line);
    HEADER.iter().all(|h| names.next().is_some_and(|n| n.eq_ignore_ascii_case(h))) && names.next().is_none()
}

/// A SCSI operation code, decimal or `0x` hexadecimal, at most 255.
fn opcode(text: &str) -> Result<u8, String> {
    let value = if text.starts_with("0x") || text.starts_with("0X") {
        OP.hex_u64(text)?
    } else if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() {
        OP.u64(text)?
    } else {
        return Err(OP.error("a SCSI operation code (decimal, or hexadecimal with a 0x prefix)", text));
    };
    u8::try_from(value).map_err(|_| format!("{OP}: {text:?} is not a SCSI operation code (at most 255 = 0xff)"))
}

impl LineFormat for Vscsi {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, String> {
        if is_header(line) {
            return Ok(None);
        }
        let [version, time, op, size, lbn] = exact_fields::<5>(csv_fields(line), LAYOUT)?;
        match VERSION.u64(version)? {
            1 | 2 => {}
            v => return Err(format!("{VERSION}: expected 1 or 2 (the vscsi record version), got {v}")),
        }
        let time = TIME.decimal_ns(time, 1000)?;
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
        let record = TraceRecord { time: SimTime::from_ns(time), op, offset_bytes: offset, size_bytes: size, stream: 0 };
        checked(record, SIZE)
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}
