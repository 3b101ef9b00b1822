//! The `fair` scheduler (sched/mod.rs): deficit round robin over per-tenant host queues at a
//! die, on hand-made operations (service alternates between tenants by cost; operations
//! served in the inverse ratio of their costs; background after host work, first when urgent;
//! `take_matching` across tenant queues), and end to end: a light tenant sharing a die with a
//! heavy one has a lower p99 read latency under `fair` than under `fifo`.

use crate::common;

use common::{metric, run, tiny_on};
use ftlab::internals::flash::geometry::DieIdx;
use ftlab::internals::policy::OpClass;
use ftlab::internals::sched::{FairCosts, SchedOp, Scheduler, SchedulerKind};
use ftlab::SimTime;

/// (tenant, class, id).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Op(u16, OpClass, u32);

impl SchedOp for Op {
    fn class(&self) -> OpClass {
        self.1
    }
    fn deadline(&self) -> SimTime {
        SimTime::MAX
    }
    fn tenant(&self) -> u16 {
        self.0
    }
}

const R: OpClass = OpClass::HostRead;
const W: OpClass = OpClass::HostWrite;
const GC: OpClass = OpClass::Gc;

fn fair(n_tenants: usize, read: u64, program: u64) -> Scheduler<Op> {
    Scheduler::with_tenants(SchedulerKind::Fair, 2, 1024, n_tenants, FairCosts::new(read, program))
}

fn drain(s: &mut Scheduler<Op>, die: DieIdx, urgent: bool) -> Vec<Op> {
    std::iter::from_fn(|| s.pop(die, urgent)).collect()
}

#[test]
fn reads_of_two_tenants_alternate_by_cost() {
    // Equal costs (read = program = 10): the quantum is one operation, so tenant 0 (20 reads
    // queued first) and tenant 1 (3 reads) alternate until tenant 1 runs out; FIFO order
    // inside each tenant.
    let die = DieIdx(1);
    let mut s = fair(2, 10, 10);
    for i in 0..20 {
        s.push(die, Op(0, R, i));
    }
    for i in 100..103 {
        s.push(die, Op(1, R, i));
    }
    assert_eq!(s.queued(die), 23);
    assert_eq!(s.queued(DieIdx(0)), 0);
    assert!(s.is_empty(DieIdx(0)) && !s.is_empty(die));
    let got: Vec<u32> = drain(&mut s, die, false).iter().map(|o| o.2).collect();
    let mut want = vec![0, 100, 1, 101, 2, 102];
    want.extend(3..20);
    assert_eq!(got, want);
    assert!(s.is_empty(die) && s.pending() == 0);

    // Reads cost 1, programs 4: the quantum (4) holds four reads, so tenant 0 serves its reads
    // in runs of four between tenant 1's reads' runs.
    let mut s = fair(2, 1, 4);
    for i in 0..10 {
        s.push(die, Op(0, R, i));
    }
    for i in 100..103 {
        s.push(die, Op(1, R, i));
    }
    let got: Vec<u32> = drain(&mut s, die, false).iter().map(|o| o.2).collect();
    assert_eq!(got, [0, 1, 2, 3, 100, 101, 102, 4, 5, 6, 7, 8, 9]);
}

#[test]
fn cheap_reads_get_more_operations_than_programs_in_the_ratio_of_the_costs() {
    // Tenant 0 queues reads (cost 30), tenant 1 programs (cost 210): while both have work, each
    // gets the same service time, so tenant 0 completes 7 operations per program of tenant 1.
    let die = DieIdx(0);
    let (read, program) = (30, 210);
    let mut s = fair(2, read, program);
    for i in 0..700 {
        s.push(die, Op(0, R, i));
    }
    for i in 0..100 {
        s.push(die, Op(1, W, i));
    }
    let got = drain(&mut s, die, false);
    assert_eq!(got.len(), 800);
    // The first 400 operations served: counted per tenant, and their service times.
    let first = &got[..400];
    let reads = first.iter().filter(|o| o.0 == 0).count() as u64;
    let programs = first.iter().filter(|o| o.0 == 1).count() as u64;
    assert_eq!(reads + programs, 400);
    let ratio = reads as f64 / programs as f64;
    assert!(
        (ratio - (program / read) as f64).abs() < 0.2,
        "{reads} reads, {programs} programs: ratio {ratio}, costs {program}/{read}"
    );
    // Service times differ by at most one quantum.
    let (tr, tp) = (reads * read, programs * program);
    assert!(tr.abs_diff(tp) <= program, "service {tr} vs {tp}");
    // Under fifo the same queue is served in arrival order: all 700 reads first.
    let mut f = Scheduler::new(SchedulerKind::Fifo, 1, 1024);
    for i in 0..700 {
        f.push(die, Op(0, R, i));
    }
    f.push(die, Op(1, W, 0));
    assert_eq!(drain(&mut f, die, false).iter().position(|o| o.0 == 1), Some(700));
}

#[test]
fn background_after_host_work_and_first_when_urgent() {
    let die = DieIdx(0);
    let load = || {
        let mut s = fair(3, 1, 2);
        s.push(die, Op(0, GC, 1));
        s.push(die, Op(2, W, 2));
        s.push(die, Op(1, R, 3));
        s.push(die, Op(0, OpClass::Migrate, 4));
        s.push(die, Op(2, OpClass::Parity, 5));
        s
    };
    let ids = |v: Vec<Op>| v.iter().map(|o| o.2).collect::<Vec<_>>();
    // Host work in round order (tenant 2 joined first: its write, then tenant 1's read, then
    // tenant 2's parity), then the background queue in arrival order.
    assert_eq!(ids(drain(&mut load(), die, false)), [2, 3, 5, 1, 4]);
    // Urgent: background first.
    assert_eq!(ids(drain(&mut load(), die, true)), [1, 4, 2, 3, 5]);
}

#[test]
fn take_matching_scans_every_tenant_queue() {
    let die = DieIdx(0);
    let mut s = fair(3, 1, 1);
    s.push(die, Op(0, W, 1));
    s.push(die, Op(1, W, 2));
    s.push(die, Op(2, R, 3));
    s.push(die, Op(2, R, 4));
    s.push(die, Op(0, GC, 5));
    // A host read: found in tenant 2's queue, behind two tenants' writes.
    assert_eq!(s.take_matching(die, R, 16, |o| o.1 == R), Some(Op(2, R, 3)));
    // The scan bound counts operations over all tenant queues: two writes, then read 4.
    assert_eq!(s.take_matching(die, R, 2, |o| o.1 == R), None);
    assert_eq!(s.take_matching(die, R, 3, |o| o.1 == R), Some(Op(2, R, 4)));
    // Tenant 2's queue emptied: it left the round.
    assert_eq!(s.take_matching(die, W, 16, |o| o.2 == 2), Some(Op(1, W, 2)));
    assert_eq!(s.take_matching(die, GC, 16, |_| true), Some(Op(0, GC, 5)));
    assert_eq!(s.queued(die), 1);
    assert_eq!(drain(&mut s, die, false), [Op(0, W, 1)]);
    assert_eq!(s.pending(), 0);
    assert!(s.is_empty(die));
}

#[test]
#[should_panic(expected = "fair scheduler built for 2")]
fn a_tenant_beyond_the_count_is_a_bug() {
    let mut s = fair(2, 1, 1);
    s.push(DieIdx(0), Op(2, R, 0));
}

/// One die (one channel, one chip): `heavy` reads in a closed loop at queue depth 32, `light`
/// reads at 200 requests a second. Under `fifo` a light read waits behind up to 32 of heavy's;
/// under `fair` behind at most one quantum of them.
#[test]
fn a_light_tenant_sharing_a_die_gets_a_lower_p99_under_fair_than_fifo() {
    let tenants = r#"
[measure]
duration_s = 1.0
warmup_s = 0.1
[precondition]
fill_fraction = 1.0
[[tenants]]
name = "heavy"
namespace_fraction = 0.45
queue_depth = 32
[tenants.synthetic]
pattern = "uniform"
read_ratio = 1.0
arrival = "closed"
requests = 10000000
[[tenants]]
name = "light"
namespace_fraction = 0.45
queue_depth = 4
[tenants.synthetic]
pattern = "uniform"
read_ratio = 1.0
arrival = "poisson"
rate_iops = 200.0
requests = 10000000
"#;
    let p99 = |sched: &str| {
        let text = tiny_on(
            &["unified"],
            "channels = 1\nchips_per_channel = 1",
            &format!("[ftl]\nscheduler = \"{sched}\"\n"),
            tenants,
        );
        let s = run(&text, &[]);
        let count = metric(&s, "unified", "light", "read", "count");
        assert!(count > 100.0, "{sched}: {count} light reads");
        let heavy = metric(&s, "unified", "heavy", "read", "count");
        (metric(&s, "unified", "light", "read", "p99_us"), heavy)
    };
    let (fair_p99, fair_heavy) = p99("fair");
    let (fifo_p99, fifo_heavy) = p99("fifo");
    eprintln!(
        "light p99: fair {fair_p99} us, fifo {fifo_p99} us; heavy reads: fair {fair_heavy}, fifo \
         {fifo_heavy}"
    );
    assert!(fair_p99 * 3.0 < fifo_p99, "light p99: fair {fair_p99} us, fifo {fifo_p99} us");
    // The heavy tenant still saturates the die under both.
    assert!(fair_heavy > 0.9 * fifo_heavy, "heavy reads: fair {fair_heavy}, fifo {fifo_heavy}");
}
