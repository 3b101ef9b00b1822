//! Validation: from the scenario as written (`raw::RawScenario`) to a `Scenario`, filling
//! defaults (presets, watermarks, the write buffer, the precondition mode) and checking every
//! value's range. Errors are `(key, reason)` pairs; `scenario::load` adds the file name.

use super::{logical_units, presets, MeasureConfig, Namespace, Scenario, TenantConfig, Workload};
use super::{DeviceConfig, FtlConfig, TimingConfig};
use super::{RawDevice, RawFtl, RawPrecondition, RawScenario, RawTenant};
use crate::flash::geometry::Geometry;
use crate::scheme::{self, SchemeContext};
use crate::stream;
use crate::workload::generator::Arrival;
use crate::workload::periodic::PeriodicWorkload;
use crate::workload::synthetic::SyntheticWorkload;

type Check = Result<(), (String, String)>;
type Valid<T> = Result<T, (String, String)>;

/// Longest simulated span a start time, duration or warm-up may have, in seconds (about
/// 116 days). Simulated time is a u64 of nanoseconds (about 584 years); the bound keeps every
/// sum of times far from overflowing.
const MAX_SECONDS: f64 = 1e7;

/// Most time-series rows (tenants x windows) a run may produce; each row is kept in memory
/// until the end of the run. Checked here when the end is known, and by the simulation when
/// a trace's length decides it.
pub(crate) const MAX_TIMESERIES_ROWS: f64 = 1e7;

fn err<T>(key: impl Into<String>, reason: impl Into<String>) -> Result<T, (String, String)> {
    Err((key.into(), reason.into()))
}

/// The scenario as written, with every default filled in and every value checked: the only
/// way to a `Scenario`. Checks run in the order of the file (device, ftl, tenants, phases,
/// precondition, schemes, stream mappers), and the first error is returned.
pub(super) fn validate(raw: RawScenario) -> Valid<Scenario> {
    let RawScenario {
        name,
        seed,
        schemes,
        scheme,
        stream_mapper,
        stream,
        device,
        ftl,
        tenants,
        precondition,
        measure,
        check,
        array,
    } = raw;
    let device = resolve_device(device)?;
    check_timing(&device)?;
    let g = device.geometry;
    let ftl = resolve_ftl(ftl, &g)?;
    let logical = logical_units(&g, device.over_provisioning);
    let mut tenants = check_tenants(tenants, &ftl, &g, logical, measure.duration_s)?;
    resolve_periodic(&mut tenants, &g, logical, measure.duration_s.is_some())?;
    check_phases(&precondition, &measure, &tenants)?;
    let precondition = super::warm::resolve(precondition, &tenants, &schemes)?;
    let mut s = Scenario {
        name,
        seed,
        schemes,
        scheme,
        stream_mapper,
        stream,
        device,
        ftl,
        tenants,
        precondition,
        measure,
        check,
        array,
        _validated: super::Validated::new(),
    };
    check_schemes(&mut s, &g)?;
    check_array(&s, &g)?;
    Ok(s)
}

/// Flash pages per die of the default write buffer when a page holds several mapping units:
/// a TLC die programs three pages at once (one-shot programming of lower, middle and upper
/// pages, as in the vStream paper's device), and a fourth fills while they program.
pub(super) const DEFAULT_BUFFER_PAGES_PER_DIE: u64 = 4;

/// `device.pe_cycles` by default: 3000 program/erase cycles, the endurance MLC NAND
/// datasheets typically rate (see docs/lifetime.md).
pub(crate) const PE_CYCLES_DEFAULT: u32 = 3000;
/// Largest `device.pe_cycles` accepted (SLC is rated around 10^5).
pub(crate) const PE_CYCLES_MAX: u32 = 1_000_000;

fn resolve_device(mut d: RawDevice) -> Valid<DeviceConfig> {
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
        if d.board.is_some() && p.board.is_none() {
            return err(
                "device.board",
                format!("the Cosmos board is selected by preset = \"cosmos\" only, not by preset {name:?}"),
            );
        }
        fill!(board);
    } else if d.board.is_some() {
        return err("device.board", "the Cosmos board is selected by preset = \"cosmos\" only");
    }
    let pe_cycles = d.pe_cycles.unwrap_or(PE_CYCLES_DEFAULT);
    if !(1..=PE_CYCLES_MAX).contains(&pe_cycles) {
        return err(
            "device.pe_cycles",
            format!("must be in [1, {PE_CYCLES_MAX}] program/erase cycles, got {pe_cycles}"),
        );
    }
    // Every key without a default, in the order of the reference (the first missing is named).
    let channels = need(d.channels, "channels")?;
    let chips = need(d.chips_per_channel, "chips_per_channel")?;
    let dies = need(d.dies_per_chip, "dies_per_chip")?;
    let planes = need(d.planes_per_die, "planes_per_die")?;
    let blocks = need(d.blocks_per_plane, "blocks_per_plane")?;
    let pages = need(d.pages_per_block, "pages_per_block")?;
    let page = need(d.page_bytes, "page_bytes")?;
    let unit = need(d.mapping_unit_bytes, "mapping_unit_bytes")?;
    let op = need(d.over_provisioning, "over_provisioning")?;
    let t = &d.timing;
    let timing = TimingConfig {
        read_us: need(t.read_us, "timing.read_us")?,
        program_us: need(t.program_us, "timing.program_us")?,
        erase_us: need(t.erase_us, "timing.erase_us")?,
        command_ns: t.command_ns.unwrap_or(0),
        channel_mts: need(t.channel_mts, "timing.channel_mts")?,
        channel_width_bits: need(t.channel_width_bits, "timing.channel_width_bits")?,
        suspend_us: t.suspend_us.unwrap_or(20.0),
        read_holds_channel: t.read_holds_channel.unwrap_or(false),
        board: d.board,
    };
    let geometry = Geometry::new(channels, chips, dies, planes, blocks, pages, page, unit)
        .map_err(|(k, r)| (format!("device.{k}"), r))?;
    if let Some(f) = &d.fdp {
        f.check(&geometry).map_err(|(k, r)| (format!("device.fdp.{k}"), r))?;
    }
    if !(op > 0.0 && op <= 4.0) {
        return err(
            "device.over_provisioning",
            format!("must be in (0, 4] ((physical - logical) / logical), got {op}"),
        );
    }
    Ok(DeviceConfig {
        preset: d.preset,
        geometry,
        over_provisioning: op,
        multi_plane: d.multi_plane.unwrap_or(false),
        program_erase_suspend: d.program_erase_suspend.unwrap_or(false),
        background_free: d.background_free.unwrap_or(false),
        pe_cycles,
        timing,
        fdp: d.fdp,
    })
}

/// A `[device]` key the scenario and its preset leave out.
fn need<T>(value: Option<T>, key: &str) -> Valid<T> {
    value.ok_or_else(|| (format!("device.{key}"), "missing: set it or choose a device.preset".to_string()))
}

fn check_timing(d: &DeviceConfig) -> Check {
    let t = &d.timing;
    if let Some(b) = &t.board {
        b.check(d.geometry.page_bytes).map_err(|(k, r)| (format!("device.board.{k}"), r))?;
        if d.program_erase_suspend {
            return err("device.program_erase_suspend", "the Cosmos board (device.board) does not suspend");
        }
        if d.background_free {
            return err("device.background_free", "the Cosmos board (device.board) times every operation");
        }
        if t.read_holds_channel {
            return err(
                "device.timing.read_holds_channel",
                "the Cosmos board's way arbiter (device.board) moves reads; leave it false",
            );
        }
    }
    let sus = t.suspend_us;
    if !(sus.is_finite() && (0.0..=1e4).contains(&sus)) {
        return err("device.timing.suspend_us", format!("must be in [0, 10000] microseconds, got {sus}"));
    }
    if d.multi_plane && d.geometry.planes_per_die > crate::flash::geometry::PLANES_MAX {
        return err(
            "device.multi_plane",
            format!(
                "multi-plane operations support at most {} planes per die, the device has {}",
                crate::flash::geometry::PLANES_MAX,
                d.geometry.planes_per_die
            ),
        );
    }
    for (key, v) in [("read_us", t.read_us), ("program_us", t.program_us), ("erase_us", t.erase_us)] {
        if !(v.is_finite() && v > 0.0 && v <= 1e6) {
            return err(
                format!("device.timing.{key}"),
                format!("must be in (0, 1000000] microseconds, got {v}"),
            );
        }
    }
    let cmd = t.command_ns;
    if cmd > 1_000_000_000 {
        return err("device.timing.command_ns", format!("must be in [0, 1000000000] nanoseconds, got {cmd}"));
    }
    let mts = t.channel_mts;
    if mts == 0 || mts > 100_000 {
        return err("device.timing.channel_mts", format!("must be in [1, 100000] MT/s, got {mts}"));
    }
    let w = t.channel_width_bits;
    if w != 8 && w != 16 {
        return err("device.timing.channel_width_bits", format!("must be 8 or 16, got {w}"));
    }
    Ok(())
}

fn resolve_ftl(f: RawFtl, g: &Geometry) -> Valid<FtlConfig> {
    let bpd = g.blocks_per_die;
    if bpd < 4 {
        return err(
            "device.blocks_per_plane",
            format!(
                "a die must have at least 4 blocks (planes_per_die x blocks_per_plane) for the GC \
                 watermarks, got {bpd}"
            ),
        );
    }
    let low_given = f.gc_low_watermark_blocks.is_some();
    let high_given = f.gc_high_watermark_blocks.is_some();
    let low = f.gc_low_watermark_blocks.unwrap_or((bpd / 100).max(f.gc_reserve_blocks.saturating_add(4)));
    let high = f.gc_high_watermark_blocks.unwrap_or(low.saturating_mul(2));
    if low < 2 || low > bpd / 2 {
        let why = if low_given {
            String::new()
        } else {
            " (the default, max(gc_reserve_blocks + 4, blocks_per_die / 100); set it or lower \
             ftl.gc_reserve_blocks)"
                .to_string()
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
    if f.physical_streams == 0 || f.physical_streams as usize > crate::stream::PHYSICAL_STREAMS_MAX {
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
    let buffer = f.write_buffer_bytes.unwrap_or(default_buffer);
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
    Ok(FtlConfig {
        gc_policy: f.gc_policy,
        gc_low_watermark_blocks: low,
        gc_high_watermark_blocks: high,
        gc_reserve_blocks: f.gc_reserve_blocks,
        background_gc: f.background_gc,
        dynamic_wear_leveling: f.dynamic_wear_leveling,
        static_wear_leveling_gap: f.static_wear_leveling_gap,
        physical_streams: f.physical_streams,
        frontier_per_tenant: f.frontier_per_tenant,
        scheduler: f.scheduler,
        write_buffer_bytes: buffer,
        dram_latency_us: f.dram_latency_us,
    })
}

fn check_tenants(
    raw: Vec<RawTenant>,
    ftl: &FtlConfig,
    g: &Geometry,
    logical: u64,
    run_duration_s: Option<f64>,
) -> Valid<Vec<TenantConfig>> {
    if raw.is_empty() || raw.len() > 256 {
        return err("tenants", format!("must list 1 to 256 tenants, got {}", raw.len()));
    }
    let mut tenants: Vec<TenantConfig> = Vec::with_capacity(raw.len());
    let mut total = 0u64;
    for (i, t) in raw.into_iter().enumerate() {
        let (tenant, units) = check_tenant(i, t, &tenants, g, logical, run_duration_s)?;
        total += units as u64;
        tenants.push(tenant);
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
    check_fit(ftl, &tenants, g, total)?;
    Ok(tenants)
}

/// Tenant `i` (after the `earlier` ones), and its namespace in mapping units.
fn check_tenant(
    i: usize,
    t: RawTenant,
    earlier: &[TenantConfig],
    g: &Geometry,
    logical: u64,
    run_duration_s: Option<f64>,
) -> Valid<(TenantConfig, u32)> {
    let key = |k: &str| format!("tenants.{i}.{k}");
    if t.name.is_empty() || earlier.iter().any(|o| o.name == t.name) {
        return err(key("name"), format!("must be non-empty and unique, got {:?}", t.name));
    }
    let namespace = match (t.namespace_fraction, t.namespace_gib) {
        (Some(f), None) if f > 0.0 && f <= 1.0 => Namespace::Fraction(f),
        (Some(f), None) => return err(key("namespace_fraction"), format!("must be in (0, 1], got {f}")),
        (None, Some(gib)) if gib > 0.0 && gib.is_finite() => Namespace::Gib(gib),
        (None, Some(gib)) => return err(key("namespace_gib"), format!("must be > 0, got {gib}")),
        _ => {
            return err(key("namespace_fraction"), "set exactly one of namespace_fraction and namespace_gib")
        }
    };
    let units = namespace.units(g, logical);
    if units == 0 {
        let which = if t.namespace_gib.is_some() { "namespace_gib" } else { "namespace_fraction" };
        let reason = format!("the namespace is smaller than one mapping unit ({} bytes)", g.unit_bytes);
        return err(key(which), reason);
    }
    if t.queue_depth == 0 || t.queue_depth > 65_536 {
        return err(key("queue_depth"), format!("must be in [1, 65536], got {}", t.queue_depth));
    }
    if !(t.start_s >= 0.0 && t.start_s <= MAX_SECONDS) {
        return err(key("start_s"), format!("must be in [0, {MAX_SECONDS}] seconds, got {}", t.start_s));
    }
    if let Some(d) = t.duration_s.filter(|d| !(*d > 0.0 && *d <= MAX_SECONDS)) {
        return err(key("duration_s"), format!("must be in (0, {MAX_SECONDS}] seconds, got {d}"));
    }
    let ns_bytes = units as u64 * g.unit_bytes as u64;
    let workload = check_workload(t.trace, t.synthetic, t.periodic, ns_bytes, &key)?;
    check_stream_rules(&t.stream_rules, ns_bytes, &key)?;
    if let Workload::Synthetic(w) = &workload {
        if t.duration_s.is_none() && run_duration_s.is_none() {
            check_synthetic_ends(w, i, &key)?;
        }
    }
    let tenant = TenantConfig {
        name: t.name,
        namespace,
        queue_depth: t.queue_depth,
        start_s: t.start_s,
        duration_s: t.duration_s,
        workload,
        stream_rules: t.stream_rules,
    };
    Ok((tenant, units))
}

/// The namespaces (`total` mapping units) must fit in what GC can keep valid: each die keeps
/// `ftl.gc_reserve_blocks` free for GC's copies, and once its free blocks are down to them GC
/// needs at least one block's worth of invalid data to reclaim anything. With more valid data
/// than that, a workload that writes its namespaces full ends out of space whatever the
/// scheme: refused here, with the arithmetic.
fn check_fit(ftl: &FtlConfig, tenants: &[TenantConfig], g: &Geometry, total: u64) -> Check {
    let reserve = ftl.gc_reserve_blocks as u64;
    let (dies, bpd, upb) = (g.n_dies as u64, g.blocks_per_die as u64, g.units_per_block as u64);
    let usable = dies * bpd.saturating_sub(reserve + 1) * upb;
    if total <= usable {
        return Ok(());
    }
    // Namespaces given as fractions scale with the logical capacity, physical / (1 + op):
    // they fit once fractions x physical / (1 + op) <= usable.
    let fraction = |t: &TenantConfig| match t.namespace {
        Namespace::Fraction(f) => f,
        Namespace::Gib(_) => f64::NAN,
    };
    let fractions: f64 = tenants.iter().map(fraction).sum();
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
            "the namespaces total {total} mapping units, more than GC can keep valid: {dies} dies x ({bpd} \
             blocks - {reserve} GC reserve (ftl.gc_reserve_blocks) - 1 block to reclaim) x {upb} units = \
             {usable}; {raise}lower the namespaces or ftl.gc_reserve_blocks"
        ),
    )
}

fn check_workload(
    trace: Option<super::TraceWorkload>,
    synthetic: Option<SyntheticWorkload>,
    periodic: Option<PeriodicWorkload>,
    namespace_bytes: u64,
    key: &dyn Fn(&str) -> String,
) -> Valid<Workload> {
    match (trace, synthetic, periodic) {
        (None, None, Some(p)) => Ok(Workload::Periodic(p)), // checked by `resolve_periodic`
        (Some(tr), None, None) => {
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
                let reason = "must be >= 1 (omit it to replay the whole trace), got 0";
                return err(key("trace.max_requests"), reason);
            }
            Ok(Workload::Trace(tr))
        }
        // `try_build` validates every part and checks that the largest request fits in the
        // namespace, as the run will.
        (None, Some(w), None) => match w.try_build(namespace_bytes, 0) {
            Ok(_) => Ok(Workload::Synthetic(w)),
            Err((k, r)) => {
                let k = if k.is_empty() { "synthetic".to_string() } else { format!("synthetic.{k}") };
                err(key(&k), r)
            }
        },
        _ => err(
            key("trace"),
            "set exactly one of [tenants.trace], [tenants.synthetic] and [tenants.periodic]",
        ),
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
fn resolve_periodic(tenants: &mut [TenantConfig], g: &Geometry, logical: u64, run_ends: bool) -> Check {
    for (i, t) in tenants.iter_mut().enumerate() {
        let bytes = t.namespace.units(g, logical) as u64 * g.unit_bytes as u64;
        let ends = run_ends || t.duration_s.is_some();
        let Workload::Periodic(p) = &mut t.workload else { continue };
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

fn check_phases(p: &RawPrecondition, m: &MeasureConfig, tenants: &[TenantConfig]) -> Check {
    if !(0.0..=1.0).contains(&p.fill_fraction) {
        return err("precondition.fill_fraction", format!("must be in [0, 1], got {}", p.fill_fraction));
    }
    if !(0.0..=10.0).contains(&p.overwrite_passes) {
        return err(
            "precondition.overwrite_passes",
            format!("must be in [0, 10], got {}", p.overwrite_passes),
        );
    }
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
    let tenants_end: Option<f64> = tenants
        .iter()
        .map(|t| t.duration_s.map(|d| t.start_s + d))
        .collect::<Option<Vec<f64>>>()
        .map(|e| e.into_iter().fold(0.0, f64::max));
    let end = match (m.duration_s, tenants_end) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if let Some(end) = end {
        let rows = (end / m.window_s).ceil() * tenants.len() as f64;
        if rows > MAX_TIMESERIES_ROWS {
            return err(
                "measure.window_s",
                format!(
                    "too small for a {end}-second run: {} tenants x {} windows is more than \
                     {MAX_TIMESERIES_ROWS} time-series rows; use at least {} seconds",
                    tenants.len(),
                    (end / m.window_s).ceil(),
                    end * tenants.len() as f64 / MAX_TIMESERIES_ROWS
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
                Some(_) => format!(
                    "{name} is a stream mapper, not a scheme: its knobs go in [stream.{name}], and \
                     stream_mapper = {name:?} selects it"
                ),
                None => format!(
                    "unknown scheme{}; known: {}",
                    suggestion(name, scheme::REGISTRY.iter().map(|p| p.name)),
                    crate::knobs::names(scheme::REGISTRY)
                ),
            };
            return err(format!("scheme.{name}"), reason);
        }
    }
    let ns = s.namespace_units();
    let tasks = s.rt_tasks();
    let ctx = SchemeContext {
        geometry: g,
        namespace_units: &ns,
        over_provisioning: s.device.over_provisioning,
        timing: s.timing(),
        low_watermark_blocks: s.ftl.gc_low_watermark_blocks,
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
        Some(_) => format!(
            "{name} is a stream mapper, not a scheme: stream_mapper = {name:?} selects it (with a scheme in \
             schemes, e.g. schemes = [\"unified\"])"
        ),
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
    let Some(info) = scheme::info(name) else {
        return err(format!("scheme.{name}"), unknown_scheme(name)); // checked before: not reached
    };
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
                physical_streams: crate::stream::PHYSICAL_STREAMS_MAX as u8,
                fdp: s.device.fdp.as_ref(),
            };
            stream::build(name, table, &loose).map_err(|e| {
                (join_key(&format!("stream.{name}"), &e.key), crate::error::suggest_in_reason(&e.reason))
            })?;
        }
    }
    if let Some(f) = s.device.fdp.as_ref().filter(|f| {
        crate::stream::reads_device_fdp(&s.stream_mapper) && f.handles.len() > s.ftl.physical_streams as usize
    }) {
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
                format!(
                    "must be in [measure.warmup_s = {}, {MAX_SECONDS}] seconds (counters restart at the \
                     warm-up's end), got {}",
                    m.warmup_s, p.start_s
                ),
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

/// `[array]`: devices and chunk in range, a chunk of whole mapping units that every tenant's
/// namespace holds, and what the fed devices cannot do yet (a warm-up by workload, solo runs).
fn check_array(s: &Scenario, g: &Geometry) -> Check {
    let Some(a) = &s.array else { return Ok(()) };
    if !(3..=16).contains(&a.devices) {
        return err("array.devices", format!("must be in [3, 16] (RAID-5 needs three), got {}", a.devices));
    }
    let unit_kib = g.unit_bytes / 1024;
    if a.chunk_kib == 0 || a.chunk_kib > 1024 || unit_kib == 0 || a.chunk_kib % unit_kib != 0 {
        return err(
            "array.chunk_kib",
            format!(
                "must be a multiple of the mapping unit ({} B) in (0, 1024] KiB, got {}",
                g.unit_bytes, a.chunk_kib
            ),
        );
    }
    if let Some(d) = a.rebuild_device.filter(|&d| d >= a.devices) {
        return err("array.rebuild_device", format!("must be in [0, {}], got {d}", a.devices - 1));
    }
    let chunk_units = a.chunk_kib / unit_kib;
    for (i, &ns) in s.namespace_units().iter().enumerate() {
        if ns < chunk_units {
            return err(
                format!("tenants.{i}.namespace"),
                format!("holds {ns} mapping units, less than one chunk of array.chunk_kib ({chunk_units})"),
            );
        }
    }
    if s.precondition.mode == super::PreconditionMode::Workload {
        return err(
            "precondition.mode",
            "an array's devices are preconditioned by fill (the warm-up by workload replays a \
             tenant's requests on one device, not through the array): set \"fill\"",
        );
    }
    if s.measure.solo {
        return err("measure.solo", "solo runs are not supported with [array]");
    }
    if a.stagger {
        check_stagger(s, a.devices)?;
    }
    Ok(())
}

/// `[array] stagger` shifts the host window schedule of every scheme that has one (its knob
/// table has `host_offset_ms`: the registry says which): at least one must run, each with
/// host windows short enough that the devices' windows do not overlap.
fn check_stagger(s: &Scenario, devices: u32) -> Check {
    let scheduled: Vec<&String> =
        s.schemes.iter().filter(|n| crate::scheme::has_knob(n, "host_offset_ms")).collect();
    if scheduled.is_empty() {
        return err(
            "array.stagger",
            "staggers host-requested windows, and no listed scheme has a host window schedule \
             (a knob host_offset_ms; `ftlab schemes` lists the knobs)",
        );
    }
    for name in scheduled {
        let table = s.scheme.get(name.as_str()).expect("a listed scheme's table is resolved");
        let get = |k: &str| table.get(k).and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)));
        if table.get("windows").and_then(|v| v.as_str()) != Some("host") {
            return err(
                "array.stagger",
                format!("needs scheme.{name}.windows = \"host\" (the host's schedule is what it staggers)"),
            );
        }
        let (cycle, ndwin) = (get("host_cycle_ms").unwrap_or(0.0), get("host_ndwin_ms").unwrap_or(f64::MAX));
        if ndwin * devices as f64 > cycle {
            return err(
                "array.stagger",
                format!(
                    "needs scheme.{name}.host_ndwin_ms ({ndwin}) at most host_cycle_ms / devices ({}): \
                     the devices' Non-Deterministic Windows would overlap",
                    cycle / devices as f64
                ),
            );
        }
    }
    Ok(())
}
