//! The integrity property test (DESIGN §5, §10): random writes, reads, trims and overwrites on
//! the `tiny` device with GC and static wear leveling forced often, under every scheme of
//! `scheme::REGISTRY` and every mapper of `stream::REGISTRY` (the mappers other than `legacy` on 2
//! physical streams, whose extra open blocks need 30% over-provisioning instead of 15%; vstream
//! re-clustering every 2 ms; upi and upi-guarded with 2 ms epochs, so dies
//! change sets and GC relocates data all the time; flashblox swapping channels whenever the
//! erase rates differ by 10%, so swap migrations run while both tenants write and read), plus three test-only
//! policies that drive the engine's commands: whole-block migrations while the host writes, partial GC in
//! steps of k page reads, and parity programs with reads rebuilt from stripes. With and without a
//! write buffer, with one or several mapping units per flash page. Where the scheme and the
//! mapper let tenants share write frontiers (`unified`, `test-migrate` and `test-partial-gc`
//! with `legacy`, `manual`, `dac` or `fdp`), blocks hold both tenants' data, and GC,
//! migrations and partial GC move such blocks unit by unit (every case checks that blocks mixed
//! tenants exactly where frontiers are shared); one seed in four forces frontiers per tenant
//! (`ftl.frontier_per_tenant`). One property case in four, and a sweep of every mapper under
//! every scheme, precondition by the closed form (`precondition.overwrites = "closed_form"`:
//! stale units written through the scheme's placement). The oracle checks every
//! read and copy as it happens; at the end a full sweep checks that every logical page reads
//! back its latest version and that L2P, P2L and valid counts agree. `iod` runs Predictable
//! Latency Mode with windows of a few ms, autonomous or host-requested, and each case checks
//! that its sets entered and left Deterministic Windows. Proptest draws the configurations; at
//! least 10^6 host operations run in total. A second property test draws arrays of devices
//! behind the RAID-5 host layer (docs/array.md: devices, chunk size, rebuild device, IODA's
//! fail-fast reads and staggered windows under `iod`), checked by the array oracle and each
//! device's. scripts/soak.sh runs both with other seeds, the arrays' cases more and longer.

mod policies;

use ftlab::internals::api::{build_simulation, build_simulation_with, precondition};
use ftlab::internals::scenario;
use proptest::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Every policy the test runs: the registered schemes, then the test-only ones.
fn schemes() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = ftlab::internals::scheme::REGISTRY.iter().map(|p| p.name).collect();
    v.extend(policies::TEST_POLICIES);
    v
}

fn mappers() -> Vec<&'static str> {
    ftlab::internals::stream::REGISTRY.iter().map(|p| p.name).collect()
}

static OPS_TOTAL: AtomicU64 = AtomicU64::new(0);

#[derive(Clone, Debug)]
struct Case {
    scheme: &'static str,
    mapper: &'static str,
    seed: u64,
    units_per_page: u32,
    buffer_pages: u32,
    read_ratio: f64,
    trim_ratio: f64,
    pattern: &'static str,
    max_units: u32,
    policy: &'static str,
    fill_fraction: f64,
    scheduler: &'static str,
    /// Program/erase suspend and multi-plane operations (on a two-plane die) on or off.
    suspend: bool,
    multi_plane: bool,
    /// `precondition.overwrites`: `simulate` or `closed_form` (the steady state written
    /// directly, `simulation::steady`).
    overwrites: &'static str,
}

fn scenario_text(c: &Case, requests: u64) -> String {
    let page = 4096 * c.units_per_page;
    let buffer = c.buffer_pages as u64 * page as u64 * 4;
    let sizes: Vec<String> =
        (1..=c.max_units).map(|u| format!("{{ bytes = {}, weight = 1.0 }}", u * 4096)).collect();
    format!(
        r#"seed = {seed}
schemes = ["{scheme}"]
stream_mapper = "{mapper}"
[device]
preset = "tiny"
page_bytes = {page}
pages_per_block = {ppb}
over_provisioning = {op}
planes_per_die = 2
blocks_per_plane = 32
program_erase_suspend = {suspend}
multi_plane = {multi_plane}
[device.fdp]
handles = ["{fdp}", "{fdp}"]
[ftl]
gc_policy = "{policy}"
gc_low_watermark_blocks = 6
gc_high_watermark_blocks = 10
static_wear_leveling_gap = 2
write_buffer_bytes = {buffer}
scheduler = "{sched}"
physical_streams = {streams}
frontier_per_tenant = {per_tenant}
[stream.manual]
table = [1]
[stream.direct]
beyond_limit = "{beyond}"
[stream.vstream]
epoch_s = 0.002
[stream.fdp]
placement_handles = [0, 1, 0, 1, 0, 1]
[scheme.partitioned]
by = "die"
[scheme.upi]
epoch_s = 0.002
relocation_weight = 20.0
[scheme.upi-guarded]
epoch_s = 0.002
relocation_weight = 20.0
[scheme.flashblox]
epoch_s = 0.002
swap_interval_min_s = 0.01
swap_threshold = 1.1
# Predictable Latency Mode with short windows, so that sets change windows many times a run:
# autonomous or host-requested (bit 5 of the seed), a writes limit on one seed in two (bit 6).
[scheme.iod]
windows = "{iod_windows}"
dtwin_time_ms_max = 8.0
ndwin_time_ms_min = 2.0
host_cycle_ms = 12.0
host_ndwin_ms = 3.0
tick_ms = 0.5
{iod_writes}
[precondition]
fill_fraction = {fill}
overwrite_passes = 0.5
overwrites = "{overwrites}"
# The cases' over-provisioning was worked out on fill's state; the warm-up by workload has
# its own oracle test (tests/warm.rs).
mode = "fill"
[check]
integrity = true
[[tenants]]
name = "a"
namespace_fraction = 0.5
queue_depth = 16
[tenants.synthetic]
pattern = "{pattern}"
read_ratio = {read}
trim_ratio = {trim}
sizes = [{sizes}]
arrival = "closed"
requests = {requests}
[[tenants.stream_rules]]
offset_bytes = 0
size_bytes = 2097152
stream = 1
[[tenants.stream_rules]]
offset_bytes = 2097152
size_bytes = 2097152
stream = 2
[[tenants.stream_rules]]
offset_bytes = 4194304
size_bytes = 2097152
stream = 3
[[tenants.stream_rules]]
offset_bytes = 6291456
size_bytes = 2097152
stream = 4
[[tenants.stream_rules]]
offset_bytes = 8388608
size_bytes = 2097152
stream = 5
[[tenants.stream_rules]]
offset_bytes = 10485760
size_bytes = 262144
stream = 300
[[tenants]]
name = "b"
namespace_fraction = 0.5
queue_depth = 4
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.3
trim_ratio = 0.05
arrival = "poisson"
rate_iops = 2000.0
requests = {requests_b}
"#,
        seed = c.seed,
        scheme = policies::registered_base(c.scheme),
        mapper = c.mapper,
        ppb = 64 / c.units_per_page,
        policy = c.policy,
        sched = c.scheduler,
        fill = c.fill_fraction,
        pattern = c.pattern,
        read = c.read_ratio,
        trim = c.trim_ratio,
        sizes = sizes.join(", "),
        requests_b = requests / 4,
        suspend = c.suspend,
        multi_plane = c.multi_plane,
        overwrites = c.overwrites,
        streams = if c.mapper == "legacy" { 1 } else { 2 },
        per_tenant = c.seed % 4 == 3,
        beyond = if c.seed.is_multiple_of(2) { "release" } else { "unstreamed" },
        // fdp's isolation type: bit 4 of the seed (alternates by scheme in the sweep below).
        fdp = if c.seed & 16 == 0 { "persistently-isolated" } else { "initially-isolated" },
        iod_windows = if c.seed & 32 == 0 { "autonomous" } else { "host" },
        iod_writes = if c.seed & 64 == 0 { "" } else { "dtwin_writes_typical = 256" },
        // wao-gc refuses a device outside Eq. 12 (λ < 0.625 for 16-page blocks and c = 2);
        // part-ftl keeps data on half of these dies (2 ways: one data, one parity): at 2.0 the
        // namespaces fill 67% of the data dies (the paper's λ is 64.3%, §V-A; tenant a's
        // 10.25 MiB of stream rules still fit in its namespace).
        // test-parity on 2 physical streams keeps up to 24 blocks of each 64-block die open and
        // out of GC's reach: host, GC and parity frontiers for 2 tenants x 2 streams x 2
        // planes (parity pages are never valid, so a parity block is dead space until full).
        // Uniform writes grow each namespace to nearly full whatever the fill, so the logical
        // share of a die, 64 / (1 + op) blocks, plus 24 open blocks and one GC destination
        // must fit in 64: op >= 64 / 39 - 1 = 0.64. At 0.3 (49.2 + 24 + 1 = 74.2 > 64) every
        // full block ended 100% valid and wear leveling copied them in circles (seed 11).
        op = match c.scheme {
            "wao-gc" => 0.7,
            "test-parity" if c.mapper != "legacy" => 0.7,
            "part-ftl" => 2.0,
            _ if c.mapper == "legacy" => 0.15,
            _ => 0.3,
        },
    )
}

/// The simulation of a case: a registered scheme by name, a test-only one built here.
fn simulation<'a>(s: &scenario::Scenario, scheme: &str) -> ftlab::internals::simulation::Simulation<'a> {
    match policies::build(scheme, s) {
        Some(p) => build_simulation_with(s, p, Path::new("."), "integrity.toml").expect("builds"),
        None => build_simulation(s, scheme, Path::new("."), "integrity.toml").expect("builds"),
    }
}

fn run_case(c: &Case, requests: u64) {
    if std::env::var_os("FTLAB_TRACE_CASES").is_some() {
        eprintln!("case {c:?}");
    }
    let text = scenario_text(c, requests);
    let s = scenario::load(&text, "integrity.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = simulation(&s, c.scheme);
    precondition(&s, &mut sim, "integrity.toml").expect("preconditions");
    let before = sim.check_integrity();
    sim.run(&mut |_| {}).expect("runs");
    let checks = sim.check_integrity();
    // The oracle checked every GC copy of the run (at least the copies the engine counted
    // since measuring started) and some host reads. A full sweep checks one unit per logical
    // unit; the run's own checks are what is left. (This used to be `checks > requests`, with
    // both sweeps in `checks`: a bound on the device's size and over-provisioning, not on
    // the run. wao-gc's write-only sequential cases of seed 50 failed it: sequential
    // overwrites leave GC almost nothing to copy, and a writer issues no reads.)
    let sweep: u64 = s.namespace_units().iter().map(|&u| u as u64).sum();
    let run_checks = checks - before - sweep;
    let copies = sim.device_counters().gc_units;
    assert!(
        run_checks >= copies && run_checks > 0,
        "the oracle checked {run_checks} reads and copies in the run, {copies} copies were made"
    );
    let erases: u64 = sim.ftl().blocks().info.iter().map(|b| b.erase_count() as u64).sum();
    assert!(erases > 0, "GC never ran: the case does not exercise it");
    policies::check_exercised(c.scheme, &sim);
    check_windows_changed(c.scheme, &sim);
    check_block_sharing(&sim);
    if std::env::var_os("FTLAB_SOAK_COUNTS").is_some() {
        // Read by scripts/soak.sh (fields 4 and 7).
        eprintln!(
            "soak: case ran {} host operations, {run_checks} oracle checks ({checks} with the sweeps)",
            requests + requests / 4
        );
    }
    OPS_TOTAL.fetch_add(requests + requests / 4, Ordering::Relaxed);
}

/// Under `iod`, every set opened a Deterministic Window and left it (the engine asserts that
/// no job operation runs in one), so the case ran GC around the windows.
fn check_windows_changed(scheme: &str, sim: &ftlab::internals::simulation::Simulation<'_>) {
    if scheme != "iod" {
        return;
    }
    let mut out = Vec::new();
    sim.scheme().counters(&mut out);
    let n = |k: &str| out.iter().find(|(name, _)| *name == k).unwrap_or_else(|| panic!("no {k}")).1;
    for set in 0..2 {
        let (dtwins, ndwins) = (n(&format!("set{set}_dtwins")), n(&format!("set{set}_ndwins")));
        // A set starts in an NDWIN (counted): a second one followed a DTWIN.
        assert!(dtwins > 0.0 && ndwins > 1.0, "set {set}: {dtwins} DTWINs, {ndwins} NDWINs");
    }
}

/// Blocks hold several tenants' data only where frontiers are shared, and there (both tenants
/// write through one stream at least) some block that held both was collected and erased.
fn check_block_sharing(sim: &ftlab::internals::simulation::Simulation<'_>) {
    let mixed_now = sim.ftl().blocks().info.iter().filter(|b| b.multi_tenant()).count();
    let mixed_erased = sim.device_counters().blocks_multi_tenant;
    if sim.ftl().params.frontier_per_tenant {
        assert_eq!((mixed_now, mixed_erased), (0, 0), "blocks mixed tenants with frontiers per tenant");
    } else {
        assert!(mixed_erased > 0, "shared frontiers, but no block of both tenants was erased");
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        (proptest::sample::select(schemes()), proptest::sample::select(mappers())),
        any::<u32>().prop_map(u64::from),
        prop_oneof![Just(1u32), Just(2), Just(4)],
        prop_oneof![Just(0u32), Just(8)],
        0.0..0.5f64,
        0.0..0.1f64,
        prop_oneof![Just("uniform"), Just("zipf"), Just("hotcold"), Just("sequential")],
        1u32..=6,
        prop_oneof![Just("greedy"), Just("cost-benefit")],
        prop_oneof![Just(0.5f64), Just(0.75), Just(1.0)],
        prop_oneof![Just("priority"), Just("fifo"), Just("edf"), Just("fair")],
        any::<(bool, bool)>(),
    )
        .prop_map(
            |(
                (scheme, mapper),
                seed,
                upp,
                buf,
                read,
                trim,
                pattern,
                max_units,
                policy,
                fill,
                sched,
                (suspend, multi_plane),
            )| Case {
                // One seed in four (bits 8-9) preconditions by the closed form.
                overwrites: if (seed >> 8) % 4 == 0 { "closed_form" } else { "simulate" },
                scheme,
                mapper,
                seed,
                units_per_page: upp,
                // `test-parity` stripes full host pages: write-through pads every request's last
                // page, so with requests smaller than a page it would never see one (a case that
                // cannot exercise it, drawn once `fair` joined the schedulers); a buffer fills them.
                buffer_pages: if scheme == "test-parity" { 8 } else { buf },
                read_ratio: read,
                trim_ratio: trim,
                pattern,
                max_units,
                policy,
                // Its parity pages take room a full fill does not leave.
                fill_fraction: if scheme == "test-parity" { fill.min(0.75) } else { fill },
                scheduler: sched,
                suspend,
                multi_plane,
            },
        )
}

proptest! {
    // A fixed seed: CI runs the same 40 configurations every time (a failure reproduces);
    // set PROPTEST_RNG_SEED to explore others.
    #![proptest_config(ProptestConfig {
        cases: 40,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed)
        ),
        ..ProptestConfig::default()
    })]

    /// 40 random configurations x 25,000 operations of tenant a (+ 6,250 of tenant b) =
    /// 1.25 x 10^6 host operations, every read and GC copy checked by the oracle. Writes are at
    /// least half of tenant a's operations and the namespaces start at least half full, so
    /// every configuration fills the device several times over and GC runs.
    #[test]
    fn no_stale_or_lost_pages(c in case()) {
        run_case(&c, 25_000);
    }
}

/// Soak seeds 100 (an array case) and 103 (one device): `iod` ended the run in an excursion
/// after its last tick, and its counters, read at that tick, underflowed ("SimTime
/// underflow" in `Iod::counters`): the window the excursion opened started after the time
/// they were read at.
#[test]
fn iod_excursion_after_the_last_tick() {
    let c = Case {
        overwrites: "simulate",
        scheme: "iod",
        mapper: "direct",
        seed: 1304818423,
        units_per_page: 2,
        buffer_pages: 8,
        read_ratio: 0.0,
        trim_ratio: 0.004644166584943239,
        pattern: "zipf",
        max_units: 6,
        policy: "greedy",
        fill_fraction: 0.75,
        scheduler: "fifo",
        suspend: true,
        multi_plane: true,
    };
    run_case(&c, 25_000);
    let a = ArrayCase {
        seed: 2270154256,
        devices: 4,
        chunk_kib: 16,
        mode: "iod",
        fail_fast: "off",
        rebuild_device: None,
        max_units: 8,
        read_ratio: 0.5269461318826248,
        pattern: "sequential",
        policy: "cost-benefit",
        overwrite_passes: 0.5,
    };
    run_array_case(&a, 20_000);
}

/// One case of the array property test: `devices` tiny devices behind the RAID-5 host layer
/// (docs/array.md), under `mode`, with IODA's fail-fast reads and a degraded-read drill.
#[derive(Clone, Debug)]
struct ArrayCase {
    seed: u64,
    devices: u32,
    chunk_kib: u32,
    /// `unified`, `partitioned`, `iod` (autonomous PLM windows), `iod-host` (host-requested
    /// windows, aligned) or `iod-stagger` (host windows staggered across the devices: IODA).
    mode: &'static str,
    fail_fast: &'static str,
    rebuild_device: Option<u32>,
    /// kv's largest request, in 4 KiB units (it spans chunks and rows when above the chunk).
    max_units: u32,
    read_ratio: f64,
    pattern: &'static str,
    policy: &'static str,
    overwrite_passes: f64,
}

fn array_scenario_text(c: &ArrayCase, requests: u64) -> String {
    let sizes: Vec<String> = (1..=c.max_units).map(|u| format!("{{ bytes = {} }}", u * 4096)).collect();
    let (scheme, windows, stagger) = match c.mode {
        "iod-host" => ("iod", "host", false),
        "iod-stagger" => ("iod", "host", true),
        m => (m, "autonomous", false),
    };
    let rebuild = c.rebuild_device.map(|d| format!("rebuild_device = {d}")).unwrap_or_default();
    format!(
        r#"seed = {seed}
schemes = ["{scheme}"]
[device]
preset = "tiny"
[ftl]
gc_policy = "{policy}"
static_wear_leveling_gap = 2
[array]
devices = {devices}
chunk_kib = {chunk}
fail_fast = "{fail_fast}"
stagger = {stagger}
{rebuild}
[scheme.partitioned]
by = "die"
# Host windows of 8 ms in a 40 ms cycle: five devices' fit staggered (40 / 5 = 8).
[scheme.iod]
by = "die"
windows = "{windows}"
host_cycle_ms = 40.0
host_ndwin_ms = 8.0
dtwin_time_ms_max = 40.0
ndwin_time_ms_min = 4.0
tick_ms = 0.5
[precondition]
mode = "fill"
fill_fraction = 1.0
overwrite_passes = {passes}
[check]
integrity = true
[[tenants]]
name = "kv"
namespace_fraction = 0.45
queue_depth = 16
[tenants.synthetic]
pattern = "{pattern}"
read_ratio = {read}
sizes = [{sizes}]
requests = {requests}
arrival = "poisson"
rate_iops = 4000.0
[[tenants]]
name = "log"
namespace_fraction = 0.45
queue_depth = 8
[tenants.synthetic]
pattern = "sequential"
read_ratio = 0.2
sizes = [{{ bytes = 49152 }}, {{ bytes = 16384 }}]
requests = {requests_log}
arrival = "poisson"
rate_iops = 400.0
"#,
        seed = c.seed,
        policy = c.policy,
        devices = c.devices,
        chunk = c.chunk_kib,
        fail_fast = c.fail_fast,
        passes = c.overwrite_passes,
        pattern = c.pattern,
        read = c.read_ratio,
        sizes = sizes.join(", "),
        requests_log = requests / 10,
    )
}

/// Runs an array case: the array oracle checks every read at the host layer (plain, rebuilt
/// from the row after a fail-fast probe or on the rebuild device), each device's oracle every
/// device read and GC copy; either panics on a stale or lost unit. Checks that every request
/// completed and that the oracles and the rebuild path ran.
fn run_array_case(c: &ArrayCase, requests: u64) {
    use ftlab::{run_scenario, RunOptions, ScenarioSource};
    if std::env::var_os("FTLAB_TRACE_CASES").is_some() {
        eprintln!("array case {c:?}");
    }
    let text = array_scenario_text(c, requests);
    let source = ScenarioSource::Text { text, base_dir: ".".into(), name: "integrity-array.toml".into() };
    let opts = RunOptions { seed: None, overrides: vec![], jobs: Some(1) };
    let out = run_scenario(&source, &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{c:?}: {e}"));
    let s: serde_json::Value = serde_json::from_str(&out.summary_json).expect("summary.json parses");
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
    let scheme = if c.mode.starts_with("iod") { "iod" } else { c.mode };
    let a = &s["array"]["schemes"][scheme];
    let mut reads = 0;
    for (name, want) in [("kv", requests), ("log", requests / 10)] {
        let t = &a["tenants"][name];
        reads += n(&t["read"]["count"]);
        let done = n(&t["read"]["count"]) + n(&t["write"]["count"]);
        assert_eq!(done, want, "{c:?}: every {name} request completed");
        assert!(n(&t["reads_multi_busy"]) <= n(&t["reads_failed_fast"]), "{c:?}");
    }
    let checks = n(&a["integrity_checks"]);
    assert!(checks >= reads && reads > 0, "{c:?}: the array oracle checked {checks} units of {reads} reads");
    let rebuilt = n(&a["tenants"]["kv"]["chunks_rebuilt"]) + n(&a["tenants"]["log"]["chunks_rebuilt"]);
    assert!(c.rebuild_device.is_none() || rebuilt > 0, "{c:?}: the rebuild device's reads were rebuilt");
    let mut erases = 0;
    for d in 0..c.devices {
        let dev = &s["schemes"][format!("{scheme}/dev{d}")]["device"];
        assert!(n(&dev["integrity_checks"]) > 0, "{c:?}: dev{d}'s oracle checked nothing");
        erases += n(&dev["erases"]);
    }
    assert!(erases > 0, "{c:?}: GC never ran on any device");
    if std::env::var_os("FTLAB_SOAK_COUNTS").is_some() {
        // Read by scripts/soak.sh (fields 5 and 8).
        let failed =
            n(&a["tenants"]["kv"]["reads_failed_fast"]) + n(&a["tenants"]["log"]["reads_failed_fast"]);
        eprintln!(
            "soak: array case ran {} host operations, {checks} oracle checks ({failed} reads failed fast, \
             {rebuilt} chunks rebuilt, {erases} erases)",
            requests + requests / 10
        );
    }
}

fn array_case() -> impl Strategy<Value = ArrayCase> {
    (
        (any::<u32>().prop_map(u64::from), 3u32..=5, prop_oneof![Just(4u32), Just(8), Just(16)]),
        prop_oneof![Just("unified"), Just("partitioned"), Just("iod"), Just("iod-host"), Just("iod-stagger")],
        (prop_oneof![Just("off"), Just("random"), Just("brt")], 0u32..8),
        (1u32..=8, 0.3..0.9f64),
        prop_oneof![Just("uniform"), Just("zipf"), Just("hotcold"), Just("sequential")],
        prop_oneof![Just("greedy"), Just("cost-benefit")],
        prop_oneof![Just(0.5f64), Just(1.0)],
    )
        .prop_map(
            |(
                (seed, devices, chunk_kib),
                mode,
                (fail_fast, rebuild),
                (max_units, read),
                pattern,
                policy,
                passes,
            )| {
                ArrayCase {
                    seed,
                    devices,
                    chunk_kib,
                    mode,
                    fail_fast,
                    // A rebuild device on one case in two.
                    rebuild_device: (rebuild < devices && rebuild % 2 == 0).then_some(rebuild / 2),
                    max_units,
                    read_ratio: read,
                    pattern,
                    policy,
                    overwrite_passes: passes,
                }
            },
        )
}

/// `key` from the environment, else `default`: scripts/soak.sh's long form sets them.
fn soak_knob(key: &str, default: u32) -> u32 {
    std::env::var(key).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig {
        // 4 cases of 4,000 kv requests in the default test run (a fixed seed, as the device's);
        // scripts/soak.sh runs more and longer cases per seed.
        cases: soak_knob("FTLAB_SOAK_ARRAY_CASES", 4),
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed)
        ),
        ..ProptestConfig::default()
    })]

    /// Arrays of 3 to 5 devices, chunks of 4 to 16 KiB, requests of 1 to 8 units (within a
    /// chunk, across chunks and rows: full-stripe and read-modify-write), under every mode of
    /// docs/array.md (no windows, autonomous PLM, host windows aligned or staggered) with
    /// fail-fast reads off, random or by busy remaining time, and a rebuild device or none.
    #[test]
    fn array_no_stale_or_lost_pages(c in array_case()) {
        run_array_case(&c, soak_knob("FTLAB_SOAK_ARRAY_REQUESTS", 4_000) as u64);
    }
}

#[test]
fn zzz_at_least_a_million_operations_ran() {
    // Runs after the property test only when the harness orders tests by name in one thread;
    // with parallel tests it re-runs enough cases itself so the bound always holds.
    let mut seed = 0;
    let all = schemes();
    while OPS_TOTAL.load(Ordering::Relaxed) < 1_000_000 {
        let c = Case {
            overwrites: "simulate",
            scheme: all[seed as usize % all.len()],
            mapper: mappers()[seed as usize % mappers().len()],
            seed,
            units_per_page: 1 + (seed % 3) as u32,
            buffer_pages: 0,
            read_ratio: 0.3,
            trim_ratio: 0.05,
            pattern: "uniform",
            max_units: 3,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "priority",
            suspend: seed % 2 == 1,
            multi_plane: seed % 3 == 1,
        };
        run_case(&c, 100_000);
        seed += 1;
    }
}

/// Every mapper under every scheme (the property test draws pairs at random and may miss
/// one): a short random case each, tenant a's writes tagged with six virtual streams by
/// address-range rules (one beyond the 256 counted ones), so the mappers open, release and
/// fall back.
#[test]
fn every_mapper_under_every_scheme() {
    every_mapper_under_every_scheme_with("simulate");
}

/// The same, preconditioned by the closed form (earlier versions written through every
/// scheme's placement, `simulation::steady`), greedy and cost-benefit GC alternating.
#[test]
fn every_mapper_under_every_scheme_closed_form() {
    every_mapper_under_every_scheme_with("closed_form");
}

fn every_mapper_under_every_scheme_with(overwrites: &'static str) {
    for (i, scheme) in schemes().into_iter().enumerate() {
        for (j, mapper) in mappers().into_iter().enumerate() {
            let seed = (i * 16 + j) as u64;
            let alternate = overwrites == "closed_form" && !seed.is_multiple_of(2);
            let c = Case {
                overwrites,
                scheme,
                mapper,
                seed,
                units_per_page: 1 + (seed % 2) as u32,
                buffer_pages: if seed.is_multiple_of(3) { 8 } else { 0 },
                read_ratio: 0.3,
                trim_ratio: 0.05,
                pattern: "uniform",
                max_units: 3,
                policy: if alternate { "cost-benefit" } else { "greedy" },
                fill_fraction: 1.0,
                scheduler: "priority",
                suspend: false,
                multi_plane: false,
            };
            run_case(&c, 6_000);
        }
    }
}

/// `fdp` under both isolation types (seeds 0 and 16), and the isolation oracle: no GC copy of
/// persistently isolated data lands in another handle's reclaim unit.
#[test]
fn fdp_under_both_isolation_types() {
    for (seed, persistent) in [(0u64, true), (16, false)] {
        let c = Case {
            overwrites: "simulate",
            scheme: "unified",
            mapper: "fdp",
            seed,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.3,
            trim_ratio: 0.05,
            pattern: "hotcold",
            max_units: 3,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "priority",
            suspend: false,
            multi_plane: false,
        };
        run_case(&c, 20_000);
        let s = scenario::load(&scenario_text(&c, 20_000), "integrity.toml", &[], None)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut sim = simulation(&s, c.scheme);
        precondition(&s, &mut sim, "integrity.toml").expect("preconditions");
        sim.run(&mut |_| {}).expect("runs");
        let (r, _) = sim.finish("unified").expect("finishes");
        let n = |k: &str| r.mapper_counters.iter().find(|(name, _)| *name == k).expect(k).1;
        let mixed = if persistent { n("pi_mixed_units") } else { n("ii_mixed_units") };
        assert_eq!(mixed == 0.0, persistent, "seed {seed}: {mixed} copies left their handle");
    }
}

/// A case the property test drew before the stream mappers existed (the draws changed when
/// the mapper list grew): upi-guarded on 4-unit pages with suspend and multi-plane, zipf
/// writes, static wear leveling at gap 2, on a device preconditioned full. It ran for over an
/// hour in CI at commit 5c942ea: tenant a's 16 requests stayed queued for ever while GC and
/// wear leveling on its dies, urgent, copied valid data in circles (tenant b's data went back
/// to b's full die, and on). The livelock bound then ended it with the out-of-space error.
/// The circles were `Upi::gc_victim` taking fully valid blocks outside their owner's set
/// whose copies had no room in that set and came back onto the same die (soak seed 75's
/// cause too); with `copies_can_leave` the run completes, and loses nothing.
#[test]
fn upi_guarded_full_device_no_longer_livelocks() {
    let c = Case {
        overwrites: "simulate",
        scheme: "upi-guarded",
        mapper: "legacy",
        seed: 292_032_366,
        units_per_page: 4,
        buffer_pages: 0,
        read_ratio: 0.306_436_402_079_170_56,
        trim_ratio: 0.039_854_239_682_307_08,
        pattern: "zipf",
        max_units: 3,
        policy: "greedy",
        fill_fraction: 1.0,
        scheduler: "priority",
        suspend: true,
        multi_plane: true,
    };
    run_case(&c, 25_000);
}

/// MQSim's failure mode: a device preconditioned to 100% with no invalid data anywhere, then
/// any mix of reads and writes. GC has no victim until overwrites create one; the run must
/// neither deadlock nor lose data, for every read share.
#[test]
fn full_precondition_without_overwrites_then_any_mix() {
    for (i, read_ratio) in [0.0, 0.3, 0.7, 1.0].into_iter().enumerate() {
        for scheme in schemes() {
            let c = Case {
                overwrites: "simulate",
                scheme,
                mapper: "legacy",
                seed: i as u64,
                units_per_page: 1,
                buffer_pages: 0,
                read_ratio,
                trim_ratio: 0.0,
                pattern: "uniform",
                max_units: 1,
                policy: "greedy",
                fill_fraction: 1.0,
                scheduler: "priority",
                suspend: false,
                multi_plane: false,
            };
            let text = scenario_text(&c, 20_000).replace("overwrite_passes = 0.5", "overwrite_passes = 0.0");
            let s = scenario::load(&text, "full.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
            let mut sim = simulation(&s, scheme);
            precondition(&s, &mut sim, "integrity.toml").expect("preconditions");
            sim.run(&mut |_| {}).expect("runs");
            sim.check_integrity();
        }
    }
}

/// Configurations the soak (`scripts/soak.sh`) found failing with seeds other than CI's, each
/// run as the property test runs it (every read and copy checked, a full sweep at the end).
#[test]
fn soak_regressions() {
    let cases = [
        // PROPTEST_RNG_SEED=11 (and 112): test-parity on 2 physical streams at 30%
        // over-provisioning. Its open host, GC and parity blocks (24 of each 64-block die)
        // held all the invalid data, every full block was 100% valid, and static wear leveling
        // copied them in circles until the livelock bound ended the run ("the device ran out
        // of space ... moving valid data in circles"). The scenario now gives test-parity on
        // streams the room the arithmetic in `scenario_text` asks for.
        Case {
            overwrites: "simulate",
            scheme: "test-parity",
            mapper: "autostream",
            seed: 256_797_706,
            units_per_page: 2,
            buffer_pages: 8,
            read_ratio: 0.334_362_933_057_616_5,
            trim_ratio: 0.020_637_831_005_083_97,
            pattern: "uniform",
            max_units: 6,
            policy: "cost-benefit",
            fill_fraction: 0.75,
            scheduler: "edf",
            suspend: true,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=75 (shrunk; 78 and 94 fail the same way): upi on the legacy
        // mapper at 15% over-provisioning. UPI moved dies until tenant a was left one die
        // (4096 units) for 7071 units of data; die 2, given to b, held 3527 of them in
        // fully valid blocks, and a's one die was down to the GC reserve. GC on die 2
        // took those blocks as "outside their owner's set" victims, but the copies had no room
        // in a's set and went back onto die 2: valid data in circles while b's writes waited
        // (the livelock bound's error). `Upi::gc_victim` now takes such a block only if its
        // owner's set has room for the copies (`copies_can_leave`).
        Case {
            overwrites: "simulate",
            scheme: "upi",
            mapper: "legacy",
            seed: 11_404_493,
            units_per_page: 1,
            buffer_pages: 8,
            read_ratio: 0.0,
            trim_ratio: 0.0,
            pattern: "uniform",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 0.75,
            scheduler: "edf",
            suspend: false,
            multi_plane: true,
        },
        // In the shape of PROPTEST_RNG_SEED=50's failure (wao-gc, tenant a writing
        // sequentially with no reads; the draw itself was not recovered: seed 50 now stops
        // first at a part-ftl case that runs for minutes). It failed the old coverage check
        // `checks > requests`, whose `checks` was mostly the two full sweeps (9637 logical
        // units each at 70% over-provisioning): sequential overwrites leave GC little to
        // copy and tenant a reads nothing, so reads and copies fell short of 25,000 (this case:
        // 23,295 checks with both sweeps, 4,023 in the run). The check now asks what the
        // oracle promises: every copy of the run checked, and some reads.
        Case {
            overwrites: "simulate",
            scheme: "wao-gc",
            mapper: "legacy",
            seed: 50,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.0,
            trim_ratio: 0.0,
            pattern: "sequential",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 0.5,
            scheduler: "fifo",
            suspend: false,
            multi_plane: false,
        },
        // PROPTEST_RNG_SEED=603: test-migrate at fill 1.0 on the legacy mapper (15% over-
        // provisioning, multi-plane). Every die was below the low watermark, migrations' copies
        // fell back onto the dies they left (15,153 of them) and wear leveling ran between them:
        // of the 257 erases without progress that ended the run, 193 were migrations and 64 wear
        // leveling; GC ran 7 times in the run, with about 440 dead units per die to reclaim.
        // Static wear leveling re-armed itself with each of its own erases, moving cold blocks
        // back to back while the migrations kept raising the dies' most-erased counts; it now
        // moves at most one block per erase of another job on the die.
        Case {
            overwrites: "simulate",
            scheme: "test-migrate",
            mapper: "legacy",
            seed: 1_336_282_851,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.0,
            trim_ratio: 0.0,
            pattern: "uniform",
            max_units: 2,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "fifo",
            suspend: false,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=991 (after the wear-leveling fix moved it onto this path):
        // upi-guarded on streams at fill 0.5, hot/cold writes. Tenant b's set was down to die
        // 3, where tenant a, its owner before, had left 8 open blocks (its hot and cold host
        // and GC frontiers on 2 planes) holding 25 valid units: no one wrote them again and GC
        // takes only full blocks, so b's writes waited for a free block while GC found no
        // block with invalid data ("the device ran out of space"). UPI now closes a donor's
        // open blocks on the die it gives away (`Upi::close_left_behind`).
        Case {
            overwrites: "simulate",
            scheme: "upi-guarded",
            mapper: "autostream",
            seed: 806_694_993,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.052_895_524_739_237_31,
            trim_ratio: 0.031_373_527_752_934_255,
            pattern: "hotcold",
            max_units: 5,
            policy: "greedy",
            fill_fraction: 0.5,
            scheduler: "edf",
            suspend: false,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=76, with seed 991's first fix (closing left-behind blocks at
        // every move): `upi` on zipf writes at fill 0.75. Its utilities moved a die 1,434
        // times in 10.5 s of 2 ms epochs, and the moves closed 1,254 of the donors' frontiers,
        // most nearly empty: die 3 ended with 62 full blocks holding 3,565 invalid units and 1
        // free block, and GC and wear leveling erased 257 blocks while no request progressed.
        // Left-behind blocks are now closed only once their die is below the GC low watermark.
        Case {
            overwrites: "simulate",
            scheme: "upi",
            mapper: "direct",
            seed: 3_240_401_942,
            units_per_page: 1,
            buffer_pages: 8,
            read_ratio: 0.352_066_253_472_850_8,
            trim_ratio: 0.066_072_528_712_836_02,
            pattern: "zipf",
            max_units: 6,
            policy: "greedy",
            fill_fraction: 0.75,
            scheduler: "edf",
            suspend: true,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=1209, 1313 and 1998, with left-behind blocks closed at once below
        // the GC low watermark: `upi` at fill 1.0, its dies below the watermark throughout and
        // moving back and forth at many 2 ms epochs. 1313 closed 765 frontiers and ended with
        // tenant a's three dies full of valid data ("GC finds no block with invalid data");
        // 1209 ended at the livelock bound (GC 129, wear leveling 128 erases); 1998 panicked
        // ("a job's copy found no free block"). A left-behind block now waits
        // `smoothing_epochs` epochs after the move as well.
        Case {
            overwrites: "simulate",
            scheme: "upi",
            mapper: "autostream",
            seed: 1_998_020_932,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.129_761_304_033_444_5,
            trim_ratio: 0.014_411_773_961_232_653,
            pattern: "hotcold",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "fair",
            suspend: true,
            multi_plane: true,
        },
        Case {
            overwrites: "simulate",
            scheme: "upi",
            mapper: "legacy",
            seed: 2_534_243_856,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.089_461_075_257_189_92,
            trim_ratio: 0.087_446_890_163_473_87,
            pattern: "sequential",
            max_units: 3,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "fair",
            suspend: true,
            multi_plane: false,
        },
        Case {
            overwrites: "simulate",
            scheme: "upi",
            mapper: "direct",
            seed: 3_976_326_584,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.120_493_732_725_022_06,
            trim_ratio: 0.067_835_614_687_968_6,
            pattern: "sequential",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "fifo",
            suspend: false,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=3268: flashblox on the legacy mapper, sequential writes at fill 0.5.
        // A swap's migrations read 4 pages in flight per die, and each read's copies queue their
        // page program at a destination die, which programs 8 times slower than it reads: 3,409
        // operations were live, over the engine's bound of 3 per page of one block per die (a
        // failed assertion, not a data loss). The bound now counts one read and one program per
        // page of the device (`Engine::new`); this case peaks above 4,250. Failed at 74beaab.
        Case {
            overwrites: "simulate",
            scheme: "flashblox",
            mapper: "legacy",
            seed: 707_144_609,
            units_per_page: 1,
            buffer_pages: 8,
            read_ratio: 0.273_864_700_694_308_7,
            trim_ratio: 0.036_162_509_250_219_44,
            pattern: "sequential",
            max_units: 1,
            policy: "cost-benefit",
            fill_fraction: 0.5,
            scheduler: "fifo",
            suspend: false,
            multi_plane: false,
        },
        // PROPTEST_RNG_SEED=1723 and 1927: test-migrate at fill 1.0 on the legacy mapper (15%
        // over-provisioning). It started a migration every 10 ms whatever room the dies had;
        // every copy fell back onto the die it left (720,763 in 1723, against 408 GC jobs) and
        // the livelock bound ended the run. It now skips an epoch when no other die has a free
        // block above the host reserve (tests/policies). Both failed at aa49004 as well.
        Case {
            overwrites: "simulate",
            scheme: "test-migrate",
            mapper: "legacy",
            seed: 345_971_224,
            units_per_page: 1,
            buffer_pages: 8,
            read_ratio: 0.087_241_865_785_352_92,
            trim_ratio: 0.006_119_528_313_954_565,
            pattern: "zipf",
            max_units: 3,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "edf",
            suspend: false,
            multi_plane: false,
        },
        Case {
            overwrites: "simulate",
            scheme: "test-migrate",
            mapper: "legacy",
            seed: 3_471_649_170,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.0,
            trim_ratio: 0.049_150_458_128_432,
            pattern: "zipf",
            max_units: 3,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "edf",
            suspend: true,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=635: test-migrate writing sequentially at fill 1.0 under the
        // priority scheduler. Wear leveling started 7,375 jobs (GC 476) and erased 257 blocks
        // in a row while tenant a's 16 requests waited behind its operations (the livelock
        // bound's error). The same cause as seed 603's; the same fix.
        Case {
            overwrites: "simulate",
            scheme: "test-migrate",
            mapper: "autostream",
            seed: 4_412_818,
            units_per_page: 2,
            buffer_pages: 0,
            read_ratio: 0.0,
            trim_ratio: 0.0,
            pattern: "sequential",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "priority",
            suspend: true,
            multi_plane: true,
        },
    ];
    for c in &cases {
        run_case(c, 25_000);
    }
}

/// The part-ftl configurations the soak found failing, each run as the property test runs it.
/// Both stopped in the parity way's turn: channel 0's parity die had no free block above the
/// reserve and nothing to erase (every parity block pinned by a live stripe), so its parity
/// programs waited, and channel 1's behind them (the engine retries waiting parity in
/// order), while channel 1's parity die held dead blocks but was not short enough to erase
/// them. The turn waited for "no parity die holds an erasable block", which never came, and
/// only a data turn (copy-outs, erases on the data dies) could free the parity blocks. The
/// turn now ends once the parity dies have drained with no erase due (`PartFtl::try_rotate`).
#[test]
fn part_ftl_soak_regressions() {
    let cases = [
        // PROPTEST_RNG_SEED=6 (its first failing case; 10 and 77 failed with the same error):
        // preconditioning at fill 1.0 placed tenant b's data on the data dies, both down to
        // the 2-block reserve with 6 and 11 dead blocks that only their own turn may erase,
        // while F_w was stuck on the parity way: "preconditioning found no die with room".
        Case {
            overwrites: "simulate",
            scheme: "part-ftl",
            mapper: "direct",
            seed: 3_809_623_528,
            units_per_page: 2,
            buffer_pages: 8,
            read_ratio: 0.428_748_057_470_050_2,
            trim_ratio: 0.032_815_623_840_847_04,
            pattern: "uniform",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "priority",
            suspend: false,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=76, its 28th case: the same stuck parity turn in the timed run.
        // Every write was deferred at each poll (tPROG) and no request was outstanding, which
        // the progress watchdog took for an idle gap: 25,000 simulated seconds and 374 million
        // events later it still ran (the watchdog now counts requests held by admission).
        Case {
            overwrites: "simulate",
            scheme: "part-ftl",
            mapper: "direct",
            seed: 2_336_196_436,
            units_per_page: 2,
            buffer_pages: 8,
            read_ratio: 0.239_115_993_029_791,
            trim_ratio: 0.066_499_372_480_635_02,
            pattern: "zipf",
            max_units: 5,
            policy: "cost-benefit",
            fill_fraction: 1.0,
            scheduler: "edf",
            suspend: true,
            multi_plane: true,
        },
    ];
    for c in &cases {
        run_case(c, 25_000);
    }
}

/// The flashblox configurations the soak found failing, each run as the property test runs
/// it. All ended with the out-of-space error ("GC finds no block with invalid data") after
/// channel swaps: the dies of tenant a were down to the GC reserve, every full block on them
/// 100% valid, and what could be reclaimed there was out of GC's reach, left behind by the
/// swaps: tenant b's open blocks (its host and GC frontiers, up to 8 a die with 2 streams on
/// 2 planes: they took no more writes and GC takes only full blocks), and b's full blocks
/// that the migration had to leave where they were (its copies fall back to the source die
/// when the destination is at the reserve), which GC never chose because they held no
/// invalid data. Now a swap closes the leaving vSSD's open blocks and migrates their data
/// with its full blocks, open blocks still left on a die not their tenant's home are closed
/// once that home has room (`Command::CloseBlock`), and GC on a die prefers a block left
/// behind when its owner's home has room for the copies (docs/schemes/flashblox.md, Swap).
#[test]
fn flashblox_soak_regressions() {
    let cases = [
        // PROPTEST_RNG_SEED=10, its first failing case: autostream (2 streams) on 2-plane
        // frontiers at fill 1.0. At the end (73.7 s, 7 swaps) a's dies 2 and 3 held 8 open
        // blocks of b each (b's host and GC frontiers, with 210 and 144 of b's valid units),
        // and every full block of a was 100% valid.
        Case {
            overwrites: "simulate",
            scheme: "flashblox",
            mapper: "autostream",
            seed: 3_611_654_180,
            units_per_page: 2,
            buffer_pages: 0,
            read_ratio: 0.035_522_621_151_310_7,
            trim_ratio: 0.005_428_122_783_072_444,
            pattern: "sequential",
            max_units: 5,
            policy: "cost-benefit",
            fill_fraction: 1.0,
            scheduler: "fair",
            suspend: false,
            multi_plane: true,
        },
        // PROPTEST_RNG_SEED=45, its first failing case: dac, one plane, a write buffer. At
        // the end (11.6 s, 5 swaps) a's dies held 21 and 17 full blocks of b, all 100% valid
        // (the migration's fallback copies), while b's own dies had 10 free blocks each.
        Case {
            overwrites: "simulate",
            scheme: "flashblox",
            mapper: "dac",
            seed: 2_125_781_998,
            units_per_page: 1,
            buffer_pages: 8,
            read_ratio: 0.000_163_323_817_550_054_94,
            trim_ratio: 0.003_376_154_633_801_053,
            pattern: "sequential",
            max_units: 4,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "fifo",
            suspend: true,
            multi_plane: false,
        },
        // A grid of 384 flashblox configurations (4 mappers x 3 page sizes x buffer or not x
        // sequential or uniform x fill 0.75 or 1.0 x 1 or 2 planes x fifo or fair, seed 2,
        // writes only) found 21 ending out of space (all at fill 1.0, 18 on `legacy`); this
        // one (6.0 s, 2 swaps) in the shape last session's grid named.
        Case {
            overwrites: "simulate",
            scheme: "flashblox",
            mapper: "autostream",
            seed: 2,
            units_per_page: 1,
            buffer_pages: 0,
            read_ratio: 0.0,
            trim_ratio: 0.0,
            pattern: "sequential",
            max_units: 1,
            policy: "greedy",
            fill_fraction: 1.0,
            scheduler: "fifo",
            suspend: false,
            multi_plane: true,
        },
    ];
    for c in &cases {
        run_case(c, 25_000);
    }
}
