//! Tests of NVMe Flexible Data Placement: `[device.fdp]` and `[stream.fdp]` errors (key and
//! range), the `fdp` mapper's placement identifier → RUH map and GC by isolation type, a
//! hand-worked RU accounting (host vs media bytes, erases, RUs filled, events), the field names
//! nvme-cli prints, and on the engine: persistently isolated GC never mixes handles (checked on
//! the FTL's blocks against the workload's regions, not against the mapper), initially
//! isolated GC does. docs/streams/fdp.md.

use ftlab::internals::api::{build_simulation, precondition};
use ftlab::internals::flash::geometry::{BlockIdx, Geometry, Ppa};
use ftlab::internals::ftl::blocks::WriteClass;
use ftlab::internals::ftl::{Ftl, FtlParams, NONE};
use ftlab::internals::policy::{Cause, DeviceView, DieStatus, EpochStats, Invalidated, Placed};
use ftlab::internals::scenario;
use ftlab::internals::stream::fdp::{Fdp, FdpConfig, RuSpan, RuhType, EVENT_PID, EVENT_REALLOC};
use ftlab::internals::stream::{MapperContext, StreamMapper};
use ftlab::SimTime;
use std::path::Path;

/// 2 dies, 8 blocks of 8 pages each, 16 KiB pages of four 4 KiB units: 32 units a block.
fn geometry() -> Geometry {
    Geometry::new(2, 1, 1, 1, 8, 8, 16384, 4096).expect("geometry")
}

const NS: [u32; 2] = [256, 256];

fn ftl(g: &Geometry) -> Ftl {
    let params = FtlParams {
        namespace_units: NS.to_vec(),
        physical_streams: 4,
        host_reserve_blocks: 1,
        dynamic_wear_leveling: true,
        integrity: false,
        frontier_planes: 1,
        frontier_per_tenant: true,
    };
    Ftl::new(*g, params)
}

fn at<R>(ftl: &Ftl, now_ns: u64, f: impl FnOnce(&DeviceView) -> R) -> R {
    let dies = vec![DieStatus::IDLE; ftl.geometry.n_dies as usize];
    let st = EpochStats::new(ftl.n_tenants(), ftl.geometry.n_dies as usize);
    f(&DeviceView::new(ftl, SimTime::from_ns(now_ns), &dies, &st))
}

fn mapper(g: &Geometry, dev: &FdpConfig, knobs: &str) -> Fdp {
    let ctx = MapperContext { geometry: g, namespace_units: &NS, physical_streams: 4, fdp: Some(dev) };
    Fdp::new(&toml::from_str(knobs).expect("toml"), &ctx).expect("builds")
}

/// A host write as the engine does it: ask the stream, land the unit at `ppa`.
fn write(m: &mut Fdp, v: &DeviceView, t: u16, lpn: u32, vs: u16, ppa: Ppa) -> u8 {
    let s = m.host_stream(t, lpn, vs, v);
    m.on_placed(v, &Placed { tenant: t, lpn, ppa, stream: s, class: WriteClass::Host }, &mut Vec::new());
    s
}

/// A GC copy: ask the stream for data written through `from`, land it at `dst`.
fn copy(m: &mut Fdp, v: &DeviceView, t: u16, lpn: u32, from: u8, src: Ppa, dst: Ppa) -> u8 {
    let s = m.gc_stream(t, lpn, from, v);
    m.on_invalidated(v, &Invalidated { tenant: t, lpn, ppa: src, cause: Cause::Moved }, &mut Vec::new());
    m.on_placed(v, &Placed { tenant: t, lpn, ppa: dst, stream: s, class: WriteClass::Gc }, &mut Vec::new());
    s
}

fn counter(m: &Fdp, name: &str) -> f64 {
    let mut out = Vec::new();
    m.counters(&mut out);
    out.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no counter {name}")).1
}

fn dev(rg: u32, ru_blocks: u32, span: RuSpan, handles: &[RuhType]) -> FdpConfig {
    FdpConfig { reclaim_groups: rg, ru_blocks, ru_span: span, handles: handles.to_vec() }
}

use RuhType::{InitiallyIsolated as II, PersistentlyIsolated as PI};

/// Unit `u` of block `b` (32 units a block; die 0 holds blocks 0-7, die 1 blocks 8-15).
fn unit(g: &Geometry, b: u32, u: u32) -> Ppa {
    g.ppa(BlockIdx(b), u / 4, u % 4)
}

// ---- errors ---------------------------------------------------------------------------------

fn scenario_with(device_fdp: &str, stream_fdp: &str, streams: u32) -> String {
    format!(
        r#"
stream_mapper = "fdp"
[device]
preset = "tiny"
[device.fdp]
{device_fdp}
[ftl]
physical_streams = {streams}
[stream.fdp]
{stream_fdp}
[[tenants]]
name = "a"
namespace_fraction = 1.0
[tenants.synthetic]
requests = 10
"#
    )
}

/// Each bad value is refused with its full key and the range it must be in (`tiny`: 4 dies of
/// 64 blocks; 2 physical streams).
#[test]
fn bad_fdp_config_names_the_key_and_the_range() {
    let cases = [
        (
            "reclaim_groups = 0",
            "",
            "device.fdp.reclaim_groups",
            "must be in [1, 4] and divide the 4 dies, got 0",
        ),
        ("reclaim_groups = 3", "", "device.fdp.reclaim_groups", "divide the 4 dies, got 3"),
        ("reclaim_groups = 8", "", "device.fdp.reclaim_groups", "must be in [1, 4]"),
        ("ru_blocks = 0", "", "device.fdp.ru_blocks", "must be in [1, 64] (blocks per die), got 0"),
        ("ru_blocks = 65", "", "device.fdp.ru_blocks", "got 65"),
        ("handles = []", "", "device.fdp.handles", "must name 1 to 16 reclaim unit handles, got 0"),
        (
            "handles = [\"initially-isolated\", \"persistently-isolated\", \"initially-isolated\"]",
            "",
            "device.fdp.handles",
            "at most ftl.physical_streams = 2",
        ),
        ("handles = [\"isolated\"]", "", "device.fdp.handles", "unknown variant"),
        ("ru_span = \"channel\"", "", "device.fdp.ru_span", "unknown variant"),
        ("ru_blox = 1", "", "device.fdp", "ru_blox"),
        ("", "placement_handles = [0, 2]", "stream.fdp.placement_handles.1", "must be in [0, 1)"),
        ("", "tag = \"namespace\"", "stream.fdp.tag", "namespace"),
        (
            "",
            "[[stream.fdp.namespaces]]\nhandles = [1]",
            "stream.fdp.namespaces.0.handles.0",
            "must be in [0, 1)",
        ),
        (
            "",
            "[[stream.fdp.namespaces]]\n[[stream.fdp.namespaces]]",
            "stream.fdp.namespaces",
            "has 2 entries; the scenario has 1 tenants",
        ),
    ];
    for (device, stream, key, range) in cases {
        let text = scenario_with(device, stream, 2);
        let e = scenario::load(&text, "s.toml", &[], None).expect_err(device);
        let msg = e.to_string();
        assert!(msg.contains(key), "{device:?} {stream:?}: {msg}");
        assert!(msg.contains(range), "{device:?} {stream:?}: {msg}");
    }
    let ok = scenario_with(
        "reclaim_groups = 2\nru_blocks = 2\nru_span = \"group\"\nhandles = [\"initially-isolated\", \
         \"persistently-isolated\"]",
        "tag = \"tenant\"",
        2,
    );
    scenario::load(&ok, "s.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
}

// ---- mapping and isolation ------------------------------------------------------------------

/// PIDs through the placement handle list; a PID beyond it goes to PID 0's handle and is an
/// "Invalid Placement Identifier" event (type 0x03) with its PID, namespace and time.
#[test]
fn placement_identifiers_map_to_handles() {
    let g = geometry();
    let f = ftl(&g);
    let d = dev(1, 1, RuSpan::Die, &[PI, PI, II]);
    let mut m = mapper(&g, &d, "placement_handles = [2, 0, 1]");
    at(&f, 7_000, |v| {
        let got: Vec<u8> =
            (0..4u16).map(|vs| write(&mut m, v, 1, vs as u32, vs, unit(&g, 0, vs as u32))).collect();
        assert_eq!(got, [2, 0, 1, 2], "PID 3 is invalid: the handle of PID 0");
    });
    assert_eq!(counter(&m, "events_invalid_placement_identifier"), 1.0);
    let e = m.events[0];
    assert_eq!((e.kind, e.pid, e.nsid, e.timestamp_ns), (EVENT_PID, 3, 2, 7_000));
    // Each namespace its own list: tenant 0's PID 0 is RUH 1, tenant 1's PID 0 is RUH 2.
    let mut per_ns = mapper(&g, &d, "[[namespaces]]\nhandles = [1, 0]\n[[namespaces]]\nhandles = [2]");
    at(&f, 0, |v| {
        assert_eq!(write(&mut per_ns, v, 0, 0, 0, unit(&g, 0, 0)), 1);
        assert_eq!(write(&mut per_ns, v, 0, 1, 1, unit(&g, 0, 1)), 0);
        assert_eq!(write(&mut per_ns, v, 1, 0, 0, unit(&g, 1, 0)), 2);
        assert_eq!(write(&mut per_ns, v, 1, 1, 1, unit(&g, 1, 1)), 2, "PID 1 is not in tenant 1's list");
    });
    assert_eq!(counter(&per_ns, "events_invalid_placement_identifier"), 1.0);
    let mut by_tenant = mapper(&g, &d, "tag = \"tenant\"");
    at(&f, 0, |v| assert_eq!(write(&mut by_tenant, v, 1, 0, 9, unit(&g, 0, 0)), 1, "tenant 1 is PID 1"));
}

/// Persistently isolated copies stay in their handle; initially isolated ones all go to the
/// lowest initially isolated handle, and the mix is counted.
#[test]
fn gc_follows_the_isolation_type() {
    let g = geometry();
    let f = ftl(&g);
    let d = dev(1, 1, RuSpan::Die, &[PI, II, II]);
    let mut m = mapper(&g, &d, "");
    at(&f, 0, |v| {
        for (lpn, vs) in [(0u32, 0u16), (1, 1), (2, 2)] {
            write(&mut m, v, 0, lpn, vs, unit(&g, vs as u32, 0));
        }
        assert_eq!(
            copy(&mut m, v, 0, 0, 0, unit(&g, 0, 0), unit(&g, 4, 0)),
            0,
            "persistently isolated: own handle"
        );
        assert_eq!(
            copy(&mut m, v, 0, 1, 1, unit(&g, 1, 0), unit(&g, 5, 0)),
            1,
            "initially isolated: lowest II handle"
        );
        assert_eq!(
            copy(&mut m, v, 0, 2, 2, unit(&g, 2, 0), unit(&g, 5, 1)),
            1,
            "handle 2's copy mixes with handle 1's"
        );
    });
    assert_eq!(counter(&m, "pi_mixed_units"), 0.0);
    assert_eq!(counter(&m, "ii_mixed_units"), 1.0, "only handle 2's copy left its handle");
    // Tenant 1 writes through handle 1, where tenant 0's copies went: neither is alone there.
    at(&f, 0, |v| {
        write(&mut m, v, 1, 0, 1, unit(&g, 6, 0));
    });
    assert_eq!(m.report_json()["tenant_waf"], serde_json::json!([null, null]));
}

// ---- RU accounting --------------------------------------------------------------------------

/// Worked by hand (32 units a block, 4096-byte units, 2 RGs of one die, RU = 1 block):
/// - 40 host units through RUH 0 on die 0 (blocks 0 and 1): HBMW = MBMW = 40 x 4096 = 163840; one RU filled
///   (32 units), 8 units into the next.
/// - 8 host units through RUH 1 on die 1 (block 8): HBMW_1 = MBMW_1 = 32768.
/// - GC copies the 8 units of lpn 0-7 (RUH 0) from block 0 to block 2: MBMW_0 = 48 x 4096 = 196608, HBMW
///   unchanged; the copies fill 8 more units of die 0's RU: 16 in the open RU.
/// - block 0 is erased: MBE_0 = 1 block = 32 x 4096 = 131072.
///
///   Device: HBMW = 48 x 4096 = 196608, MBMW = 56 x 4096 = 229376, MBE = 131072; WAF of RUH 0
///   = 48 / 40 = 1.2, of RUH 1 = 1.
#[test]
fn ru_accounting_on_a_hand_worked_sequence() {
    let g = geometry();
    let f = ftl(&g);
    let d = dev(2, 1, RuSpan::Die, &[PI, PI]);
    let mut m = mapper(&g, &d, "");
    at(&f, 0, |v| {
        for u in 0..40u32 {
            write(&mut m, v, 0, u, 0, unit(&g, u / 32, u % 32));
        }
        for u in 0..8u32 {
            write(&mut m, v, 1, u, 1, unit(&g, 8, u));
        }
        for u in 0..8u32 {
            copy(&mut m, v, 0, u, 0, unit(&g, 0, u), unit(&g, 2, u));
        }
        m.on_erased(v, BlockIdx(0), &mut Vec::new());
    });
    let want = [
        ("ruh0_hbmw", 163840.0),
        ("ruh0_mbmw", 196608.0),
        ("ruh0_mbe", 131072.0),
        ("ruh0_rus_filled", 1.0),
        ("ruh1_hbmw", 32768.0),
        ("ruh1_mbmw", 32768.0),
        ("ruh1_mbe", 0.0),
        ("ruh1_rus_filled", 0.0),
        ("hbmw", 196608.0),
        ("mbmw", 229376.0),
        ("mbe", 131072.0),
        ("pi_mixed_units", 0.0),
    ];
    for (name, value) in want {
        assert_eq!(counter(&m, name), value, "{name}");
    }
    let r = m.report_json();
    assert_eq!(r["ruhs"][0]["waf"], 1.2);
    assert_eq!(r["ruhs"][1]["waf"], 1.0);
    assert_eq!(r["ruhs"][0]["tenants"], serde_json::json!([0]));
    assert_eq!(r["ruhs"][1]["tenants"], serde_json::json!([1]));
    assert_eq!(r["tenant_waf"], serde_json::json!([1.2, 1.0]), "each tenant alone on its handle");
    // 24 more units on die 0 through RUH 0 complete its second RU (16 + 24 = 40 >= 32).
    at(&f, 0, |v| {
        (0..24u32).for_each(|u| {
            write(&mut m, v, 0, 100 + u, 0, unit(&g, 3, u));
        })
    });
    assert_eq!(counter(&m, "ruh0_rus_filled"), 2.0);
    // With RUs spanning the group's dies a RU is 1 block x 1 die here (2 RGs of 1 die): same.
    assert_eq!(dev(2, 1, RuSpan::Group, &[PI]).ru_units(&g), 32);
    assert_eq!(dev(1, 3, RuSpan::Group, &[PI]).ru_units(&g), 3 * 2 * 32, "3 blocks on each of 2 dies");
}

/// `nvme fdp stats -o json` prints `hbmw`, `mbmw`, `mbe`; `nvme fdp events -o json` prints
/// `n` and `events`, each event with `Type`, `fdpef`, `pid`, `timestamp`, `NSID` (nvme-cli,
/// nvme-print-json.c: json_nvme_fdp_stats and json_nvme_fdp_events; libnvme types.h:
/// struct nvme_fdp_stats_log, enum nvme_fdp_event_type, Invalid Placement Identifier = 0x3).
#[test]
fn report_uses_nvme_cli_field_names() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = mapper(&g, &dev(1, 1, RuSpan::Die, &[PI]), "");
    at(&f, 5, |v| {
        write(&mut m, v, 0, 0, 4, unit(&g, 0, 0));
    });
    let r = m.report_json();
    let keys = |v: &serde_json::Value| v.as_object().expect("an object").keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&r["stats"]), ["hbmw", "mbmw", "mbe"]);
    assert_eq!(keys(&r["events"]), ["n", "events"]);
    assert_eq!(keys(&r["events"]["events"][0]), ["Type", "fdpef", "pid", "timestamp", "NSID"]);
    assert_eq!(r["events"]["n"], 1);
    assert_eq!(r["events"]["events"][0]["Type"], 3);
    assert_eq!(r["ruhs"][0]["ruht"], 2, "libnvme: NVME_FDP_RUHT_PERSISTENTLY_ISOLATED = 2");
}

/// Media Reallocated (NVMe 2.1 §5.1.12.1.31.2.1: data "written by the host specifying a
/// Reclaim Unit Handle with a Reclaim Unit Handle type of Initially Isolated and was moved by
/// the controller to a different Reclaim Unit"), worked by hand with handles [PI, II, II]:
/// - lpns 0-3 through PID 0 (PI) in block 0; lpns 10-15 through PID 1 and 20-22 through PID 2 (both II) in
///   block 1;
/// - GC moves lpns 0-3 out of block 0 (PI data: no event) and 10-15, 20-22 out of block 1; the host
///   overwrites lpn 30 (PID 1) in block 2 (an overwrite moves nothing);
/// - erasing block 0 logs nothing; erasing block 1 logs one event: NLBAM = 6 + 3 = 9, LBA = the first unit
///   moved (10), PID 1 (the handle lpn 10 was written through), NSID 1; erasing block 2 logs nothing.
#[test]
fn media_reallocated_counts_moves_of_initially_isolated_data() {
    let g = geometry();
    let f = ftl(&g);
    let mut m = mapper(&g, &dev(1, 1, RuSpan::Die, &[PI, II, II]), "");
    at(&f, 7, |v| {
        (0..4u32).for_each(|l| assert_eq!(write(&mut m, v, 0, l, 0, unit(&g, 0, l)), 0));
        (10..16u32).for_each(|l| assert_eq!(write(&mut m, v, 0, l, 1, unit(&g, 1, l)), 1));
        (20..23u32).for_each(|l| assert_eq!(write(&mut m, v, 0, l, 2, unit(&g, 1, l)), 2));
        write(&mut m, v, 0, 30, 1, unit(&g, 2, 0));
        (0..4u32).for_each(|l| {
            copy(&mut m, v, 0, l, 0, unit(&g, 0, l), unit(&g, 4, l));
        });
        for (i, l) in (10..16u32).chain(20..23).enumerate() {
            let from = if l < 20 { 1 } else { 2 };
            copy(&mut m, v, 0, l, from, unit(&g, 1, l), unit(&g, 5, i as u32));
        }
        let over = Invalidated { tenant: 0, lpn: 30, ppa: unit(&g, 2, 0), cause: Cause::Overwrite };
        m.on_invalidated(v, &over, &mut Vec::new());
        write(&mut m, v, 0, 30, 1, unit(&g, 6, 0));
    });
    at(&f, 9, |v| {
        for b in 0..3 {
            m.on_erased(v, BlockIdx(b), &mut Vec::new());
        }
    });
    assert_eq!(counter(&m, "events_media_reallocated"), 1.0);
    assert_eq!(counter(&m, "events_ru_not_fully_written"), 0.0);
    let r = m.report_json();
    assert_eq!(r["events"]["n"], 1);
    let e = &r["events"]["events"][0];
    assert_eq!(e["Type"], EVENT_REALLOC as u64);
    assert_eq!((e["nlbam"].as_u64(), e["lba"].as_u64()), (Some(9), Some(10)));
    assert_eq!((e["pid"].as_u64(), e["NSID"].as_u64(), e["timestamp"].as_u64()), (Some(1), Some(1), Some(9)));
    assert_eq!(r["events_total"], 1);
    // Erased again with nothing moved since: no second event.
    at(&f, 11, |v| m.on_erased(v, BlockIdx(1), &mut Vec::new()));
    assert_eq!(counter(&m, "events_media_reallocated"), 1.0);
}

// ---- on the engine --------------------------------------------------------------------------

/// Tenant a writes two disjoint halves of its namespace with streams 0 and 1 (PIDs 0 and 1),
/// uniformly, so GC runs; tenant b writes with stream 0.
fn engine_scenario(handles: &str) -> String {
    format!(
        r#"
seed = 3
schemes = ["unified"]
stream_mapper = "fdp"
[device]
preset = "tiny"
over_provisioning = 0.3
[device.fdp]
handles = {handles}
[ftl]
physical_streams = 2
[precondition]
fill_fraction = 1.0
[[tenants]]
name = "a"
namespace_fraction = 0.5
[[tenants.synthetic]]
arrival = "closed"
footprint_fraction = 0.5
stream = 0
requests = 6000
[[tenants.synthetic]]
arrival = "closed"
footprint_offset_fraction = 0.5
footprint_fraction = 0.5
stream = 1
requests = 6000
[[tenants]]
name = "b"
namespace_fraction = 0.5
[tenants.synthetic]
arrival = "closed"
requests = 3000
"#
    )
}

/// For every valid unit of tenant a in a block written through stream `s`: whether its lpn is
/// in the half of the namespace stream `s` writes (lpns of the first half are written with
/// stream 0; preconditioning writes every lpn with stream 0). Returns (units in their own
/// handle's region, units of the other region).
fn walk(sim: &ftlab::internals::simulation::Simulation<'_>, ns_a: u32) -> (u64, u64) {
    let ftl = sim.ftl();
    let g = ftl.geometry;
    let (mut own, mut other) = (0, 0);
    for (b, info) in ftl.blocks().info.iter().enumerate() {
        if info.owner() != 0 || info.valid_units() == 0 || info.stream() != 1 {
            continue;
        }
        for u in 0..g.units_per_block {
            let lpn = ftl.p2l(Ppa(b as u32 * g.units_per_block + u));
            if lpn == NONE {
                continue;
            }
            if lpn >= ns_a / 2 {
                own += 1;
            } else {
                other += 1;
            }
        }
    }
    (own, other)
}

/// Persistently isolated: no block of handle 1 holds a page of stream 0's region (an oracle on
/// the FTL's blocks, independent of the mapper's own count, which must be 0 too). Initially
/// isolated: GC copies of both handles go to handle 0, so handle 0's GC blocks hold pages of
/// stream 1's region and the mapper counts the mix.
#[test]
fn persistently_isolated_gc_never_mixes_handles() {
    for (handles, isolated) in [
        ("[\"persistently-isolated\", \"persistently-isolated\"]", true),
        ("[\"initially-isolated\", \"initially-isolated\"]", false),
    ] {
        let s = scenario::load(&engine_scenario(handles), "fdp.toml", &[], None)
            .unwrap_or_else(|e| panic!("{e}"));
        let ns_a = s.namespace_units()[0];
        let mut sim = build_simulation(&s, "unified", Path::new("."), "fdp.toml").expect("builds");
        precondition(&s, &mut sim, "fdp.toml").expect("preconditions");
        sim.run(&mut |_| {}).expect("runs");
        let (own, other) = walk(&sim, ns_a);
        assert!(own > 0, "handle 1 holds data");
        let (r, _) = sim.finish("unified").expect("finishes");
        let c = |k: &str| r.mapper_counters.iter().find(|(n, _)| *n == k).expect(k).1;
        let gc: u64 = r.tenants.iter().map(|(_, t)| t.gc_units).sum();
        assert!(gc > 0, "GC ran");
        if isolated {
            assert_eq!(other, 0, "a block of handle 1 holds {other} pages of handle 0's region");
            assert_eq!(c("pi_mixed_units"), 0.0);
            assert_eq!(c("events_media_reallocated"), 0.0, "no initially isolated data to move");
        } else {
            assert!(c("ii_mixed_units") > 0.0, "initially isolated copies mixed");
            assert!(c("events_media_reallocated") > 0.0, "GC moved initially isolated data");
        }
    }
}
