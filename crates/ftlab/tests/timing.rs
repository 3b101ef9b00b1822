//! Timing sanity (DESIGN §4): a read costs tR plus its transfer on the channel bus; reads on
//! different channels overlap; reads on the ways of one channel serialise on the bus.
//! Expected values are computed from the preset's datasheet numbers, not taken from a run.

mod common;

use common::{metric, run, temp_file};

/// The `tiny` preset's timing: read 25 us, 333 MT/s x 8-bit bus.
const T_READ_NS: f64 = 25_000.0;
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
