//! The real trace samples of `shared/traces` replayed end to end, timed, as tenants of one
//! device under both schemes with the integrity oracle on: every request completes and the
//! counts match the parsers' (skips, with a reason, when the samples are missing).

mod common;

use common::{metric, run, traces_dir};
use ftlab::workload::TraceFormat;

#[test]
fn real_samples_replay_under_both_schemes() {
    let Some(dir) = traces_dir() else { return };
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
