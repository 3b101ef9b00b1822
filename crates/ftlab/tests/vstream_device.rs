//! Tests of the `vstream` device preset (the vStream paper's device, §5.1 and §4.2) and of the
//! generator features its synthetic benchmark uses (§5.2) run end to end through the engine:
//! parts with their own footprint region and virtual stream, merged round-robin in a closed
//! loop. Expected values come from the paper's numbers and from the timing model of
//! docs/scenario.md, not from the code under test. Not a test of the reproduction's claims
//! (tests/python/test_reproduce_vstream.py).

use crate::common;

use ftlab::internals::scenario::presets::{self, VSTREAM_ONE_SHOT_PAGES, VSTREAM_ONE_SHOT_PROGRAM_US};

#[test]
fn vstream_preset_is_the_papers_device() {
    let d = presets::preset("vstream").expect("listed preset");
    assert!(presets::PRESETS.contains(&"vstream"));
    let dies = d.channels.unwrap() * d.chips_per_channel.unwrap() * d.dies_per_chip.unwrap();
    let blocks_per_die = u64::from(d.planes_per_die.unwrap() * d.blocks_per_plane.unwrap());
    let page = u64::from(d.page_bytes.unwrap());
    let block_bytes = u64::from(d.pages_per_block.unwrap()) * page;
    // §4.2: 4 channels, 2 planes, 16 KiB pages of four 4 KiB logical pages, blocks of 256
    // wordlines x 3 (LSB, CSB, MSB) pages.
    assert_eq!((d.channels, d.planes_per_die), (Some(4), Some(2)));
    assert_eq!((page, d.mapping_unit_bytes), (16_384, Some(4096)));
    assert_eq!(d.pages_per_block, Some(256 * 3));
    // §5.1: 128 GB of 128 Gbit (16 GiB) dies with 7% over-provisioning: 8 dies, each with
    // at least 16 GiB and less than one block more.
    assert_eq!(dies, 8);
    let die_bytes = blocks_per_die * block_bytes;
    assert!(die_bytes >= 16 << 30 && die_bytes < (16 << 30) + block_bytes, "{die_bytes}");
    assert_eq!(d.over_provisioning, Some(0.07));
    // [11]: a one-shot program of 3 pages in 700 us; 1 Gb/s per pin on an 8-bit bus.
    let t = &d.timing;
    assert_eq!((VSTREAM_ONE_SHOT_PROGRAM_US, VSTREAM_ONE_SHOT_PAGES), (700.0, 3.0));
    assert!((t.program_us.unwrap() * 3.0 - 700.0).abs() < 1e-9);
    assert_eq!((t.channel_mts, t.channel_width_bits), (Some(1000), Some(8)));
}

/// A reduced vStream device (the preset's dies, pages and timing, 24 blocks per plane, enough
/// for its 7% over-provisioning to hold the namespace beside the GC reserve) with
/// no GC in the way: empty, written once by sequential 128 KiB writes at queue depth 32.
fn reduced(parts: &str) -> String {
    format!(
        "seed = 3\nschemes = [\"unified\"]\nstream_mapper = \"vstream\"\n[device]\npreset = \
         \"vstream\"\nblocks_per_plane = 24\n[ftl]\nphysical_streams = \
         4\n[stream.vstream]\nstamp_group_pages = 3\n[precondition]\nfill_fraction = \
         0.0\n[check]\nintegrity = true\n[[tenants]]\nname = \"t\"\nnamespace_fraction = 1.0\nqueue_depth = \
         32\n{parts}"
    )
}

fn part(offset: f64, fraction: f64, stream: u32, requests: u64) -> String {
    format!(
        "[[tenants.synthetic]]\narrival = \"closed\"\npattern = \"sequential\"\nsizes = [{{ bytes = 131072 \
         }}]\nalign_bytes = 131072\nfootprint_offset_fraction = {offset}\nfootprint_fraction = \
         {fraction}\nstream = {stream}\nrequests = {requests}\n"
    )
}

#[test]
fn one_shot_representation_keeps_the_dies_program_bandwidth() {
    // docs/scenario.md: a program takes the bus for a page's transfer, then the die for tPROG.
    // Sequential writes that never need GC keep every die programming back to back, so the
    // host write bandwidth is at most dies x 16 KiB / (transfer + tPROG) and close to it: the
    // one-shot flash's 48 KiB per 700 us per die, plus the transfers.
    let n = 4000; // 500 MiB: a third of the reduced device, no GC
    let s = common::run(&reduced(&part(0.0, 1.0, 0, n)), &[]);
    let d = &s["schemes"]["unified"]["device"];
    assert_eq!(d["gc_pages_copied"].as_u64(), Some(0));
    let bytes = common::metric(&s, "unified", "t", "write", "bytes");
    let secs = d["measured_s"].as_f64().unwrap();
    let transfer_us = 16_384.0 / 1000.0; // 1000 MT/s x 1 byte
    let bound = 8.0 * 16_384.0 / ((transfer_us + 700.0 / 3.0) * 1e-6);
    let got = bytes / secs;
    assert!(got <= bound * 1.001 && got >= 0.85 * bound, "{got:.0} B/s vs bound {bound:.0}");
}

#[test]
fn closed_loop_parts_write_their_regions_with_their_streams() {
    // Two partitions, 1/4 and 3/4 of the namespace, streams 5 and 9, 300 requests each,
    // merged round-robin: each stream's page count is its part's 300 x 32 units (the regions
    // themselves are checked in tests/generator.rs; the integrity oracle checks the mappings).
    let text = reduced(&format!("{}{}", part(0.0, 0.25, 5, 300), part(0.25, 0.75, 9, 300)));
    let s = common::run(&text, &[]);
    let c = &s["schemes"]["unified"]["mapper_counters"];
    assert_eq!(c["t0_vs5_n_pages"].as_f64(), Some(300.0 * 32.0));
    assert_eq!(c["t0_vs9_n_pages"].as_f64(), Some(300.0 * 32.0));
    assert_eq!(common::metric(&s, "unified", "t", "write", "count"), 600.0);
}
