//! Timing sanity (DESIGN §4): a read costs tR plus its transfer on the channel bus; reads on
//! different channels overlap; reads on the ways of one channel serialise on the bus.
//! Expected values are computed from the preset's datasheet numbers, not taken from a run.

use crate::common;

use common::{metric, run, temp_file};

/// The `tiny` preset's timing: read 25 us, program 200 us, 333 MT/s x 8-bit bus; and the
/// default suspend latency, 20 us.
const T_READ_NS: f64 = 25_000.0;
const T_PROG_NS: f64 = 200_000.0;
const T_SUS_NS: f64 = 20_000.0;
/// 4096 bytes at 333e6 transfers/s of 1 byte, rounded up to whole ns (Timing::transfer).
fn xfer_ns(bytes: u64) -> f64 {
    (bytes * 1_000_000_000).div_ceil(333_000_000) as f64
}

/// Reads of units 0..n at time 0 (MQSim ASCII: ns, device, lba sectors, size sectors, 1=read).
fn reads_at_zero(n: u64) -> String {
    (0..n).map(|i| format!("0 0 {} 8 1\n", i * 8)).collect()
}

/// One tenant over the whole device, filled sequentially so consecutive units land on
/// consecutive dies in channel-first order (unified striping), no background GC.
fn scenario(channels: u32, chips: u32, trace: &std::path::Path) -> String {
    format!(
        r#"seed = 1
schemes = ["unified"]
[device]
preset = "tiny"
channels = {channels}
chips_per_channel = {chips}
[ftl]
background_gc = false
[precondition]
fill_fraction = 1.0
order = "sequential"
overwrite_passes = 0.0
[[tenants]]
name = "t"
namespace_fraction = 1.0
queue_depth = 8
[tenants.trace]
path = "{}"
format = "mqsim"
"#,
        trace.display()
    )
}

fn read_latencies_us(channels: u32, chips: u32, n: u64) -> (f64, f64) {
    let trace = temp_file(&format!("reads-{channels}x{chips}-{n}.trace"), &reads_at_zero(n));
    let s = run(&scenario(channels, chips, &trace), &[]);
    assert_eq!(metric(&s, "unified", "t", "read", "count"), n as f64);
    (metric(&s, "unified", "t", "read", "mean_us"), metric(&s, "unified", "t", "read", "max_us"))
}

#[test]
fn one_read_costs_tr_plus_transfer() {
    let (mean, max) = read_latencies_us(2, 2, 1);
    let want = (T_READ_NS + xfer_ns(4096)) / 1e3;
    assert_eq!(mean, want);
    assert_eq!(max, want);
}

#[test]
fn reads_on_four_channels_overlap() {
    // Four dies on four channels: every read finishes at tR + one transfer.
    let (mean, max) = read_latencies_us(4, 1, 4);
    let want = (T_READ_NS + xfer_ns(4096)) / 1e3;
    assert_eq!(mean, want);
    assert_eq!(max, want);
}

#[test]
fn reads_on_four_ways_serialise_on_the_bus() {
    // Four dies on one channel: the array reads overlap, the transfers queue on the bus:
    // read k (1-based) completes at tR + k * transfer, so the mean is tR + 2.5 transfers.
    let (mean, max) = read_latencies_us(1, 4, 4);
    let x = xfer_ns(4096);
    assert_eq!(max, (T_READ_NS + 4.0 * x) / 1e3);
    let mean_want = (T_READ_NS + 2.5 * x) / 1e3;
    assert!((mean - mean_want).abs() < 1e-3, "mean {mean} us, want {mean_want} us");
}

/// A write at 0 and a read of another unit on the same (only) die at 50 us.
fn write_then_read(suspend: bool) -> (f64, f64) {
    let trace = temp_file(&format!("suspend-{suspend}.trace"), "0 0 0 8 0\n50000 0 8 8 1\n");
    let text = scenario(1, 1, &trace).replace("[ftl]", &format!("program_erase_suspend = {suspend}\n[ftl]"));
    let s = run(&text, &[]);
    (metric(&s, "unified", "t", "write", "max_us"), metric(&s, "unified", "t", "read", "max_us"))
}

#[test]
fn without_suspend_a_read_waits_for_the_program() {
    // The program holds the die from 0 to transfer + tPROG; the read then takes tR + transfer.
    let (write, read) = write_then_read(false);
    let x = xfer_ns(4096);
    let program_end = x + T_PROG_NS;
    assert_eq!(write, program_end / 1e3);
    assert_eq!(read, (program_end + T_READ_NS + x - 50_000.0) / 1e3);
}

#[test]
fn suspend_lets_a_read_through_and_the_program_resumes() {
    // At 50 us the program is in tPROG: it is suspended (tSUS), the read runs (tR + transfer),
    // then the program resumes (tSUS again) for the tPROG it had left.
    let (write, read) = write_then_read(true);
    let x = xfer_ns(4096);
    let read_end = 50_000.0 + T_SUS_NS + T_READ_NS + x;
    assert_eq!(read, (read_end - 50_000.0) / 1e3);
    let remaining = x + T_PROG_NS - 50_000.0;
    assert_eq!(write, (read_end + T_SUS_NS + remaining) / 1e3);
}

/// A read at 0 keeps the only die busy; an 8 KiB write at 1 ns queues its two page programs
/// behind it. The die has two planes.
fn two_programs_behind_a_read(multi_plane: bool) -> f64 {
    let trace = temp_file(&format!("multiplane-{multi_plane}.trace"), "0 0 40 8 1\n1 0 800 16 0\n");
    let text = scenario(1, 1, &trace).replace(
        "[ftl]",
        &format!("planes_per_die = 2\nblocks_per_plane = 32\nmulti_plane = {multi_plane}\n[ftl]"),
    );
    let s = run(&text, &[]);
    metric(&s, "unified", "t", "write", "max_us")
}

#[test]
fn multi_plane_programs_share_one_tprog() {
    // Pages 0 of the frontier's plane-0 and plane-1 blocks program together: one transfer of
    // both pages (8 KiB), then one tPROG. Without multi-plane they program one after the other.
    let x = xfer_ns(4096);
    let read_end = T_READ_NS + x;
    assert_eq!(two_programs_behind_a_read(true), (read_end + xfer_ns(8192) + T_PROG_NS - 1.0) / 1e3);
    assert_eq!(two_programs_behind_a_read(false), (read_end + 2.0 * x + 2.0 * T_PROG_NS - 1.0) / 1e3);
}
