//! `iod`: NVMe I/O Determinism. Each tenant's namespace lives in an NVM Set of its own, dies
//! set apart for it (whole channels or dies, as `partitioned` assigns them), and each set runs
//! Predictable Latency Mode (`scheme::plm`): in a Deterministic Window the engine starts no
//! background job and runs no job operation on the set's dies (`BackgroundWindows`), so host
//! reads find them free; in a Non-Deterministic Window the set collects as any die does. The
//! windows change autonomously (the set's declared limits, and a deterministic excursion when
//! a die is down to its last free blocks) or on the host's request, by a schedule of
//! Non-Deterministic Windows per set that may be staggered so that at most one set collects at
//! a time. `summary.json` gets each set's Predictable Latency Per NVM Set log page in the scheme
//! counters (`set<i>_<field>`, libnvme's field names), and what the windows did.
//!
//! What this is not: no host-side rebuild of a read from other sets (a set holds no parity of
//! another's data; the flash array's host layer does that, issue 45 item 3), no Predictable
//! Latency Event Aggregate log, and a window changes only at the scheme's tick (`tick_ms`).
//! docs/schemes/iod.md.

use super::partitioned::{die_sets, PartitionUnit};
use super::plm::{Limits, LogPage, SetWindows, Window};
use super::{
    parse_config, to_table, BackgroundWindows, Capabilities, RoundRobin, Scheme, SchemeConfigError,
    SchemeContext, SchemeInfo,
};
use crate::flash::geometry::{DieIdx, Geometry};
use crate::knobs::{check_all, config_fields, serde_defaults, Bounds, IntBounds, Knob, KnobKind};
use crate::policy::{counter_name, Command, Counters, DeviceView};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

/// Who changes a set's windows back to deterministic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum WindowMode {
    /// The device: a Non-Deterministic Window ends once it has lasted its declared minimum.
    #[default]
    Autonomous,
    /// The host, by its schedule (`host_cycle_ms`, `host_ndwin_ms`, `stagger`).
    Host,
}

/// Knobs of `iod`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IodConfig {
    /// NVM Sets of whole channels (`"channel"`, the default) or of dies (`"die"`).
    #[serde(default)]
    pub(crate) by: PartitionUnit,
    /// Channels or dies per set, one set per tenant in scenario order; empty (the default) =
    /// proportional to namespace size.
    #[serde(default)]
    pub(crate) shares: Vec<u32>,
    /// Predictable Latency Mode on every set. Default true; false gives NVM Sets alone
    /// (`partitioned`'s placement and GC).
    #[serde(default = "yes")]
    pub(crate) plm: bool,
    /// Who ends a Non-Deterministic Window. Default `"autonomous"`.
    #[serde(default)]
    pub(crate) windows: WindowMode,
    /// DTWIN Time Maximum, ms. Default 100.
    #[serde(default = "default_dtwin_ms")]
    pub(crate) dtwin_time_ms_max: f64,
    /// NDWIN Time Minimum, ms (reported as both its High and Low). Default 50.
    #[serde(default = "default_ndwin_ms")]
    pub(crate) ndwin_time_ms_min: f64,
    /// DTWIN Reads Typical, in 4 KiB units; absent: no reads limit.
    #[serde(default)]
    pub(crate) dtwin_reads_typical: Option<u64>,
    /// DTWIN Writes Typical, in 4 KiB units; absent: no writes limit (a die short of free
    /// blocks still ends the window, an excursion).
    #[serde(default)]
    pub(crate) dtwin_writes_typical: Option<u64>,
    /// DTWIN Writes Typical derived at each DTWIN's opening from the set's free space: the
    /// host writes its dies take, striped over them, before one of them is down to the GC low
    /// watermark (the set's dies x the fewest free blocks above it on any of them x units per
    /// block). Default false; not with `dtwin_writes_typical`.
    #[serde(default)]
    pub(crate) dtwin_writes_derived: bool,
    /// Host mode: the period of every set's schedule, ms. Default 400.
    #[serde(default = "default_cycle_ms")]
    pub(crate) host_cycle_ms: f64,
    /// Host mode: how long the host keeps a set in its Non-Deterministic Window each cycle, ms.
    /// Default 50.
    #[serde(default = "default_ndwin_ms")]
    pub(crate) host_ndwin_ms: f64,
    /// Host mode: set `i`'s window opens at `i` cycles / sets into the cycle (true, the
    /// default), or every set's at the cycle's start.
    #[serde(default = "yes")]
    pub(crate) stagger: bool,
    /// Host mode: every set's window opens this far later into the cycle, ms. Default 0. An
    /// array with `[array] stagger` sets device `i`'s to `i` cycles / devices (docs/array.md).
    #[serde(default)]
    pub(crate) host_offset_ms: f64,
    /// How often the windows are checked, ms. Default 1.
    #[serde(default = "default_tick_ms")]
    pub(crate) tick_ms: f64,
}

fn yes() -> bool {
    true
}
fn default_dtwin_ms() -> f64 {
    100.0
}
fn default_ndwin_ms() -> f64 {
    50.0
}
fn default_cycle_ms() -> f64 {
    400.0
}
fn default_tick_ms() -> f64 {
    1.0
}

/// The knobs of `iod`.
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new("by", "", KnobKind::Choice(&["channel", "die"]), "NVM Sets of whole channels or dies."),
    Knob::new(
        "shares",
        "channels or dies",
        KnobKind::IntList(IntBounds::ANY),
        "Units per set (one set per tenant); empty = proportional to namespace size.",
    )
    .also("one per tenant, each in [1, units], summing to the device's units"),
    Knob::new("plm", "", KnobKind::Bool, "Predictable Latency Mode on every set."),
    Knob::new(
        "windows",
        "",
        KnobKind::Choice(&["autonomous", "host"]),
        "Who ends a Non-Deterministic Window: the device after its minimum, or the host's schedule.",
    ),
    Knob::new("dtwin_time_ms_max", "ms", KnobKind::Float(Bounds::closed(0.01, 3.6e6)), "DTWIN Time Maximum."),
    Knob::new(
        "ndwin_time_ms_min",
        "ms",
        KnobKind::Float(Bounds::closed(0.0, 3.6e6)),
        "NDWIN Time Minimum (High and Low).",
    ),
    Knob::new(
        "dtwin_reads_typical",
        "4 KiB",
        KnobKind::Int(IntBounds::at_least(1)),
        "DTWIN Reads Typical: the reads that end a DTWIN.",
    )
    .absent("no reads limit"),
    Knob::new(
        "dtwin_writes_typical",
        "4 KiB",
        KnobKind::Int(IntBounds::at_least(1)),
        "DTWIN Writes Typical: the writes that end a DTWIN.",
    )
    .absent("no writes limit"),
    Knob::new(
        "dtwin_writes_derived",
        "",
        KnobKind::Bool,
        "DTWIN Writes Typical derived as each DTWIN opens: the set's free blocks above the GC low watermark.",
    )
    .also("not with dtwin_writes_typical"),
    Knob::new("host_cycle_ms", "ms", KnobKind::Float(Bounds::closed(0.01, 3.6e6)), "Host schedule's period."),
    Knob::new(
        "host_ndwin_ms",
        "ms",
        KnobKind::Float(Bounds::open_lo(0.0, 3.6e6)),
        "Host schedule: each set's Non-Deterministic Window per cycle.",
    )
    .also("below host_cycle_ms"),
    Knob::new("stagger", "", KnobKind::Bool, "Host schedule: sets' windows spread over the cycle."),
    Knob::new(
        "host_offset_ms",
        "ms",
        KnobKind::Float(Bounds::closed(0.0, 3.6e6)),
        "Host schedule: every set's window shifted this far into the cycle (an array staggers its devices).",
    ),
    Knob::new(
        "tick_ms",
        "ms",
        KnobKind::Float(Bounds::closed(0.001, 1000.0)),
        "How often windows are checked.",
    )
    .also("at most dtwin_time_ms_max"),
];

/// `iod`'s registry entry.
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "iod",
    summary: "NVMe I/O Determinism: an NVM Set per tenant, Predictable Latency Mode windows per set.",
    knobs: KNOBS,
    fields: config_fields::<IodConfig>,
    defaults: serde_defaults::<IodConfig>,
    build,
    caps: Capabilities::labelled("IOD"),
};

pub(crate) struct Iod {
    config: IodConfig,
    geometry: Geometry,
    /// Per set (= tenant): its dies, striped round-robin.
    sets: Vec<RoundRobin>,
    set_of_die: Vec<u16>,
    windows: Vec<SetWindows>,
    /// Per set: due a Deterministic Window and waiting for its dies' job operations to end
    /// (no new one starts meanwhile).
    closing: Vec<bool>,
    low_watermark_blocks: u32,
    tick: SimTime,
    /// The last tick's or excursion's time (the log pages in the counters are read there).
    now_last: SimTime,
    /// Excursions: a die down to its last free blocks in its set's Deterministic Window.
    excursion_dies: u64,
}

pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    let mut config: IodConfig = parse_config(table)?;
    check_all(KNOBS, &config)?;
    let (sets, set_of_die) = die_sets(config.by, &mut config.shares, ctx)?;
    check_windows(&config)?;
    let limits = limits(&config);
    let windows = vec![SetWindows::new(limits, SimTime::ZERO); sets.len()];
    Ok(Box::new(Iod {
        tick: SimTime::from_secs_f64(config.tick_ms * 1e-3),
        config,
        geometry: *ctx.geometry,
        sets: sets.into_iter().map(RoundRobin::new).collect(),
        set_of_die,
        closing: vec![false; windows.len()],
        windows,
        low_watermark_blocks: ctx.low_watermark_blocks,
        now_last: SimTime::ZERO,
        excursion_dies: 0,
    }))
}

fn check_windows(c: &IodConfig) -> Result<(), SchemeConfigError> {
    if c.dtwin_writes_derived && c.dtwin_writes_typical.is_some() {
        let reason = "must be false when dtwin_writes_typical is given (one writes limit)".to_string();
        return Err(SchemeConfigError::new("dtwin_writes_derived", reason));
    }
    if c.tick_ms > c.dtwin_time_ms_max {
        let reason =
            format!("must be at most dtwin_time_ms_max ({}), got {}", c.dtwin_time_ms_max, c.tick_ms);
        return Err(SchemeConfigError::new("tick_ms", reason));
    }
    if c.host_ndwin_ms >= c.host_cycle_ms {
        let reason = format!("must be below host_cycle_ms ({}), got {}", c.host_cycle_ms, c.host_ndwin_ms);
        return Err(SchemeConfigError::new("host_ndwin_ms", reason));
    }
    Ok(())
}

fn limits(c: &IodConfig) -> Limits {
    Limits {
        reads_typical: c.dtwin_reads_typical.unwrap_or(u64::MAX),
        writes_typical: c.dtwin_writes_typical.unwrap_or(u64::MAX),
        dtwin_time_max: SimTime::from_secs_f64(c.dtwin_time_ms_max * 1e-3),
        ndwin_time_min: SimTime::from_secs_f64(c.ndwin_time_ms_min * 1e-3),
        warn_fraction: 0.9,
    }
}

impl Iod {
    fn set_dies(&self, s: usize) -> &[DieIdx] {
        &self.sets[s].dies
    }

    /// Whether any die of set `s` runs a job operation now (a Deterministic Window opens only
    /// when none does).
    fn jobs_running(&self, s: usize, view: &DeviceView) -> bool {
        self.set_dies(s).iter().any(|&d| view.runs_job_op(d))
    }

    /// The host's request for set `s` at the tick ending at `now`, if its schedule changes in
    /// (now - tick, now].
    fn host_request(&self, s: usize, now: SimTime) -> Option<Window> {
        let c = &self.config;
        let cycle = SimTime::from_secs_f64(c.host_cycle_ms * 1e-3);
        let n = self.sets.len() as u64;
        let offset = if c.stagger { SimTime(cycle.0 * s as u64 / n) } else { SimTime::ZERO }
            + SimTime::from_secs_f64(c.host_offset_ms * 1e-3);
        let open = offset;
        let close = offset + SimTime::from_secs_f64(c.host_ndwin_ms * 1e-3);
        let crossed = |at: SimTime| {
            let at = SimTime(at.0 % cycle.0);
            let prev = SimTime(now.0.saturating_sub(self.tick.0));
            // `at + k cycles` in (prev, now] for some k >= 0.
            let k = now.0.saturating_sub(at.0) / cycle.0;
            let t = at.0 + k * cycle.0;
            now.0 >= at.0 && t > prev.0
        };
        if crossed(open) {
            Some(Window::NonDeterministic)
        } else if crossed(close) {
            Some(Window::Deterministic)
        } else {
            None
        }
    }

    /// Set `s` entered `window`: a DTWIN declares its writes limit (`dtwin_writes_derived`);
    /// an NDWIN starts the GC its dies were held from.
    fn entered(&mut self, s: usize, window: Window, view: &DeviceView, cmds: &mut Vec<Command>) {
        if window == Window::Deterministic {
            if self.config.dtwin_writes_derived {
                let room = self.writes_room(s, view);
                self.windows[s].set_writes_typical(room);
            }
            return;
        }
        for &die in self.set_dies(s) {
            if view.ftl.blocks().free_count(die) < self.low_watermark_blocks && !view.is_collecting(die) {
                cmds.push(Command::StepGc { die, pages: u32::MAX });
            }
        }
    }

    /// The host writes set `s` takes before one of its dies is down to the GC low watermark:
    /// writes are striped over its dies (`host_write_die`), so the die with the fewest free
    /// blocks above it bounds them all. In mapping units.
    fn writes_room(&self, s: usize, view: &DeviceView) -> u64 {
        let g = &self.geometry;
        let dies = self.set_dies(s);
        let fewest = dies
            .iter()
            .map(|&d| view.ftl.blocks().free_count(d).saturating_sub(self.low_watermark_blocks))
            .min()
            .unwrap_or(0) as u64;
        fewest * dies.len() as u64 * g.pages_per_block as u64 * g.units_per_page as u64
    }

    fn tick_set(&mut self, s: usize, view: &DeviceView, cmds: &mut Vec<Command>) {
        let now = view.now;
        let n_dies = self.geometry.n_dies as usize;
        let reads: u64 = self.set_dies(s).iter().map(|&d| view.epoch.reads[s * n_dies + d.0 as usize]).sum();
        let writes = view.epoch.host_units[s];
        let upp = self.geometry.units_per_page as u64;
        if let Some(w) = self.windows[s].on_io(reads * upp, writes, now) {
            self.entered(s, w, view, cmds);
        }
        let quiet = !self.jobs_running(s, view);
        let autonomous = self.config.windows == WindowMode::Autonomous;
        if !autonomous {
            if let Some(w) = self.host_request(s, now) {
                if let Some(w) = self.windows[s].request(w, now, quiet) {
                    self.entered(s, w, view, cmds);
                }
            }
        }
        if let Some(w) = self.windows[s].tick(now, autonomous, quiet) {
            self.entered(s, w, view, cmds);
        }
        self.closing[s] = self.windows[s].wants_dtwin(now, autonomous);
    }
}

impl Scheme for Iod {
    fn name(&self) -> &'static str {
        "iod"
    }

    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.sets[tenant as usize].next_die()
    }

    fn gc_write_die(&mut self, owner: u16, victim_die: DieIdx, _view: &DeviceView) -> DieIdx {
        self.gc_block_die(owner, victim_die).expect("one die per block")
    }

    /// The victim's die, which is in the owner's set (asserted), for the whole block.
    fn gc_block_die(&self, owner: u16, victim_die: DieIdx) -> Option<DieIdx> {
        assert_eq!(
            self.set_of_die[victim_die.0 as usize], owner,
            "tenant {owner}'s data on die {} outside its NVM Set",
            victim_die.0
        );
        Some(victim_die)
    }

    fn epoch(&self) -> Option<SimTime> {
        self.config.plm.then_some(self.tick)
    }

    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        self.now_last = view.now;
        for s in 0..self.sets.len() {
            self.tick_set(s, view, cmds);
        }
    }

    fn counters(&self, out: &mut Counters) {
        out.push(("excursion_dies", self.excursion_dies as f64));
        if !self.config.plm {
            return;
        }
        for (s, w) in self.windows.iter().enumerate() {
            push_set(out, s, &w.log_page(self.now_last), &w.counters_at(self.now_last));
        }
    }

    fn background_windows(&self) -> Option<&dyn BackgroundWindows> {
        self.config.plm.then_some(self as &dyn BackgroundWindows)
    }

    fn background_windows_mut(&mut self) -> Option<&mut dyn BackgroundWindows> {
        if self.config.plm {
            Some(self)
        } else {
            None
        }
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}

impl BackgroundWindows for Iod {
    fn may_run_jobs(&self, die: DieIdx) -> bool {
        let s = self.set_of_die[die.0 as usize] as usize;
        self.windows[s].window() == Window::NonDeterministic && !self.closing[s]
    }

    /// A DTWIN ends in an excursion; a set closing toward one keeps collecting.
    fn excursion(&mut self, die: DieIdx, now: SimTime) -> bool {
        let s = self.set_of_die[die.0 as usize] as usize;
        // An excursion comes between ticks: the counters' "now" may not be before the window
        // it opens (it was, and the totals underflowed when the run ended before the next
        // tick: soak seeds 100 and 103 of the integrity property tests).
        self.now_last = self.now_last.max(now);
        if self.windows[s].excursion(now) {
            self.excursion_dies += 1;
        }
        self.closing[s] = false;
        true
    }
}

/// Set `s`'s log page and counters as `set<s>_<field>` counters.
fn push_set(out: &mut Counters, s: usize, page: &LogPage, c: &super::plm::PlmCounters) {
    // A limit the set does not declare (u64::MAX) and its estimate are left out.
    let declared = |limit: u64, v: u64| (limit != u64::MAX).then_some(v as f64);
    let page_fields: [(&str, Option<f64>); 10] = [
        ("status", Some(page.status as f64)),
        ("event_type", Some(page.event_type as f64)),
        ("dtwin_rt", declared(page.dtwin_rt, page.dtwin_rt)),
        ("dtwin_wt", declared(page.dtwin_wt, page.dtwin_wt)),
        ("dtwin_tmax", Some(page.dtwin_tmax as f64)),
        ("ndwin_tmin_hi", Some(page.ndwin_tmin_hi as f64)),
        ("ndwin_tmin_lo", Some(page.ndwin_tmin_lo as f64)),
        ("dtwin_re", declared(page.dtwin_rt, page.dtwin_re)),
        ("dtwin_we", declared(page.dtwin_wt, page.dtwin_we)),
        ("dtwin_te", Some(page.dtwin_te as f64)),
    ];
    for (name, value) in page_fields {
        if let Some(v) = value {
            out.push((counter_name(format!("set{s}_{name}")), v));
        }
    }
    let fields: [(&str, f64); 10] = [
        ("dtwins", c.dtwins as f64),
        ("ndwins", c.ndwins as f64),
        ("exceeded_reads", c.exceeded_reads as f64),
        ("exceeded_writes", c.exceeded_writes as f64),
        ("exceeded_time", c.exceeded_time as f64),
        ("excursions", c.excursions as f64),
        ("host_requests", c.host_requests as f64),
        ("host_requests_held", c.host_requests_held as f64),
        ("dtwin_s_total", c.dtwin_ns_total as f64 * 1e-9),
        ("ndwin_s_total", c.ndwin_ns_total as f64 * 1e-9),
    ];
    for (name, value) in fields {
        out.push((counter_name(format!("set{s}_{name}")), value));
    }
}
