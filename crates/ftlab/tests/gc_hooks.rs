//! The per-block GC hooks (`Scheme::gc_block_die`, `StreamMapper::gc_block_stream`) against
//! the per-copy ones they replace, data-driven over every scheme of `scheme::REGISTRY` and
//! every mapper of `stream::REGISTRY` with their default configs: where a policy answers for
//! a whole victim block, its per-copy hook gives that answer for every copy of the block,
//! however many are asked in a row (a stripe or a round-robin would move on). And which
//! policies answer per block, written out by hand from their docs, so a policy that starts or
//! stops answering per block is seen. Not the engine's use of them (`tests/integrity.rs`, the
//! byte-identical bundled scenarios).

use ftlab::flash::geometry::{DieIdx, Geometry, Ppa};
use ftlab::ftl::blocks::WriteClass;
use ftlab::ftl::{Ftl, FtlParams};
use ftlab::policy::{DeviceView, DieStatus, EpochStats, Placed};
use ftlab::scenario::{self, Scenario};
use ftlab::scheme::{self, SchemeContext};
use ftlab::sim::time::SimTime;
use ftlab::stream::{self, MapperContext};

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
const SCHEMES_PER_BLOCK: &[&str] = &["unified", "partitioned", "wao-gc", "rtgc"];

/// The mappers that name one stream for a whole victim block; `dac` answers per unit.
const MAPPERS_PER_BLOCK: &[&str] = &["legacy", "direct", "manual", "autostream", "vstream", "fdp"];

#[test]
fn a_scheme_answering_per_block_gives_that_die_for_every_copy() {
    let s = load();
    let (g, ns, tasks) = (s.geometry(), s.namespace_units(), s.rt_tasks());
    let f = ftl(&g, &ns, 1);
    for info in scheme::REGISTRY {
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
