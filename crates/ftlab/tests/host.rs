//! Host behaviour: timed and closed-loop replay, queue depth, time scaling, address mapping,
//! the write buffer and requests served without flash; the out-of-space errors (a device full
//! of valid data, a GC copy with no free block where a scheme sends it). Expected latencies
//! are computed from the `tiny` preset's datasheet numbers (read 25 us, program 200 us,
//! 333 MT/s x 8 bit bus) and the scenario's `dram_latency_us` (1 us by default), not copied
//! from a run.

use crate::common;

use common::{metric, run, run_raw, temp_file, tiny};
use ftlab::error::{RunError, TraceError, TraceErrorKind};
use ftlab::internals::flash::geometry::DieIdx;
use ftlab::internals::policy::DeviceView;
use ftlab::internals::scheme::{RoundRobin, Scheme};
use ftlab::{FtlabError, Stage};

const T_READ_NS: f64 = 25_000.0;
const T_PROG_NS: f64 = 200_000.0;
const DRAM_NS: f64 = 1_000.0;

fn xfer_ns(bytes: u64) -> f64 {
    (bytes * 1_000_000_000).div_ceil(333_000_000) as f64
}

/// One tenant over the whole `tiny` device replaying an MQSim trace, filled sequentially.
fn trace_scenario(trace: &str, extra_tenant: &str, extra: &str) -> String {
    let path = temp_file(&format!("host-{:x}.trace", fxhash(trace)), trace);
    tiny(
        &["unified"],
        &format!(
            "[ftl]\nbackground_gc = false\n{extra}\n[precondition]\norder = \
             \"sequential\"\noverwrite_passes = 0.0\n"
        ),
        &format!(
            "[[tenants]]\nname = \"t\"\nnamespace_fraction = 1.0\n{extra_tenant}\n[tenants.trace]\npath = \
             \"{}\"\nformat = \"mqsim\"\n",
            path.display()
        ),
    )
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

#[test]
fn queue_depth_one_serialises_reads_and_counts_host_queueing() {
    // Eight reads arrive at 0 with queue depth 1: read k waits for the k-1 before it, so its
    // latency is k * (tR + transfer); the mean is 4.5 * (tR + transfer).
    let trace: String = (0..8).map(|i| format!("0 0 {} 8 1\n", i * 8)).collect();
    let s = run(&trace_scenario(&trace, "queue_depth = 1", ""), &[]);
    let one = T_READ_NS + xfer_ns(4096);
    assert_eq!(metric(&s, "unified", "t", "read", "max_us"), 8.0 * one / 1e3);
    assert!((metric(&s, "unified", "t", "read", "mean_us") - 4.5 * one / 1e3).abs() < 1e-3);
}

#[test]
fn one_write_through_costs_transfer_plus_tprog() {
    let s = run(&trace_scenario("0 0 0 8 0\n", "", ""), &[]);
    assert_eq!(metric(&s, "unified", "t", "write", "max_us"), (xfer_ns(4096) + T_PROG_NS) / 1e3);
}

#[test]
fn a_buffered_write_completes_in_dram_time() {
    let s = run(&trace_scenario("0 0 0 8 0\n", "", "write_buffer_bytes = 1048576"), &[]);
    assert_eq!(metric(&s, "unified", "t", "write", "max_us"), DRAM_NS / 1e3);
}

#[test]
fn unmapped_and_buffered_reads_take_dram_time() {
    // Nothing preconditioned: the read finds no mapping. Then a buffered write and an
    // immediate read of the same unit: served from the buffer.
    let trace = "0 0 0 8 1\n1000000 0 8 8 0\n1000001 0 8 8 1\n";
    let text = trace_scenario(trace, "", "write_buffer_bytes = 1048576")
        .replace("[precondition]", "[precondition]\nfill_fraction = 0.0");
    let s = run(&text, &[]);
    assert_eq!(metric(&s, "unified", "t", "read", "max_us"), DRAM_NS / 1e3);
    assert_eq!(s["schemes"]["unified"]["tenants"]["t"]["unmapped_reads"], 1);
    assert_eq!(s["schemes"]["unified"]["tenants"]["t"]["buffer_reads"], 1);
}

#[test]
fn time_scale_stretches_arrivals() {
    // Two reads one second apart, replayed at time_scale 0.25: the second arrives at 0.25 s.
    let trace = "0 0 0 8 1\n1000000000 0 8 8 1\n";
    let text =
        trace_scenario(trace, "", "").replace("format = \"mqsim\"", "format = \"mqsim\"\ntime_scale = 0.25");
    let s = run(&text, &[]);
    let end = s["schemes"]["unified"]["device"]["sim_time_ns"].as_f64().unwrap();
    assert_eq!(end, 250_000_000.0 + T_READ_NS + xfer_ns(4096));
}

#[test]
fn reject_names_the_trace_line_outside_the_namespace() {
    // The namespace of the tiny device (64 MiB raw, 25% spare) ends below sector 2^20; line 3
    // reads past it.
    let trace = "0 0 0 8 1\n10 0 8 8 1\n20 0 1048576 8 1\n";
    let text = trace_scenario(trace, "", "")
        .replace("format = \"mqsim\"", "format = \"mqsim\"\naddress_map = \"reject\"");
    match run_raw(&text, &[]) {
        Err(FtlabError::Trace(e)) => {
            let TraceError { file, line, kind } = *e;
            assert!(file.ends_with(".trace"), "{file}");
            assert_eq!(line, 3);
            assert!(kind.to_string().contains("outside the namespace"), "{kind}");
            // Sector 1048576 x 512 bytes, 8 sectors long.
            let TraceErrorKind::OutsideNamespace { start_bytes, end_bytes, namespace_bytes } = kind else {
                panic!("expected OutsideNamespace, got {kind:?}")
            };
            assert_eq!((start_bytes, end_bytes), (1_048_576 * 512, 1_048_576 * 512 + 8 * 512));
            assert!(namespace_bytes < start_bytes, "{namespace_bytes}");
        }
        other => panic!("expected a trace error, got {other:?}"),
    }
}

#[test]
fn wrap_folds_addresses_into_the_namespace() {
    // The same out-of-range read under the default `wrap` completes.
    let s = run(&trace_scenario("0 0 1048576 8 1\n", "", ""), &[]);
    assert_eq!(metric(&s, "unified", "t", "read", "count"), 1.0);
}

#[test]
fn a_closed_loop_tenant_stops_at_its_duration() {
    // No request limit: only duration_s ends the workload, and the run must terminate.
    let text = tiny(
        &["unified"],
        "",
        "[[tenants]]\nname = \"c\"\nnamespace_fraction = 0.5\nqueue_depth = 4\nduration_s = \
         0.5\n[tenants.synthetic]\narrival = \"closed\"\nread_ratio = 0.5\n",
    );
    let s = run(&text, &[]);
    let end_ns = s["schemes"]["unified"]["device"]["sim_time_ns"].as_u64().unwrap();
    // The last request is submitted before 0.5 s and completes within a few flash operations.
    assert!((500_000_000..520_000_000).contains(&end_ns), "run ended at {end_ns} ns");
}

#[test]
fn an_arrival_past_the_clock_limit_is_an_error_naming_the_line() {
    // 2 x 10^16 ns = 2 x 10^7 s, past the 10^7 s limit.
    let trace = "0 0 0 8 1\n20000000000000000 0 8 8 1\n";
    match run_raw(&trace_scenario(trace, "", ""), &[]) {
        Err(FtlabError::Trace(e)) => {
            let TraceError { line, kind, .. } = *e;
            assert_eq!(line, 2);
            assert!(kind.to_string().contains("past the simulator's limit"), "{kind}");
            // 2 x 10^16 ns after the first record = 2 x 10^7 s; the limit is 10^7 s.
            let TraceErrorKind::ArrivalPastLimit { at_s, limit_s } = kind else {
                panic!("expected ArrivalPastLimit, got {kind:?}")
            };
            assert_eq!((at_s, limit_s), (2e7, 10_000_000));
        }
        other => panic!("expected a trace error, got {other:?}"),
    }
}

/// Two tenants filling the `tiny` device to the brim at `over_provisioning`, each with frontiers of
/// its own (`ftl.frontier_per_tenant`): the 13 units of slack at 5% are then eaten by the second
/// tenant's open blocks, and the run finds no room. With the frontiers `unified` shares by default
/// (one per die for both tenants) the same device at 5% completes, at a WAF near 60.
fn brim(overwrite_passes: f64, web: &str) -> String {
    tiny(
        &["unified"],
        &format!(
            "[precondition]\nfill_fraction = 1.0\noverwrite_passes = {overwrite_passes}\n[ftl]\n\
             frontier_per_tenant = true\n"
        ),
        &format!(
            "[[tenants]]\nname = \"db\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\nrequests = \
             2000\n[[tenants]]\nname = \"web\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\n{web}\n"
        ),
    )
}

fn expect_capacity_error(text: &str, over_provisioning: &str, says: &str) {
    match run_raw(text, &[&format!("device.over_provisioning={over_provisioning}")]) {
        Err(FtlabError::Config { file, key, reason, .. }) => {
            assert_eq!(file, "test.toml");
            assert_eq!(key, "device.over_provisioning");
            assert!(reason.contains(says) && reason.contains("raise device.over_provisioning"), "{reason}");
        }
        other => panic!("expected a capacity error, got {other:?}"),
    }
}

#[test]
fn namespaces_over_what_gc_can_keep_valid_are_refused_at_validation() {
    // tiny: 4 dies x 64 blocks x 64 units; each die keeps 2 GC reserve blocks free and needs
    // one more block to reclaim, so 4 x (64 - 2 - 1) x 64 = 15616 units can stay valid. At 1%
    // over-provisioning the namespaces (all of the logical 16384 / 1.01 = 16221 units) do not
    // fit; they fit from 16384 / 15616 - 1 = 0.0492 on.
    expect_capacity_error(
        &brim(1.0, "requests = 2000"),
        "0.01",
        "more than GC can keep valid: 4 dies x (64 blocks - 2 GC reserve (ftl.gc_reserve_blocks) - 1 block \
         to reclaim) x 64 units = 15616; raise device.over_provisioning to at least 0.0492",
    );
}

#[test]
fn running_out_of_space_mid_run_is_its_own_error() {
    // 5% over-provisioning passes validation (16384 / 1.05 = 15603 units <= 15616), but the
    // run has 13 units of slack on the whole device: full of valid data, GC finds nothing.
    let text = brim(0.0, "arrival = \"closed\"\nrequests = 2000");
    match run_raw(&text, &["device.over_provisioning=0.05"]) {
        Err(e @ FtlabError::Run(RunError::OutOfSpace { .. })) => {
            let FtlabError::Run(RunError::OutOfSpace {
                ref file,
                stage,
                ref waiting,
                n_blocks,
                ref reason,
                ..
            }) = e
            else {
                unreachable!()
            };
            let Stage::Run { at_ns } = stage else { panic!("expected the timed run's stage, got {stage:?}") };
            assert_eq!(file, "test.toml");
            assert!(at_ns > 0 && n_blocks == 256 && !waiting.is_empty(), "{e:?}");
            assert!(reason.contains("raise device.over_provisioning"), "{reason}");
            assert_eq!(e.kind(), "OutOfSpaceError");
            assert!(e.to_string().starts_with("test.toml: the device ran out of space at "), "{e}");
        }
        other => panic!("expected the out-of-space error, got {other:?}"),
    }
}

#[test]
fn running_out_of_space_while_preconditioning_is_its_own_error() {
    // As above (13 units of slack at 5%), with one pass of random overwrites: the fill itself
    // fits, but overwriting leaves a die no block to collect before the run starts. Not a
    // config error: the scenario is valid, preconditioning found the shortage.
    let text = brim(1.0, "arrival = \"closed\"\nrequests = 20");
    match run_raw(&text, &["device.over_provisioning=0.05"]) {
        Err(
            ref e @ FtlabError::Run(RunError::OutOfSpace {
                ref file,
                stage,
                ref waiting,
                erases,
                n_blocks,
                ref reason,
            }),
        ) => {
            assert_eq!((file.as_str(), stage, erases, n_blocks), ("test.toml", Stage::Precondition, 0, 256));
            assert_eq!(waiting.len(), 1, "one tenant's data found no room: {waiting:?}");
            assert!(reason.starts_with(&format!("tenant {:?}: ", waiting[0])), "{reason}");
            assert!(reason.ends_with("raise device.over_provisioning or lower precondition.fill_fraction"));
            let head = "test.toml: the device ran out of space while preconditioning: ";
            assert!(e.to_string().starts_with(head), "{e}");
        }
        other => panic!("expected the out-of-space error, got {other:?}"),
    }
}

#[test]
fn a_trace_outgrowing_the_time_series_bound_is_a_config_error() {
    // One read at 2000 s with 0.1 ms windows: 2 x 10^7 windows, over the 10^7-row bound.
    let text = trace_scenario("0 0 0 8 1\n2000000000000 0 8 8 1\n", "", "")
        .replace("[check]", "[measure]\nwindow_s = 0.0001\n[check]");
    match run_raw(&text, &[]) {
        Err(FtlabError::Config { key, reason, .. }) => {
            assert_eq!(key, "measure.window_s");
            assert!(reason.contains("raise measure.window_s"), "{reason}");
        }
        other => panic!("expected a window error, got {other:?}"),
    }
}

#[test]
fn progress_rises_to_the_total_for_a_trace_run() {
    // No duration: the trace's length decides the run, so progress follows the bytes read.
    let trace: String =
        (0..40_000).map(|i| format!("{} 0 {} 8 {}\n", i * 1000, (i * 8) % 100_000, i % 2)).collect();
    let text = trace_scenario(&trace, "", "");
    let source = ftlab::ScenarioSource::Text { text, base_dir: ".".into(), name: "p.toml".into() };
    let mut seen = Vec::new();
    ftlab::run_scenario(&source, &Default::default(), &mut |p| seen.push((p.done, p.total))).expect("runs");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "progress went backwards: {seen:?}");
    assert_eq!(seen.last().map(|&(d, t)| d == t), Some(true));
    assert!(seen.iter().any(|&(d, t)| d > 0 && d < t), "no intermediate progress: {seen:?}");
}

#[test]
fn synthetic_times_are_not_rebased_so_a_part_start_is_kept() {
    // A tenant starting at 1 s whose only part starts at 0.25 s with one request per ms: the
    // first request arrives at 1.25 s, not at 1 s (a trace would be rebased on its first
    // record; a generator's times already count from the tenant's start).
    use ftlab::internals::host::{Records, Source, SourceParams};
    use ftlab::internals::scenario::AddressMap;
    use ftlab::internals::workload::generator::{Arrival, GeneratorConfig};
    use ftlab::internals::workload::synthetic::SyntheticWorkload;
    use ftlab::SimTime;
    let part = GeneratorConfig {
        arrival: Arrival::Fixed,
        interval_us: 1000.0,
        start_s: 0.25,
        requests: Some(3),
        ..GeneratorConfig::default()
    };
    let stream = SyntheticWorkload::single(part).try_build(1 << 20, 1).unwrap();
    let p = SourceParams {
        name: "synthetic".into(),
        namespace_units: 256,
        unit_bytes: 4096,
        address_map: AddressMap::Wrap,
        lba_max_bytes: 0,
        time_scale: 1.0,
        start: SimTime(1_000_000_000),
        end: None,
        max_requests: None,
        stream_rules: Vec::new(),
    };
    let mut source = Source::new(Records::Synthetic(Box::new(stream)), p);
    let arrivals: Vec<u64> =
        std::iter::from_fn(|| source.next_request().unwrap()).map(|r| r.arrival.ns()).collect();
    assert_eq!(arrivals, [1_250_000_000, 1_251_000_000, 1_252_000_000]);
}

#[test]
fn a_multi_part_tenant_runs_every_part_deterministically() {
    // Two parts with request counts (reads, then a delayed burst of writes) next to a
    // single-table tenant: every request of every part is served, and the run is
    // byte-for-byte repeatable.
    let text = tiny(
        &["unified"],
        "[precondition]\nfill_fraction = 0.5\n",
        "[[tenants]]\nname = \"a\"\nnamespace_fraction = 0.4\n[[tenants.synthetic]]\nread_ratio = \
         1.0\nrate_iops = 2000.0\nrequests = 300\n[[tenants.synthetic]]\nrate_iops = 5000.0\nstart_s = \
         0.05\nrequests = 200\nwrite_sequential_fraction = 0.5\n[[tenants]]\nname = \
         \"b\"\nnamespace_fraction = 0.4\n[tenants.synthetic]\nrequests = 100\n",
    );
    let a = run_raw(&text, &[]).expect("runs");
    let b = run_raw(&text, &[]).expect("runs");
    assert_eq!(a.summary_json, b.summary_json);
    let s: serde_json::Value = serde_json::from_str(&a.summary_json).unwrap();
    assert_eq!(metric(&s, "unified", "a", "read", "count"), 300.0);
    assert_eq!(metric(&s, "unified", "a", "write", "count"), 200.0);
    assert_eq!(metric(&s, "unified", "b", "write", "count"), 100.0);
    let c = run_raw(&text, &["seed=8"]).expect("runs");
    assert_ne!(a.summary_json, c.summary_json);
}

/// A test-only scheme that stripes host pages over every die and sends every GC copy from a
/// victim on another die to die 0. GC's reserve covers a victim's copies onto its own die only,
/// so die 0 runs out of free blocks under a steady writer: the run must end with the
/// out-of-space error, not a panic, and lose no data.
struct Funnel {
    cursor: RoundRobin,
}

impl Scheme for Funnel {
    fn name(&self) -> &'static str {
        "test-funnel"
    }
    fn host_write_die(&mut self, _tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursor.next_die()
    }
    fn gc_write_die(&mut self, _owner: u16, _victim_die: DieIdx, _v: &DeviceView) -> DieIdx {
        DieIdx(0)
    }
    fn gc_block_die(&self, _owner: u16, _victim_die: DieIdx) -> Option<DieIdx> {
        Some(DieIdx(0))
    }
    fn resolved_config(&self) -> toml::Table {
        toml::Table::new()
    }
}

/// Runs `Funnel` on the `tiny` device (one writer, uniform, `precondition` keys as given) and
/// returns the run's error, after checking that every unit still reads back (the oracle).
fn funnel_error(precondition_keys: &str) -> FtlabError {
    use ftlab::internals::api::{build_simulation_with, precondition};
    let text = tiny(
        &["unified"],
        &format!("[precondition]\nmode = \"fill\"\n{precondition_keys}\n"),
        "[[tenants]]\nname = \"web\"\nnamespace_fraction = 1.0\n[tenants.synthetic]\nread_ratio = 0.0\n\
         arrival = \"closed\"\nrequests = 200000\n",
    );
    let s = ftlab::internals::scenario::load(&text, "test.toml", &[], None).expect("valid");
    let g = s.geometry();
    let funnel = Box::new(Funnel { cursor: RoundRobin::new(g.dies_channel_first()) });
    let mut sim = build_simulation_with(&s, funnel, std::path::Path::new("."), "test.toml").expect("builds");
    let e = match precondition(&s, &mut sim, "test.toml") {
        Err(e) => e,
        Ok(_) => sim.run(&mut |_| {}).expect_err("die 0 cannot take every die's copies"),
    };
    // The copy that found no room left its unit where it was: nothing is lost.
    assert!(sim.check_integrity() > 0);
    e
}

#[test]
fn a_gc_copy_with_no_free_block_where_the_scheme_sends_it_ends_the_run_with_out_of_space() {
    // Half full, no overwrites: preconditioning needs no GC, the timed run finds the shortage.
    let during_run = funnel_error("fill_fraction = 0.5\noverwrite_passes = 0.0");
    // Full, with a pass of overwrites: preconditioning's own GC finds it.
    let preconditioning = funnel_error("fill_fraction = 1.0\noverwrite_passes = 1.0");
    for (e, when) in [(&during_run, "at "), (&preconditioning, "while preconditioning")] {
        let FtlabError::Run(RunError::OutOfSpace { file, waiting, erases, reason, .. }) = e else {
            panic!("expected the out-of-space error, got {e:?}")
        };
        assert_eq!((waiting.as_slice(), *erases), (&["web".to_string()][..], 0));
        // Die 0 is out of blocks: a copy from another die (1-3) sent there, or die 0's own GC
        // after such copies took its reserve.
        let from_other_die = (1..4).any(|d| reason.contains(&format!("copy of its data from die {d} found")))
            && reason.contains("no free block on die 0, where the scheme sends it");
        let own = reason.contains("from die 0 found no free block on that die: jobs' copies had used up");
        assert!(from_other_die || own, "{reason}");
        assert!(reason.starts_with("tenant \"web\": a gc copy"), "{reason}");
        assert!(
            reason.ends_with("raise device.over_provisioning or lower precondition.fill_fraction"),
            "{reason}"
        );
        // (`Simulation::run` is below the edge that names the scenario's file.)
        let head = format!("{file}: the device ran out of space {when}");
        assert!(e.to_string().starts_with(&head), "{e}");
        assert_eq!(e.kind(), "OutOfSpaceError");
    }
    let FtlabError::Run(RunError::OutOfSpace { stage, .. }) = during_run else { unreachable!() };
    assert!(matches!(stage, Stage::Run { at_ns } if at_ns > 0), "{stage:?}");
    let FtlabError::Run(RunError::OutOfSpace { stage, file, .. }) = preconditioning else { unreachable!() };
    assert_eq!((stage, file.as_str()), (Stage::Precondition, "test.toml"));
}
