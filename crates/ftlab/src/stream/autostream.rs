//! `autostream`: automatic stream assignment by the write history of 1 MiB chunks (Yang,
//! Pandurangan, Choi and Balakrishnan, "AutoStream: automatic stream management for
//! multi-streamed SSDs", SYSTOR '17), both of its algorithms (`variant`):
//!
//! - **MQ** (multi-queue): one LRU queue per physical stream. A write to a chunk counts an
//!   access; the chunk goes to queue `floor(log_b(count))` (capped at the last stream), at its
//!   tail, and gets an expiry time `now + lifetime`. After each access, the head (least
//!   recently written chunk) of every queue above 0 whose expiry has passed is demoted one
//!   queue, with a fresh expiry. The lifetime is `lifetime_factor` x an estimate of the time
//!   between two writes of a chunk (an exponential moving average of the gaps observed).
//! - **SFR** (sequentiality, frequency, recency): a per-chunk access count that is halved for
//!   every `decay_period_s` elapsed since the chunk's last access (recency), then incremented
//!   (frequency); the chunk's stream is `floor(log_b(count))` (capped). A write that starts
//!   where the tenant's previous write ended inherits that write's stream (sequentiality).
//!
//! Sources followed (no code copied): the AutoStream abstract (SYSTOR '17); the vStream paper's
//! description (§3: "assigns a stream ID by monitoring the update frequency"; §5.1: the count
//! is reset on a discard; §5.2: "the large chunk unit (1MB in size by default)", "classifies
//! logical pages according to their update frequencies in logarithmic scale"); Samsung's
//! patents on the algorithm, US 10,656,838 B2 and US 11,392,297 B2 ("Automatic stream
//! detection & assignment algorithm": chunk IDs from LBAs, an SFR table, claim 3 "select a
//! previous stream if the logical address is sequential to a second logical address of a
//! previous command", claim 4 "calculate a recency weight based on a current access time
//! ..., a previous access time ..., and a decay period; adjust an access count ... based on
//! the recency weight"); and the structure of a public OpenSSD-style reimplementation found by
//! code search (MQ: queue by the log of a chunk's count, expiry from a device lifetime,
//! demotion of expired queue heads; SFR: count divided by 2^(elapsed / decay period)).
//!
//! Constants and why:
//! - `chunk_bytes` = 1 MiB: the paper's default chunk (vStream §5.2).
//! - `log_base` = 2: the "logarithmic scale" of §5.2; base 2 gives four streams for counts
//!   1, 2-3, 4-7, 8+ (a base-10 scale would need 1000 writes of a chunk to reach stream 3).
//! - `decay_period_s` = 30 s: ours (the public reimplementation uses the same period); the
//!   order of a file system's dirty-data writeback interval, so a chunk rewritten by every
//!   writeback keeps its count.
//! - `lifetime_factor` = 2: ours; a chunk is late once it has not been written for twice the
//!   typical gap between writes of a chunk.
//! - `LIFETIME_EMA_SHIFT` = 4 (weight 1/16 per observed gap): ours; averages over the last
//!   ~16 rewrites, so one odd gap does not move the lifetime much.
//! - An access is one sequential run of a tenant's units within one chunk (the algorithm
//!   counts requests; ftlab asks per mapping unit), so a 1 MiB write counts once per chunk it
//!   touches. A unit asked again right after itself (a write resumed after a stall) is the
//!   same access.
//!
//! State is flat vectors over every tenant's chunks (namespace sizes / chunk size), allocated
//! at build; the MQ queues are intrusive doubly linked lists over chunk indices. GC copies stay
//! in the stream they were written through (AutoStream runs in the host and never sees GC).
//!
//! What it is not: no per-page state (that is `dac`); virtual stream tags are ignored (only
//! counted). docs/streams/autostream.md.

use super::{MapperContext, MapperInfo, StreamMapper, VirtualTally};
use crate::knobs::{check_all, config_fields, serde_defaults, Bounds, IntBounds, Knob, KnobKind};
use crate::ftl::blocks::WriteClass;
use crate::policy::{parse_config, to_table, Cause, Command, Counters, DeviceView, Interests, Invalidated, Placed, SchemeConfigError};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

/// Weight 2^-4 = 1/16 of each observed gap in the lifetime estimate (see the module doc).
const LIFETIME_EMA_SHIFT: u32 = 4;
/// No chunk (list links, a tenant's previous unit).
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Mq,
    Sfr,
}

/// Knobs of `autostream` (`[stream.autostream]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AutoStreamConfig {
    /// `"mq"` (multi-queue) or `"sfr"` (sequentiality, frequency, recency). Default "sfr".
    pub variant: Variant,
    /// Chunk size in bytes: a multiple of the mapping unit, in [unit, 1 GiB]. Default 1 MiB.
    pub chunk_bytes: u64,
    /// Base of the logarithm from access count to stream, in [2, 1024]. Default 2.
    pub log_base: u32,
    /// SFR: a chunk's count halves per period elapsed since its last access; simulated
    /// seconds in [1e-6, 1e9]. Default 30.
    pub decay_period_s: f64,
    /// MQ: expiry = last access + this x the lifetime estimate; in (0, 1e6]. Default 2.
    pub lifetime_factor: f64,
    /// Reset a chunk's count (and stream) when the host trims one of its units (vStream
    /// §5.1). Default true.
    pub reset_on_trim: bool,
}

impl Default for AutoStreamConfig {
    fn default() -> Self {
        AutoStreamConfig {
            variant: Variant::Sfr,
            chunk_bytes: 1 << 20,
            log_base: 2,
            decay_period_s: 30.0,
            lifetime_factor: 2.0,
            reset_on_trim: true,
        }
    }
}

/// The knobs of `autostream`: the ranges `check` enforces and `ftlab mappers` lists.
pub const KNOBS: &[Knob] = &[
    Knob::new("variant", "", KnobKind::Choice(&["mq", "sfr"]), "Multi-queue, or sequentiality-frequency-recency."),
    Knob::new("chunk_bytes", "bytes", KnobKind::Int(IntBounds::new(1, 1 << 30)), "Chunk whose write history picks the stream.")
        .also("a multiple of the mapping unit, at least one unit"),
    Knob::new("log_base", "", KnobKind::Int(IntBounds::new(2, 1024)), "Base of the logarithm from access count to stream."),
    Knob::new("decay_period_s", "s", KnobKind::Float(Bounds::closed(1e-6, 1e9)), "SFR: a chunk's count halves per period elapsed since its last access."),
    Knob::new("lifetime_factor", "", KnobKind::Float(Bounds::open_lo(0.0, 1e6)), "MQ: expiry = last access + this x the lifetime estimate."),
    Knob::new("reset_on_trim", "", KnobKind::Bool, "Reset a chunk's count (and stream) when the host trims one of its units."),
];

/// `autostream`'s registry entry.
pub const INFO: MapperInfo = MapperInfo {
    name: "autostream",
    summary: "AutoStream (SYSTOR '17): streams by the write history of 1 MiB chunks, MQ or SFR.",
    knobs: KNOBS,
    fields: config_fields::<AutoStreamConfig>,
    defaults: serde_defaults::<AutoStreamConfig>,
    build,
};

/// What the mapper did, summed over tenants.
#[derive(Clone, Debug, Default)]
pub struct AutoStreamCounters {
    /// Host units written through physical stream `p` (index `p`).
    pub host_n_pages: Vec<u64>,
    /// Chunk accesses (sequential runs within a chunk).
    pub accesses: u64,
    /// MQ: accesses that moved a chunk to a higher queue.
    pub promotions: u64,
    /// MQ: expired queue heads moved down one queue.
    pub demotions: u64,
    /// SFR: units that inherited the stream of the write they continue.
    pub sequential_inherits: u64,
    /// Trimmed units whose chunk was reset.
    pub trim_resets: u64,
}

pub struct AutoStream {
    config: AutoStreamConfig,
    streams: u8,
    units_per_chunk: u32,
    decay_ns: u64,
    /// First chunk of each tenant.
    chunk_base: Vec<u32>,
    count: Vec<u32>,
    /// MQ: the chunk's queue; SFR: its stream.
    stream: Vec<u8>,
    /// Time of the chunk's last access, ns; `u64::MAX` never.
    last_ns: Vec<u64>,
    /// MQ only (empty for SFR): expiry, ns, and the queue links.
    expire_ns: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// MQ: head and tail of queue `q` of tenant `t` at `t * streams + q`.
    head: Vec<u32>,
    tail: Vec<u32>,
    /// Per tenant: MQ's lifetime estimate (ns), its previous unit, stream and chunk.
    gap_ema_ns: Vec<u64>,
    last_lpn: Vec<u32>,
    last_stream: Vec<u8>,
    last_chunk: Vec<u32>,
    counters: AutoStreamCounters,
    tally: VirtualTally,
}

pub fn build(table: &toml::Table, ctx: &MapperContext) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(AutoStream::new(table, ctx)?))
}

fn check(c: &AutoStreamConfig, unit_bytes: u64) -> Result<(), SchemeConfigError> {
    check_all(KNOBS, c)?;
    if c.chunk_bytes < unit_bytes || !c.chunk_bytes.is_multiple_of(unit_bytes) {
        return Err(SchemeConfigError::new(
            "chunk_bytes",
            format!("must be a multiple of the mapping unit ({unit_bytes} B) in [{unit_bytes}, 2^30], got {}", c.chunk_bytes),
        ));
    }
    Ok(())
}

impl AutoStream {
    pub fn new(table: &toml::Table, ctx: &MapperContext) -> Result<AutoStream, SchemeConfigError> {
        let config: AutoStreamConfig = parse_config(table)?;
        check(&config, ctx.geometry.unit_bytes as u64)?;
        let units_per_chunk = (config.chunk_bytes / ctx.geometry.unit_bytes as u64) as u32;
        let mut chunk_base = Vec::with_capacity(ctx.namespace_units.len());
        let mut n = 0u64;
        for &units in ctx.namespace_units {
            chunk_base.push(n as u32);
            n += units.div_ceil(units_per_chunk) as u64;
        }
        assert!(n < NONE as u64, "{n} chunks overflow the chunk index");
        let (n, t, s) = (n as usize, ctx.namespace_units.len(), ctx.physical_streams);
        let mq = config.variant == Variant::Mq;
        let per = |v: u32| if mq { vec![v; n] } else { Vec::new() };
        let mut m = AutoStream {
            decay_ns: (config.decay_period_s * 1e9).round().max(1.0) as u64,
            config,
            streams: s,
            units_per_chunk,
            chunk_base,
            count: vec![0; n],
            stream: vec![0; n],
            last_ns: vec![u64::MAX; n],
            expire_ns: if mq { vec![u64::MAX; n] } else { Vec::new() },
            prev: per(NONE),
            next: per(NONE),
            head: vec![NONE; t * s as usize],
            tail: vec![NONE; t * s as usize],
            gap_ema_ns: vec![0; t],
            last_lpn: vec![NONE; t],
            last_stream: vec![0; t],
            last_chunk: vec![NONE; t],
            counters: AutoStreamCounters { host_n_pages: vec![0; s as usize], ..Default::default() },
            tally: VirtualTally::default(),
        };
        if mq {
            m.fill_queue_zero(ctx.namespace_units);
        }
        Ok(m)
    }

    /// MQ: every chunk starts in queue 0 of its tenant, in chunk order.
    fn fill_queue_zero(&mut self, namespace_units: &[u32]) {
        for (t, &units) in namespace_units.iter().enumerate() {
            let base = self.chunk_base[t];
            for c in base..base + units.div_ceil(self.units_per_chunk) {
                self.push_tail(t as u16, 0, c);
            }
        }
    }

    /// The chunk of `lpn` of `tenant`.
    #[inline]
    pub fn chunk_of(&self, tenant: u16, lpn: u32) -> u32 {
        self.chunk_base[tenant as usize] + lpn / self.units_per_chunk
    }

    /// The chunk's access count, and its stream (MQ: its queue).
    pub fn chunk_state(&self, tenant: u16, lpn: u32) -> (u32, u8) {
        let c = self.chunk_of(tenant, lpn) as usize;
        (self.count[c], self.stream[c])
    }

    /// MQ: the lifetime estimate of `tenant` (ns; 0 = none yet).
    pub fn lifetime_ns(&self, tenant: u16) -> u64 {
        (self.gap_ema_ns[tenant as usize] as f64 * self.config.lifetime_factor) as u64
    }

    pub fn counters_of(&self) -> &AutoStreamCounters {
        &self.counters
    }

    /// Bytes of state.
    pub fn memory_bytes(&self) -> u64 {
        let n = self.count.len() as u64;
        let per_chunk = 4 + 1 + 8 + if self.config.variant == Variant::Mq { 8 + 4 + 4 } else { 0 };
        n * per_chunk + (self.head.len() as u64) * 8 + self.last_lpn.len() as u64 * (8 + 4 + 1 + 4)
    }

    /// Stream of a count: `floor(log_b(count))`, capped at the last stream.
    #[inline]
    fn stream_of_count(&self, count: u32) -> u8 {
        if count == 0 {
            return 0;
        }
        (count.ilog(self.config.log_base)).min(self.streams as u32 - 1) as u8
    }

    fn push_tail(&mut self, t: u16, q: u8, c: u32) {
        let qi = t as usize * self.streams as usize + q as usize;
        let (cu, old_tail) = (c as usize, self.tail[qi]);
        self.prev[cu] = old_tail;
        self.next[cu] = NONE;
        if old_tail == NONE {
            self.head[qi] = c;
        } else {
            self.next[old_tail as usize] = c;
        }
        self.tail[qi] = c;
        self.stream[cu] = q;
    }

    fn unlink(&mut self, t: u16, c: u32) {
        let cu = c as usize;
        let qi = t as usize * self.streams as usize + self.stream[cu] as usize;
        let (p, n) = (self.prev[cu], self.next[cu]);
        if p == NONE {
            self.head[qi] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail[qi] = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    /// MQ access of chunk `c`: count it, learn the gap, move it to the tail of its queue.
    fn mq_access(&mut self, t: u16, c: u32, now: u64) -> u8 {
        let cu = c as usize;
        if self.last_ns[cu] != u64::MAX {
            let gap = now - self.last_ns[cu];
            let e = &mut self.gap_ema_ns[t as usize];
            *e = if *e == 0 { gap } else { (*e - (*e >> LIFETIME_EMA_SHIFT)) + (gap >> LIFETIME_EMA_SHIFT) };
        }
        self.count[cu] = self.count[cu].saturating_add(1);
        let q = self.stream_of_count(self.count[cu]);
        self.counters.promotions += (q > self.stream[cu]) as u64;
        self.unlink(t, c);
        self.push_tail(t, q, c);
        self.last_ns[cu] = now;
        self.expire_ns[cu] = self.expiry(t, now);
        self.demote_expired(t, now);
        self.stream[cu]
    }

    fn expiry(&self, t: u16, now: u64) -> u64 {
        match self.lifetime_ns(t) {
            0 => u64::MAX,
            l => now.saturating_add(l),
        }
    }

    /// MQ: move the head of every queue above 0 down one queue if its expiry has passed.
    fn demote_expired(&mut self, t: u16, now: u64) {
        for q in 1..self.streams {
            let h = self.head[t as usize * self.streams as usize + q as usize];
            if h != NONE && self.expire_ns[h as usize] < now {
                self.unlink(t, h);
                self.push_tail(t, q - 1, h);
                self.expire_ns[h as usize] = self.expiry(t, now);
                self.counters.demotions += 1;
            }
        }
    }

    /// SFR access of chunk `c`: decay its count by the time since its last access, count
    /// this one, and set its stream.
    fn sfr_access(&mut self, c: u32, now: u64) -> u8 {
        let cu = c as usize;
        let mut count = self.count[cu];
        if self.last_ns[cu] != u64::MAX {
            let periods = (now - self.last_ns[cu]) / self.decay_ns;
            count = if periods >= 32 { 0 } else { count >> periods };
        }
        self.count[cu] = count.saturating_add(1);
        self.last_ns[cu] = now;
        self.stream[cu] = self.stream_of_count(self.count[cu]);
        self.stream[cu]
    }

    /// The stream of a host unit of `tenant` at `now` (the core of `host_stream`).
    pub fn assign(&mut self, tenant: u16, lpn: u32, now: SimTime) -> u8 {
        let t = tenant as usize;
        if lpn == self.last_lpn[t] {
            return self.last_stream[t];
        }
        let c = self.chunk_of(tenant, lpn);
        let sequential = self.last_lpn[t] != NONE && lpn == self.last_lpn[t].wrapping_add(1);
        let new_access = !(sequential && c == self.last_chunk[t]);
        let now = now.ns();
        let mut s = self.stream[c as usize];
        if new_access {
            self.counters.accesses += 1;
            s = match self.config.variant {
                Variant::Mq => self.mq_access(tenant, c, now),
                Variant::Sfr => self.sfr_access(c, now),
            };
        }
        if sequential && self.config.variant == Variant::Sfr {
            s = self.last_stream[t];
            self.counters.sequential_inherits += 1;
        }
        self.last_lpn[t] = lpn;
        self.last_stream[t] = s;
        self.last_chunk[t] = c;
        s
    }

    /// A unit of `tenant` was trimmed: its chunk forgets its history (queue / stream 0).
    pub fn reset(&mut self, tenant: u16, lpn: u32) {
        let c = self.chunk_of(tenant, lpn);
        self.count[c as usize] = 0;
        if self.config.variant == Variant::Mq {
            self.unlink(tenant, c);
            self.push_tail(tenant, 0, c);
        } else {
            self.stream[c as usize] = 0;
        }
        self.counters.trim_resets += 1;
    }
}

impl StreamMapper for AutoStream {
    fn name(&self) -> &'static str {
        "autostream"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, invalidated: self.config.reset_on_trim, erased: false }
    }
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, view: &DeviceView) -> u8 {
        self.tally.asked(tenant, lpn, virtual_stream);
        self.assign(tenant, lpn, view.now)
    }
    fn gc_stream(&mut self, _tenant: u16, _lpn: u32, from_stream: u8, _view: &DeviceView) -> u8 {
        from_stream
    }
    fn on_placed(&mut self, _view: &DeviceView, ev: &Placed, _cmds: &mut Vec<Command>) {
        if ev.class == WriteClass::Host {
            self.tally.placed(ev.tenant, ev.lpn);
            self.counters.host_n_pages[ev.stream as usize] += 1;
        }
    }
    fn on_invalidated(&mut self, _view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        if ev.cause == Cause::Trim && self.config.reset_on_trim {
            self.reset(ev.tenant, ev.lpn);
        }
    }
    /// `ps<p>_host_n_pages`, `accesses`, `promotions`, `demotions`, `sequential_inherits`,
    /// `trim_resets`, `memory_bytes`, then the pages per virtual stream.
    fn counters(&self, out: &mut Counters) {
        let c = &self.counters;
        for (p, &n) in c.host_n_pages.iter().enumerate() {
            out.push((super::counter_name(format!("ps{p}_host_n_pages")), n as f64));
        }
        out.extend([
            ("accesses", c.accesses as f64),
            ("promotions", c.promotions as f64),
            ("demotions", c.demotions as f64),
            ("sequential_inherits", c.sequential_inherits as f64),
            ("trim_resets", c.trim_resets as f64),
            ("memory_bytes", self.memory_bytes() as f64),
        ]);
        self.tally.counters(out);
    }
    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}
