//! The per-block GC hooks (`Scheme::gc_block_die`, `StreamMapper::gc_block_stream`) against
//! the per-copy ones they replace, data-driven over every scheme of `scheme::REGISTRY` and
//! every mapper of `stream::REGISTRY` with their default configs: where a policy answers for
//! a whole victim block, its per-copy hook gives that answer for every copy of the block,
//! however many are asked in a row (a stripe or a round-robin would move on). And which
//! policies answer per block, written out by hand from their docs, so a policy that starts or
//! stops answering per block is seen. Then the one-loop copies they allow
//! (`Ftl::copy_block_at_once`) against `allocate`, `map_copy` and `programmed` unit by unit:
//! the same FTL state, table by table. Not the engine's use of them (`tests/integrity.rs`, the
//! byte-identical bundled scenarios).

use ftlab::internals::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
use ftlab::internals::ftl::blocks::{BlockState, WriteClass};
use ftlab::internals::ftl::copy::CopyRun;
use ftlab::internals::ftl::{FrontierKey, Ftl, FtlParams, NONE};
use ftlab::internals::policy::{DeviceView, DieStatus, EpochStats, Placed};
use ftlab::internals::scenario;
use ftlab::internals::scheme::{self, SchemeContext};
use ftlab::internals::stream::{self, MapperContext};
use ftlab::{Scenario, SimTime};

/// Two tenants on `tiny` with room for every scheme's defaults (as `tests/knobs.rs`).
fn load() -> Scenario {
    let tenant = |name: &str| {
        format!(
            "[[tenants]]\nname = \"{name}\"\nnamespace_fraction = 0.3\n[tenants.synthetic]\nrequests = 10\n"
        )
    };
    let text = format!(
        "seed = 1\nschemes = [\"unified\"]\n[device]\npreset = \"tiny\"\nover_provisioning = 1.0\n{}{}",
        tenant("a"),
        tenant("b")
    );
    scenario::load(&text, "gc_hooks.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

fn ftl(g: &Geometry, ns: &[u32], streams: u8) -> Ftl {
    Ftl::new(
        *g,
        FtlParams {
            namespace_units: ns.to_vec(),
            physical_streams: streams,
            host_reserve_blocks: 1,
            dynamic_wear_leveling: true,
            integrity: false,
            frontier_planes: 1,
            frontier_per_tenant: true,
        },
    )
}

fn at<R>(ftl: &Ftl, f: impl FnOnce(&DeviceView) -> R) -> R {
    let dies = vec![DieStatus::IDLE; ftl.geometry.n_dies as usize];
    let st = EpochStats::new(ftl.n_tenants(), ftl.geometry.n_dies as usize);
    f(&DeviceView::new(ftl, SimTime::ZERO, &dies, &st))
}

/// The schemes that name one die for a whole victim block (their docs); the others answer
/// per copy.
const SCHEMES_PER_BLOCK: &[&str] = &["unified", "partitioned", "wao-gc", "rtgc", "iod"];

/// The mappers that name one stream for a whole victim block; `dac` answers per unit.
const MAPPERS_PER_BLOCK: &[&str] = &["legacy", "direct", "manual", "autostream", "vstream", "fdp"];

#[test]
fn a_scheme_answering_per_block_gives_that_die_for_every_copy() {
    let s = load();
    let (g, ns, tasks) = (s.geometry(), s.namespace_units(), s.rt_tasks());
    let f = ftl(&g, &ns, 1);
    for info in ftlab::SCHEMES {
        let ctx = SchemeContext {
            geometry: &g,
            namespace_units: &ns,
            over_provisioning: s.device.over_provisioning,
            timing: s.timing(),
            low_watermark_blocks: s.ftl.gc_low_watermark_blocks,
            tasks: &tasks,
            scheduler: s.ftl.scheduler,
        };
        let mut sch = scheme::build(info.name, &(info.defaults)(), &ctx).unwrap_or_else(|e| panic!("{e:?}"));
        let mut answered = false;
        for t in 0..ns.len() as u16 {
            // A tenant's victims lie on dies it writes: those its host pages go to.
            let mut dies: Vec<DieIdx> =
                (0..2 * g.n_dies).map(|_| at(&f, |v| sch.host_write_die(t, 0, v))).collect();
            dies.sort_by_key(|d| d.0);
            dies.dedup();
            for d in dies {
                let Some(block_die) = sch.gc_block_die(t, d) else { continue };
                answered = true;
                for k in 0..3 * g.units_per_block {
                    let die = at(&f, |v| sch.gc_write_die(t, d, v));
                    assert_eq!(
                        die, block_die,
                        "{}: copy {k} of tenant {t}'s victim on die {}",
                        info.name, d.0
                    );
                }
            }
        }
        let want = SCHEMES_PER_BLOCK.contains(&info.name);
        assert_eq!(answered, want, "{}: answers per block", info.name);
    }
}

#[test]
fn a_mapper_answering_per_block_gives_that_stream_for_every_unit() {
    let s = load();
    let (g, ns) = (s.geometry(), s.namespace_units());
    let streams = 4u8;
    let mut f = ftl(&g, &ns, streams);
    for info in stream::REGISTRY {
        let ctx = MapperContext { geometry: &g, namespace_units: &ns, physical_streams: streams, fdp: None };
        let mut m = stream::build(info.name, &(info.defaults)(), &ctx).unwrap_or_else(|e| panic!("{e:?}"));
        // Some host writes first (virtual streams 0-7, units written twice), so a mapper whose
        // state follows them has some.
        for i in 0..64u32 {
            let (t, lpn, vs) = ((i % 2) as u16, i % 24, (i % 8) as u16);
            let st = at(&f, |v| m.host_stream(t, lpn, vs, v));
            let ev = Placed { tenant: t, lpn, ppa: Ppa(i), stream: st, class: WriteClass::Host };
            at(&f, |v| m.on_placed(v, &ev, &mut Vec::new()));
        }
        let mut answered = false;
        for t in 0..ns.len() as u16 {
            for from in 0..streams {
                let Some(block_stream) = m.gc_block_stream(t, from) else { continue };
                answered = true;
                for lpn in 0..3 * g.units_per_block {
                    let st = at(&f, |v| m.gc_stream(t, lpn % ns[t as usize], from, v));
                    assert_eq!(
                        st, block_stream,
                        "{}: unit {lpn} of tenant {t} from stream {from}",
                        info.name
                    );
                }
            }
        }
        let want = MAPPERS_PER_BLOCK.contains(&info.name);
        assert_eq!(answered, want, "{}: answers per block", info.name);
        f = ftl(&g, &ns, streams);
    }
}

/// Host writes of tenant 0 on die 0 until `n_blocks` blocks are full and programmed, with
/// overwrites drawn by an LCG (so victims hold valid and invalid units).
fn written(g: &Geometry, n_blocks: u32) -> Ftl {
    let ns = [g.units_per_block * 3];
    let mut f = ftl(g, &ns, 1);
    let key = FrontierKey { tenant: 0, stream: 0, class: WriteClass::Host };
    let mut x = 12345u64;
    for i in 0..n_blocks * g.units_per_block {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let lpn = if i < ns[0] { i } else { (x >> 33) as u32 % ns[0] };
        let p = f.allocate(key, DieIdx(0), i as i64).expect("room");
        f.map_host(0, lpn, p.ppa);
        if let Some((b, page)) = p.page_full {
            f.programmed(b, page);
        }
    }
    f
}

/// `copy_block_at_once` done unit by unit, as the engine's page-by-page path does it.
fn copy_unit_by_unit(
    f: &mut Ftl,
    victim: BlockIdx,
    from_page: u32,
    key: FrontierKey,
    die: DieIdx,
) -> CopyRun {
    let g = f.geometry;
    let mut run = CopyRun::default();
    for page in from_page..g.pages_per_block {
        let mut read = false;
        for slot in 0..g.units_per_page {
            let src = g.ppa(victim, page, slot);
            let lpn = f.p2l(src);
            if lpn == NONE {
                continue;
            }
            read = true;
            let p = f.allocate(key, die, -7).expect("room for a copy");
            f.map_copy(key.tenant, lpn, src, p.ppa);
            if let Some((b, pg)) = p.page_full {
                f.programmed(b, pg);
                run.pages_programmed += 1;
            }
            run.units += 1;
        }
        run.pages_read += read as u32;
    }
    run
}

/// Every table the two FTLs hold, compared entry by entry.
fn assert_same(a: &mut Ftl, b: &mut Ftl, what: &str) {
    let g = a.geometry;
    for u in 0..g.n_units() as u32 {
        assert_eq!(a.p2l(Ppa(u)), b.p2l(Ppa(u)), "{what}: P2L of unit {u}");
    }
    for lpn in 0..a.params.namespace_units[0] {
        assert_eq!(a.l2p(0, lpn), b.l2p(0, lpn), "{what}: L2P of {lpn}");
    }
    for (i, (x, y)) in a.blocks().info.iter().zip(&b.blocks().info).enumerate() {
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "{what}: block {i}");
    }
    assert_eq!(a.blocks().greedy_keys(), b.blocks().greedy_keys(), "{what}: greedy keys");
    for d in 0..g.n_dies {
        assert_eq!(a.valid_units_on(0, DieIdx(d)), b.valid_units_on(0, DieIdx(d)), "{what}: die {d}");
    }
    a.check_consistency();
    b.check_consistency();
}

#[test]
fn copying_a_victim_in_one_loop_leaves_the_state_unit_by_unit_copies_leave() {
    // Pages of 4 units and of 1; copies onto the victim's die and onto the other; from the
    // first page and from a middle one; two victims in a row (the second starts in the
    // frontier block the first left partly filled, and fills it).
    for page_bytes in [16384, 4096] {
        let g = Geometry::new(2, 1, 1, 1, 16, 16, page_bytes, 4096).expect("geometry");
        for (die, from_page) in [(0, 0), (1, 0), (0, 3), (1, 5)] {
            let (die, what) =
                (DieIdx(die), format!("{page_bytes} B pages, die {die}, from page {from_page}"));
            let mut a = written(&g, 6);
            let key = FrontierKey { tenant: 0, stream: 0, class: WriteClass::Gc };
            for victim in [BlockIdx(1), BlockIdx(3)] {
                assert_eq!(a.blocks().get(victim).state(), BlockState::Full);
                a.mark_victim(victim);
                let mut b = a.clone();
                let want = copy_unit_by_unit(&mut a, victim, from_page, key, die);
                let got = b.copy_block_at_once(victim, from_page, key, die, -7, 24).expect("one plane");
                assert!(want.units > 0, "{what}: victim {} held no valid unit", victim.0);
                assert_eq!(got, want, "{what}: what the copies of victim {} did", victim.0);
                assert_same(&mut a, &mut b, &what);
            }
        }
    }
}
