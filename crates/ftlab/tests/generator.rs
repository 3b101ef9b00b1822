//! Tests of the synthetic workload generator (`ftlab::workload::generator`).
//!
//! Statistical checks use a fixed seed, so they are deterministic; their tolerances are
//! nevertheless derived from the sampling distribution (mostly 5 standard deviations, a
//! two-sided false-alarm probability below 6e-7 per check under a normal approximation), so
//! that a change of seed or of RNG stream does not make them flaky, while a wrong
//! distribution (a bias of a few percent) fails.

use ftlab::workload::generator::{Arrival, Generator, GeneratorConfig, Pattern, SizeWeight};
use ftlab::workload::{IoOp, TraceRecord};
use std::collections::HashMap;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs;

// ---------------------------------------------------------------------------------------
// Helpers.

const PAGE: u64 = 4096;
const SEED: u64 = 0x5EED_F7AB;

fn cfg(pattern: Pattern) -> GeneratorConfig {
    GeneratorConfig {
        pattern,
        ..GeneratorConfig::default()
    }
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

const ALL_PATTERNS: [Pattern; 4] = [
    Pattern::Uniform,
    Pattern::Zipf,
    Pattern::Sequential,
    Pattern::HotCold,
];
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
        sizes: vec![
            SizeWeight {
                bytes: PAGE,
                weight: 1.0,
            },
            SizeWeight {
                bytes: 4 * PAGE,
                weight: 1.0,
            },
        ],
        ..cfg(Pattern::Uniform)
    };
    let reads = GeneratorConfig {
        read_ratio: 0.7,
        ..base.clone()
    };
    let a = take(&base, 1 << 30, SEED, 500);
    let b = take(&reads, 1 << 30, SEED, 500);
    assert!(a.iter().zip(&b).all(|(x, y)| x.time == y.time
        && x.size_bytes == y.size_bytes
        && x.offset_bytes == y.offset_bytes));
    assert_ne!(a, b);
}

// ---------------------------------------------------------------------------------------
// Op mix, sizes, bounds.

#[test]
fn op_mix_matches_ratios() {
    // Each op share is a binomial proportion; tolerance 5 sd (exact when p is 0 or 1).
    const N: usize = 100_000;
    for (read, trim) in [
        (0.0, 0.0),
        (0.3, 0.0),
        (0.5, 0.2),
        (0.0, 1.0),
        (1.0, 0.0),
        (0.25, 0.25),
    ] {
        let c = GeneratorConfig {
            read_ratio: read,
            trim_ratio: trim,
            ..cfg(Pattern::Uniform)
        };
        let recs = take(&c, 1 << 30, SEED, N);
        for (op, p) in [
            (IoOp::Read, read),
            (IoOp::Trim, trim),
            (IoOp::Write, 1.0 - read - trim),
        ] {
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
    let sizes = [
        (PAGE, 1.0),
        (4 * PAGE, 3.0),
        (16 * PAGE, 0.0),
        (32 * PAGE, 0.5),
    ];
    let total: f64 = sizes.iter().map(|s| s.1).sum();
    let c = GeneratorConfig {
        sizes: sizes
            .iter()
            .map(|&(bytes, weight)| SizeWeight { bytes, weight })
            .collect(),
        ..cfg(Pattern::Uniform)
    };
    let recs = take(&c, 1 << 30, SEED, N);
    for (bytes, w) in sizes {
        let p = w / total;
        let got = share(&recs, |r| r.size_bytes == bytes);
        let tol = binom_5sd(p, N);
        assert!(
            (got - p).abs() <= tol,
            "size {bytes}: share {got}, expected {p} ± {tol}"
        );
    }
}

#[test]
fn every_request_is_aligned_and_inside_the_footprint() {
    // Namespaces that are not a whole number of pages, odd footprints, large requests.
    let sizes = vec![
        SizeWeight {
            bytes: PAGE,
            weight: 3.0,
        },
        SizeWeight {
            bytes: 5 * PAGE,
            weight: 1.0,
        },
        SizeWeight {
            bytes: 64 * PAGE,
            weight: 1.0,
        },
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
                    assert!(
                        r.offset_bytes + r.size_bytes <= fp,
                        "{pattern:?} {r:?} fp={fp}"
                    );
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
            sizes: vec![SizeWeight {
                bytes: 2 * align,
                weight: 1.0,
            }],
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
    let c = GeneratorConfig {
        sizes: vec![SizeWeight {
            bytes: 8 * PAGE,
            weight: 1.0,
        }],
        ..cfg(Pattern::Uniform)
    };
    let recs = take(&c, 10 * PAGE, SEED, N);
    assert!(recs
        .iter()
        .all(|r| r.size_bytes == 8 * PAGE && r.offset_bytes <= 2 * PAGE));
    for (page, p) in [(0, 0.1), (1, 0.1), (2, 0.8)] {
        let got = share(&recs, |r| r.offset_bytes == page * PAGE);
        assert!(
            (got - p).abs() <= binom_5sd(p, N),
            "page {page}: {got} vs {p}"
        );
    }
}

#[test]
fn footprint_grows_to_the_largest_request() {
    let c = GeneratorConfig {
        footprint_fraction: 0.01,
        sizes: vec![SizeWeight {
            bytes: 50 * PAGE,
            weight: 1.0,
        }],
        ..cfg(Pattern::Uniform)
    };
    let g = Generator::new(&c, 1000 * PAGE, SEED);
    assert_eq!(g.footprint_pages(), 50);
    assert!(g.take(1000).all(|r| r.offset_bytes == 0));
}

#[test]
fn request_larger_than_namespace_is_an_error() {
    let c = GeneratorConfig {
        sizes: vec![SizeWeight {
            bytes: 16 * PAGE,
            weight: 1.0,
        }],
        ..cfg(Pattern::Uniform)
    };
    let (key, reason) = Generator::try_new(&c, 16 * PAGE - 1, SEED).unwrap_err();
    assert_eq!(key, "sizes");
    assert!(reason.contains("does not fit"), "{reason}");
    assert!(Generator::try_new(&c, 16 * PAGE, SEED).is_ok());
    // A validation error is passed through.
    let bad = GeneratorConfig {
        read_ratio: 2.0,
        ..c
    };
    assert_eq!(
        Generator::try_new(&bad, 1 << 30, SEED).unwrap_err().0,
        "read_ratio"
    );
}

#[test]
fn request_limit() {
    for n in [1u64, 7, 1000] {
        let c = GeneratorConfig {
            requests: Some(n),
            ..cfg(Pattern::Zipf)
        };
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
            assert_eq!(
                allocs() - before,
                0,
                "{pattern:?}/{arrival:?} allocated (acc {acc})"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Arrivals.

#[test]
fn poisson_gaps_are_exponential() {
    // N gaps of an exponential with mean μ = 1/rate:
    // * sample mean: sd μ/√N, tolerance 5 sd, i.e. |mean/μ − 1| ≤ 5/√N;
    // * coefficient of variation s/mean: by the delta method, with Var(s²) = 8μ⁴/N,
    //   Cov(s², mean) = μ₃/N = 2μ³/N, its variance is 2/N + 1/N − 2/N = 1/N, so the
    //   tolerance is |CV − 1| ≤ 5/√N;
    // * Kolmogorov–Smirnov distance to the Exp(rate) CDF (rate known, not fitted):
    //   P(√N·D > 1.949) ≈ 0.001 asymptotically, so D ≤ 1.949/√N, plus the ns rounding of
    //   the times (a CDF shift of at most 1 ns × rate / 1e9).
    const N: usize = 100_000;
    for rate in [1_000.0, 50_000.0, 1_000_000.0] {
        let c = GeneratorConfig {
            rate_iops: rate,
            ..cfg(Pattern::Uniform)
        };
        let recs = take(&c, 1 << 30, SEED, N + 1);
        assert_eq!(recs[0].time.ns(), 0, "first arrival at 0");
        let mut gaps: Vec<f64> = recs
            .windows(2)
            .map(|w| (w[1].time.ns() - w[0].time.ns()) as f64)
            .collect();
        let mu = 1e9 / rate;
        let n = N as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let cv = var.sqrt() / mean;
        let tol = 5.0 / n.sqrt();
        assert!(
            (mean / mu - 1.0).abs() <= tol,
            "rate {rate}: mean gap {mean} ns vs {mu}"
        );
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
        let c = GeneratorConfig {
            arrival: Arrival::Fixed,
            interval_us,
            ..cfg(Pattern::Uniform)
        };
        // Request i at round(i · (interval_us · 1000)) ns: no accumulated drift.
        let interval_ns = interval_us * 1000.0;
        for (i, r) in take(&c, 1 << 30, SEED, 10_000).iter().enumerate() {
            assert_eq!(r.time.ns(), (i as f64 * interval_ns).round() as u64);
            assert!((r.time.ns() as f64 - i as f64 * interval_us * 1000.0).abs() <= 0.5 + 1e-6);
        }
    }
    let c = GeneratorConfig {
        arrival: Arrival::Closed,
        ..cfg(Pattern::Sequential)
    };
    assert!(take(&c, 1 << 30, SEED, 1000)
        .iter()
        .all(|r| r.time.ns() == 0));
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
            sizes: vec![SizeWeight {
                bytes: size * PAGE,
                weight: 1.0,
            }],
            ..cfg(Pattern::Sequential)
        };
        let got: Vec<u64> = take(&c, ns_pages * PAGE, SEED, want.len())
            .iter()
            .map(|r| r.offset_bytes / PAGE)
            .collect();
        assert_eq!(got, want, "ns={ns_pages} frac={frac} size={size}");
    }
}

#[test]
fn sequential_ops_have_their_own_cursors() {
    let c = GeneratorConfig {
        read_ratio: 0.4,
        trim_ratio: 0.2,
        ..cfg(Pattern::Sequential)
    };
    let fp = 37;
    let recs = take(&c, fp * PAGE, SEED, 3000);
    for op in [IoOp::Read, IoOp::Write, IoOp::Trim] {
        let starts: Vec<u64> = recs
            .iter()
            .filter(|r| r.op == op)
            .map(|r| r.offset_bytes / PAGE)
            .collect();
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
        let c = GeneratorConfig {
            hot_fraction,
            hot_access_fraction: hot_access,
            ..cfg(Pattern::HotCold)
        };
        let recs = take(&c, fp * PAGE, SEED, N);
        let hot = (fp as f64 * hot_fraction).round() as u64;
        let got = share(&recs, |r| r.offset_bytes / PAGE < hot);
        let tol = binom_5sd(hot_access, N);
        assert!(
            (got - hot_access).abs() <= tol,
            "hot {hot_fraction}/{hot_access}: share {got} ± {tol}"
        );
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
            assert!(
                (mean - mid).abs() <= tol,
                "region {lo}..{hi}: mean {mean} vs {mid}"
            );
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
    // * top-1 share vs p_1, and top-10 share vs Σ_{k≤10} p_k: binomial, 5 sd. (Sorting can
    //   only push the top-10 sum up, by far less than that tolerance here: adjacent
    //   expected counts in the top 10 differ by more than 3 sd.)
    // * least-squares slope of ln(count) on ln(rank) over ranks 1..=5 vs −θ (ln p_k is
    //   exactly linear in ln k with slope −θ). With Var(ln c_k) ≈ 1/(N p_k) (Poisson
    //   counts), Var(slope) = Σ w_k²/(N p_k), w_k = (x_k − x̄)/Σ(x_j − x̄)²; tolerance 5 sd.
    const N: usize = 400_000;
    let n = 1000u64;
    for theta in [0.5, 0.8, 0.99, 0.999_999, 1.0, 1.000_001, 1.2, 2.0, 3.5] {
        let c = GeneratorConfig {
            zipf_theta: theta,
            ..cfg(Pattern::Zipf)
        };
        let recs = take(&c, n * PAGE, SEED, N);
        let counts = sorted_counts(&recs);
        let h = harmonic(n, theta);
        let p = |k: usize| (k as f64).powf(-theta) / h;

        let top1 = counts[0] as f64 / N as f64;
        assert!(
            (top1 - p(1)).abs() <= binom_5sd(p(1), N),
            "θ={theta}: top-1 {top1} vs {}",
            p(1)
        );

        let top10 = counts.iter().take(10).sum::<u64>() as f64 / N as f64;
        let p10: f64 = (1..=10).map(p).sum();
        assert!(
            (top10 - p10).abs() <= binom_5sd(p10, N),
            "θ={theta}: top-10 {top10} vs {p10}"
        );

        let ks: Vec<usize> = (1..=5)
            .filter(|&k| counts.len() >= k && counts[k - 1] > 0)
            .collect();
        let xs: Vec<f64> = ks.iter().map(|&k| (k as f64).ln()).collect();
        let ys: Vec<f64> = ks.iter().map(|&k| (counts[k - 1] as f64).ln()).collect();
        let xm = xs.iter().sum::<f64>() / xs.len() as f64;
        let ym = ys.iter().sum::<f64>() / ys.len() as f64;
        let sxx: f64 = xs.iter().map(|x| (x - xm).powi(2)).sum();
        let slope = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| (x - xm) * (y - ym))
            .sum::<f64>()
            / sxx;
        let var: f64 = ks
            .iter()
            .zip(&xs)
            .map(|(&k, x)| ((x - xm) / sxx).powi(2) / (N as f64 * p(k)))
            .sum();
        let tol = 5.0 * var.sqrt();
        assert!(
            (slope + theta).abs() <= tol,
            "θ={theta}: slope {slope} vs −θ ± {tol}"
        );
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
        let c = GeneratorConfig {
            zipf_theta: theta,
            ..cfg(Pattern::Zipf)
        };
        let before = allocs();
        let g = Generator::new(&c, n * PAGE, SEED);
        assert!(allocs() - before <= 4, "setup allocates per page?");
        let recs: Vec<TraceRecord> = g.take(N).collect();
        assert!(recs.iter().all(|r| r.offset_bytes / PAGE < n));
        let counts = sorted_counts(&recs);
        let p1 = 1.0 / harmonic(n, theta);
        let top1 = counts[0] as f64 / N as f64;
        assert!(
            (top1 - p1).abs() <= binom_5sd(p1, N),
            "θ={theta}: top-1 {top1} vs {p1}"
        );

        let mut by_page: HashMap<u64, u64> = HashMap::new();
        for r in &recs {
            *by_page.entry(r.offset_bytes / PAGE).or_default() += 1;
        }
        let mut hot: Vec<(u64, u64)> = by_page.into_iter().collect();
        hot.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let in_first_percent = hot
            .iter()
            .take(20)
            .filter(|(page, _)| *page < n / 100)
            .count();
        assert!(
            in_first_percent < 5,
            "θ={theta}: hot pages packed at the start"
        );
    }
}

#[test]
fn zipf_hot_pages_do_not_depend_on_the_seed() {
    // The rank-to-page bijection is fixed: the hottest page is the same for every seed.
    let c = GeneratorConfig {
        zipf_theta: 1.5,
        ..cfg(Pattern::Zipf)
    };
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
        (
            |c| c.zipf_theta = 0.0,
            "zipf_theta",
            "must be in (0, 10], got 0",
        ),
        (|c| c.zipf_theta = -1.0, "zipf_theta", "got -1"),
        (|c| c.zipf_theta = 10.5, "zipf_theta", "got 10.5"),
        (|c| c.zipf_theta = f64::NAN, "zipf_theta", "got NaN"),
        (
            |c| c.hot_fraction = 0.0,
            "hot_fraction",
            "must be in (0, 1), got 0",
        ),
        (|c| c.hot_fraction = 1.0, "hot_fraction", "got 1"),
        (
            |c| c.hot_access_fraction = 1.5,
            "hot_access_fraction",
            "must be in [0, 1], got 1.5",
        ),
        (
            |c| c.hot_access_fraction = -0.1,
            "hot_access_fraction",
            "got -0.1",
        ),
        (
            |c| c.read_ratio = 1.01,
            "read_ratio",
            "must be in [0, 1], got 1.01",
        ),
        (|c| c.read_ratio = f64::NAN, "read_ratio", "got NaN"),
        (
            |c| c.trim_ratio = -0.5,
            "trim_ratio",
            "must be in [0, 1], got -0.5",
        ),
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
            |c| {
                c.sizes.push(SizeWeight {
                    bytes: 6000,
                    weight: 1.0,
                })
            },
            "sizes",
            "entry 1: bytes must be a positive multiple of align_bytes (4096), got 6000",
        ),
        (
            |c| c.sizes[0].weight = -1.0,
            "sizes",
            "entry 0: weight must be finite and >= 0, got -1",
        ),
        (|c| c.sizes[0].weight = f64::INFINITY, "sizes", "got inf"),
        (
            |c| c.sizes[0].weight = 0.0,
            "sizes",
            "weights must sum to a finite value > 0, got 0",
        ),
        (|c| c.align_bytes = 0, "align_bytes", "must be > 0, got 0"),
        (
            |c| c.rate_iops = 0.0,
            "rate_iops",
            "must be finite and > 0, got 0",
        ),
        (|c| c.rate_iops = f64::INFINITY, "rate_iops", "got inf"),
        (
            |c| c.interval_us = -3.0,
            "interval_us",
            "must be finite and > 0, got -3",
        ),
        (
            |c| c.footprint_fraction = 0.0,
            "footprint_fraction",
            "must be in (0, 1], got 0",
        ),
        (
            |c| c.footprint_fraction = 1.5,
            "footprint_fraction",
            "must be in (0, 1], got 1.5",
        ),
        (|c| c.requests = Some(0), "requests", "must be >= 1"),
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
        |c| {
            c.sizes.push(SizeWeight {
                bytes: 8192,
                weight: 0.0,
            })
        },
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
        vec![
            SizeWeight {
                bytes: 4096,
                weight: 1.0
            },
            SizeWeight {
                bytes: 65536,
                weight: 0.5
            }
        ]
    );
    assert_eq!(c.zipf_theta, 0.99, "unnamed fields keep their defaults");

    let empty: GeneratorConfig = toml::from_str("").unwrap();
    assert_eq!(empty, GeneratorConfig::default());

    for (text, what) in [
        ("pattern = \"zipf\"\nzipf_thetaa = 1.0", "unknown field"),
        ("pattern = \"pareto\"", "unknown variant"),
        ("sizes = [{ bytes = 4096, wieght = 1.0 }]", "unknown field"),
    ] {
        let e = toml::from_str::<GeneratorConfig>(text)
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{text:?}: {e}");
    }
    for name in ["uniform", "zipf", "sequential", "hotcold"] {
        let c: GeneratorConfig = toml::from_str(&format!("pattern = \"{name}\"")).unwrap();
        assert_eq!(
            toml::to_string(&c).unwrap().lines().next().unwrap(),
            format!("pattern = \"{name}\"")
        );
    }
}
