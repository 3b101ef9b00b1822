//! The Cosmos OpenSSD board's channel controller (PaRT-FTL paper §II-A, §V-A, §VI-A), selected
//! by the `cosmos` preset only: per channel one 2 KiB page buffer that the dies (ways) reach
//! through a round-robin way arbiter, so a page crosses it in `page / 2 KiB` transfers, each a
//! separate grant; and a status check of the die, itself a grant, after each array phase.
//! `BoardConfig` holds the knobs (fitted to Table I, docs/devices/cosmos.md); `Board` is the
//! arbiter's state, with no allocation after `Board::new`. The engine asks for a die's bus
//! phase (`request`), and on each grant's end (`grant_end`) learns whether that die's phase
//! is over and when the channel's next grant ends.

use serde::{Deserialize, Serialize};

use super::geometry::{DieIdx, Geometry};
use crate::sim::time::SimTime;

/// `[device.board]`: the Cosmos board's channel controller. Only the `cosmos` preset selects
/// it (validation refuses it elsewhere); its keys may then be changed one by one. The defaults
/// are the fit to Table I of the PaRT-FTL paper (`flash::cosmos_fit`, docs/devices/cosmos.md).
/// A read is tR on the die, then a status check and `page / buffer_bytes` transfers through
/// the page buffer; a program is its transfers, then tPROG, then a status check; an erase is
/// tBERS, then a status check. Every transfer and status check is one grant of the channel's
/// way arbiter, which serves the channel's dies in turn (round robin, one grant each).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BoardConfig {
    /// The page buffer's data bytes (§VI-A: "The page buffer stores 2 KB of data"): a page
    /// crosses it in `page_bytes / buffer_bytes` transfers, rounded up. Default 2048.
    pub buffer_bytes: u32,
    /// One transfer of `buffer_bytes` between the die and DRAM through the page buffer, ECC
    /// and the shared buses, in microseconds (one grant; reads and programs alike). Default
    /// 42 (fitted).
    pub transfer_us: f64,
    /// One status check of a die over the shared bus, in microseconds (one grant, after each
    /// read, program or erase; §II-A: "the extra time comes from performing status checks on
    /// the different flash chips"). Default 133 (fitted).
    pub status_us: f64,
}

impl Default for BoardConfig {
    fn default() -> BoardConfig {
        BoardConfig { buffer_bytes: 2048, transfer_us: 42.0, status_us: 133.0 }
    }
}

impl BoardConfig {
    /// The reason `self` is not a valid board for pages of `page_bytes`, if any.
    pub(crate) fn check(&self, page_bytes: u32) -> Result<(), (String, String)> {
        if self.buffer_bytes == 0 || page_bytes.div_ceil(self.buffer_bytes) > u8::MAX as u32 / 4 {
            return Err((
                "buffer_bytes".into(),
                format!(
                    "must be at least page_bytes / 63 ({}), got {}",
                    page_bytes.div_ceil(63),
                    self.buffer_bytes
                ),
            ));
        }
        for (k, v) in [("transfer_us", self.transfer_us), ("status_us", self.status_us)] {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                return Err((k.into(), format!("must be in [0, 1e6] microseconds, got {v}")));
            }
        }
        Ok(())
    }
}

/// What a die waits on the bus for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusPhase {
    /// A read's data out: a status check, then `bytes` through the page buffer.
    ReadOut { bytes: u32 },
    /// A program's data in (`bytes` through the page buffer), before tPROG.
    ProgramIn { bytes: u32 },
    /// A status check after a program's or erase's array phase.
    Status,
}

/// The way arbiters of every channel.
#[derive(Clone, Debug)]
pub struct Board {
    buffer_bytes: u32,
    transfer: SimTime,
    status: SimTime,
    dies_per_channel: u32,
    /// Per die: its phase and its grants left (status checks first, then transfers).
    phase: Vec<BusPhase>,
    status_left: Vec<u8>,
    transfers_left: Vec<u8>,
    /// Per channel: the die holding the current grant, if any, and the index (in the channel)
    /// of the die granted last, where round robin resumes.
    holder: Vec<Option<u32>>,
    last: Vec<u32>,
}

impl Board {
    pub fn new(geometry: &Geometry, cfg: &BoardConfig) -> Board {
        let us = |v: f64| SimTime((v * 1000.0).round() as u64);
        let per_channel = geometry.chips_per_channel * geometry.dies_per_chip;
        Board {
            buffer_bytes: cfg.buffer_bytes,
            transfer: us(cfg.transfer_us),
            status: us(cfg.status_us),
            dies_per_channel: per_channel,
            phase: vec![BusPhase::Status; geometry.n_dies as usize],
            status_left: vec![0; geometry.n_dies as usize],
            transfers_left: vec![0; geometry.n_dies as usize],
            holder: vec![None; geometry.channels as usize],
            last: vec![per_channel - 1; geometry.channels as usize],
        }
    }

    /// The channel of `die`.
    #[inline]
    pub fn channel_of(&self, die: DieIdx) -> u32 {
        die.0 / self.dies_per_channel
    }

    /// Transfers for `bytes` through the page buffer.
    #[inline]
    fn transfers(&self, bytes: u32) -> u8 {
        bytes.div_ceil(self.buffer_bytes) as u8
    }

    /// `die` (idle on the bus) now waits for `phase`'s grants. Returns when the channel's
    /// next grant ends if the channel was idle and this started it (the caller schedules
    /// `grant_end` then); `None` if a grant is already under way.
    pub fn request(&mut self, die: DieIdx, phase: BusPhase, now: SimTime) -> Option<SimTime> {
        let d = die.0 as usize;
        assert!(self.status_left[d] == 0 && self.transfers_left[d] == 0, "die {} already on the bus", die.0);
        let (status, transfers) = match phase {
            BusPhase::ReadOut { bytes } => (1, self.transfers(bytes)),
            BusPhase::ProgramIn { bytes } => (0, self.transfers(bytes)),
            BusPhase::Status => (1, 0),
        };
        self.phase[d] = phase;
        self.status_left[d] = status;
        self.transfers_left[d] = transfers.max(1 - status);
        let ch = self.channel_of(die);
        if self.holder[ch as usize].is_some() {
            return None;
        }
        self.grant(ch, now)
    }

    /// The grant under way on channel `ch` ended at `now`. Returns the die whose phase that
    /// grant finished (with the phase), if it did, and when the channel's next grant ends,
    /// if another die waits.
    pub fn grant_end(&mut self, ch: u32, now: SimTime) -> (Option<(DieIdx, BusPhase)>, Option<SimTime>) {
        let d = self.holder[ch as usize].take().expect("grant end on an idle channel");
        let i = d as usize;
        let done = self.status_left[i] == 0 && self.transfers_left[i] == 0;
        let finished = done.then_some((DieIdx(d), self.phase[i]));
        (finished, self.grant(ch, now))
    }

    /// Grant channel `ch` at `now` to the next waiting die after the last one granted.
    fn grant(&mut self, ch: u32, now: SimTime) -> Option<SimTime> {
        let n = self.dies_per_channel;
        let first = ch * n;
        let last = self.last[ch as usize];
        for k in 1..=n {
            let w = (last + k) % n;
            let i = (first + w) as usize;
            let span = if self.status_left[i] > 0 {
                self.status_left[i] -= 1;
                self.status
            } else if self.transfers_left[i] > 0 {
                self.transfers_left[i] -= 1;
                self.transfer
            } else {
                continue;
            };
            self.last[ch as usize] = w;
            self.holder[ch as usize] = Some(first + w);
            return Some(now + span);
        }
        None
    }

    /// Grants of `phase` (for the real-time analyses' times, `analysis`).
    fn grants(&self, phase: BusPhase) -> (u64, u64) {
        match phase {
            BusPhase::ReadOut { bytes } => (1, self.transfers(bytes) as u64),
            BusPhase::ProgramIn { bytes } => (0, self.transfers(bytes) as u64),
            BusPhase::Status => (1, 0),
        }
    }

    /// One page read alone on its channel: tR, a status check, its transfers.
    pub fn lone_read(&self, read: SimTime, page_bytes: u32) -> SimTime {
        let (s, x) = self.grants(BusPhase::ReadOut { bytes: page_bytes });
        read + SimTime(s * self.status.0 + x * self.transfer.0)
    }

    /// One erase alone on its channel: tBERS, a status check.
    pub fn lone_erase(&self, erase: SimTime) -> SimTime {
        erase + self.status
    }

    /// One page program alone on its channel: its transfers, tPROG, a status check.
    pub fn lone_program(&self, program: SimTime, page_bytes: u32) -> SimTime {
        let (_, x) = self.grants(BusPhase::ProgramIn { bytes: page_bytes });
        program + SimTime(x * self.transfer.0 + self.status.0)
    }
}

/// An operation of `latencies`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MicroOp {
    Read,
    Program,
    Erase,
}

/// The latency of each of `dies.len()` page operations `op` issued together at time 0, the
/// i-th on die `dies[i]`, on a board of `cfg` with array times `read`, `program`, `erase`:
/// the engine's sequence (tR then the read's bus phase; a program's bus phase, then tPROG,
/// then its status check; tBERS then the status check), with the operations on one die run
/// one after another in the order given. Table I's micro-measurements and the real-time
/// analyses' times (`analysis_times`) use it; it allocates, and runs outside the engine.
pub fn latencies(
    geometry: &Geometry,
    cfg: &BoardConfig,
    (read, program, erase): (SimTime, SimTime, SimTime),
    op: MicroOp,
    dies: &[u32],
) -> Vec<SimTime> {
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, VecDeque};
    let page = geometry.page_bytes;
    let mut board = Board::new(geometry, cfg);
    let mut queued: Vec<VecDeque<usize>> = vec![VecDeque::new(); geometry.n_dies as usize];
    for (i, &d) in dies.iter().enumerate() {
        queued[d as usize].push_back(i);
    }
    let mut out = vec![SimTime::ZERO; dies.len()];
    // Events: (time, sequence, is_grant, die or channel); ties in FIFO order, as the engine's.
    let mut events: BinaryHeap<Reverse<(u64, u64, bool, u32)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |events: &mut BinaryHeap<_>, t: SimTime, grant: bool, id: u32| {
        events.push(Reverse((t.0, seq, grant, id)));
        seq += 1;
    };
    // Start the next operation on die `d` at `now`: its array phase, or a program's bus phase.
    let start = |board: &mut Board, d: u32, now: SimTime| -> (SimTime, bool, u32) {
        match op {
            MicroOp::Read => (now + read, false, d),
            MicroOp::Erase => (now + erase, false, d),
            MicroOp::Program => match board.request(DieIdx(d), BusPhase::ProgramIn { bytes: page }, now) {
                Some(end) => (end, true, board.channel_of(DieIdx(d))),
                None => (SimTime::MAX, false, u32::MAX),
            },
        }
    };
    for d in 0..geometry.n_dies {
        if !queued[d as usize].is_empty() {
            let (t, g, id) = start(&mut board, d, SimTime::ZERO);
            if id != u32::MAX {
                push(&mut events, t, g, id);
            }
        }
    }
    while let Some(Reverse((t, _, grant, id))) = events.pop() {
        let now = SimTime(t);
        if !grant {
            let phase =
                if op == MicroOp::Read { BusPhase::ReadOut { bytes: page } } else { BusPhase::Status };
            if let Some(end) = board.request(DieIdx(id), phase, now) {
                push(&mut events, end, true, board.channel_of(DieIdx(id)));
            }
            continue;
        }
        let (finished, next) = board.grant_end(id, now);
        if let Some(end) = next {
            push(&mut events, end, true, id);
        }
        match finished {
            Some((d, BusPhase::ProgramIn { .. })) => push(&mut events, now + program, false, d.0),
            Some((d, _)) => {
                let q = &mut queued[d.0 as usize];
                out[q.pop_front().expect("an operation")] = now;
                if !q.is_empty() {
                    let (t, g, id) = start(&mut board, d.0, now);
                    if id != u32::MAX {
                        push(&mut events, t, g, id);
                    }
                }
            }
            None => {}
        }
    }
    out
}

/// The real-time analyses' page read, page program and erase times on the board, under §V-A's
/// condition ("assuming other flash dies on the same way are busy and not idle"): the average
/// latency of one operation on each die of one channel, issued together.
pub fn analysis_times(
    geometry: &Geometry,
    cfg: &BoardConfig,
    times: (SimTime, SimTime, SimTime),
) -> (SimTime, SimTime, SimTime) {
    let n = geometry.chips_per_channel * geometry.dies_per_chip;
    let dies: Vec<u32> = (0..n).collect();
    let avg = |op| {
        let l = latencies(geometry, cfg, times, op, &dies);
        SimTime(l.iter().map(|t| t.0).sum::<u64>() / l.len() as u64)
    };
    (avg(MicroOp::Read), avg(MicroOp::Program), avg(MicroOp::Erase))
}
