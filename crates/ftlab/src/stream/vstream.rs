//! `vstream`: virtual stream management (Yong, Jeong, Lee and Kim, "vStream: Virtual Stream
//! Management for Multi-streamed SSDs"; `../shared/papers/vstream-*.txt`, §4).
//! Each virtual stream's lifetime is the average lifetime of its *dead* pages (§4.2): when a
//! logical page is overwritten or trimmed, its lifetime (invalidation time − write time) is
//! added to the stream's sum and its dead-page count goes up by one (lazily, only then).
//! Every epoch (`epoch_s`, default 600 s: "every 10 minutes in our evaluation", §4.3) the
//! virtual streams of each tenant are clustered by K-means (K = physical streams) on their
//! average lifetimes, and cluster `i` in increasing lifetime order becomes physical stream
//! `i`; between epochs the mapping is fixed.
//!
//! Write time: one timestamp is shared by all the logical pages programmed together (§4.2),
//! stored per *stamp group* = `stamp_group_pages` consecutive flash pages of a block (each of
//! `units_per_page` mapping units), indexed by physical address, not per logical page. With
//! 16 KiB pages of four 4 KiB units and groups of 3 pages (TLC one-shot, p = 3) that is 12
//! logical pages per stamp. The paper also shares a stamp across channels, chips, dies and
//! planes (c·w·d·b), because its FTL stripes one write over all of them at once; ftlab
//! programs each die independently, so its groups stop at one block. A GC copy keeps the
//! oldest write time of the units copied into its group (a copy is not a host write).
//!
//! Which stream a dead page belongs to: the stream of the command that kills it, as in the
//! paper's prototype ("pass stream ID along with each DISCARD command for calculating the
//! lifetime of stream data", §5.1): an overwrite's `host_stream` tag, a trim's tag (`on_trim`).
//! A virtual stream with no dead page yet keeps its current mapping; the first mapping is
//! `virtual stream mod physical streams`. Virtual stream ids at or above `virtual_streams`
//! count as the last one (and in `virtual_stream_overflows`).
//!
//! What it is not: no per-logical-page state; it does not move data when the mapping
//! changes (only later writes follow the new mapping); GC copies stay in the stream they
//! were written through. docs/streams/vstream.md.

use super::{MapperContext, MapperInfo, StreamMapper, VirtualTally};
use crate::flash::geometry::{Geometry, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::Div;
use crate::knobs::{check_all, config_fields, serde_defaults, Bounds, IntBounds, Knob, KnobKind};
use crate::policy::{
    parse_config, to_table, Cause, Command, Counters, DeviceView, Interests, Invalidated, Placed,
    SchemeConfigError,
};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

/// Knobs of `vstream` (`[stream.vstream]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct VStreamConfig {
    /// Re-clustering interval in simulated seconds, in [1e-3, 1e7]. Default 600 (§4.3).
    pub(crate) epoch_s: f64,
    /// Virtual stream ids tracked per tenant, in [1, 65536]. Default 256.
    pub(crate) virtual_streams: u32,
    /// Consecutive flash pages of a block that share one write timestamp, in [1,
    /// pages_per_block]. Default 1 (the pages one ftlab program writes: one flash page).
    pub(crate) stamp_group_pages: u32,
    /// Resolution of the 4-byte timestamps in microseconds, in [1, 3.6e9]. Default 1000
    /// (1 ms: 2^32 ticks = 49.7 days of simulated time; later stamps saturate, counted).
    pub(crate) stamp_tick_us: u64,
    /// Iteration cap of each K-means run, in [1, 10000]. Default 100.
    pub(crate) kmeans_iterations_max: u32,
}

impl Default for VStreamConfig {
    fn default() -> Self {
        VStreamConfig {
            epoch_s: 600.0,
            virtual_streams: 256,
            stamp_group_pages: 1,
            stamp_tick_us: 1000,
            kmeans_iterations_max: 100,
        }
    }
}

/// The knobs of `vstream`: the ranges `check` enforces and `ftlab mappers` lists.
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "epoch_s",
        "s",
        KnobKind::Float(Bounds::closed(1e-3, 1e7)),
        "Re-clustering interval (§4.3: 10 minutes).",
    ),
    Knob::new(
        "virtual_streams",
        "streams",
        KnobKind::Int(IntBounds::new(1, 65_536)),
        "Virtual stream ids tracked per tenant.",
    ),
    Knob::new(
        "stamp_group_pages",
        "pages",
        KnobKind::Int(IntBounds::at_least(1)),
        "Consecutive flash pages of a block that share one write timestamp.",
    )
    .also("<= pages per block"),
    Knob::new(
        "stamp_tick_us",
        "us",
        KnobKind::Int(IntBounds::new(1, 3_600_000_000)),
        "Resolution of the 4-byte write timestamps.",
    ),
    Knob::new(
        "kmeans_iterations_max",
        "iterations",
        KnobKind::Int(IntBounds::new(1, 10_000)),
        "Iteration cap of each K-means run.",
    ),
];

/// `vstream`'s registry entry.
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "vstream",
    summary: "vStream: virtual streams clustered by dead-page lifetime onto physical \
              streams every epoch.",
    knobs: KNOBS,
    fields: config_fields::<VStreamConfig>,
    defaults: serde_defaults::<VStreamConfig>,
    build,
    caps: (),
};

/// Bytes of a table of write stamps of `stamp_bytes` each, one per `pages_per_stamp` of
/// `logical_pages` logical pages (rounded up).
pub fn stamp_table_bytes(logical_pages: u64, pages_per_stamp: u64, stamp_bytes: u64) -> u64 {
    logical_pages.div_ceil(pages_per_stamp) * stamp_bytes
}

/// One-dimensional K-means (Lloyd's iterations) of `values` into at most `k` clusters.
/// Deterministic: the initial centroids are the values at the quantile midpoints
/// `(2j + 1) / 2k` of the sorted values; an empty cluster keeps its centroid; it stops when
/// no assignment changes or after `iterations_max` rounds. Returns the centroids in
/// increasing order and each value's cluster (nearest centroid, ties to the lower one).
pub fn kmeans_1d(values: &[f64], k: usize, iterations_max: u32) -> (Vec<f64>, Vec<u8>) {
    assert!(
        (1..=256).contains(&k) && iterations_max >= 1,
        "k-means with k = {k}, {iterations_max} iterations"
    );
    if values.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let k = k.min(values.len());
    let mut centroids: Vec<f64> = (0..k).map(|j| sorted[(2 * j + 1) * values.len() / (2 * k)]).collect();
    let mut assign = vec![u8::MAX; values.len()];
    let (mut sum, mut n) = (vec![0.0; k], vec![0u64; k]);
    for _ in 0..iterations_max {
        let mut changed = false;
        sum.fill(0.0);
        n.fill(0);
        for (i, &v) in values.iter().enumerate() {
            let c = nearest(&centroids, v);
            changed |= assign[i] != c as u8;
            assign[i] = c as u8;
            sum[c] += v;
            n[c] += 1;
        }
        if !changed {
            break;
        }
        for c in 0..k {
            if n[c] > 0 {
                centroids[c] = sum[c] / n[c] as f64;
            }
        }
    }
    // Lloyd's iterations keep 1-D centroids in order; relabel anyway so that cluster 0 is
    // always the smallest.
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| centroids[a].total_cmp(&centroids[b]));
    let mut rank = vec![0u8; k];
    for (r, &c) in order.iter().enumerate() {
        rank[c] = r as u8;
    }
    let assign = assign.iter().map(|&c| rank[c as usize]).collect();
    (order.iter().map(|&c| centroids[c]).collect(), assign)
}

fn nearest(centroids: &[f64], v: f64) -> usize {
    let mut best = 0;
    for (c, &x) in centroids.iter().enumerate() {
        if (v - x).abs() < (v - centroids[best]).abs() {
            best = c;
        }
    }
    best
}

pub struct VStream {
    config: VStreamConfig,
    streams: u8,
    v: usize,
    n_tenants: usize,
    geometry: Geometry,
    tick_ns: u64,
    groups_per_block: u32,
    /// `units_per_page * stamp_group_pages` when the groups tile every block exactly
    /// (`pages_per_block` a multiple of `stamp_group_pages`): then a unit's group is
    /// `ppa / units_per_group`, one division where the general form takes four (a shift
    /// where it is a power of two, the usual case: `Div`).
    units_per_group_tiled: Option<Div>,
    /// Write stamp (ticks) of each stamp group: `block * groups_per_block + page / group`.
    stamps: Vec<u32>,
    /// Per (tenant, virtual stream) at `t * v + vs`: lifetime sum (ns), dead pages, host
    /// pages written, mapped physical stream.
    lifetime_sum_ns: Vec<f64>,
    n_dead: Vec<u64>,
    n_pages: Vec<u64>,
    map: Vec<u8>,
    /// (tenant, lpn, virtual stream) of the trim being delivered.
    trim: (u16, u32, u16),
    /// Stamp of the unit a job is copying (its `Moved` event comes before its `Placed`).
    moved_stamp: u32,
    /// The last unsaturated `tick` computed, as (time in ns, ticks): the units of one request
    /// are stamped and die at one time, so the division is done once per request.
    tick_memo: (u64, u32),
    tally: VirtualTally,
    epochs: u64,
    unattributed_deaths: u64,
    stamp_saturations: u64,
    virtual_stream_overflows: u64,
}

pub(crate) fn build(
    table: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(VStream::new(table, ctx)?))
}

fn check(c: &VStreamConfig, g: &Geometry) -> Result<(), SchemeConfigError> {
    check_all(KNOBS, c)?;
    if c.stamp_group_pages > g.pages_per_block {
        let reason =
            format!("must be in [1, {}] (pages per block), got {}", g.pages_per_block, c.stamp_group_pages);
        return Err(SchemeConfigError::new("stamp_group_pages", reason));
    }
    Ok(())
}

impl VStream {
    pub fn new(table: &toml::Table, ctx: &MapperContext) -> Result<VStream, SchemeConfigError> {
        let config: VStreamConfig = parse_config(table)?;
        let g = *ctx.geometry;
        check(&config, &g)?;
        let groups_per_block = g.pages_per_block.div_ceil(config.stamp_group_pages);
        let (v, n_tenants, s) =
            (config.virtual_streams as usize, ctx.namespace_units.len(), ctx.physical_streams);
        let map = (0..n_tenants * v).map(|i| ((i % v) % s as usize) as u8).collect();
        let units_per_group_tiled = g
            .pages_per_block
            .is_multiple_of(config.stamp_group_pages)
            .then(|| Div::new(g.units_per_page * config.stamp_group_pages));
        Ok(VStream {
            streams: s,
            v,
            n_tenants,
            geometry: g,
            tick_ns: config.stamp_tick_us * 1000,
            groups_per_block,
            units_per_group_tiled,
            stamps: vec![0; g.n_blocks as usize * groups_per_block as usize],
            lifetime_sum_ns: vec![0.0; n_tenants * v],
            n_dead: vec![0; n_tenants * v],
            n_pages: vec![0; n_tenants * v],
            map,
            trim: (u16::MAX, u32::MAX, 0),
            moved_stamp: 0,
            tick_memo: (0, 0),
            tally: VirtualTally::default(),
            epochs: 0,
            unattributed_deaths: 0,
            stamp_saturations: 0,
            virtual_stream_overflows: 0,
            config,
        })
    }

    /// Index of (tenant, virtual stream); ids beyond the tracked ones count as the last.
    #[inline]
    fn slot(&self, tenant: u16, vs: u16) -> usize {
        tenant as usize * self.v + (vs as usize).min(self.v - 1)
    }

    /// The stamp group of a unit, and whether it is the group's first unit.
    #[inline]
    pub(crate) fn group_of(&self, ppa: Ppa) -> (usize, bool) {
        if let Some(units) = self.units_per_group_tiled {
            // ppa = block·ppb·upp + page·upp + u, with ppb = k·group: ppa / (group·upp) is
            // block·k + page / group (u < upp), and the remainder is 0 exactly at a group's
            // first unit.
            return (units.div(ppa.0) as usize, units.divides(ppa.0));
        }
        let g = &self.geometry;
        let block = g.block_of(ppa).0;
        let page = g.page_of(ppa);
        let first =
            page.is_multiple_of(self.config.stamp_group_pages) && ppa.0.is_multiple_of(g.units_per_page);
        ((block * self.groups_per_block + page / self.config.stamp_group_pages) as usize, first)
    }

    #[inline]
    fn tick(&mut self, now: SimTime) -> u32 {
        if now.ns() == self.tick_memo.0 {
            return self.tick_memo.1;
        }
        let t = now.ns() / self.tick_ns;
        if t > u32::MAX as u64 {
            // Not kept: each saturated stamp is counted.
            self.stamp_saturations += 1;
            return u32::MAX;
        }
        self.tick_memo = (now.ns(), t as u32);
        t as u32
    }

    /// A host unit landed at `ppa` at `now`: the first unit of a group stamps it.
    pub(crate) fn stamp_host(&mut self, ppa: Ppa, now: SimTime) {
        let (g, first) = self.group_of(ppa);
        if first {
            self.stamps[g] = self.tick(now);
        }
    }

    /// A job's copy landed at `ppa`: its group keeps the oldest write time copied into it.
    fn stamp_copy(&mut self, ppa: Ppa) {
        let (g, first) = self.group_of(ppa);
        self.stamps[g] = if first { self.moved_stamp } else { self.stamps[g].min(self.moved_stamp) };
    }

    /// A page of (tenant, vs) written in the group of `ppa` died at `now`.
    pub(crate) fn record_death(&mut self, tenant: u16, vs: u16, ppa: Ppa, now: SimTime) {
        let (g, _) = self.group_of(ppa);
        let ticks = self.tick(now).saturating_sub(self.stamps[g]);
        let i = self.slot(tenant, vs);
        self.lifetime_sum_ns[i] += ticks as f64 * self.tick_ns as f64;
        self.n_dead[i] += 1;
    }

    /// Average dead-page lifetime of (tenant, vs) in ns, if it has dead pages.
    pub fn lifetime_ns_mean(&self, tenant: u16, vs: u16) -> Option<f64> {
        let i = self.slot(tenant, vs);
        (self.n_dead[i] > 0).then(|| self.lifetime_sum_ns[i] / self.n_dead[i] as f64)
    }

    /// The physical stream of (tenant, vs) until the next epoch.
    pub fn physical_stream(&self, tenant: u16, vs: u16) -> u8 {
        self.map[self.slot(tenant, vs)]
    }

    /// Re-cluster every tenant's virtual streams that have dead pages (the epoch's work).
    pub(crate) fn recluster(&mut self) {
        for t in 0..self.n_tenants {
            let base = t * self.v;
            let ids: Vec<usize> = (base..base + self.v).filter(|&i| self.n_dead[i] > 0).collect();
            let means: Vec<f64> =
                ids.iter().map(|&i| self.lifetime_sum_ns[i] / self.n_dead[i] as f64).collect();
            let (_, assign) = kmeans_1d(&means, self.streams as usize, self.config.kmeans_iterations_max);
            for (&i, &c) in ids.iter().zip(&assign) {
                self.map[i] = c;
            }
        }
        self.epochs += 1;
    }

    /// Bytes of state: the stamp table, the per-stream arrays, the tally.
    pub(crate) fn memory_bytes(&self) -> u64 {
        let per_stream = (8 + 8 + 8 + 1) * self.map.len() as u64;
        self.stamp_bytes() + per_stream + 8 * self.tally.n_pages.len() as u64
    }

    /// Bytes of the write-stamp table alone.
    pub fn stamp_bytes(&self) -> u64 {
        4 * self.stamps.len() as u64
    }

    /// Mapping units that share one write stamp (`units_per_page` x `stamp_group_pages`): the
    /// factor by which the stamp table is smaller than one stamp per logical page (§4.2's 768).
    pub(crate) fn units_per_stamp(&self) -> u64 {
        u64::from(self.geometry.units_per_page) * u64::from(self.config.stamp_group_pages)
    }

    fn push_stream_counters(&self, out: &mut Counters) {
        for t in 0..self.n_tenants {
            for vs in 0..self.v {
                let i = t * self.v + vs;
                if self.n_pages[i] == 0 && self.n_dead[i] == 0 {
                    continue;
                }
                let name = |k: &str| super::counter_name(format!("t{t}_vs{vs}_{k}"));
                out.push((name("n_pages"), self.n_pages[i] as f64));
                out.push((name("n_dead"), self.n_dead[i] as f64));
                out.push((
                    name("lifetime_ns_mean"),
                    self.lifetime_ns_mean(t as u16, vs as u16).unwrap_or(0.0),
                ));
                out.push((name("physical_stream"), self.map[i] as f64));
            }
        }
    }
}

impl StreamMapper for VStream {
    fn name(&self) -> &'static str {
        "vstream"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, invalidated: true, erased: false }
    }
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, _view: &DeviceView) -> u8 {
        self.tally.asked(tenant, lpn, virtual_stream);
        self.map[self.slot(tenant, virtual_stream)]
    }
    fn gc_stream(&mut self, _tenant: u16, _lpn: u32, from_stream: u8, _view: &DeviceView) -> u8 {
        from_stream
    }
    /// The victim's own stream, for every unit of it.
    fn gc_block_stream(&self, _tenant: u16, from_stream: u8) -> Option<u8> {
        Some(from_stream)
    }
    fn epoch(&self) -> Option<SimTime> {
        Some(SimTime::from_secs_f64(self.config.epoch_s))
    }
    fn on_epoch(&mut self, _view: &DeviceView, _cmds: &mut Vec<Command>) {
        self.recluster();
    }
    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, _cmds: &mut Vec<Command>) {
        match ev.class {
            WriteClass::Host => {
                if let Some(vs) = self.tally.placed(ev.tenant, ev.lpn) {
                    self.virtual_stream_overflows += (vs as usize >= self.v) as u64;
                    let i = self.slot(ev.tenant, vs);
                    self.n_pages[i] += 1;
                }
                self.stamp_host(ev.ppa, view.now);
            }
            WriteClass::Gc => self.stamp_copy(ev.ppa),
            _ => {}
        }
    }
    /// The dead unit's stamp group, which `record_death` reads.
    fn prefetch_death(&self, ppa: Ppa) {
        crate::ftl::table::prefetch(&self.stamps, self.group_of(ppa).0);
    }
    fn on_trim(&mut self, tenant: u16, lpn: u32, virtual_stream: u16) {
        self.trim = (tenant, lpn, virtual_stream);
    }
    fn on_invalidated(&mut self, view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        let vs = match ev.cause {
            Cause::Moved => {
                self.moved_stamp = self.stamps[self.group_of(ev.ppa).0];
                return;
            }
            Cause::Overwrite => self.tally.pending(ev.tenant, ev.lpn),
            Cause::Trim => (self.trim.0 == ev.tenant && self.trim.1 == ev.lpn).then_some(self.trim.2),
        };
        match vs {
            Some(vs) => self.record_death(ev.tenant, vs, ev.ppa, view.now),
            None => self.unattributed_deaths += 1,
        }
    }
    /// `epochs`, `memory_bytes`, `stamp_bytes`, `unattributed_deaths`, `stamp_saturations`,
    /// `virtual_stream_overflows`, then per (tenant, virtual stream) with pages:
    /// `t<t>_vs<v>_n_pages`, `_n_dead`, `_lifetime_ns_mean`, `_physical_stream`.
    fn counters(&self, out: &mut Counters) {
        out.extend([
            ("epochs", self.epochs as f64),
            ("memory_bytes", self.memory_bytes() as f64),
            ("stamp_bytes", self.stamp_bytes() as f64),
            ("units_per_stamp", self.units_per_stamp() as f64),
            ("unattributed_deaths", self.unattributed_deaths as f64),
            ("stamp_saturations", self.stamp_saturations as f64),
            ("virtual_stream_overflows", self.virtual_stream_overflows as f64),
        ]);
        self.push_stream_counters(out);
    }
    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}
