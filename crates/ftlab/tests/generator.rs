//! Tests of the synthetic workload generator (`ftlab::internals::workload::generator`).
//!
//! Statistical checks use a fixed seed, so they are deterministic; their tolerances are
//! nevertheless derived from the sampling distribution (mostly 5 standard deviations, a
//! two-sided false-alarm probability below 6e-7 per check under a normal approximation), so
//! that a change of seed or of RNG stream does not make them flaky, while a wrong
//! distribution (a bias of a few percent) fails.

use ftlab::internals::workload::generator::{Arrival, Generator, GeneratorConfig, Pattern, SizeWeight};
use ftlab::internals::workload::synthetic::{part_seed, SyntheticStream, SyntheticWorkload};
use ftlab::internals::workload::{IoOp, TraceRecord};
use std::collections::HashMap;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs;

// ---------------------------------------------------------------------------------------
// Helpers.

const PAGE: u64 = 4096;
const SEED: u64 = 0x5EED_F7AB;

fn cfg(pattern: Pattern) -> GeneratorConfig {
    GeneratorConfig { pattern, ..GeneratorConfig::default() }
}

fn take(cfg: &GeneratorConfig, ns_bytes: u64, seed: u64, n: usize) -> Vec<TraceRecord> {
    Generator::new(cfg, ns_bytes, seed).take(n).collect()
}

/// 5 standard deviations of the sample proportion of a binomial(n, p).
fn binom_5sd(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

fn share(recs: &[TraceRecord], pred: impl Fn(&TraceRecord) -> bool) -> f64 {
    recs.iter().filter(|r| pred(r)).count() as f64 / recs.len() as f64
}

const ALL_PATTERNS: [Pattern; 4] = [Pattern::Uniform, Pattern::Zipf, Pattern::Sequential, Pattern::HotCold];
const ALL_ARRIVALS: [Arrival; 3] = [Arrival::Poisson, Arrival::Fixed, Arrival::Closed];

// ---------------------------------------------------------------------------------------
// Determinism.

/// 30% reads, 10% trims, the given `(bytes, weight)` request sizes.
fn mixed(pattern: Pattern, arrival: Arrival, sizes: &[(u64, f64)]) -> GeneratorConfig {
    GeneratorConfig {
        pattern,
        arrival,
        read_ratio: 0.3,
        trim_ratio: 0.1,
        sizes: sizes.iter().map(|&(bytes, weight)| SizeWeight { bytes, weight }).collect(),
        ..GeneratorConfig::default()
    }
}

#[test]
fn same_seed_same_sequence_different_seed_different() {
    for pattern in ALL_PATTERNS {
        for arrival in ALL_ARRIVALS {
            let c = mixed(pattern, arrival, &[(PAGE, 1.0), (8 * PAGE, 1.0)]);
            let ns = 1 << 30;
            let a = take(&c, ns, SEED, 2000);
            let b = take(&c, ns, SEED, 2000);
            let other = take(&c, ns, SEED + 1, 2000);
            assert_eq!(a, b, "{pattern:?}/{arrival:?}: same seed differs");
            assert_ne!(a, other, "{pattern:?}/{arrival:?}: different seeds agree");
            // A clone continues identically.
            let mut g = Generator::new(&c, ns, SEED);
            g.nth(99);
            let h = g.clone();
            assert!(g.take(100).eq(h.take(100)));
        }
    }
}

#[test]
fn changing_the_op_mix_keeps_the_other_draws() {
    // Independent RNG streams: the read ratio does not move the arrival times or sizes.
    let base = GeneratorConfig {
        sizes: vec![SizeWeight { bytes: PAGE, weight: 1.0 }, SizeWeight { bytes: 4 * PAGE, weight: 1.0 }],
        ..cfg(Pattern::Uniform)
    };
    let reads = GeneratorConfig { read_ratio: 0.7, ..base.clone() };
    let a = take(&base, 1 << 30, SEED, 500);
    let b = take(&reads, 1 << 30, SEED, 500);
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| x.time == y.time && x.size_bytes == y.size_bytes && x.offset_bytes == y.offset_bytes));
    assert_ne!(a, b);
}

// ---------------------------------------------------------------------------------------
// Op mix, sizes, bounds.

#[test]
fn op_mix_matches_ratios() {
    // Each op share is a binomial proportion; tolerance 5 sd (exact when p is 0 or 1).
    const N: usize = 100_000;
    for (read, trim) in [(0.0, 0.0), (0.3, 0.0), (0.5, 0.2), (0.0, 1.0), (1.0, 0.0), (0.25, 0.25)] {
        let c = GeneratorConfig { read_ratio: read, trim_ratio: trim, ..cfg(Pattern::Uniform) };
        let recs = take(&c, 1 << 30, SEED, N);
        for (op, p) in [(IoOp::Read, read), (IoOp::Trim, trim), (IoOp::Write, 1.0 - read - trim)] {
            let got = share(&recs, |r| r.op == op);
            let tol = binom_5sd(p, N);
            assert!(
                (got - p).abs() <= tol,
                "read={read} trim={trim}: {op:?} share {got}, expected {p} ± {tol}"
            );
        }
    }
}

#[test]
fn size_distribution_matches_weights() {
    // Shares of each size are binomial proportions: 5 sd. A zero-weight size never appears.
    const N: usize = 100_000;
    let sizes = [(PAGE, 1.0), (4 * PAGE, 3.0), (16 * PAGE, 0.0), (32 * PAGE, 0.5)];
    let total: f64 = sizes.iter().map(|s| s.1).sum();
    let c = GeneratorConfig {
        sizes: sizes.iter().map(|&(bytes, weight)| SizeWeight { bytes, weight }).collect(),
        ..cfg(Pattern::Uniform)
    };
    let recs = take(&c, 1 << 30, SEED, N);
    for (bytes, w) in sizes {
        let p = w / total;
        let got = share(&recs, |r| r.size_bytes == bytes);
        let tol = binom_5sd(p, N);
        assert!((got - p).abs() <= tol, "size {bytes}: share {got}, expected {p} ± {tol}");
    }
}

#[test]
fn every_request_is_aligned_and_inside_the_footprint() {
    // Namespaces that are not a whole number of pages, odd footprints, large requests.
    let sizes = vec![
        SizeWeight { bytes: PAGE, weight: 3.0 },
        SizeWeight { bytes: 5 * PAGE, weight: 1.0 },
        SizeWeight { bytes: 64 * PAGE, weight: 1.0 },
    ];
    for ns in [64 * PAGE, 64 * PAGE + 123, 1000 * PAGE + 7, (1 << 34) + 512] {
        for frac in [1.0, 0.5, 0.013, 1e-9] {
            for pattern in ALL_PATTERNS {
                let c = GeneratorConfig {
                    pattern,
                    footprint_fraction: frac,
                    read_ratio: 0.3,
                    trim_ratio: 0.2,
                    sizes: sizes.clone(),
                    ..GeneratorConfig::default()
                };
                let g = Generator::new(&c, ns, SEED);
                let ns_pages = ns / PAGE;
                let want_pages = ((ns_pages as f64 * frac).floor() as u64).max(64);
                assert_eq!(g.footprint_pages(), want_pages, "ns={ns} frac={frac}");
                let fp = g.footprint_bytes();
                assert!(fp <= ns);
                for r in g.take(5000) {
                    assert_eq!(r.offset_bytes % PAGE, 0, "{r:?}");
                    assert_eq!(r.size_bytes % PAGE, 0, "{r:?}");
                    assert!(r.size_bytes > 0);
                    assert!(r.offset_bytes + r.size_bytes <= fp, "{pattern:?} {r:?} fp={fp}");
                    assert_eq!(r.stream, 0);
                }
            }
        }
    }
}

#[test]
fn other_alignments() {
    for align in [512u64, 8192, 3 * 4096] {
        let c = GeneratorConfig {
            align_bytes: align,
            sizes: vec![SizeWeight { bytes: 2 * align, weight: 1.0 }],
            ..cfg(Pattern::Zipf)
        };
        let ns = 10_000 * align + align / 2;
        for r in take(&c, ns, SEED, 5000) {
            assert_eq!(r.offset_bytes % align, 0);
            assert_eq!(r.size_bytes, 2 * align);
            assert!(r.offset_bytes + r.size_bytes <= ns);
        }
    }
}

#[test]
fn overflowing_requests_move_back_not_shrink() {
    // 10-page footprint, 8-page requests: a start drawn uniformly in 0..10 is moved back to
    // at most 2, so start 2 takes the draws 2..=9 (probability 0.8; 5 sd binomial).
    const N: usize = 50_000;
    let c =
        GeneratorConfig { sizes: vec![SizeWeight { bytes: 8 * PAGE, weight: 1.0 }], ..cfg(Pattern::Uniform) };
    let recs = take(&c, 10 * PAGE, SEED, N);
    assert!(recs.iter().all(|r| r.size_bytes == 8 * PAGE && r.offset_bytes <= 2 * PAGE));
    for (page, p) in [(0, 0.1), (1, 0.1), (2, 0.8)] {
        let got = share(&recs, |r| r.offset_bytes == page * PAGE);
        assert!((got - p).abs() <= binom_5sd(p, N), "page {page}: {got} vs {p}");
    }
}

#[test]
fn footprint_grows_to_the_largest_request() {
    let c = GeneratorConfig {
        footprint_fraction: 0.01,
        sizes: vec![SizeWeight { bytes: 50 * PAGE, weight: 1.0 }],
        ..cfg(Pattern::Uniform)
    };
    let g = Generator::new(&c, 1000 * PAGE, SEED);
    assert_eq!(g.footprint_pages(), 50);
    assert!(g.take(1000).all(|r| r.offset_bytes == 0));
}

#[test]
fn request_larger_than_namespace_is_an_error() {
    let c = GeneratorConfig {
        sizes: vec![SizeWeight { bytes: 16 * PAGE, weight: 1.0 }],
        ..cfg(Pattern::Uniform)
    };
    let (key, reason) = Generator::try_new(&c, 16 * PAGE - 1, SEED).unwrap_err();
    assert_eq!(key, "sizes");
    assert!(reason.contains("does not fit"), "{reason}");
    assert!(Generator::try_new(&c, 16 * PAGE, SEED).is_ok());
    // A validation error is passed through.
    let bad = GeneratorConfig { read_ratio: 2.0, ..c };
    assert_eq!(Generator::try_new(&bad, 1 << 30, SEED).unwrap_err().0, "read_ratio");
}

#[test]
fn request_limit() {
    for n in [1u64, 7, 1000] {
        let c = GeneratorConfig { requests: Some(n), ..cfg(Pattern::Zipf) };
        let mut g = Generator::new(&c, 1 << 30, SEED);
        assert_eq!(g.size_hint(), (n as usize, Some(n as usize)));
        assert_eq!(g.by_ref().count() as u64, n);
        assert_eq!(g.next(), None);
        assert_eq!(g.emitted(), n);
    }
    let unbounded = Generator::new(&cfg(Pattern::Uniform), 1 << 30, SEED);
    assert_eq!(unbounded.size_hint(), (usize::MAX, None));
}

#[test]
fn next_does_not_allocate() {
    for pattern in ALL_PATTERNS {
        for arrival in ALL_ARRIVALS {
            let c = mixed(pattern, arrival, &[(PAGE, 1.0), (8 * PAGE, 2.0), (32 * PAGE, 0.5)]);
            let mut g = Generator::new(&c, 100_000_000 * PAGE, SEED);
            let before = allocs();
            let mut acc = 0u64;
            for _ in 0..10_000 {
                let r = g.next().unwrap();
                acc = acc.wrapping_add(r.offset_bytes ^ r.time.ns());
            }
            assert_eq!(allocs() - before, 0, "{pattern:?}/{arrival:?} allocated (acc {acc})");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Arrivals.

#[test]
fn poisson_gaps_are_exponential() {
    // N gaps of an exponential with mean μ = 1/rate:
    // * sample mean: sd μ/√N, tolerance 5 sd, i.e. |mean/μ − 1| ≤ 5/√N;
    // * coefficient of variation s/mean: by the delta method, with Var(s²) = 8μ⁴/N, Cov(s², mean) = μ₃/N =
    //   2μ³/N, its variance is 2/N + 1/N − 2/N = 1/N, so the tolerance is |CV − 1| ≤ 5/√N;
    // * Kolmogorov–Smirnov distance to the Exp(rate) CDF (rate known, not fitted): P(√N·D > 1.949) ≈ 0.001
    //   asymptotically, so D ≤ 1.949/√N, plus the ns rounding of the times (a CDF shift of at most 1 ns ×
    //   rate / 1e9).
    const N: usize = 100_000;
    for rate in [1_000.0, 50_000.0, 1_000_000.0] {
        let c = GeneratorConfig { rate_iops: rate, ..cfg(Pattern::Uniform) };
        let recs = take(&c, 1 << 30, SEED, N + 1);
        assert_eq!(recs[0].time.ns(), 0, "first arrival at 0");
        let mut gaps: Vec<f64> = recs.windows(2).map(|w| (w[1].time.ns() - w[0].time.ns()) as f64).collect();
        let mu = 1e9 / rate;
        let n = N as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let cv = var.sqrt() / mean;
        let tol = 5.0 / n.sqrt();
        assert!((mean / mu - 1.0).abs() <= tol, "rate {rate}: mean gap {mean} ns vs {mu}");
        assert!((cv - 1.0).abs() <= tol, "rate {rate}: CV {cv}");

        gaps.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let lambda = rate / 1e9;
        let d = gaps
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = 1.0 - (-lambda * x).exp();
                (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
            })
            .fold(0.0, f64::max);
        let d_tol = 1.949 / n.sqrt() + lambda * 1.0;
        assert!(d <= d_tol, "rate {rate}: KS distance {d} > {d_tol}");
    }
}

#[test]
fn fixed_and_closed_arrivals() {
    for interval_us in [100.0, 0.25, 3.3333] {
        let c = GeneratorConfig { arrival: Arrival::Fixed, interval_us, ..cfg(Pattern::Uniform) };
        // Request i at round(i · (interval_us · 1000)) ns: no accumulated drift.
        let interval_ns = interval_us * 1000.0;
        for (i, r) in take(&c, 1 << 30, SEED, 10_000).iter().enumerate() {
            assert_eq!(r.time.ns(), (i as f64 * interval_ns).round() as u64);
            assert!((r.time.ns() as f64 - i as f64 * interval_us * 1000.0).abs() <= 0.5 + 1e-6);
        }
    }
    let c = GeneratorConfig { arrival: Arrival::Closed, ..cfg(Pattern::Sequential) };
    assert!(take(&c, 1 << 30, SEED, 1000).iter().all(|r| r.time.ns() == 0));
}

// ---------------------------------------------------------------------------------------
// Address patterns.

#[test]
fn sequential_wraps_at_the_footprint_end() {
    // (namespace pages, footprint fraction, request pages, expected first start pages)
    let cases: &[(u64, f64, u64, &[u64])] = &[
        (10, 1.0, 1, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2]),
        (10, 1.0, 3, &[0, 3, 6, 0, 3, 6, 0]), // page 9 is skipped: a 3-page request won't fit
        (10, 1.0, 5, &[0, 5, 0, 5]),
        (10, 1.0, 10, &[0, 0, 0]),
        (100, 0.1, 4, &[0, 4, 0, 4, 0]), // footprint 10 pages
    ];
    for &(ns_pages, frac, size, want) in cases {
        let c = GeneratorConfig {
            footprint_fraction: frac,
            sizes: vec![SizeWeight { bytes: size * PAGE, weight: 1.0 }],
            ..cfg(Pattern::Sequential)
        };
        let got: Vec<u64> =
            take(&c, ns_pages * PAGE, SEED, want.len()).iter().map(|r| r.offset_bytes / PAGE).collect();
        assert_eq!(got, want, "ns={ns_pages} frac={frac} size={size}");
    }
}

#[test]
fn sequential_ops_have_their_own_cursors() {
    let c = GeneratorConfig { read_ratio: 0.4, trim_ratio: 0.2, ..cfg(Pattern::Sequential) };
    let fp = 37;
    let recs = take(&c, fp * PAGE, SEED, 3000);
    for op in [IoOp::Read, IoOp::Write, IoOp::Trim] {
        let starts: Vec<u64> = recs.iter().filter(|r| r.op == op).map(|r| r.offset_bytes / PAGE).collect();
        assert!(starts.len() > 100);
        for (i, s) in starts.iter().enumerate() {
            assert_eq!(*s, i as u64 % fp, "{op:?} #{i}");
        }
    }
}

#[test]
fn hotcold_access_share() {
    // Footprint 10_000 pages; hot region = first round(hot_fraction · 10_000) pages. The share
    // of requests starting in it is binomial(hot_access_fraction): 5 sd.
    const N: usize = 100_000;
    let fp = 10_000u64;
    for (hot_fraction, hot_access) in [(0.2, 0.8), (0.1, 0.9), (0.5, 0.5), (0.2, 0.0), (0.2, 1.0)] {
        let c = GeneratorConfig { hot_fraction, hot_access_fraction: hot_access, ..cfg(Pattern::HotCold) };
        let recs = take(&c, fp * PAGE, SEED, N);
        let hot = (fp as f64 * hot_fraction).round() as u64;
        let got = share(&recs, |r| r.offset_bytes / PAGE < hot);
        let tol = binom_5sd(hot_access, N);
        assert!((got - hot_access).abs() <= tol, "hot {hot_fraction}/{hot_access}: share {got} ± {tol}");
        // Within each region the start is uniform: its mean page is the region's midpoint,
        // within 5 sd (uniform over m pages: sd (m/√12)/√count).
        let check_mid = |lo: u64, hi: u64| {
            let pages: Vec<f64> = recs
                .iter()
                .map(|r| r.offset_bytes / PAGE)
                .filter(|p| (lo..hi).contains(p))
                .map(|p| p as f64)
                .collect();
            if pages.is_empty() {
                return;
            }
            let m = (hi - lo) as f64;
            let mean = pages.iter().sum::<f64>() / pages.len() as f64;
            let mid = lo as f64 + (m - 1.0) / 2.0;
            let tol = 5.0 * m / 12f64.sqrt() / (pages.len() as f64).sqrt();
            assert!((mean - mid).abs() <= tol, "region {lo}..{hi}: mean {mean} vs {mid}");
        };
        check_mid(0, hot);
        check_mid(hot, fp);
    }
}

/// Generalised harmonic number H(n, θ) = Σ_{k=1..n} k^−θ: the Zipf normaliser, so that
/// P(rank k) = k^−θ / H(n, θ). Summed directly up to 10⁵ terms; beyond, the tail
/// Σ_{k=M..n} k^−θ uses the Euler–Maclaurin formula
/// ∫_M^n x^−θ dx + (M^−θ + n^−θ)/2 + θ/12·(M^−θ−1 − n^−θ−1), whose error is O(M^−θ−3).
fn harmonic(n: u64, theta: f64) -> f64 {
    const M: u64 = 100_000;
    if n <= M {
        return (1..=n).map(|k| (k as f64).powf(-theta)).sum();
    }
    let head: f64 = (1..M).map(|k| (k as f64).powf(-theta)).sum();
    let (m, nf) = (M as f64, n as f64);
    let integral = if theta == 1.0 {
        (nf / m).ln()
    } else {
        (nf.powf(1.0 - theta) - m.powf(1.0 - theta)) / (1.0 - theta)
    };
    head + integral
        + (m.powf(-theta) + nf.powf(-theta)) / 2.0
        + theta / 12.0 * (m.powf(-theta - 1.0) - nf.powf(-theta - 1.0))
}

/// Per-page access counts sorted in decreasing order (the empirical rank-frequency list).
fn sorted_counts(recs: &[TraceRecord]) -> Vec<u64> {
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for r in recs {
        *counts.entry(r.offset_bytes / PAGE).or_default() += 1;
    }
    let mut v: Vec<u64> = counts.into_values().collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

#[test]
fn zipf_rank_frequency_matches_the_pmf() {
    // Footprint n = 1000 pages, N = 400_000 requests. Expected share of rank k is
    // p_k = k^−θ / H(n, θ) (the Zipf pmf). Ranks are scrambled over the pages, so the
    // empirical ranks are the pages sorted by count. Checks:
    // * top-1 share vs p_1, and top-10 share vs Σ_{k≤10} p_k: binomial, 5 sd. (Sorting can only push the
    //   top-10 sum up, by far less than that tolerance here: adjacent expected counts in the top 10 differ by
    //   more than 3 sd.)
    // * least-squares slope of ln(count) on ln(rank) over ranks 1..=5 vs −θ (ln p_k is exactly linear in ln k
    //   with slope −θ). With Var(ln c_k) ≈ 1/(N p_k) (Poisson counts), Var(slope) = Σ w_k²/(N p_k), w_k =
    //   (x_k − x̄)/Σ(x_j − x̄)²; tolerance 5 sd.
    const N: usize = 400_000;
    let n = 1000u64;
    for theta in [0.5, 0.8, 0.99, 0.999_999, 1.0, 1.000_001, 1.2, 2.0, 3.5] {
        let c = GeneratorConfig { zipf_theta: theta, ..cfg(Pattern::Zipf) };
        let recs = take(&c, n * PAGE, SEED, N);
        let counts = sorted_counts(&recs);
        let h = harmonic(n, theta);
        let p = |k: usize| (k as f64).powf(-theta) / h;

        let top1 = counts[0] as f64 / N as f64;
        assert!((top1 - p(1)).abs() <= binom_5sd(p(1), N), "θ={theta}: top-1 {top1} vs {}", p(1));

        let top10 = counts.iter().take(10).sum::<u64>() as f64 / N as f64;
        let p10: f64 = (1..=10).map(p).sum();
        assert!((top10 - p10).abs() <= binom_5sd(p10, N), "θ={theta}: top-10 {top10} vs {p10}");

        let ks: Vec<usize> = (1..=5).filter(|&k| counts.len() >= k && counts[k - 1] > 0).collect();
        let xs: Vec<f64> = ks.iter().map(|&k| (k as f64).ln()).collect();
        let ys: Vec<f64> = ks.iter().map(|&k| (counts[k - 1] as f64).ln()).collect();
        let xm = xs.iter().sum::<f64>() / xs.len() as f64;
        let ym = ys.iter().sum::<f64>() / ys.len() as f64;
        let sxx: f64 = xs.iter().map(|x| (x - xm).powi(2)).sum();
        let slope = xs.iter().zip(&ys).map(|(x, y)| (x - xm) * (y - ym)).sum::<f64>() / sxx;
        let var: f64 = ks.iter().zip(&xs).map(|(&k, x)| ((x - xm) / sxx).powi(2) / (N as f64 * p(k))).sum();
        let tol = 5.0 * var.sqrt();
        assert!((slope + theta).abs() <= tol, "θ={theta}: slope {slope} vs −θ ± {tol}");
    }
}

#[test]
fn zipf_on_a_huge_footprint() {
    // 10^8 pages (400 GB at 4 KiB): setup is O(1) and sampling fast; the hottest page's
    // share matches 1/H(10^8, θ) (Euler–Maclaurin, see `harmonic`) within 5 binomial sd,
    // and the hottest pages are spread over the footprint, not packed at its start.
    const N: usize = 200_000;
    let n = 100_000_000u64;
    for theta in [0.99, 1.0, 1.5] {
        let c = GeneratorConfig { zipf_theta: theta, ..cfg(Pattern::Zipf) };
        let before = allocs();
        let g = Generator::new(&c, n * PAGE, SEED);
        assert!(allocs() - before <= 4, "setup allocates per page?");
        let recs: Vec<TraceRecord> = g.take(N).collect();
        assert!(recs.iter().all(|r| r.offset_bytes / PAGE < n));
        let counts = sorted_counts(&recs);
        let p1 = 1.0 / harmonic(n, theta);
        let top1 = counts[0] as f64 / N as f64;
        assert!((top1 - p1).abs() <= binom_5sd(p1, N), "θ={theta}: top-1 {top1} vs {p1}");

        let mut by_page: HashMap<u64, u64> = HashMap::new();
        for r in &recs {
            *by_page.entry(r.offset_bytes / PAGE).or_default() += 1;
        }
        let mut hot: Vec<(u64, u64)> = by_page.into_iter().collect();
        hot.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let in_first_percent = hot.iter().take(20).filter(|(page, _)| *page < n / 100).count();
        assert!(in_first_percent < 5, "θ={theta}: hot pages packed at the start");
    }
}

#[test]
fn zipf_hot_pages_do_not_depend_on_the_seed() {
    // The rank-to-page bijection is fixed: the hottest page is the same for every seed.
    let c = GeneratorConfig { zipf_theta: 1.5, ..cfg(Pattern::Zipf) };
    let hottest = |seed| {
        let mut m: HashMap<u64, u64> = HashMap::new();
        for r in take(&c, 1_000_000 * PAGE, seed, 20_000) {
            *m.entry(r.offset_bytes).or_default() += 1;
        }
        m.into_iter().max_by_key(|&(page, n)| (n, page)).unwrap().0
    };
    assert_eq!(hottest(1), hottest(2));
}

// ---------------------------------------------------------------------------------------
// Validation and serde.

#[test]
fn validate_rejects_each_bad_field() {
    type Edit = fn(&mut GeneratorConfig);
    let cases: &[(Edit, &str, &str)] = &[
        (|c| c.zipf_theta = 0.0, "zipf_theta", "must be in (0, 10], got 0"),
        (|c| c.zipf_theta = -1.0, "zipf_theta", "got -1"),
        (|c| c.zipf_theta = 10.5, "zipf_theta", "got 10.5"),
        (|c| c.zipf_theta = f64::NAN, "zipf_theta", "got NaN"),
        (|c| c.hot_fraction = 0.0, "hot_fraction", "must be in (0, 1), got 0"),
        (|c| c.hot_fraction = 1.0, "hot_fraction", "got 1"),
        (|c| c.hot_access_fraction = 1.5, "hot_access_fraction", "must be in [0, 1], got 1.5"),
        (|c| c.hot_access_fraction = -0.1, "hot_access_fraction", "got -0.1"),
        (|c| c.read_ratio = 1.01, "read_ratio", "must be in [0, 1], got 1.01"),
        (|c| c.read_ratio = f64::NAN, "read_ratio", "got NaN"),
        (|c| c.trim_ratio = -0.5, "trim_ratio", "must be in [0, 1], got -0.5"),
        (
            |c| {
                c.read_ratio = 0.7;
                c.trim_ratio = 0.5
            },
            "trim_ratio",
            "read_ratio + trim_ratio must be <= 1, got 0.7 + 0.5 = 1.2",
        ),
        (|c| c.sizes.clear(), "sizes", "at least one size"),
        (
            |c| c.sizes[0].bytes = 0,
            "sizes",
            "entry 0: bytes must be a positive multiple of align_bytes (4096), got 0",
        ),
        (
            |c| c.sizes.push(SizeWeight { bytes: 6000, weight: 1.0 }),
            "sizes",
            "entry 1: bytes must be a positive multiple of align_bytes (4096), got 6000",
        ),
        (|c| c.sizes[0].weight = -1.0, "sizes", "entry 0: weight must be finite and >= 0, got -1"),
        (|c| c.sizes[0].weight = f64::INFINITY, "sizes", "got inf"),
        (|c| c.sizes[0].weight = 0.0, "sizes", "weights must sum to a finite value > 0, got 0"),
        (|c| c.align_bytes = 0, "align_bytes", "must be > 0, got 0"),
        (|c| c.rate_iops = 0.0, "rate_iops", "must be finite and > 0, got 0"),
        (|c| c.rate_iops = f64::INFINITY, "rate_iops", "got inf"),
        (|c| c.interval_us = -3.0, "interval_us", "must be finite and > 0, got -3"),
        (|c| c.footprint_fraction = 0.0, "footprint_fraction", "must be in (0, 1], got 0"),
        (|c| c.footprint_fraction = 1.5, "footprint_fraction", "must be in (0, 1], got 1.5"),
        (|c| c.requests = Some(0), "requests", "must be >= 1"),
        (|c| c.read_sequential_fraction = 1.5, "read_sequential_fraction", "must be in [0, 1], got 1.5"),
        (
            |c| c.write_sequential_fraction = f64::NAN,
            "write_sequential_fraction",
            "must be in [0, 1], got NaN",
        ),
        (
            |c| {
                c.pattern = Pattern::Sequential;
                c.write_sequential_fraction = 0.5
            },
            "write_sequential_fraction",
            "must be 0 with pattern = \"sequential\"",
        ),
        (|c| c.start_s = -1.0, "start_s", "must be in [0, 10000000] seconds, got -1"),
        (|c| c.start_s = f64::INFINITY, "start_s", "got inf"),
        (
            |c| {
                c.start_s = 2.0;
                c.end_s = Some(2.0)
            },
            "end_s",
            "must be in (start_s, 10000000] seconds (start_s = 2), got 2",
        ),
        (|c| c.end_s = Some(1e8), "end_s", "got 100000000"),
        (
            |c| {
                c.on_s = Some(0.0);
                c.off_s = Some(1.0)
            },
            "on_s",
            "must be in [0.000001, 10000000] seconds, got 0",
        ),
        (
            |c| {
                c.on_s = Some(1.0);
                c.off_s = Some(-1.0)
            },
            "off_s",
            "must be in [0.000001, 10000000] seconds, got -1",
        ),
        (|c| c.on_s = Some(1.0), "off_s", "must be set with on_s (both or neither)"),
        (|c| c.off_s = Some(1.0), "on_s", "must be set with off_s (both or neither)"),
        (
            |c| {
                c.arrival = Arrival::Closed;
                c.start_s = 1.0
            },
            "start_s",
            "does not apply to arrival = \"closed\"",
        ),
        (
            |c| {
                c.arrival = Arrival::Closed;
                c.end_s = Some(1.0)
            },
            "end_s",
            "does not apply to arrival = \"closed\"",
        ),
        (
            |c| {
                c.arrival = Arrival::Closed;
                c.on_s = Some(1.0);
                c.off_s = Some(1.0)
            },
            "on_s",
            "does not apply to arrival = \"closed\"",
        ),
    ];
    assert_eq!(GeneratorConfig::default().validate(), Ok(()));
    for (i, (edit, key, reason)) in cases.iter().enumerate() {
        let mut c = GeneratorConfig::default();
        edit(&mut c);
        let (k, r) = c.validate().expect_err(&format!("case {i} accepted"));
        assert_eq!(k, *key, "case {i}: {r}");
        assert!(r.contains(reason), "case {i}: {r:?} lacks {reason:?}");
    }
}

#[test]
fn validate_accepts_edges() {
    type Edit = fn(&mut GeneratorConfig);
    let cases: &[Edit] = &[
        |c| c.zipf_theta = 1.0,
        |c| c.zipf_theta = 10.0,
        |c| c.zipf_theta = 1e-6,
        |c| c.hot_access_fraction = 0.0,
        |c| c.hot_access_fraction = 1.0,
        |c| {
            c.read_ratio = 0.7;
            c.trim_ratio = 0.3
        },
        |c| c.read_ratio = 1.0,
        |c| c.footprint_fraction = 1.0,
        |c| c.requests = Some(1),
        |c| c.sizes.push(SizeWeight { bytes: 8192, weight: 0.0 }),
        |c| {
            c.read_sequential_fraction = 1.0;
            c.write_sequential_fraction = 0.0
        },
        |c| {
            c.start_s = 1e7 - 1.0;
            c.end_s = Some(1e7)
        },
        |c| {
            c.on_s = Some(1e-6);
            c.off_s = Some(1e7)
        },
        |c| c.arrival = Arrival::Closed,
    ];
    for (i, edit) in cases.iter().enumerate() {
        let mut c = GeneratorConfig::default();
        edit(&mut c);
        assert_eq!(c.validate(), Ok(()), "case {i}");
    }
}

#[test]
fn config_from_toml() {
    let c: GeneratorConfig = toml::from_str(
        r#"
        pattern = "hotcold"
        read_ratio = 0.25
        arrival = "closed"
        sizes = [{ bytes = 4096 }, { bytes = 65536, weight = 0.5 }]
        requests = 10
        "#,
    )
    .unwrap();
    assert_eq!(c.pattern, Pattern::HotCold);
    assert_eq!(c.arrival, Arrival::Closed);
    assert_eq!(c.read_ratio, 0.25);
    assert_eq!(c.requests, Some(10));
    assert_eq!(
        c.sizes,
        vec![SizeWeight { bytes: 4096, weight: 1.0 }, SizeWeight { bytes: 65536, weight: 0.5 }]
    );
    assert_eq!(c.zipf_theta, 0.99, "unnamed fields keep their defaults");

    let empty: GeneratorConfig = toml::from_str("").unwrap();
    assert_eq!(empty, GeneratorConfig::default());

    for (text, what) in [
        ("pattern = \"zipf\"\nzipf_thetaa = 1.0", "unknown field"),
        ("pattern = \"pareto\"", "unknown variant"),
        ("sizes = [{ bytes = 4096, wieght = 1.0 }]", "unknown field"),
    ] {
        let e = toml::from_str::<GeneratorConfig>(text).unwrap_err().to_string();
        assert!(e.contains(what), "{text:?}: {e}");
    }
    for name in ["uniform", "zipf", "sequential", "hotcold"] {
        let c: GeneratorConfig = toml::from_str(&format!("pattern = \"{name}\"")).unwrap();
        assert_eq!(toml::to_string(&c).unwrap().lines().next().unwrap(), format!("pattern = \"{name}\""));
    }
}

// ---------------------------------------------------------------------------------------
// Sequential fractions.

/// Per op (read, write): how many of its requests after the first start where the previous
/// request of that op ended (with the module's wrap rule: at page 0 when the previous end
/// plus the size would pass the footprint end), and how many were looked at.
fn measured_sequential(recs: &[TraceRecord], footprint_bytes: u64) -> [(usize, usize); 2] {
    let mut prev_end: [Option<u64>; 2] = [None; 2];
    let mut counts = [(0usize, 0usize); 2];
    for r in recs {
        let i = match r.op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            IoOp::Trim => continue,
        };
        if let Some(end) = prev_end[i] {
            let expected = if end + r.size_bytes > footprint_bytes { 0 } else { end };
            counts[i].0 += usize::from(r.offset_bytes == expected);
            counts[i].1 += 1;
        }
        prev_end[i] = Some(r.offset_bytes + r.size_bytes);
    }
    counts
}

#[test]
fn sequential_fractions_match_the_configured_ones() {
    // Each read (write) after the first is made sequential by its own coin, an independent
    // Bernoulli(f) draw, so the count of sequential ones among m is binomial(m, f): the
    // measured share must be within 5 sd, sqrt(f(1-f)/m), of f. A request drawn by the
    // pattern can still land on the cursor by chance; that adds at most (1-f)·p_max to the
    // expected share, p_max the largest single-page probability of the pattern (1/n for
    // uniform, hot_access/hot_pages for hotcold, 1/H(n, θ) for zipf), and is added to the
    // tolerance. The DTRS case is the UPI paper's tenant: 20% of reads and 32% of writes
    // sequential, 42% of requests 4 KiB and a second mode at 64 KiB.
    const N: usize = 200_000;
    let ns = 1u64 << 32; // 2^20 pages
    let n = (ns / PAGE) as f64;
    type Case = (Pattern, f64, f64, f64, &'static [(u64, f64)], f64);
    let cases: &[Case] = &[
        (Pattern::Uniform, 0.5, 0.2, 0.32, &[(PAGE, 0.42), (16 * PAGE, 0.58)], 1.0 / n),
        (Pattern::Uniform, 0.3, 0.0, 1.0, &[(PAGE, 1.0), (8 * PAGE, 1.0)], 1.0 / n),
        (Pattern::Uniform, 0.7, 1.0, 0.0, &[(PAGE, 1.0)], 1.0 / n),
        (Pattern::Uniform, 0.5, 0.9, 0.05, &[(4 * PAGE, 1.0)], 1.0 / n),
        (Pattern::HotCold, 0.4, 0.25, 0.75, &[(PAGE, 1.0), (2 * PAGE, 1.0)], 0.8 / (0.2 * n)),
        (Pattern::Zipf, 0.5, 0.6, 0.1, &[(PAGE, 1.0)], 1.0 / harmonic(n as u64, 0.5)),
    ];
    for &(pattern, read_ratio, rf, wf, sizes, p_max) in cases {
        let c = GeneratorConfig {
            pattern,
            read_ratio,
            trim_ratio: 0.05,
            zipf_theta: 0.5,
            read_sequential_fraction: rf,
            write_sequential_fraction: wf,
            sizes: sizes.iter().map(|&(bytes, weight)| SizeWeight { bytes, weight }).collect(),
            ..GeneratorConfig::default()
        };
        let g = Generator::new(&c, ns, SEED);
        let fp = g.footprint_bytes();
        let recs: Vec<TraceRecord> = g.take(N).collect();
        for (i, f) in [rf, wf].into_iter().enumerate() {
            let (seq, m) = measured_sequential(&recs, fp)[i];
            assert!(m > 5_000, "{pattern:?}: too few requests of op {i}");
            let got = seq as f64 / m as f64;
            let tol = binom_5sd(f, m) + (1.0 - f) * p_max;
            assert!(
                (got - f).abs() <= tol,
                "{pattern:?} op {i}: sequential share {got}, expected {f} ± {tol}"
            );
        }
    }
}

#[test]
fn sequential_fractions_keep_the_other_draws() {
    // Common random numbers: with fractions the times, ops and sizes are those of the same
    // config without them, and every request is either where that config put it or at its
    // op's cursor (the previous end of its op, wrapping to 0).
    let base = mixed(Pattern::Zipf, Arrival::Poisson, &[(PAGE, 1.0), (8 * PAGE, 1.0)]);
    let seq =
        GeneratorConfig { read_sequential_fraction: 0.4, write_sequential_fraction: 0.7, ..base.clone() };
    let ns = 1u64 << 30;
    let a = take(&base, ns, SEED, 20_000);
    let b = take(&seq, ns, SEED, 20_000);
    let fp = Generator::new(&seq, ns, SEED).footprint_bytes();
    let mut prev_end = [0u64; 3];
    let mut moved = 0;
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.time, x.op, x.size_bytes), (y.time, y.op, y.size_bytes));
        let i = y.op as usize;
        let cursor = if prev_end[i] + y.size_bytes > fp { 0 } else { prev_end[i] };
        if x.offset_bytes != y.offset_bytes {
            assert_ne!(y.op, IoOp::Trim, "a trim moved: {y:?}");
            assert_eq!(y.offset_bytes, cursor, "{y:?} is neither drawn nor at its cursor");
            moved += 1;
        }
        prev_end[i] = y.offset_bytes + y.size_bytes;
    }
    assert!(moved > 5_000, "only {moved} requests made sequential");
    assert_ne!(a, b);
}

#[test]
fn a_fraction_of_one_is_the_sequential_pattern_for_that_op() {
    // write_sequential_fraction = 1 over a uniform pattern gives the writes of
    // `pattern = "sequential"` (same cursor start, advance and wrap rule).
    let sizes = &[(PAGE, 1.0), (3 * PAGE, 1.0)];
    let frac =
        GeneratorConfig { write_sequential_fraction: 1.0, ..mixed(Pattern::Uniform, Arrival::Fixed, sizes) };
    let pure = mixed(Pattern::Sequential, Arrival::Fixed, sizes);
    let writes = |c: &GeneratorConfig| -> Vec<(u64, u64)> {
        take(c, 101 * PAGE, SEED, 5000)
            .iter()
            .filter(|r| r.op == IoOp::Write)
            .map(|r| (r.offset_bytes, r.size_bytes))
            .collect()
    };
    assert_eq!(writes(&frac), writes(&pure));
}

// ---------------------------------------------------------------------------------------
// Time windows.

/// A config with the given arrival and time knobs, writes of one page.
fn windowed(
    arrival: Arrival,
    start_s: f64,
    end_s: Option<f64>,
    on_off: Option<(f64, f64)>,
) -> GeneratorConfig {
    GeneratorConfig {
        arrival,
        rate_iops: 20_000.0,
        interval_us: 37.0,
        start_s,
        end_s,
        on_s: on_off.map(|p| p.0),
        off_s: on_off.map(|p| p.1),
        ..GeneratorConfig::default()
    }
}

/// Nanoseconds of "on" time in [start, end) of a cycle (on, off) starting at `start`.
fn on_time_ns(start: u64, end: u64, on: u64, off: u64) -> u64 {
    let span = end - start;
    let cycle = on + off;
    span / cycle * on + (span % cycle).min(on)
}

#[test]
fn no_arrival_outside_the_windows_and_the_on_rate_is_the_rate() {
    // Every record falls in [start, end) and, with a cycle, in an "on" period. Poisson: the
    // count in the windows is Poisson(rate × on time), so it must be within 5 sd,
    // sqrt(rate × on time), of its mean. Fixed: the count is the number of multiples of the
    // interval below the on time, up to one (rounding at the edge).
    // (start_s, end_s, (on_s, off_s))
    type Windows = (f64, Option<f64>, Option<(f64, f64)>);
    let cases: &[Windows] = &[
        (0.0, Some(2.0), None),
        (0.25, Some(3.0), None),
        (0.5, Some(4.1), Some((0.3, 0.2))),
        (0.0, Some(5.0), Some((0.01, 0.09))),
        (1.0, Some(2.0), Some((2.0, 1.0))), // the window ends inside the first "on" period
        (0.0, Some(6.0), Some((0.05, 1.0))), // ends inside an "off" period
    ];
    let ns = |s: f64| (s * 1e9).round() as u64;
    for &(start_s, end_s, on_off) in cases {
        for arrival in [Arrival::Poisson, Arrival::Fixed] {
            let c = windowed(arrival, start_s, end_s, on_off);
            let recs: Vec<TraceRecord> = Generator::new(&c, 1 << 30, SEED).collect();
            let (start, end) = (ns(start_s), ns(end_s.unwrap()));
            let (on, off) = on_off.map_or((end - start, 1), |(a, b)| (ns(a), ns(b)));
            assert_eq!(recs[0].time.ns(), start, "{c:?}: first arrival at start_s");
            for r in &recs {
                let t = r.time.ns();
                assert!(t >= start && t < end, "{c:?}: {t} outside [{start}, {end})");
                assert!((t - start) % (on + off) < on, "{c:?}: {t} in an off period");
            }
            assert!(recs.windows(2).all(|w| w[0].time <= w[1].time));
            let on_ns = on_time_ns(start, end, on, off) as f64;
            let got = recs.len() as f64;
            let (want, tol) = match arrival {
                Arrival::Poisson => (20_000.0 * on_ns / 1e9, 5.0 * (20_000.0 * on_ns / 1e9).sqrt()),
                _ => ((on_ns / 37_000.0).ceil(), 1.0),
            };
            assert!((got - want).abs() <= tol, "{c:?}: {got} arrivals, expected {want} ± {tol}");
        }
    }
}

#[test]
fn fixed_arrivals_skip_exactly_the_off_periods() {
    // Consecutive arrivals of a fixed process are one interval apart within an "on" period,
    // and one interval plus the off period apart when an off period lies between them
    // (± 1 ns for the rounding of each time to the nanosecond).
    let (interval, on, off) = (37_000u64, 1_000_000u64, 3_000_000u64);
    let c = windowed(Arrival::Fixed, 0.002, Some(0.05), Some((1e-3, 3e-3)));
    let recs: Vec<TraceRecord> = Generator::new(&c, 1 << 30, SEED).collect();
    let mut crossings = 0;
    for w in recs.windows(2) {
        let (a, b) = (w[0].time.ns() - 2_000_000, w[1].time.ns() - 2_000_000);
        let cycles = b / (on + off) - a / (on + off);
        crossings += cycles;
        let want = interval + cycles * off;
        assert!((b - a).abs_diff(want) <= 1, "gap {} between {a} and {b}, expected {want}", b - a);
    }
    assert!(crossings >= 10, "the test saw only {crossings} off periods");
}

#[test]
fn an_end_time_ends_the_generator_and_the_request_limit_still_applies() {
    let c = GeneratorConfig { requests: Some(10), ..windowed(Arrival::Fixed, 0.0, Some(1.0), None) };
    let mut g = Generator::new(&c, 1 << 30, SEED);
    assert_eq!(g.size_hint(), (0, Some(10)), "may end before its limit");
    assert_eq!(g.by_ref().count(), 10);
    // 0.001 s at one request per 37 us: requests 0..=27 (27 × 37 us = 999 us < 1 ms).
    let c = windowed(Arrival::Fixed, 0.0, Some(0.001), None);
    let mut g = Generator::new(&c, 1 << 30, SEED);
    assert_eq!(g.by_ref().count(), 28);
    assert_eq!(g.next(), None);
    assert_eq!(g.size_hint(), (0, Some(0)));
}

#[test]
fn time_knobs_do_not_change_the_draws() {
    // The windows only move times: ops, sizes and offsets are those of the ungated config.
    let plain = mixed(Pattern::Zipf, Arrival::Poisson, &[(PAGE, 1.0), (4 * PAGE, 1.0)]);
    let gated = GeneratorConfig { start_s: 3.0, on_s: Some(0.01), off_s: Some(0.5), ..plain.clone() };
    let a = take(&plain, 1 << 30, SEED, 5000);
    let b = take(&gated, 1 << 30, SEED, 5000);
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| (x.op, x.offset_bytes, x.size_bytes) == (y.op, y.offset_bytes, y.size_bytes)));
    assert!(a.iter().zip(&b).all(|(x, y)| y.time > x.time));
}

// ---------------------------------------------------------------------------------------
// Multi-part workloads.

/// Three parts: a Poisson reader, a gated fixed writer starting late, and a short Poisson
/// burst with an end time; every part ends.
fn three_parts() -> Vec<GeneratorConfig> {
    vec![
        GeneratorConfig { read_ratio: 1.0, rate_iops: 2_000.0, requests: Some(3_000), ..cfg(Pattern::Zipf) },
        GeneratorConfig {
            arrival: Arrival::Fixed,
            interval_us: 250.0,
            start_s: 0.1,
            on_s: Some(0.05),
            off_s: Some(0.2),
            end_s: Some(1.5),
            write_sequential_fraction: 0.5,
            ..cfg(Pattern::Uniform)
        },
        GeneratorConfig { rate_iops: 50_000.0, start_s: 0.7, end_s: Some(0.72), ..cfg(Pattern::HotCold) },
    ]
}

fn merged(parts: &[GeneratorConfig], seed: u64) -> Vec<(usize, TraceRecord)> {
    let mut s = SyntheticWorkload::array(parts.to_vec()).unwrap().try_build(1 << 30, seed).unwrap();
    std::iter::from_fn(|| s.next_with_part()).collect()
}

#[test]
fn merged_parts_are_time_ordered_and_each_part_is_itself() {
    let parts = three_parts();
    let all = merged(&parts, SEED);
    for w in all.windows(2) {
        let ((ja, a), (jb, b)) = (w[0], w[1]);
        assert!(a.time < b.time || (a.time == b.time && ja < jb), "out of order: {:?} then {:?}", w[0], w[1]);
    }
    for (j, part) in parts.iter().enumerate() {
        let mine: Vec<TraceRecord> = all.iter().filter(|(k, _)| *k == j).map(|(_, r)| *r).collect();
        let alone: Vec<TraceRecord> = Generator::new(part, 1 << 30, part_seed(SEED, j)).collect();
        assert!(!alone.is_empty());
        assert_eq!(mine, alone, "part {j} differs from the part generated alone");
    }
    // The burst of part 2 really interleaves with the others.
    let burst = all.iter().position(|(j, _)| *j == 2).unwrap();
    assert!(all[..burst].iter().any(|(j, _)| *j == 0) && all[burst..].iter().any(|(j, _)| *j == 0));
}

#[test]
fn ties_go_to_the_lower_part() {
    // Two fixed parts with the same interval arrive at the same times: part 0 first, always.
    let p = GeneratorConfig {
        arrival: Arrival::Fixed,
        interval_us: 10.0,
        requests: Some(100),
        ..cfg(Pattern::Uniform)
    };
    let all = merged(&[p.clone(), p.clone(), p], SEED);
    assert_eq!(all.len(), 300);
    for (i, (j, r)) in all.iter().enumerate() {
        assert_eq!((*j, r.time.ns()), (i % 3, (i / 3) as u64 * 10_000));
    }
    // The parts have their own seeds: the same config draws different addresses.
    let offsets =
        |k: usize| all.iter().filter(|(j, _)| *j == k).map(|(_, r)| r.offset_bytes).collect::<Vec<_>>();
    assert_ne!(offsets(0), offsets(1));
    assert_ne!(offsets(1), offsets(2));
}

#[test]
fn a_single_part_is_the_generator_itself() {
    for pattern in ALL_PATTERNS {
        for arrival in ALL_ARRIVALS {
            let c = mixed(pattern, arrival, &[(PAGE, 1.0), (8 * PAGE, 1.0)]);
            let want = take(&c, 1 << 30, SEED, 3000);
            let one = SyntheticWorkload::single(c.clone()).try_build(1 << 30, SEED).unwrap();
            assert_eq!(one.take(3000).collect::<Vec<_>>(), want, "{pattern:?}/{arrival:?} table");
            let array = SyntheticWorkload::array(vec![c]).unwrap().try_build(1 << 30, SEED).unwrap();
            assert_eq!(array.take(3000).collect::<Vec<_>>(), want, "{pattern:?}/{arrival:?} array of one");
        }
    }
}

#[test]
fn merged_stream_is_deterministic_and_seeded() {
    let parts = three_parts();
    assert_eq!(merged(&parts, SEED), merged(&parts, SEED));
    assert_ne!(merged(&parts, SEED), merged(&parts, SEED + 1));
    // A clone continues identically.
    let mut s = SyntheticWorkload::array(parts).unwrap().try_build(1 << 30, SEED).unwrap();
    s.nth(500);
    let t = s.clone();
    assert!(s.eq(t));
}

#[test]
fn merged_stream_does_not_allocate() {
    let mut parts = three_parts();
    for p in &mut parts {
        p.requests = None;
        p.end_s = None;
    }
    let mut s: SyntheticStream = SyntheticWorkload::array(parts).unwrap().try_build(1 << 30, SEED).unwrap();
    s.next();
    let before = allocs();
    let mut acc = 0u64;
    for _ in 0..10_000 {
        acc = acc.wrapping_add(s.next().unwrap().offset_bytes);
    }
    assert_eq!(allocs() - before, 0, "allocated (acc {acc})");
}

#[test]
fn workload_errors_name_the_part() {
    let ok = GeneratorConfig::default();
    let closed = GeneratorConfig { arrival: Arrival::Closed, ..ok.clone() };
    let bad = GeneratorConfig { zipf_theta: 0.0, ..ok.clone() };
    let build = |w: SyntheticWorkload| w.try_build(1 << 30, SEED).map(|_| ()).unwrap_err();
    assert_eq!(build(SyntheticWorkload::single(bad.clone())).0, "zipf_theta");
    assert_eq!(build(SyntheticWorkload::array(vec![ok.clone(), bad]).unwrap()).0, "1.zipf_theta");
    let (key, reason) = build(SyntheticWorkload::array(vec![ok.clone(), closed.clone()]).unwrap());
    assert_eq!(key, "1.arrival");
    assert!(
        reason.contains("cannot be mixed") && reason.contains("part 0 is \"poisson\", part 1 is \"closed\""),
        "{reason}"
    );
    let (key, reason) =
        build(SyntheticWorkload::array(vec![closed.clone(), closed.clone(), ok.clone()]).unwrap());
    assert_eq!(key, "2.arrival");
    assert!(reason.contains("part 0 is \"closed\", part 2 is \"poisson\""), "{reason}");
    assert!(SyntheticWorkload::array(vec![closed.clone()]).unwrap().try_build(1 << 30, SEED).is_ok());
    assert!(SyntheticWorkload::array(vec![closed.clone(), closed]).unwrap().try_build(1 << 30, SEED).is_ok());
    let (key, reason) = build(SyntheticWorkload::array(vec![ok; 65]).unwrap());
    assert_eq!((key.as_str(), reason.as_str()), ("", "must list 1 to 64 parts, got 65"));
    assert!(SyntheticWorkload::array(Vec::new()).is_none());
}

#[test]
fn workload_from_toml_is_a_table_or_an_array() {
    #[derive(serde::Deserialize, serde::Serialize)]
    struct T {
        synthetic: SyntheticWorkload,
    }
    let one: T = toml::from_str("[synthetic]\nread_ratio = 0.5\n").unwrap();
    assert!(!one.synthetic.is_array());
    assert_eq!(one.synthetic.parts()[0].read_ratio, 0.5);
    let text = "[[synthetic]]\nread_ratio = 0.5\n[[synthetic]]\nstart_s = 2.0\nend_s = 3.0\n";
    let two: T = toml::from_str(text).unwrap();
    assert!(two.synthetic.is_array());
    assert_eq!(two.synthetic.parts().len(), 2);
    assert_eq!((two.synthetic.parts()[1].start_s, two.synthetic.parts()[1].end_s), (2.0, Some(3.0)));
    // Written back in the form read, and read back equal.
    let out = toml::to_string(&two).unwrap();
    assert_eq!(out.matches("[[synthetic]]").count(), 2, "{out}");
    assert_eq!(toml::from_str::<T>(&out).unwrap().synthetic, two.synthetic);
    let out = toml::to_string(&one).unwrap();
    assert!(out.contains("[synthetic]") && !out.contains("[[synthetic]]"), "{out}");
    for (text, what) in [
        ("synthetic = []", "invalid length 0"),
        ("synthetic = 3", "a table of generator keys or an array of such tables"),
        ("[[synthetic]]\nzipf_thetaa = 1.0", "unknown field `zipf_thetaa`"),
    ] {
        let e = toml::from_str::<T>(text).err().unwrap().to_string();
        assert!(e.contains(what), "{text:?}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// Footprint regions, stream ids and closed-loop round-robin (the vStream paper's synthetic
// benchmark, §5.2: partitions of one namespace, one virtual stream each, written in turn).

/// `(namespace pages, footprint_offset_fraction, footprint_fraction, largest request pages)`
/// and the region the docs define: first page `floor(pages × offset)`, `floor(pages ×
/// fraction)` pages grown to the largest request, ending at most at the namespace's end.
/// `(namespace pages, offset fraction, fraction, largest request pages, (first page, pages))`.
type RegionCase = (u64, f64, f64, u64, (u64, u64));

#[test]
fn footprint_region_is_where_the_docs_put_it() {
    let cases: &[RegionCase] = &[
        (1000, 0.0, 1.0, 1, (0, 1000)),
        (1000, 0.25, 0.5, 1, (250, 500)),
        (1000, 0.05, 0.05, 1, (50, 50)),
        (1001, 0.5, 0.5, 1, (500, 500)), // floor(500.5) = 500, floor(500.5) = 500
        (1000, 0.999, 0.001, 1, (999, 1)),
        (1000, 0.5, 0.001, 4, (500, 4)), // grown to the largest request
        (1000, 0.9, 0.1, 8, (900, 100)),
        // 7 parts of 1/7: the last ends exactly at the namespace's end.
        (7000, 6.0 / 7.0, 1.0 / 7.0, 1, (6000, 1000)),
    ];
    for &(pages, off, frac, size, (base, len)) in cases {
        for pattern in ALL_PATTERNS {
            let c = GeneratorConfig {
                pattern,
                footprint_offset_fraction: off,
                footprint_fraction: frac,
                sizes: vec![SizeWeight { bytes: size * PAGE, weight: 1.0 }],
                ..GeneratorConfig::default()
            };
            let mut g = Generator::new(&c, pages * PAGE, SEED);
            assert_eq!(
                (g.footprint_offset_bytes(), g.footprint_pages()),
                (base * PAGE, len),
                "{pages} {off} {frac} {pattern:?}"
            );
            for _ in 0..3000 {
                let r = g.next().unwrap();
                assert!(
                    r.offset_bytes >= base * PAGE && r.offset_bytes + r.size_bytes <= (base + len) * PAGE,
                    "{pattern:?} {r:?} outside [{base}, {})",
                    base + len
                );
            }
        }
    }
}

#[test]
fn sequential_region_starts_at_its_offset_and_wraps_to_it() {
    // 100 pages from page 300 of 1000, requests of 30 pages: 300, 330, 360, then 390 would
    // pass 400, so the next starts again at 300 (the docs' wrap-around, relative to the region).
    let c = GeneratorConfig {
        pattern: Pattern::Sequential,
        footprint_offset_fraction: 0.3,
        footprint_fraction: 0.1,
        sizes: vec![SizeWeight { bytes: 30 * PAGE, weight: 1.0 }],
        ..GeneratorConfig::default()
    };
    let starts: Vec<u64> = take(&c, 1000 * PAGE, SEED, 7).iter().map(|r| r.offset_bytes / PAGE).collect();
    assert_eq!(starts, [300, 330, 360, 300, 330, 360, 300]);
}

#[test]
fn region_keeps_the_other_draws() {
    // Moving the region shifts every offset by the same amount and changes nothing else.
    let base = mixed(Pattern::Zipf, Arrival::Poisson, &[(PAGE, 1.0), (4 * PAGE, 1.0)]);
    let a = GeneratorConfig { footprint_fraction: 0.25, ..base.clone() };
    let b = GeneratorConfig { footprint_fraction: 0.25, footprint_offset_fraction: 0.5, ..base };
    let (ra, rb) = (take(&a, 4000 * PAGE, SEED, 2000), take(&b, 4000 * PAGE, SEED, 2000));
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(
            (x.time, x.op, x.size_bytes, x.offset_bytes + 2000 * PAGE),
            (y.time, y.op, y.size_bytes, y.offset_bytes)
        );
    }
}

#[test]
fn every_record_carries_the_part_stream() {
    for stream in [0u32, 1, 7, 65_535] {
        for pattern in ALL_PATTERNS {
            let c = GeneratorConfig { pattern, stream, ..GeneratorConfig::default() };
            assert!(
                take(&c, 1 << 26, SEED, 500).iter().all(|r| u32::from(r.stream) == stream),
                "{stream} {pattern:?}"
            );
        }
    }
}

#[test]
fn region_and_stream_errors_name_the_key_and_range() {
    type Edit = fn(&mut GeneratorConfig);
    let cases: &[(Edit, &str, &str)] = &[
        (|c| c.footprint_offset_fraction = 1.0, "footprint_offset_fraction", "must be in [0, 1), got 1"),
        (|c| c.footprint_offset_fraction = -0.1, "footprint_offset_fraction", "must be in [0, 1), got -0.1"),
        (|c| c.footprint_offset_fraction = f64::NAN, "footprint_offset_fraction", "got NaN"),
        (
            |c| {
                c.footprint_offset_fraction = 0.5;
                c.footprint_fraction = 0.6;
            },
            "footprint_offset_fraction",
            "footprint_offset_fraction + footprint_fraction must be <= 1 (the footprint ends inside the \
             namespace), got 0.5 + 0.6 = 1.1",
        ),
        (|c| c.stream = 65_536, "stream", "must be in [0, 65535], got 65536"),
    ];
    for (edit, key, reason) in cases {
        let mut c = GeneratorConfig::default();
        edit(&mut c);
        let (k, r) = c.validate().unwrap_err();
        assert_eq!(&k, key);
        assert!(r.contains(reason), "{key}: {r:?} lacks {reason:?}");
    }
    // Edges accepted: a sum that is 1 up to decimal rounding, the last stream id.
    for (off, frac) in [(0.7, 0.3), (0.1 + 0.2, 0.7), (0.9, 0.1), (0.0, 1.0)] {
        let c = GeneratorConfig {
            footprint_offset_fraction: off,
            footprint_fraction: frac,
            stream: 65_535,
            ..GeneratorConfig::default()
        };
        assert!(c.validate().is_ok(), "{off} + {frac}");
    }
    // A region too small for the largest request: fewer pages left after its start.
    let c = GeneratorConfig {
        footprint_offset_fraction: 0.99,
        sizes: vec![SizeWeight { bytes: 20 * PAGE, weight: 1.0 }],
        footprint_fraction: 0.01,
        ..GeneratorConfig::default()
    };
    let (k, r) = Generator::try_new(&c, 1000 * PAGE, SEED).unwrap_err();
    assert_eq!(k, "footprint_offset_fraction");
    assert!(
        r.contains("starts at page 990 of 1000")
            && r.contains("leaving 10 pages, fewer than the largest request (20 pages)"),
        "{r}"
    );
}

fn closed_part(stream: u32, requests: Option<u64>) -> GeneratorConfig {
    GeneratorConfig {
        arrival: Arrival::Closed,
        pattern: Pattern::Sequential,
        stream,
        requests,
        ..GeneratorConfig::default()
    }
}

#[test]
fn closed_parts_are_merged_round_robin() {
    // (requests per part, the order of parts the round-robin rule gives: one of each running
    // part in turn from part 0, an ended part skipped).
    let cases: &[(&[u64], &[u32])] = &[
        (&[1], &[0]),
        (&[3, 3], &[0, 1, 0, 1, 0, 1]),
        (&[2, 5, 3], &[0, 1, 2, 0, 1, 2, 1, 2, 1, 1]),
        (&[1, 1, 4], &[0, 1, 2, 2, 2, 2]),
        (&[4, 1, 1, 2], &[0, 1, 2, 3, 0, 3, 0, 0]),
    ];
    for &(limits, want) in cases {
        let parts = limits.iter().enumerate().map(|(j, &n)| closed_part(j as u32, Some(n))).collect();
        let w = SyntheticWorkload::array(parts).unwrap();
        assert!(w.is_closed());
        let got: Vec<u32> = w.try_build(1 << 30, SEED).unwrap().map(|r| u32::from(r.stream)).collect();
        assert_eq!(got, want, "{limits:?}");
    }
}

#[test]
fn round_robin_parts_keep_their_own_sequences() {
    // Each part's records, taken out of the merge, are exactly those it produces alone with
    // its part seed (so a part's own cursor advances only on its turns).
    let parts: Vec<GeneratorConfig> = (0..4u32)
        .map(|j| GeneratorConfig {
            footprint_offset_fraction: f64::from(j) * 0.25,
            footprint_fraction: 0.25,
            pattern: if j % 2 == 0 { Pattern::Sequential } else { Pattern::Uniform },
            ..closed_part(j, None)
        })
        .collect();
    let ns = 4000 * PAGE;
    let mut s = SyntheticWorkload::array(parts.clone()).unwrap().try_build(ns, SEED).unwrap();
    let mut by_part: Vec<Vec<TraceRecord>> = vec![Vec::new(); 4];
    for k in 0..400 {
        let (j, r) = s.next_with_part().unwrap();
        assert_eq!(j, k % 4);
        by_part[j].push(r);
    }
    for (j, recs) in by_part.iter().enumerate() {
        assert_eq!(recs, &take(&parts[j], ns, part_seed(SEED, j), 100), "part {j}");
    }
}

#[test]
fn round_robin_does_not_allocate() {
    let parts = (0..8u32).map(|j| closed_part(j, None)).collect();
    let mut s: SyntheticStream = SyntheticWorkload::array(parts).unwrap().try_build(1 << 30, SEED).unwrap();
    s.next();
    let before = allocs();
    let mut acc = 0u64;
    for _ in 0..10_000 {
        acc = acc.wrapping_add(s.next().unwrap().offset_bytes);
    }
    assert_eq!(allocs() - before, 0, "allocated (acc {acc})");
}
