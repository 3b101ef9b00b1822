//! Tests of the `wao-gc` scheme against the PaRT-FTL paper's account of WAO-GC
//! (`../shared/papers/part-ftl-partitioned-real-time-flash.txt`, §IV Eq. 12-13, §V-A): the
//! space bound, the refusals of a device or knob outside it, and that partial steps keep the
//! worst write within Eq. 13's bound where a whole-block GC would not.

use crate::common;

use common::{run, run_raw, tiny_on};
use ftlab::internals::rt::wao_gc::lambda_max;
use ftlab::FtlabError;

/// One closed-loop writer of single 4 KiB pages at queue depth 1, on `tiny` (4 dies, 64
/// blocks of 64 pages) with over-provisioning `op`, preconditioned full and overwritten so GC
/// runs from the start.
fn scenario(op: f64, scheme_table: &str, requests: u32) -> String {
    tiny_on(
        &["wao-gc"],
        &format!("over_provisioning = {op}"),
        &format!(
            "[ftl]\nbackground_gc = false\n[precondition]\nfill_fraction = 1.0\noverwrite_passes = \
             1.0\n[scheme.wao-gc]\n{scheme_table}\n"
        ),
        &format!(
            "[[tenants]]\nname = \"w\"\nnamespace_fraction = 1.0\nqueue_depth = \
             1\n[tenants.synthetic]\nread_ratio = 0.0\nsizes = [{{ bytes = 4096, weight = 1.0 }}]\narrival \
             = \"closed\"\nrequests = {requests}\n"
        ),
    )
}

fn config_error(text: &str) -> (String, String) {
    match run_raw(text, &[]) {
        Err(FtlabError::Config { key, reason, .. }) => (key, reason),
        Err(e) => panic!("expected a config error, got {e}"),
        Ok(_) => panic!("accepted a scenario outside the bound"),
    }
}

#[test]
fn eq12_bound_is_the_papers_66_4_percent() {
    // §V-A: P = 256, c = 2: (P−1)c / ((c+1)P) = 255·2 / (3·256) = 510/768 = 0.6640625 ("66.4%").
    assert_eq!(lambda_max(256, 2), 510.0 / 768.0);
    assert!((lambda_max(256, 2) - 0.664).abs() < 5e-4);
    // tiny's 64-page blocks: 63·2 / (3·64) = 126/192 = 0.65625; one copy per step halves the room.
    assert_eq!(lambda_max(64, 2), 126.0 / 192.0);
    assert_eq!(lambda_max(64, 1), 63.0 / 128.0);
}

/// §IV-B worked by hand with the paper's P = 256 and c = 2. At Eq. 12's maximum,
/// λ = 510/768: v = ⌈λ·256⌉ = ⌈170⌉ = 170 valid pages, n = ⌈170/2⌉ + 1 = 86 steps, and
/// n + v = 256 = P: the free block is exactly used up, one step after every write (§VI-A).
/// At §V-A's λ = 0.482: v = ⌈123.392⌉ = 124, n = 62 + 1 = 63, and 63 steps among the
/// P − v = 132 writes the reclaimed block takes; λ / λ_max = 0.482 · 768/510 = 0.72584,
/// §VI-A's "72.5% of the maximum value". One more valid page than the maximum allows breaks
/// n + v ≤ P: v = 171, n = 87, 258 > 256.
#[test]
fn steps_per_write_and_the_bound_match_section_4b_by_hand() {
    use ftlab::internals::rt::wao_gc::{one_block_suffices, steps_per_reclaim, trigger_share};
    assert_eq!(steps_per_reclaim(170, 2), 86);
    assert_eq!(steps_per_reclaim(170, 2) + 170, 256);
    assert!(one_block_suffices(510.0 / 768.0, 256, 2));
    assert_eq!(steps_per_reclaim(124, 2), 63);
    assert!(one_block_suffices(0.482, 256, 2));
    assert_eq!(steps_per_reclaim(171, 2) + 171, 258);
    assert!(!one_block_suffices(171.0 / 256.0, 256, 2));
    assert!((trigger_share(0.482, 256, 2) - 0.482 * 768.0 / 510.0).abs() < 1e-12);
    assert!((trigger_share(0.482, 256, 2) - 0.7258).abs() < 1e-4);
    // c = 1: n = v + 1, so v ≤ (P − 1)/2 = 127; Eq. 12 gives 255/512 = 0.498, ⌈0.498·256⌉ = 128
    // pages would be one too many, which is why Eq. 12 is strict (<).
    assert_eq!(lambda_max(256, 1), 255.0 / 512.0);
    assert!(one_block_suffices(127.0 / 256.0, 256, 1) && !one_block_suffices(128.0 / 256.0, 256, 1));
}

#[test]
fn refuses_a_device_outside_eq12_with_its_terms() {
    // Over-provisioning 0.25: λ = 1/1.25 = 0.8 ≥ 0.65625.
    let (key, reason) = config_error(&scenario(0.25, "", 10));
    assert_eq!(key, "scheme.wao-gc.copies_per_step");
    for frag in ["Eq. 12", "λ = 1/(1 + device.over_provisioning) = 0.8000", "0.6562", "P = 64", "c = 2"] {
        assert!(reason.contains(frag), "{frag:?} not in {reason:?}");
    }
    // The same device passes with more copies per step: λ_max(64, 8) = 63·8/(9·64) = 0.875.
    run(&scenario(0.25, "copies_per_step = 8", 10), &[]);
}

#[test]
fn refuses_a_trigger_at_or_below_the_engines_watermark() {
    let (key, reason) = config_error(&format!("{}\n", scenario(0.6, "trigger_free_blocks = 1", 10)));
    assert_eq!(key, "scheme.wao-gc.trigger_free_blocks");
    assert!(reason.contains("above ftl.gc_low_watermark_blocks"), "{reason}");
    let (key, _) = config_error(&scenario(0.6, "copies_per_step = 0", 10));
    assert_eq!(key, "scheme.wao-gc.copies_per_step");
}

#[test]
fn partial_steps_keep_the_worst_write_within_eq13() {
    // Over-provisioning 0.6: λ = 0.625 < 0.65625 (Eq. 12 holds, barely, as in the paper).
    let s = run(&scenario(0.6, "", 30_000), &[]);
    let wao = &s["schemes"]["wao-gc"];
    let steps = wao["scheme_counters"]["steps"].as_f64().expect("steps");
    assert!(steps > 1000.0, "the writer never made the dies step: {steps}");
    assert!(wao["jobs"]["gc"]["erases"].as_f64().unwrap() > 100.0, "steps reclaimed nothing: {wao}");
    // Eq. 13: t_w + max(t_e, c(t_r + t_w)), with tiny's timing (mlc_fast: tR 25 us, tPROG
    // 200 us, tBERS 1.5 ms, 333 MT/s x 8 bit, no command cycles): a 4 KiB page moves over the
    // bus in 4096 / 333e6 s = 12300.3 ns, 12301 ns as the engine rounds a transfer up to whole
    // nanoseconds, so t_r = 25000 + 12301 ns, t_w = 12301 + 200000 ns, t_e = 1500000 ns, and
    // with c = 2: 212301 + max(1500000, 2 · 249602) = 1712301 ns. A whole-block GC (up to
    // 0.625 · 64 = 40 copies, about 10 ms) would blow it. The summary prints microseconds to
    // 3 decimals (1 ns).
    let xfer_ns = (4096u64 * 1_000_000_000).div_ceil(333_000_000);
    let (t_r, t_w, t_e) = (25_000 + xfer_ns, xfer_ns + 200_000, 1_500_000);
    let bound_us = (t_w + u64::max(t_e, 2 * (t_r + t_w))) as f64 / 1000.0;
    let write = &wao["tenants"]["w"]["write"];
    let max_us = write["max_us"].as_f64().unwrap_or_else(|| panic!("no max_us in {write}"));
    assert!(max_us <= bound_us + 0.0005, "worst write {max_us} us above Eq. 13's {bound_us} us");
}

/// One die (tiny with 1 channel × 1 die, over-provisioning 0.6, full and overwritten once):
/// single-page writes every 10 ms, each followed 1 µs later by a single-page read, traced
/// (MQSim ASCII: ns, device, 512-byte sector, sectors, 0 = write / 1 = read). Every unit
/// (the write's program and its step) ends long before the next write. Writes go to units
/// 0..1000 and reads to 1000..2000, so no read finds its data in flight.
fn one_die_write_then_read(n: u64) -> String {
    let trace: String = (0..n)
        .map(|k| {
            let t = k * 10_000_000;
            format!(
                "{t} 0 {} 8 0\n{} 0 {} 8 1\n",
                (k * 7919 % 1000) * 8,
                t + 1000,
                (1000 + k * 104_729 % 1000) * 8
            )
        })
        .collect();
    let path = common::temp_file(&format!("wao-unit-{n}.trace"), &trace);
    tiny_on(
        &["wao-gc"],
        "channels = 1\nchips_per_channel = 1\nover_provisioning = 0.6",
        "[ftl]\nbackground_gc = false\n[precondition]\nfill_fraction = 1.0\noverwrite_passes = 1.0\n",
        &format!(
            "[[tenants]]\nname = \"t\"\nnamespace_fraction = 1.0\nqueue_depth = 4\n[tenants.trace]\npath = \
             \"{}\"\nformat = \"mqsim\"\n",
            path.display()
        ),
    )
}

/// Eq. 14 worked by hand on `tiny`'s times: a read that reaches a die 1 µs after a write's
/// program started waits for the whole write-and-step unit, then reads. With tiny's timing
/// (tR 25 µs, tPROG 200 µs, tBERS 1.5 ms, a 4 KiB page over the bus in 12,301 ns):
/// t_r = 37,301 ns, t_w = 212,301 ns, a copy step c(t_r + t_w) = 2 · 249,602 = 499,204 ns, an
/// erase step t_e = 1,500,000 ns. The read's latency is (t_w − 1 µs) + S + t_r with S the
/// step that followed the write: 0 (no step), 249,602 or 499,204 (copies), or 1,500,000 (the
/// victim's erase). The worst, with an erase step, is Eq. 14 less the 1 µs:
/// 37,301 + 212,301 + 1,500,000 − 1,000 = 1,748,602 ns. With the step as a plain job (its
/// operations queued apart from the write, before this change) the same run's worst read
/// was 1,536,301 ns, t_e + t_r − 1 µs: the read waited for an erase but not for the write.
#[test]
fn a_read_waits_for_the_whole_write_and_step_unit() {
    let n = 400u64;
    let s = run(&one_die_write_then_read(n), &[]);
    let wao = &s["schemes"]["wao-gc"];
    let xfer_ns = (4096u64 * 1_000_000_000).div_ceil(333_000_000);
    let (t_r, t_w, t_e, c) = (25_000 + xfer_ns, xfer_ns + 200_000, 1_500_000u64, 2u64);
    assert_eq!((t_r, t_w), (37_301, 212_301));
    let read = &wao["tenants"]["t"]["read"];
    assert_eq!(read["count"].as_f64(), Some(n as f64));
    let erases = wao["jobs"]["gc"]["erases"].as_f64().unwrap();
    assert!(erases >= 1.0, "no victim was erased in a step: {wao}");
    // Every step is one of the four kinds above, so every read is one of four latencies.
    let allowed: Vec<u64> =
        [0, t_r + t_w, c * (t_r + t_w), t_e].iter().map(|step| t_w - 1000 + step + t_r).collect();
    let max_us = read["max_us"].as_f64().unwrap();
    let eq14_ns = t_r + t_w + u64::max(t_e, c * (t_r + t_w));
    assert_eq!(
        max_us,
        (eq14_ns - 1000) as f64 / 1000.0,
        "the worst read is not Eq. 14 less 1 µs (allowed {allowed:?} ns)"
    );
    let mean_us = read["mean_us"].as_f64().unwrap();
    assert!(
        mean_us >= allowed[0] as f64 / 1000.0 && mean_us < max_us,
        "mean {mean_us} µs outside [{}, {max_us})",
        allowed[0]
    );
    // Each read waited behind its write's program at least.
    assert_eq!(wao["device"]["reads_blocked"].as_f64(), Some(n as f64));
    assert!(wao["jobs"]["gc"]["page_reads"].as_f64().unwrap() > 0.0, "no copy step: {wao}");
}
