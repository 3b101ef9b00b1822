//! Latency histograms: one [`LatencyHist`] per (tenant, op), recording simulated
//! request latencies in nanoseconds, and the [`LatencySummary`] that reports print.
//!
//! What this is: an [HdrHistogram](https://hdrhistogram.github.io/HdrHistogram/) (3
//! significant digits) for the percentiles and CDF, plus an exact count, sum and maximum kept
//! beside it. What this is not: it does not know which tenant or op it belongs to, keeps no
//! time series (windows live elsewhere) and does no I/O.

use crate::sim::time::SimTime;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Lowest discernible value of the histogram, in ns.
pub(crate) const LOWEST_NS: u64 = 1;
/// Highest value recorded as itself, in ns (10^16 ns, about 116 days: the longest run a
/// scenario may ask for). Larger latencies are recorded in the histogram at this value and
/// counted as saturated (reported in `summary.json`); the mean and max use their true values.
pub const HIGHEST_NS: u64 = 10_000_000_000_000_000;
/// Significant decimal digits kept by the histogram: any recorded value `v` is reported as
/// a value in `[v, v·(1 + 2^-10)]`, i.e. within 0.1% above it.
pub(crate) const SIGNIFICANT_DIGITS: u8 = 3;

/// Latency distribution of one (tenant, op) in nanoseconds, 3 significant digits, range
/// 1 ns .. 10^16 ns (~116 days); values above the range are recorded at the max and counted in
/// [`saturated`](LatencyHist::saturated). A latency of 0 ns is recorded as 0.
///
/// The count, the sum (for the mean) and the maximum are kept exactly, outside the
/// histogram. Percentiles come from the histogram (see [`LatencyHist::summary`]).
///
/// Memory: about 360 KB per histogram (the HdrHistogram bucket array), allocated in
/// [`LatencyHist::new`]; [`record`](LatencyHist::record) never allocates.
#[derive(Clone, Debug)]
pub struct LatencyHist {
    hist: Histogram<u64>,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
    saturated: u64,
}

/// Summary of a [`LatencyHist`], in microseconds rounded to 3 decimals (ns resolution) so
/// that JSON output is stable. All zeros for an empty histogram.
#[derive(Serialize, Clone, Debug, PartialEq, Default)]
pub struct LatencySummary {
    /// Number of recorded latencies.
    pub count: u64,
    /// Exact mean (exact sum / count, rounded to the nearest ns).
    pub mean_us: f64,
    /// Median, from the histogram (see [`LatencyHist::summary`]).
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Exact maximum.
    pub max_us: f64,
}

/// ns to µs with 3 decimals: the nearest f64 to `ns / 1000` (the u64 -> f64 conversion is
/// exact below 2^53 ns, about 104 days, and the division is correctly rounded).
fn ns_to_us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

impl Default for LatencyHist {
    fn default() -> Self {
        LatencyHist::new()
    }
}

impl LatencyHist {
    /// An empty histogram (allocates its bucket array).
    pub fn new() -> Self {
        LatencyHist {
            hist: Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_DIGITS)
                .expect("constant, valid bounds"),
            count: 0,
            sum_ns: 0,
            max_ns: 0,
            saturated: 0,
        }
    }

    /// Record one latency. Never allocates; values above [`HIGHEST_NS`] are recorded at
    /// `HIGHEST_NS` in the histogram and counted in [`saturated`](Self::saturated), but enter
    /// the mean and max with their true values.
    #[inline]
    pub fn record(&mut self, latency: SimTime) {
        let ns = latency.ns();
        if ns > HIGHEST_NS {
            self.saturated += 1;
            self.hist.saturating_record(HIGHEST_NS);
        } else {
            self.hist.saturating_record(ns);
        }
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Number of recorded latencies.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Number of recorded latencies above [`HIGHEST_NS`].
    pub fn saturated(&self) -> u64 {
        self.saturated
    }

    /// Exact sum of the recorded latencies, in ns.
    pub fn sum_ns(&self) -> u128 {
        self.sum_ns
    }

    /// Exact largest recorded latency (0 when empty).
    pub fn max(&self) -> SimTime {
        SimTime(self.max_ns)
    }

    /// Forget everything recorded; keeps the bucket array (no allocation).
    pub fn reset(&mut self) {
        self.hist.reset();
        self.count = 0;
        self.sum_ns = 0;
        self.max_ns = 0;
        self.saturated = 0;
    }

    /// Add everything `other` recorded, as if it had been recorded here.
    pub fn merge(&mut self, other: &LatencyHist) {
        self.hist.add(&other.hist).expect("histograms with identical bounds always add");
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
        self.saturated += other.saturated;
    }

    /// Histogram quantile in ns, capped at the exact maximum.
    fn quantile_ns(&self, q: f64) -> u64 {
        self.hist.value_at_quantile(q).min(self.max_ns)
    }

    /// Count, exact mean, percentiles and exact max, in µs rounded to 3 decimals.
    ///
    /// A percentile `p` is hdrhistogram's `value_at_quantile(p)`: the smallest recorded value
    /// `v` such that at least `ceil(p · count)` latencies are `<= v`, reported as the
    /// *highest value equivalent* to `v` in the histogram (the top of its bucket, so within
    /// 0.1% above `v`), then capped at the exact maximum. Saturated values count as
    /// [`HIGHEST_NS`] here. All zeros when empty.
    pub fn summary(&self) -> LatencySummary {
        if self.count == 0 {
            return LatencySummary::default();
        }
        let c = u128::from(self.count);
        // Round half up to the nearest ns; the mean is <= max so it fits in u64.
        let mean_ns = ((self.sum_ns * 2 + c) / (2 * c)) as u64;
        LatencySummary {
            count: self.count,
            mean_us: ns_to_us(mean_ns),
            p50_us: ns_to_us(self.quantile_ns(0.5)),
            p90_us: ns_to_us(self.quantile_ns(0.9)),
            p99_us: ns_to_us(self.quantile_ns(0.99)),
            p999_us: ns_to_us(self.quantile_ns(0.999)),
            p9999_us: ns_to_us(self.quantile_ns(0.9999)),
            max_us: ns_to_us(self.max_ns),
        }
    }

    /// The 95th percentile in µs, as `summary`'s percentiles (0 when empty); the array's host
    /// layer reports it beside them (IODA's 95th to 99.99th).
    pub(crate) fn p95_us(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        ns_to_us(self.quantile_ns(0.95))
    }

    /// Points of the empirical CDF for plots: one `(latency_us, cumulative_fraction)` per
    /// distinct histogram bucket that holds a value, in increasing order. `latency_us` is the
    /// highest value equivalent to the bucket (capped at the exact max, rounded to 3
    /// decimals); `cumulative_fraction` is the fraction of latencies `<=` it, ending at 1.0.
    /// Empty when nothing was recorded. Allocates (it is for reports, not the hot path).
    pub fn cdf_points(&self) -> Vec<(f64, f64)> {
        if self.count == 0 {
            return Vec::new();
        }
        self.hist
            .iter_recorded()
            .map(|v| {
                let ns = v.value_iterated_to().min(self.max_ns);
                (ns_to_us(ns), v.quantile())
            })
            .collect()
    }
}
