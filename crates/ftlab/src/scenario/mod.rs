//! The scenario schema (serde, `deny_unknown_fields`), `--set` overrides, presets and
//! validation with precise errors (`FtlabError::Config` naming the key and the range). It
//! turns TOML text into a `Scenario` whose every default is filled in; it reads no file.
//! The reference for every key is `docs/scenario.md`.

pub mod fdp;
pub mod overrides;
mod place;
pub mod presets;
mod validate;
mod warm;

pub use validate::MAX_TIMESERIES_ROWS;
pub use warm::{tenant_writes, PreconditionMode, WarmConfig};

use crate::error::FtlabError;
use crate::ftl::gc::VictimPolicy;
pub use crate::host::AddressMap;
pub use crate::sched::SchedulerKind;
use crate::workload::periodic::PeriodicWorkload;
use crate::workload::synthetic::SyntheticWorkload;
use crate::workload::TraceFormat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole scenario: one device, its tenants, the schemes to compare and the measurement.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name shown in reports.
    #[serde(default)]
    pub name: String,
    /// Seed of every random choice (generators, preconditioning).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Schemes to run, in order; each runs the same workload on a fresh device.
    #[serde(default = "default_schemes")]
    pub schemes: Vec<String>,
    /// Per-scheme knobs: `[scheme.<name>]`.
    #[serde(default)]
    pub scheme: BTreeMap<String, toml::Table>,
    /// Stream mapper (virtual -> physical stream).
    #[serde(default = "default_stream_mapper")]
    pub stream_mapper: String,
    /// Per-mapper knobs: `[stream.<name>]`.
    #[serde(default)]
    pub stream: BTreeMap<String, toml::Table>,
    pub device: DeviceConfig,
    #[serde(default)]
    pub ftl: FtlConfig,
    pub tenants: Vec<TenantConfig>,
    #[serde(default)]
    pub precondition: PreconditionConfig,
    #[serde(default)]
    pub measure: MeasureConfig,
    #[serde(default)]
    pub check: CheckConfig,
    /// The values `load` derived from the keys above (never read from TOML).
    #[serde(skip)]
    pub resolved: Resolved,
}

/// What validation derived: every value the scenario leaves optional, filled in. `load`
/// sets it; the model reads these instead of unwrapping the optional keys.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    /// Set by `load` once everything below is filled in.
    pub filled: bool,
    pub gc_low_watermark_blocks: u32,
    pub gc_high_watermark_blocks: u32,
    /// 0 = write-through.
    pub write_buffer_bytes: u64,
    pub multi_plane: bool,
    pub program_erase_suspend: bool,
    pub over_provisioning: f64,
    pub mapping_unit_bytes: u32,
}

/// `[device]`: geometry and timing. Keys left out come from `preset`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// One of `tiny`, `upi`, `mqsim` (see `presets`).
    pub preset: Option<String>,
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
    pub multi_plane: Option<bool>,
    /// Program/erase suspend: a host read arriving while its die programs or erases
    /// suspends that operation (after `timing.suspend_us`), is served, and the operation
    /// resumes (after `timing.suspend_us` again). Default false.
    pub program_erase_suspend: Option<bool>,
    /// Program/erase endurance of a block, in cycles: the lifetime projection's wear-out
    /// point (`metrics::lifetime`). Default 3000 (MLC, datasheet-typical); range [1, 10^6].
    pub pe_cycles: Option<u32>,
    #[serde(default)]
    pub timing: TimingConfig,
    /// `[device.fdp]`: NVMe Flexible Data Placement (reclaim groups, RU size, handles), read
    /// by the `fdp` stream mapper (`scenario::fdp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdp: Option<fdp::FdpConfig>,
}

/// `[device.timing]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
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
    pub suspend_us: Option<f64>,
    /// A read holds its channel for its whole duration (command, tR, transfer), so reads on
    /// one channel run one at a time: a controller whose dies share one page buffer per
    /// channel (the `cosmos` preset). Default false: the channel is held only to transfer.
    pub read_holds_channel: Option<bool>,
}

/// `[ftl]`: the FTL mechanics shared by every scheme.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// GC victim policy: `greedy` or `cost-benefit`.
    #[serde(default = "default_policy")]
    pub gc_policy: VictimPolicy,
    /// Foreground GC starts on a die when its free blocks fall below this. Default:
    /// max(gc_reserve_blocks + 4, blocks_per_die / 100).
    pub gc_low_watermark_blocks: Option<u32>,
    /// Background GC runs on an idle die while its free blocks are below this. Default:
    /// 2 x the low watermark.
    pub gc_high_watermark_blocks: Option<u32>,
    /// Free blocks per die that host writes may not take (kept for GC copies). Default 2.
    #[serde(default = "default_reserve")]
    pub gc_reserve_blocks: u32,
    /// Run GC on idle dies between the watermarks. Default true.
    #[serde(default = "default_true")]
    pub background_gc: bool,
    /// Hand out the least-worn free block first. Default true.
    #[serde(default = "default_true")]
    pub dynamic_wear_leveling: bool,
    /// Static wear leveling: when a die's erase-count gap exceeds this, move its coldest
    /// block's data. 0 = off (default).
    #[serde(default)]
    pub static_wear_leveling_gap: u32,
    /// Physical streams (write frontiers per tenant and class). Default 4, the vStream
    /// paper's device (§5.1). A mapper maps every virtual stream below it.
    #[serde(default = "default_streams")]
    pub physical_streams: u8,
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// DRAM write buffer in bytes; 0 = write-through (a write completes when programmed).
    /// Default: 0 when a flash page holds one mapping unit; otherwise
    /// `DEFAULT_BUFFER_PAGES_PER_DIE` flash pages per die (see `validate`).
    pub write_buffer_bytes: Option<u64>,
    /// Controller latency of a request served without flash (buffer hit, unmapped read,
    /// trim, buffered write admission), in microseconds. In [0.001, 1000]. Default 1.
    #[serde(default = "default_one")]
    pub dram_latency_us: f64,
}

impl Default for FtlConfig {
    fn default() -> Self {
        toml::Value::Table(toml::Table::new()).try_into().expect("defaults deserialize")
    }
}

/// One tenant: a namespace and a workload.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TenantConfig {
    pub name: String,
    /// Namespace size as a fraction of the device's logical capacity, in (0, 1].
    pub namespace_fraction: Option<f64>,
    /// Namespace size in GiB (exclusive with `namespace_fraction`).
    pub namespace_gib: Option<f64>,
    /// Most requests outstanding at once. For timed replay, a request that arrives when
    /// this many are outstanding waits in the host (its latency counts from its arrival).
    /// For closed-loop replay, the queue depth. Default 32.
    #[serde(default = "default_qd")]
    pub queue_depth: u32,
    /// When the tenant starts, in simulated seconds. Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Stop issuing requests this long after `start_s`. Default: when the workload ends.
    pub duration_s: Option<f64>,
    /// A trace workload (exclusive with `synthetic`).
    pub trace: Option<TraceWorkload>,
    /// Periodic real-time tasks (exclusive with `trace` and `synthetic`).
    pub periodic: Option<PeriodicWorkload>,
    /// A synthetic workload (exclusive with `trace`): one generator table
    /// (`[tenants.synthetic]`) or an array of them (`[[tenants.synthetic]]`), merged in time
    /// order.
    pub synthetic: Option<SyntheticWorkload>,
    /// Address-range stream rules (`[[tenants.stream_rules]]`): a request whose first byte in
    /// the namespace falls in a rule's range gets the rule's virtual stream instead of its
    /// record's (the first matching rule wins). Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream_rules: Vec<StreamRule>,
}

/// One address-range stream rule (see `TenantConfig::stream_rules`). Offsets are in the
/// tenant's namespace, after the trace's `address_map`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamRule {
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// The virtual stream, in [0, 65535].
    pub stream: u16,
}

/// Most stream rules a tenant may have (they are scanned in order for every request).
pub const MAX_STREAM_RULES: usize = 64;

/// Trace replay mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replay {
    /// Requests arrive at their (scaled) timestamps.
    #[default]
    Timed,
    /// Timestamps are ignored; `queue_depth` requests are kept outstanding.
    Closed,
}

/// `[tenants.trace]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceWorkload {
    /// Path to the trace; relative paths resolve against the scenario file's directory.
    pub path: String,
    pub format: TraceFormat,
    #[serde(default)]
    pub address_map: AddressMap,
    /// For `address_map = "scale"`: the trace's highest byte address (default: found by a
    /// first pass over the trace).
    pub lba_max_bytes: Option<u64>,
    /// Multiply inter-arrival times by this (0.5 = twice as fast). Default 1.
    #[serde(default = "default_one")]
    pub time_scale: f64,
    #[serde(default)]
    pub replay: Replay,
    /// Stop after this many requests.
    pub max_requests: Option<u64>,
}

/// Order of preconditioning writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillOrder {
    Sequential,
    #[default]
    Random,
}

/// `[precondition]`: fill each namespace before measuring (instant, no timing).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Fraction of each namespace written, in [0, 1]. Default 1.
    #[serde(default = "default_one")]
    pub fill_fraction: f64,
    #[serde(default)]
    pub order: FillOrder,
    /// Random overwrites afterwards, in multiples of the filled size, so GC reaches steady
    /// state. In [0, 10]. Default 1.
    #[serde(default = "default_one")]
    pub overwrite_passes: f64,
    /// `fill` or `workload` (then warm with the tenants' own writes, see `warm`). Default
    /// (`load` fills it in): `workload` if some tenant's workload writes and `fill_fraction`
    /// is above 0, else `fill`.
    pub mode: Option<PreconditionMode>,
    /// The warm-up's convergence window, tolerance and cap (`mode = "workload"`).
    #[serde(default)]
    pub warm: WarmConfig,
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        toml::Value::Table(toml::Table::new()).try_into().expect("defaults deserialize")
    }
}

/// `[measure]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureConfig {
    /// Stop the simulation at this simulated time (seconds). Default: when every workload
    /// has ended and its requests completed.
    pub duration_s: Option<f64>,
    /// Latencies of requests that arrive before this are not recorded. Default 0.
    #[serde(default)]
    pub warmup_s: f64,
    /// Time-series window in simulated seconds. Default 1.
    #[serde(default = "default_one")]
    pub window_s: f64,
    /// Named intervals of the measured phase reported apart (`metrics::phase`): each has
    /// its own latencies, WAF and die utilisation in `summary.json` under `phases`.
    /// Default none.
    #[serde(default)]
    pub phases: Vec<PhaseConfig>,
    /// Also run every tenant alone under each scheme (`api::run_scenario`): the same scenario
    /// with every other tenant's workload silenced, so `summary.json` has each tenant's
    /// latencies alone (`solo`) and shared over alone (`slowdown`). Default false; left out
    /// of the resolved scenario when false, so a scenario without it resolves as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub solo: bool,
    /// A tenant is `starved` when a request that arrived in the measured phase waited longer
    /// than this many seconds, arrival to completion (one still outstanding at the end counts
    /// with its wait so far). In (0, 1e7]. Default 1: flash operations take microseconds to
    /// milliseconds, and collecting a whole block takes well under a second on every preset
    /// (docs/scenario.md gives the reasoning).
    #[serde(default = "default_one")]
    pub starvation_wait_s: f64,
    /// A tenant is `unstable` (besides a backlog that grew through the run) when its requests
    /// outstanding, host-queued included, exceeded this many times its queue depth at any time
    /// of the measured phase. In [1, 1e6]. Default 4.
    #[serde(default = "default_backlog_queue_depths_max")]
    pub backlog_queue_depths_max: f64,
    /// Measure each dead unit's lifetime per virtual stream (`metrics::streams`): a write time
    /// per logical unit, 2 bytes (4 after 68 simulated seconds). False: no per-unit write
    /// times are kept, every death counts as of unknown age, `lifetime_s_mean` is null. Default
    /// true; left out of the resolved scenario when true, so a scenario without it resolves
    /// as before.
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub stream_lifetimes: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn default_backlog_queue_depths_max() -> f64 {
    4.0
}

/// One `[[measure.phases]]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseConfig {
    /// Its key in `summary.json`: non-empty, unique among the phases.
    pub name: String,
    /// Start, in simulated seconds: at or after `measure.warmup_s`.
    pub start_s: f64,
    /// End, in simulated seconds, above `start_s`. Default: the end of the run.
    pub end_s: Option<f64>,
}

impl Default for MeasureConfig {
    fn default() -> Self {
        toml::Value::Table(toml::Table::new()).try_into().expect("defaults deserialize")
    }
}

/// `[check]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Run the integrity oracle (DESIGN §5): every read and GC copy is checked. Default false.
    #[serde(default)]
    pub integrity: bool,
}

impl TenantConfig {
    /// Names of the tenant's periodic tasks (empty for other workloads).
    pub fn task_names(&self) -> Vec<String> {
        self.periodic.as_ref().map_or_else(Vec::new, PeriodicWorkload::task_names)
    }
}

impl Scenario {
    /// The derived values (after `load`).
    pub fn resolved(&self) -> &Resolved {
        assert!(self.resolved.filled, "scenario used before scenario::load resolved it");
        &self.resolved
    }
}

fn default_seed() -> u64 {
    1
}
fn default_schemes() -> Vec<String> {
    vec!["unified".into()]
}
fn default_stream_mapper() -> String {
    "legacy".into()
}
fn default_policy() -> VictimPolicy {
    VictimPolicy::Greedy
}
fn default_reserve() -> u32 {
    2
}
fn default_true() -> bool {
    true
}
fn default_streams() -> u8 {
    4
}
fn default_qd() -> u32 {
    32
}
fn default_one() -> f64 {
    1.0
}

/// Parse scenario text, apply `--set` overrides and a seed override, fill every default and
/// validate. `file` names the source in errors; a `Config` error carries its place: the
/// `--set` override that caused it, or the line and column of its key (`place::locate`).
pub fn load(text: &str, file: &str, overrides: &[String], seed: Option<u64>) -> Result<Scenario, FtlabError> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| syntax_error(file, text, &e))?;
    let mut applied = Vec::with_capacity(overrides.len());
    for o in overrides {
        let path = overrides::apply(&mut table, o).map_err(|(key, reason)| FtlabError::Config {
            file: file.to_string(),
            key,
            reason,
            place: crate::error::Place::Set(o.trim().to_string()),
        })?;
        applied.push((o.trim().to_string(), path));
    }
    let located = |e: FtlabError| place::locate(e, text, &applied);
    let mut scenario: Scenario =
        serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let path = dotted(&e.path().to_string());
            let reason = crate::error::suggest_in_reason(e.into_inner().message());
            located(FtlabError::config(file, key_of(path, &reason), reason))
        })?;
    if let Some(s) = seed {
        scenario.seed = s;
    }
    validate::resolve(&mut scenario)
        .map_err(|(key, reason)| located(FtlabError::config(file, key, reason)))?;
    Ok(scenario)
}

/// serde's `tenants[0].x` as the `tenants.0.x` spelling that `--set` and validation use.
fn dotted(path: &str) -> String {
    let p = path.replace('[', ".").replace(']', "");
    if p == "." {
        String::new()
    } else {
        p
    }
}

/// The key a schema error is about: its path, or for a missing field the field itself.
fn key_of(path: String, reason: &str) -> String {
    let missing = reason.strip_prefix("missing field `").and_then(|r| r.split('`').next());
    match (path.is_empty(), missing) {
        (true, Some(field)) => field.to_string(),
        (false, Some(field)) => format!("{path}.{field}"),
        _ => path,
    }
}

/// The scenario with every default filled in, as TOML.
pub fn to_toml(scenario: &Scenario) -> String {
    toml::to_string(scenario).expect("scenario serializes")
}

fn syntax_error(file: &str, text: &str, e: &toml::de::Error) -> FtlabError {
    crate::error::toml_syntax(file, text, e)
}
