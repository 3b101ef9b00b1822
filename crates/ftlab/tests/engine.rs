//! The engine's measurement contract (DESIGN §11): preconditioning ends in steady state (warm
//! start), an overloaded tenant is reported `unstable` with its outstanding requests counted,
//! EDF orders flash operations by deadline, periodic task sets meet or miss their deadlines as
//! their utilisation says, the measured phase's counters exclude the warm-up, and schemes
//! run in parallel give the same `summary.json` as run one by one. Data-driven through
//! `check` helpers over small scenarios on the `tiny` device.

use crate::common;

use common::{run, run_raw, tiny, tiny_on};
use ftlab::internals::flash::geometry::DieIdx;
use ftlab::internals::policy::OpClass;
use ftlab::internals::sched::{SchedOp, Scheduler, SchedulerKind};
use ftlab::{run_scenario, Column, RunOptions, RunOutput, ScenarioSource, SimTime};
use serde_json::Value;
use std::path::PathBuf;

/// Per-window GC copies of `scheme` from a run's time series (one value per window; the
/// column is device-wide, so the first tenant's rows are taken).
fn gc_per_window(out: &RunOutput, scheme: &str) -> Vec<f64> {
    let col =
        |name: &str| out.timeseries.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()).unwrap();
    let (Column::Str(schemes), Column::Str(tenants), Column::F64(gc)) =
        (col("scheme"), col("tenant"), col("gc_pages_copied"))
    else {
        panic!("unexpected column types")
    };
    let first = tenants[0].clone();
    (0..gc.len()).filter(|&i| schemes[i] == scheme && tenants[i] == first).map(|i| gc[i]).collect()
}

/// Warm start: after preconditioning, the GC rate of the first tenth of the run is within 20%
/// of the last tenth's (the bound), for greedy and cost-benefit victims. The workload
/// is stationary (uniform random 4 KiB writes at a fixed rate), so a steady-state device
/// shows one GC rate throughout; a device that starts below its GC watermark or with
/// age-zero blocks shows a catch-up at the start instead.
#[test]
fn first_tenth_has_the_gc_rate_of_the_last() {
    for policy in ["greedy", "cost-benefit"] {
        let text = tiny(
            &["unified"],
            // A wide gap between the GC watermarks (6 and 30 of 64 blocks per die) and a half-full
            // device (write amplification near 1): a device that started at the low watermark
            // would spend its first seconds collecting 24 blocks per die, more GC than the
            // workload itself causes in a tenth of the run.
            &format!(
                "[ftl]\ngc_policy = \"{policy}\"\ngc_low_watermark_blocks = 6\ngc_high_watermark_blocks = \
                 30\n[measure]\nduration_s = 20.0\nwindow_s = 0.5\n"
            ),
            "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\npattern = \
             \"uniform\"\nread_ratio = 0.0\narrival = \"fixed\"\ninterval_us = 400.0\n",
        );
        let out = run_raw(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
        let gc = gc_per_window(&out, "unified");
        assert_eq!(gc.len(), 41, "windows of a 20 s run at 0.5 s (and the closing one)");
        let tenth = 4;
        let first: f64 = gc[..tenth].iter().sum();
        let last: f64 = gc[gc.len() - 1 - tenth..gc.len() - 1].iter().sum();
        assert!(last > 1000.0, "{policy}: too little GC to compare ({last} copies in the last tenth)");
        let ratio = first / last;
        assert!(
            (0.8..=1.2).contains(&ratio),
            "{policy}: GC copies in the first tenth {first} vs last tenth {last} (ratio {ratio:.3})"
        );
    }
}

fn tenant<'a>(s: &'a Value, scheme: &str, t: &str) -> &'a Value {
    &s["schemes"][scheme]["tenants"][t]
}

/// A tenant given about three times the writes its dies can program is `unstable`, with its
/// backlog counted; a light neighbour on its own channel is not.
#[test]
fn overload_is_reported_unstable_with_its_backlog() {
    // tiny: 4 dies, tPROG 200 us: at most 4 / 200 us = 20,000 page programs per second for
    // the whole device, half of that for a tenant on one channel of `partitioned`.
    let text = tiny(
        &["partitioned"],
        "[measure]\nduration_s = 0.5\n[scheme.partitioned]\nby = \"channel\"\n",
        "[[tenants]]\nname = \"heavy\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\npattern = \
         \"uniform\"\nread_ratio = 0.0\narrival = \"poisson\"\nrate_iops = 30000.0\n[[tenants]]\nname = \
         \"light\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\npattern = \"uniform\"\nread_ratio = \
         1.0\narrival = \"poisson\"\nrate_iops = 1000.0\n",
    );
    let s = run(&text, &[]);
    let heavy = tenant(&s, "partitioned", "heavy");
    assert_eq!(heavy["unstable"], Value::Bool(true), "{heavy}");
    // About 30,000/s arrive and at most 10,000/s complete: the backlog grows by ~10^4 in 0.5 s.
    let outstanding = heavy["outstanding_at_end"].as_u64().unwrap();
    assert!(outstanding > 5_000, "outstanding at end {outstanding}");
    assert!(heavy["backlog_growth"].as_f64().unwrap() > 5_000.0);
    let light = tenant(&s, "partitioned", "light");
    assert_eq!(light["unstable"], Value::Bool(false), "{light}");
    assert!(light["outstanding_at_end"].as_u64().unwrap() <= 32);
}

/// Counters cover the measured phase only: with a warm-up, host pages written are the ones
/// written after it (a fixed-rate writer: one per 1 ms for 1 s, warm-up 0.5 s).
#[test]
fn counters_exclude_the_warmup() {
    let text = tiny(
        &["unified"],
        "[measure]\nduration_s = 1.0\nwarmup_s = 0.5\n",
        "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\npattern = \
         \"uniform\"\nread_ratio = 0.0\narrival = \"fixed\"\ninterval_us = 1000.0\n",
    );
    let s = run(&text, &[]);
    let written = tenant(&s, "unified", "w")["host_pages_written"].as_u64().unwrap();
    // Arrivals at 0, 1, ..., 999 ms: those placed at or after 500 ms count (499 or 500 of
    // them depending on whether the one at 500 ms is placed before the phase starts).
    assert!((499..=501).contains(&written), "host pages written in the measured phase: {written}");
    assert_eq!(s["schemes"]["unified"]["device"]["host_pages_written"].as_u64().unwrap(), written);
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Op(u64, OpClass, u32);

impl SchedOp for Op {
    fn class(&self) -> OpClass {
        self.1
    }
    fn deadline(&self) -> SimTime {
        SimTime(self.0)
    }
    fn tenant(&self) -> u16 {
        0
    }
}

/// EDF at the scheduler: one die's queue serves by deadline, arrival order among equal ones,
/// the earlier head of the foreground and background queues first, background first when
/// free space is critical.
#[test]
fn edf_scheduler_serves_by_deadline() {
    let die = DieIdx(0);
    let check = |ops: &[Op], urgent: bool, expected: &[u32]| {
        let mut s = Scheduler::new(SchedulerKind::Edf, 1, 64);
        for &o in ops {
            s.push(die, o);
        }
        let got: Vec<u32> = std::iter::from_fn(|| s.pop(die, urgent)).map(|o| o.2).collect();
        assert_eq!(got, expected, "ops {ops:?}, urgent {urgent}");
    };
    let (r, w, gc) = (OpClass::HostRead, OpClass::HostWrite, OpClass::Gc);
    check(
        &[Op(30, r, 1), Op(10, r, 2), Op(20, w, 3), Op(u64::MAX, r, 4), Op(10, w, 5)],
        false,
        &[2, 5, 3, 1, 4],
    );
    check(&[Op(30, r, 1), Op(u64::MAX, gc, 2), Op(5, gc, 3)], false, &[3, 1, 2]);
    check(&[Op(30, r, 1), Op(u64::MAX, gc, 2)], true, &[2, 1]);
    // Priority ignores deadlines.
    let mut s = Scheduler::new(SchedulerKind::Priority, 1, 64);
    for o in [Op(30, w, 1), Op(10, gc, 2), Op(20, r, 3)] {
        s.push(die, o);
    }
    let got: Vec<u32> = std::iter::from_fn(|| s.pop(die, false)).map(|o| o.2).collect();
    assert_eq!(got, [3, 1, 2]);
}

/// An operation that may go to the front of its queue (`SchedOp::front`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct FrontOp(u64, OpClass, u32, bool);

impl SchedOp for FrontOp {
    fn class(&self) -> OpClass {
        self.1
    }
    fn deadline(&self) -> SimTime {
        SimTime(self.0)
    }
    fn tenant(&self) -> u16 {
        0
    }
    fn front(&self) -> bool {
        self.3
    }
}

/// PaRT-FTL §V: "If there is a read request for a page on a write flash die, a rebuild
/// operation will be initialized by adding the pages that need to be read for the rebuild to
/// the front of the queue." A front operation goes before every queued one whatever the
/// deadlines, behind only earlier front operations (in their order), under EDF (where a front
/// head also wins over the other queue's earlier head) and under every other kind.
#[test]
fn rebuild_reads_go_to_the_front_of_the_queue() {
    let die = DieIdx(0);
    let (r, gc) = (OpClass::HostRead, OpClass::Gc);
    let ops = [
        FrontOp(30, r, 1, false),
        FrontOp(10, r, 2, false),
        FrontOp(100, r, 3, true),
        FrontOp(5, r, 4, false),
        FrontOp(50, r, 5, true),
        FrontOp(1, gc, 6, false),
    ];
    for (kind, expected) in [
        (SchedulerKind::Edf, [3, 5, 6, 4, 2, 1]),
        (SchedulerKind::Priority, [3, 5, 1, 2, 4, 6]),
        (SchedulerKind::Fifo, [3, 5, 1, 2, 4, 6]),
        (SchedulerKind::Fair, [3, 5, 1, 2, 4, 6]),
    ] {
        let mut s = Scheduler::new(kind, 1, 64);
        for o in ops {
            s.push(die, o);
        }
        let got: Vec<u32> = std::iter::from_fn(|| s.pop(die, false)).map(|o| o.2).collect();
        assert_eq!(got, expected, "{kind:?}");
    }
}

/// One die, two periodic read tasks released together at t = 0 (one job each): `a` (listed
/// first, due in 50 ms) and `b` (due in 10 ms), 8 pages each. `a` is submitted first and its
/// first page starts at once; under EDF `b`'s pages then go before `a`'s other 7, so `b`
/// completes first; in FIFO order `a` does.
#[test]
fn edf_completes_two_tasks_in_deadline_order() {
    let responses = |sched: &str| {
        let text = tiny_on(
            &["unified"],
            "channels = 1\nchips_per_channel = 1",
            &format!("[ftl]\nscheduler = \"{sched}\"\n"),
            "[[tenants]]\nname = \"rt\"\nnamespace_fraction = 0.5\n[tenants.periodic]\nend_s = 0.001\ntasks \
             = [ { name = \"a\", op = \"read\", pages = 8, period_ms = 50.0 }, { name = \"b\", op = \
             \"read\", pages = 8, period_ms = 10.0 } ]\n",
        );
        let s = run(&text, &[]);
        let d = &tenant(&s, "unified", "rt")["deadlines"]["tasks"];
        (d["a"]["response_max_us"].as_f64().unwrap(), d["b"]["response_max_us"].as_f64().unwrap())
    };
    let (a, b) = responses("edf");
    assert!(b < a, "EDF: b (due first) took {b} us, a {a} us");
    let (a, b) = responses("fifo");
    assert!(a < b, "FIFO: a (submitted first) took {a} us, b {b} us");
}

/// Periodic read tasks on one die under EDF: a set of utilisation below 1 misses no deadline,
/// one above 1 misses some (EDF schedulability, U <= 1: Liu and Layland 1973, the basis of the
/// PaRT-FTL paper's Eq. 6-7). U = sum of pages x page read time / period, with the page read
/// time tR + transfer of the `tiny` device's timing.
#[test]
fn periodic_tasks_meet_deadlines_below_capacity_and_miss_above() {
    let g = |tasks: &str| {
        tiny_on(
            &["unified"],
            "channels = 1\nchips_per_channel = 1",
            "[ftl]\nscheduler = \"edf\"\n[measure]\nduration_s = 0.2\n",
            &format!(
                "[[tenants]]\nname = \"rt\"\nnamespace_fraction = 0.5\n[tenants.periodic]\ntasks = \
                 [{tasks}]\n"
            ),
        )
    };
    // tiny timing: tR 25 us, 4096 bytes over an 8-bit 333 MT/s bus = 12.3 us: 37.3 us a page.
    let page_us = 25.0 + 4096.0 / 333.0;
    let cases = [
        (
            "{ op = \"read\", pages = 2, period_ms = 1.0 }, { op = \"read\", pages = 1, period_ms = 2.0 }",
            2.0 / 1000.0 + 1.0 / 2000.0,
            false,
        ),
        ("{ op = \"read\", pages = 20, period_ms = 0.5 }", 20.0 / 500.0, true),
    ];
    for (tasks, pages_per_us, misses) in cases {
        let u = pages_per_us * page_us;
        assert_eq!(u > 1.0, misses, "the case's premise: utilisation {u:.3}");
        let s = run(&g(tasks), &[]);
        let d = &tenant(&s, "unified", "rt")["deadlines"];
        let (released, missed) = (d["released"].as_u64().unwrap(), d["misses"].as_u64().unwrap());
        assert!(released > 100, "{released} jobs released");
        if misses {
            assert!(missed > 0, "U = {u:.2} > 1 but no deadline missed");
        } else {
            assert_eq!(missed, 0, "U = {u:.2} < 1 but {missed} of {released} deadlines missed");
        }
    }
}

/// Parallel schemes: the three schemes of one scenario give a byte-identical `summary.json`
/// and tables with `jobs` 1 and 3.
#[test]
fn parallel_schemes_match_serial() {
    let text = tiny(
        &["unified", "partitioned", "upi"],
        "[measure]\nduration_s = 0.3\n[scheme.upi]\nepoch_s = 0.01\n",
        "[[tenants]]\nname = \"a\"\nnamespace_fraction = 0.4\n[tenants.synthetic]\npattern = \
         \"zipf\"\nread_ratio = 0.6\narrival = \"poisson\"\nrate_iops = 4000.0\n[[tenants]]\nname = \
         \"b\"\nnamespace_fraction = 0.4\n[tenants.synthetic]\npattern = \"uniform\"\nread_ratio = \
         0.2\narrival = \"poisson\"\nrate_iops = 2000.0\n",
    );
    let go = |jobs: usize| {
        let source = ScenarioSource::Text {
            text: text.clone(),
            base_dir: PathBuf::from("."),
            name: "par.toml".into(),
        };
        run_scenario(&source, &RunOptions { jobs: Some(jobs), ..RunOptions::default() }, &mut |_| {}).unwrap()
    };
    let (one, three) = (go(1), go(3));
    assert_eq!(one.summary_json, three.summary_json);
    // Bit for bit (`Column`'s `==`): NaN cells (a column one scheme lacks) included.
    assert_eq!(one.timeseries, three.timeseries);
    assert_eq!(one.latency_cdf, three.latency_cdf);
    assert_eq!(one.wear, three.wear);
    assert!(one.summary_json.contains("\"upi\""));
}

/// Padding and the default write buffer (docs/scenario.md, `ftl.write_buffer_bytes`): with
/// 16 KiB pages of four 4 KiB units and no GC (an empty device, far from its watermarks),
/// write-through programs one whole page per 4 KiB write (device WAF 4), the default buffer one
/// page per four writes (WAF 1). Exact counts: when the run stops, at most one program per die
/// (4 dies) is still in flight, and with the buffer at most one partly filled page waits.
#[test]
fn default_write_buffer_fills_pages_across_requests() {
    for (ftl, units_per_program) in [("", 4u64), ("write_buffer_bytes = 0", 1)] {
        let text = tiny_on(
            &["unified"],
            "page_bytes = 16384\npages_per_block = 16",
            &format!("[ftl]\n{ftl}\n[precondition]\nfill_fraction = 0.0\n[measure]\nduration_s = 0.5\n"),
            "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.3\n[tenants.synthetic]\npattern = \
             \"uniform\"\nread_ratio = 0.0\narrival = \"fixed\"\ninterval_us = 200.0\n",
        );
        let s = run(&text, &[]);
        let d = &s["schemes"]["unified"]["device"];
        assert_eq!(d["gc_pages_copied"].as_u64(), Some(0), "the case must not collect: {d}");
        let host = d["host_pages_written"].as_u64().unwrap();
        let programmed = d["flash_pages_programmed"].as_u64().unwrap();
        let expected = host / units_per_program;
        let slack = 4 + u64::from(units_per_program > 1);
        assert!(host > 2000, "{host} units written");
        assert!(
            (expected.saturating_sub(slack)..=expected).contains(&programmed),
            "[ftl] {ftl:?}: {programmed} pages programmed for {host} units written, expected {expected} - \
             {slack} to {expected}"
        );
        let buffer = d["write_buffer_bytes"].as_u64().unwrap();
        // The default: 4 pages of 16 KiB per die, 4 dies.
        assert_eq!(buffer, if ftl.is_empty() { 4 * 16384 * 4 } else { 0 });
    }
}

/// The backlog verdict (metrics/backlog.rs) on hand-made counts, 1 s windows over 10 s: 10
/// arrivals and 8 completions per window put the backlog at 2k at the end of window k, on the
/// line 2 requests/s through the origin, so the least-squares growth over the 10 s phase is
/// exactly 20. Unstable with a queue depth of 16 (20 > 16, and 20 outstanding > 16); not with
/// 32. Equal arrivals and completions: no growth.
#[test]
fn backlog_verdict_on_hand_made_counts() {
    use ftlab::internals::metrics::backlog::Backlog;
    let s = SimTime::from_secs_f64;
    let check =
        |completions_per_window: u64, queue_depth: u32, growth: f64, outstanding: u64, unstable: bool| {
            let mut b = Backlog::new(s(1.0));
            for w in 0..10u64 {
                for i in 0..10 {
                    b.arrived(SimTime(w * 1_000_000_000 + i * 1_000_000));
                }
                for i in 0..completions_per_window {
                    b.completed(SimTime(w * 1_000_000_000 + 500_000_000 + i * 1_000_000));
                }
            }
            let v = b.verdict(SimTime::ZERO, s(10.0), queue_depth);
            assert!((v.growth - growth).abs() < 1e-9, "growth {} expected {growth}", v.growth);
            assert_eq!((v.outstanding_at_end, v.unstable), (outstanding, unstable), "qd {queue_depth}");
        };
    check(8, 16, 20.0, 20, true);
    check(8, 32, 20.0, 20, false);
    check(10, 1, 0.0, 0, false);
}

/// `[[measure.phases]]` split the measured phase: a fixed-rate writer doubles its rate at 1 s
/// (one write per 1 ms, then per 0.5 ms), and two phases cover [0.5, 1) and [1, 1.5). Each
/// phase counts the completed writes that arrived in it (500, and 1000 less those still in
/// flight when the run stops), the two add up to the whole measured phase, and
/// the dies' busy time splits the same way: the phases' utilisations weighted by their
/// lengths give the run's (both are busy time over elapsed time).
#[test]
fn phases_split_the_measured_phase() {
    let text = tiny(
        &["unified"],
        "[measure]\nduration_s = 1.5\nwarmup_s = 0.5\n[[measure.phases]]\nname = \"before\"\nstart_s = \
         0.5\nend_s = 1.0\n[[measure.phases]]\nname = \"after\"\nstart_s = 1.0\n",
        "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.5\n[[tenants.synthetic]]\npattern = \
         \"uniform\"\nread_ratio = 0.0\narrival = \"fixed\"\ninterval_us = 1000.0\nend_s = \
         1.0\n[[tenants.synthetic]]\npattern = \"uniform\"\nread_ratio = 0.0\narrival = \
         \"fixed\"\ninterval_us = 500.0\nstart_s = 1.0\n",
    );
    let s = run(&text, &[]);
    let u = &s["schemes"]["unified"];
    let phase = |p: &str| &u["phases"][p];
    let writes = |p: &str| phase(p)["tenants"]["w"]["write"]["count"].as_u64().unwrap();
    // 1000 arrive in [1, 1.5) and one at 1.5 s, when the run stops: that one and the last
    // in flight are outstanding (the run counts arrivals up to and including its end).
    let outstanding = u["tenants"]["w"]["outstanding_at_end"].as_u64().unwrap();
    assert!((1..=3).contains(&outstanding), "{outstanding} outstanding at the end of a light run");
    assert_eq!((writes("before"), writes("after") + outstanding), (500, 1001));
    assert_eq!(writes("before") + writes("after"), u["tenants"]["w"]["write"]["count"].as_u64().unwrap());
    assert_eq!(
        (phase("before")["start_s"].as_f64(), phase("after")["end_s"].as_f64()),
        (Some(0.5), Some(1.5))
    );
    let util = |v: &Value| {
        v["die_utilisation"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>()
    };
    let (before, after, whole) =
        (util(&phase("before")["device"]), util(&phase("after")["device"]), util(&u["device"]));
    for d in 0..whole.len() {
        // Each value is rounded to 6 decimals in summary.json.
        let mixed = 0.5 * before[d] + 0.5 * after[d];
        assert!(
            (mixed - whole[d]).abs() < 2e-6,
            "die {d}: phases {} and {} against the run's {}",
            before[d],
            after[d],
            whole[d]
        );
        assert!(
            after[d] > before[d],
            "die {d}: twice the writes, no more busy ({} vs {})",
            after[d],
            before[d]
        );
    }
    assert!(
        phase("after")["device"]["die_utilisation_max"].as_f64().unwrap()
            >= after.iter().copied().fold(0.0, f64::max) - 1e-9
    );
}

/// A phase must lie in the measured phase and have a unique name: each mistake names its key.
#[test]
fn bad_phases_name_their_key() {
    let tenant = "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\nrequests = 10\n";
    for (phases, key) in [
        ("[[measure.phases]]\nname = \"a\"\nstart_s = 0.1\n", "measure.phases.0.start_s"),
        ("[[measure.phases]]\nname = \"a\"\nstart_s = 0.5\nend_s = 0.5\n", "measure.phases.0.end_s"),
        ("[[measure.phases]]\nname = \"\"\nstart_s = 0.5\n", "measure.phases.0.name"),
        (
            "[[measure.phases]]\nname = \"a\"\nstart_s = 0.5\n[[measure.phases]]\nname = \"a\"\nstart_s = \
             0.6\n",
            "measure.phases.1.name",
        ),
        ("[[measure.phases]]\nname = \"a\"\nstart_s = 2.0\n", "measure.phases.0.start_s"),
    ] {
        let text =
            tiny(&["unified"], &format!("[measure]\nwarmup_s = 0.2\nduration_s = 1.0\n{phases}"), tenant);
        let e = run_raw(&text, &[]).err().unwrap_or_else(|| panic!("accepted {phases}"));
        assert!(e.to_string().contains(key), "{phases}: {e}");
    }
}

/// Preconditioning ends as an idle device would: every die's background GC has run it up to
/// its high watermark (DESIGN §11, warm start), under every scheme of the bundled default
/// scenario. A single GC pass over the dies left `upi` 18 blocks short (die 1 at 6 of 12):
/// its GC copies a victim onto other dies of the owner's set, spending their free blocks.
#[test]
fn preconditioning_leaves_every_die_at_its_high_watermark() {
    use ftlab::internals::api::{build_simulation, precondition};
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/default.toml");
    let text = std::fs::read_to_string(&path).expect("the default scenario");
    let s =
        ftlab::internals::scenario::load(&text, "default.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let high = s.ftl.gc_high_watermark_blocks;
    assert!(!s.schemes.is_empty(), "the default names its schemes");
    for scheme in &s.schemes {
        let mut sim = build_simulation(&s, scheme, path.parent().unwrap(), "default.toml").expect("builds");
        precondition(&s, &mut sim, "default.toml").expect("preconditions");
        let ftl = sim.ftl();
        let free: Vec<u32> = (0..ftl.geometry.n_dies).map(|d| ftl.blocks().free_count(DieIdx(d))).collect();
        assert!(
            free.iter().all(|&f| f >= high),
            "{scheme}: free blocks per die {free:?}, high watermark {high}"
        );
    }
}
