//! FIU block traces (SNIA IOTTA: "FIU SRCMap" and "FIU IODedup", Florida International
//! University; the SRCMap (EuroSys 2010) and I/O Deduplication (FAST 2010) studies): ASCII,
//! whitespace-separated, no header, one request per line:
//!
//! `ts pid process lba size op major minor md5`, e.g.
//! `89966527724133 4312 nfsd 283193184 8 W 6 0 <32 hex digits>`.
//!
//! - `ts` is nanoseconds (an unsigned integer): time = ts ns.
//! - `lba` and `size` count 512-byte sectors: offset = lba * 512, size = size * 512.
//! - `op` is `R` (read) or `W` (write), in any letter case.
//! - `pid`, `process`, `major`, `minor` and the digest are not used (the stream is 0) and not validated
//!   beyond the field count. A file holding requests of several devices (different `major minor`) is read as
//!   one address space, as `msr` reads each file as one disk.
//! - A line needs at least the 9 fields. More are accepted and ignored: the README gives "MD5 per 4096 Bytes"
//!   (per 512 bytes in the `homes` traces), so a request longer than one digest's span may carry several.
//!   Consequence: a process name containing a space is not readable; its second word lands in `lba` and the
//!   line is rejected there. (A second word that is itself a number, followed by a number and `R`/`W`, would
//!   be misread: assumed not to occur; the trace samples quoted publicly have one-word names such as `nfsd`,
//!   `gzip`.)
//! - Nothing is skipped: every non-blank line is a request or an error.
//!
//! Sources:
//! - the record layout, its units (ts in ns, size in 512-byte blocks) and the digest span: the SNIA IOTTA
//!   README of the FIU traces (iotta.snia.org/traces/block-io/411, "The traces files (one per day) are in
//!   ASCII and each record is as follows: [ts in ns] [pid] [process] [lba] [size in 512 Bytes blocks] [Write
//!   or Read] [major device number] [minor device number] [MD5 per 4096 Bytes]"), read through a mirror of
//!   that page;
//! - `R`/`W` as the spelling of "Write or Read", and the lba in 512-byte units: two independent public
//!   readers of these traces (a cache simulator's C trace reader documenting "logical block address (lba) and
//!   size (based on blocks of size 512 bytes)", and a C++ reader quoting the sample line `89968195792462
//!   20782 gzip 283193184 8 R 6 0 <md5>`).
//!
//! Assumed (not stated by the README): the SRCMap traces use the same layout as the IODedup
//! ones (same group, same tooling); `lba` counts 512-byte sectors like `size`.
//!
//! Not here: the shared rules (blank lines, CRLF, zero sizes, no monotonicity check, errors)
//! are in the `workload` module doc; nothing here opens a file.

use super::{checked, first_fields, Arity, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord};
use crate::sim::time::SimTime;

/// Streaming FIU parser over any `BufRead`.
pub(crate) type FiuReader<R> = LineReader<R, Fiu>;

const LAYOUT: &str = "ts pid process lba size op major minor md5";
const TS: Field = Field::new(1, "ts");
const LBA: Field = Field::new(4, "lba");
const SIZE: Field = Field::new(5, "size");
const OP: Field = Field::new(6, "op");

/// The FIU line grammar (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fiu;

impl LineFormat for Fiu {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let ([ts, _pid, _process, lba, size, op, _major, _minor, _md5], count) =
            first_fields::<9>(line.split_ascii_whitespace());
        if count < 9 {
            return Err(TraceErrorKind::FieldCount {
                expected: Arity::AtLeast(9),
                layout: LAYOUT,
                found: count,
            });
        }
        let time = TS.u64(ts)?;
        let offset = LBA.sectors(lba)?;
        let size_bytes = SIZE.sectors(size)?;
        let op = OP.op(op, &[("R", IoOp::Read), ("W", IoOp::Write)], "\"R\" or \"W\"")?;
        let record =
            TraceRecord { time: SimTime::from_ns(time), op, offset_bytes: offset, size_bytes, stream: 0 };
        checked(record, SIZE)
    }
}
