//! The scenario as written: the serde schema TOML deserialises into (`deny_unknown_fields`),
//! with an `Option` wherever the user may leave a key out and the default depends on other
//! keys (a preset, the geometry, the workload). These types are only read by validation
//! (`validate::validate`), the one way to a `Scenario`, and written back by `to_toml` (the
//! resolved scenario echoes every filled default as a key). Tables with no such key
//! (`[measure]`, `[check]`, `[tenants.trace]`, ...) are shared with the validated form and
//! live in `scenario`. The reference for every key is `docs/scenario.md`.

use super::{default_one, FillOrder, SchedulerKind};
use super::{
    ArrayConfig, CheckConfig, MeasureConfig, Overwrites, PreconditionMode, StreamRule, TraceWorkload,
    WarmConfig,
};
use crate::ftl::gc::VictimPolicy;
use crate::workload::periodic::PeriodicWorkload;
use crate::workload::synthetic::SyntheticWorkload;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole scenario: one device, its tenants, the schemes to compare and the measurement.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScenario {
    /// Free-form name shown in reports.
    #[serde(default)]
    pub(crate) name: String,
    /// Seed of every random choice (generators, preconditioning).
    #[serde(default = "default_seed")]
    pub(crate) seed: u64,
    /// Schemes to run, in order; each runs the same workload on a fresh device.
    #[serde(default = "default_schemes")]
    pub(crate) schemes: Vec<String>,
    /// Per-scheme knobs: `[scheme.<name>]`.
    #[serde(default)]
    pub(crate) scheme: BTreeMap<String, toml::Table>,
    /// Stream mapper (virtual -> physical stream).
    #[serde(default = "default_stream_mapper")]
    pub(crate) stream_mapper: String,
    /// Per-mapper knobs: `[stream.<name>]`.
    #[serde(default)]
    pub(crate) stream: BTreeMap<String, toml::Table>,
    pub(crate) device: RawDevice,
    #[serde(default)]
    pub(crate) ftl: RawFtl,
    pub(crate) tenants: Vec<RawTenant>,
    #[serde(default)]
    pub(crate) precondition: RawPrecondition,
    #[serde(default)]
    pub(crate) measure: MeasureConfig,
    #[serde(default)]
    pub(crate) check: CheckConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) array: Option<ArrayConfig>,
}

/// `[device]`: geometry and timing. Keys left out come from `preset`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDevice {
    /// One of `tiny`, `upi`, `mqsim` (see `presets`).
    pub(crate) preset: Option<String>,
    pub channels: Option<u32>,
    /// Chips (ways) per channel.
    pub chips_per_channel: Option<u32>,
    pub dies_per_chip: Option<u32>,
    pub planes_per_die: Option<u32>,
    pub blocks_per_plane: Option<u32>,
    pub pages_per_block: Option<u32>,
    /// Flash page size in bytes.
    pub page_bytes: Option<u32>,
    /// Mapping unit (logical page) in bytes; divides `page_bytes`.
    pub mapping_unit_bytes: Option<u32>,
    /// (physical - logical) / logical, e.g. 0.07 for 7%.
    pub over_provisioning: Option<f64>,
    /// Multi-plane operations: operations of one kind queued at a die for different planes
    /// run as one (one array time, one transfer per page). Default false.
    pub(crate) multi_plane: Option<bool>,
    /// Program/erase suspend: a host read arriving while its die programs or erases
    /// suspends that operation (after `timing.suspend_us`), is served, and the operation
    /// resumes (after `timing.suspend_us` again). Default false.
    pub(crate) program_erase_suspend: Option<bool>,
    /// Background work (GC, wear leveling, migration, parity) runs, moves data and erases, but
    /// costs no die or channel time: the "Ideal (NoGC)" mode of IODA's artifact (FEMU with its
    /// GC delay off). Default false.
    pub(crate) background_free: Option<bool>,
    /// Program/erase endurance of a block, in cycles: the lifetime projection's wear-out
    /// point (`metrics::lifetime`). Default 3000 (MLC, datasheet-typical); range [1, 10^6].
    pub(crate) pe_cycles: Option<u32>,
    #[serde(default)]
    pub timing: RawTiming,
    /// `[device.fdp]`: NVMe Flexible Data Placement (reclaim groups, RU size, handles), read
    /// by the `fdp` stream mapper (`stream/fdp/config.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fdp: Option<crate::stream::FdpConfig>,
    /// `[device.board]`: the Cosmos board's channel controller (`flash::board::BoardConfig`,
    /// keys left out take its defaults). Selected by `preset = "cosmos"` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<crate::flash::board::BoardConfig>,
}

/// `[device.timing]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTiming {
    /// Array read, tR, in microseconds.
    pub read_us: Option<f64>,
    /// Array program, tPROG, in microseconds.
    pub program_us: Option<f64>,
    /// Block erase, tBERS, in microseconds.
    pub erase_us: Option<f64>,
    /// Command/address cycles on the bus per operation, in nanoseconds.
    pub command_ns: Option<u64>,
    /// Channel bus rate in mega-transfers per second.
    pub channel_mts: Option<u32>,
    /// Channel bus width in bits: 8 or 16.
    pub channel_width_bits: Option<u32>,
    /// Latency to suspend (and again to resume) a program or erase, in microseconds; used
    /// when `device.program_erase_suspend` is on. Default 20 (datasheet-typical tSUS).
    pub(crate) suspend_us: Option<f64>,
    /// A read holds its channel for its whole duration (command, tR, transfer), so reads on
    /// one channel run one at a time: a controller whose dies share one page buffer per
    /// channel (the `cosmos` preset). Default false: the channel is held only to transfer.
    pub read_holds_channel: Option<bool>,
}

/// `[ftl]`: the FTL mechanics shared by every scheme.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFtl {
    /// GC victim policy: `greedy` or `cost-benefit`.
    #[serde(default = "default_policy")]
    pub(crate) gc_policy: VictimPolicy,
    /// Foreground GC starts on a die when its free blocks fall below this. Default:
    /// max(gc_reserve_blocks + 4, blocks_per_die / 100).
    pub(crate) gc_low_watermark_blocks: Option<u32>,
    /// Background GC runs on an idle die while its free blocks are below this. Default:
    /// 2 x the low watermark.
    pub(crate) gc_high_watermark_blocks: Option<u32>,
    /// Free blocks per die that host writes may not take (kept for GC copies). Default 2.
    #[serde(default = "default_reserve")]
    pub(crate) gc_reserve_blocks: u32,
    /// Run GC on idle dies between the watermarks. Default true.
    #[serde(default = "default_true")]
    pub(crate) background_gc: bool,
    /// Hand out the least-worn free block first. Default true.
    #[serde(default = "default_true")]
    pub(crate) dynamic_wear_leveling: bool,
    /// Static wear leveling: when a die's erase-count gap exceeds this, move its coldest
    /// block's data. 0 = off (default).
    #[serde(default)]
    pub(crate) static_wear_leveling_gap: u32,
    /// Physical streams (write frontiers per tenant and class). Default 4, the vStream
    /// paper's device (§5.1). A mapper maps every virtual stream below it.
    #[serde(default = "default_streams")]
    pub(crate) physical_streams: u8,
    /// Key every write frontier by tenant, so that no block ever holds two tenants' data,
    /// whatever the scheme and the mapper. Default false: frontiers are per tenant only where
    /// the scheme or the mapper keeps tenants apart (`Scheme::frontier_per_tenant`,
    /// `StreamMapper::frontier_per_tenant`); `unified` with `legacy` then has one host and one
    /// GC write point per die, shared by every tenant, as a conventional SSD.
    #[serde(default)]
    pub(crate) frontier_per_tenant: bool,
    #[serde(default)]
    pub(crate) scheduler: SchedulerKind,
    /// DRAM write buffer in bytes; 0 = write-through (a write completes when programmed).
    /// Default: 0 when a flash page holds one mapping unit; otherwise
    /// `DEFAULT_BUFFER_PAGES_PER_DIE` flash pages per die (see `validate`).
    pub(crate) write_buffer_bytes: Option<u64>,
    /// Controller latency of a request served without flash (buffer hit, unmapped read,
    /// trim, buffered write admission), in microseconds. In [0.001, 1000]. Default 1.
    #[serde(default = "default_one")]
    pub(crate) dram_latency_us: f64,
}

impl Default for RawFtl {
    /// The serde defaults above (an absent `[ftl]`).
    fn default() -> Self {
        RawFtl {
            gc_policy: default_policy(),
            gc_low_watermark_blocks: None,
            gc_high_watermark_blocks: None,
            gc_reserve_blocks: default_reserve(),
            background_gc: true,
            dynamic_wear_leveling: true,
            static_wear_leveling_gap: 0,
            physical_streams: default_streams(),
            frontier_per_tenant: false,
            scheduler: SchedulerKind::default(),
            write_buffer_bytes: None,
            dram_latency_us: default_one(),
        }
    }
}

/// One tenant: a namespace and a workload.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTenant {
    pub(crate) name: String,
    /// Namespace size as a fraction of the device's logical capacity, in (0, 1].
    pub(crate) namespace_fraction: Option<f64>,
    /// Namespace size in GiB (exclusive with `namespace_fraction`).
    pub(crate) namespace_gib: Option<f64>,
    /// Most requests outstanding at once. For timed replay, a request that arrives when
    /// this many are outstanding waits in the host (its latency counts from its arrival).
    /// For closed-loop replay, the queue depth. Default 32.
    #[serde(default = "default_qd")]
    pub(crate) queue_depth: u32,
    /// When the tenant starts, in simulated seconds. Default 0.
    #[serde(default)]
    pub(crate) start_s: f64,
    /// Stop issuing requests this long after `start_s`. Default: when the workload ends.
    pub(crate) duration_s: Option<f64>,
    /// A trace workload (exclusive with `synthetic`).
    pub(crate) trace: Option<TraceWorkload>,
    /// Periodic real-time tasks (exclusive with `trace` and `synthetic`).
    pub(crate) periodic: Option<PeriodicWorkload>,
    /// A synthetic workload (exclusive with `trace`): one generator table
    /// (`[tenants.synthetic]`) or an array of them (`[[tenants.synthetic]]`), merged in time
    /// order.
    pub(crate) synthetic: Option<SyntheticWorkload>,
    /// Address-range stream rules (`[[tenants.stream_rules]]`): a request whose first byte in
    /// the namespace falls in a rule's range gets the rule's virtual stream instead of its
    /// record's (the first matching rule wins). Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) stream_rules: Vec<StreamRule>,
}

/// `[precondition]`: fill each namespace before measuring (instant, no timing).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPrecondition {
    /// Fraction of each namespace written, in [0, 1]. Default 1.
    #[serde(default = "default_one")]
    pub(crate) fill_fraction: f64,
    #[serde(default)]
    pub(crate) order: FillOrder,
    /// Random overwrites afterwards, in multiples of the filled size, so GC reaches steady
    /// state. In [0, 10]. Default 1.
    #[serde(default = "default_one")]
    pub(crate) overwrite_passes: f64,
    /// `simulate` (the default: `overwrite_passes` of simulated overwrites) or `closed_form`
    /// (the steady state of uniform random overwrites written directly; `overwrite_passes` is
    /// then not read, beyond having to be above 0).
    #[serde(default, skip_serializing_if = "Overwrites::is_simulate")]
    pub(crate) overwrites: Overwrites,
    /// `fill` or `workload` (then warm with the tenants' own writes, see `warm`). Default
    /// (`load` fills it in): `workload` if some tenant's workload writes and `fill_fraction`
    /// is above 0, else `fill`.
    pub(crate) mode: Option<PreconditionMode>,
    /// The warm-up's convergence window, tolerance and cap (`mode = "workload"`).
    #[serde(default)]
    pub(crate) warm: WarmConfig,
}

impl Default for RawPrecondition {
    /// The serde defaults above (an absent `[precondition]`).
    fn default() -> Self {
        RawPrecondition {
            fill_fraction: default_one(),
            order: FillOrder::default(),
            overwrite_passes: default_one(),
            overwrites: Overwrites::default(),
            mode: None,
            warm: WarmConfig::default(),
        }
    }
}

fn default_seed() -> u64 {
    1
}
/// A scenario without `schemes` runs the registry's first scheme, its baseline (unified).
fn default_schemes() -> Vec<String> {
    vec![crate::scheme::REGISTRY[0].name.into()]
}
fn default_stream_mapper() -> String {
    crate::stream::DEFAULT_MAPPER.into()
}
fn default_policy() -> VictimPolicy {
    VictimPolicy::Greedy
}
fn default_reserve() -> u32 {
    2
}
pub(crate) fn default_true() -> bool {
    true
}
fn default_streams() -> u8 {
    4
}
fn default_qd() -> u32 {
    32
}

/// The validated scenario as written with every default it filled in (`to_toml`): each
/// optional key set, so the resolved scenario loads back to itself.
impl From<&super::Scenario> for RawScenario {
    fn from(s: &super::Scenario) -> RawScenario {
        RawScenario {
            name: s.name.clone(),
            seed: s.seed,
            schemes: s.schemes.clone(),
            scheme: s.scheme.clone(),
            stream_mapper: s.stream_mapper.clone(),
            stream: s.stream.clone(),
            device: RawDevice::from(&s.device),
            ftl: RawFtl::from(&s.ftl),
            tenants: s.tenants.iter().map(RawTenant::from).collect(),
            precondition: RawPrecondition::from(&s.precondition),
            measure: s.measure.clone(),
            check: s.check.clone(),
            array: s.array.clone(),
        }
    }
}

impl From<&super::DeviceConfig> for RawDevice {
    fn from(d: &super::DeviceConfig) -> RawDevice {
        let g = &d.geometry;
        let t = &d.timing;
        RawDevice {
            preset: d.preset.clone(),
            channels: Some(g.channels),
            chips_per_channel: Some(g.chips_per_channel),
            dies_per_chip: Some(g.dies_per_chip),
            planes_per_die: Some(g.planes_per_die),
            blocks_per_plane: Some(g.blocks_per_plane),
            pages_per_block: Some(g.pages_per_block),
            page_bytes: Some(g.page_bytes),
            mapping_unit_bytes: Some(g.unit_bytes),
            over_provisioning: Some(d.over_provisioning),
            multi_plane: Some(d.multi_plane),
            program_erase_suspend: Some(d.program_erase_suspend),
            background_free: d.background_free.then_some(true),
            pe_cycles: Some(d.pe_cycles),
            timing: RawTiming {
                read_us: Some(t.read_us),
                program_us: Some(t.program_us),
                erase_us: Some(t.erase_us),
                command_ns: Some(t.command_ns),
                channel_mts: Some(t.channel_mts),
                channel_width_bits: Some(t.channel_width_bits),
                suspend_us: Some(t.suspend_us),
                read_holds_channel: Some(t.read_holds_channel),
            },
            fdp: d.fdp.clone(),
            board: t.board,
        }
    }
}

impl From<&super::FtlConfig> for RawFtl {
    fn from(f: &super::FtlConfig) -> RawFtl {
        RawFtl {
            gc_policy: f.gc_policy,
            gc_low_watermark_blocks: Some(f.gc_low_watermark_blocks),
            gc_high_watermark_blocks: Some(f.gc_high_watermark_blocks),
            gc_reserve_blocks: f.gc_reserve_blocks,
            background_gc: f.background_gc,
            dynamic_wear_leveling: f.dynamic_wear_leveling,
            static_wear_leveling_gap: f.static_wear_leveling_gap,
            physical_streams: f.physical_streams,
            frontier_per_tenant: f.frontier_per_tenant,
            scheduler: f.scheduler,
            write_buffer_bytes: Some(f.write_buffer_bytes),
            dram_latency_us: f.dram_latency_us,
        }
    }
}

impl From<&super::TenantConfig> for RawTenant {
    fn from(t: &super::TenantConfig) -> RawTenant {
        let (fraction, gib) = match t.namespace {
            super::Namespace::Fraction(f) => (Some(f), None),
            super::Namespace::Gib(g) => (None, Some(g)),
        };
        RawTenant {
            name: t.name.clone(),
            namespace_fraction: fraction,
            namespace_gib: gib,
            queue_depth: t.queue_depth,
            start_s: t.start_s,
            duration_s: t.duration_s,
            trace: t.trace().cloned(),
            periodic: t.periodic().cloned(),
            synthetic: t.synthetic().cloned(),
            stream_rules: t.stream_rules.clone(),
        }
    }
}

impl From<&super::PreconditionConfig> for RawPrecondition {
    fn from(p: &super::PreconditionConfig) -> RawPrecondition {
        RawPrecondition {
            fill_fraction: p.fill_fraction,
            order: p.order,
            overwrite_passes: p.overwrite_passes,
            overwrites: p.overwrites,
            mode: Some(p.mode),
            warm: p.warm.clone(),
        }
    }
}
