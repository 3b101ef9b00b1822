//! Tests of the `part-ftl` scheme (PaRT-FTL's layout, §III-A): placement on F_w, rotation,
//! parity stripes the oracle checks on every rebuilt read, GC that keeps stripes whole.

mod common;

use common::{run, tiny_on};

/// `tiny` (2 channels x 2 ways: one data way, one parity way) at over-provisioning `op`, one
/// closed-loop tenant of random reads and writes, preconditioned full.
fn scenario(op: f64, requests: u32) -> String {
    tiny_on(
        &["part-ftl"],
        &format!("over_provisioning = {op}"),
        "[precondition]\nfill_fraction = 1.0\noverwrite_passes = 0.5\n",
        &format!("[[tenants]]\nname = \"t\"\nnamespace_fraction = 1.0\nqueue_depth = 8\n[tenants.synthetic]\nread_ratio = 0.5\nsizes = [{{ bytes = 4096, weight = 1.0 }}]\narrival = \"closed\"\nrequests = {requests}\n"),
    )
}

#[test]
fn debug_run() {
    let s = run(&scenario(1.6, 20_000), &[]);
    eprintln!("{}", s["schemes"]["part-ftl"]["scheme_counters"]);
}
