//! Partitioned isolation (the UPI paper's "Partitioned" baseline): a read-only tenant's
//! latency distribution is identical whether or not a write-heavy neighbour runs on the other
//! channel; under `unified` the same neighbour degrades it.

use crate::common;

use common::{metric, reader_writer_pair, run};

/// Tenant `reader` reads 4 KiB at random; tenant `writer` writes 64 KiB at random, starting at
/// `writer_start_s` (past the end of the run = "alone"). Two channels, one per tenant.
fn scenario(writer_start_s: f64) -> String {
    reader_writer_pair(0.0, writer_start_s)
}

const KEYS: [&str; 9] =
    ["count", "mean_us", "p50_us", "p90_us", "p99_us", "p999_us", "p9999_us", "max_us", "bytes"];

#[test]
fn partitioned_reader_is_unaffected_by_a_writer_on_other_channels() {
    let alone = run(&scenario(1000.0), &[]);
    let shared = run(&scenario(0.0), &[]);
    assert!(
        metric(&shared, "partitioned", "writer", "write", "count") > 100.0,
        "the neighbour must actually write"
    );
    assert!(metric(&alone, "partitioned", "reader", "read", "count") > 1000.0);
    for key in KEYS {
        assert_eq!(
            metric(&alone, "partitioned", "reader", "read", key),
            metric(&shared, "partitioned", "reader", "read", key),
            "partitioned reader's read {key} changed with a neighbour"
        );
    }
}

#[test]
fn unified_reader_degrades_beside_a_writer() {
    let alone = run(&scenario(1000.0), &[]);
    let shared = run(&scenario(0.0), &[]);
    for key in ["mean_us", "p99_us"] {
        let (a, s) = (
            metric(&alone, "unified", "reader", "read", key),
            metric(&shared, "unified", "reader", "read", key),
        );
        assert!(s > a * 1.5, "unified reader's {key} should degrade clearly: alone {a}, shared {s}");
    }
}
