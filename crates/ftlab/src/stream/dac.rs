//! `dac`: Dynamic dAta Clustering (Chiang, Lee and Chang, Software: Practice and Experience
//! 29(3), 1999) as the vStream paper describes it (§3 and §5.1): every logical page has a
//! region number; a page the host overwrites moves up one region, a page GC copies moves
//! down one, and a discard (trim) resets it ("the logical region number associated with those
//! pages will be reset", §5.1). Regions are physical streams: region `r` is written through
//! physical stream `r` (the hottest data in the highest region).
//!
//! State: one byte per logical page (mapping unit) per tenant, a flat `Vec<u8>` indexed by lpn
//! (bit 7: the page holds data; bits 0-6: its region). `host_stream`/`gc_stream` only read it;
//! the region is stored when the unit lands (`on_placed`), so a write that stalls for space
//! and asks again is not promoted twice.
//!
//! What it is not: the original DAC's per-region temperature thresholds and its cleaning
//! policy are not modelled (GC victims are the scheme's); virtual stream tags are ignored
//! (counted only). docs/streams/dac.md.

use super::{MapperContext, MapperInfo, StreamMapper, VirtualTally};
use crate::ftl::blocks::WriteClass;
use crate::knobs::{config_fields, serde_defaults, IntBounds, Knob, KnobKind};
use crate::policy::{
    parse_config, to_table, Cause, Command, Counters, DeviceView, Interests, Invalidated, Placed,
    SchemeConfigError,
};
use serde::{Deserialize, Serialize};

/// Bit of a page's state byte: the page holds data (written and not trimmed since).
const WRITTEN: u8 = 0x80;
/// Bits of a page's state byte that hold its region.
const REGION: u8 = 0x7f;

/// Knobs of `dac` (`[stream.dac]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct DacConfig {
    /// Number of regions, in [1, `ftl.physical_streams`]; 0 (the default) = all physical
    /// streams (the vStream paper's DAC-SSD uses its four).
    pub(crate) regions: u8,
    /// Reset a page's region to 0 when the host trims it (§5.1). Default true.
    pub(crate) reset_on_trim: bool,
}

impl Default for DacConfig {
    fn default() -> Self {
        DacConfig { regions: 0, reset_on_trim: true }
    }
}

/// The knobs of `dac`.
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "regions",
        "regions",
        KnobKind::Int(IntBounds::ANY),
        "Number of regions (physical streams used); 0 = all physical streams.",
    )
    .also("in [0, ftl.physical_streams]"),
    Knob::new("reset_on_trim", "", KnobKind::Bool, "Reset a page's region to 0 when the host trims it."),
];

/// `dac`'s registry entry.
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "dac",
    summary: "DAC: a region per logical page, up on overwrite, down on GC copy, reset on trim.",
    knobs: KNOBS,
    fields: config_fields::<DacConfig>,
    defaults: serde_defaults::<DacConfig>,
    build,
    caps: (),
};

/// What DAC did, summed over tenants.
#[derive(Clone, Debug, Default)]
pub(crate) struct DacCounters {
    /// Host units written into region `r` (index `r`).
    pub(crate) host_n_pages: Vec<u64>,
    /// GC copies written into region `r`.
    pub(crate) gc_n_pages: Vec<u64>,
    /// Host overwrites that moved a page up a region.
    pub(crate) promotions: u64,
    /// GC copies that moved a page down a region.
    pub(crate) demotions: u64,
    /// Trims that reset a written page.
    pub(crate) trim_resets: u64,
}

pub struct Dac {
    config: DacConfig,
    regions: u8,
    /// Per tenant, per lpn: `WRITTEN | region`.
    state: Vec<Vec<u8>>,
    counters: DacCounters,
    tally: VirtualTally,
}

pub(crate) fn build(
    table: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(Dac::new(table, ctx)?))
}

impl Dac {
    pub fn new(table: &toml::Table, ctx: &MapperContext) -> Result<Dac, SchemeConfigError> {
        let mut config: DacConfig = parse_config(table)?;
        if config.regions > ctx.physical_streams {
            return Err(SchemeConfigError::new(
                "regions",
                format!(
                    "must be in [1, {}] (ftl.physical_streams), or 0 for all, got {}",
                    ctx.physical_streams, config.regions
                ),
            ));
        }
        if config.regions == 0 {
            config.regions = ctx.physical_streams;
        }
        assert!((1..=REGION).contains(&config.regions), "regions {} out of the state byte", config.regions);
        let state = ctx.namespace_units.iter().map(|&n| vec![0u8; n as usize]).collect();
        let r = config.regions as usize;
        let counters = DacCounters { host_n_pages: vec![0; r], gc_n_pages: vec![0; r], ..Default::default() };
        Ok(Dac { regions: config.regions, config, state, counters, tally: VirtualTally::default() })
    }

    /// The region of `lpn` of `tenant` (0 for a page never written or trimmed).
    pub fn region(&self, tenant: u16, lpn: u32) -> u8 {
        self.state[tenant as usize][lpn as usize] & REGION
    }

    /// Bytes of state: one per logical page.
    pub(crate) fn memory_bytes(&self) -> u64 {
        self.state.iter().map(|s| s.len() as u64).sum()
    }

    /// Store the region a unit of `tenant` landed in.
    fn land(&mut self, tenant: u16, lpn: u32, region: u8, class: WriteClass) {
        assert!(
            region < self.regions,
            "a unit landed in stream {region}, beyond DAC's {} regions",
            self.regions
        );
        let s = &mut self.state[tenant as usize][lpn as usize];
        let old = *s & REGION;
        *s = WRITTEN | region;
        let c = &mut self.counters;
        match class {
            WriteClass::Host => {
                c.host_n_pages[region as usize] += 1;
                c.promotions += (region > old) as u64;
            }
            _ => {
                c.gc_n_pages[region as usize] += 1;
                c.demotions += (region < old) as u64;
            }
        }
    }
}

impl StreamMapper for Dac {
    fn name(&self) -> &'static str {
        "dac"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, invalidated: self.config.reset_on_trim, erased: false }
    }
    /// Up one region if the page holds data (an overwrite), else its region (0 when fresh).
    /// No: a region is a temperature, the same for every tenant; its stream is the device's.
    fn frontier_per_tenant(&self) -> bool {
        false
    }
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, _view: &DeviceView) -> u8 {
        self.tally.asked(tenant, lpn, virtual_stream);
        let s = self.state[tenant as usize][lpn as usize];
        let r = s & REGION;
        if s & WRITTEN != 0 {
            (r + 1).min(self.regions - 1)
        } else {
            r
        }
    }
    /// Down one region (of the unit's own region: no `gc_block_stream`, the answer varies
    /// from unit to unit of a block).
    fn gc_stream(&mut self, tenant: u16, lpn: u32, _from_stream: u8, _view: &DeviceView) -> u8 {
        self.region(tenant, lpn).saturating_sub(1)
    }
    fn on_placed(&mut self, _view: &DeviceView, ev: &Placed, _cmds: &mut Vec<Command>) {
        if ev.class == WriteClass::Parity {
            return;
        }
        if ev.class == WriteClass::Host {
            self.tally.placed(ev.tenant, ev.lpn);
        }
        self.land(ev.tenant, ev.lpn, ev.stream, ev.class);
    }
    fn on_invalidated(&mut self, _view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        if ev.cause == Cause::Trim && self.config.reset_on_trim {
            self.state[ev.tenant as usize][ev.lpn as usize] = 0;
            self.counters.trim_resets += 1;
        }
    }
    /// `ps<r>_host_n_pages`, `ps<r>_gc_n_pages` per region, `promotions`, `demotions`,
    /// `trim_resets`, `memory_bytes`, then the pages per virtual stream.
    fn counters(&self, out: &mut Counters) {
        let c = &self.counters;
        for r in 0..self.regions as usize {
            out.push((super::counter_name(format!("ps{r}_host_n_pages")), c.host_n_pages[r] as f64));
            out.push((super::counter_name(format!("ps{r}_gc_n_pages")), c.gc_n_pages[r] as f64));
        }
        out.extend([
            ("promotions", c.promotions as f64),
            ("demotions", c.demotions as f64),
            ("trim_resets", c.trim_resets as f64),
            ("memory_bytes", self.memory_bytes() as f64),
        ]);
        self.tally.counters(out);
    }
    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}
