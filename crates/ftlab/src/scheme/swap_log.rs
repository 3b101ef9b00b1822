//! What a channel swap cost and did, as a swapping scheme (`scheme::flashblox`) reports it
//! in its counters: per swap its pair, its start and end, the wear imbalance the trigger saw
//! before it and the one at its end, the data it moved each way and the erases it added; a
//! bounded log of the most recent `SWAP_LOG_MAX` swaps (the ones it dropped counted), and
//! each swap's least time from the device's bandwidth for the data it moved
//! (`bandwidth_time_s`), beside its measured time.
//!
//! What this is not: it decides nothing (`scheme::swap`) and moves no data (the scheme pushes
//! `Command::Migrate`).

use crate::flash::geometry::Geometry;
use crate::flash::timing::Timing;
use crate::policy::Counters;
use std::collections::VecDeque;
use std::sync::OnceLock;

/// The swaps the log keeps (the most recent); older ones are counted in `swap_log_dropped`.
pub(crate) const SWAP_LOG_MAX: usize = 8;

/// One swap: channels `hot` (the most worn, left by vSSD `tenant_hot`) and `cool`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SwapRecord {
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
    pub(crate) hot: u32,
    pub(crate) cool: u32,
    pub(crate) tenant_hot: u16,
    /// The trigger's max / mean (erases since the run started) when the swap started, and
    /// the same at its end (the erases counted at the last check).
    pub(crate) imbalance_before: f64,
    pub(crate) imbalance_after: f64,
    /// Mapping units copied out of blocks listed on `hot` and on `cool`.
    pub(crate) units_from_hot: u64,
    pub(crate) units_from_cool: u64,
    /// Blocks listed on `hot` and on `cool` (each is erased once, by the migration or by GC
    /// that reached it first), and those erased so far.
    pub(crate) blocks_from_hot: u64,
    pub(crate) blocks_from_cool: u64,
    pub(crate) blocks_erased: u64,
}

/// The log's fields, as the counter keys name them (`swap_log_<i>_<field>`).
const FIELDS: [&str; 9] = [
    "start_s",
    "end_s",
    "channel_hot",
    "channel_cool",
    "tenant_hot",
    "imbalance_before",
    "imbalance_after",
    "units_moved",
    "blocks_erased",
];

impl SwapRecord {
    fn values(&self) -> [f64; 9] {
        [
            self.start_s,
            self.end_s,
            self.hot as f64,
            self.cool as f64,
            self.tenant_hot as f64,
            self.imbalance_before,
            self.imbalance_after,
            (self.units_from_hot + self.units_from_cool) as f64,
            self.blocks_erased as f64,
        ]
    }
}

/// The counter keys of entry `i` of the log, made once per process (counter keys are
/// `&'static str`; `SWAP_LOG_MAX` x 9 strings, leaked once).
fn log_keys() -> &'static [[&'static str; 9]] {
    static KEYS: OnceLock<Vec<[&'static str; 9]>> = OnceLock::new();
    KEYS.get_or_init(|| {
        (0..SWAP_LOG_MAX)
            .map(|i| FIELDS.map(|f| &*Box::leak(format!("swap_log_{i}_{f}").into_boxed_str())))
            .collect()
    })
}

/// The completed swaps: the most recent `SWAP_LOG_MAX` and totals over all of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct SwapLog {
    kept: VecDeque<SwapRecord>,
    dropped: u64,
    bandwidth_time_s_total: f64,
}

impl SwapLog {
    /// Record a completed swap and its least time from the device's bandwidth.
    pub(crate) fn push(&mut self, r: SwapRecord, bandwidth_time_s: f64) {
        if self.kept.len() == SWAP_LOG_MAX {
            self.kept.pop_front();
            self.dropped += 1;
        }
        self.kept.push_back(r);
        self.bandwidth_time_s_total += bandwidth_time_s;
    }

    /// `swap_time_bandwidth_s` (summed over completed swaps), `swap_log_dropped`, and per kept
    /// swap, oldest first, `swap_log_<i>_<field>`.
    pub(crate) fn counters(&self, out: &mut Counters) {
        out.push(("swap_time_bandwidth_s", self.bandwidth_time_s_total));
        out.push(("swap_log_dropped", self.dropped as f64));
        for (r, keys) in self.kept.iter().zip(log_keys()) {
            for (k, v) in keys.iter().zip(r.values()) {
                out.push((k, v));
            }
        }
    }
}

/// The least time the data a swap moved takes on the device, in seconds: on each of its two
/// channels, the pages it sends out are read (tR, and a page's transfer on the channel bus,
/// which the read holds through tR when `read_holds_channel`) and the pages it receives are
/// programmed (a transfer, tPROG), and its listed blocks there are erased (tBERS); the bus
/// carries the transfers one at a time, the channel's dies work in parallel (planes not).
/// The larger of the bus and the dies' time, over the two channels. Host I/O, the rate limit
/// (`swap_reads_in_flight_max`) and GC make the measured time longer.
pub(crate) fn bandwidth_time_s(g: &Geometry, t: &Timing, r: &SwapRecord) -> f64 {
    let pages = |units: u64| units.div_ceil(g.units_per_page as u64) as f64;
    let (from_hot, from_cool) = (pages(r.units_from_hot), pages(r.units_from_cool));
    let dies = (g.chips_per_channel * g.dies_per_chip) as f64;
    let xfer = t.transfer(g.page_bytes).as_secs_f64();
    let (t_r, t_prog, t_bers) = (t.read.as_secs_f64(), t.program.as_secs_f64(), t.erase.as_secs_f64());
    let read_bus = if t.read_holds_channel { t_r + xfer } else { xfer };
    let channel = |out: f64, into: f64, blocks: u64| {
        let bus = out * read_bus + into * xfer;
        let die = (out * t_r + into * t_prog + blocks as f64 * t_bers) / dies;
        bus.max(die)
    };
    channel(from_hot, from_cool, r.blocks_from_hot).max(channel(from_cool, from_hot, r.blocks_from_cool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::SimTime;

    #[test]
    fn bandwidth_time_by_hand() {
        // 2 dies a channel (2 chips x 1 die), 4 KiB pages of one 4 KiB unit; tR 50 us,
        // tPROG 500 us, tBERS 2 ms; bus 400 MT/s x 1 byte: a page's transfer 4096 / 400e6 s
        // = 10.24 us. 100 pages out of `hot` and 40 out of `cool`, 10 and 4 blocks.
        // `hot`: bus 100 x 10.24 + 40 x 10.24 = 1,433.6 us; dies (100 x 50 + 40 x 500 +
        // 10 x 2,000) / 2 = 22,500 us. `cool`: bus the same; dies (40 x 50 + 100 x 500 +
        // 4 x 2,000) / 2 = 30,000 us. The larger: 30 ms. With the read holding the bus through
        // tR, `cool`'s bus is 40 x 60.24 + 100 x 10.24 = 3,433.6 us, still below its dies.
        let g = Geometry::new(2, 2, 1, 1, 16, 16, 4096, 4096).unwrap();
        let us = |x: u64| SimTime(x * 1000);
        let mut t = Timing {
            read: us(50),
            program: us(500),
            erase: us(2000),
            command: SimTime::ZERO,
            suspend: SimTime::ZERO,
            channel_mts: 400,
            channel_width_bits: 8,
            read_holds_channel: false,
            board: None,
        };
        let r = SwapRecord {
            units_from_hot: 100,
            units_from_cool: 40,
            blocks_from_hot: 10,
            blocks_from_cool: 4,
            ..SwapRecord::default()
        };
        assert!((bandwidth_time_s(&g, &t, &r) - 0.030).abs() < 1e-12);
        t.read_holds_channel = true;
        assert!((bandwidth_time_s(&g, &t, &r) - 0.030).abs() < 1e-12);
        // Make the bus the bottleneck: a 1 MT/s bus, a transfer 4.096 ms: `hot` carries
        // 140 transfers plus 100 reads' tR = 573.44 + 5 ms = 578.44 ms.
        t.channel_mts = 1;
        assert!((bandwidth_time_s(&g, &t, &r) - 0.57844).abs() < 1e-9, "{}", bandwidth_time_s(&g, &t, &r));
    }

    #[test]
    fn the_log_keeps_the_last_swaps_and_counts_the_dropped() {
        let mut log = SwapLog::default();
        for i in 0..SWAP_LOG_MAX + 3 {
            log.push(SwapRecord { start_s: i as f64, ..SwapRecord::default() }, 0.5);
        }
        let mut out = Counters::new();
        log.counters(&mut out);
        let get = |k: &str| out.iter().find(|(n, _)| *n == k).map(|p| p.1);
        assert_eq!(get("swap_log_dropped"), Some(3.0));
        assert_eq!(get("swap_time_bandwidth_s"), Some(0.5 * (SWAP_LOG_MAX + 3) as f64));
        assert_eq!(get("swap_log_0_start_s"), Some(3.0), "the oldest kept is swap 3");
        assert_eq!(get(&format!("swap_log_{}_start_s", SWAP_LOG_MAX - 1)), Some((SWAP_LOG_MAX + 2) as f64));
    }
}
