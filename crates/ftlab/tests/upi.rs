//! Tests of the `upi` scheme (`src/scheme/upi.rs`) against the paper
//! (`../shared/papers/upi-utilitarian-performance-isolation.txt`): Eq. 1-3 on hand-worked
//! numbers, the handling of Traffic >= 1, the one-die transfer with its anti-thrash rule and
//! least-read choice, read-only dies, and end-to-end runs with the integrity oracle on through
//! die transfers and GC relocation (eager versus lazy).

use crate::common;

use ftlab::internals::api::{build_simulation, precondition};
use ftlab::internals::flash::geometry::{BlockIdx, DieIdx};
use ftlab::internals::ftl::blocks::WriteClass;
use ftlab::internals::ftl::gc::VictimPolicy;
use ftlab::internals::ftl::{FrontierKey, Ftl, FtlParams};
use ftlab::internals::policy::EpochStats;
use ftlab::internals::policy::{Command, DeviceView, DieStatus};
use ftlab::internals::scenario::{self, Scenario};
use ftlab::internals::scheme::upi::{delay_weight, EpochModel, Smoothed, Upi, UpiConfig};
use ftlab::internals::scheme::{Scheme, SchemeContext};
use ftlab::{Column, SimTime, Table};
use std::path::Path;

const TAU_R_NS: f64 = 50_000.0;
const TAU_P_NS: f64 = 500_000.0;

/// Two tenants of equal namespaces on the `tiny` device (4 dies: sets {0, 2} and {1, 3}),
/// with the `upi` preset's read and program times.
fn two_tenant_scenario(upi: &str) -> Scenario {
    let text = format!(
        r#"seed = 3
schemes = ["upi"]
[device]
preset = "tiny"
[device.timing]
read_us = 50.0
program_us = 500.0
[scheme.upi]
{upi}
[[tenants]]
name = "a"
namespace_fraction = 0.5
[tenants.synthetic]
requests = 10
[[tenants]]
name = "b"
namespace_fraction = 0.5
[tenants.synthetic]
requests = 10
"#
    );
    scenario::load(&text, "upi.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

fn build_upi(s: &Scenario) -> Upi {
    let ns = s.namespace_units();
    let g = s.geometry();
    let ctx = SchemeContext {
        geometry: &g,
        namespace_units: &ns,
        over_provisioning: s.device.over_provisioning,
        timing: s.timing(),
        low_watermark_blocks: s.ftl.gc_low_watermark_blocks,
        tasks: &[],
        scheduler: s.ftl.scheduler,
    };
    Upi::new(s.scheme.get("upi").expect("resolved upi table"), &ctx)
        .unwrap_or_else(|e| panic!("{}: {}", e.key, e.reason))
}

/// Run `upi`'s epoch hook at `now_s` with counters `st` on an idle device.
fn epoch(upi: &mut Upi, now_s: f64, st: &EpochStats, ftl: &Ftl) {
    let dies = vec![DieStatus::IDLE; ftl.geometry.n_dies as usize];
    upi.on_epoch(&DeviceView::new(ftl, SimTime::from_secs_f64(now_s), &dies, st), &mut Vec::new());
}

/// A view of an idle device at `now`.
fn with_view<R>(ftl: &Ftl, now: SimTime, f: impl FnOnce(&DeviceView) -> R) -> R {
    let dies = vec![DieStatus::IDLE; ftl.geometry.n_dies as usize];
    let st = EpochStats::new(ftl.n_tenants(), ftl.geometry.n_dies as usize);
    f(&DeviceView::new(ftl, now, &dies, &st))
}

/// Epoch counters of 1 s: `reads[t][c]`, host and GC units per tenant (1 unit = 1 page).
fn stats(reads: [[u64; 4]; 2], host: [u64; 2], gc: [u64; 2]) -> EpochStats {
    let mut st = EpochStats::new(2, 4);
    for (t, row) in reads.iter().enumerate() {
        st.reads[t * 4..t * 4 + 4].copy_from_slice(row);
    }
    st.host_units = host.to_vec();
    st.gc_units = gc.to_vec();
    st.window = SimTime::from_secs_f64(1.0);
    st
}

fn config() -> UpiConfig {
    toml::from_str("").expect("defaults")
}

/// Eq. 3, Eq. 2 and Eq. 1 on numbers worked by hand from the paper's definitions.
#[test]
fn equations_match_hand_worked_values() {
    // Sets: a = {0, 2}, b = {1, 3}. a reads 100 from die 0; b reads 200 from die 2 (a's) and
    // 50 from die 1. a programs 1000 host + 500 GC pages: N_w * WAF = 1000 * 1.5 = 1500.
    let st = stats([[100, 0, 0, 0], [0, 50, 200, 0]], [1000, 0], [500, 0]);
    let m = EpochModel::new(&st, &Smoothed::of(&st), 1, TAU_R_NS, TAU_P_NS, &config());
    let set_of_die = [0u16, 1, 0, 1];
    let sizes = [2u32, 2];
    // Eq. 3: N_p(a, c) = 1500 / |S_a| = 750 on a's dies, 0 elsewhere; b wrote nothing.
    assert_eq!(m.expected_programs(0, 0, &set_of_die, &sizes), 750.0);
    assert_eq!(m.expected_programs(0, 1, &set_of_die, &sizes), 0.0);
    assert_eq!(m.expected_programs(1, 1, &set_of_die, &sizes), 0.0);
    // Eq. 2: Traffic(0) = (100 * 50 us + 750 * 500 us) / 1 s = 0.38; Traffic(2) = (200 * 50 us
    // + 750 * 500 us) / 1 s = 0.385; Traffic(1) = 50 * 50 us / 1 s = 0.0025; Traffic(3) = 0.
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(m.traffic(0, &set_of_die, &sizes), 0.38));
    assert!(close(m.traffic(2, &set_of_die, &sizes), 0.385));
    assert!(close(m.traffic(1, &set_of_die, &sizes), 0.0025));
    assert!(close(m.traffic(3, &set_of_die, &sizes), 0.0));
    // Eq. 1: Util(a) = 100 / (100 / (1 - 0.38)) = 0.62;
    // Util(b) = 250 / (50 / (1 - 0.0025) + 200 / (1 - 0.385)).
    assert!(close(m.utility(0, &set_of_die, &sizes, 1.0), 0.62));
    let b = 250.0 / (50.0 / (1.0 - 0.0025) + 200.0 / (1.0 - 0.385));
    assert!(close(m.utility(1, &set_of_die, &sizes, 1.0), b));
    // §6 exponents: gamma on (1 - Traffic), alpha on N_r in both sums.
    let g = 250.0 / (50.0 / (1.0f64 - 0.0025).powf(2.0) + 200.0 / (1.0f64 - 0.385).powf(2.0));
    assert!(close(m.utility(1, &set_of_die, &sizes, 2.0), g));
    let mut c = config();
    c.read_exponent = 0.5;
    let m = EpochModel::new(&st, &Smoothed::of(&st), 1, TAU_R_NS, TAU_P_NS, &c);
    let (r1, r2) = (50f64.sqrt(), 200f64.sqrt());
    let a = (r1 + r2) / (r1 / (1.0 - 0.0025) + r2 / (1.0 - 0.385));
    assert!(close(m.utility(1, &set_of_die, &sizes, 1.0), a));
}

/// A tenant that read nothing in the epoch suffers no traffic: utility 1 (its maximum).
#[test]
fn a_tenant_without_reads_has_utility_one() {
    let st = stats([[0, 0, 0, 0], [0, 9000, 0, 0]], [5000, 0], [0, 0]);
    let m = EpochModel::new(&st, &Smoothed::of(&st), 1, TAU_R_NS, TAU_P_NS, &config());
    assert_eq!(m.utility(0, &[0, 1, 0, 1], &[2, 2], 1.0), 1.0);
    assert!(m.utility(1, &[0, 1, 0, 1], &[2, 2], 1.0) < 1.0);
}

/// Traffic >= 1 (more work than the window holds) gets a finite weight that keeps growing
/// with the load: the M/M/1 factor 1 / (1 - Traffic) continued along its tangent at the cap.
#[test]
fn traffic_at_or_above_one_gives_finite_growing_weights() {
    let cap = 0.95;
    let at_cap = 1.0 / (1.0 - cap);
    assert!((delay_weight(cap, cap) - at_cap).abs() < 1e-9);
    // Continuous at the cap, and the slope there is 1 / (1 - cap)^2.
    let eps = 1e-6;
    assert!((delay_weight(cap + eps, cap) - at_cap - eps * at_cap * at_cap).abs() < 1e-6);
    let mut last = 0.0;
    for rho in [0.0, 0.5, 0.9, 0.95, 0.99, 1.0, 1.5, 3.0, 100.0] {
        let w = delay_weight(rho, cap);
        assert!(w.is_finite() && w > last, "weight {w} at traffic {rho} not above {last}");
        last = w;
    }
    // A die read for 1.5 s per 1 s window (30,000 reads x 50 us): a finite utility in (0, 1),
    // below that of the same reads on a die at half the load.
    let heavy = stats([[30_000, 0, 0, 0], [0, 0, 0, 0]], [0, 0], [0, 0]);
    let light = stats([[10_000, 0, 0, 0], [0, 0, 0, 0]], [0, 0], [0, 0]);
    let u_heavy = EpochModel::new(&heavy, &Smoothed::of(&heavy), 1, TAU_R_NS, TAU_P_NS, &config()).utility(
        0,
        &[0, 1, 0, 1],
        &[2, 2],
        1.0,
    );
    let u_light = EpochModel::new(&light, &Smoothed::of(&light), 1, TAU_R_NS, TAU_P_NS, &config()).utility(
        0,
        &[0, 1, 0, 1],
        &[2, 2],
        1.0,
    );
    assert!(u_heavy > 0.0 && u_heavy < u_light && u_light < 1.0, "{u_heavy} {u_light}");
    // Traffic 1.5 > cap: utility = 1 / (1/(1-cap) + (1.5 - cap)/(1-cap)^2).
    assert!((u_heavy - 1.0 / (at_cap + 0.55 * at_cap * at_cap)).abs() < 1e-9);
}

/// The tenant of highest utility gives its least-read die to the tenant of lowest utility.
#[test]
fn one_die_moves_from_highest_to_lowest_utility() {
    let s = two_tenant_scenario("");
    let ftl_sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    let mut upi = build_upi(&s);
    assert_eq!(upi.set(0), &[DieIdx(0), DieIdx(2)]);
    assert_eq!(upi.set(1), &[DieIdx(1), DieIdx(3)]);
    // a: light writes (200 pages -> 100 per die, Traffic 0.05 + reads), reads 100 on die 0 and
    // 50 on die 2: Util(a) > 0.89. b: 12,000 reads on each of its dies, Traffic 0.6: Util 0.4.
    // After the move a has one die, Traffic(0) = 200 * 500 us + 100 * 50 us = 0.105, so
    // Util(a) = 0.895 >= 0.4: the move is made, and it is die 2 (fewer reads than die 0).
    let st = stats([[100, 0, 50, 0], [0, 12_000, 0, 12_000]], [200, 0], [0, 0]);
    epoch(&mut upi, 1.0, &st, ftl_sim.ftl());
    assert_eq!(upi.counters.transfers, 1);
    assert_eq!(upi.set(0), &[DieIdx(0)]);
    assert_eq!(upi.set(1), &[DieIdx(1), DieIdx(3), DieIdx(2)]);
    let u = upi.utilities();
    // The utilities are those of the sets before the move: Traffic(0) = 100 * 50 us + 100 *
    // 500 us = 0.055, Traffic(2) = 50 * 50 us + 100 * 500 us = 0.0525.
    assert!((u[0] - 150.0 / (100.0 / (1.0 - 0.055) + 50.0 / (1.0 - 0.0525))).abs() < 1e-9, "{u:?}");
    assert!((u[1] - 0.4).abs() < 1e-9, "{u:?}");
    // Host writes of b now stripe over its three dies.
    let dies: Vec<u32> =
        with_view(ftl_sim.ftl(), SimTime::ZERO, |v| (0..6).map(|_| upi.host_write_die(1, 0, v).0).collect());
    assert_eq!(dies, [1, 3, 2, 1, 3, 2]);
}

/// A donor's frontier left open on die 2 after the move of `one_die_moves_from_highest_to_
/// lowest_utility` (a gives die 2 to b at the epoch at 1 s), with `smoothing_epochs` as given:
/// the `Upi` after that epoch, the device, the open block, and the commands of that epoch.
struct LeftBehind {
    upi: Upi,
    ftl: Ftl,
    open: BlockIdx,
    low: u32,
}

impl LeftBehind {
    fn new(smoothing_epochs: u32) -> (LeftBehind, Vec<Command>) {
        let s = two_tenant_scenario(&format!("smoothing_epochs = {smoothing_epochs}"));
        let g = s.geometry();
        let params = FtlParams {
            namespace_units: s.namespace_units(),
            physical_streams: 1,
            host_reserve_blocks: 1,
            dynamic_wear_leveling: false,
            integrity: false,
            frontier_planes: 1,
            frontier_per_tenant: true,
        };
        let mut ftl = Ftl::new(g, params);
        // a's host frontier on die 2: one page written and programmed (closable).
        let key_a = FrontierKey { tenant: 0, stream: 0, class: WriteClass::Host };
        let p = ftl.allocate(key_a, DieIdx(2), 0).expect("room");
        let (open, page) = p.page_full.expect("one unit per page");
        ftl.programmed(open, page);
        assert!(ftl.is_closable(open));
        let mut c = LeftBehind { upi: build_upi(&s), ftl, open, low: s.ftl.gc_low_watermark_blocks };
        let st = stats([[100, 0, 50, 0], [0, 12_000, 0, 12_000]], [200, 0], [0, 0]);
        let cmds = c.epoch(1.0, &st);
        assert_eq!(c.upi.set(1), &[DieIdx(1), DieIdx(3), DieIdx(2)]);
        (c, cmds)
    }

    fn epoch(&mut self, now_s: f64, st: &EpochStats) -> Vec<Command> {
        let dies = vec![DieStatus::IDLE; self.ftl.geometry.n_dies as usize];
        let mut cmds = Vec::new();
        let view = DeviceView::new(&self.ftl, SimTime::from_secs_f64(now_s), &dies, st);
        self.upi.on_epoch(&view, &mut cmds);
        cmds
    }

    fn idle_epoch(&mut self, now_s: f64) -> Vec<Command> {
        self.epoch(now_s, &stats([[0; 4], [0; 4]], [0, 0], [0, 0]))
    }

    fn free_on_2(&self) -> u32 {
        self.ftl.blocks().free_count(DieIdx(2))
    }

    /// b's host frontier takes die 2 down to `free` free blocks.
    fn fill_to(&mut self, free: u32) {
        let key_b = FrontierKey { tenant: 1, stream: 0, class: WriteClass::Host };
        while self.free_on_2() > free {
            let p = self.ftl.allocate(key_b, DieIdx(2), 0).expect("room");
            if let Some((b, page)) = p.page_full {
                self.ftl.programmed(b, page);
            }
        }
    }
}

/// A donor's frontier left open on a die it gave away is closed (`Command::CloseBlock`) only
/// once that die is below the GC low watermark (docs/schemes/upi.md, "Left-behind open
/// blocks"): no one writes it again and GC takes only full blocks (soak seed 991), but closing
/// gives up its unwritten pages, and dies at fill 1.0 burned their free blocks that way
/// (soak seeds 1209, 1313, 1998). Once closed, never again.
#[test]
fn a_left_behind_frontier_is_closed_once_its_die_runs_short() {
    let (mut c, cmds) = LeftBehind::new(1);
    assert_eq!(cmds, [], "closed with {} free blocks on die 2", c.free_on_2());
    c.fill_to(c.low);
    assert_eq!(c.idle_epoch(2.0), [], "closed at the low watermark");
    assert_eq!(c.idle_epoch(3.0), [], "closed at the low watermark");
    c.fill_to(c.low - 1);
    assert_eq!(c.idle_epoch(4.0), [Command::CloseBlock { block: c.open }]);
    assert_eq!((c.upi.counters.blocks_closed, c.upi.counters.transfers), (1, 1));
    // Closed (as the engine applies the command), it is not closed again.
    c.ftl.close_block(c.open);
    assert_eq!(c.idle_epoch(5.0), []);
    assert_eq!(c.upi.counters.blocks_closed, 1);
}

/// ... and only once the move has lasted `smoothing_epochs` epochs, however short the die:
/// closed at once, dies that changed hands at every 2 ms epoch burned their free blocks on
/// closed, nearly empty frontiers (soak seed 76).
#[test]
fn a_left_behind_frontier_waits_smoothing_epochs_before_it_is_closed() {
    let (mut c, cmds) = LeftBehind::new(3);
    assert_eq!(cmds, []);
    c.fill_to(c.low - 1);
    assert_eq!(c.idle_epoch(2.0), [], "closed 1 epoch after the move");
    assert_eq!(c.idle_epoch(3.0), [], "closed 2 epochs after the move");
    assert_eq!(c.idle_epoch(4.0), [Command::CloseBlock { block: c.open }]);
    assert_eq!((c.upi.counters.blocks_closed, c.upi.counters.transfers), (1, 1));
}

/// The anti-thrash rule (§4): no move when the donor's utility after it would fall below the
/// receiver's current utility.
#[test]
fn anti_thrash_rule_refuses_a_move_that_would_invert_utilities() {
    // Each epoch alone: the second epoch's counters are all zero, not an average.
    let s = two_tenant_scenario("smoothing_epochs = 1");
    let sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    let mut upi = build_upi(&s);
    // a: 1600 programs -> 800 per die, Traffic 0.4 + 100 reads (0.005): Util(a) = 0.595. b as
    // above: 0.4. After the move a's one die has Traffic 0.8 + 0.005: Util(a) = 0.195 < 0.4.
    let st = stats([[100, 0, 100, 0], [0, 12_000, 0, 12_000]], [1600, 0], [0, 0]);
    epoch(&mut upi, 1.0, &st, sim.ftl());
    assert_eq!(upi.counters.transfers, 0);
    assert_eq!(upi.counters.refused_anti_thrash, 1);
    assert_eq!(upi.set(0).len(), 2);
    assert!((upi.utilities()[0] - 0.595).abs() < 1e-9);
    // Equal utilities: nothing to balance, nothing counted.
    let idle = stats([[0; 4], [0; 4]], [0, 0], [0, 0]);
    epoch(&mut upi, 2.0, &idle, sim.ftl());
    assert_eq!((upi.counters.transfers, upi.counters.refused_anti_thrash, upi.counters.epochs), (0, 1, 2));
}

/// A donor at `min_set_dies` keeps its dies.
#[test]
fn donor_keeps_min_set_dies() {
    let s = two_tenant_scenario("min_set_dies = 2");
    let sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    let mut upi = build_upi(&s);
    let st = stats([[100, 0, 50, 0], [0, 12_000, 0, 12_000]], [200, 0], [0, 0]);
    epoch(&mut upi, 1.0, &st, sim.ftl());
    assert_eq!((upi.counters.transfers, upi.counters.refused_min_set), (0, 1));
}

/// Column `name` of a table as f64.
fn f64_col<'t>(t: &'t Table, name: &str) -> &'t [f64] {
    match t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c) {
        Some(Column::F64(v)) => v,
        _ => panic!("no f64 column {name}"),
    }
}

fn str_col<'t>(t: &'t Table, name: &str) -> &'t [String] {
    match t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c) {
        Some(Column::Str(v)) => v,
        _ => panic!("no str column {name}"),
    }
}

/// A reader (`r`: zipf reads, few writes) and a writer (`w`: random overwrites, few reads)
/// on the tiny device, preconditioned; the writer's load makes its utility low, so dies move
/// to it, leaving the reader's data behind on them.
fn reader_writer(relocation_weight: f64, extra: &str) -> String {
    common::tiny(
        &["upi"],
        &format!(
            "[measure]\nwindow_s = 0.05\n[ftl]\ngc_low_watermark_blocks = 4\ngc_high_watermark_blocks = \
             8\n[precondition]\nfill_fraction = 1.0\noverwrite_passes = 0.5\n[scheme.upi]\nepoch_s = \
             0.02\nrelocation_weight = {relocation_weight}\n{extra}"
        ),
        r#"
[[tenants]]
name = "r"
namespace_fraction = 0.5
queue_depth = 8
[tenants.synthetic]
pattern = "zipf"
read_ratio = 0.95
rate_iops = 6000.0
requests = 12000
[[tenants]]
name = "w"
namespace_fraction = 0.5
queue_depth = 16
[tenants.synthetic]
read_ratio = 0.05
rate_iops = 3000.0
requests = 6000
"#,
    )
}

struct Outcome {
    set_sizes: Vec<(String, f64)>,
    outside: Vec<(String, f64)>,
}

/// Run `text`'s `upi` with the oracle on, check every mapping invariant at the end, and
/// return the per-window set sizes and misplaced pages.
fn run_checked(text: &str) -> Outcome {
    let s = scenario::load(text, "upi.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    precondition(&s, &mut sim, "upi.toml").expect("preconditions");
    sim.run(&mut |_| {}).expect("runs");
    assert!(sim.check_integrity() > 10_000, "the oracle checked too little");
    let (_, tables) = sim.finish("upi").expect("finishes");
    let ts = &tables.timeseries;
    let tenants = str_col(ts, "tenant");
    let pair = |name| tenants.iter().cloned().zip(f64_col(ts, name).iter().copied()).collect();
    Outcome { set_sizes: pair("alloc_set_dies"), outside: pair("pages_outside_set") }
}

fn of<'a>(rows: &'a [(String, f64)], tenant: &'a str) -> impl Iterator<Item = f64> + 'a {
    rows.iter().filter(move |(t, _)| t == tenant).map(|(_, v)| *v)
}

/// Dies move to the writer, its set grows, the sets always cover the device, the reader's
/// data is left behind on the moved dies, and no page is lost or stale (oracle + invariants).
#[test]
fn transfers_and_relocation_keep_every_page() {
    let o = run_checked(&reader_writer(50.0, ""));
    let w_max = of(&o.set_sizes, "w").fold(0.0, f64::max);
    assert!(w_max > 2.0, "the writer's set never grew");
    let n = o.set_sizes.len() / 2;
    for k in 0..n {
        assert_eq!(
            o.set_sizes[2 * k].1 + o.set_sizes[2 * k + 1].1,
            4.0,
            "sets do not cover the 4 dies in window {k}"
        );
    }
    assert!(of(&o.outside, "r").fold(0.0, f64::max) > 0.0, "no reader data was ever outside its set");
}

/// Eager relocation (a large weight) copies more of the reader's data home through GC than
/// lazy (0), which collects only for space (§6: the relocation policy between eager and lazy).
#[test]
fn eager_relocation_copies_more_of_the_readers_data_than_lazy() {
    let copied = |w: f64| {
        common::run(&reader_writer(w, ""), &[])["schemes"]["upi"]["tenants"]["r"]["gc_pages_copied"]
            .as_f64()
            .expect("gc_pages_copied")
    };
    let lazy = copied(0.0);
    let eager = copied(1000.0);
    assert!(eager > 1.5 * lazy, "eager relocation copied {eager} of the reader's pages, lazy {lazy}");
}

/// GC victim selection (§4): a block's reads count only when its die is outside its owner's
/// set, scaled by `relocation_weight`. The read term is below the weight (`relocation_term`),
/// so a fully valid hot block (score age * w x/(1+x) / 2) beats a half-invalid block of the
/// same age (age * 0.5 / 1) only for w > 1: weight 4 here, where x is in the thousands.
#[test]
fn victim_selection_counts_reads_only_outside_the_owners_set() {
    for (weight, transferred, expect_hot) in [(0.0, true, false), (4.0, true, true), (4.0, false, false)] {
        let s = two_tenant_scenario(&format!("relocation_weight = {weight}"));
        assert_eq!(
            victim_after(&s, transferred, 0),
            expect_hot,
            "weight {weight}, transferred {transferred}"
        );
    }
}

/// The `room_home` guard (ours, off by default): with it, relocation stops pulling data into
/// a set its owner's data already fills beyond the device's density 1/(1 + OP); without it
/// (the paper), the hot block outside the set is still the victim.
#[test]
fn the_room_home_guard_refuses_relocation_into_a_full_set_and_permits_it_otherwise() {
    let s = two_tenant_scenario("room_home = true\nrelocation_weight = 4.0");
    let g = s.geometry();
    let die_units = g.blocks_per_die * g.units_per_block;
    let fill_device = 1.0 / (1.0 + s.device.over_provisioning);
    let full = ((fill_device + 0.02) * die_units as f64) as u32; // a's one die, past 1/(1 + OP)
    assert!(victim_after(&s, true, 0), "room_home with an empty home still relocates");
    assert!(!victim_after(&s, true, full), "room_home relocated into a full home");
    let paper = two_tenant_scenario("relocation_weight = 4.0");
    assert!(victim_after(&paper, true, full), "without room_home relocation ignores the home's fill");
}

/// Whether GC on die 2 takes the fully valid, read-hot block of tenant a rather than a
/// half-invalid block of the same age, after (if `transferred`) die 2 moved to b, with
/// `home_units` more of a's units written on die 0 (its remaining set).
fn victim_after(s: &Scenario, transferred: bool, home_units: u32) -> bool {
    let sim = build_simulation(s, "upi", Path::new("."), "upi.toml").expect("builds");
    let mut ftl = sim.ftl().clone();
    let g = ftl.geometry;
    let die = DieIdx(2);
    let key = FrontierKey { tenant: 0, stream: 0, class: WriteClass::Host };
    let t0 = SimTime::from_ms(1);
    let write = |ftl: &mut Ftl, lpn: u32, die: DieIdx| {
        let p = ftl.allocate(key, die, t0.ns() as i64).expect("room");
        ftl.map_host(0, lpn, p.ppa);
        if let Some((b, page)) = p.page_full {
            ftl.programmed(b, page);
        }
        g.block_of(p.ppa)
    };
    // Block `hot`: fully valid, each page read 10 times. Block `half`: half invalid.
    let upb = g.units_per_block;
    let hot = (0..upb).map(|l| write(&mut ftl, l, die)).last().unwrap();
    let half = (upb..2 * upb).map(|l| write(&mut ftl, l, die)).last().unwrap();
    for l in upb..upb + upb / 2 {
        write(&mut ftl, l, die);
    }
    for l in 0..home_units {
        write(&mut ftl, 2 * upb + l, DieIdx(0));
    }
    for _ in 0..10 * g.pages_per_block {
        ftl.note_read(hot);
    }
    let mut upi = build_upi(s);
    // The move test's counters (die 2 goes from a to b); they also give a its read average.
    let st = stats([[100, 0, 50, 0], [0, 12_000, 0, 12_000]], [200, 0], [0, 0]);
    let st = if transferred { st } else { stats([[100, 0, 50, 0], [0; 4]], [0, 0], [0, 0]) };
    epoch(&mut upi, 1.0, &st, &ftl);
    assert_eq!(upi.set(1).last() == Some(&die), transferred);
    let victim = with_view(&ftl, SimTime::from_ms(2), |v| upi.gc_victim(die, v, VictimPolicy::Greedy))
        .expect("a victim");
    assert!(victim == hot || victim == half, "victim {victim:?}");
    victim == hot
}

/// Read-only dies (§6) hold what preconditioning wrote, serve reads, and take no write: their
/// free blocks do not change during the run.
#[test]
fn read_only_dies_take_no_writes_after_preconditioning() {
    let text = reader_writer(1.0, "read_only_dies = [2]");
    let s = scenario::load(&text, "upi.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    precondition(&s, &mut sim, "upi.toml").expect("preconditions");
    let die = DieIdx(2);
    let valid_before = sim.ftl().valid_units_on(0, die);
    assert!(valid_before > 0, "preconditioning wrote nothing on the read-only die");
    let erases = |f: &Ftl| {
        f.geometry.blocks_of_die(die).map(|b| f.blocks().info[b as usize].erase_count() as u64).sum::<u64>()
    };
    let erases_before = erases(sim.ftl());
    sim.run(&mut |_| {}).expect("runs");
    sim.check_integrity();
    // Preconditioning writes before time zero; nothing written later lies on the die, and GC does
    // not collect there (its data stays, for reads).
    let g = sim.ftl().geometry;
    for b in g.blocks_of_die(die) {
        let info = &sim.ftl().blocks().info[b as usize];
        assert!(
            info.write_ptr() == 0 || info.last_write_ns() <= 0,
            "block {b} of the read-only die written at {} ns",
            info.last_write_ns()
        );
    }
    assert!(sim.ftl().valid_units_on(0, die) <= valid_before);
    assert_eq!(sim.ftl().valid_units_on(1, die), 0);
    assert_eq!(erases(sim.ftl()), erases_before, "GC erased a block of the read-only die");
}

/// Eq. 3 on smoothed counters (§4: "because GC activities can be sporadic", N_p comes from
/// N_w and WAF rather than from the epoch's GC copies). Two epochs, alpha = 1/10, by hand.
#[test]
fn eq3_uses_the_smoothed_waf_and_reads() {
    let e1 = stats([[100, 0, 0, 0], [0, 0, 0, 0]], [1000, 0], [1000, 0]);
    let e2 = stats([[200, 0, 0, 0], [0, 0, 0, 0]], [1000, 0], [0, 0]);
    let mut sm = Smoothed::new(2, 4, 10.0);
    sm.update(&e1);
    sm.update(&e2);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    // N_r(a, 0) = 100 + (200 - 100)/10 = 110; host 1000; GC 1000 + (0 - 1000)/10 = 900.
    assert!(close(sm.reads[0], 110.0), "{}", sm.reads[0]);
    assert!(close(sm.waf(0), 1.9), "{}", sm.waf(0));
    assert_eq!(sm.waf(1), 1.0, "a tenant that never wrote has WAF 1");
    let (set_of_die, sizes) = ([0u16, 1, 0, 1], [2u32, 2]);
    let m = EpochModel::new(&e2, &sm, 1, TAU_R_NS, TAU_P_NS, &config());
    // Eq. 3: N_w(a) * WAF(a) / |S_a| = 1000 * 1.9 / 2 = 950 (the epoch alone: 1000 * 1 / 2).
    assert!(close(m.expected_programs(0, 0, &set_of_die, &sizes), 950.0));
    // Eq. 2: Traffic(0) = (110 * 50 us + 950 * 500 us) / 1 s = 0.4805; Eq. 1: 1 - 0.4805.
    assert!(close(m.traffic(0, &set_of_die, &sizes), 0.4805));
    assert!(close(m.utility(0, &set_of_die, &sizes, 1.0), 1.0 - 0.4805));
    let alone = EpochModel::new(&e2, &Smoothed::of(&e2), 1, TAU_R_NS, TAU_P_NS, &config());
    assert!(close(alone.expected_programs(0, 0, &set_of_die, &sizes), 500.0));
    // The scheme feeds its epochs through the same averages (min_set_dies = 2: no move, so
    // the second epoch's utility is over the initial sets).
    let s = two_tenant_scenario("min_set_dies = 2\nsmoothing_epochs = 10");
    let sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    let mut upi = build_upi(&s);
    epoch(&mut upi, 1.0, &e1, sim.ftl());
    epoch(&mut upi, 2.0, &e2, sim.ftl());
    assert!(close(upi.utilities()[0], 1.0 - 0.4805), "{:?}", upi.utilities());
}

/// The relocation read term is the block's read rate over its owner's average, x, as
/// w x / (1 + x): a block read at its owner's average rate scores w/2 for a tenant reading 10
/// pages/s and for one reading 1000 pages/s (per page since written, the old term, they
/// differ 100-fold), 3x the average scores 3w/4, and no block reaches w.
#[test]
fn relocation_term_means_the_same_for_slow_and_fast_tenants() {
    let text = reader_writer(2.0, "min_set_dies = 2");
    let s = scenario::load(&text, "upi.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
    precondition(&s, &mut sim, "upi.toml").expect("preconditions");
    let ftl = sim.ftl();
    let g = ftl.geometry;
    let pages = |t: u16| {
        (0..g.n_dies).map(|d| ftl.valid_units_on(t, DieIdx(d))).sum::<u64>() as f64 / g.units_per_page as f64
    };
    let (p_slow, p_fast) = (pages(0), pages(1));
    assert!(p_slow > 0.0 && p_fast > 0.0);
    let mut upi = build_upi(&s);
    assert_eq!(upi.relocation_term(1000, 1e9, 0), 0.0, "no average before the first epoch");
    // Over 1 s: r reads 10 pages, w 1000 (on dies of the other's set; it does not matter).
    let st = stats([[0, 10, 0, 0], [1000, 0, 0, 0]], [0, 0], [0, 0]);
    epoch(&mut upi, 1.0, &st, ftl);
    let w = 2.0;
    let ppb = g.pages_per_block as f64;
    // A block of age A read at its owner's average: reads = avg * pages_per_block * A, with
    // avg = 10 / p_slow (slow) or 1000 / p_fast (fast) per page per second. A = p_slow s
    // (p_fast s) makes the counts whole: 10 * ppb and 1000 * ppb.
    let term = |count: f64, age_s: f64, t: usize| upi.relocation_term(count as u32, age_s * 1e9, t);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(term(10.0 * ppb, p_slow, 0), w / 2.0), "{}", term(10.0 * ppb, p_slow, 0));
    assert!(close(term(1000.0 * ppb, p_fast, 1), w / 2.0), "{}", term(1000.0 * ppb, p_fast, 1));
    assert!(close(term(30.0 * ppb, p_slow, 0), 0.75 * w));
    assert!(close(term(3000.0 * ppb, p_fast, 1), 0.75 * w));
    let hottest = term(u32::MAX as f64, 1e-3, 0);
    assert!(hottest < w && hottest > 0.99 * w, "{hottest}");
    assert_eq!(term(0.0, 1.0, 0), 0.0);
}

/// The anti-starvation guard (`donor_traffic_max`): the move of
/// `one_die_moves_from_highest_to_lowest_utility` leaves the donor a one-die set with Eq. 2
/// traffic 200 * 500 us + 100 * 50 us = 0.105 per second. A bound of 0.1 refuses it; 0.2
/// permits it; no bound (paper-literal `upi`) permits it.
#[test]
fn the_anti_starvation_guard_refuses_and_permits_as_its_bound_says() {
    let st = stats([[100, 0, 50, 0], [0, 12_000, 0, 12_000]], [200, 0], [0, 0]);
    for (knob, moved) in [("donor_traffic_max = 0.1", false), ("donor_traffic_max = 0.2", true), ("", true)] {
        let s = two_tenant_scenario(knob);
        let sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
        let mut upi = build_upi(&s);
        epoch(&mut upi, 1.0, &st, sim.ftl());
        assert_eq!(upi.counters.transfers, moved as u64, "{knob:?}");
        assert_eq!(upi.counters.refused_starvation, !moved as u64, "{knob:?}");
        assert_eq!(upi.set(0).len(), if moved { 1 } else { 2 }, "{knob:?}");
    }
}

/// The utility gap (`utility_gap_min`): the same epoch has Util(a) = 0.946 and Util(b) = 0.4,
/// a gap of 0.546: a minimum of 0.6 refuses the move, 0.5 permits it.
#[test]
fn the_utility_gap_refuses_and_permits_as_its_bound_says() {
    let st = stats([[100, 0, 50, 0], [0, 12_000, 0, 12_000]], [200, 0], [0, 0]);
    for (gap, moved) in [(0.6, false), (0.5, true)] {
        let s = two_tenant_scenario(&format!("utility_gap_min = {gap}"));
        let sim = build_simulation(&s, "upi", Path::new("."), "upi.toml").expect("builds");
        let mut upi = build_upi(&s);
        epoch(&mut upi, 1.0, &st, sim.ftl());
        assert_eq!(
            (upi.counters.transfers, upi.counters.refused_gap),
            (moved as u64, !moved as u64),
            "gap {gap}"
        );
    }
}

/// `upi-guarded` is `upi` with the guards on unless its table says otherwise, under its own
/// name; `upi`'s defaults are the paper's (no guard, no room rule).
#[test]
fn the_presets_differ_only_in_the_guards() {
    let s = two_tenant_scenario("");
    let ns = s.namespace_units();
    let g = s.geometry();
    let ctx = SchemeContext {
        geometry: &g,
        namespace_units: &ns,
        over_provisioning: s.device.over_provisioning,
        timing: s.timing(),
        low_watermark_blocks: s.ftl.gc_low_watermark_blocks,
        tasks: &[],
        scheduler: s.ftl.scheduler,
    };
    let plain = Upi::new(&toml::Table::new(), &ctx).expect("builds");
    let guarded = Upi::new_guarded(&toml::Table::new(), &ctx).expect("builds");
    let mine: toml::Table = toml::from_str("donor_traffic_max = 0.9").unwrap();
    let tuned = Upi::new_guarded(&mine, &ctx).expect("builds");
    let (p, gd, t) = (plain.resolved_config(), guarded.resolved_config(), tuned.resolved_config());
    assert_eq!((plain.name(), guarded.name()), ("upi", "upi-guarded"));
    assert!(p.get("donor_traffic_max").is_none());
    assert_eq!(p["utility_gap_min"].as_float(), Some(0.0));
    assert_eq!(p["room_home"].as_bool(), Some(false));
    assert_eq!(gd["donor_traffic_max"].as_float(), Some(0.5));
    assert_eq!(gd["utility_gap_min"].as_float(), Some(0.05));
    assert_eq!(t["donor_traffic_max"].as_float(), Some(0.9));
    for key in ["epoch_s", "relocation_weight", "smoothing_epochs", "room_home", "read_exponent"] {
        assert_eq!(p[key], gd[key], "{key}");
    }
    let bad: toml::Table = toml::from_str("donor_traffic_max = 0.0").unwrap();
    let err = Upi::new_guarded(&bad, &ctx).err().expect("a bound of 0 is refused");
    assert_eq!(err.key, "donor_traffic_max");
}
