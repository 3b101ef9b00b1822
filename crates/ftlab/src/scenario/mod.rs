//! The scenario: the validated form the engine takes (`Scenario`, every default filled in,
//! every invariant established) and the way to it, `load`: TOML text, `--set` overrides,
//! the serde schema as written (`raw`), presets, then validation with precise errors
//! (`FtlabError::Config` naming the key and the range). `load` is the only constructor of a
//! `Scenario`; it reads no file. The reference for every key is `docs/scenario.md`.

pub(crate) mod overrides;
mod place;
pub(crate) mod presets;
pub(crate) mod raw;
mod validate;
mod warm;

pub(crate) use raw::{RawDevice, RawFtl, RawPrecondition, RawScenario, RawTenant, RawTiming};
pub(crate) use validate::MAX_TIMESERIES_ROWS;
pub(crate) use warm::{Overwrites, PreconditionMode, WarmConfig};

use crate::error::FtlabError;
use crate::flash::geometry::Geometry;
use crate::flash::timing::Timing;
use crate::ftl::gc::VictimPolicy;
pub(crate) use crate::host::AddressMap;
pub(crate) use crate::sched::SchedulerKind;
use crate::sim::time::SimTime;
use crate::workload::periodic::PeriodicWorkload;
use crate::workload::synthetic::SyntheticWorkload;
use crate::workload::TraceFormat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole validated scenario: one device, its tenants, the schemes to compare and the
/// measurement. Made only by `load` (through `validate`; the private `validated` field keeps
/// other code from building one); the keys are documented on `raw::RawScenario`.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub(crate) name: String,
    pub seed: u64,
    /// Schemes to run, in order, each known to the registry and listed once.
    pub schemes: Vec<String>,
    /// `[scheme.<name>]`: a listed scheme's table with every default filled in; an unlisted
    /// one's as written.
    pub scheme: BTreeMap<String, toml::Table>,
    pub(crate) stream_mapper: String,
    /// `[stream.<name>]`: the selected mapper's table with every default filled in.
    pub(crate) stream: BTreeMap<String, toml::Table>,
    pub device: DeviceConfig,
    pub ftl: FtlConfig,
    pub tenants: Vec<TenantConfig>,
    pub(crate) precondition: PreconditionConfig,
    pub(crate) measure: MeasureConfig,
    pub(crate) check: CheckConfig,
    /// `[array]`, if the scenario's device is an array's member.
    pub(crate) array: Option<ArrayConfig>,
    /// Private: no `Scenario` is built outside this module but by `validate`.
    pub(in crate::scenario) _validated: Validated,
}

/// The mark of a `Scenario` that `validate` made (it has no public constructor).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Validated(());

impl Validated {
    fn new() -> Validated {
        Validated(())
    }
}

/// `[device]`, validated: the preset's keys filled in, the geometry checked.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// The preset named, if any (echoed in the resolved scenario).
    pub preset: Option<String>,
    /// Channels, chips, dies, planes, blocks, pages, page and mapping-unit bytes.
    pub geometry: Geometry,
    /// (physical - logical) / logical, in (0, 4].
    pub over_provisioning: f64,
    pub(crate) multi_plane: bool,
    pub(crate) program_erase_suspend: bool,
    /// Background work costs no time (`device.background_free`, IODA's "Ideal").
    pub(crate) background_free: bool,
    /// In [1, `PE_CYCLES_MAX`].
    pub(crate) pe_cycles: u32,
    pub timing: TimingConfig,
    pub(crate) fdp: Option<crate::stream::FdpConfig>,
}

/// `[device.timing]`, validated (the ranges in `docs/scenario.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimingConfig {
    pub read_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
    pub command_ns: u64,
    pub channel_mts: u32,
    pub channel_width_bits: u32,
    pub(crate) suspend_us: f64,
    pub(crate) read_holds_channel: bool,
    /// `[device.board]` (the `cosmos` preset only).
    pub(crate) board: Option<crate::flash::board::BoardConfig>,
}

/// `[ftl]`, validated: the watermarks and the write buffer filled in.
#[derive(Clone, Debug)]
pub struct FtlConfig {
    pub(crate) gc_policy: VictimPolicy,
    /// In [2, blocks per die / 2].
    pub gc_low_watermark_blocks: u32,
    /// In [low watermark, blocks per die / 2].
    pub gc_high_watermark_blocks: u32,
    /// In [1, low watermark - 1].
    pub gc_reserve_blocks: u32,
    pub(crate) background_gc: bool,
    pub(crate) dynamic_wear_leveling: bool,
    pub(crate) static_wear_leveling_gap: u32,
    /// In [1, 16].
    pub(crate) physical_streams: u8,
    /// `ftl.frontier_per_tenant`: force frontiers keyed by tenant (default false: the policies
    /// decide, `FtlParams::frontier_per_tenant`).
    pub(crate) frontier_per_tenant: bool,
    pub scheduler: SchedulerKind,
    /// 0 = write-through.
    pub(crate) write_buffer_bytes: u64,
    pub(crate) dram_latency_us: f64,
}

/// One tenant, validated: one namespace size and one workload.
#[derive(Clone, Debug)]
pub struct TenantConfig {
    /// Non-empty, unique among the tenants.
    pub(crate) name: String,
    pub(crate) namespace: Namespace,
    pub queue_depth: u32,
    pub start_s: f64,
    /// Stop issuing requests this long after `start_s`; `None`: when the workload ends.
    pub(crate) duration_s: Option<f64>,
    pub(crate) workload: Workload,
    pub(crate) stream_rules: Vec<StreamRule>,
}

/// A tenant's namespace size, as written: exactly one of the two keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Namespace {
    /// `namespace_fraction`: of the device's logical capacity, in (0, 1].
    Fraction(f64),
    /// `namespace_gib`: finite and > 0.
    Gib(f64),
}

/// A tenant's workload: exactly one of `[tenants.trace]`, `[tenants.synthetic]` and
/// `[tenants.periodic]`.
#[derive(Clone, Debug)]
pub(crate) enum Workload {
    Trace(TraceWorkload),
    Synthetic(SyntheticWorkload),
    /// Resolved: every task's name and deadline filled in.
    Periodic(PeriodicWorkload),
}

/// `[precondition]`, validated: the mode filled in.
#[derive(Clone, Debug)]
pub(crate) struct PreconditionConfig {
    /// In [0, 1].
    pub(crate) fill_fraction: f64,
    pub(crate) order: FillOrder,
    /// In [0, 10].
    pub(crate) overwrite_passes: f64,
    /// Simulated overwrites or their closed-form steady state.
    pub(crate) overwrites: Overwrites,
    pub(crate) mode: PreconditionMode,
    pub(crate) warm: WarmConfig,
}

/// One address-range stream rule (see `TenantConfig::stream_rules`). Offsets are in the
/// tenant's namespace, after the trace's `address_map`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StreamRule {
    pub(crate) offset_bytes: u64,
    pub(crate) size_bytes: u64,
    /// The virtual stream, in [0, 65535].
    pub(crate) stream: u16,
}

/// Most stream rules a tenant may have (they are scanned in order for every request).
pub(crate) const MAX_STREAM_RULES: usize = 64;

/// Trace replay mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Replay {
    /// Requests arrive at their (scaled) timestamps.
    #[default]
    Timed,
    /// Timestamps are ignored; `queue_depth` requests are kept outstanding.
    Closed,
}

/// `[tenants.trace]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TraceWorkload {
    /// Path to the trace; relative paths resolve against the scenario file's directory.
    pub(crate) path: String,
    pub(crate) format: TraceFormat,
    #[serde(default)]
    pub(crate) address_map: AddressMap,
    /// For `address_map = "scale"`: the trace's highest byte address (default: found by a
    /// first pass over the trace).
    pub(crate) lba_max_bytes: Option<u64>,
    /// Multiply inter-arrival times by this (0.5 = twice as fast). Default 1.
    #[serde(default = "default_one")]
    pub(crate) time_scale: f64,
    #[serde(default)]
    pub(crate) replay: Replay,
    /// Stop after this many requests.
    pub(crate) max_requests: Option<u64>,
}

/// Order of preconditioning writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FillOrder {
    Sequential,
    #[default]
    Random,
}

/// `[measure]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MeasureConfig {
    /// Stop the simulation at this simulated time (seconds). Default: when every workload
    /// has ended and its requests completed.
    pub(crate) duration_s: Option<f64>,
    /// Latencies of requests that arrive before this are not recorded. Default 0.
    #[serde(default)]
    pub(crate) warmup_s: f64,
    /// Time-series window in simulated seconds. Default 1.
    #[serde(default = "default_one")]
    pub(crate) window_s: f64,
    /// Named intervals of the measured phase reported apart (`metrics::phase`): each has
    /// its own latencies, WAF and die utilisation in `summary.json` under `phases`.
    /// Default none.
    #[serde(default)]
    pub(crate) phases: Vec<PhaseConfig>,
    /// Also run every tenant alone under each scheme (`api::run_scenario`): the same scenario
    /// with every other tenant's workload silenced, so `summary.json` has each tenant's
    /// latencies alone (`solo`) and shared over alone (`slowdown`). Default false; left out
    /// of the resolved scenario when false, so a scenario without it resolves as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) solo: bool,
    /// A tenant is `starved` when a request that arrived in the measured phase waited longer
    /// than this many seconds, arrival to completion (one still outstanding at the end counts
    /// with its wait so far). In (0, 1e7]. Default 1: flash operations take microseconds to
    /// milliseconds, and collecting a whole block takes well under a second on every preset
    /// (docs/scenario.md gives the reasoning).
    #[serde(default = "default_one")]
    pub(crate) starvation_wait_s: f64,
    /// A tenant is `unstable` (besides a backlog that grew through the run) when its requests
    /// outstanding, host-queued included, exceeded this many times its queue depth at any time
    /// of the measured phase. In [1, 1e6]. Default 4.
    #[serde(default = "default_backlog_queue_depths_max")]
    pub(crate) backlog_queue_depths_max: f64,
    /// Measure each dead unit's lifetime per virtual stream (`metrics::streams`): a write time
    /// per logical unit, 2 bytes (4 after 68 simulated seconds). False: no per-unit write
    /// times are kept, every death counts as of unknown age, `lifetime_s_mean` is null.
    /// Default false (opt-in: the write times are a fifth of a 1 TiB device's mapping memory,
    /// docs/PERFORMANCE.md, and only the stream studies read them); left out of the resolved
    /// scenario when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) stream_lifetimes: bool,
}

fn default_backlog_queue_depths_max() -> f64 {
    4.0
}

/// One `[[measure.phases]]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PhaseConfig {
    /// Its key in `summary.json`: non-empty, unique among the phases.
    pub(crate) name: String,
    /// Start, in simulated seconds: at or after `measure.warmup_s`.
    pub(crate) start_s: f64,
    /// End, in simulated seconds, above `start_s`. Default: the end of the run.
    pub(crate) end_s: Option<f64>,
}

impl Default for MeasureConfig {
    /// The serde defaults above (an absent `[measure]`).
    fn default() -> Self {
        MeasureConfig {
            duration_s: None,
            warmup_s: 0.0,
            window_s: default_one(),
            phases: Vec::new(),
            solo: false,
            starvation_wait_s: default_one(),
            backlog_queue_depths_max: default_backlog_queue_depths_max(),
            stream_lifetimes: false,
        }
    }
}

/// `[check]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckConfig {
    /// Run the integrity oracle (DESIGN §5): every read and GC copy is checked. Default false.
    #[serde(default)]
    pub(crate) integrity: bool,
}

/// `[array]`: the scenario's device, `devices` times, behind a host layer with rotating
/// parity (RAID-5 left-symmetric; `crate::array`, docs/array.md). Absent: one device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArrayConfig {
    /// Devices in the array, parity included, in [3, 16] (RAID-5 needs at least three).
    pub(crate) devices: u32,
    /// Bytes of one chunk (a stripe unit) in KiB: a whole number of mapping units, at most
    /// 1024 KiB. IODA's artifact used 4 KiB (`mdadm -c 4`).
    pub(crate) chunk_kib: u32,
    /// Reads of this device's data chunks are rebuilt from the other devices' chunks and
    /// parity (a degraded-read drill: writes still reach it). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rebuild_device: Option<u32>,
    /// IODA's fail-fast reads (PL_IO): `"off"` (the default: reads wait behind background
    /// work), `"random"` or `"brt"` (a device busy with background work fails a read at once
    /// with its busy remaining time, and the host rebuilds it from the other devices; with two
    /// or more busy chunks in the row, the one rebuilt is drawn at random, or is the one with
    /// the largest busy remaining time); a write's read-modify-write reads fail fast too.
    /// `"iod3"`: as `"random"`, but read-modify-write reads are never failed (the artifact's
    /// IOD_3).
    #[serde(default)]
    pub(crate) fail_fast: FailFast,
    /// IODA's staggered windows (PL_Win): device `i`'s `iod` host schedule is shifted by `i`
    /// cycles / devices, so that at most one device of a row is in its Non-Deterministic
    /// Window (`iod` with `windows = "host"` and `host_ndwin_ms` at most a cycle / devices).
    /// Default false.
    #[serde(default)]
    pub(crate) stagger: bool,
}

/// `[array] fail_fast`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FailFast {
    #[default]
    Off,
    Random,
    Brt,
    Iod3,
}

impl TenantConfig {
    /// Names of the tenant's periodic tasks (empty for other workloads).
    pub(crate) fn task_names(&self) -> Vec<String> {
        self.periodic().map_or_else(Vec::new, PeriodicWorkload::task_names)
    }

    /// The trace workload, if that is the tenant's.
    pub(crate) fn trace(&self) -> Option<&TraceWorkload> {
        match &self.workload {
            Workload::Trace(t) => Some(t),
            _ => None,
        }
    }

    /// The synthetic workload, if that is the tenant's.
    pub fn synthetic(&self) -> Option<&SyntheticWorkload> {
        match &self.workload {
            Workload::Synthetic(w) => Some(w),
            _ => None,
        }
    }

    /// The periodic tasks, if they are the tenant's workload.
    pub(crate) fn periodic(&self) -> Option<&PeriodicWorkload> {
        match &self.workload {
            Workload::Periodic(p) => Some(p),
            _ => None,
        }
    }
}

impl TimingConfig {
    /// The model's timing, in nanoseconds (microseconds rounded to the nearest one).
    pub(crate) fn timing(&self) -> Timing {
        Timing {
            read: us(self.read_us),
            program: us(self.program_us),
            erase: us(self.erase_us),
            command: SimTime(self.command_ns),
            suspend: us(self.suspend_us),
            channel_mts: self.channel_mts,
            channel_width_bits: self.channel_width_bits,
            read_holds_channel: self.read_holds_channel,
            board: self.board,
        }
    }
}

fn us(v: f64) -> SimTime {
    SimTime((v * 1000.0).round() as u64)
}

impl Scenario {
    /// The device geometry.
    pub fn geometry(&self) -> Geometry {
        self.device.geometry
    }

    /// The device timing.
    pub fn timing(&self) -> Timing {
        self.device.timing.timing()
    }

    /// Logical capacity of the device in mapping units: physical / (1 + over-provisioning).
    pub fn logical_units(&self) -> u64 {
        logical_units(&self.device.geometry, self.device.over_provisioning)
    }

    /// Every tenant's periodic tasks in the real-time analysis' model (`rt::Task`, PaRT-FTL
    /// §III-B), tenants in scenario order: a read task is (r_i, T_i^r), a write task
    /// (w_i, T_i^w). Empty when no tenant has `[tenants.periodic]`.
    pub fn rt_tasks(&self) -> Vec<crate::rt::Task> {
        let tasks = self.tenants.iter().filter_map(TenantConfig::periodic).flat_map(|p| p.tasks.iter());
        tasks
            .map(|t| match t.op {
                crate::workload::IoOp::Read => crate::rt::Task::reader(t.pages, t.period_ms),
                _ => crate::rt::Task::writer(t.pages, t.period_ms),
            })
            .collect()
    }

    /// Each tenant's namespace in mapping units.
    pub fn namespace_units(&self) -> Vec<u32> {
        let logical = self.logical_units();
        self.tenants.iter().map(|t| t.namespace.units(&self.device.geometry, logical)).collect()
    }
}

/// Physical mapping units / (1 + over-provisioning), rounded down.
fn logical_units(g: &Geometry, over_provisioning: f64) -> u64 {
    (g.n_units() as f64 / (1.0 + over_provisioning)).floor() as u64
}

impl Namespace {
    /// The namespace in mapping units of `g`, given the device's `logical` capacity in units.
    pub(crate) fn units(self, g: &Geometry, logical: u64) -> u32 {
        match self {
            Namespace::Fraction(f) => (logical as f64 * f).floor() as u32,
            Namespace::Gib(gib) => (gib * (1u64 << 30) as f64 / g.unit_bytes as f64).floor() as u32,
        }
    }
}

pub(crate) fn default_one() -> f64 {
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
    let mut raw: RawScenario = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let path = dotted(&e.path().to_string());
        let reason = crate::error::suggest_in_reason(e.into_inner().message());
        located(FtlabError::config(file, key_of(path, &reason), reason))
    })?;
    if let Some(s) = seed {
        raw.seed = s;
    }
    validate::validate(raw).map_err(|(key, reason)| located(FtlabError::config(file, key, reason)))
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

/// The scenario with every default filled in, as TOML: the schema as written
/// (`raw::RawScenario`) with every optional key set to the value validation chose.
pub fn to_toml(scenario: &Scenario) -> String {
    let raw = RawScenario::from(scenario);
    match toml::to_string(&raw) {
        Ok(text) => text,
        // Every value of the schema is a TOML value (strings, numbers, booleans, tables).
        Err(e) => panic!("the resolved scenario does not serialize: {e}"),
    }
}

fn syntax_error(file: &str, text: &str, e: &toml::de::Error) -> FtlabError {
    crate::error::toml_syntax(file, text, e)
}
