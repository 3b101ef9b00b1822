//! `SimTime`: simulated time in nanoseconds. Not a wall clock; nothing here reads one.

use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign, Sub};

/// A point (or span) of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ns(ns: u64) -> SimTime {
        SimTime(ns)
    }
    pub const fn from_us(us: u64) -> SimTime {
        SimTime(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }
    /// Seconds (may be fractional) to nanoseconds, rounded to the nearest ns.
    pub fn from_secs_f64(s: f64) -> SimTime {
        assert!(s.is_finite() && s >= 0.0, "SimTime::from_secs_f64({s})");
        SimTime((s * 1e9).round() as u64)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub(crate) fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
}

/// `x.round() as u64` (half away from zero; negative and NaN to 0, saturating at `u64::MAX`)
/// without a call to libm's `round`, which the per-request path made twice per request
/// (arrival times). Exact: below 2^52 `x as u64` truncates exactly and `x - trunc(x)` is the
/// exact fractional part (Sterbenz's lemma for x >= 1, `x - 0` below), so it reaches 0.5
/// exactly when `round` goes up; from 2^52 on `x` is an integer and the fraction is 0; past
/// `u64::MAX` both saturate. `workload::generator`'s test `round_u64_is_f64_round`
/// compares the two.
#[inline]
pub(crate) fn round_u64(x: f64) -> u64 {
    let i = x as u64;
    i.saturating_add((x - i as f64 >= 0.5) as u64)
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.checked_add(rhs.0).expect("SimTime overflow"))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.checked_sub(rhs.0).expect("SimTime underflow"))
    }
}
