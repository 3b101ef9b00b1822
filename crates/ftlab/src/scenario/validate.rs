//! Filling defaults (presets, watermarks) and checking every value's range. Errors are
//! `(key, reason)` pairs; `scenario::load` adds the file name.

use super::{presets, DeviceConfig, MeasureConfig, Scenario, TenantConfig};
use crate::flash::geometry::Geometry;
use crate::flash::timing::Timing;
use crate::scheme::{self, SchemeContext};
use crate::sim::time::SimTime;
use crate::stream;
use crate::workload::generator::Arrival;
use crate::workload::synthetic::SyntheticWorkload;

type Check = Result<(), (String, String)>;

/// Longest simulated span a start time, duration or warm-up may have, in seconds (about
/// 116 days). Simulated time is a u64 of nanoseconds (about 584 years); the bound keeps every
/// sum of times far from overflowing.
const MAX_SECONDS: f64 = 1e7;

/// Most time-series rows (tenants x windows) a run may produce; each row is kept in memory
/// until the end of the run. Checked here when the end is known, and by the simulation when
/// a trace's length decides it.
pub const MAX_TIMESERIES_ROWS: f64 = 1e7;

fn err<T>(key: impl Into<String>, reason: impl Into<String>) -> Result<T, (String, String)> {
    Err((key.into(), reason.into()))
}

/// Fill defaults in place and validate.
pub fn resolve(s: &mut Scenario) -> Check {
    resolve_device(&mut s.device)?;
    let g = s.geometry();
    check_timing(s)?;
    resolve_ftl(s, &g)?;
    check_tenants(s, &g)?;
    resolve_periodic(s, &g)?;
    check_phases(s)?;
    super::warm::resolve(s)?;
    fill_resolved(s);
    check_schemes(s, &g)
}

/// Flash pages per die of the default write buffer when a page holds several mapping units:
/// a TLC die programs three pages at once (one-shot programming of lower, middle and upper
/// pages, as in the vStream paper's device), and a fourth fills while they program.
pub const DEFAULT_BUFFER_PAGES_PER_DIE: u64 = 4;

fn fill_resolved(s: &mut Scenario) {
    let d = &s.device;
    s.resolved = super::Resolved {
        filled: true,
        gc_low_watermark_blocks: s.ftl.gc_low_watermark_blocks.expect("filled by resolve_ftl"),
        gc_high_watermark_blocks: s.ftl.gc_high_watermark_blocks.expect("filled by resolve_ftl"),
        write_buffer_bytes: s.ftl.write_buffer_bytes.expect("filled by resolve_ftl"),
        multi_plane: d.multi_plane.expect("filled by resolve_device"),
        program_erase_suspend: d.program_erase_suspend.expect("filled by resolve_device"),
        over_provisioning: d.over_provisioning.expect("checked by resolve_device"),
        mapping_unit_bytes: d.mapping_unit_bytes.expect("checked by resolve_device"),
    };
}

impl Scenario {
    /// The device geometry (after `load`).
    pub fn geometry(&self) -> Geometry {
        geometry_of(&self.device).expect("geometry validated by load")
    }

    /// The device timing (after `load`).
    pub fn timing(&self) -> Timing {
        let t = &self.device.timing;
        Timing {
            read: us(t.read_us.unwrap()),
            program: us(t.program_us.unwrap()),
            erase: us(t.erase_us.unwrap()),
            command: SimTime(t.command_ns.unwrap()),
            suspend: us(t.suspend_us.unwrap()),
            channel_mts: t.channel_mts.unwrap(),
            channel_width_bits: t.channel_width_bits.unwrap(),
            read_holds_channel: t.read_holds_channel.unwrap(),
        }
    }

    /// Logical capacity of the device in mapping units: physical / (1 + over-provisioning).
    pub fn logical_units(&self) -> u64 {
        (self.geometry().n_units() as f64 / (1.0 + self.device.over_provisioning.unwrap())).floor() as u64
    }

    /// Every tenant's periodic tasks in the real-time analysis' model (`rt::Task`, PaRT-FTL
    /// §III-B), tenants in scenario order: a read task is (r_i, T_i^r), a write task
    /// (w_i, T_i^w). Empty when no tenant has `[tenants.periodic]`.
    pub fn rt_tasks(&self) -> Vec<crate::rt::Task> {
        let tasks = self.tenants.iter().filter_map(|t| t.periodic.as_ref()).flat_map(|p| p.tasks.iter());
        tasks
            .map(|t| match t.op {
                crate::workload::IoOp::Read => crate::rt::Task::reader(t.pages, t.period_ms),
                _ => crate::rt::Task::writer(t.pages, t.period_ms),
            })
            .collect()
    }

    /// Each tenant's namespace in mapping units (after `load`).
    pub fn namespace_units(&self) -> Vec<u32> {
        let g = self.geometry();
        let logical = self.logical_units();
        self.tenants.iter().map(|t| namespace_units(t, &g, logical)).collect()
    }
}

/// The geometry of a device whose keys are all set.
fn geometry_of(d: &DeviceConfig) -> Result<Geometry, (&'static str, String)> {
    Geometry::new(
        d.channels.unwrap(),
        d.chips_per_channel.unwrap(),
        d.dies_per_chip.unwrap(),
        d.planes_per_die.unwrap(),
        d.blocks_per_plane.unwrap(),
        d.pages_per_block.unwrap(),
        d.page_bytes.unwrap(),
        d.mapping_unit_bytes.unwrap(),
    )
}

fn us(v: f64) -> SimTime {
    SimTime((v * 1000.0).round() as u64)
}

fn namespace_units(t: &TenantConfig, g: &Geometry, logical: u64) -> u32 {
    match (t.namespace_fraction, t.namespace_gib) {
        (Some(f), _) => (logical as f64 * f).floor() as u32,
        (_, Some(gib)) => (gib * (1u64 << 30) as f64 / g.unit_bytes as f64).floor() as u32,
        _ => unreachable!("validated"),
    }
}

/// `device.pe_cycles` by default: 3000 program/erase cycles, the endurance MLC NAND
/// datasheets typically rate (see docs/lifetime.md).
pub const PE_CYCLES_DEFAULT: u32 = 3000;
/// Largest `device.pe_cycles` accepted (SLC is rated around 10^5).
pub const PE_CYCLES_MAX: u32 = 1_000_000;

fn resolve_device(d: &mut DeviceConfig) -> Check {
    if let Some(name) = &d.preset {
        let Some(p) = presets::preset(name) else {
            return err(
                "device.preset",
                format!("unknown preset {name:?}; known: {}", presets::PRESETS.join(", ")),
            );
        };
        macro_rules! fill { ($($f:ident).+) => { if d.$($f).+.is_none() { d.$($f).+ = p.$($f).+; } } }
        fill!(channels);
        fill!(chips_per_channel);
        fill!(dies_per_chip);
        fill!(planes_per_die);
        fill!(blocks_per_plane);
        fill!(pages_per_block);
        fill!(page_bytes);
        fill!(mapping_unit_bytes);
        fill!(over_provisioning);
        fill!(timing.read_us);
        fill!(timing.program_us);
        fill!(timing.erase_us);
        fill!(timing.command_ns);
        fill!(timing.channel_mts);
        fill!(timing.channel_width_bits);
        fill!(timing.read_holds_channel);
    }
    d.timing.command_ns.get_or_insert(0);
    d.timing.suspend_us.get_or_insert(20.0);
    d.timing.read_holds_channel.get_or_insert(false);
    d.multi_plane.get_or_insert(false);
    d.program_erase_suspend.get_or_insert(false);
    let pe = *d.pe_cycles.get_or_insert(PE_CYCLES_DEFAULT);
    if !(1..=PE_CYCLES_MAX).contains(&pe) {
        return err(
            "device.pe_cycles",
            format!("must be in [1, {PE_CYCLES_MAX}] program/erase cycles, got {pe}"),
        );
    }
    for (key, missing) in [
        ("channels", d.channels.is_none()),
        ("chips_per_channel", d.chips_per_channel.is_none()),
        ("dies_per_chip", d.dies_per_chip.is_none()),
        ("planes_per_die", d.planes_per_die.is_none()),
        ("blocks_per_plane", d.blocks_per_plane.is_none()),
        ("pages_per_block", d.pages_per_block.is_none()),
        ("page_bytes", d.page_bytes.is_none()),
        ("mapping_unit_bytes", d.mapping_unit_bytes.is_none()),
        ("over_provisioning", d.over_provisioning.is_none()),
        ("timing.read_us", d.timing.read_us.is_none()),
        ("timing.program_us", d.timing.program_us.is_none()),
        ("timing.erase_us", d.timing.erase_us.is_none()),
        ("timing.channel_mts", d.timing.channel_mts.is_none()),
        ("timing.channel_width_bits", d.timing.channel_width_bits.is_none()),
    ] {
        if missing {
            return err(format!("device.{key}"), "missing: set it or choose a device.preset");
        }
    }
    let g = geometry_of(d).map_err(|(k, r)| (format!("device.{k}"), r))?;
    if let Some(f) = &d.fdp {
        super::fdp::check(f, &g).map_err(|(k, r)| (format!("device.fdp.{k}"), r))?;
    }
    let op = d.over_provisioning.unwrap();
    if !(op > 0.0 && op <= 4.0) {
        return err(
            "device.over_provisioning",
            format!("must be in (0, 4] ((physical - logical) / logical), got {op}"),
        );
    }
    Ok(())
}

fn check_timing(s: &Scenario) -> Check {
    let t = &s.device.timing;
    let sus = t.suspend_us.unwrap();
    if !(sus.is_finite() && (0.0..=1e4).contains(&sus)) {
        return err("device.timing.suspend_us", format!("must be in [0, 10000] microseconds, got {sus}"));
    }
    if s.device.multi_plane == Some(true)
        && s.device.planes_per_die.unwrap() > crate::flash::geometry::PLANES_MAX
    {
        return err(
            "device.multi_plane",
            format!(
                "multi-plane operations support at most {} planes per die, the device has {}",
                crate::flash::geometry::PLANES_MAX,
                s.device.planes_per_die.unwrap()
            ),
        );
    }
    for (key, v) in [("read_us", t.read_us), ("program_us", t.program_us), ("erase_us", t.erase_us)] {
        let v = v.unwrap();
        if !(v.is_finite() && v > 0.0 && v <= 1e6) {
            return err(
                format!("device.timing.{key}"),
                format!("must be in (0, 1000000] microseconds, got {v}"),
            );
        }
    }
    let cmd = t.command_ns.unwrap();
    if cmd > 1_000_000_000 {
        return err("device.timing.command_ns", format!("must be in [0, 1000000000] nanoseconds, got {cmd}"));
    }
    let mts = t.channel_mts.unwrap();
    if mts == 0 || mts > 100_000 {
        return err("device.timing.channel_mts", format!("must be in [1, 100000] MT/s, got {mts}"));
    }
    let w = t.channel_width_bits.unwrap();
    if w != 8 && w != 16 {
        return err("device.timing.channel_width_bits", format!("must be 8 or 16, got {w}"));
    }
    Ok(())
}

fn resolve_ftl(s: &mut Scenario, g: &Geometry) -> Check {
    let f = &mut s.ftl;
    let bpd = g.blocks_per_die;
    if bpd < 4 {
        return err(
            "device.blocks_per_plane",
            format!("a die must have at least 4 blocks (planes_per_die x blocks_per_plane) for the GC watermarks, got {bpd}"),
        );
    }
    let low_given = f.gc_low_watermark_blocks.is_some();
    let high_given = f.gc_high_watermark_blocks.is_some();
    let low =
        *f.gc_low_watermark_blocks.get_or_insert((bpd / 100).max(f.gc_reserve_blocks.saturating_add(4)));
    let high = *f.gc_high_watermark_blocks.get_or_insert(low.saturating_mul(2));
    if low < 2 || low > bpd / 2 {
        let why = if low_given {
            String::new()
        } else {
            " (the default, max(gc_reserve_blocks + 4, blocks_per_die / 100); set it or lower ftl.gc_reserve_blocks)".to_string()
        };
        return err(
            "ftl.gc_low_watermark_blocks",
            format!("must be in [2, {}] (half the {bpd} blocks per die), got {low}{why}", bpd / 2),
        );
    }
    if high < low || high > bpd / 2 {
        let why = if high_given { "" } else { " (the default, 2 x the low watermark; set it explicitly)" };
        return err(
            "ftl.gc_high_watermark_blocks",
            format!(
                "must be in [{low}, {}] (low watermark to half the {bpd} blocks per die), got {high}{why}",
                bpd / 2
            ),
        );
    }
    if f.gc_reserve_blocks < 1 || f.gc_reserve_blocks >= low {
        return err(
            "ftl.gc_reserve_blocks",
            format!(
                "must be in [1, {}] (below the low watermark {low}), got {}",
                low - 1,
                f.gc_reserve_blocks
            ),
        );
    }
    if f.physical_streams == 0 || f.physical_streams as usize > crate::metrics::streams::PHYSICAL_STREAMS_MAX
    {
        return err("ftl.physical_streams", format!("must be in [1, 16], got {}", f.physical_streams));
    }
    if !(0.001..=1000.0).contains(&f.dram_latency_us) {
        return err(
            "ftl.dram_latency_us",
            format!("must be in [0.001, 1000] microseconds, got {}", f.dram_latency_us),
        );
    }
    let unit = g.unit_bytes as u64;
    let default_buffer = if g.units_per_page > 1 {
        DEFAULT_BUFFER_PAGES_PER_DIE * g.page_bytes as u64 * g.n_dies as u64
    } else {
        0
    };
    let buffer = *f.write_buffer_bytes.get_or_insert(default_buffer);
    if !buffer.is_multiple_of(unit) || buffer > (1 << 40) {
        return err(
            "ftl.write_buffer_bytes",
            format!("must be a multiple of mapping_unit_bytes ({unit}) up to 1 TiB, got {buffer}"),
        );
    }
    if buffer > 0 && buffer < g.page_bytes as u64 * g.n_dies as u64 {
        return err(
            "ftl.write_buffer_bytes",
            format!(
                "must be 0 (write-through) or at least one flash page per die ({} bytes), got {buffer}",
                g.page_bytes as u64 * g.n_dies as u64
            ),
        );
    }
    Ok(())
}

fn check_tenants(s: &Scenario, g: &Geometry) -> Check {
    if s.tenants.is_empty() || s.tenants.len() > 256 {
        return err("tenants", format!("must list 1 to 256 tenants, got {}", s.tenants.len()));
    }
    let logical = s.logical_units();
    let mut total = 0u64;
    for (i, t) in s.tenants.iter().enumerate() {
        let key = |k: &str| format!("tenants.{i}.{k}");
        if t.name.is_empty() || s.tenants[..i].iter().any(|o| o.name == t.name) {
            return err(key("name"), format!("must be non-empty and unique, got {:?}", t.name));
        }
        match (t.namespace_fraction, t.namespace_gib) {
            (Some(f), None) if f > 0.0 && f <= 1.0 => {}
            (Some(f), None) => return err(key("namespace_fraction"), format!("must be in (0, 1], got {f}")),
            (None, Some(gib)) if gib > 0.0 && gib.is_finite() => {}
            (None, Some(gib)) => return err(key("namespace_gib"), format!("must be > 0, got {gib}")),
            _ => {
                return err(
                    key("namespace_fraction"),
                    "set exactly one of namespace_fraction and namespace_gib",
                )
            }
        }
        let units = namespace_units(t, g, logical);
        if units == 0 {
            let which = if t.namespace_gib.is_some() { "namespace_gib" } else { "namespace_fraction" };
            return err(
                key(which),
                format!("the namespace is smaller than one mapping unit ({} bytes)", g.unit_bytes),
            );
        }
        total += units as u64;
        if t.queue_depth == 0 || t.queue_depth > 65_536 {
            return err(key("queue_depth"), format!("must be in [1, 65536], got {}", t.queue_depth));
        }
        if !(t.start_s >= 0.0 && t.start_s <= MAX_SECONDS) {
            return err(key("start_s"), format!("must be in [0, {MAX_SECONDS}] seconds, got {}", t.start_s));
        }
        if let Some(d) = t.duration_s.filter(|d| !(*d > 0.0 && *d <= MAX_SECONDS)) {
            return err(key("duration_s"), format!("must be in (0, {MAX_SECONDS}] seconds, got {d}"));
        }
        check_workload(t, units as u64 * g.unit_bytes as u64, &key)?;
        check_stream_rules(&t.stream_rules, units as u64 * g.unit_bytes as u64, &key)?;
        if let Some(w) =
            t.synthetic.as_ref().filter(|_| t.duration_s.is_none() && s.measure.duration_s.is_none())
        {
            check_synthetic_ends(w, i, &key)?;
        }
    }
    if total > logical {
        return err(
            "tenants",
            format!(
                "namespaces total {} bytes, larger than the device's logical capacity of {} bytes",
                total * g.unit_bytes as u64,
                logical * g.unit_bytes as u64
            ),
        );
    }
    check_fit(s, g, total)
}

/// The namespaces (`total` mapping units) must fit in what GC can keep valid: each die keeps
/// `ftl.gc_reserve_blocks` free for GC's copies, and once its free blocks are down to them GC
/// needs at least one block's worth of invalid data to reclaim anything. With more valid data
/// than that, a workload that writes its namespaces full ends out of space whatever the
/// scheme: refused here, with the arithmetic.
fn check_fit(s: &Scenario, g: &Geometry, total: u64) -> Check {
    let reserve = s.ftl.gc_reserve_blocks as u64;
    let (dies, bpd, upb) = (g.n_dies as u64, g.blocks_per_die as u64, g.units_per_block as u64);
    let usable = dies * bpd.saturating_sub(reserve + 1) * upb;
    if total <= usable {
        return Ok(());
    }
    // Namespaces given as fractions scale with the logical capacity, physical / (1 + op):
    // they fit once fractions x physical / (1 + op) <= usable.
    let fractions: f64 = s.tenants.iter().map(|t| t.namespace_fraction.unwrap_or(f64::NAN)).sum();
    let raise = if fractions.is_nan() {
        String::new() // a namespace in GiB does not shrink with the over-provisioning
    } else {
        format!(
            "raise device.over_provisioning to at least {:.4}, or ",
            fractions * (dies * bpd * upb) as f64 / usable as f64 - 1.0
        )
    };
    err(
        "device.over_provisioning",
        format!(
            "the namespaces total {total} mapping units, more than GC can keep valid: {dies} dies x ({bpd} blocks - {reserve} GC reserve (ftl.gc_reserve_blocks) - 1 block to reclaim) x {upb} units = {usable}; {raise}lower the namespaces or ftl.gc_reserve_blocks"
        ),
    )
}

fn check_workload(t: &TenantConfig, namespace_bytes: u64, key: &dyn Fn(&str) -> String) -> Check {
    let kinds = [t.trace.is_some(), t.synthetic.is_some(), t.periodic.is_some()];
    if kinds.iter().filter(|&&k| k).count() != 1 {
        return err(
            key("trace"),
            "set exactly one of [tenants.trace], [tenants.synthetic] and [tenants.periodic]",
        );
    }
    match (&t.trace, &t.synthetic) {
        (None, None) => Ok(()), // periodic: `resolve_periodic`
        (Some(tr), None) => {
            if !(tr.time_scale > 0.0 && tr.time_scale <= 1000.0) {
                return err(key("trace.time_scale"), format!("must be in (0, 1000], got {}", tr.time_scale));
            }
            if tr.path.is_empty() {
                return err(key("trace.path"), "must not be empty");
            }
            if tr.lba_max_bytes == Some(0) {
                return err(key("trace.lba_max_bytes"), "must be > 0");
            }
            if tr.max_requests == Some(0) {
                return err(
                    key("trace.max_requests"),
                    "must be >= 1 (omit it to replay the whole trace), got 0",
                );
            }
            Ok(())
        }
        // `try_build` validates every part and checks that the largest request fits in the
        // namespace, as the run will.
        (None, Some(w)) => w.try_build(namespace_bytes, 0).map(|_| ()).map_err(|(k, r)| {
            let k = if k.is_empty() { "synthetic".to_string() } else { format!("synthetic.{k}") };
            (key(&k), r)
        }),
        _ => unreachable!("exactly one workload kind"),
    }
}

/// Validate each periodic workload and fill its defaults (task names, deadlines); it must end:
/// Each rule's range is non-empty and inside the namespace of `ns_bytes`.
fn check_stream_rules(rules: &[super::StreamRule], ns_bytes: u64, key: &dyn Fn(&str) -> String) -> Check {
    if rules.len() > super::MAX_STREAM_RULES {
        return err(
            key("stream_rules"),
            format!("must list at most {} rules, got {}", super::MAX_STREAM_RULES, rules.len()),
        );
    }
    for (j, r) in rules.iter().enumerate() {
        if r.size_bytes == 0 {
            return err(
                key(&format!("stream_rules.{j}.size_bytes")),
                "must be at least 1 byte, got 0".to_string(),
            );
        }
        if r.offset_bytes >= ns_bytes || r.size_bytes > ns_bytes - r.offset_bytes {
            return err(
                key(&format!("stream_rules.{j}")),
                format!(
                    "the range [{}, {}) must lie inside the tenant's namespace of {ns_bytes} bytes",
                    r.offset_bytes,
                    r.offset_bytes as u128 + r.size_bytes as u128
                ),
            );
        }
    }
    Ok(())
}

/// `end_s`, the tenant's `duration_s` or `measure.duration_s`.
fn resolve_periodic(s: &mut Scenario, g: &Geometry) -> Check {
    let logical = s.logical_units();
    let run_ends = s.measure.duration_s.is_some();
    for (i, t) in s.tenants.iter_mut().enumerate() {
        let bytes = namespace_units(t, g, logical) as u64 * g.unit_bytes as u64;
        let ends = run_ends || t.duration_s.is_some();
        let Some(p) = t.periodic.as_mut() else { continue };
        p.resolve(bytes, g.page_bytes)
            .map_err(|(k, r)| (join_key(&format!("tenants.{i}.periodic"), &k), r))?;
        if p.end_s.is_none() && !ends {
            return err(
                format!("tenants.{i}.periodic.end_s"),
                format!("periodic tasks never end: set end_s, tenants.{i}.duration_s or measure.duration_s"),
            );
        }
    }
    Ok(())
}

/// A synthetic workload ends when every part ends: each needs `requests` or `end_s` when
/// neither the tenant nor the measurement has a duration (checked by the caller).
fn check_synthetic_ends(w: &SyntheticWorkload, i: usize, key: &dyn Fn(&str) -> String) -> Check {
    let Some(j) = w.parts().iter().position(|p| p.requests.is_none() && p.end_s.is_none()) else {
        return Ok(());
    };
    // Closed-loop parts take no end_s: do not suggest it.
    let own = if w.parts()[j].arrival == Arrival::Closed { "requests" } else { "requests or end_s" };
    let which = if w.parts().len() > 1 {
        format!("part {j} never ends, so the workload never ends")
    } else {
        "the workload never ends".to_string()
    };
    err(
        key(&format!("synthetic.{}", w.key(j, "requests"))),
        format!("{which}: set {own}, tenants.{i}.duration_s or measure.duration_s"),
    )
}

fn check_phases(s: &Scenario) -> Check {
    let p = &s.precondition;
    if !(0.0..=1.0).contains(&p.fill_fraction) {
        return err("precondition.fill_fraction", format!("must be in [0, 1], got {}", p.fill_fraction));
    }
    if !(0.0..=10.0).contains(&p.overwrite_passes) {
        return err(
            "precondition.overwrite_passes",
            format!("must be in [0, 10], got {}", p.overwrite_passes),
        );
    }
    let m = &s.measure;
    if !(m.window_s >= 1e-6 && m.window_s <= 86_400.0) {
        return err("measure.window_s", format!("must be in [0.000001, 86400] seconds, got {}", m.window_s));
    }
    if !(m.warmup_s >= 0.0 && m.warmup_s <= MAX_SECONDS) {
        return err("measure.warmup_s", format!("must be in [0, {MAX_SECONDS}] seconds, got {}", m.warmup_s));
    }
    if let Some(d) = m.duration_s.filter(|d| !(*d > 0.0 && *d <= MAX_SECONDS)) {
        return err("measure.duration_s", format!("must be in (0, {MAX_SECONDS}] seconds, got {d}"));
    }
    if let Some(d) = m.duration_s.filter(|d| m.warmup_s >= *d) {
        return err(
            "measure.warmup_s",
            format!("must be below measure.duration_s ({d} seconds), got {}", m.warmup_s),
        );
    }
    check_measure_phases(m)?;
    if !(m.starvation_wait_s > 0.0 && m.starvation_wait_s <= MAX_SECONDS) {
        return err(
            "measure.starvation_wait_s",
            format!("must be in (0, {MAX_SECONDS}] seconds, got {}", m.starvation_wait_s),
        );
    }
    if !(m.backlog_queue_depths_max >= 1.0 && m.backlog_queue_depths_max <= 1e6) {
        return err(
            "measure.backlog_queue_depths_max",
            format!(
                "must be in [1, 1000000] queue depths (a full device queue is one), got {}",
                m.backlog_queue_depths_max
            ),
        );
    }
    // The latest end of the run the scenario fixes (as `api::horizon`, or earlier when every
    // tenant stops before it): the time series holds one row per tenant and window up to there.
    let tenants_end: Option<f64> = s
        .tenants
        .iter()
        .map(|t| t.duration_s.map(|d| t.start_s + d))
        .collect::<Option<Vec<f64>>>()
        .map(|e| e.into_iter().fold(0.0, f64::max));
    let end = match (m.duration_s, tenants_end) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if let Some(end) = end {
        let rows = (end / m.window_s).ceil() * s.tenants.len() as f64;
        if rows > MAX_TIMESERIES_ROWS {
            return err(
                "measure.window_s",
                format!(
                    "too small for a {end}-second run: {} tenants x {} windows is more than {MAX_TIMESERIES_ROWS} time-series rows; use at least {} seconds",
                    s.tenants.len(),
                    (end / m.window_s).ceil(),
                    end * s.tenants.len() as f64 / MAX_TIMESERIES_ROWS
                ),
            );
        }
    }
    Ok(())
}

fn check_schemes(s: &mut Scenario, g: &Geometry) -> Check {
    if s.schemes.is_empty() {
        return err("schemes", "must name at least one scheme");
    }
    for (i, name) in s.schemes.iter().enumerate() {
        if s.schemes[..i].contains(name) {
            return err(format!("schemes.{i}"), format!("{name:?} is listed twice"));
        }
        if scheme::info(name).is_none() {
            return err(format!("schemes.{i}"), unknown_scheme(name));
        }
    }
    for name in s.scheme.keys() {
        if scheme::info(name).is_none() {
            let reason = match stream::info(name) {
                Some(_) => format!("{name} is a stream mapper, not a scheme: its knobs go in [stream.{name}], and stream_mapper = {name:?} selects it"),
                None => format!("unknown scheme{}; known: {}", suggestion(name, scheme::REGISTRY.iter().map(|p| p.name)), crate::knobs::names(scheme::REGISTRY)),
            };
            return err(format!("scheme.{name}"), reason);
        }
    }
    let ns = s.namespace_units();
    let tasks = s.rt_tasks();
    let ctx = SchemeContext {
        geometry: g,
        namespace_units: &ns,
        over_provisioning: s.device.over_provisioning.unwrap(),
        timing: s.timing(),
        low_watermark_blocks: s.ftl.gc_low_watermark_blocks.expect("filled by resolve_ftl"),
        tasks: &tasks,
        scheduler: s.ftl.scheduler,
    };
    for name in s.schemes.clone() {
        let table = s.scheme.get(&name).cloned().unwrap_or_default();
        let built = scheme::build(&name, &table, &ctx).map_err(|e| {
            (join_key(&format!("scheme.{name}"), &e.key), crate::error::suggest_in_reason(&e.reason))
        })?;
        s.scheme.insert(name, built.resolved_config());
    }
    // A table for a scheme the run does not list is kept as written and checked for what does
    // not depend on the device: its keys (a typo is an error wherever it is), their types and
    // static ranges. Whether it fits the device is checked when the scheme runs (the table may
    // be written for another device, or for `--set schemes=[...]`).
    for (name, table) in s.scheme.iter().filter(|(k, _)| !s.schemes.contains(k)) {
        check_unlisted_scheme(name, table, &ctx)?;
    }
    check_mappers(s, g, &ns)
}

/// The reason for an unknown name in `schemes`: a stream mapper named there, or the scheme
/// meant.
fn unknown_scheme(name: &str) -> String {
    match stream::info(name) {
        Some(_) => format!("{name} is a stream mapper, not a scheme: stream_mapper = {name:?} selects it (with a scheme in schemes, e.g. schemes = [\"unified\"])"),
        None => format!(
            "unknown scheme {name:?}{}; known: {}",
            suggestion(name, scheme::REGISTRY.iter().map(|p| p.name)),
            crate::knobs::names(scheme::REGISTRY)
        ),
    }
}

/// `"; did you mean \"x\"?"` when a candidate is close to `name` (`error::did_you_mean`).
fn suggestion<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    crate::error::did_you_mean(name, candidates)
        .map_or_else(String::new, |c| format!("; did you mean {c:?}?"))
}

/// The device-independent checks of the `[scheme.<name>]` table of a scheme not run: every key
/// (and every key of its arrays of tables) is a field of its config, the knobs' static ranges
/// hold, and the types parse (a build error that serde raises); the build's other errors are
/// about fitting the device and wait until the scheme runs.
fn check_unlisted_scheme(name: &str, table: &toml::Table, ctx: &SchemeContext) -> Check {
    let info = scheme::info(name).expect("names checked before");
    let key = |k: &str| join_key(&format!("scheme.{name}"), k);
    let fields = (info.fields)();
    if let Some(k) = table.keys().find(|k| !fields.contains(&k.as_str())) {
        return err(key(k), unknown_key(k, fields.iter().copied()));
    }
    for knob in info.knobs {
        let (crate::knobs::KnobKind::Tables(sub), Some(toml::Value::Array(items))) =
            (knob.kind, table.get(knob.key))
        else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let Some(t) = item.as_table() else { continue };
            if let Some(k) = t.keys().find(|k| !sub.iter().any(|s| s.key == k.as_str())) {
                return err(key(&format!("{}.{i}.{k}", knob.key)), unknown_key(k, sub.iter().map(|s| s.key)));
            }
        }
    }
    crate::knobs::check_all(info.knobs, table).map_err(|e| (key(&e.key), e.reason))?;
    match scheme::build(name, table, ctx) {
        Err(e)
            if ["invalid type", "invalid value", "unknown variant", "missing field", "invalid length"]
                .iter()
                .any(|p| e.reason.starts_with(p)) =>
        {
            Err((key(&e.key), crate::error::suggest_in_reason(&e.reason)))
        }
        _ => Ok(()),
    }
}

/// serde's wording for an unknown key, with a suggestion.
fn unknown_key<'a>(k: &str, known: impl Iterator<Item = &'a str> + Clone) -> String {
    let list: Vec<String> = known.clone().map(|f| format!("`{f}`")).collect();
    crate::error::suggest_in_reason(&format!("unknown field `{k}`, expected one of {}", list.join(", ")))
}

/// The stream mapper and every `[stream.<name>]` table.
fn check_mappers(s: &mut Scenario, g: &Geometry, ns: &[u32]) -> Check {
    if stream::info(&s.stream_mapper).is_none() {
        let name = &s.stream_mapper;
        let reason = match scheme::info(name) {
            Some(_) => format!(
                "{name} is a scheme, not a stream mapper: list it in schemes (e.g. schemes = [{name:?}])"
            ),
            None => format!(
                "unknown stream mapper {name:?}{}; known: {}",
                suggestion(name, stream::REGISTRY.iter().map(|p| p.name)),
                crate::knobs::names(stream::REGISTRY)
            ),
        };
        return err("stream_mapper", reason);
    }
    for (name, table) in &s.stream {
        if stream::info(name).is_none() {
            return err(
                format!("stream.{name}"),
                format!(
                    "unknown stream mapper{}; known: {}",
                    suggestion(name, stream::REGISTRY.iter().map(|p| p.name)),
                    crate::knobs::names(stream::REGISTRY)
                ),
            );
        }
        if *name != s.stream_mapper {
            // A table of a mapper not selected (kept for `--set stream_mapper=...`): its keys,
            // types and device-independent ranges are checked now, its fit to the device's
            // physical streams when it is selected.
            let loose = stream::MapperContext {
                geometry: g,
                namespace_units: ns,
                physical_streams: crate::metrics::streams::PHYSICAL_STREAMS_MAX as u8,
                fdp: s.device.fdp.as_ref(),
            };
            stream::build(name, table, &loose).map_err(|e| {
                (join_key(&format!("stream.{name}"), &e.key), crate::error::suggest_in_reason(&e.reason))
            })?;
        }
    }
    if let Some(f) = s
        .device
        .fdp
        .as_ref()
        .filter(|f| s.stream_mapper == "fdp" && f.handles.len() > s.ftl.physical_streams as usize)
    {
        let (n, p) = (f.handles.len(), s.ftl.physical_streams);
        return err(
            "device.fdp.handles",
            format!("names {n} handles; each needs a physical stream: at most ftl.physical_streams = {p}"),
        );
    }
    let table = s.stream.get(&s.stream_mapper).cloned().unwrap_or_default();
    let mctx = stream::MapperContext {
        geometry: g,
        namespace_units: ns,
        physical_streams: s.ftl.physical_streams,
        fdp: s.device.fdp.as_ref(),
    };
    let mapper = stream::build(&s.stream_mapper, &table, &mctx).map_err(|e| {
        (join_key(&format!("stream.{}", s.stream_mapper), &e.key), crate::error::suggest_in_reason(&e.reason))
    })?;
    s.stream.insert(s.stream_mapper.clone(), mapper.resolved_config());
    Ok(())
}

fn join_key(prefix: &str, key: &str) -> String {
    if key.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// `[[measure.phases]]`: unique non-empty names, inside the measured phase, not empty.
fn check_measure_phases(m: &MeasureConfig) -> Result<(), (String, String)> {
    for (i, p) in m.phases.iter().enumerate() {
        let key = |k: &str| format!("measure.phases.{i}.{k}");
        if p.name.is_empty() {
            return err(key("name"), "must not be empty".to_string());
        }
        if m.phases[..i].iter().any(|q| q.name == p.name) {
            return err(key("name"), format!("{:?} names two phases", p.name));
        }
        if !(p.start_s >= m.warmup_s && p.start_s <= MAX_SECONDS) {
            return err(
                key("start_s"),
                format!("must be in [measure.warmup_s = {}, {MAX_SECONDS}] seconds (counters restart at the warm-up's end), got {}", m.warmup_s, p.start_s),
            );
        }
        if let Some(e) = p.end_s.filter(|&e| !(e > p.start_s && e <= MAX_SECONDS)) {
            return err(
                key("end_s"),
                format!("must be in (start_s = {}, {MAX_SECONDS}] seconds, got {e}", p.start_s),
            );
        }
        if let Some(d) = m.duration_s.filter(|&d| p.start_s >= d) {
            return err(
                key("start_s"),
                format!("must be below measure.duration_s ({d} seconds), got {}", p.start_s),
            );
        }
    }
    Ok(())
}
