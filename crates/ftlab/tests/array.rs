//! `[array]` end to end (docs/array.md): K devices of the tiny preset behind the RAID-5 host
//! layer, integrity oracle on (each device's and the array's, plain and rebuilt reads). What
//! is checked: bad `[array]` input names its key and range; the summary is byte-identical run
//! serially and on threads; the host layer's fan-out (device requests per array request) is
//! what the devices themselves counted; rebuilt reads return the data last written (the
//! array oracle panics otherwise, and its checks are counted).

use crate::common;

use common::{run, run_raw, tiny};
use ftlab::{run_scenario, FtlabError, RunOptions, ScenarioSource};
use serde_json::Value;
use std::path::PathBuf;

/// A read/write tenant ("kv": 4 KiB, uniform) and a sequential writer ("log": 48 KiB), each
/// with a fixed number of requests, so every request completes and every count is exact.
fn array(schemes: &[&str], array: &str) -> String {
    let tenants = r#"
[precondition]
mode = "fill"
fill_fraction = 1.0
[[tenants]]
name = "kv"
namespace_fraction = 0.45
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.7
requests = 1500
arrival = "poisson"
rate_iops = 3000.0
[[tenants]]
name = "log"
namespace_fraction = 0.45
[tenants.synthetic]
pattern = "sequential"
read_ratio = 0.0
sizes = [{ bytes = 49152, weight = 1.0 }]
requests = 150
arrival = "poisson"
rate_iops = 300.0
"#;
    tiny(schemes, &format!("[array]\n{array}"), tenants)
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Host windows of 150 ms in a 400 ms cycle: four devices' would overlap.
const STAGGER_WIDE: &str = "devices = 4\nchunk_kib = 4\nstagger = true\n[scheme.iod]\nwindows = \"host\"\n\
                            host_cycle_ms = 400.0\nhost_ndwin_ms = 150.0";

#[test]
fn bad_array_input_names_the_key_and_the_range() {
    let cases: &[(&str, &[&str], &str, &[&str])] = &[
        ("devices = 2\nchunk_kib = 4", &[], "array.devices", &["[3, 16]", "got 2"]),
        ("devices = 17\nchunk_kib = 4", &[], "array.devices", &["[3, 16]", "got 17"]),
        ("devices = 4\nchunk_kib = 6", &[], "array.chunk_kib", &["multiple of the mapping unit", "got 6"]),
        ("devices = 4\nchunk_kib = 2048", &[], "array.chunk_kib", &["1024", "got 2048"]),
        ("devices = 4\nchunk_kib = 4\nrebuild_device = 4", &[], "array.rebuild_device", &["[0, 3]", "got 4"]),
        ("devices = 4\nchunk_kib = 4", &["precondition.mode=\"workload\""], "precondition.mode", &["fill"]),
        ("devices = 4\nchunk_kib = 4", &["measure.solo=true"], "measure.solo", &["not supported"]),
        ("devices = 4\nchunk_kib = 4\nchunks = 1", &[], "array.chunks", &["unknown"]),
        ("devices = 4\nchunk_kib = 4\nfail_fast = \"often\"", &[], "array.fail_fast", &["often"]),
        (
            "devices = 4\nchunk_kib = 4\nstagger = true",
            &["schemes=[\"unified\"]"],
            "array.stagger",
            &["no listed scheme has a host window schedule"],
        ),
        ("devices = 4\nchunk_kib = 4\nstagger = true", &[], "array.stagger", &["windows = \"host\""]),
        (STAGGER_WIDE, &[], "array.stagger", &["at most host_cycle_ms / devices (100)", "150"]),
    ];
    let mut failed = Vec::new();
    for (table, overrides, key, frags) in cases {
        match run_raw(&array(&["unified", "iod"], table), overrides) {
            Err(FtlabError::Config { key: k, reason, .. })
                if k == *key && frags.iter().all(|f| reason.contains(f)) => {}
            Err(e) => {
                failed.push(format!("{table:?} {overrides:?}: got {e:?}, expected {key} with {frags:?}"))
            }
            Ok(_) => failed.push(format!("{table:?} {overrides:?}: accepted")),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn the_summary_is_the_same_serial_and_on_threads() {
    let text = array(&["unified", "partitioned"], "devices = 3\nchunk_kib = 8\nrebuild_device = 1");
    let source = ScenarioSource::Text { text, base_dir: PathBuf::from("."), name: "test.toml".into() };
    let outs: Vec<String> = [Some(1), Some(2), Some(1)]
        .into_iter()
        .map(|jobs| {
            let opts =
                RunOptions { seed: None, overrides: vec!["scheme.partitioned.by=\"die\"".into()], jobs };
            run_scenario(&source, &opts, &mut |_| {}).expect("runs").summary_json
        })
        .collect();
    assert_eq!(outs[0], outs[1], "--jobs 1 and 2");
    assert_eq!(outs[0], outs[2], "two serial runs");
    let s: Value = serde_json::from_str(&outs[0]).unwrap();
    let names: Vec<&String> = s["schemes"].as_object().unwrap().keys().collect();
    let want = [
        "unified/dev0",
        "unified/dev1",
        "unified/dev2",
        "partitioned/dev0",
        "partitioned/dev1",
        "partitioned/dev2",
    ];
    assert_eq!(names, want, "one result per device, schemes in scenario order");
}

/// (devices, chunk KiB, rebuild device): the devices' own request counts are the host
/// layer's fan-out. A kv read is one device read, or K-1 member reads when rebuilt; a kv 4
/// KiB write is a read-modify-write of its row (old data and old parity read, new data and
/// parity written); a log write of whole rows writes K chunks per row and reads nothing.
#[test]
fn devices_count_the_host_layers_fan_out_and_rebuilds_pass_the_oracle() {
    for (devices, chunk_kib, rebuild) in
        [(3u64, 4u64, None), (4, 4, Some(2u64)), (5, 4, Some(0)), (4, 16, Some(3))]
    {
        let table = match rebuild {
            Some(d) => format!("devices = {devices}\nchunk_kib = {chunk_kib}\nrebuild_device = {d}"),
            None => format!("devices = {devices}\nchunk_kib = {chunk_kib}"),
        };
        let s = run(&array(&["unified"], &table), &[]);
        let case = format!("devices {devices}, chunk {chunk_kib} KiB, rebuild {rebuild:?}");
        let a = &s["array"]["schemes"]["unified"];
        let kv = &a["tenants"]["kv"];
        let log = &a["tenants"]["log"];
        let dev_sum = |tenant: &str, op: &str| -> u64 {
            (0..devices)
                .map(|d| u(&s["schemes"][format!("unified/dev{d}")]["tenants"][tenant][op]["count"]))
                .sum()
        };
        let (reads, writes) = (u(&kv["read"]["count"]), u(&kv["write"]["count"]));
        let rebuilt = u(&kv["chunks_rebuilt"]);
        assert_eq!(reads + writes, 1500, "{case}: every kv request completed");
        assert_eq!(u(&kv["stripe_writes_rmw"]), writes, "{case}: a 4 KiB write is one partial row");
        assert_eq!(u(&kv["stripe_writes_full"]), 0, "{case}");
        assert_eq!(
            dev_sum("kv", "read"),
            reads - rebuilt + (devices - 1) * rebuilt + 2 * writes,
            "{case}: kv reads"
        );
        assert_eq!(dev_sum("kv", "write"), 2 * writes, "{case}: kv writes");
        let rows_per_write = 48 / (chunk_kib * (devices - 1));
        let whole = 48 % (chunk_kib * (devices - 1)) == 0;
        assert_eq!(u(&log["write"]["count"]), 150, "{case}");
        if whole {
            assert_eq!(u(&log["stripe_writes_full"]), 150 * rows_per_write, "{case}: whole rows");
            assert_eq!(u(&log["stripe_writes_rmw"]), 0, "{case}");
            assert_eq!(dev_sum("log", "write"), 150 * rows_per_write * devices, "{case}: K chunks a row");
            assert_eq!(dev_sum("log", "read"), 0, "{case}: a full row reads nothing");
        }
        match rebuild {
            // About one piece in K sits on the rebuild device (uniform addresses).
            Some(_) => assert!(
                rebuilt * devices * 2 > reads && rebuilt * devices < reads * 2,
                "{case}: {rebuilt} of {reads}"
            ),
            None => assert_eq!(rebuilt, 0, "{case}"),
        }
        // 4 KiB reads of 4 KiB units: one check per read (the log tenant reads nothing).
        assert_eq!(u(&a["integrity_checks"]), reads, "{case}: the array oracle checked every read");
        for d in 0..devices {
            assert!(
                u(&s["schemes"][format!("unified/dev{d}")]["device"]["integrity_checks"]) > 0,
                "{case}: dev{d}"
            );
        }
    }
}

/// IODA's fail-fast reads (`[array] fail_fast`): a piece whose device is busy with background
/// work fails at once (no device request) and is rebuilt, unless another chunk of its row is
/// busy too and the policy picks that one; the array oracle checks every rebuilt read. A
/// write's read-modify-write reads fail fast too and are rebuilt (old data or old parity from
/// the rest of the row, each checked by the oracle), except under `iod3`, the artifact's IOD_3
/// ("let's do reconstruction for rfw other than IOD3", its md `raid5.c`). The host layer's p95
/// sits between its p90 and p99.
#[test]
fn fail_fast_reads_are_rebuilt_within_raid5s_one_chunk() {
    for policy in ["random", "brt", "iod3"] {
        let table = format!("devices = 4\nchunk_kib = 4\nfail_fast = \"{policy}\"");
        let s = run(&array(&["unified"], &table), &["precondition.overwrite_passes=1.0"]);
        let a = &s["array"]["schemes"]["unified"];
        let kv = &a["tenants"]["kv"];
        let (reads, writes) = (u(&kv["read"]["count"]), u(&kv["write"]["count"]));
        let (failed, multi, rebuilt) =
            (u(&kv["reads_failed_fast"]), u(&kv["reads_multi_busy"]), u(&kv["chunks_rebuilt"]));
        let (rmw_failed, rmw_rebuilt) = (u(&kv["rmw_reads_failed_fast"]), u(&kv["rmw_reads_rebuilt"]));
        assert!(
            failed > 0 && rebuilt > 0,
            "{policy}: GC made reads fail fast ({failed}) and rebuilt ({rebuilt})"
        );
        assert!(multi <= failed && rebuilt <= failed, "{policy}: {multi} {rebuilt} of {failed}");
        assert!(failed - rebuilt <= multi, "{policy}: a failed read not rebuilt had another busy chunk");
        assert!(failed - multi <= rebuilt, "{policy}: a failed read with no other busy chunk is rebuilt");
        if policy == "iod3" {
            assert_eq!((rmw_failed, rmw_rebuilt), (0, 0), "iod3: read-modify-write reads are not flagged");
        } else {
            assert!(rmw_rebuilt > 0 && rmw_rebuilt <= rmw_failed, "{policy}: {rmw_rebuilt} of {rmw_failed}");
        }
        let dev_reads: u64 = (0..4)
            .map(|d| u(&s["schemes"][format!("unified/dev{d}")]["tenants"]["kv"]["read"]["count"]))
            .sum();
        assert_eq!(
            dev_reads,
            reads - rebuilt + 3 * rebuilt + 2 * writes - rmw_rebuilt + 3 * rmw_rebuilt,
            "{policy}: a fail-fast probe sends nothing"
        );
        assert_eq!(u(&a["integrity_checks"]), reads + rmw_rebuilt, "{policy}");
        let r = &kv["read"];
        let p = |k: &str| r[k].as_f64().unwrap();
        assert!(p("p90_us") <= p("p95_us") && p("p95_us") <= p("p99_us"), "{policy}: {r}");
    }
}

/// `iod` on every device with host-requested windows: 100 ms Non-Deterministic of each 400 ms,
/// per set.
const IOD_HOST: &str = r#"
[scheme.iod]
by = "die"
shares = [2, 2]
windows = "host"
host_cycle_ms = 400.0
host_ndwin_ms = 50.0
dtwin_time_ms_max = 400.0
ndwin_time_ms_min = 50.0
"#;

/// IODA's staggered windows (`[array] stagger`): device i's schedule shifted by i x 100 ms, so
/// no two devices of a row are in a Non-Deterministic Window at once. A read's probe then never
/// finds two busy chunks in its row unless a device collected outside its window (an
/// excursion, a die down to its reserve: forced GC, which IODA's FEMU also lets through); with
/// the windows aligned (no stagger) it does. The run asserts there was no excursion, or the
/// check would not be one.
#[test]
fn staggered_windows_keep_a_row_to_one_busy_chunk() {
    let mut multi = Vec::new();
    for stagger in [true, false] {
        let table =
            format!("devices = 4\nchunk_kib = 4\nfail_fast = \"brt\"\nstagger = {stagger}\n{IOD_HOST}");
        let s = run(
            &array(&["iod"], &table),
            &[
                "precondition.overwrite_passes=1.0",
                "tenants.0.synthetic.requests=4000",
                "measure.warmup_s=0.4",
            ],
        );
        for d in 0..4 {
            let c = &s["schemes"][format!("iod/dev{d}")]["scheme_counters"];
            assert_eq!(c["excursion_dies"].as_f64(), Some(0.0), "stagger {stagger}, dev{d}: an excursion");
        }
        let kv = &s["array"]["schemes"]["iod"]["tenants"]["kv"];
        assert!(u(&kv["reads_failed_fast"]) > 0, "stagger {stagger}: GC met reads");
        multi.push(u(&kv["reads_multi_busy"]));
    }
    assert_eq!(multi[0], 0, "staggered: at most one busy chunk per row");
    assert!(multi[1] > 0, "aligned windows: rows with two busy chunks ({multi:?})");
}

/// A closed-loop array tenant of queue depth 1 issues its next request when the last one
/// completes: its reads' latencies add up to the run's length, less the one cut at the end.
#[test]
fn a_closed_loop_tenant_keeps_its_queue_depth() {
    let text = array(&["unified"], "devices = 3\nchunk_kib = 4");
    let closed = [
        "tenants.0.queue_depth=1",
        "tenants.0.synthetic.arrival=\"closed\"",
        "tenants.0.synthetic.read_ratio=1.0",
        "tenants.0.synthetic.requests=1000000",
        "measure.duration_s=0.5",
    ];
    let s = run(&text, &closed);
    let r = &s["array"]["schemes"]["unified"]["tenants"]["kv"]["read"];
    let sum_us = r["count"].as_f64().unwrap() * r["mean_us"].as_f64().unwrap();
    let max_us = r["max_us"].as_f64().unwrap();
    // The mean is rounded to the ns: the sum is known within a ns per read.
    let tol_us = r["count"].as_f64().unwrap() * 1e-3;
    assert!(r["count"].as_u64().unwrap() > 100, "{r}");
    assert!(
        sum_us <= 0.5e6 + tol_us && sum_us >= 0.5e6 - max_us - tol_us,
        "{sum_us} µs of reads in 0.5 s, max {max_us}"
    );
}

/// IODA's "Ideal (NoGC) mode" (`device.background_free`, FEMU with its GC delay off): GC still
/// runs on every device (it erases, its copies pass the integrity oracle), but costs no die
/// time, so the devices are less busy for the same host work and the host layer's read tail
/// is shorter than with GC timed (the same scenario and seed otherwise). Not on the Cosmos
/// board, which times every operation (an error naming the key).
#[test]
fn ideal_background_work_runs_and_costs_no_time() {
    let mut tails = Vec::new();
    let mut busy = Vec::new();
    for free in [false, true] {
        let set = format!("device.background_free={free}");
        let s = run(
            &array(&["unified"], "devices = 4\nchunk_kib = 4"),
            &["precondition.overwrite_passes=1.0", &set],
        );
        let mut util = 0.0;
        for d in 0..4 {
            let dev = &s["schemes"][format!("unified/dev{d}")]["device"];
            assert!(u(&dev["erases"]) > 0, "free {free}, dev{d}: GC ran");
            util += dev["die_utilisation_mean"].as_f64().unwrap();
        }
        busy.push(util);
        tails.push(s["array"]["schemes"]["unified"]["tenants"]["kv"]["read"]["p999_us"].as_f64().unwrap());
    }
    assert!(busy[1] < busy[0], "background work took die time: {busy:?}");
    assert!(tails[1] < tails[0], "the read tail with free background work: {tails:?}");
    let cosmos = "seed = 1\nschemes = [\"unified\"]\n[device]\npreset = \"cosmos\"\nbackground_free = true\n\
                  [[tenants]]\nname = \"a\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\n\
                  pattern = \"uniform\"\nread_ratio = 1.0\n";
    let err = run_raw(cosmos, &[]).expect_err("background_free on the board").to_string();
    assert!(err.contains("device.background_free") && err.contains("board"), "{err}");
}
