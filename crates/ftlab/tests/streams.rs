//! Tests of the stream mappers of `src/stream/` against the vStream paper
//! (`../shared/papers/vstream-virtual-stream-management.txt`): `manual` (table, Table 1 preset,
//! errors with key paths), `dac` (promotion on overwrite, demotion on GC copy, reset on trim)
//! and `vstream` (dead-page lifetimes on shared write stamps, K-means on known clusters, the
//! §4.2 memory arithmetic); `autostream` is tested in tests/autostream.rs.
//! The mappers are driven through their trait hooks with hand-made events on a small device.

use ftlab::internals::flash::geometry::{BlockIdx, Geometry, Ppa};
use ftlab::internals::ftl::blocks::WriteClass;
use ftlab::internals::ftl::{Ftl, FtlParams};
use ftlab::internals::policy::{Cause, DeviceView, DieStatus, EpochStats, Invalidated, Placed};
use ftlab::internals::scenario;
use ftlab::internals::stream::dac::Dac;
use ftlab::internals::stream::direct::Direct;
use ftlab::internals::stream::manual::{Manual, VSTREAM_TABLE1};
use ftlab::internals::stream::vstream::{kmeans_1d, stamp_table_bytes, VStream};
use ftlab::internals::stream::{MapperContext, StreamMapper};
use ftlab::SimTime;

/// 2 dies, 8 blocks of 8 pages each, 16 KiB pages of four 4 KiB units.
fn geometry() -> Geometry {
    Geometry::new(2, 1, 1, 1, 8, 8, 16384, 4096).expect("geometry")
}

/// Two tenants of 1024 units (4 MiB: four 1 MiB chunks) each.
const NS: [u32; 2] = [1024, 1024];

fn ftl(g: &Geometry) -> Ftl {
    Ftl::new(
        *g,
        FtlParams {
            namespace_units: NS.to_vec(),
            physical_streams: 4,
            host_reserve_blocks: 1,
            dynamic_wear_leveling: true,
            integrity: false,
            frontier_planes: 1,
            frontier_per_tenant: true,
        },
    )
}

fn table(text: &str) -> toml::Table {
    toml::from_str(text).expect("toml")
}

fn ctx(g: &Geometry, streams: u8) -> MapperContext<'_> {
    MapperContext { geometry: g, namespace_units: &NS, physical_streams: streams, fdp: None }
}

/// Runs `f` with a view of an idle device at `now_ns`.
fn at<R>(ftl: &Ftl, now_ns: u64, f: impl FnOnce(&DeviceView) -> R) -> R {
    let dies = vec![DieStatus::IDLE; ftl.geometry.n_dies as usize];
    let st = EpochStats::new(ftl.n_tenants(), ftl.geometry.n_dies as usize);
    f(&DeviceView::new(ftl, SimTime::from_ns(now_ns), &dies, &st))
}

/// A host write through the mapper as the engine does it: ask, (old copy dies), land.
fn write(
    m: &mut dyn StreamMapper,
    v: &DeviceView,
    t: u16,
    lpn: u32,
    vs: u16,
    ppa: Ppa,
    old: Option<Ppa>,
) -> u8 {
    let s = m.host_stream(t, lpn, vs, v);
    if let Some(old) = old {
        m.on_invalidated(
            v,
            &Invalidated { tenant: t, lpn, ppa: old, cause: Cause::Overwrite },
            &mut Vec::new(),
        );
    }
    m.on_placed(v, &Placed { tenant: t, lpn, ppa, stream: s, class: WriteClass::Host }, &mut Vec::new());
    s
}

/// A GC copy through the mapper: ask, the source dies (`Moved`), the copy lands.
fn copy(m: &mut dyn StreamMapper, v: &DeviceView, t: u16, lpn: u32, from: u8, src: Ppa, dst: Ppa) -> u8 {
    let s = m.gc_stream(t, lpn, from, v);
    m.on_invalidated(v, &Invalidated { tenant: t, lpn, ppa: src, cause: Cause::Moved }, &mut Vec::new());
    m.on_placed(v, &Placed { tenant: t, lpn, ppa: dst, stream: s, class: WriteClass::Gc }, &mut Vec::new());
    s
}

fn trim(m: &mut dyn StreamMapper, v: &DeviceView, t: u16, lpn: u32, vs: u16, old: Ppa) {
    m.on_trim(t, lpn, vs);
    m.on_invalidated(v, &Invalidated { tenant: t, lpn, ppa: old, cause: Cause::Trim }, &mut Vec::new());
}

fn counter(m: &dyn StreamMapper, name: &str) -> f64 {
    let mut out = Vec::new();
    m.counters(&mut out);
    out.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no counter {name} in {out:?}")).1
}

// ---- direct (NVMe open-stream limit, vStream §4.1) ----------------------------------------

/// With 4 physical streams, 3 open streams: ids 0 stay unstreamed; 5, 6, 7 open 1, 2, 3.
/// The fourth id, under `release`, takes the least recently written stream; under
/// `unstreamed`, goes to stream 0 and stays closed.
#[test]
fn direct_opens_streams_then_follows_the_nvme_rule() {
    let g = geometry();
    let f = ftl(&g);
    let cases: [(&str, [u8; 7], f64, f64); 2] = [
        // 5 6 7 5(touch) 8 -> releases 6 (least recent), 6 again -> releases 7, 0
        ("beyond_limit = \"release\"", [1, 2, 3, 1, 2, 3, 0], 2.0, 0.0),
        ("beyond_limit = \"unstreamed\"", [1, 2, 3, 1, 0, 2, 0], 0.0, 1.0),
    ];
    for (knobs, expected, releases, unstreamed) in cases {
        let mut m = Direct::new(&table(knobs), &ctx(&g, 4)).expect("builds");
        let got: Vec<u8> = at(&f, 0, |v| {
            [5u16, 6, 7, 5, 8, 6, 0]
                .iter()
                .enumerate()
                .map(|(i, &vs)| write(&mut m, v, 0, i as u32, vs, g.ppa(BlockIdx(0), 0, 0), None))
                .collect()
        });
        assert_eq!(got, expected, "{knobs}");
        assert_eq!(counter(&m, "releases"), releases, "{knobs}");
        assert_eq!(counter(&m, "unstreamed_units"), unstreamed, "{knobs}");
        at(&f, 0, |v| assert_eq!(m.gc_stream(0, 1, 2, v), 2, "a GC copy stays in its stream"));
    }
}

/// Tenants have their own streams, and one physical stream means no open stream at all.
#[test]
fn direct_streams_are_per_tenant_and_one_stream_is_unstreamed() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = Direct::new(&table(""), &ctx(&g, 2)).expect("builds");
    at(&f, 0, |v| {
        assert_eq!(write(&mut m, v, 0, 0, 9, g.ppa(BlockIdx(0), 0, 0), None), 1);
        assert_eq!(
            write(&mut m, v, 1, 0, 4, g.ppa(BlockIdx(0), 0, 1), None),
            1,
            "tenant 1 has its own open stream"
        );
        assert_eq!(write(&mut m, v, 0, 1, 9, g.ppa(BlockIdx(0), 0, 2), None), 1);
    });
    let mut one = Direct::new(&table("beyond_limit = \"release\""), &ctx(&g, 1)).expect("builds");
    at(&f, 0, |v| assert_eq!(write(&mut one, v, 0, 0, 3, g.ppa(BlockIdx(0), 0, 0), None), 0));
    assert_eq!(counter(&one, "opens"), 0.0);
    let e = Direct::new(&table("beyond_limit = \"close\""), &ctx(&g, 4))
        .err()
        .expect("an unknown rule is refused");
    assert_eq!(e.key, "beyond_limit", "{e:?}");
}

// ---- manual -------------------------------------------------------------------------------

#[test]
fn manual_maps_by_table_and_default() {
    let g = geometry();
    let f = ftl(&g);
    let mut m =
        Manual::new(&table("table = [3, 1, 2]\ndefault_physical_stream = 2"), &ctx(&g, 4)).expect("builds");
    at(&f, 0, |v| {
        let got: Vec<u8> =
            (0..6).map(|vs| write(&mut m, v, 0, vs as u32, vs, g.ppa(BlockIdx(0), 0, 0), None)).collect();
        assert_eq!(got, [3, 1, 2, 2, 2, 2]);
        assert_eq!(m.gc_stream(0, 1, 1, v), 1, "a GC copy stays in its stream");
    });
    assert_eq!(counter(&m, "vs0_n_pages"), 1.0);
    assert_eq!(counter(&m, "vs0_physical_stream"), 3.0);
}

#[test]
fn manual_preset_is_the_papers_table1() {
    let g = geometry();
    let m = Manual::new(&table("preset = \"vstream-table1\""), &ctx(&g, 4)).expect("builds");
    // Table 1: {system data, WAL, manifest, temporary} -> 1, {L0, L1} -> 2, {L2, L3} -> 3,
    // {L4, L5} -> 4 (1-based in the paper); our ids 0-3 are the first four, 4-9 are L0-L5.
    let want = [0u8, 0, 0, 0, 1, 1, 2, 2, 3, 3];
    assert_eq!(VSTREAM_TABLE1, want);
    assert_eq!((0..10).map(|vs| m.map(vs)).collect::<Vec<_>>(), want);
    // The resolved table is the expanded one, without the preset, and builds the same map.
    let resolved = m.resolved_config();
    assert!(!resolved.contains_key("preset"));
    let again = Manual::new(&resolved, &ctx(&g, 4)).expect("resolved config builds");
    assert_eq!(
        (0..12).map(|vs| again.map(vs)).collect::<Vec<_>>(),
        (0..12).map(|vs| m.map(vs)).collect::<Vec<_>>()
    );
}

#[test]
fn manual_bad_config_names_the_key() {
    let g = geometry();
    let cases = [
        ("table = [0, 1, 4]", 4, "table.2"),
        ("table = [0, -1]", 4, "table.1"),
        ("default_physical_stream = 4", 4, "default_physical_stream"),
        ("preset = \"vstream-table1\"", 2, "preset"),
        ("preset = \"nope\"", 4, "preset"),
        ("preset = \"vstream-table1\"\ntable = [0]", 4, "preset"),
    ];
    for (text, streams, key) in cases {
        let e =
            Manual::new(&table(text), &ctx(&g, streams)).err().unwrap_or_else(|| panic!("{text:?} builds"));
        assert_eq!(e.key, key, "{text:?}: {}", e.reason);
    }
    assert!(Manual::new(&table("tabel = [0]"), &ctx(&g, 4)).is_err(), "unknown keys are refused");
}

#[test]
fn manual_error_in_a_scenario_has_the_full_key_path() {
    let text = r#"
stream_mapper = "manual"
[device]
preset = "tiny"
[ftl]
physical_streams = 2
[stream.manual]
table = [0, 1, 2]
[[tenants]]
name = "a"
namespace_fraction = 1.0
[tenants.synthetic]
requests = 10
"#;
    let e = scenario::load(text, "s.toml", &[], None).expect_err("a bad table is an error");
    let msg = e.to_string();
    assert!(msg.contains("stream.manual.table.2"), "{msg}");
}

// ---- dac ----------------------------------------------------------------------------------

#[test]
fn dac_promotes_on_overwrite_demotes_on_copy_resets_on_trim() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = Dac::new(&toml::Table::new(), &ctx(&g, 4)).expect("builds");
    let p = |page: u32| g.ppa(BlockIdx(1), page, 0);
    at(&f, 0, |v| {
        // Fresh write: region 0; each overwrite one up, capped at the last region (3).
        let mut got = vec![write(&mut m, v, 0, 7, 0, p(0), None)];
        for i in 1..6 {
            got.push(write(&mut m, v, 0, 7, 0, p(i), Some(p(i - 1))));
        }
        assert_eq!(got, [0, 1, 2, 3, 3, 3]);
        // The other tenant's lpn 7 is another page.
        assert_eq!(write(&mut m, v, 1, 7, 0, p(6), None), 0);
        // GC copies: one down each, floored at 0.
        let copies: Vec<u8> = (0..4).map(|_| copy(&mut m, v, 0, 7, 3, p(5), p(7))).collect();
        assert_eq!(copies, [2, 1, 0, 0]);
        // Back up to 2, then a trim resets: the next write is a fresh one (region 0).
        write(&mut m, v, 0, 7, 0, p(0), Some(p(7)));
        assert_eq!(write(&mut m, v, 0, 7, 0, p(1), Some(p(0))), 2);
        trim(&mut m, v, 0, 7, 0, p(1));
        assert_eq!(m.region(0, 7), 0);
        assert_eq!(write(&mut m, v, 0, 7, 0, p(2), None), 0);
    });
    assert_eq!(counter(&m, "promotions"), 5.0);
    assert_eq!(counter(&m, "demotions"), 3.0);
    assert_eq!(counter(&m, "trim_resets"), 1.0);
    assert_eq!(counter(&m, "memory_bytes"), 2048.0, "one byte per logical page");
}

#[test]
fn dac_asked_twice_is_promoted_once() {
    // A write that stalls asks `host_stream` again when it resumes: only the landing counts.
    let g = geometry();
    let f = ftl(&g);
    let mut m = Dac::new(&toml::Table::new(), &ctx(&g, 4)).expect("builds");
    at(&f, 0, |v| {
        write(&mut m, v, 0, 3, 0, g.ppa(BlockIdx(0), 0, 0), None);
        assert_eq!(m.host_stream(0, 3, 0, v), 1);
        assert_eq!(m.host_stream(0, 3, 0, v), 1);
    });
    assert_eq!(m.region(0, 3), 0);
}

#[test]
fn dac_regions_knob_and_errors() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = Dac::new(&table("regions = 2"), &ctx(&g, 4)).expect("builds");
    at(&f, 0, |v| {
        let p = g.ppa(BlockIdx(0), 0, 0);
        let got: Vec<u8> = (0..4).map(|i| write(&mut m, v, 0, 1, 0, p, (i > 0).then_some(p))).collect();
        assert_eq!(got, [0, 1, 1, 1]);
    });
    let e = Dac::new(&table("regions = 5"), &ctx(&g, 4)).err().expect("too many regions");
    assert_eq!(e.key, "regions");
}

const MS: u64 = 1_000_000;

// ---- vstream ------------------------------------------------------------------------------

#[test]
fn vstream_paper_memory_arithmetic() {
    // §4.2: "a 1TB SSD based on the full 4KB page-mapping has 256M logical pages. If we use a
    // 4-byte timestamp per logical page, approximately 1GB of memory is required"; with c = 4
    // channels, w = 4 chips, d = 2 dies, b = 2 planes, p = 3 (LSB/CSB/MSB) and l = 4 logical
    // pages per 16KB flash page, "we can reduce the memory overhead by a factor of 768
    // (= c * w * d * b * p * l) ..., requiring only 1.3MB of memory".
    let logical_pages = (1u64 << 40) / 4096;
    assert_eq!(logical_pages, 256 << 20);
    let per_page = stamp_table_bytes(logical_pages, 1, 4);
    assert_eq!(per_page, 1 << 30, "1 GiB");
    let factor = 4 * 4 * 2 * 2 * 3 * 4;
    assert_eq!(factor, 768);
    let shared = stamp_table_bytes(logical_pages, factor, 4);
    assert_eq!(shared, 349_526 * 4, "ceil(256 Mi / 768) stamps of 4 bytes");
    assert!((per_page as f64 / shared as f64 - 768.0).abs() < 0.01);
    assert!((shared as f64 / 1e6 - 1.3).abs() < 0.1, "about 1.3 MB, got {shared}");
}

#[test]
fn vstream_stamp_table_is_per_group_not_per_page() {
    let g = geometry();
    let m = VStream::new(&table("stamp_group_pages = 2"), &ctx(&g, 4)).expect("builds");
    // 16 blocks x 8 pages x 4 units = 512 units; one 4-byte stamp per 2 pages = 8 units.
    assert_eq!(m.stamp_bytes(), 512 / 8 * 4);
    assert_eq!(counter(&m, "stamp_bytes"), 256.0);
    assert_eq!(counter(&m, "units_per_stamp"), 8.0, "2 pages of 4 units share a stamp");
    assert!(counter(&m, "memory_bytes") >= 256.0);
}

#[test]
fn vstream_lifetimes_use_the_shared_stamp() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = VStream::new(&toml::Table::new(), &ctx(&g, 4)).expect("builds");
    let b = BlockIdx(2);
    // Four units of one flash page land at 10, 11, 12, 13 ms: the page's stamp is 10 ms.
    for slot in 0..4u32 {
        at(&f, (10 + slot as u64) * MS, |v| write(&mut m, v, 0, 100 + slot, 5, g.ppa(b, 0, slot), None));
    }
    // The next page starts a new stamp at 20 ms.
    at(&f, 20 * MS, |v| write(&mut m, v, 0, 200, 6, g.ppa(b, 1, 0), None));
    // lpn 103 is overwritten at 50 ms through stream 5: lifetime 50 - 10 = 40 ms, not 37.
    at(&f, 50 * MS, |v| write(&mut m, v, 0, 103, 5, g.ppa(b, 2, 0), Some(g.ppa(b, 0, 3))));
    // lpn 101 is trimmed at 70 ms with stream 5: 60 ms. lpn 200 trimmed with stream 6: 50 ms.
    at(&f, 70 * MS, |v| {
        trim(&mut m, v, 0, 101, 5, g.ppa(b, 0, 1));
        trim(&mut m, v, 0, 200, 6, g.ppa(b, 1, 0));
    });
    assert_eq!(m.lifetime_ns_mean(0, 5), Some(50.0 * MS as f64));
    assert_eq!(m.lifetime_ns_mean(0, 6), Some(50.0 * MS as f64));
    assert_eq!(m.lifetime_ns_mean(0, 7), None);
    assert_eq!(m.lifetime_ns_mean(1, 5), None, "tenants are apart");
    assert_eq!(counter(&m, "t0_vs5_n_dead"), 2.0);
    assert_eq!(counter(&m, "t0_vs5_n_pages"), 5.0);
    assert_eq!(counter(&m, "t0_vs5_lifetime_ns_mean"), 50.0 * MS as f64);
    assert_eq!(counter(&m, "unattributed_deaths"), 0.0);
}

#[test]
fn vstream_copy_keeps_the_original_write_time() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = VStream::new(&toml::Table::new(), &ctx(&g, 4)).expect("builds");
    at(&f, 10 * MS, |v| write(&mut m, v, 0, 1, 2, g.ppa(BlockIdx(0), 0, 0), None));
    at(&f, 30 * MS, |v| copy(&mut m, v, 0, 1, 2, g.ppa(BlockIdx(0), 0, 0), g.ppa(BlockIdx(5), 0, 0)));
    at(&f, 100 * MS, |v| write(&mut m, v, 0, 1, 2, g.ppa(BlockIdx(1), 0, 0), Some(g.ppa(BlockIdx(5), 0, 0))));
    assert_eq!(m.lifetime_ns_mean(0, 2), Some(90.0 * MS as f64));
}

#[test]
fn kmeans_finds_known_clusters() {
    let values = [1000.0, 1.0, 101.0, 2.0, 3.0, 100.0, 1001.0, 102.0];
    let (centroids, assign) = kmeans_1d(&values, 3, 100);
    assert_eq!(centroids, [2.0, 101.0, 1000.5]);
    assert_eq!(assign, [2, 0, 1, 0, 0, 1, 2, 1]);
    // Fewer distinct points than K: every point its own cluster, no panic.
    let (c, a) = kmeans_1d(&[5.0, 1.0], 4, 10);
    assert_eq!((c, a), (vec![1.0, 5.0], vec![1, 0]));
    assert_eq!(kmeans_1d(&[], 4, 10), (vec![], vec![]));
}

#[test]
fn vstream_epoch_clusters_virtual_streams_by_lifetime() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = VStream::new(&table("epoch_s = 600.0"), &ctx(&g, 4)).expect("builds");
    assert_eq!(m.epoch(), Some(SimTime::from_secs_f64(600.0)));
    // Before any epoch: virtual stream v -> v mod 4.
    assert_eq!((0..6).map(|vs| m.physical_stream(0, vs)).collect::<Vec<_>>(), [0, 1, 2, 3, 0, 1]);
    // Lifetimes (ms) of one dead page per virtual stream 0..8; stream 8 has none.
    let life_ms = [900u64, 10, 500, 12, 11, 480, 3000, 2900];
    for (vs, &l) in life_ms.iter().enumerate() {
        let ppa = g.ppa(BlockIdx(vs as u32), 0, 0);
        at(&f, 0, |v| write(&mut m, v, 0, vs as u32, vs as u16, ppa, None));
        at(&f, l * MS, |v| trim(&mut m, v, 0, vs as u32, vs as u16, ppa));
    }
    at(&f, 600_000 * MS, |v| m.on_epoch(v, &mut Vec::new()));
    let got: Vec<u8> = (0..9).map(|vs| m.physical_stream(0, vs)).collect();
    // {10, 11, 12} -> 0, {480, 500} -> 1, {900} -> 2, {2900, 3000} -> 3; stream 8 keeps 8 mod 4.
    assert_eq!(got, [2, 0, 1, 0, 0, 1, 3, 3, 0]);
    at(&f, 0, |v| assert_eq!(m.host_stream(0, 9, 6, v), 3));
    assert_eq!(counter(&m, "epochs"), 1.0);
    assert_eq!(counter(&m, "t0_vs6_physical_stream"), 3.0);
    // Tenant 1 saw nothing: its mapping is unchanged.
    assert_eq!(m.physical_stream(1, 6), 2);
}

#[test]
fn vstream_bad_knobs_name_the_key() {
    let g = geometry();
    for (text, key) in [
        ("epoch_s = 0.0", "epoch_s"),
        ("stamp_group_pages = 9", "stamp_group_pages"),
        ("virtual_streams = 0", "virtual_streams"),
    ] {
        let e = VStream::new(&table(text), &ctx(&g, 4)).err().unwrap_or_else(|| panic!("{text} builds"));
        assert_eq!(e.key, key);
    }
}

/// Every mapper runs a small scenario end to end with the integrity oracle on (the full
/// property test is `tests/integrity.rs`), and reports its counters.
#[test]
fn every_mapper_runs_a_scenario() {
    for name in ftlab::internals::stream::REGISTRY.iter().map(|p| p.name) {
        let text = format!(
            r#"seed = 5
schemes = ["unified"]
stream_mapper = "{name}"
[device]
preset = "tiny"
[ftl]
physical_streams = 4
[stream.vstream]
epoch_s = 0.01
[check]
integrity = true
[[tenants]]
name = "a"
namespace_fraction = 1.0
[tenants.synthetic]
pattern = "zipf"
read_ratio = 0.2
trim_ratio = 0.05
requests = 20000
"#
        );
        let s = scenario::load(&text, "s.toml", &[], None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut sim =
            ftlab::internals::api::build_simulation(&s, "unified", std::path::Path::new("."), "s.toml")
                .expect("builds");
        ftlab::internals::api::precondition(&s, &mut sim, "s.toml").expect("preconditions");
        sim.run(&mut |_| {}).expect("runs");
        sim.check_integrity();
    }
}

// ---- the engine's stream measurements and the stream interface ------------------------------

/// A scenario on the tiny device with one tenant writing `pattern` at a fixed interval, tagged
/// by address-range rules, under `mapper` and `scheme`.
fn stream_scenario(mapper: &str, scheme: &str, extra: &str) -> scenario::Scenario {
    let text = format!(
        r#"seed = 3
schemes = ["{scheme}"]
stream_mapper = "{mapper}"
[device]
preset = "tiny"
[ftl]
physical_streams = 4
[measure]
duration_s = 4.0
warmup_s = 2.0
window_s = 0.5
{extra}
"#
    );
    scenario::load(&text, "s.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

fn finish(s: &scenario::Scenario, scheme: &str) -> ftlab::internals::metrics::report::SchemeResult {
    let mut sim = ftlab::internals::api::build_simulation(s, scheme, std::path::Path::new("."), "s.toml")
        .expect("builds");
    ftlab::internals::api::precondition(s, &mut sim, "s.toml").expect("preconditions");
    sim.run(&mut |_| {}).expect("runs");
    sim.check_integrity();
    sim.finish(scheme).expect("finishes").0
}

/// Sequential one-unit overwrites at a fixed interval over a namespace of U units: every
/// datum lives exactly U x interval (it dies when the cursor comes round again). The engine's
/// lifetime per virtual stream must say so, to its 2^20 ns stamp resolution.
#[test]
fn lifetimes_of_a_sequential_overwrite_are_namespace_times_interval() {
    let tenant = r#"[[tenants]]
name = "a"
namespace_fraction = 0.1
queue_depth = 32
[tenants.synthetic]
pattern = "sequential"
read_ratio = 0.0
sizes = [{ bytes = 4096, weight = 1.0 }]
arrival = "fixed"
interval_us = 1000.0
[[tenants.stream_rules]]
offset_bytes = 0
size_bytes = 1048576
stream = 7
"#;
    let s = stream_scenario("manual", "unified", &format!("stream_lifetimes = true\n{tenant}"));
    let units = s.namespace_units()[0] as f64;
    let expected_s = units * 1000e-6;
    assert!(expected_s < 2.0, "one pass ({expected_s} s) must fit in the warm-up");
    let r = finish(&s, "unified");
    let v = &r.streams.virtual_streams[0];
    let (tagged, rest): (Vec<_>, Vec<_>) = v.iter().partition(|(vs, _)| *vs == Some(7));
    assert_eq!(tagged.len(), 1, "{v:?}");
    assert_eq!(rest.len(), 1, "{v:?}");
    for (vs, st) in [tagged[0], rest[0]] {
        let life = st.lifetime_s_mean().unwrap_or_else(|| panic!("stream {vs:?}: no deaths"));
        assert!(
            (life - expected_s).abs() <= 2e-3,
            "stream {vs:?}: {life} s vs U x interval = {expected_s} s"
        );
        assert_eq!(st.n_units_dead_unknown, 0, "the warm-up passed once: nothing dies unstamped");
        assert!(st.n_units_written > 0);
    }
    // Stream 7's rule covers 256 units; in the measured phase each unit is written
    // floor(writes / U) or ceil(writes / U) times.
    let writes = (tagged[0].1.n_units_written + rest[0].1.n_units_written) as f64;
    let per_unit = writes / units;
    let n7 = tagged[0].1.n_units_written as f64;
    assert!(
        n7 >= 256.0 * per_unit.floor() && n7 <= 256.0 * per_unit.ceil(),
        "stream 7 took {n7} of {writes} writes over {units} units"
    );
}

/// Per physical stream: host units and GC copies add up to the device's counts; `manual`
/// (table [1]) sends virtual stream 0 to physical stream 1, so stream 0 gets nothing.
#[test]
fn physical_stream_counts_add_up_to_the_device() {
    let tenant = r#"[stream.manual]
table = [1]
[[tenants]]
name = "a"
namespace_fraction = 0.9
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
rate_iops = 4000.0
"#;
    let s = stream_scenario("manual", "unified", tenant);
    let r = finish(&s, "unified");
    let st = &r.streams;
    assert_eq!(st.host_units.len(), 4);
    assert_eq!(st.host_units.iter().sum::<u64>(), r.device.host_units);
    assert_eq!(st.gc_units.iter().sum::<u64>(), r.device.gc_units);
    assert!(r.device.gc_units > 0, "GC must run for the test to mean something");
    assert_eq!((st.host_units[0], st.gc_units[0]), (0, 0), "nothing is mapped to stream 0");
    assert_eq!(st.host_units[1], r.device.host_units);
}

/// The time series has `vs<i>_physical_stream` for a mapper with streams (the mapping over
/// time), and not for `legacy`.
#[test]
fn the_time_series_shows_the_mapping() {
    let tenant = r#"[stream.manual]
table = [2, 3]
[[tenants]]
name = "a"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
rate_iops = 2000.0
[[tenants.stream_rules]]
offset_bytes = 0
size_bytes = 4194304
stream = 1
"#;
    for (mapper, has) in [("manual", true), ("legacy", false)] {
        let s = stream_scenario(mapper, "unified", tenant);
        let mut sim =
            ftlab::internals::api::build_simulation(&s, "unified", std::path::Path::new("."), "s.toml")
                .expect("builds");
        ftlab::internals::api::precondition(&s, &mut sim, "s.toml").expect("preconditions");
        sim.run(&mut |_| {}).expect("runs");
        let (_, tables) = sim.finish("unified").expect("finishes");
        let col = |name: &str| {
            tables.timeseries.columns.iter().find(|(n, _)| n == name).map(|(_, c)| match c {
                ftlab::Column::F64(v) => v.clone(),
                _ => panic!("{name} is not a float column"),
            })
        };
        assert_eq!(col("vs0_physical_stream").is_some(), has, "{mapper}");
        if has {
            let vs0 = col("vs0_physical_stream").expect("column");
            let vs1 = col("vs1_physical_stream").expect("column");
            let vs2 = col("vs2_physical_stream").expect("column");
            assert!(vs0.iter().all(|&p| p == 2.0), "{vs0:?}");
            assert!(vs1.iter().all(|&p| p == 3.0), "{vs1:?}");
            assert!(vs2.iter().all(|p| p.is_nan()), "no write is tagged 2: {vs2:?}");
        }
    }
}

/// Stream rules are checked: a range outside the namespace or of size 0 names its key.
#[test]
fn bad_stream_rules_name_the_key() {
    let cases = [
        ("offset_bytes = 0\nsize_bytes = 0\nstream = 1", "tenants.0.stream_rules.0.size_bytes"),
        ("offset_bytes = 1099511627776\nsize_bytes = 4096\nstream = 1", "tenants.0.stream_rules.0"),
        ("offset_bytes = 0\nsize_bytes = 4096\nstream = 70000", "tenants.0.stream_rules.0.stream"),
    ];
    for (rule, key) in cases {
        let text = format!(
            "[device]\npreset = \"tiny\"\n[[tenants]]\nname = \"a\"\nnamespace_fraction = \
             1.0\n[tenants.synthetic]\nrequests = 10\n[[tenants.stream_rules]]\n{rule}\n"
        );
        let e = scenario::load(&text, "s.toml", &[], None).err().unwrap_or_else(|| panic!("{rule} loads"));
        assert!(e.to_string().contains(key), "{rule}: {e}");
    }
}

/// Streams and tenants are orthogonal: a stream mapper under `partitioned` and `upi` keeps each
/// tenant's data on its own dies' blocks (no block holds two tenants' data), and the oracle
/// finds nothing lost.
#[test]
fn streams_keep_tenants_apart_under_partitioned_and_upi() {
    let tenants = r#"[scheme.upi]
epoch_s = 0.05
[scheme.partitioned]
by = "die"
[[tenants]]
name = "a"
namespace_fraction = 0.4
[tenants.synthetic]
pattern = "zipf"
read_ratio = 0.2
rate_iops = 3000.0
[[tenants.stream_rules]]
offset_bytes = 0
size_bytes = 2097152
stream = 1
[[tenants]]
name = "b"
namespace_fraction = 0.4
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.2
rate_iops = 3000.0
[[tenants.stream_rules]]
offset_bytes = 0
size_bytes = 2097152
stream = 2
"#;
    for scheme in ["partitioned", "upi"] {
        for mapper in ["manual", "dac", "autostream", "vstream", "direct"] {
            // vstream re-clusters within the run (its default epoch is 10 minutes); manual maps the
            // tagged streams 1 and 2 to physical streams 1 and 2 (its default table is empty).
            let extra =
                format!("{tenants}[stream.vstream]\nepoch_s = 0.25\n[stream.manual]\ntable = [0, 1, 2]\n");
            let s = stream_scenario(mapper, scheme, &extra);
            let mut sim =
                ftlab::internals::api::build_simulation(&s, scheme, std::path::Path::new("."), "s.toml")
                    .expect("builds");
            ftlab::internals::api::precondition(&s, &mut sim, "s.toml").expect("preconditions");
            sim.run(&mut |_| {}).expect("runs");
            sim.check_integrity();
            let ftl = sim.ftl();
            let g = ftl.geometry;
            // Every valid unit belongs to exactly one tenant (the one whose L2P points at it),
            // and that tenant owns the block it sits in. (Both namespaces are 0.4 of the
            // device, so any LPN indexes both L2P tables.)
            let mut n_valid = [0u64; 2];
            for b in 0..g.n_blocks {
                let block = BlockIdx(b);
                for unit in 0..g.units_per_block {
                    let ppa = g.ppa(block, unit / g.units_per_page, unit % g.units_per_page);
                    let lpn = ftl.p2l(ppa);
                    if lpn == ftlab::internals::ftl::NONE {
                        continue;
                    }
                    let holders: Vec<u16> = (0..2u16).filter(|&t| ftl.l2p(t, lpn) == ppa.0).collect();
                    assert_eq!(
                        holders.len(),
                        1,
                        "{scheme}/{mapper}: unit at {} is mapped by tenants {holders:?}",
                        ppa.0
                    );
                    let owner = ftl.blocks().get(block).owner();
                    assert_eq!(
                        owner, holders[0],
                        "{scheme}/{mapper}: block {b} of tenant {owner} holds a unit of tenant {}",
                        holders[0]
                    );
                    n_valid[holders[0] as usize] += 1;
                }
            }
            assert!(n_valid.iter().all(|&n| n > 0), "{scheme}/{mapper}: a tenant holds nothing: {n_valid:?}");
            if scheme == "partitioned" {
                let dies_of = |t: u16| -> std::collections::BTreeSet<u32> {
                    (0..g.n_blocks)
                        .map(BlockIdx)
                        .filter(|&b| {
                            ftl.blocks().get(b).owner() == t && ftl.blocks().get(b).valid_units() > 0
                        })
                        .map(|b| g.die_of_block(b).0)
                        .collect()
                };
                assert!(dies_of(0).is_disjoint(&dies_of(1)), "{scheme}/{mapper}: tenants share a die");
            }
            // The streams were in use: more than one physical stream took host writes. (The
            // tag-driven mappers split the tagged ranges off and dac promotes overwritten
            // pages; autostream judges 1 MiB chunks by access counts alone, and on this tiny
            // device every chunk reaches its hottest queue.)
            let r = sim.finish(scheme).expect("finishes").0;
            let used = r.streams.host_units.iter().filter(|&&n| n > 0).count();
            if mapper != "autostream" {
                assert!(
                    used > 1,
                    "{scheme}/{mapper}: one physical stream took every write: {:?}",
                    r.streams.host_units
                );
            }
        }
    }
}
