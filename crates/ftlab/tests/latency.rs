//! Tests of the latency histogram (`ftlab::internals::metrics::latency`).
//!
//! Precision bound used throughout: with 3 significant digits HdrHistogram has 2048
//! sub-buckets, so values below 2048 ns are exact and a value `v` in `[2^(b+10), 2^(b+11))`
//! lies in a bucket of width `2^b <= v/1024`. A percentile is reported as the highest value
//! equivalent to the true order statistic `v`, hence `v <= reported < v·(1 + 2^-10)` (under
//! 0.1% above), and then rounded to 1 ns (0.0005 µs) by the µs conversion.

use ftlab::internals::metrics::latency::{LatencyHist, LatencySummary, HIGHEST_NS};
use ftlab::SimTime;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs;

fn hist_of(ns: impl IntoIterator<Item = u64>) -> LatencyHist {
    let mut h = LatencyHist::new();
    for v in ns {
        h.record(SimTime::from_ns(v));
    }
    h
}

/// `reported` (µs) is the histogram's report of the true value `true_ns`: within
/// `[v, v·(1 + 2^-10)]`, ± the 0.0005 µs rounding.
fn assert_hdr_close(what: &str, reported_us: f64, true_ns: u64) {
    let v = true_ns as f64 / 1000.0;
    let hi = v * (1.0 + 1.0 / 1024.0);
    assert!(
        reported_us >= v - 0.0005 && reported_us <= hi + 0.0005,
        "{what}: reported {reported_us} µs, true {v} µs, allowed [{v}, {hi}]"
    );
}

/// Deterministic pseudo-random latencies (SplitMix64), spread over 9 decades.
fn pseudo_random_ns(seed: u64, n: usize) -> Vec<u64> {
    let mut z = seed;
    (0..n)
        .map(|_| {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^= x >> 31;
            let decade = x % 9;
            let mantissa = (x >> 8) % 1000;
            (mantissa + 1) * 10u64.pow(decade as u32)
        })
        .collect()
}

#[test]
fn empty_is_all_zeros() {
    let h = LatencyHist::new();
    assert_eq!(h.count(), 0);
    assert_eq!(h.summary(), LatencySummary::default());
    assert_eq!(h.summary().p99_us, 0.0);
    assert!(h.cdf_points().is_empty());
    assert_eq!(h.max(), SimTime::ZERO);
}

#[test]
fn uniform_1_to_1000_us() {
    // Each of 1, 2, ..., 1000 µs once. By hand, value_at_quantile(q) is the k-th smallest
    // value with k = ceil(q·1000): p50 -> 500 µs, p90 -> 900, p99 -> 990, p99.9 -> 999,
    // p99.99 -> ceil(999.9) = 1000. Mean = 500.5 µs exactly, max = 1000 µs exactly.
    let h = hist_of((1..=1000).map(|us| us * 1000));
    let s = h.summary();
    assert_eq!(s.count, 1000);
    assert_eq!(s.mean_us, 500.5);
    assert_eq!(s.max_us, 1000.0);
    for (what, got, k) in [
        ("p50", s.p50_us, 500),
        ("p90", s.p90_us, 900),
        ("p99", s.p99_us, 990),
        ("p999", s.p999_us, 999),
        ("p9999", s.p9999_us, 1000),
    ] {
        assert_hdr_close(what, got, k * 1000);
    }
    // p99.99 is capped at the exact max, so it is exactly 1000 µs.
    assert_eq!(s.p9999_us, 1000.0);
}

#[test]
fn small_values_are_exact() {
    // Below 2048 ns every value has its own bucket: percentiles are exact order statistics.
    // 1..=100 ns: p50 -> 50 ns, p90 -> 90, p99 -> 99, p99.9 -> ceil(99.9) = 100.
    let h = hist_of(1..=100);
    let s = h.summary();
    assert_eq!(
        s,
        LatencySummary {
            count: 100,
            mean_us: 0.051, // 50.5 ns rounds half up to 51 ns
            p50_us: 0.05,
            p90_us: 0.09,
            p99_us: 0.099,
            p999_us: 0.1,
            p9999_us: 0.1,
            max_us: 0.1,
        }
    );
}

#[test]
fn table_of_known_inputs() {
    // (values in ns, expected k-th smallest for p50, p90, p99, p99.9, p99.99, exact mean ns)
    let cases: Vec<(Vec<u64>, [u64; 5], u64)> = vec![
        (vec![7_000], [7_000; 5], 7_000),
        (vec![0], [0; 5], 0),
        // 9 fast, 1 slow: p50 and p90 are fast (k = 5, 9), p99.. are slow (k = 10).
        (
            [vec![100_000; 9], vec![5_000_000]].concat(),
            [100_000, 100_000, 5_000_000, 5_000_000, 5_000_000],
            590_000,
        ),
        // Two values far apart, in the scaled (non-exact) range.
        (
            vec![1_234_567, 987_654_321],
            [1_234_567, 987_654_321, 987_654_321, 987_654_321, 987_654_321],
            494_444_444,
        ),
    ];
    for (i, (values, want, mean_ns)) in cases.iter().enumerate() {
        let s = hist_of(values.iter().copied()).summary();
        assert_eq!(s.count, values.len() as u64);
        assert_eq!(s.mean_us, *mean_ns as f64 / 1000.0, "case {i}");
        assert_eq!(s.max_us, *values.iter().max().unwrap() as f64 / 1000.0, "case {i}");
        let got = [s.p50_us, s.p90_us, s.p99_us, s.p999_us, s.p9999_us];
        for (j, (g, w)) in got.iter().zip(want).enumerate() {
            assert_hdr_close(&format!("case {i} percentile {j}"), *g, *w);
        }
    }
}

#[test]
fn mean_and_max_are_exact() {
    // A histogram-derived mean or max would be off by up to 0.1% for these values.
    let h = hist_of([1_000_000_001, 3_000_000_003]);
    assert_eq!(h.sum_ns(), 4_000_000_004);
    let s = h.summary();
    assert_eq!(s.mean_us, 2_000_000.002);
    assert_eq!(s.max_us, 3_000_000.003);
    assert_eq!(h.max(), SimTime::from_ns(3_000_000_003));

    // Rounding to the nearest ns, half up: (1 + 2) / 2 = 1.5 ns -> 2 ns; (1 + 1 + 2) / 3 -> 1.
    assert_eq!(hist_of([1, 2]).summary().mean_us, 0.002);
    assert_eq!(hist_of([1, 1, 2]).summary().mean_us, 0.001);
}

#[test]
fn microseconds_are_rounded_to_three_decimals() {
    let s = hist_of([1_234_567]).summary();
    assert_eq!(s.max_us, 1234.567);
    assert_eq!(s.mean_us, 1234.567);
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"mean_us\":1234.567"), "{json}");
    assert!(json.contains("\"max_us\":1234.567"), "{json}");
    // Every percentile is a whole number of ns.
    for v in [s.p50_us, s.p90_us, s.p99_us, s.p999_us, s.p9999_us] {
        assert_eq!((v * 1000.0).round() / 1000.0, v);
    }
}

#[test]
fn merge_equals_recording_both() {
    for (seed, n_a, n_b) in
        [(1u64, 1000usize, 3000usize), (2, 0, 500), (3, 700, 0), (4, 1, 1), (5, 20_000, 15_000)]
    {
        let a_vals = pseudo_random_ns(seed, n_a);
        let b_vals = pseudo_random_ns(seed + 100, n_b);
        let mut a = hist_of(a_vals.iter().copied());
        let b = hist_of(b_vals.iter().copied());
        let both = hist_of(a_vals.iter().chain(&b_vals).copied());
        a.merge(&b);
        assert_eq!(a.count(), both.count());
        assert_eq!(a.sum_ns(), both.sum_ns());
        assert_eq!(a.max(), both.max());
        assert_eq!(a.summary(), both.summary(), "seed {seed}");
        assert_eq!(a.cdf_points(), both.cdf_points(), "seed {seed}");
    }
}

#[test]
fn reset_forgets_everything() {
    let mut h = hist_of(pseudo_random_ns(9, 5000));
    h.record(SimTime::from_ns(HIGHEST_NS + 1));
    h.reset();
    assert_eq!(h.count(), 0);
    assert_eq!(h.saturated(), 0);
    assert_eq!(h.sum_ns(), 0);
    assert_eq!(h.summary(), LatencySummary::default());
    assert!(h.cdf_points().is_empty());
    // Usable again, and indistinguishable from a fresh one.
    let vals = pseudo_random_ns(10, 1000);
    for &v in &vals {
        h.record(SimTime::from_ns(v));
    }
    assert_eq!(h.summary(), hist_of(vals).summary());
}

#[test]
fn saturation() {
    let mut h = LatencyHist::new();
    h.record(SimTime::from_us(5));
    h.record(SimTime::from_ns(HIGHEST_NS)); // at the limit: not saturated
    h.record(SimTime::from_ns(2 * HIGHEST_NS));
    h.record(SimTime::MAX);
    assert_eq!(h.count(), 4);
    assert_eq!(h.saturated(), 2);
    // Sum and max keep the true values (u128 sum: no overflow even at u64::MAX).
    let sum = 5_000u128 + HIGHEST_NS as u128 + 2 * HIGHEST_NS as u128 + u64::MAX as u128;
    assert_eq!(h.sum_ns(), sum);
    assert_eq!(h.max(), SimTime::MAX);
    let s = h.summary();
    assert_eq!(s.mean_us, ((sum * 2 + 4) / 8) as u64 as f64 / 1000.0);
    assert_eq!(s.max_us, u64::MAX as f64 / 1000.0);
    // p50 is the 2nd smallest (1e12 ns); p90 and up are the saturated ones, recorded at 1e12.
    assert_hdr_close("p50", s.p50_us, HIGHEST_NS);
    assert_hdr_close("p90", s.p90_us, HIGHEST_NS);
    assert_hdr_close("p9999", s.p9999_us, HIGHEST_NS);

    // Saturation merges.
    let mut other = LatencyHist::new();
    other.record(SimTime::from_ns(HIGHEST_NS + 1));
    h.merge(&other);
    assert_eq!(h.saturated(), 3);
}

#[test]
fn cdf_points_walk_the_recorded_values() {
    // 1..=100 ns, each twice: 100 exact buckets, the i-th at i ns with fraction i/100.
    let h = hist_of((1..=100).flat_map(|v| [v, v]));
    let pts = h.cdf_points();
    assert_eq!(pts.len(), 100);
    for (i, &(us, frac)) in pts.iter().enumerate() {
        assert_eq!(us, (i + 1) as f64 / 1000.0);
        assert!((frac - (i + 1) as f64 / 100.0).abs() < 1e-12);
    }
    // Wide range: strictly increasing, last point at the exact max with fraction 1.
    let vals = pseudo_random_ns(7, 10_000);
    let h = hist_of(vals.iter().copied());
    let pts = h.cdf_points();
    assert!(pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    let last = *pts.last().unwrap();
    assert_eq!(last.1, 1.0);
    assert_eq!(last.0, *vals.iter().max().unwrap() as f64 / 1000.0);
}

#[test]
fn record_does_not_allocate() {
    let mut h = LatencyHist::new();
    let vals = pseudo_random_ns(11, 50_000);
    let other = hist_of([1, 2, 3]);
    let before = allocs();
    for &v in &vals {
        h.record(SimTime::from_ns(v));
    }
    h.record(SimTime::MAX);
    h.record(SimTime::ZERO);
    let mid = allocs();
    h.merge(&other);
    h.reset();
    assert_eq!(mid - before, 0, "record allocated");
    assert_eq!(allocs() - mid, 0, "merge or reset allocated");
}
