//! The real trace samples of the repository's `data/traces` replayed end to end, timed, as
//! tenants of one device under both schemes with the integrity oracle on: every request
//! completes and the counts match the parsers'.

use crate::common;

use common::{metric, run, traces_dir};
use ftlab::TraceFormat;

#[test]
fn real_samples_replay_under_both_schemes() {
    let dir = traces_dir();
    let samples = [
        ("msr", "msr-hm0-sample.csv", TraceFormat::Msr),
        ("systor", "systor17-sample.csv", TraceFormat::Systor),
        ("mqsim", "tpcc-small.trace", TraceFormat::Mqsim),
    ];
    let mut tenants = String::new();
    for (name, file, format) in samples {
        tenants += &format!(
            "[[tenants]]\nname = \"{name}\"\nnamespace_fraction = 0.2\n[tenants.trace]\npath = \
             \"{}\"\nformat = \"{}\"\naddress_map = \"wrap\"\n",
            dir.join(file).display(),
            format.name()
        );
    }
    let text = common::tiny(
        &["unified", "partitioned"],
        "[scheme.partitioned]\nby = \"die\"\nshares = [1, 1, 2]\n",
        &tenants,
    );
    let s = run(&text, &[]);
    for (name, file, format) in samples {
        let stats = ftlab::trace_stats(&dir.join(file), format).expect("sample parses");
        for scheme in ["unified", "partitioned"] {
            let done = metric(&s, scheme, name, "read", "count") + metric(&s, scheme, name, "write", "count");
            assert_eq!(done as u64, stats.reads + stats.writes, "{scheme}/{name}: every request completes");
        }
    }
    assert!(s["schemes"]["unified"]["device"]["integrity_checks"].as_u64().unwrap() > 0);
}

/// Lines a format skips on purpose are counted in the run's summary, not dropped silently: the
/// vscsi fixture has 3 (a TEST UNIT READY, 00; an UNMAP, 42; a zero-length WRITE(10)) among
/// 13 records, whose other 10 are reads and writes, and one record whose time goes back
/// (33901.5 s after 33902 s, the last record replayed).
#[test]
fn skipped_trace_records_are_counted_in_the_summary() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces/vscsi.csv");
    let tenants = format!(
        "[[tenants]]\nname = \"v\"\nnamespace_fraction = 0.5\n[tenants.trace]\npath = \"{}\"\nformat = \
         \"vscsi\"\naddress_map = \"wrap\"\n",
        path.display()
    );
    let s = run(&common::tiny(&["unified"], "", &tenants), &[]);
    let t = &s["schemes"]["unified"]["tenants"]["v"];
    assert_eq!(t["skipped_records"].as_u64(), Some(3), "{t}");
    assert_eq!(t["reordered_arrivals"].as_u64(), Some(1), "{t}");
    let done = metric(&s, "unified", "v", "read", "count") + metric(&s, "unified", "v", "write", "count");
    assert_eq!(done as u64, 10);
}

/// A trace cut by the run is reported: `records_not_replayed` counts the trace's request
/// records that did not arrive, whatever stopped them, and not the records the format skips.
/// The trace: one 4 KiB WRITE(10) a second at 0..9 s (10 requests), and a SYNCHRONIZE CACHE
/// (skipped) at 8.5 s; the tenant starts at 0 and the trace is rebased on its first record.
#[test]
fn records_a_cut_leaves_out_are_counted() {
    let mut text = String::from("version,time,op,size,lbn\n");
    for t in 0..10 {
        text += &format!("1,{t},2a,4096,{}\n", 8 * t);
        if t == 8 {
            text += "1,8.5,35,0,0\n";
        }
    }
    let path = common::temp_file("cut.csv", &text);
    let tenants = |trace_keys: &str, tenant_keys: &str| {
        format!(
            "[[tenants]]\nname = \"v\"\nnamespace_fraction = 0.5\n{tenant_keys}\n[tenants.trace]\npath = \
             \"{}\"\nformat = \"vscsi\"\n{trace_keys}\n[[tenants]]\nname = \"gen\"\nnamespace_fraction = \
             0.25\n[tenants.synthetic]\nrequests = 5\n",
            path.display()
        )
    };
    // (what cuts it, trace keys, tenant keys, scenario tables, records not replayed, writes)
    let cases = [
        ("nothing: the whole trace", "", "", "", 0, 10),
        // Arrivals at 0..4 s are replayed; 5..9 s are not (5).
        ("measure.duration_s = 4.5", "", "", "[measure]\nduration_s = 4.5\n", 5, 5),
        // 0, 1 and 2 s are issued; 3 s is read and cut at the end, 4..9 s are left (1 + 6).
        ("the tenant's duration_s = 2.5", "", "duration_s = 2.5", "", 7, 3),
        ("max_requests = 3", "max_requests = 3", "", "", 7, 3),
        ("closed-loop replay, max_requests = 4", "replay = \"closed\"\nmax_requests = 4", "", "", 6, 4),
    ];
    for (name, trace_keys, tenant_keys, extra, not_replayed, writes) in cases {
        let s = run(&common::tiny(&["unified"], extra, &tenants(trace_keys, tenant_keys)), &[]);
        let t = &s["schemes"]["unified"]["tenants"]["v"];
        assert_eq!(t["records_not_replayed"].as_u64(), Some(not_replayed), "{name}: {t}");
        assert_eq!(metric(&s, "unified", "v", "write", "count") as u64, writes, "{name}");
        // Only the skip read before the cut is counted: the one at 8.5 s when 8 s is replayed.
        assert_eq!(t["skipped_records"].as_u64(), Some(u64::from(writes >= 9)), "{name}: {t}");
        // A generated workload is never cut: 0.
        assert_eq!(
            s["schemes"]["unified"]["tenants"]["gen"]["records_not_replayed"].as_u64(),
            Some(0),
            "{name}"
        );
    }
}
