//! Tests of the `part-ftl` scheme (PaRT-FTL's layout, `../shared/papers/part-ftl-partitioned-
//! real-time-flash.txt` §III-A, §V-A): writes on the rotating write set, parity rows sealed and
//! programmed, reads of write dies rebuilt (the integrity oracle, on in every run here, checks
//! each rebuild against the XOR of what its stripe held when sealed), GC that copies out the
//! oldest group and erases only what no live stripe needs, and the refusals.

mod common;

use common::{run, run_raw, tiny_on};
use ftlab::FtlabError;

/// `tiny` with 4 ways per channel (3 data ways and a parity way on each of 2 channels) at
/// over-provisioning 1.075: the namespaces take 48.2% of the device, 64.3% of its data dies,
/// the paper's configuration (§V-A). A writer and a reader, closed loop.
fn scenario(op: f64, device: &str, scheme: &str, requests: u32) -> String {
    tiny_on(
        &["part-ftl"],
        &format!("chips_per_channel = 4\nover_provisioning = {op}\n{device}"),
        &format!("[precondition]\nfill_fraction = 1.0\noverwrite_passes = 0.5\n[scheme.part-ftl]\n{scheme}\n"),
        &format!(
            "[[tenants]]\nname = \"w\"\nnamespace_fraction = 0.5\nqueue_depth = 8\n[tenants.synthetic]\nread_ratio = 0.0\nsizes = [{{ bytes = 4096, weight = 1.0 }}]\narrival = \"closed\"\nrequests = {requests}\n\
             [[tenants]]\nname = \"r\"\nnamespace_fraction = 0.5\nqueue_depth = 4\n[tenants.synthetic]\nread_ratio = 1.0\nsizes = [{{ bytes = 4096, weight = 1.0 }}]\narrival = \"closed\"\nrequests = {requests}\n"
        ),
    )
}

fn config_error(text: &str) -> (String, String) {
    match run_raw(text, &[]) {
        Err(FtlabError::Config { key, reason, .. }) => (key, reason),
        Err(e) => panic!("expected a config error, got {e}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn writes_rotate_parity_is_programmed_reads_are_rebuilt_and_gc_keeps_stripes() {
    let s = run(&scenario(1.075, "", "", 30_000), &[]);
    eprintln!("{}", s["schemes"]["part-ftl"]);
    let p = &s["schemes"]["part-ftl"];
    let counter = |k: &str| p["scheme_counters"][k].as_f64().unwrap_or_else(|| panic!("no counter {k}: {p}"));
    // Rotation: a turn ends after one block (64 pages) per write die of the 2 channels.
    assert!(counter("rotations") > 10.0, "F_w never rotated");
    // Parity: one program per row of each sealed group.
    let parity = p["jobs"]["parity"]["started"].as_f64().unwrap();
    assert!(parity > 1000.0, "parity programs: {parity}");
    assert_eq!(p["jobs"]["parity_dropped"].as_f64(), Some(0.0), "a sealed row lost its data before its parity");
    // Reads of pages on the write dies were rebuilt, each one checked by the oracle (a wrong
    // rebuild panics), and the oracle ran.
    let rebuilt = p["device"]["rebuilt_reads"].as_f64().unwrap();
    assert!(rebuilt > 100.0, "rebuilt reads: {rebuilt}");
    assert!(p["integrity_checks"].as_f64().unwrap() > 30_000.0);
    // GC: copy-only migrations of the oldest group, then erases.
    assert!(counter("copy_out_blocks") > 10.0 && p["jobs"]["sources_left"].as_f64().unwrap() > 10.0, "no copy-out: {p}");
    assert!(p["jobs"]["gc"]["erases"].as_f64().unwrap() > 10.0, "copied-out groups were never erased: {p}");
}

#[test]
fn refuses_a_device_it_cannot_lay_out() {
    // One die per channel: no way left for parity.
    let (key, reason) = config_error(&scenario(1.075, "chips_per_channel = 1", "", 10).replace("chips_per_channel = 4\n", ""));
    assert_eq!(key, "scheme.part-ftl");
    assert!(reason.contains("needs 2 to 16 dies per channel") && reason.contains("has 1"), "{reason}");
    // 25% over-provisioning: 80% of the device's units do not fit in its 6 data dies of 8.
    let (key, reason) = config_error(&scenario(0.25, "", "", 10));
    assert_eq!(key, "scheme.part-ftl");
    assert!(reason.contains("do not fit in the 6 data dies") && reason.contains("raise device.over_provisioning to at least"), "{reason}");
    // The trigger must be above the engine's low watermark (tiny: 4 = reserve 0... see the error).
    let (key, reason) = config_error(&scenario(1.075, "", "gc_trigger_free_blocks = 1", 10));
    assert_eq!(key, "scheme.part-ftl.gc_trigger_free_blocks");
    assert!(reason.contains("above ftl.gc_low_watermark_blocks"), "{reason}");
    let (key, _) = config_error(&scenario(1.075, "", "copy_reads_in_flight = 0", 10));
    assert_eq!(key, "scheme.part-ftl.copy_reads_in_flight");
}
