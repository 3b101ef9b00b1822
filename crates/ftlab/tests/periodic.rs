//! Tests of the periodic real-time task generator (`ftlab::internals::workload::periodic`): release
//! times, deadlines and merge order worked by hand, offsets, `end_s`, addresses, determinism,
//! every validation rule, and the utilisation helper. Generator level only: nothing here runs
//! a simulation.

use ftlab::internals::workload::periodic::{PeriodicRecord, PeriodicStream, PeriodicTask, PeriodicWorkload};
use ftlab::internals::workload::IoOp;
use ftlab::SimTime;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocs;

// ---------------------------------------------------------------------------------------
// Helpers.

const PAGE: u32 = 4096;
const NS_BYTES: u64 = 1 << 30;
const SEED: u64 = 0x5EED_7A5C;
const MS: u64 = 1_000_000;

fn task(op: IoOp, pages: u32, period_ms: f64) -> PeriodicTask {
    PeriodicTask { name: None, op, pages, period_ms, offset_ms: 0.0, deadline_ms: None }
}

fn workload(tasks: Vec<PeriodicTask>) -> PeriodicWorkload {
    PeriodicWorkload { tasks, end_s: None }
}

/// Resolve for a 1 GiB namespace of 4 KiB pages, then build with `SEED`.
fn stream(mut w: PeriodicWorkload) -> PeriodicStream {
    w.resolve(NS_BYTES, PAGE).expect("valid workload");
    w.build(NS_BYTES, PAGE, SEED)
}

/// `(release ns, task, deadline ns)` of the first `n` jobs.
fn timeline(w: PeriodicWorkload, n: usize) -> Vec<(u64, u16, u64)> {
    stream(w).take(n).map(|j| (j.record.time.ns(), j.task, j.deadline.ns())).collect()
}

// ---------------------------------------------------------------------------------------
// Release times, deadlines and merge order.

/// Task 0 reads 1 page every 2 ms, task 1 writes 2 pages every 3 ms, both from 0, implicit
/// deadlines. By hand:
///
/// ```text
/// task 0 releases: 0 2 4 6 8 10 ...   deadline = release + 2
/// task 1 releases: 0 3 6 9 ...        deadline = release + 3
/// merged (ties to task 0):
///   job  release  task  deadline
///    0      0      0       2
///    1      0      1       3
///    2      2      0       4
///    3      3      1       6
///    4      4      0       6
///    5      6      0       8
///    6      6      1       9
///    7      8      0      10
///    8      9      1      12
///    9     10      0      12
/// ```
#[test]
fn two_tasks_worked_by_hand() {
    let w = workload(vec![task(IoOp::Read, 1, 2.0), task(IoOp::Write, 2, 3.0)]);
    let want: Vec<(u64, u16, u64)> = [
        (0, 0, 2),
        (0, 1, 3),
        (2, 0, 4),
        (3, 1, 6),
        (4, 0, 6),
        (6, 0, 8),
        (6, 1, 9),
        (8, 0, 10),
        (9, 1, 12),
        (10, 0, 12),
    ]
    .iter()
    .map(|&(r, t, d)| (r * MS, t, d * MS))
    .collect();
    assert_eq!(timeline(w.clone(), 10), want);

    // Ops and sizes follow the task; every record has stream 0.
    for j in stream(w).take(10) {
        let (op, pages) = if j.task == 0 { (IoOp::Read, 1) } else { (IoOp::Write, 2) };
        assert_eq!((j.record.op, j.record.size_bytes, j.record.stream), (op, pages * u64::from(PAGE), 0));
    }
}

/// Equal releases come out in task order, whatever the order in which they were scheduled.
#[test]
fn ties_go_to_the_lower_task_index() {
    // Three tasks with the same period: every release is a three-way tie.
    let same = workload(vec![task(IoOp::Read, 1, 5.0), task(IoOp::Write, 1, 5.0), task(IoOp::Read, 1, 5.0)]);
    let tasks: Vec<u16> = stream(same).take(12).map(|j| j.task).collect();
    assert_eq!(tasks, [0u16, 1, 2].repeat(4));

    // Task 0 first releases at 5 ms, task 1 at 0 ms and every 5 ms: at 5, 10, ... task 0
    // comes first even though task 1's job there was scheduled earlier.
    let mut late = task(IoOp::Read, 1, 5.0);
    late.offset_ms = 5.0;
    let w = workload(vec![late, task(IoOp::Write, 1, 5.0)]);
    let want: Vec<(u64, u16, u64)> = [(0, 1, 5), (5, 0, 10), (5, 1, 10), (10, 0, 15), (10, 1, 15)]
        .iter()
        .map(|&(r, t, d)| (r * MS, t, d * MS))
        .collect();
    assert_eq!(timeline(w, 5), want);
}

/// One case of release times: tasks, how many jobs, and the expected `(release, task,
/// deadline)` in ns.
struct Timing {
    name: &'static str,
    tasks: Vec<PeriodicTask>,
    want: Vec<(u64, u16, u64)>,
}

fn check_timing(case: Timing) {
    let got = timeline(workload(case.tasks), case.want.len());
    assert_eq!(got, case.want, "{}", case.name);
}

#[test]
fn offsets_and_explicit_deadlines() {
    let with = |mut t: PeriodicTask, offset_ms: f64, deadline_ms: Option<f64>| {
        t.offset_ms = offset_ms;
        t.deadline_ms = deadline_ms;
        t
    };
    let cases = vec![
        Timing {
            name: "offset 1.5 ms, period 4 ms: 1.5, 5.5, 9.5 ms, due a period later",
            tasks: vec![with(task(IoOp::Read, 1, 4.0), 1.5, None)],
            want: vec![(1_500_000, 0, 5_500_000), (5_500_000, 0, 9_500_000), (9_500_000, 0, 13_500_000)],
        },
        Timing {
            name: "constrained deadline 1 ms on a 2 ms period",
            tasks: vec![with(task(IoOp::Read, 1, 2.0), 0.0, Some(1.0))],
            want: vec![(0, 0, MS), (2 * MS, 0, 3 * MS), (4 * MS, 0, 5 * MS)],
        },
        Timing {
            name: "deadline 5 ms beyond a 2 ms period (arbitrary deadline)",
            tasks: vec![with(task(IoOp::Write, 1, 2.0), 0.0, Some(5.0))],
            want: vec![(0, 0, 5 * MS), (2 * MS, 0, 7 * MS)],
        },
        Timing {
            // Task 0: 3, 7, 11 ms; task 1 (offset 0.25 ms, period 5 ms): 0.25, 5.25, 10.25 ms.
            name: "two phases interleave",
            tasks: vec![
                with(task(IoOp::Read, 1, 4.0), 3.0, None),
                with(task(IoOp::Write, 1, 5.0), 0.25, Some(2.0)),
            ],
            want: vec![
                (250_000, 1, 2_250_000),
                (3 * MS, 0, 7 * MS),
                (5_250_000, 1, 7_250_000),
                (7 * MS, 0, 11 * MS),
                (10_250_000, 1, 12_250_000),
                (11 * MS, 0, 15 * MS),
            ],
        },
        Timing {
            name: "sub-nanosecond parts of a time are rounded once (1.0000004 ms = 1000000 ns)",
            tasks: vec![with(task(IoOp::Read, 1, 1.0000004), 0.0000006, None)],
            want: vec![(1, 0, 1_000_001), (1_000_001, 0, 2_000_001)],
        },
    ];
    for case in cases {
        check_timing(case);
    }
}

/// Releases are `offset + k · period` in integers: no drift over a million jobs, even for a
/// period (0.1 ms) that is not exact in binary floating point, or one (1/3 ms) that is not a
/// whole number of nanoseconds (rounded once to 333333 ns).
#[test]
fn no_drift_over_a_million_jobs() {
    for (period_ms, period_ns) in [(0.1, 100_000u64), (1.0 / 3.0, 333_333)] {
        let mut t = task(IoOp::Read, 1, period_ms);
        t.offset_ms = 0.007; // 7000 ns
        let job = stream(workload(vec![t])).nth(1_000_000).unwrap();
        let release = 7_000 + 1_000_000 * period_ns;
        assert_eq!(job.record.time, SimTime(release), "period {period_ms} ms");
        assert_eq!(job.deadline, SimTime(release + period_ns), "period {period_ms} ms");
    }
}

#[test]
fn end_s_stops_releases() {
    // Periods 2 and 3 ms, end at 9 ms: the hand-worked timeline above up to (not including)
    // the release at 9 ms, i.e. 8 jobs, then nothing, for good.
    let mut w = workload(vec![task(IoOp::Read, 1, 2.0), task(IoOp::Write, 2, 3.0)]);
    w.end_s = Some(0.009);
    let mut s = stream(w);
    let releases: Vec<(u64, u16)> = s.by_ref().map(|j| (j.record.time.ns() / MS, j.task)).collect();
    assert_eq!(releases, [(0, 0), (0, 1), (2, 0), (3, 1), (4, 0), (6, 0), (6, 1), (8, 0)]);
    assert_eq!(s.next(), None);
    assert_eq!(s.size_hint(), (0, Some(0)));

    // A task whose first release is at or after end_s releases nothing; the others go on.
    let mut late = task(IoOp::Write, 1, 1.0);
    late.offset_ms = 10.0;
    let mut w = workload(vec![late, task(IoOp::Read, 1, 4.0)]);
    w.end_s = Some(0.010);
    let got: Vec<(u64, u16)> = stream(w).map(|j| (j.record.time.ns() / MS, j.task)).collect();
    assert_eq!(got, [(0, 1), (4, 1), (8, 1)]);
}

#[test]
fn without_end_s_the_stream_does_not_end() {
    let w = workload(vec![task(IoOp::Read, 1, 1e10)]); // one job per 10^7 s
    let mut s = stream(w);
    assert_eq!(s.size_hint(), (1, None));
    // 1000 jobs reach 10^10 s, far beyond any run; the stream is still going.
    let last = s.nth(999).unwrap();
    assert_eq!(last.record.time, SimTime(999 * 10_000_000 * 1_000_000_000));
    assert!(s.next().is_some());
}

// ---------------------------------------------------------------------------------------
// Addresses.

#[test]
fn addresses_are_page_aligned_inside_the_namespace_and_uniform() {
    // 10 whole pages plus a partial one (which no request may touch).
    let ns_bytes = 10 * u64::from(PAGE) + 100;
    let whole = 10 * u64::from(PAGE);
    let mut w =
        workload(vec![task(IoOp::Read, 1, 1.0), task(IoOp::Write, 3, 2.0), task(IoOp::Read, 10, 4.0)]);
    w.resolve(ns_bytes, PAGE).unwrap();
    let jobs: Vec<PeriodicRecord> = w.build(ns_bytes, PAGE, SEED).take(10_000).collect();
    assert_eq!(jobs.len(), 10_000);
    // Per task: how often each start page was drawn.
    let mut hits = [[0u64; 10]; 3];
    for j in &jobs {
        let r = j.record;
        assert_eq!(r.offset_bytes % u64::from(PAGE), 0, "{j:?}");
        assert!(r.offset_bytes + r.size_bytes <= whole, "{j:?}");
        hits[usize::from(j.task)][(r.offset_bytes / u64::from(PAGE)) as usize] += 1;
    }
    // A job of the whole namespace can only start at 0.
    assert_eq!(hits[2][0], hits[2].iter().sum::<u64>());
    // The 1-page task over its 10 slots and the 3-page task over its 8: each slot's count
    // within 5 standard deviations of n/slots (binomial).
    for (t, slots) in [(0usize, 10usize), (1, 8)] {
        let n: u64 = hits[t].iter().sum();
        let p = 1.0 / slots as f64;
        let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
        for (slot, &h) in hits[t][..slots].iter().enumerate() {
            assert!(
                (h as f64 - mean).abs() <= 5.0 * sd,
                "task {t} slot {slot}: {h} hits, expected {mean:.0} ± {:.0}",
                5.0 * sd
            );
        }
        assert!(hits[t][slots..].iter().all(|&h| h == 0), "task {t} started past its last slot");
    }
}

// ---------------------------------------------------------------------------------------
// Determinism, Send, allocation.

#[test]
fn same_seed_same_stream_different_seed_differs() {
    let mut w = workload(vec![task(IoOp::Read, 2, 1.0), task(IoOp::Write, 1, 1.5)]);
    w.end_s = Some(1.0);
    w.resolve(NS_BYTES, PAGE).unwrap();
    let run = |seed: u64| -> Vec<PeriodicRecord> { w.build(NS_BYTES, PAGE, seed).collect() };
    let (a, b, c) = (run(SEED), run(SEED), run(SEED + 1));
    assert_eq!(a.len(), 1000 + 667);
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Only the addresses depend on the seed.
    let untimed = |v: &[PeriodicRecord]| -> Vec<(SimTime, u16, SimTime, IoOp, u64)> {
        v.iter().map(|j| (j.record.time, j.task, j.deadline, j.record.op, j.record.size_bytes)).collect()
    };
    assert_eq!(untimed(&a), untimed(&c));
    let same_addr = a.iter().zip(&c).filter(|(x, y)| x.record.offset_bytes == y.record.offset_bytes).count();
    assert!(same_addr < 10, "{same_addr} of {} addresses equal across seeds", a.len());
}

#[test]
fn the_stream_is_send_and_allocates_nothing_per_job() {
    fn assert_send<T: Send>(_: &T) {}
    let tasks = (0..100)
        .map(|i| {
            task(if i % 2 == 0 { IoOp::Read } else { IoOp::Write }, 1 + i % 7, 1.0 + f64::from(i) * 0.37)
        })
        .collect();
    let mut s = stream(workload(tasks));
    assert_send(&s);
    let before = allocs();
    let mut acc = 0u64;
    for _ in 0..100_000 {
        acc = acc.wrapping_add(s.next().unwrap().record.offset_bytes);
    }
    assert_eq!(allocs() - before, 0, "allocated (acc {acc})");
}

// ---------------------------------------------------------------------------------------
// resolve: defaults and errors.

#[test]
fn resolve_fills_names_and_deadlines() {
    let mut named = task(IoOp::Write, 1, 20.0);
    named.name = Some("log".into());
    let mut due = task(IoOp::Read, 1, 5.0);
    due.deadline_ms = Some(2.5);
    let mut w = workload(vec![task(IoOp::Read, 4, 10.0), named, due]);
    assert_eq!(w.task_names(), ["task0", "log", "task2"], "defaults before resolve");
    w.resolve(NS_BYTES, PAGE).unwrap();
    let names: Vec<_> = w.tasks.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, [Some("task0".into()), Some("log".into()), Some("task2".into())]);
    let deadlines: Vec<_> = w.tasks.iter().map(|t| t.deadline_ms).collect();
    assert_eq!(deadlines, [Some(10.0), Some(20.0), Some(2.5)]);
    assert_eq!(w.task_names(), ["task0", "log", "task2"]);
    // Resolving again changes nothing.
    let before = format!("{w:?}");
    w.resolve(NS_BYTES, PAGE).unwrap();
    assert_eq!(format!("{w:?}"), before);
}

/// One invalid workload: a change to a valid 3-task workload (over a namespace of 16 pages),
/// and the expected error key and a fragment of the reason (the range).
struct Bad {
    change: fn(&mut PeriodicWorkload),
    key: &'static str,
    reason: &'static str,
}

/// Apply `bad.change` to a valid workload, resolve it, and check the error; on an error,
/// `resolve` must leave the workload as it was.
fn check(bad: &Bad) -> Result<(), String> {
    let mut w =
        workload(vec![task(IoOp::Read, 4, 10.0), task(IoOp::Write, 1, 20.0), task(IoOp::Read, 1, 5.0)]);
    (bad.change)(&mut w);
    let before = format!("{w:?}");
    let ns_bytes = 16 * u64::from(PAGE);
    match w.resolve(ns_bytes, PAGE) {
        Ok(()) => Err(format!("{}: accepted", bad.key)),
        Err((key, _)) if key != bad.key => Err(format!("{}: wrong key {key:?}", bad.key)),
        Err((_, reason)) if !reason.contains(bad.reason) => {
            Err(format!("{}: reason {reason:?} does not contain {:?}", bad.key, bad.reason))
        }
        Err(_) if format!("{w:?}") != before => {
            Err(format!("{}: the failed resolve changed the workload", bad.key))
        }
        Err(_) => Ok(()),
    }
}

#[test]
fn every_validation_rule() {
    const PERIOD: &str = "(0, 10000000000] milliseconds";
    let bad = [
        Bad { change: |w| w.tasks.clear(), key: "tasks", reason: "1 to 1024 tasks, got 0" },
        Bad {
            change: |w| w.tasks = vec![task(IoOp::Read, 1, 1.0); 1025],
            key: "tasks",
            reason: "1 to 1024 tasks, got 1025",
        },
        Bad { change: |w| w.end_s = Some(0.0), key: "end_s", reason: "(0, 10000000] seconds, got 0" },
        Bad { change: |w| w.end_s = Some(1.5e7), key: "end_s", reason: "(0, 10000000] seconds" },
        Bad { change: |w| w.end_s = Some(f64::NAN), key: "end_s", reason: "got NaN" },
        Bad { change: |w| w.tasks[1].name = Some(String::new()), key: "tasks.1.name", reason: "non-empty" },
        Bad {
            change: |w| {
                w.tasks[0].name = Some("rt".into());
                w.tasks[2].name = Some("rt".into());
            },
            key: "tasks.2.name",
            reason: "unique within the tenant, got \"rt\", which task 0 also has",
        },
        Bad {
            // Task 0 takes the default name of task 1.
            change: |w| w.tasks[0].name = Some("task1".into()),
            key: "tasks.1.name",
            reason: "\"task1\" (this task's default name), which task 0 also has",
        },
        Bad {
            change: |w| w.tasks[1].op = IoOp::Trim,
            key: "tasks.1.op",
            reason: "\"read\" or \"write\", got \"trim\"",
        },
        Bad { change: |w| w.tasks[2].pages = 0, key: "tasks.2.pages", reason: ">= 1, got 0" },
        Bad {
            change: |w| w.tasks[0].pages = 17,
            key: "tasks.0.pages",
            reason: "does not fit in the namespace",
        },
        Bad { change: |w| w.tasks[0].pages = 17, key: "tasks.0.pages", reason: "in [1, 16], got 17" },
        Bad { change: |w| w.tasks[1].period_ms = 0.0, key: "tasks.1.period_ms", reason: PERIOD },
        Bad { change: |w| w.tasks[1].period_ms = -2.0, key: "tasks.1.period_ms", reason: "got -2" },
        Bad { change: |w| w.tasks[1].period_ms = 2e10, key: "tasks.1.period_ms", reason: PERIOD },
        Bad { change: |w| w.tasks[1].period_ms = f64::NAN, key: "tasks.1.period_ms", reason: "got NaN" },
        Bad { change: |w| w.tasks[1].period_ms = f64::INFINITY, key: "tasks.1.period_ms", reason: "got inf" },
        Bad { change: |w| w.tasks[1].period_ms = 1e-7, key: "tasks.1.period_ms", reason: "at least 1 ns" },
        Bad {
            change: |w| w.tasks[2].offset_ms = -1.0,
            key: "tasks.2.offset_ms",
            reason: "[0, 10000000000] milliseconds, got -1",
        },
        Bad { change: |w| w.tasks[2].offset_ms = 1e11, key: "tasks.2.offset_ms", reason: "[0, 10000000000]" },
        Bad { change: |w| w.tasks[2].offset_ms = f64::NAN, key: "tasks.2.offset_ms", reason: "got NaN" },
        Bad { change: |w| w.tasks[0].deadline_ms = Some(0.0), key: "tasks.0.deadline_ms", reason: PERIOD },
        Bad { change: |w| w.tasks[0].deadline_ms = Some(1e11), key: "tasks.0.deadline_ms", reason: PERIOD },
        Bad {
            change: |w| w.tasks[0].deadline_ms = Some(1e-7),
            key: "tasks.0.deadline_ms",
            reason: "at least 1 ns",
        },
    ];
    let failures: Vec<String> = bad.iter().filter_map(|b| check(b).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The first invalid task is reported, in task order.
    let mut w = workload(vec![task(IoOp::Read, 1, 1.0), task(IoOp::Trim, 1, 1.0), task(IoOp::Read, 0, 1.0)]);
    assert_eq!(w.resolve(NS_BYTES, PAGE).unwrap_err().0, "tasks.1.op");
}

#[test]
fn the_edges_of_every_range_are_accepted() {
    let mut t = task(IoOp::Write, 16, 1e10);
    t.offset_ms = 1e10;
    t.deadline_ms = Some(1e-6);
    let mut w = workload(vec![t; 1024]);
    for (i, t) in w.tasks.iter_mut().enumerate() {
        t.name = Some(format!("t{i}"));
    }
    w.end_s = Some(1e7);
    assert_eq!(w.resolve(16 * u64::from(PAGE), PAGE), Ok(()));
}

// ---------------------------------------------------------------------------------------
// TOML form.

#[test]
fn toml_form_and_unknown_keys() {
    // The example of the docs.
    let text = concat!(
        r#"tasks = [ { op = "read", pages = 4, period_ms = 10.0 }, { op = "write", pages = 1, period_ms = "#,
        r#"20.0 } ]"#,
    );
    let mut w: PeriodicWorkload = toml::from_str(text).unwrap();
    assert_eq!(w.tasks.len(), 2);
    assert_eq!(
        (w.tasks[0].op, w.tasks[0].pages, w.tasks[0].offset_ms, w.tasks[0].deadline_ms),
        (IoOp::Read, 4, 0.0, None)
    );
    w.resolve(NS_BYTES, PAGE).unwrap();
    // Resolved, it serializes with its defaults filled in and reads back the same.
    let back: PeriodicWorkload = toml::from_str(&toml::to_string(&w).unwrap()).unwrap();
    assert_eq!(format!("{back:?}"), format!("{w:?}"));
    assert_eq!(back.tasks[1].name.as_deref(), Some("task1"));
    assert_eq!(back.tasks[1].deadline_ms, Some(20.0));

    for (text, unknown) in [
        (r#"tasks = [ { op = "read", pages = 1, period_ms = 1.0, periode_ms = 2.0 } ]"#, "periode_ms"),
        ("tasks = []\nend = 1.0", "end"),
    ] {
        let e = toml::from_str::<PeriodicWorkload>(text).unwrap_err().to_string();
        assert!(e.contains(&format!("unknown field `{unknown}`")), "{e}");
    }
    let e = toml::from_str::<PeriodicWorkload>(r#"tasks = [ { op = "read", pages = 1 } ]"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing field `period_ms`"), "{e}");
}

// ---------------------------------------------------------------------------------------
// Utilisation.

#[test]
fn utilisation_worked_by_hand() {
    // Read pages take 50 µs, write pages 600 µs.
    //   read  4 pages / 10 ms:  4 · 50 000 / 10 000 000  = 0.02
    //   write 1 page  / 20 ms:  1 · 600 000 / 20 000 000 = 0.03
    //   read  3 pages / 15 ms:  3 · 50 000 / 15 000 000  = 0.01
    //   write 12 pages / 60 ms: 12 · 600 000 / 60 000 000 = 0.12
    // total 0.18.
    let w = workload(vec![
        task(IoOp::Read, 4, 10.0),
        task(IoOp::Write, 1, 20.0),
        task(IoOp::Read, 3, 15.0),
        task(IoOp::Write, 12, 60.0),
    ]);
    let u = w.utilisation(50_000.0, 600_000.0);
    assert!((u - 0.18).abs() < 1e-12, "{u}");
    // The relative deadline does not enter it; the period does, as released (whole ns).
    let mut odd = task(IoOp::Read, 1, 1.0 / 3.0); // 333333 ns
    odd.deadline_ms = Some(0.1);
    let u = workload(vec![odd]).utilisation(333_333.0, 0.0);
    assert_eq!(u, 1.0);
}
