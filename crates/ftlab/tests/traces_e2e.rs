//! The real trace samples of the repository's `data/traces` replayed end to end, timed, as
//! tenants of one device under both schemes with the integrity oracle on: every request
//! completes and the counts match the parsers'.

mod common;

use common::{metric, run, traces_dir};
use ftlab::workload::TraceFormat;

#[test]
fn real_samples_replay_under_both_schemes() {
    let dir = traces_dir();
    let samples = [("msr", "msr-hm0-sample.csv", TraceFormat::Msr), ("systor", "systor17-sample.csv", TraceFormat::Systor), ("mqsim", "tpcc-small.trace", TraceFormat::Mqsim)];
    let mut tenants = String::new();
    for (name, file, format) in samples {
        tenants += &format!(
            "[[tenants]]\nname = \"{name}\"\nnamespace_fraction = 0.2\n[tenants.trace]\npath = \"{}\"\nformat = \"{}\"\naddress_map = \"wrap\"\n",
            dir.join(file).display(),
            format.name()
        );
    }
    let text = common::tiny(&["unified", "partitioned"], "[scheme.partitioned]\nby = \"die\"\nshares = [1, 1, 2]\n", &tenants);
    let s = run(&text, &[]);
    for (name, file, format) in samples {
        let stats = ftlab::api::trace_stats(&dir.join(file), format).expect("sample parses");
        for scheme in ["unified", "partitioned"] {
            let done = metric(&s, scheme, name, "read", "count") + metric(&s, scheme, name, "write", "count");
            assert_eq!(done as u64, stats.reads + stats.writes, "{scheme}/{name}: every request completes");
        }
    }
    assert!(s["schemes"]["unified"]["device"]["integrity_checks"].as_u64().unwrap() > 0);
}

/// Lines a format skips on purpose are counted in the run's summary, not dropped silently: the
/// vscsi fixture has 3 (a TEST UNIT READY, 0x00; a SYNCHRONIZE CACHE, 0x35; a zero-length
/// WRITE(10)) among 13 records, whose other 10 are reads and writes, and one record whose time
/// goes back (...499 after ...520).
#[test]
fn skipped_trace_records_are_counted_in_the_summary() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces/vscsi.csv");
    let tenants = format!("[[tenants]]\nname = \"v\"\nnamespace_fraction = 0.5\n[tenants.trace]\npath = \"{}\"\nformat = \"vscsi\"\naddress_map = \"wrap\"\n", path.display());
    let s = run(&common::tiny(&["unified"], "", &tenants), &[]);
    let t = &s["schemes"]["unified"]["tenants"]["v"];
    assert_eq!(t["skipped_records"].as_u64(), Some(3), "{t}");
    assert_eq!(t["reordered_arrivals"].as_u64(), Some(1), "{t}");
    let done = metric(&s, "unified", "v", "read", "count") + metric(&s, "unified", "v", "write", "count");
    assert_eq!(done as u64, 10);
}
