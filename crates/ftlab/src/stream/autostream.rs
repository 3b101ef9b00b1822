//! `autostream`: automatic stream assignment by the write history of 1 MiB chunks (Yang,
//! Pandurangan, Choi and Balakrishnan, "AutoStream: automatic stream management for
//! multi-streamed SSDs", SYSTOR '17), both of its algorithms (`variant`). Each step, its source
//! and the choices where the sources are silent: docs/streams/autostream.md.
//!
//! - **Look up, then update.** A write takes the stream its chunk has *before* the write is counted; the
//!   chunk's state is updated after (US 10,656,838 B2: "stream selection logic to select a stream ID based on
//!   the chunk ID ..., and background logic to ... update the chunk-to-stream mapper"; both public
//!   reimplementations do the same).
//! - **MQ** (multi-queue, after Zhou, Philbin and Li's MQ cache, USENIX ATC '01): one LRU queue per physical
//!   stream, per tenant. An access counts the chunk and moves it to the tail of queue
//!   `min(floor(log_b(count)), streams - 1)` with expiry `now + lifetime`; then the head of every queue above
//!   0 whose expiry has passed moves down one queue with a fresh expiry. Time is the tenant's count of
//!   accesses (MQ's logical clock). The lifetime is `lifetime_accesses`, or with 0 (default) the gap between
//!   the last two accesses of the chunk that last took the highest count (the reimplementation's "device
//!   lifetime").
//! - **SFR** (sequentiality, frequency, recency): an access adds one to the chunk's count, then divides it by
//!   2^(whole `decay_period_s` elapsed since its previous access) (the recency weight of US 11,392,297 B2
//!   claim 4); the chunk's stream is `min(floor(log_b(count)), streams - 1)`. A write that starts where the
//!   tenant's previous write ended takes that write's stream (claim 3), and its chunk is still counted.
//!
//! An access is one sequential run of a tenant's units within one chunk: the algorithm counts
//! requests, ftlab asks per mapping unit, so the units after a run's first take its stream. A
//! unit asked again right after itself (a write resumed after a stall) is the same access.
//!
//! State is flat vectors over every tenant's chunks (namespace sizes / chunk size), allocated at
//! build; the MQ queues are intrusive doubly linked lists over chunk indices. GC copies stay in
//! the stream they were written through (AutoStream runs in the host and never sees GC).
//!
//! What it is not: no per-page state (that is `dac`); virtual stream tags are ignored (only
//! counted); the AutoStream paper's own text was not available (see the docs page).

use super::{MapperContext, MapperInfo, StreamMapper, VirtualTally};
use crate::ftl::blocks::WriteClass;
use crate::knobs::{check_all, config_fields, serde_defaults, Bounds, IntBounds, Knob, KnobKind};
use crate::policy::{
    parse_config, to_table, Cause, Command, Counters, DeviceView, Interests, Invalidated, Placed,
    SchemeConfigError,
};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

/// No chunk (list links, a tenant's previous unit).
const NONE: u32 = u32::MAX;
/// SFR: a chunk never accessed.
const NEVER: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Variant {
    Mq,
    Sfr,
}

/// Knobs of `autostream` (`[stream.autostream]`). Where the sources give no figure, the
/// default's basis is in docs/streams/autostream.md.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct AutoStreamConfig {
    /// `"mq"` (multi-queue) or `"sfr"` (sequentiality, frequency, recency). Default "sfr".
    pub(crate) variant: Variant,
    /// Chunk size in bytes: a multiple of the mapping unit, in [unit, 1 GiB]. Default 1 MiB
    /// (vStream §5.2: "1MB in size by default").
    pub(crate) chunk_bytes: u64,
    /// Base of the logarithm from access count to stream, in [2, 1024]. Default 2 (MQ's
    /// "QueueNum(f) can be defined as log_2 f"; the sources disagree, see the docs).
    pub(crate) log_base: u32,
    /// SFR: the decay period, simulated seconds in [1e-6, 1e9]. Default 30 (the public
    /// reimplementation's `DECAY_PERIOD`; the paper's value is unknown).
    pub(crate) decay_period_s: f64,
    /// MQ: the lifetime in accesses of the tenant, in [0, 2^40]; 0 (default) = learnt, the gap
    /// between the last two accesses of the hottest chunk (the public reimplementation's rule).
    /// Signed so that a negative value gets the range error, not a type error.
    pub(crate) lifetime_accesses: i64,
    /// Reset a chunk's count (and stream) when the host trims one of its units (vStream
    /// §5.1). Default true.
    pub(crate) reset_on_trim: bool,
}

impl Default for AutoStreamConfig {
    fn default() -> Self {
        AutoStreamConfig {
            variant: Variant::Sfr,
            chunk_bytes: 1 << 20,
            log_base: 2,
            decay_period_s: 30.0,
            lifetime_accesses: 0,
            reset_on_trim: true,
        }
    }
}

/// The knobs of `autostream`: the ranges `check` enforces and `ftlab mappers` lists.
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "variant",
        "",
        KnobKind::Choice(&["mq", "sfr"]),
        "Multi-queue, or sequentiality-frequency-recency.",
    ),
    Knob::new(
        "chunk_bytes",
        "bytes",
        KnobKind::Int(IntBounds::new(1, 1 << 30)),
        "Chunk whose write history picks the stream.",
    )
    .also("a multiple of the mapping unit, at least one unit"),
    Knob::new(
        "log_base",
        "",
        KnobKind::Int(IntBounds::new(2, 1024)),
        "Base of the logarithm from access count to stream.",
    ),
    Knob::new(
        "decay_period_s",
        "s",
        KnobKind::Float(Bounds::closed(1e-6, 1e9)),
        "SFR: a chunk's count halves per period elapsed since its last access.",
    ),
    Knob::new(
        "lifetime_accesses",
        "accesses",
        KnobKind::Int(IntBounds::new(0, 1 << 40)),
        "MQ: accesses a chunk stays in its queue unaccessed; 0 = learnt from the hottest chunk.",
    ),
    Knob::new(
        "reset_on_trim",
        "",
        KnobKind::Bool,
        "Reset a chunk's count (and stream) when the host trims one of its units.",
    ),
];

/// `autostream`'s registry entry.
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "autostream",
    summary: "AutoStream (SYSTOR '17): streams by the write history of 1 MiB chunks, MQ or SFR.",
    knobs: KNOBS,
    fields: config_fields::<AutoStreamConfig>,
    defaults: serde_defaults::<AutoStreamConfig>,
    build,
    caps: (),
};

/// What the mapper did, summed over tenants.
#[derive(Clone, Debug, Default)]
pub struct AutoStreamCounters {
    /// Host units written through physical stream `p` (index `p`).
    pub(crate) host_n_pages: Vec<u64>,
    /// Chunk accesses (sequential runs within a chunk).
    pub(crate) accesses: u64,
    /// MQ: accesses that moved a chunk to a higher queue.
    pub(crate) promotions: u64,
    /// MQ: expired queue heads moved down one queue.
    pub demotions: u64,
    /// SFR: accesses that took the stream of the write they continue.
    pub sequential_inherits: u64,
    /// Trimmed units whose chunk was reset.
    pub trim_resets: u64,
}

/// Per tenant: the previous unit asked, its stream and chunk; MQ's clock and lifetime.
#[derive(Clone, Copy, Debug)]
struct TenantState {
    last_lpn: u32,
    last_stream: u8,
    last_chunk: u32,
    /// MQ: accesses so far (the logical clock).
    clock: u64,
    /// MQ: the highest count a chunk has taken, and the lifetime learnt with it.
    max_count: u32,
    lifetime: u64,
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
    /// Time of the chunk's last access: MQ in the tenant's accesses (0 = never, as the clock
    /// starts at 0), SFR in ns (`NEVER`).
    last: Vec<u64>,
    /// MQ only (empty for SFR): expiry, in accesses, and the queue links.
    expire: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// MQ: head and tail of queue `q` of tenant `t` at `t * streams + q`.
    head: Vec<u32>,
    tail: Vec<u32>,
    tenants: Vec<TenantState>,
    counters: AutoStreamCounters,
    tally: VirtualTally,
}

pub(crate) fn build(
    table: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(AutoStream::new(table, ctx)?))
}

fn check(c: &AutoStreamConfig, unit_bytes: u64) -> Result<(), SchemeConfigError> {
    check_all(KNOBS, c)?;
    if c.chunk_bytes < unit_bytes || !c.chunk_bytes.is_multiple_of(unit_bytes) {
        return Err(SchemeConfigError::new(
            "chunk_bytes",
            format!(
                "must be a multiple of the mapping unit ({unit_bytes} B) in [{unit_bytes}, 2^30], got {}",
                c.chunk_bytes
            ),
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
        let tenant = TenantState {
            last_lpn: NONE,
            last_stream: 0,
            last_chunk: NONE,
            clock: 0,
            max_count: 0,
            lifetime: config.lifetime_accesses as u64,
        };
        let mut m = AutoStream {
            decay_ns: (config.decay_period_s * 1e9).round().max(1.0) as u64,
            streams: s,
            units_per_chunk,
            chunk_base,
            count: vec![0; n],
            stream: vec![0; n],
            last: vec![if mq { 0 } else { NEVER }; n],
            expire: if mq { vec![0; n] } else { Vec::new() },
            prev: per(NONE),
            next: per(NONE),
            head: vec![NONE; t * s as usize],
            tail: vec![NONE; t * s as usize],
            tenants: vec![tenant; t],
            counters: AutoStreamCounters { host_n_pages: vec![0; s as usize], ..Default::default() },
            tally: VirtualTally::default(),
            config,
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
    pub(crate) fn chunk_of(&self, tenant: u16, lpn: u32) -> u32 {
        self.chunk_base[tenant as usize] + lpn / self.units_per_chunk
    }

    /// The chunk's access count, and its stream (MQ: its queue) for its next write.
    pub fn chunk_state(&self, tenant: u16, lpn: u32) -> (u32, u8) {
        let c = self.chunk_of(tenant, lpn) as usize;
        (self.count[c], self.stream[c])
    }

    /// MQ: the lifetime of `tenant`, in its accesses (0 = none learnt yet).
    pub fn lifetime_accesses(&self, tenant: u16) -> u64 {
        self.tenants[tenant as usize].lifetime
    }

    pub fn counters_of(&self) -> &AutoStreamCounters {
        &self.counters
    }

    /// Bytes of state.
    pub(crate) fn memory_bytes(&self) -> u64 {
        let n = self.count.len() as u64;
        let per_chunk = 4 + 1 + 8 + if self.config.variant == Variant::Mq { 8 + 4 + 4 } else { 0 };
        n * per_chunk + (self.head.len() as u64) * 8 + self.tenants.len() as u64 * (4 + 1 + 4 + 8 + 4 + 8)
    }

    /// Stream of a count: `floor(log_b(count))`, capped at the last stream (count 0: stream 0).
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

    /// MQ access of chunk `c`: tick the clock, count the chunk, learn the lifetime if it is
    /// the hottest, move it to the tail of its count's queue, demote expired queue heads.
    /// Returns the chunk's queue before the access.
    fn mq_access(&mut self, t: u16, c: u32) -> u8 {
        let (cu, before) = (c as usize, self.stream[c as usize]);
        let ts = &mut self.tenants[t as usize];
        ts.clock += 1;
        let now = ts.clock;
        self.count[cu] = self.count[cu].saturating_add(1);
        if self.count[cu] > ts.max_count {
            ts.max_count = self.count[cu];
            if self.config.lifetime_accesses == 0 {
                ts.lifetime = now - self.last[cu];
            }
        }
        self.last[cu] = now;
        let q = self.stream_of_count(self.count[cu]);
        self.counters.promotions += (q > before) as u64;
        self.unlink(t, c);
        self.push_tail(t, q, c);
        self.expire[cu] = self.expiry(t, now);
        self.demote_expired(t, now);
        before
    }

    fn expiry(&self, t: u16, now: u64) -> u64 {
        now.saturating_add(self.tenants[t as usize].lifetime)
    }

    /// MQ: move the head of every queue above 0 down one queue if its expiry has passed.
    fn demote_expired(&mut self, t: u16, now: u64) {
        for q in 1..self.streams {
            let h = self.head[t as usize * self.streams as usize + q as usize];
            if h != NONE && self.expire[h as usize] < now {
                self.unlink(t, h);
                self.push_tail(t, q - 1, h);
                self.expire[h as usize] = self.expiry(t, now);
                self.counters.demotions += 1;
            }
        }
    }

    /// SFR access of chunk `c` at `now` (ns): add one to its count, divide by the recency
    /// weight 2^(whole decay periods since its previous access), set its stream. Returns its
    /// stream before the access.
    fn sfr_access(&mut self, c: u32, now: u64) -> u8 {
        let (cu, before) = (c as usize, self.stream[c as usize]);
        let mut count = self.count[cu].saturating_add(1);
        if self.last[cu] != NEVER {
            let periods = (now - self.last[cu]) / self.decay_ns;
            count = if periods >= 32 { 0 } else { count >> periods };
        }
        self.count[cu] = count;
        self.last[cu] = now;
        self.stream[cu] = self.stream_of_count(count);
        before
    }

    /// The stream of a host unit of `tenant` at `now` (the core of `host_stream`).
    pub(crate) fn assign(&mut self, tenant: u16, lpn: u32, now: SimTime) -> u8 {
        let ts = self.tenants[tenant as usize];
        if lpn == ts.last_lpn {
            return ts.last_stream;
        }
        let c = self.chunk_of(tenant, lpn);
        let sequential = ts.last_lpn != NONE && lpn == ts.last_lpn.wrapping_add(1);
        let s = if sequential && c == ts.last_chunk {
            ts.last_stream
        } else {
            self.counters.accesses += 1;
            let before = match self.config.variant {
                Variant::Mq => self.mq_access(tenant, c),
                Variant::Sfr => self.sfr_access(c, now.ns()),
            };
            if sequential && self.config.variant == Variant::Sfr {
                self.counters.sequential_inherits += 1;
                ts.last_stream
            } else {
                before
            }
        };
        let ts = &mut self.tenants[tenant as usize];
        (ts.last_lpn, ts.last_stream, ts.last_chunk) = (lpn, s, c);
        s
    }

    /// A unit of `tenant` was trimmed: its chunk forgets its count (queue / stream 0).
    pub(crate) fn reset(&mut self, tenant: u16, lpn: u32) {
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
    /// The victim's own stream, for every unit of it.
    fn gc_block_stream(&self, _tenant: u16, from_stream: u8) -> Option<u8> {
        Some(from_stream)
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
