//! MQSim ASCII traces: whitespace-separated `arrival_ns device lba size_sectors type`.
//!
//! - `arrival_ns` is an unsigned integer in nanoseconds (MQSim's default time unit).
//! - `lba` and `size_sectors` count 512-byte sectors; offset = lba * 512, size = size_sectors * 512.
//! - `type` is `1` for a read and `0` for a write; anything else is an error.
//! - `device` is not used (and not validated): the stream is 0.
//!
//! Not here: the DiskSim / SSDsim ASCII variant (`time_ms device block size_blocks flags`,
//! time in fractional milliseconds, flags bit 0 = read). The `disksim` and `ssdsim` format
//! names are aliases of this parser and read MQSim's convention; nothing in a line tells the
//! two apart reliably, so a fractional time is rejected with a hint rather than guessed at.
//! Convert DiskSim traces first. The shared rules are in the `workload` module doc.

use super::{checked, exact_fields, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord};
use crate::sim::time::SimTime;

/// Streaming MQSim parser over any `BufRead`.
pub(crate) type MqsimReader<R> = LineReader<R, Mqsim>;

const LAYOUT: &str = "arrival_ns device lba size_sectors type";
const ARRIVAL: Field = Field::new(1, "arrival_ns");
const LBA: Field = Field::new(3, "lba");
const SIZE: Field = Field::new(4, "size_sectors");
const TYPE: Field = Field::new(5, "type");

/// The MQSim line grammar (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mqsim;

fn arrival_ns(text: &str) -> Result<u64, TraceErrorKind> {
    ARRIVAL.u64(text).map_err(|e| {
        if text.contains('.') {
            TraceErrorKind::Hint {
                kind: Box::new(e),
                hint: "MQSim times are integer nanoseconds; DiskSim's fractional milliseconds are not read",
            }
        } else {
            e
        }
    })
}

impl LineFormat for Mqsim {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let [time, _device, lba, size, ty] = exact_fields::<5>(line.split_ascii_whitespace(), LAYOUT)?;
        let time = arrival_ns(time)?;
        let op = TYPE.op(ty, &[("1", IoOp::Read), ("0", IoOp::Write)], "1 (read) or 0 (write)")?;
        let record = TraceRecord {
            time: SimTime::from_ns(time),
            op,
            offset_bytes: LBA.sectors(lba)?,
            size_bytes: SIZE.sectors(size)?,
            stream: 0,
        };
        checked(record, SIZE)
    }
}
