//! Tests of `autostream` (src/stream/autostream.rs) against AutoStream's rules as
//! docs/streams/autostream.md sources them: a table of hand-worked write sequences through MQ and
//! SFR, each with the streams the rules give (worked in the comments from the rules, not from
//! the code), trims, and the knobs' errors. One helper drives every case.
//!
//! The rules, as the cases use them (4 physical streams, log base 2, 1 MiB chunks of 256 units):
//! - a write takes its chunk's stream (MQ: queue) *before* the write is counted;
//! - Q(n) = min(floor(log2 n), 3), Q(0) = 0;
//! - an access is a run of a tenant's consecutive units within one chunk; an lpn that is not the previous lpn
//!   + 1 starts a new access;
//! - MQ: the tenant's clock counts accesses (1, 2, ...); an access adds 1 to the count, moves the chunk to
//!   the tail of queue Q(count) with expiry clock + lifetime; then, for queues 1..3, the head whose expiry <
//!   clock moves to the tail of the queue below, expiry clock + lifetime. Learnt lifetime: when a chunk's
//!   count exceeds the tenant's highest so far, lifetime = clock - the chunk's previous access (0 before its
//!   first);
//! - SFR: count = (count + 1) >> (whole decay periods since the previous access), stream = Q(count); a new
//!   access that continues the previous unit takes the previous unit's stream.

use ftlab::internals::flash::geometry::{BlockIdx, Geometry};
use ftlab::internals::ftl::blocks::WriteClass;
use ftlab::internals::ftl::{Ftl, FtlParams};
use ftlab::internals::policy::{Cause, DeviceView, DieStatus, EpochStats, Invalidated, Placed};
use ftlab::internals::stream::autostream::AutoStream;
use ftlab::internals::stream::{MapperContext, StreamMapper};
use ftlab::SimTime;

/// Two tenants of 1024 units (4 MiB: four 1 MiB chunks of 256 units) each.
const NS: [u32; 2] = [1024, 1024];
const MS: u64 = 1_000_000;

fn geometry() -> Geometry {
    Geometry::new(2, 1, 1, 1, 8, 8, 16384, 4096).expect("geometry")
}

fn table(text: &str) -> toml::Table {
    toml::from_str(text).expect("toml")
}

fn ctx(g: &Geometry) -> MapperContext<'_> {
    MapperContext { geometry: g, namespace_units: &NS, physical_streams: 4, fdp: None }
}

/// One step of a case.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// A host write of (tenant, lpn) at a time in ms.
    W(u16, u32, u64),
    /// A trim of (tenant, lpn).
    T(u16, u32),
}
use Op::{T, W};

/// What a case ends with, besides the streams.
#[derive(Clone, Copy, Debug, Default)]
struct After {
    demotions: u64,
    sequential_inherits: u64,
}

/// Runs `ops` through a mapper built from `config`; the streams of the writes, the mapper.
fn run(config: &str, ops: &[Op]) -> (Vec<u8>, AutoStream) {
    let g = geometry();
    let ftl = Ftl::new(
        g,
        FtlParams {
            namespace_units: NS.to_vec(),
            physical_streams: 4,
            host_reserve_blocks: 1,
            dynamic_wear_leveling: true,
            integrity: false,
            frontier_planes: 1,
            frontier_per_tenant: true,
        },
    );
    let mut m = AutoStream::new(&table(config), &ctx(&g)).unwrap_or_else(|e| panic!("{config}: {e:?}"));
    let dies = vec![DieStatus::IDLE; g.n_dies as usize];
    let st = EpochStats::new(2, g.n_dies as usize);
    let ppa = g.ppa(BlockIdx(0), 0, 0);
    let mut streams = Vec::new();
    let mut now_ms = 0;
    for &op in ops {
        match op {
            W(t, lpn, ms) => {
                now_ms = ms;
                let v = DeviceView::new(&ftl, SimTime::from_ns(ms * MS), &dies, &st);
                let s = m.host_stream(t, lpn, 0, &v);
                m.on_placed(
                    &v,
                    &Placed { tenant: t, lpn, ppa, stream: s, class: WriteClass::Host },
                    &mut Vec::new(),
                );
                streams.push(s);
            }
            T(t, lpn) => {
                let v = DeviceView::new(&ftl, SimTime::from_ns(now_ms * MS), &dies, &st);
                m.on_trim(t, lpn, 0);
                m.on_invalidated(
                    &v,
                    &Invalidated { tenant: t, lpn, ppa, cause: Cause::Trim },
                    &mut Vec::new(),
                );
            }
        }
    }
    (streams, m)
}

/// Writes of tenant 0 to `lpns`, the i-th at i ms.
fn writes(lpns: &[u32]) -> Vec<Op> {
    lpns.iter().enumerate().map(|(i, &l)| W(0, l, i as u64)).collect()
}

/// Nine accesses to chunk 0 (lpns 3 apart, none continuing the previous): counts 0..8 before
/// them, so streams Q(0..8) = 0, 0, 1, 1, 2, 2, 2, 2, 3.
const NINE: [u32; 9] = [0, 3, 6, 9, 12, 15, 18, 21, 24];
const NINE_STREAMS: [u8; 9] = [0, 0, 1, 1, 2, 2, 2, 2, 3];

struct Case {
    name: &'static str,
    config: &'static str,
    ops: Vec<Op>,
    streams: Vec<u8>,
    after: After,
    /// (tenant, lpn, count, stream) of a chunk at the end.
    chunk: Option<(u16, u32, u32, u8)>,
}

fn cases() -> Vec<Case> {
    let cat = |a: &[u8], b: &[u8]| [a, b].concat();
    vec![
        // MQ, lifetime fixed far away (nothing expires): chunk 1 written 9 times; the k-th
        // write sees count k - 1: Q(0..8).
        Case {
            name: "mq: queue by log2 of the count, looked up before the count",
            config: "variant = \"mq\"\nlifetime_accesses = 1000",
            ops: writes(&[256, 258, 260, 262, 264, 266, 268, 270, 272]),
            streams: NINE_STREAMS.to_vec(),
            after: After::default(),
            chunk: Some((0, 256, 9, 3)),
        },
        // MQ, lifetime 2. Chunk 2 (lpns 512..): clock 1..4, counts 1..4: streams Q(0..3) =
        // 0 0 1 1; it ends in q2 with expiry 4 + 2 = 6. Chunk 0 (lpns 0, 2, ..): clock 5
        // (count 1, q0) -> 0; clock 6 (count 2 -> q1) -> 0; clock 7 (count 3) -> 1, and chunk
        // 2's expiry 6 < 7: q2 -> q1, expiry 9; clock 8 (count 4 -> q2) -> 1, q1's head chunk 2
        // has 9 >= 8; clock 9 (count 5) -> 2; clock 10 (count 6) -> 2, chunk 2's 9 < 10: q1 ->
        // q0. Chunk 2 again: clock 11 -> 0 (its queue, not Q(4) = 2), count 5 -> q2; clock 12
        // -> 2.
        Case {
            name: "mq: an expired head moves down one queue per lifetime",
            config: "variant = \"mq\"\nlifetime_accesses = 2",
            ops: writes(&[512, 514, 516, 518, 0, 2, 4, 6, 8, 10, 600, 602]),
            streams: vec![0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 2],
            after: After { demotions: 2, ..After::default() },
            chunk: Some((0, 512, 6, 2)),
        },
        // MQ, learnt lifetime. Clock 1-4: chunks 0, 1, 2, 3 once (count 1; the first, chunk
        // 0, exceeds the highest count 0: lifetime 1 - 0 = 1) -> 0 each. Clock 5: chunk 0
        // count 2 > 1, lifetime 5 - 1 = 4, -> q1 (expiry 9) -> 0. Clock 6: chunk 0 count 3,
        // lifetime 6 - 5 = 1, expiry 7 -> 1. Clock 7: chunk 1 count 2 -> q1 [0, 1] -> 0; head
        // chunk 0: 7 < 7 no. Clock 8: chunk 2 count 2 -> q1 [0, 1, 2] -> 0; head chunk 0: 7 < 8:
        // -> q0. Clock 9: chunk 0 count 4 > 3, lifetime 9 - 6 = 3, -> q2 -> 0 (it was in q0);
        // head of q1, chunk 1 (expiry 8 < 9) -> q0.
        Case {
            name: "mq: the lifetime is the hottest chunk's last gap",
            config: "variant = \"mq\"",
            ops: writes(&[0, 256, 512, 768, 2, 4, 260, 520, 8]),
            streams: vec![0, 0, 0, 0, 0, 1, 0, 0, 0],
            after: After { demotions: 2, ..After::default() },
            chunk: Some((0, 0, 4, 2)),
        },
        // MQ has no sequential rule: chunk 0 is in q3 after nine writes; 254 -> 3 (count 10);
        // 255 continues it (same access) -> 3; 256 continues into chunk 1: a new access, chunk
        // 1's queue 0 -> 0; 257 the same access -> 0.
        Case {
            name: "mq: a run into another chunk takes that chunk's queue",
            config: "variant = \"mq\"\nlifetime_accesses = 1000",
            ops: writes(&[&NINE[..], &[254, 255, 256, 257]].concat()),
            streams: cat(&NINE_STREAMS, &[3, 3, 0, 0]),
            after: After::default(),
            chunk: Some((0, 256, 1, 0)),
        },
        // SFR, decay 1 s. Chunk 1 at 0..7 ms: counts 1..8 (no whole period), streams Q(0..7)
        // = 0 0 1 1 2 2 2 2; its stream is then Q(8) = 3. At 2507 ms (two whole periods after
        // 7 ms): -> 3, count (8 + 1) >> 2 = 2, stream 1. At 2517 ms: -> 1, count 3, stream 1.
        // At 50 s (47 periods): -> 1, count 0, stream 0. At 50.001 s: -> 0, count 1.
        Case {
            name: "sfr: frequency by log2, recency by whole decay periods",
            config: "variant = \"sfr\"\ndecay_period_s = 1.0",
            ops: [
                writes(&[256, 259, 262, 265, 268, 271, 274, 277]),
                vec![W(0, 400, 2507), W(0, 300, 2517), W(0, 280, 50_000), W(0, 290, 50_001)],
            ]
            .concat(),
            streams: vec![0, 0, 1, 1, 2, 2, 2, 2, 3, 1, 1, 0],
            after: After::default(),
            chunk: Some((0, 256, 1, 0)),
        },
        // SFR adds the access before it divides: chunk 2 at 0 and 1 ms (counts 1, 2: stream
        // 1); at 1500 ms (one whole period since 1 ms) -> 1, count (2 + 1) >> 1 = 1, stream 0;
        // at 1501 ms -> 0. (Dividing first would give 2 >> 1 + 1 = 2, stream 1.)
        Case {
            name: "sfr: count the access, then divide by the recency weight",
            config: "variant = \"sfr\"\ndecay_period_s = 1.0",
            ops: vec![W(0, 512, 0), W(0, 514, 1), W(0, 516, 1500), W(0, 518, 1501)],
            streams: vec![0, 0, 1, 0],
            after: After::default(),
            chunk: Some((0, 512, 2, 1)),
        },
        // SFR, decay 30 s: nine writes make chunk 0's stream 3 (count 9). 254 -> 3 (count 10);
        // 255 the same access -> 3; 256 continues into chunk 1: takes 3 (sequentiality), chunk
        // 1 counted (1, stream 0); 257 -> 3; 300 (chunk 1, not continuing) -> 0, count 2;
        // tenant 1's lpn 301 does not continue tenant 0's run: its own chunk, never written
        // -> 0.
        Case {
            name: "sfr: a write continuing the previous one takes its stream",
            config: "variant = \"sfr\"",
            ops: [
                writes(&NINE),
                vec![
                    W(0, 254, 10),
                    W(0, 255, 10),
                    W(0, 256, 10),
                    W(0, 257, 10),
                    W(0, 300, 11),
                    W(1, 301, 12),
                ],
            ]
            .concat(),
            streams: cat(&NINE_STREAMS, &[3, 3, 3, 3, 0, 0]),
            after: After { sequential_inherits: 1, ..After::default() },
            chunk: Some((0, 256, 2, 1)),
        },
        // A unit asked again right after itself (a resumed write) is the same access: lpn 10
        // three times counts once (count 1); 20 -> Q(1) = 0 (count 2); 30 -> Q(2) = 1. Were
        // each ask counted, 20 would get Q(3) = 1 and 30 Q(4) = 2.
        Case {
            name: "sfr: a unit asked again is the same access",
            config: "variant = \"sfr\"",
            ops: writes(&[10, 10, 10, 20, 30]),
            streams: vec![0, 0, 0, 0, 1],
            after: After::default(),
            chunk: Some((0, 0, 3, 1)),
        },
    ]
}

#[test]
fn hand_worked_sequences_give_the_algorithms_streams() {
    for c in cases() {
        let (streams, m) = run(c.config, &c.ops);
        assert_eq!(streams, c.streams, "{}", c.name);
        let k = m.counters_of();
        assert_eq!(k.demotions, c.after.demotions, "{}: demotions", c.name);
        assert_eq!(k.sequential_inherits, c.after.sequential_inherits, "{}: inherits", c.name);
        if let Some((t, lpn, count, stream)) = c.chunk {
            assert_eq!(m.chunk_state(t, lpn), (count, stream), "{}: chunk of {lpn}", c.name);
        }
    }
}

#[test]
fn mq_learns_the_lifetime_of_the_hottest_chunk() {
    // The third case above, step by step: lifetimes 1 (clock 1), 4 (clock 5), 1 (clock 6), 3
    // (clock 9); chunks that do not exceed the highest count leave it alone.
    let lpns = [0, 256, 512, 768, 2, 4, 260, 520, 8];
    let want = [1, 1, 1, 1, 4, 1, 1, 1, 3];
    for n in 1..=lpns.len() {
        let (_, m) = run("variant = \"mq\"", &writes(&lpns[..n]));
        assert_eq!(m.lifetime_accesses(0), want[n - 1], "after {n} writes");
    }
    // A fixed lifetime is never replaced.
    let (_, m) = run("variant = \"mq\"\nlifetime_accesses = 7", &writes(&lpns));
    assert_eq!(m.lifetime_accesses(0), 7);
}

#[test]
fn trim_resets_the_chunk() {
    // Four writes to chunk 2 (counts 1..4 -> stream/queue Q(4) = 2), then a trim of one of its
    // units: count 0, stream/queue 0, so the next write gets 0 (vStream §5.1).
    for variant in ["mq", "sfr"] {
        let config = format!("variant = \"{variant}\"\nlifetime_accesses = 1000");
        let ops = [writes(&[512, 514, 516, 518]), vec![T(0, 515), W(0, 700, 5)]].concat();
        let (streams, m) = run(&config, &ops[..4]);
        assert_eq!(streams, [0, 0, 1, 1], "{variant}");
        assert_eq!(m.chunk_state(0, 512), (4, 2), "{variant}");
        let (streams, m) = run(&config, &ops);
        assert_eq!(streams[4], 0, "{variant}");
        assert_eq!((m.chunk_state(0, 512), m.counters_of().trim_resets), ((1, 0), 1), "{variant}");
    }
    // With reset_on_trim = false the trim is ignored: the fifth write sees count 4 -> 2.
    let (streams, _) = run(
        "variant = \"sfr\"\nreset_on_trim = false",
        &[writes(&[512, 514, 516, 518]), vec![T(0, 515), W(0, 700, 5)]].concat(),
    );
    assert_eq!(streams[4], 2);
}

#[test]
fn bad_knobs_name_the_key() {
    let g = geometry();
    for (text, key) in [
        ("chunk_bytes = 1000", "chunk_bytes"),
        ("log_base = 1", "log_base"),
        ("decay_period_s = 0.0", "decay_period_s"),
        ("lifetime_accesses = -1", "lifetime_accesses"),
        ("lifetime_accesses = 1099511627777", "lifetime_accesses"),
    ] {
        let e = AutoStream::new(&table(text), &ctx(&g)).err().unwrap_or_else(|| panic!("{text} builds"));
        assert_eq!(e.key, key, "{text}");
    }
    assert!(AutoStream::new(&table("variant = \"lru\""), &ctx(&g)).is_err());
    assert!(AutoStream::new(&table("lifetime_factor = 2.0"), &ctx(&g)).is_err(), "the old knob is gone");
}
