//! Flash timing: array latencies and channel transfer rates, and the arithmetic that turns
//! bytes into bus time. Not the queueing (see `array` and `sched`).

use super::board::BoardConfig;
use crate::sim::time::SimTime;

/// Timing of one device, in nanoseconds and bus parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Array read (tR).
    pub read: SimTime,
    /// Array program (tPROG).
    pub program: SimTime,
    /// Block erase (tBERS).
    pub erase: SimTime,
    /// Command and address cycles on the bus before each operation.
    pub command: SimTime,
    /// Latency to suspend a program or erase, and again to resume it.
    pub suspend: SimTime,
    /// Bus transfer rate in mega-transfers per second.
    pub channel_mts: u32,
    /// Bus width in bits (8 or 16).
    pub channel_width_bits: u32,
    /// A read holds its channel from its command to the end of its transfer, tR included
    /// (`device.timing.read_holds_channel`): reads on one channel run one at a time, as on a
    /// controller whose dies share one page buffer per channel (Cosmos OpenSSD).
    pub read_holds_channel: bool,
    /// The Cosmos board's channel controller (`device.board`, the `cosmos` preset only): when
    /// set, it moves every page and checks every die's status in place of the channel bus
    /// (`channel_mts`, `read_holds_channel` and `suspend` are then unused by the array).
    pub board: Option<BoardConfig>,
}

impl Timing {
    /// Time to move `bytes` over one channel bus, rounded up to whole nanoseconds.
    /// bytes / (MT/s * width/8 bytes per transfer) seconds.
    pub(crate) fn transfer(&self, bytes: u32) -> SimTime {
        let bytes_per_s = self.channel_mts as u64 * 1_000_000 * (self.channel_width_bits as u64 / 8);
        let ns = (bytes as u64 * 1_000_000_000).div_ceil(bytes_per_s);
        SimTime(ns)
    }

    /// A page read's service time on the array and its channel: tR + one page's transfer of
    /// `page_bytes` (no command cycles).
    pub(crate) fn page_read(&self, page_bytes: u32) -> SimTime {
        self.read + self.transfer(page_bytes)
    }

    /// A page program's service time: tPROG + one page's transfer of `page_bytes` (no command
    /// cycles).
    pub(crate) fn page_program(&self, page_bytes: u32) -> SimTime {
        self.program + self.transfer(page_bytes)
    }
}
