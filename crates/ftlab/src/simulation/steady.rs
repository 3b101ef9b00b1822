//! The closed-form fill (`[precondition] overwrites = "closed_form"`): instead of simulating
//! uniform random overwrites after the fill, write each filled unit once, in the fill's order
//! and through the same placement path (`place_host_unit`: scheme, stream mapper, frontiers),
//! interleaved with *stale units* so that every block ends with the valid fraction the
//! steady state of uniform random overwrites gives a block of its age. A stale unit is an
//! earlier version of the filled unit written next: it is placed and mapped as a host write,
//! and the next version overwrites it through the same path, so every policy sees the
//! events of a unit written and overwritten (the stream mapper is asked for a stream once per
//! filled unit, and its versions share it).
//!
//! The model (Desnoyers, "Analytic Models of SSD Write Performance", ACM TOS 2014, FIFO/LRW
//! cleaning; Hu et al., "Write Amplification Analysis in Flash-Based Solid State Drives",
//! SYSTOR 2009; its greedy form is Xiang & Kurkoski, ICNC 2012, Eq. (10), which
//! tests/waf_model.rs checks the simulated device against): under uniform random writes to
//! `U` units on `P` units of room for data, a unit survives each host write with probability
//! 1 - 1/U. The write log is a mix of host writes and GC copies in a fixed proportion, so
//! the host writes since log position `x` (0 the oldest, 1 the newest) are (1 - x) P (1 -
//! alpha), and a unit written at `x` is still valid with probability
//! `exp(-(1 - x) P (1 - alpha) / U) = alpha^(1 - x)`, where alpha, the oldest block's (the
//! victim's) valid fraction, solves `alpha = exp(-(P / U) (1 - alpha))`. Over the log this
//! holds `P x (1 - alpha) / ln(1 / alpha) = U` valid units: exactly the filled ones.
//!
//! The log's length `P` is what a steady-state die holds written at a random instant: every
//! block but the ones GC keeps free on each die (`gc_low_watermark_blocks`, as
//! tests/waf_model.rs counts the room), less the expected unwritten room of the die's open
//! frontiers. A die that takes host writes and runs GC keeps a host frontier and a GC
//! frontier open, each written to a point uniform over its block at a random instant: half a
//! block each, one block per die (`FRONTIER_ROOM_BLOCKS`). The fill opens no GC frontier (it
//! copies nothing), so that block ends free, and the device's free room (free blocks and
//! unwritten frontier units) is the steady state's expected one. Session 23's form counted the
//! whole room: where one frontier per die takes the fill (`rtgc`'s striping) and background GC
//! is off (so the idle end of preconditioning collects nothing), every die ended at the low
//! watermark with a full host frontier and no GC frontier, the least free room of the
//! steady state's cycle, and the timed run began about a block per die in GC's debt
//! (docs/PERFORMANCE.md, "Session 24"). A scheme with more frontiers per die ends its fill
//! below the low watermark, and GC runs briefly, as it does in any scheme whose domain for a
//! tenant has less room than the device-wide profile assumes (a domain with more room ends
//! with more free blocks). The stale units are placed by an error accumulator per
//! block (Bresenham: no random draw, so the fill's PRNG sequence is that of the simulated
//! fill's first part). This file is the model and the log's bookkeeping (`Log`); the fill
//! that hands out the units, its order and its end are `precondition.rs`'s.

use crate::metrics::report::ClosedFormReport;

/// Blocks per die the log leaves unwritten besides the low watermark's: the expected unwritten
/// room of a steady-state die's host frontier and GC frontier, half a block each (module doc).
pub(super) const FRONTIER_ROOM_BLOCKS: u64 = 1;

/// The valid fraction alpha of the victim (the oldest block) in the steady state of uniform
/// random writes on `r` = P / U times the room the data needs: the root in (0, 1) of
/// `alpha = exp(-r (1 - alpha))` (module doc), or 1 where `r <= 1` (no room to spare: no unit
/// can be stale). Found by bisection of `ln(alpha) + r (1 - alpha)`, which is below 0 near 0,
/// above 0 at 1 / r and has no other root in (0, 1 / r].
pub(crate) fn victim_valid_fraction(r: f64) -> f64 {
    assert!(r.is_finite() && r > 0.0, "room over data {r}");
    if r <= 1.0 {
        return 1.0;
    }
    let h = |a: f64| a.ln() + r * (1.0 - a);
    let (mut lo, mut hi) = (0.0_f64, 1.0 / r);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if h(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The probability that a unit written at log position `x` in [0, 1] is valid at the end:
/// `alpha^(1 - x)` (module doc); 1 past the log's end. (The fill steps it by a constant
/// factor per unit, `Log::step`; this is its closed form, for the tests.)
#[cfg(test)]
fn valid_probability(alpha: f64, x: f64) -> f64 {
    alpha.powf(1.0 - x.min(1.0))
}

/// The closed-form fill's log: the profile, where each tenant stands in it, and what each
/// block is owed. The fill (`precondition.rs`, `fill_closed_form`) asks it, for each unit it
/// hands out, whether that unit is the live version or an earlier one.
///
/// Writes are uniform over the union of the filled units, so every tenant's units span the
/// whole log, each tenant's share of it in proportion to its units: a tenant's log position
/// is its own units handed out over its share of the room. (A single position for the whole
/// fill would put a small namespace, whose fill ends early in the tenants' unit-by-unit
/// interleaving, in the oldest part of the log only: its domain, where it has one, got more
/// stale units than its room, and a large one's fewer.)
pub(super) struct Log {
    alpha: f64,
    room_units: u64,
    live_units: u64,
    /// Per tenant: the valid probability of its next unit, `alpha^(1 - x)` at its position x,
    /// capped at 1: it starts at alpha and is multiplied by the tenant's `step` =
    /// `alpha^(-1 / its room)` per unit (a pow per unit cost 5% of the bench's
    /// preconditioning; the product's rounding over 10^7 steps is ~10^-9).
    p: Vec<f64>,
    step: Vec<f64>,
    /// Units handed out so far, live and stale.
    placed: u64,
    /// Per block: the live units its profile owes it so far, minus those it got, plus 1/2
    /// (rounding); a unit is live where this reaches 1.
    owed: Vec<f64>,
}

impl Log {
    /// The log of `live[t]` filled units of each tenant t over `room_units` of room, on
    /// `n_blocks` blocks.
    pub(super) fn new(room_units: u64, live: &[u64], n_blocks: usize) -> Log {
        let live_units: u64 = live.iter().sum();
        let alpha =
            if live_units == 0 { 1.0 } else { victim_valid_fraction(room_units as f64 / live_units as f64) };
        let step = live
            .iter()
            .map(|&n| {
                let room = room_units as f64 * n as f64 / live_units.max(1) as f64;
                alpha.powf(-1.0 / room.max(1.0))
            })
            .collect();
        let p = vec![alpha; live.len()];
        Log { alpha, room_units, live_units, p, step, placed: 0, owed: vec![0.0; n_blocks] }
    }

    /// The next unit of tenant `t`'s log went to `block` (`first`: as its first unit):
    /// whether it is the live version (else an earlier one, to be overwritten).
    #[inline]
    pub(super) fn live(&mut self, t: u16, block: usize, first: bool) -> bool {
        let t = t as usize;
        let p = self.p[t];
        self.p[t] = (p * self.step[t]).min(1.0);
        self.placed += 1;
        let owed = &mut self.owed[block];
        if first {
            *owed = 0.5;
        }
        *owed += p;
        let live = *owed >= 1.0;
        if live {
            *owed -= 1.0;
        }
        live
    }

    /// What the log wrote (every live unit written).
    pub(super) fn report(&self) -> ClosedFormReport {
        ClosedFormReport {
            victim_valid_fraction: self.alpha,
            room_units: self.room_units,
            live_units: self.live_units,
            stale_units: self.placed - self.live_units,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The root solves its equation, lies in (0, 1) above 1 / r's complement, and falls as
    /// the room grows; Xiang & Kurkoski's worked example (over-provisioning 0.3, A = 2.36)
    /// is A = 1 / (1 - alpha).
    #[test]
    fn victim_fraction_solves_the_model() {
        let mut last = 1.0;
        for r in [1.01, 1.07, 1.3, 2.0, 5.0, 10.0] {
            let a = victim_valid_fraction(r);
            assert!(a > 0.0 && a < 1.0, "r {r}: alpha {a}");
            assert!((a - (-r * (1.0 - a)).exp()).abs() < 1e-12, "r {r}: alpha {a} is not a root");
            assert!(a < last, "alpha must fall as the room grows");
            last = a;
        }
        assert!((1.0 / (1.0 - victim_valid_fraction(1.3)) - 2.36).abs() < 0.005);
        assert_eq!(victim_valid_fraction(1.0), 1.0);
        assert_eq!(victim_valid_fraction(0.5), 1.0);
    }

    /// The fill's product form of the profile stays within 10^-9 of its closed form over a
    /// log of 10^7 units, and ends at 1.
    #[test]
    fn the_stepped_profile_is_the_closed_form() {
        let (alpha, room) = (victim_valid_fraction(1.07), 10_000_000_u64);
        let step = alpha.powf(-1.0 / room as f64);
        let mut p = alpha;
        for k in 0..=room {
            if k % 1_000_003 == 0 || k == room {
                let want = valid_probability(alpha, k as f64 / room as f64);
                assert!((p - want).abs() < 1e-9, "unit {k}: {p} against {want}");
            }
            p = (p * step).min(1.0);
        }
        assert_eq!(p, 1.0);
    }

    /// The profile holds U valid units over a log of P: the mean of alpha^(1 - x) over
    /// [0, 1] is U / P (module doc).
    #[test]
    fn the_profile_holds_the_data() {
        for r in [1.07, 1.3, 3.0] {
            let a = victim_valid_fraction(r);
            let n = 100_000;
            let mean =
                (0..n).map(|i| valid_probability(a, (i as f64 + 0.5) / n as f64)).sum::<f64>() / n as f64;
            assert!((mean * r - 1.0).abs() < 1e-6, "r {r}: mean valid {mean}, U / P {}", 1.0 / r);
        }
    }
}
