//! The conventional write point (issue 41): where neither the scheme nor the mapper keeps
//! tenants apart (`unified` with `legacy`), every tenant's host data on a die goes through one
//! frontier, so blocks hold several tenants' data, and the block-level isolation metric says
//! so (`device.blocks_multi_tenant`, per tenant `gc_copies_for_others`); under `partitioned`,
//! with FDP handles of their own per tenant that are persistently isolated, or with
//! `ftl.frontier_per_tenant = true`, no block mixes tenants and both are 0. The FTL-level test
//! drives a block of two tenants through host writes and GC copies with the integrity oracle
//! on.

use crate::common;

use common::{run, run_raw, tiny};
use ftlab::internals::flash::geometry::{DieIdx, Geometry, Ppa};
use ftlab::internals::ftl::blocks::WriteClass;
use ftlab::internals::ftl::{FrontierKey, Ftl, FtlParams};

/// Two tenants writing at random over namespaces that fill the device, under `schemes`.
fn two_tenants(schemes: &[&str], extra: &str) -> String {
    let tenants = r#"
[precondition]
fill_fraction = 1.0
[measure]
duration_s = 1.0
[[tenants]]
name = "a"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "zipf"
read_ratio = 0.2
arrival = "closed"
[[tenants]]
name = "b"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.2
arrival = "closed"
"#;
    tiny(schemes, &format!("[scheme.partitioned]\nby = \"die\"\n{extra}"), tenants)
}

fn device(summary: &serde_json::Value, scheme: &str, key: &str) -> u64 {
    summary["schemes"][scheme]["device"][key].as_u64().unwrap_or_else(|| panic!("no {scheme}.device.{key}"))
}

/// Sum over the tenants of `key` (an integer of each tenant's summary).
fn tenants_sum(summary: &serde_json::Value, scheme: &str, key: &str) -> u64 {
    let t = summary["schemes"][scheme]["tenants"].as_object().expect("tenants");
    t.values().map(|v| v[key].as_u64().unwrap_or_else(|| panic!("no tenant {key}"))).sum()
}

#[test]
fn unified_blocks_mix_tenants_and_partitioned_do_not() {
    let s = run(&two_tenants(&["unified", "partitioned"], ""), &[]);
    assert!(device(&s, "unified", "erases") > 0, "GC ran");
    let mixed = device(&s, "unified", "blocks_multi_tenant");
    assert!(mixed > 0, "unified: no erased block held both tenants' data");
    assert!(mixed <= device(&s, "unified", "erases"));
    let others = tenants_sum(&s, "unified", "gc_copies_for_others");
    assert!(others > 0 && others <= tenants_sum(&s, "unified", "gc_pages_copied"));
    assert!(device(&s, "partitioned", "erases") > 0, "GC ran");
    assert_eq!(device(&s, "partitioned", "blocks_multi_tenant"), 0);
    assert_eq!(tenants_sum(&s, "partitioned", "gc_copies_for_others"), 0);
}

#[test]
fn frontiers_per_tenant_on_request_mix_nothing() {
    let s = run(&two_tenants(&["unified"], "[ftl]\nfrontier_per_tenant = true"), &[]);
    assert!(device(&s, "unified", "erases") > 0, "GC ran");
    assert_eq!(device(&s, "unified", "blocks_multi_tenant"), 0);
    assert_eq!(tenants_sum(&s, "unified", "gc_copies_for_others"), 0);
}

#[test]
fn mixed_runs_are_deterministic() {
    let text = two_tenants(&["unified"], "");
    let a = run_raw(&text, &[]).expect("runs");
    let b = run_raw(&text, &[]).expect("runs");
    assert_eq!(a.summary_json, b.summary_json);
    // The resolved scenario names the knob, and reproduces the run.
    assert!(a.resolved_toml.contains("frontier_per_tenant = false"), "{}", a.resolved_toml);
    let c = run_raw(&a.resolved_toml, &[]).expect("resolved scenario runs");
    assert_eq!(a.summary_json, c.summary_json);
}

/// FDP handles are the device's: with a handle per tenant (`tag = "tenant"`), persistently
/// isolated handles keep every block one tenant's through GC; initially isolated ones send
/// both tenants' GC copies to one handle, whose blocks then mix them.
#[test]
fn fdp_handles_per_tenant_mix_only_when_initially_isolated() {
    for (handles, isolated) in [("persistently-isolated", true), ("initially-isolated", false)] {
        let extra = format!(
            "[device.fdp]\nhandles = [\"{handles}\", \"{handles}\"]\n[ftl]\nphysical_streams = 2\n\
             [stream.fdp]\ntag = \"tenant\"\nplacement_handles = [0, 1]\n"
        );
        let s = run(&two_tenants(&["unified"], &extra), &["stream_mapper=\"fdp\""]);
        assert!(device(&s, "unified", "erases") > 0, "GC ran");
        let mixed = device(&s, "unified", "blocks_multi_tenant");
        assert_eq!(mixed == 0, isolated, "{handles}: {mixed} erased blocks mixed tenants");
        assert_eq!(tenants_sum(&s, "unified", "gc_copies_for_others") == 0, isolated, "{handles}");
    }
}

/// One die, shared frontiers, oracle on: two tenants' host units fill one block; GC copies
/// its valid units (each through its own tenant's mapping) into a GC block, which mixes them
/// too. The oracle checks every copy and the sweep every page (the property test in
/// `integrity.rs` erases such blocks in the engine).
#[test]
fn oracle_follows_a_block_of_two_tenants_through_gc() {
    let g = Geometry::new(1, 1, 1, 1, 16, 4, 4096, 4096).expect("geometry");
    let params = FtlParams {
        namespace_units: vec![16, 16],
        physical_streams: 1,
        host_reserve_blocks: 1,
        dynamic_wear_leveling: false,
        integrity: true,
        frontier_planes: 1,
        frontier_per_tenant: false,
    };
    let mut ftl = Ftl::new(g, params);
    let die = DieIdx(0);
    let host = |t| FrontierKey { tenant: t, stream: 0, class: WriteClass::Host };
    // Units 0..4 of the first block: a0, b0, a1, b1; then a0 and b1 are overwritten.
    let mut placed = Vec::new();
    for (t, lpn) in [(0u16, 0u32), (1, 0), (0, 1), (1, 1), (0, 0), (1, 1)] {
        let p = ftl.allocate(host(t), die, 0).expect("room");
        ftl.map_host(t, lpn, p.ppa);
        if let Some((b, page)) = p.page_full {
            ftl.programmed(b, page);
        }
        placed.push(p.ppa);
    }
    let victim = g.block_of(placed[0]);
    assert_eq!(g.block_of(placed[3]), victim, "both tenants' units share the block");
    assert!(ftl.blocks().get(victim).multi_tenant());
    assert_eq!((ftl.unit_tenant(placed[0]), ftl.unit_tenant(placed[1])), (0, 1));
    ftl.check_consistency();
    ftl.mark_victim(victim);
    // The still-valid units: b0 (unit 1) and a1 (unit 2), each copied for its own tenant.
    for src in [placed[1], placed[2]] {
        let (t, lpn) = (ftl.unit_tenant(src), ftl.p2l(src));
        let dst = ftl.allocate(FrontierKey { tenant: t, stream: 0, class: WriteClass::Gc }, die, 0);
        let dst = dst.expect("room for a copy");
        ftl.map_copy(t, lpn, src, dst.ppa);
        assert_eq!(ftl.unit_tenant(dst.ppa), t);
    }
    let gc_block = g.block_of(Ppa(ftl.l2p(1, 0)));
    assert_eq!(gc_block, g.block_of(Ppa(ftl.l2p(0, 1))));
    assert!(ftl.blocks().get(gc_block).multi_tenant(), "one GC frontier takes both tenants' copies");
    assert_eq!(ftl.blocks().get(victim).valid_units(), 0);
    ftl.check_consistency();
}
