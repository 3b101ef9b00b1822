//! The real-time analysis (`src/rt/`) against hand-worked values of the PaRT-FTL paper's
//! equations with its Tables II and IV and §V-A's configuration, and UUniFast against its
//! definition. Every expected number below is worked out in the comment beside it.

use ftlab::internals::rt::{megabytes, part_ftl, uunifast::uunifast, wao_gc, Task};
use rand::SeedableRng;

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} ± {tol}");
}

#[test]
fn part_ftl_capacities_and_periods_eq1_to_5() {
    let c = part_ftl::Config::paper();
    // ⌈λP⌉ = ⌈0.643 · 256⌉ = ⌈164.608⌉ = 165; α = 256 − 165 = 91.
    assert_eq!((c.victim_valid_pages(), c.alpha()), (165, 91));
    let r = Task::reader(3, 15.0);
    let w = Task::writer(12, 60.0);
    // Eq. 1: 3 · (1.23 + 0) = 3.69 ms.
    close(part_ftl::read_capacity_ms(&c, &r), 3.69, 1e-12, "C^r");
    // Eq. 2: ⌈12/4⌉ · 1.33 = 3.99 ms.
    close(part_ftl::write_capacity_ms(&c, &w), 3.99, 1e-12, "C^w");
    // Eq. 3: m·P = 4 · 256 = 1024; C^e = 0 + ⌈1024/4⌉ · 1.33 = 340.48 ms;
    // T^e = 60 · (12 · 256) / 12 = 15360 ms.
    let (ce, te) = part_ftl::encoding_task_ms(&c, &w);
    close(ce, 340.48, 1e-9, "C^e");
    close(te, 15360.0, 1e-9, "T^e");
    // Eq. 5: ⌈16/4⌉ · (165 · (0.375 + 1.33) + 3.84) = 4 · 285.165 = 1140.66 ms;
    // kα = 12 · 91 = 1092 ≥ 12, so T^g = 60 · ⌊1092/12⌋ = 60 · 91 = 5460 ms.
    let (cg, tg) = part_ftl::gc_task_ms(&c, &w);
    close(cg, 1140.66, 1e-9, "C^g");
    close(tg, 5460.0, 1e-9, "T^g");
    // A write larger than kα: w = 2000 > 1092 → T^g = 60 / ⌈2000/1092⌉ = 60 / 2 = 30 ms.
    close(part_ftl::gc_task_ms(&c, &Task::writer(2000, 60.0)).1, 30.0, 1e-12, "T^g, w > kα");
}

#[test]
fn the_papers_table_iii_task_set_fails_both_tests_as_printed() {
    let c = part_ftl::Config::paper();
    let tasks: Vec<Task> =
        (0..4).map(|_| Task::reader(3, 15.0)).chain((0..4).map(|_| Task::writer(12, 60.0))).collect();
    // Eq. 6: 1.23/15 + 4 · 3.69/15 = 0.082 + 0.984 = 1.066 > 1.
    let read = part_ftl::read_test(&c, &tasks);
    close(read.total(), 1.066, 1e-9, "Eq. 6");
    assert_eq!(read.terms.len(), 5);
    assert!(!read.passes());
    // Eq. 7: per writer 3.99/60 + 340.48/15360 + 1140.66/5460 = 0.0665 + 0.0221667 + 0.2089121
    // = 0.2975788; four of them 1.1903151, plus 3.84/60 = 0.064: 1.2543151 > 1.
    let write = part_ftl::write_test(&c, &tasks);
    close(write.total(), 1.254_315_1, 1e-6, "Eq. 7");
    assert_eq!(write.terms.len(), 13);
    assert!(!write.passes() && !part_ftl::admits(&c, &tasks));
}

#[test]
fn admission_at_the_boundary() {
    let c = part_ftl::Config::paper();
    // One reader of one page every T: t_r/T + t_r/T ≤ 1 holds with equality at T = 2 t_r.
    let t = 2.0 * c.read_ms;
    assert!(part_ftl::read_test(&c, &[Task::reader(1, t)]).passes());
    assert!(!part_ftl::read_test(&c, &[Task::reader(1, t * (1.0 - 1e-9))]).passes());
    // No writer: Eq. 7 has no term and passes.
    assert!(part_ftl::write_test(&c, &[Task::reader(1, t)]).passes());
}

#[test]
fn table_iv_bandwidths_eq9_to_11_and_15_16_with_their_readings() {
    let c = part_ftl::Config::paper();
    let page = 8192;
    // Eq. 9 as printed, s = |F|/|F_w| = 4: 4 · (165 · 1.705 + 3.84 + 91 · 1.33) = 4 · 406.195
    // = 1624.78 ms per 12 · 91 = 1092 pages: 672.09 pages/s = 5.506 MB/s = 5.251 MiB/s.
    let (mb, mib) = megabytes(part_ftl::write_bandwidth_printed(&c), page);
    close(mb, 5.506, 5e-4, "Eq. 9 printed, MB/s");
    close(mib, 5.251, 5e-4, "Eq. 9 printed, MiB/s");
    // The paper's 7.3 MB/s: s = k/|F_w| = 3, 1218.585 ms per 1092 pages: 896.12 pages/s
    // = 7.341 MB/s (10^6 B; 7.001 MiB/s).
    let (mb, mib) = megabytes(part_ftl::write_bandwidth_as_reported(&c), page);
    close(mb, 7.341, 5e-4, "Eq. 9 as reported, MB/s");
    close(mib, 7.001, 5e-4, "Eq. 9 as reported, MiB/s");
    // Eq. 10: 12 / 1.23 ms = 9756.1 pages/s = 79.92 MB/s = 76.22 MiB/s (the paper's "76 MB/s"
    // is mebibytes).
    let (mb, mib) = megabytes(part_ftl::read_bandwidth(&c), page);
    close(mb, 79.92, 5e-3, "Eq. 10, MB/s");
    close(mib, 76.22, 5e-3, "Eq. 10, MiB/s");
    // Eq. 11: 1 / 1.23 ms = 813.0 pages/s; Eq. 8: 1.23 ms.
    close(part_ftl::read_bandwidth_worst(&c), 813.008, 1e-3, "Eq. 11");
    close(part_ftl::worst_read_ms(&c), 1.23, 1e-12, "Eq. 8");
    let w = wao_gc::Config::paper();
    // One step: max(3.84, 2 · (1.23 + 1.87)) = 6.2 ms. Eq. 13: 1.87 + 6.2 = 8.07 ms; Eq. 14:
    // 1.23 + 1.87 + 6.2 = 9.3 ms.
    close(wao_gc::worst_write_ms(&w), 8.07, 1e-12, "Eq. 13");
    close(wao_gc::worst_read_ms(&w), 9.3, 1e-12, "Eq. 14");
    // Eq. 15: 16 / 8.07 ms = 1982.65 pages/s = 16.24 MB/s = 15.49 MiB/s (paper: 15.5).
    let (mb, mib) = megabytes(wao_gc::write_bandwidth(&w), page);
    close(mb, 16.242, 5e-3, "Eq. 15, MB/s");
    close(mib, 15.490, 5e-3, "Eq. 15, MiB/s");
    // Eq. 16: 16 / 9.3 ms = 1720.43 pages/s = 14.09 MB/s = 13.44 MiB/s (paper: 13.4).
    let (mb, mib) = megabytes(wao_gc::read_bandwidth(&w), page);
    close(mb, 14.094, 5e-3, "Eq. 16, MB/s");
    close(mib, 13.441, 5e-3, "Eq. 16, MiB/s");
    // Eq. 12: 255 · 2 / (3 · 256) = 0.6640625, the paper's 66.4%.
    assert_eq!(wao_gc::lambda_max(256, 2), 510.0 / 768.0);
}

#[test]
fn uunifast_sums_to_the_target_and_is_uniform_on_the_simplex() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2005);
    for (n, u) in [(1, 0.3), (2, 0.95), (10, 0.5), (10, 0.95)] {
        let us = uunifast(&mut rng, n, u);
        assert_eq!(us.len(), n);
        assert!(us.iter().all(|&x| (0.0..=u).contains(&x)), "{us:?}");
        close(us.iter().sum(), u, 1e-12, "sum");
    }
    // Uniform on the simplex {x ≥ 0, Σx = 1} of n = 5: each coordinate's marginal is
    // Beta(1, n − 1), CDF 1 − (1 − x)^4. A Kolmogorov–Smirnov test of the first and the last
    // coordinate over 4000 draws, at significance 0.01: D must stay below 1.628/√4000 = 0.0257.
    let draws: Vec<Vec<f64>> = (0..4000).map(|_| uunifast(&mut rng, 5, 1.0)).collect();
    for coord in [0, 4] {
        let mut xs: Vec<f64> = draws.iter().map(|d| d[coord]).collect();
        xs.sort_by(f64::total_cmp);
        let n = xs.len() as f64;
        let d = xs.iter().enumerate().fold(0.0f64, |d, (i, &x)| {
            let f = 1.0 - (1.0 - x).powi(4);
            d.max((f - i as f64 / n).abs()).max(((i + 1) as f64 / n - f).abs())
        });
        assert!(d < 1.628 / n.sqrt(), "coordinate {coord}: KS D = {d}");
    }
}

// ---- RTGC, WAO-GC's demand test and the Figures 5-7 experiment (rt::rtgc, rt::schedulability).

use ftlab::internals::rt::schedulability::{self as sched, Experiment};
use ftlab::internals::rt::{rtgc, Blockers};

#[test]
fn rtgc_test_on_a_hand_worked_set() {
    let c = rtgc::Config::paper();
    // Lazy-RTGC Theorem 4.3: ⌈σπ⌉ = ⌈0.482 · 256⌉ = ⌈123.392⌉ = 124 valid pages; each GC job
    // frees α = 256 − 124 = 132 pages on each of the 16 dies: 2112 pages.
    assert_eq!((c.victim_valid_pages(), c.reclaimed_pages()), (124, 2112));
    let t = Task { read_pages: 1, read_period_ms: 10.0, write_pages: 3, write_period_ms: 20.0 };
    // c^G = 124 · (1.23 + 1.87) + 3.84 = 388.24 ms; α = 2112 ≥ 3: T^G = 20 · ⌊2112/3⌋ = 14080 ms
    // (StateAwareSimulator `_gc_period`, first branch).
    let (cg, tg) = rtgc::gc_task_ms(&c, &t);
    close(cg, 388.24, 1e-9, "c^G");
    close(tg, 14080.0, 1e-9, "T^G");
    // Second branch: w = 3000 > 2112: T^G = 20 / ⌈3000/2112⌉ = 10 ms.
    close(rtgc::gc_task_ms(&c, &Task { write_pages: 3000, ..t }).1, 10.0, 1e-12, "T^G, w > α");
    // The test (`find_worst_util`): t_e/min(T) = 3.84/10 = 0.384; C^r/T^r = 1.23/10 = 0.123;
    // C^w/T^w = ⌈3/16⌉ · 1.87 / 20 = 0.0935; C^G/T^G = 388.24/14080 = 0.0275738636;
    // total 0.6280738636 ≤ 1.
    let test = rtgc::test(&c, &[t]);
    let names: Vec<&str> = test.terms.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["t_e / min(T)", "C_0^r / T_0^r", "C_0^w / T_0^w", "C_0^G / T_0^G"]);
    close(test.total(), 0.628_073_863_6, 1e-9, "RTGC total");
    assert!(test.passes());
    // Every further copy adds 0.2440738636 (the blocking term is counted once): two copies sum
    // to 0.872, three to 1.116.
    assert!(rtgc::test(&c, &[t; 2]).passes());
    close(rtgc::test(&c, &[t; 3]).total(), 0.384 + 3.0 * 0.244_073_863_6, 1e-9, "three copies");
    assert!(!rtgc::test(&c, &[t; 3]).passes());
}

#[test]
fn wao_gc_demand_test_on_a_hand_worked_set() {
    let c = wao_gc::Config::paper();
    let t = Task { read_pages: 1, read_period_ms: 20.0, write_pages: 3, write_period_ms: 40.0 };
    let b = [Blockers { read: 2, write: 4 }];
    // Trigger 0.5: a step S = max(3.84, 2 · 3.1) = 6.2 ms is charged 3.1 ms; a blocker is a
    // write and its step (Eq. 14), 1.87 + 3.1 = 4.97 ms. Read level (T = 20): C^r = 1.23,
    // B^r = 2 · 4.97 = 9.94: 0.0615 + 0.497 = 0.5585. Write level (T = 40): C^w = ⌈3/16⌉ ·
    // (1.87 + 3.1) = 4.97, B^w = 4 · 4.97 = 19.88: 0.0615 + 0.12425 + 0.497 = 0.68275, binding.
    let test = wao_gc::demand_test(&c, &[t], &b, 0.5);
    let names: Vec<&str> = test.terms.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["C_0^r / T_0^r", "C_0^w / T_0^w", "B_0^w / T_0^w"]);
    close(test.total(), 0.682_75, 1e-12, "trigger 0.5");
    assert!(test.passes() && wao_gc::demand_passes(&c, &[t], &b, 0.5));
    // Trigger 1 (λ at Eq. 12's bound): blocker 8.07 ms; write level 0.0615 + 8.07/40 + 32.28/40
    // = 1.07025 > 1.
    close(wao_gc::demand_test(&c, &[t], &b, 1.0).total(), 1.070_25, 1e-12, "trigger 1");
    assert!(!wao_gc::demand_passes(&c, &[t], &b, 1.0));
    // Nine read blockers: the read level binds, 0.0615 + 9 · 8.07/20 = 3.693, and only the
    // read term is in it (the write's period is longer).
    let read_bound = wao_gc::demand_test(&c, &[t], &[Blockers { read: 9, write: 0 }], 1.0);
    assert_eq!(read_bound.terms.len(), 2);
    close(read_bound.total(), 3.693, 1e-12, "read level");
    // Equal periods are one level: two readers of 1.23 ms every 10 ms, no blocker: 0.246.
    let r = Task::reader(1, 10.0);
    close(
        wao_gc::demand_test(&c, &[r, r], &[Blockers { read: 0, write: 0 }; 2], 0.5).total(),
        0.246,
        1e-12,
        "ties",
    );
}

#[test]
fn eq17_and_eq18_periods_and_the_generated_utilisations() {
    // Eq. 17 with |F| = 16, t_w = 1.87: w = 3 at U^w = 0.1: ⌈3/16⌉ · 1.87 / 0.1 = 18.7 ms;
    // w = 15 gives the same, w = 18 twice as much (⌈18/16⌉ = 2), as §VI-A says of Figure 7.
    close(sched::write_period_ms(3, 16, 1.87, 0.1), 18.7, 1e-12, "T^w, w = 3");
    close(sched::write_period_ms(15, 16, 1.87, 0.1), 18.7, 1e-12, "T^w, w = 15");
    close(sched::write_period_ms(18, 16, 1.87, 0.1), 37.4, 1e-12, "T^w, w = 18");
    // Eq. 18 with t_r = 1.23: r = 2 at U^r = 0.05: 2 · 1.23 / 0.05 = 49.2 ms.
    close(sched::read_period_ms(2, 1.23, 0.05), 49.2, 1e-12, "T^r");
    // A generated set: its tasks' r t_r/T^r + ⌈w/|F|⌉ t_w/T^w add up to the target U, each
    // task's read part is read_share of its utilisation, and blockers are in 0..n.
    let e = Experiment { read_share: 0.3, ..Experiment::paper(1, 11) };
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
    let set = sched::task_set(&mut rng, &e, 0.7, 2, 20);
    assert_eq!((set.tasks.len(), set.blockers.len()), (10, 10));
    let (mut total, mut reads) = (0.0, 0.0);
    for t in &set.tasks {
        let (ur, uw) = (2.0 * 1.23 / t.read_period_ms, 2.0 * 1.87 / t.write_period_ms);
        close(ur / (ur + uw), 0.3, 1e-9, "read share");
        (total, reads) = (total + ur + uw, reads + ur);
    }
    close(total, 0.7, 1e-9, "Σ U_i");
    close(reads, 0.21, 1e-9, "Σ U_i^r");
    assert!(set.blockers.iter().all(|b| b.read < 10 && b.write < 10));
}

#[test]
fn weighted_schedulability_of_a_hand_made_table() {
    // (0.1 · 1 + 0.5 · 0.5 + 0.9 · 0) / (0.1 + 0.5 + 0.9) = 0.35 / 1.5.
    close(
        sched::weighted_schedulability(&[(0.1, 1.0), (0.5, 0.5), (0.9, 0.0)]),
        0.35 / 1.5,
        1e-12,
        "weighted",
    );
    // Everything schedulable: 1; nothing: 0; no point: 0.
    close(sched::weighted_schedulability(&[(0.2, 1.0), (0.4, 1.0)]), 1.0, 1e-12, "all");
    close(sched::weighted_schedulability(&[(0.2, 0.0)]), 0.0, 1e-12, "none");
    assert_eq!(sched::weighted_schedulability(&[]), 0.0);
}

#[test]
fn the_experiment_is_deterministic_and_consistent_across_figures() {
    let e = Experiment {
        fig6_read_pages: vec![1, 4],
        fig7_write_pages: vec![3, 18],
        ..Experiment::paper(40, 2019)
    };
    // The registry's analyses (`scheme::analyses`): the series of Figures 5-7.
    let owned = ftlab::internals::scheme::analyses();
    let d: Vec<&dyn ftlab::internals::rt::Analysis> = owned.iter().map(|(_, a)| a.as_ref()).collect();
    let a = sched::run(&e, &d);
    assert_eq!(a, sched::run(&e, &d), "same seed, same output");
    assert_ne!(
        a.rows,
        sched::run(&Experiment { seed: 2020, ..e.clone() }, &d).rows,
        "another seed, other sets"
    );
    // 5 sweeps (Figure 5, two read sizes, two write sizes) of 19 utilisations and 4 schemes.
    assert_eq!((a.rows.len(), a.weighted.len()), (5 * 19 * 4, 5 * 4));
    // The same sets at every size: Figure 5 equals Figure 6 at r = 1 and Figure 7 at w = 3.
    let sweep = |fig: u8, r: u32, w: u32| -> Vec<(f64, u32)> {
        a.rows
            .iter()
            .filter(|x| (x.figure, x.read_pages, x.write_pages) == (fig, r, w))
            .map(|x| (x.utilisation, x.n_schedulable))
            .collect()
    };
    assert_eq!(sweep(5, 1, 3), sweep(6, 1, 3));
    assert_eq!(sweep(5, 1, 3), sweep(7, 1, 3));
    assert_ne!(sweep(5, 1, 3), sweep(7, 1, 18));
    // At U = 0.05 PaRT-FTL and RTGC admit every set: PaRT-FTL's write test is at most about
    // (0.71 + 1.68 + 0.18) · 0.025 + 2.05 · 0.025 = 0.12, RTGC's below 3.12 · 0.025 + 1.3 · 0.05.
    for row in a.rows.iter().filter(|x| {
        x.figure == 5 && x.utilisation == 0.05 && x.scheme != "wao-gc-75" && x.scheme != "wao-gc-50"
    }) {
        assert_eq!(row.n_schedulable, row.n_sets, "{row:?}");
    }
    // The series in the figures' order: the schemes with admission control (PaRT-FTL, RTGC)
    // before WAO-GC, which has none, at its two trigger rates.
    let keys: Vec<&str> = sched::series(&d).iter().map(|s| s.key).collect();
    assert_eq!(keys, ["part-ftl", "rtgc", "wao-gc-75", "wao-gc-50"]);
    // Bad parameters are refused by name, not by a panic.
    let err = Experiment { read_share: 1.5, ..e.clone() }.check().unwrap_err();
    assert_eq!((err.name, err.value.as_str(), err.range), ("read_share", "1.5", "[0, 1]"));
    assert_eq!(err.to_string(), "must be in [0, 1], got 1.5");
    assert_eq!(Experiment::paper(0, 1).check().unwrap_err().name, "n_sets");
    let err = Experiment { fig7_write_pages: vec![3, 0], ..e.clone() }.check().unwrap_err();
    assert_eq!((err.name, err.value.as_str()), ("pages", "0"));
}
