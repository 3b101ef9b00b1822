//! The flash array's busy time: one array operation at a time per die, one transfer at a
//! time per channel bus. It answers "when does this phase end", given that the caller starts
//! operations only on idle dies. It does not queue or choose operations (see `sched`).

use super::board::Board;
use super::geometry::{DieIdx, Geometry, PLANES_MAX};
use super::timing::Timing;
use crate::sim::time::SimTime;

/// The kind of an array operation, with what the bus must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayOp {
    /// Read a page; `bytes` leave the die over the bus after tR.
    Read { bytes: u32 },
    /// Program a page: `bytes` enter the die over the bus, then tPROG.
    Program { bytes: u32 },
    /// Erase a block.
    Erase,
}

/// Busy state of every die and channel bus.
#[derive(Clone, Debug)]
pub struct FlashArray {
    timing: Timing,
    bus_free_at: Vec<SimTime>,
    die_busy_since: Vec<Option<SimTime>>,
    die_busy_ns: Vec<u64>,
    /// `timing.transfer(k * unit_bytes)` for `k` up to a multi-plane group's units (every
    /// read's and program's bytes), worked out once: the hot paths divide no more.
    xfer_of_units: Vec<SimTime>,
    /// `log2(unit_bytes)` (a power of two by validation).
    unit_shift: u32,
    /// Each die's channel (`Geometry::channel_of`), worked out once.
    channel_of_die: Vec<u32>,
    /// The Cosmos board's way arbiters (`timing.board`); the engine drives them (die.rs).
    board: Option<Board>,
}

impl FlashArray {
    pub fn new(geometry: Geometry, timing: Timing) -> FlashArray {
        FlashArray {
            timing,
            bus_free_at: vec![SimTime::ZERO; geometry.channels as usize],
            die_busy_since: vec![None; geometry.n_dies as usize],
            die_busy_ns: vec![0; geometry.n_dies as usize],
            xfer_of_units: (0..=geometry.units_per_page * PLANES_MAX)
                .map(|k| timing.transfer(k * geometry.unit_bytes))
                .collect(),
            unit_shift: geometry.unit_bytes.trailing_zeros(),
            channel_of_die: (0..geometry.n_dies).map(|d| geometry.channel_of(DieIdx(d))).collect(),
            board: timing.board.map(|b| Board::new(&geometry, &b)),
        }
    }

    /// `timing.transfer(bytes)`, from the table where `bytes` is a whole number of units.
    #[inline]
    fn transfer(&self, bytes: u32) -> SimTime {
        let k = (bytes >> self.unit_shift) as usize;
        match self.xfer_of_units.get(k) {
            Some(&t) if (k as u32) << self.unit_shift == bytes => t,
            _ => self.timing.transfer(bytes),
        }
    }

    #[inline]
    pub(crate) fn timing(&self) -> &Timing {
        &self.timing
    }

    /// The Cosmos board, when the device has one: a read's or erase's array phase (`begin`)
    /// then uses no bus, and the engine asks the board for every transfer and status check.
    #[inline]
    pub(crate) fn board_mut(&mut self) -> Option<&mut Board> {
        self.board.as_mut()
    }

    #[inline]
    pub(crate) fn has_board(&self) -> bool {
        self.board.is_some()
    }

    #[inline]
    pub(crate) fn is_busy(&self, die: DieIdx) -> bool {
        self.die_busy_since[die.0 as usize].is_some()
    }

    /// Start `op` on idle `die` at `now`. Returns when its array phase ends: for a read,
    /// the data is then in the die's register and needs `read_transfer`; for a program or
    /// an erase, the operation is complete.
    pub fn begin(&mut self, die: DieIdx, op: ArrayOp, now: SimTime) -> SimTime {
        self.begin_after(die, op, now, SimTime::ZERO)
    }

    /// `begin`, with the die first busy for `delay` (e.g. suspending another operation).
    pub(crate) fn begin_after(&mut self, die: DieIdx, op: ArrayOp, now: SimTime, delay: SimTime) -> SimTime {
        self.occupy(die, now);
        let now = now + delay;
        let t = &self.timing;
        let (command, read, program) = (t.command, t.read, t.program);
        match op {
            ArrayOp::Read { bytes } if t.read_holds_channel => {
                let start = self.take_bus(die, now, command + read + self.transfer(bytes));
                start + command + read
            }
            ArrayOp::Read { .. } => now + command + read,
            ArrayOp::Program { bytes } => {
                let xfer = self.transfer(bytes);
                let start = self.take_bus(die, now, command + xfer);
                start + command + xfer + program
            }
            ArrayOp::Erase => now + command + self.timing.erase,
        }
    }

    /// Mark idle `die` busy from `now` with an operation whose timing the caller tracks
    /// (a resumed program or erase).
    #[inline]
    pub(crate) fn occupy(&mut self, die: DieIdx, now: SimTime) {
        let d = die.0 as usize;
        assert!(self.die_busy_since[d].is_none(), "die {} started while busy", die.0);
        self.die_busy_since[d] = Some(now);
    }

    /// A read's array phase ended at `now`: move `bytes` out over the channel bus as soon as
    /// it is free (or at once, when the read already holds the bus). Returns when the
    /// transfer ends.
    #[inline]
    pub fn read_transfer(&mut self, die: DieIdx, bytes: u32, now: SimTime) -> SimTime {
        assert!(self.is_busy(die), "read transfer on idle die {}", die.0);
        let xfer = self.transfer(bytes);
        if self.timing.read_holds_channel {
            return now + xfer;
        }
        self.take_bus(die, now, xfer) + xfer
    }

    /// The operation on `die` completed at `now`; the die is idle again.
    #[inline]
    pub fn end(&mut self, die: DieIdx, now: SimTime) {
        let d = die.0 as usize;
        let since = self.die_busy_since[d].take().expect("end on an idle die");
        self.die_busy_ns[d] += (now - since).ns();
    }

    /// Nanoseconds each die has been busy so far (completed operations only).
    pub(crate) fn die_busy_ns(&self) -> &[u64] {
        &self.die_busy_ns
    }

    #[inline]
    fn take_bus(&mut self, die: DieIdx, now: SimTime, span: SimTime) -> SimTime {
        let ch = self.channel_of_die[die.0 as usize] as usize;
        let start = self.bus_free_at[ch].max(now);
        self.bus_free_at[ch] = start + span;
        start
    }
}
