//! `fdp`: NVMe Flexible Data Placement (TP4146, NVMe 2.1) as a stream mapper. A host write
//! carries a placement identifier (PID): the tenant's index (`tag = "tenant"`) or the write's
//! virtual stream (`tag = "stream"`: a trace's stream column, a synthetic part's `stream`).
//! The placement handle list of the tenant's namespace (`namespaces`, else the shared
//! `placement_handles`) maps the PID to a reclaim unit handle (RUH); RUH `r` writes
//! through physical stream `r`, whose frontier on each die is that handle's current reclaim
//! unit (RU) in the die's reclaim group (RG, `[device.fdp]`). A PID beyond the list is an
//! "Invalid Placement Identifier" event and is written through the handle of PID 0.
//!
//! GC honours the handle's type: a copy of data written through a persistently isolated RUH
//! stays in that RUH's stream (its GC frontier: RUs of the same handle); a copy of data of an
//! initially isolated RUH goes to the lowest-numbered initially isolated RUH's stream, so
//! copies of all initially isolated handles mix there.
//!
//! Counted, as the FDP statistics log page counts them since the device started
//! (preconditioning included): per RUH and for the device, host bytes written (HBMW), media
//! bytes written (MBMW: host units plus GC copies placed in the handle's RUs) and media bytes
//! erased (MBE); RUs filled per RUH (an RU per RG of `FdpConfig::ru_units` units, counted over
//! the units the handle placed in that RG); the events log (`nvme fdp events` fields, first
//! `EVENTS_LOGGED` events). The oracle of isolation: the RUH every logical page was last
//! written through by the host, against the RUH of the block each GC copy lands in
//! (`pi_mixed_units` must stay 0).
//!
//! Events: "Invalid Placement Identifier" (0x3) per write with a PID beyond the namespace's
//! list; "Media Reallocated" (0x80, NVMe 2.1 §5.1.12.1.31.2.1: host data written through an
//! initially isolated RUH "was moved by the controller to a different Reclaim Unit") once per
//! erased block from which a job (GC, wear leveling) moved such data, with the units moved
//! (`nlbam`) and one of their logical blocks (`lba`, in mapping units).
//!
//! What it is not: the host does not choose the RG (the scheme's die does); no RUH Update
//! command (I/O Management Send), no RU time limit, no controller reset, so the host events
//! "Reclaim Unit Not Fully Written", "Time Limit Exceeded" and "Controller Level Reset" never
//! occur ("Reclaim Unit Not Fully Written" is counted, always 0); the RU switch when an RU
//! fills ("Implicitly Modified Reclaim Unit Handle", 0x81) is not logged; no metadata bytes;
//! padding of partial pages is not in MBMW. docs/streams/fdp.md.

use super::{MapperContext, MapperInfo, StreamMapper};
use crate::flash::geometry::{BlockIdx, Geometry};
use crate::ftl::blocks::WriteClass;
pub(crate) mod config;

use crate::knobs::{config_fields, serde_defaults, IntBounds, Knob, KnobKind};
use crate::policy::{
    parse_config, to_table, Cause, Command, Counters, DeviceView, Interests, Invalidated, Placed,
    SchemeConfigError,
};
use config::{FdpConfig, RuhType};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Placement identifier sources a scenario may name.
pub(crate) const TAGS: &[&str] = &["stream", "tenant"];

/// Events kept in the events log (the log page's descriptor count, libnvme
/// `struct nvme_fdp_events_log`); later events are counted only.
pub(crate) const EVENTS_LOGGED: usize = 63;

/// FDP event types (libnvme `enum nvme_fdp_event_type`).
pub const EVENT_PID: u8 = 0x03;
pub const EVENT_REALLOC: u8 = 0x80;

/// No RUH recorded for a block or a page.
const NO_RUH: u8 = u8::MAX;

/// Knobs of `fdp` (`[stream.fdp]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct FdpMapperConfig {
    /// The placement identifier of a write: `"stream"` (its virtual stream, default) or
    /// `"tenant"` (the tenant's index in the scenario).
    pub(crate) tag: String,
    /// The placement handle list: PID `i` → RUH `placement_handles[i]`, each in
    /// [0, handles in `[device.fdp]`). Default empty: PID `i` → RUH `i` for every handle.
    pub(crate) placement_handles: Vec<i64>,
    /// Per namespace (tenant, in scenario order) its own placement handle list, as NVMe gives
    /// each namespace its list; a tenant beyond this array uses `placement_handles`.
    /// Default empty: every tenant uses `placement_handles`.
    pub(crate) namespaces: Vec<NamespaceHandles>,
}

/// One namespace's placement handle list (`[[stream.fdp.namespaces]]`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct NamespaceHandles {
    /// PID `i` of this namespace → RUH `handles[i]`, each in [0, handles in `[device.fdp]`).
    pub(crate) handles: Vec<i64>,
}

impl Default for FdpMapperConfig {
    fn default() -> Self {
        FdpMapperConfig { tag: "stream".to_string(), placement_handles: Vec::new(), namespaces: Vec::new() }
    }
}

/// The knobs of `fdp` (the handles' bounds are `[device.fdp]`'s: `build`).
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "tag",
        "",
        KnobKind::Choice(TAGS),
        "The placement identifier: the write's virtual stream or the tenant's index.",
    ),
    Knob::new(
        "placement_handles",
        "RUH",
        KnobKind::IntList(IntBounds::ANY),
        "RUH of placement identifier i at index i; empty = identity.",
    )
    .also("each in [0, device.fdp.handles)"),
    Knob::new(
        "namespaces",
        "",
        KnobKind::Tables(NAMESPACE_KNOBS),
        "Per tenant, in scenario order, its own placement handle list.",
    )
    .also("at most one per tenant"),
];

/// The fields of one entry of `namespaces`.
const NAMESPACE_KNOBS: &[Knob] = &[Knob::new(
    "handles",
    "RUH",
    KnobKind::IntList(IntBounds::ANY),
    "RUH of this namespace's PID i at index i.",
)
.also("each in [0, device.fdp.handles); empty = identity")];

/// `fdp`'s registry entry.
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "fdp",
    summary: "NVMe FDP: placement identifier -> reclaim unit handle; GC by isolation type.",
    knobs: KNOBS,
    fields: config_fields::<FdpMapperConfig>,
    defaults: serde_defaults::<FdpMapperConfig>,
    build,
    caps: (),
};

/// One logged FDP event (the fields `nvme fdp events` prints).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: u8,
    pub pid: u16,
    pub timestamp_ns: u64,
    /// Namespace id: tenant index + 1.
    pub nsid: u32,
    /// Media Reallocated only: units moved out of the block (NVM Command Set NLBAM, capped at
    /// 0xFFFF) and one of their logical blocks (mapping units); 0 for other events.
    pub(crate) nlbam: u16,
    pub(crate) lba: u64,
}

/// Per block, what jobs moved out of it since its erase of data written through an initially
/// isolated RUH: units, and the first such unit's tenant, lpn and RUH.
#[derive(Clone, Copy, Debug, Default)]
struct Moved {
    units: u32,
    tenant: u16,
    lpn: u32,
    ruh: u8,
}

/// Per-RUH counts, in mapping units and blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct RuhStats {
    pub(crate) host_units: u64,
    /// Host units plus GC copies placed in this handle's RUs.
    pub(crate) media_units: u64,
    pub(crate) erased_blocks: u64,
    /// RUs filled: units placed in each RG divided by the RU size, summed over RGs.
    pub(crate) rus_filled: u64,
    /// Tenants whose data this handle's RUs hold, host writes or GC copies (bit `t`; a tenant
    /// >= 64 sets `tenants_wide`).
    pub(crate) tenants: u64,
    pub(crate) tenants_wide: bool,
}

pub struct Fdp {
    config: FdpMapperConfig,
    dev: FdpConfig,
    /// Per tenant, PID → RUH.
    pid_ruh: Vec<Vec<u8>>,
    tag_tenant: bool,
    /// Stream of GC copies of initially isolated data (the lowest initially isolated RUH).
    mixed_gc_ruh: Option<u8>,
    units_per_block: u32,
    blocks_per_die: u32,
    dies_per_rg: u32,
    n_rg: u32,
    unit_bytes: u64,
    block_bytes: u64,
    ru_units: u64,
    pub(crate) ruhs: Vec<RuhStats>,
    /// Units placed per (RUH, RG) into the current RU.
    ru_fill: Vec<u64>,
    /// RUH of each block's data since its last erase, `NO_RUH` when erased.
    block_ruh: Vec<u8>,
    /// Per tenant, per lpn: the RUH the host last wrote it through.
    origin: Vec<Vec<u8>>,
    /// Per block: initially isolated data moved out of it since its erase (Media Reallocated).
    moved: Vec<Moved>,
    /// PID of the last `host_stream` call, recorded when its unit lands.
    pending: (u16, u32, u16),
    /// GC copies of persistently isolated data placed in another handle's RU (must be 0).
    pub(crate) pi_mixed_units: u64,
    /// GC copies of initially isolated data placed in another handle's RU.
    pub(crate) ii_mixed_units: u64,
    pub events: Vec<Event>,
    /// Events per type: RUNFW, invalid PID, media reallocated.
    pub(crate) n_runfw: u64,
    pub(crate) n_invalid_pid: u64,
    pub(crate) n_realloc: u64,
}

pub(crate) fn build(
    table: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(Fdp::new(table, ctx)?))
}

impl Fdp {
    pub fn new(table: &toml::Table, ctx: &MapperContext) -> Result<Fdp, SchemeConfigError> {
        let config: FdpMapperConfig = parse_config(table)?;
        let dev = ctx.fdp.cloned().unwrap_or_default();
        let n_ruh = dev.handles.len();
        if n_ruh > ctx.physical_streams as usize {
            return Err(SchemeConfigError::new(
                "handles",
                format!(
                    "[device.fdp] has {n_ruh} reclaim unit handles; each needs a physical stream and \
                     ftl.physical_streams is {}",
                    ctx.physical_streams
                ),
            ));
        }
        if !TAGS.contains(&config.tag.as_str()) {
            return Err(SchemeConfigError::new(
                "tag",
                format!("unknown tag {:?}; known: {}", config.tag, TAGS.join(", ")),
            ));
        }
        let shared = resolve_handles(&config.placement_handles, n_ruh, "placement_handles")?;
        let n_tenants = ctx.namespace_units.len();
        if config.namespaces.len() > n_tenants {
            let n = config.namespaces.len();
            return Err(SchemeConfigError::new(
                "namespaces",
                format!("has {n} entries; the scenario has {n_tenants} tenants (one list per tenant)"),
            ));
        }
        let mut pid_ruh = Vec::with_capacity(n_tenants);
        for t in 0..n_tenants {
            pid_ruh.push(match config.namespaces.get(t) {
                Some(ns) => resolve_handles(&ns.handles, n_ruh, &format!("namespaces.{t}.handles"))?,
                None => shared.clone(),
            });
        }
        let g: &Geometry = ctx.geometry;
        let mixed_gc_ruh = dev.handles.iter().position(|&t| t == RuhType::InitiallyIsolated).map(|r| r as u8);
        let n_rg = dev.reclaim_groups.max(1);
        Ok(Fdp {
            tag_tenant: config.tag == "tenant",
            pid_ruh,
            mixed_gc_ruh,
            units_per_block: g.units_per_block,
            blocks_per_die: g.blocks_per_die,
            dies_per_rg: (g.n_dies / n_rg).max(1),
            n_rg,
            unit_bytes: g.unit_bytes as u64,
            block_bytes: g.units_per_block as u64 * g.unit_bytes as u64,
            ru_units: dev.ru_units(g),
            ruhs: vec![RuhStats::default(); n_ruh],
            ru_fill: vec![0; n_ruh * n_rg as usize],
            block_ruh: vec![NO_RUH; g.n_blocks as usize],
            origin: ctx.namespace_units.iter().map(|&n| vec![NO_RUH; n as usize]).collect(),
            moved: vec![Moved::default(); g.n_blocks as usize],
            pending: (u16::MAX, u32::MAX, 0),
            pi_mixed_units: 0,
            ii_mixed_units: 0,
            events: Vec::with_capacity(EVENTS_LOGGED),
            n_runfw: 0,
            n_invalid_pid: 0,
            n_realloc: 0,
            config,
            dev,
        })
    }

    /// The RUH of placement identifier `pid` of `tenant`'s namespace, `None` when the PID is
    /// not in its list.
    #[inline]
    pub(crate) fn ruh_of(&self, tenant: u16, pid: u16) -> Option<u8> {
        self.pid_ruh[tenant as usize].get(pid as usize).copied()
    }

    fn log_event(&mut self, kind: u8, pid: u16, now_ns: u64, tenant: u16) {
        self.log(Event { kind, pid, timestamp_ns: now_ns, nsid: tenant as u32 + 1, nlbam: 0, lba: 0 });
    }

    fn log(&mut self, ev: Event) {
        if self.events.len() < EVENTS_LOGGED {
            self.events.push(ev);
        }
    }

    /// The block's Media Reallocated event, if a job moved initially isolated data out of it:
    /// PID = the first placement identifier of the tenant's namespace that names the RUH the
    /// data was written through (the event's PID "indicates the Reclaim Unit Handle used to
    /// initially write the LBAs", NVM Command Set Figure 112).
    fn media_reallocated(&mut self, block: u32, now_ns: u64) {
        let m = std::mem::take(&mut self.moved[block as usize]);
        if m.units == 0 {
            return;
        }
        self.n_realloc += 1;
        let list = &self.pid_ruh[m.tenant as usize];
        let pid = list.iter().position(|&r| r == m.ruh).unwrap_or(m.ruh as usize) as u16;
        self.log(Event {
            kind: EVENT_REALLOC,
            pid,
            timestamp_ns: now_ns,
            nsid: m.tenant as u32 + 1,
            nlbam: m.units.min(u16::MAX as u32) as u16,
            lba: m.lpn as u64,
        });
    }

    /// A unit landed in `block` through `ruh`'s stream: media bytes and RU fill.
    fn land(&mut self, ruh: u8, block: u32) {
        let r = ruh as usize;
        self.block_ruh[block as usize] = ruh;
        self.ruhs[r].media_units += 1;
        let rg = (block / self.blocks_per_die / self.dies_per_rg).min(self.n_rg - 1) as usize;
        let fill = &mut self.ru_fill[r * self.n_rg as usize + rg];
        *fill += 1;
        if *fill == self.ru_units {
            *fill = 0;
            self.ruhs[r].rus_filled += 1;
        }
    }
}

/// The placement handle list: `list` checked against `n_ruh`, or the identity.
fn resolve_handles(list: &[i64], n_ruh: usize, key: &str) -> Result<Vec<u8>, SchemeConfigError> {
    if list.is_empty() {
        return Ok((0..n_ruh as u8).collect());
    }
    if list.len() > u16::MAX as usize + 1 {
        return Err(SchemeConfigError::new(
            key,
            format!("has {} entries; placement identifiers are 16-bit", list.len()),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, &r)| {
            if (0..n_ruh as i64).contains(&r) {
                Ok(r as u8)
            } else {
                Err(SchemeConfigError::new(
                    format!("{key}.{i}"),
                    format!("must be in [0, {n_ruh}) (the handles of [device.fdp]), got {r}"),
                ))
            }
        })
        .collect()
}

impl StreamMapper for Fdp {
    fn name(&self) -> &'static str {
        "fdp"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, erased: true, invalidated: true }
    }
    /// No: reclaim unit handles are the device's (NVMe 2.1, §3.2.4): namespaces whose handle
    /// lists name one handle share its reclaim units, and only different handles keep data
    /// apart (persistently isolated ones through GC too).
    fn frontier_per_tenant(&self) -> bool {
        false
    }
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, _view: &DeviceView) -> u8 {
        let pid = if self.tag_tenant { tenant } else { virtual_stream };
        self.pending = (tenant, lpn, pid);
        self.ruh_of(tenant, pid).unwrap_or(self.pid_ruh[tenant as usize][0])
    }
    fn gc_stream(&mut self, tenant: u16, _lpn: u32, from_stream: u8, _view: &DeviceView) -> u8 {
        self.gc_block_stream(tenant, from_stream).expect("one stream per block")
    }
    /// The victim's handle's, for every unit of it: the handle types and the mixed GC handle
    /// are the device's configuration.
    fn gc_block_stream(&self, _tenant: u16, from_stream: u8) -> Option<u8> {
        Some(match self.dev.handles.get(from_stream as usize) {
            Some(RuhType::InitiallyIsolated) => {
                self.mixed_gc_ruh.expect("an initially isolated handle exists")
            }
            _ => from_stream,
        })
    }
    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, _cmds: &mut Vec<Command>) {
        let block = ev.ppa.0 / self.units_per_block;
        let t = ev.tenant as usize;
        assert!(
            (ev.stream as usize) < self.ruhs.len() || ev.class == WriteClass::Parity,
            "stream {} is no handle of fdp",
            ev.stream
        );
        match ev.class {
            WriteClass::Host => {
                if self.pending.0 == ev.tenant && self.pending.1 == ev.lpn {
                    let pid = self.pending.2;
                    self.pending = (u16::MAX, u32::MAX, 0);
                    if self.ruh_of(ev.tenant, pid).is_none() {
                        self.n_invalid_pid += 1;
                        self.log_event(EVENT_PID, pid, view.now.ns(), ev.tenant);
                    }
                }
                self.ruhs[ev.stream as usize].host_units += 1;
                self.origin[t][ev.lpn as usize] = ev.stream;
            }
            WriteClass::Gc => {
                let from = self.origin[t][ev.lpn as usize];
                if from != NO_RUH && from != ev.stream {
                    match self.dev.handles[from as usize] {
                        RuhType::PersistentlyIsolated => self.pi_mixed_units += 1,
                        RuhType::InitiallyIsolated => self.ii_mixed_units += 1,
                    }
                }
            }
            WriteClass::Parity => return,
        }
        let r = &mut self.ruhs[ev.stream as usize];
        if t < 64 {
            r.tenants |= 1 << t;
        } else {
            r.tenants_wide = true;
        }
        self.land(ev.stream, block);
    }
    /// A job moved a unit: if the host wrote it through an initially isolated RUH, it counts
    /// towards its block's Media Reallocated event.
    fn on_invalidated(&mut self, _view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        if ev.cause != Cause::Moved {
            return;
        }
        let ruh = self.origin[ev.tenant as usize][ev.lpn as usize];
        if self.dev.handles.get(ruh as usize) != Some(&RuhType::InitiallyIsolated) {
            return;
        }
        let m = &mut self.moved[(ev.ppa.0 / self.units_per_block) as usize];
        if m.units == 0 {
            *m = Moved { units: 0, tenant: ev.tenant, lpn: ev.lpn, ruh };
        }
        m.units += 1;
    }
    fn on_erased(&mut self, view: &DeviceView, block: BlockIdx, _cmds: &mut Vec<Command>) {
        let r = std::mem::replace(&mut self.block_ruh[block.0 as usize], NO_RUH);
        if r != NO_RUH {
            self.ruhs[r as usize].erased_blocks += 1;
        }
        self.media_reallocated(block.0, view.now.ns());
    }
    /// Per RUH `ruh<i>_hbmw`, `_mbmw`, `_mbe` (bytes), `_rus_filled`; the device's sums; the
    /// events per type; the isolation oracle's `pi_mixed_units` and `ii_mixed_units`.
    fn counters(&self, out: &mut Counters) {
        for (i, r) in self.ruhs.iter().enumerate() {
            let name = |k: &str| super::counter_name(format!("ruh{i}_{k}"));
            out.push((name("hbmw"), (r.host_units * self.unit_bytes) as f64));
            out.push((name("mbmw"), (r.media_units * self.unit_bytes) as f64));
            out.push((name("mbe"), (r.erased_blocks * self.block_bytes) as f64));
            out.push((name("rus_filled"), r.rus_filled as f64));
        }
        let (h, m, e) = self.device_bytes();
        out.push(("hbmw", h as f64));
        out.push(("mbmw", m as f64));
        out.push(("mbe", e as f64));
        out.push(("events_ru_not_fully_written", self.n_runfw as f64));
        out.push(("events_invalid_placement_identifier", self.n_invalid_pid as f64));
        out.push(("events_media_reallocated", self.n_realloc as f64));
        out.push(("pi_mixed_units", self.pi_mixed_units as f64));
        out.push(("ii_mixed_units", self.ii_mixed_units as f64));
    }
    fn report(&self) -> Option<(&'static str, Value)> {
        Some(("fdp", self.report_json()))
    }
    fn resolved_config(&self) -> toml::Table {
        let mut c = self.config.clone();
        let n_ruh = self.ruhs.len() as i64;
        if c.placement_handles.is_empty() {
            c.placement_handles = (0..n_ruh).collect();
        }
        for ns in &mut c.namespaces {
            if ns.handles.is_empty() {
                ns.handles = (0..n_ruh).collect();
            }
        }
        to_table(&c)
    }
}

impl Fdp {
    /// Device HBMW, MBMW and MBE in bytes.
    pub(crate) fn device_bytes(&self) -> (u64, u64, u64) {
        let h: u64 = self.ruhs.iter().map(|r| r.host_units).sum();
        let m: u64 = self.ruhs.iter().map(|r| r.media_units).sum();
        let e: u64 = self.ruhs.iter().map(|r| r.erased_blocks).sum();
        (h * self.unit_bytes, m * self.unit_bytes, e * self.block_bytes)
    }

    /// `summary.json`'s `mapper_report.fdp`: `stats` and `events` in the field names nvme-cli
    /// prints for `nvme fdp stats` and `nvme fdp events` (`-o json`), then per RUH its type
    /// (`ruht`, libnvme's 1 = initially, 2 = persistently isolated), bytes, WAF and tenants
    /// (a tenant alone on its handle has its `waf` there).
    pub fn report_json(&self) -> Value {
        let (h, m, e) = self.device_bytes();
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|ev| {
                let mut e = json!({
                    "Type": ev.kind, "fdpef": 0, "pid": ev.pid, "timestamp": ev.timestamp_ns, "NSID": ev.nsid
                });
                if ev.kind == EVENT_REALLOC {
                    e["nlbam"] = json!(ev.nlbam);
                    e["lba"] = json!(ev.lba);
                }
                e
            })
            .collect();
        let ruhs: Vec<Value> = self
            .ruhs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let tenants: Vec<u32> = (0..64).filter(|&t| r.tenants & (1u64 << t) != 0).collect();
                let waf = match r.host_units {
                    0 => Value::Null,
                    host => json!(round6(r.media_units as f64 / host as f64)),
                };
                let ruht = match self.dev.handles[i] {
                    RuhType::InitiallyIsolated => 1,
                    RuhType::PersistentlyIsolated => 2,
                };
                json!({
                    "ruhid": i,
                    "ruht": ruht,
                    "hbmw": r.host_units * self.unit_bytes,
                    "mbmw": r.media_units * self.unit_bytes,
                    "mbe": r.erased_blocks * self.block_bytes,
                    "waf": waf,
                    "rus_filled": r.rus_filled,
                    "tenants": tenants,
                    "tenants_beyond_64": r.tenants_wide,
                })
            })
            .collect();
        json!({
            "stats": {"hbmw": h, "mbmw": m, "mbe": e},
            "tenant_waf": self.tenant_waf(),
            "events": {"n": events.len(), "events": events},
            "events_total": self.n_runfw + self.n_invalid_pid + self.n_realloc,
            "ru_bytes": self.ru_units * self.unit_bytes,
            "reclaim_groups": self.n_rg,
            "ruhs": ruhs,
        })
    }
}

impl Fdp {
    /// Per tenant (index), its WAF from its handles' bytes, MBMW / HBMW, when no other tenant's
    /// data is in them (host writes or GC copies); `null` for a tenant that shares a handle or
    /// wrote nothing. Exact with persistently isolated handles; with initially isolated ones
    /// the copies of several handles share one handle, which then has several tenants.
    pub(crate) fn tenant_waf(&self) -> Vec<Value> {
        let n_tenants = self.origin.len().min(64);
        (0..n_tenants)
            .map(|t| {
                let bit = 1u64 << t;
                let mine: Vec<&RuhStats> = self.ruhs.iter().filter(|r| r.tenants & bit != 0).collect();
                let alone = !mine.is_empty() && mine.iter().all(|r| r.tenants == bit && !r.tenants_wide);
                let host: u64 = mine.iter().map(|r| r.host_units).sum();
                let media: u64 = mine.iter().map(|r| r.media_units).sum();
                if alone && host > 0 {
                    json!(round6(media as f64 / host as f64))
                } else {
                    Value::Null
                }
            })
            .collect()
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
