//! `manual`: a static virtual → physical stream table from the scenario (`[stream.manual]`),
//! the "Manual-SSD" of the vStream paper (§5.1, Table 1): what an application developer does
//! by hand when the device has fewer physical streams than the application has streams.
//! Virtual stream `v` goes to `table[v]`; a virtual stream beyond the table goes to
//! `default_physical_stream`. The preset `vstream-table1` is the paper's Table 1 (RocksDB's ten
//! streams onto four physical streams). A GC copy stays in the stream it was written through.
//!
//! What it is not: it learns nothing and never changes its table during a run; it does not
//! tell tenants apart (every tenant uses the same table). docs/streams/manual.md.

use super::{MapperContext, MapperInfo, StreamMapper, VirtualTally};
use crate::ftl::blocks::WriteClass;
use crate::knobs::{config_fields, serde_defaults, IntBounds, Knob, KnobKind};
use crate::policy::{
    parse_config, to_table, Command, Counters, DeviceView, Interests, Placed, SchemeConfigError,
};
use serde::{Deserialize, Serialize};

/// The vStream paper's Table 1 ("Static stream ID assignment in Manual-SSD"), 0-based: its
/// physical stream 1 holds system data, WAL, manifest and temporary files; 2 holds L0 and
/// L1; 3 holds L2 and L3; 4 holds L4 and L5. Indexed by the virtual stream ids of RocksDB's
/// ten streams (our numbering, the capture's `ROCKSDB_STREAMS` in `python/ftlab/capture`; the
/// paper names the streams but gives them no ids): 0 file-system metadata ("system data"),
/// 1 WAL, 2 MANIFEST, 3 temporary files, 4..=9 SSTables of levels L0..L5.
pub const VSTREAM_TABLE1: [u8; 10] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3];

/// Names a scenario may give in `preset`.
pub(crate) const PRESETS: &[&str] = &["vstream-table1"];

/// Knobs of `manual` (`[stream.manual]`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ManualConfig {
    /// A named table instead of `table` (not both): `"vstream-table1"` = the vStream paper's
    /// Table 1 (needs `ftl.physical_streams` >= 4; see `VSTREAM_TABLE1` for the virtual ids).
    /// Resolved into `table` in `scenario.resolved.toml`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) preset: Option<String>,
    /// Physical stream of virtual stream `i` at index `i`; each entry < `ftl.physical_streams`.
    /// Default empty: every virtual stream goes to `default_physical_stream`.
    /// (Integers, so that an entry out of range is reported at its index, `table.<i>`.)
    pub(crate) table: Vec<i64>,
    /// Physical stream of a virtual stream at or beyond the table's length; <
    /// `ftl.physical_streams`. Default 0.
    pub(crate) default_physical_stream: i64,
}

/// The knobs of `manual` (their bounds are the device's physical streams: `resolve`).
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "preset",
        "",
        KnobKind::Choice(PRESETS),
        "A named table instead of `table` (not both); vstream-table1 is the vStream paper's Table 1.",
    )
    .also("vstream-table1 needs ftl.physical_streams >= 4")
    .absent("no preset: `table`"),
    Knob::new(
        "table",
        "stream",
        KnobKind::IntList(IntBounds::ANY),
        "Physical stream of virtual stream i at index i.",
    )
    .also("each in [0, ftl.physical_streams)"),
    Knob::new(
        "default_physical_stream",
        "stream",
        KnobKind::Int(IntBounds::ANY),
        "Physical stream of a virtual stream beyond the table.",
    )
    .also("in [0, ftl.physical_streams)"),
];

/// `manual`'s registry entry.
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "manual",
    summary: "A static virtual -> physical stream table (the vStream paper's Manual-SSD).",
    knobs: KNOBS,
    fields: config_fields::<ManualConfig>,
    defaults: serde_defaults::<ManualConfig>,
    build,
    caps: (),
};

pub struct Manual {
    config: ManualConfig,
    /// `config.table` as physical streams.
    table: Vec<u8>,
    default: u8,
    tally: VirtualTally,
}

/// The table `config` names, checked against the device's `physical_streams`.
pub(crate) fn resolve(
    mut config: ManualConfig,
    physical_streams: u8,
) -> Result<ManualConfig, SchemeConfigError> {
    if let Some(p) = config.preset.take() {
        if !config.table.is_empty() {
            return Err(SchemeConfigError::new("preset", "give either `preset` or `table`, not both"));
        }
        config.table = match p.as_str() {
            "vstream-table1" => VSTREAM_TABLE1.iter().map(|&s| s as i64).collect(),
            _ => {
                return Err(SchemeConfigError::new(
                    "preset",
                    format!("unknown preset {p:?}; known: {}", PRESETS.join(", ")),
                ))
            }
        };
        if physical_streams < 4 {
            return Err(SchemeConfigError::new(
                "preset",
                format!(
                    "\"vstream-table1\" maps onto 4 physical streams; ftl.physical_streams is \
                     {physical_streams}"
                ),
            ));
        }
    }
    for (i, &s) in config.table.iter().enumerate() {
        if !(0..physical_streams as i64).contains(&s) {
            return Err(SchemeConfigError::new(
                format!("table.{i}"),
                format!("must be in [0, {}) (ftl.physical_streams), got {s}", physical_streams),
            ));
        }
    }
    if !(0..physical_streams as i64).contains(&config.default_physical_stream) {
        return Err(SchemeConfigError::new(
            "default_physical_stream",
            format!(
                "must be in [0, {physical_streams}) (ftl.physical_streams), got {}",
                config.default_physical_stream
            ),
        ));
    }
    if config.table.len() > u16::MAX as usize + 1 {
        return Err(SchemeConfigError::new(
            "table",
            format!("has {} entries; virtual streams are 16-bit", config.table.len()),
        ));
    }
    Ok(config)
}

pub(crate) fn build(
    table: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(Manual::new(table, ctx)?))
}

impl Manual {
    pub fn new(table: &toml::Table, ctx: &MapperContext) -> Result<Manual, SchemeConfigError> {
        let config = resolve(parse_config(table)?, ctx.physical_streams)?;
        let table = config.table.iter().map(|&s| s as u8).collect();
        let default = config.default_physical_stream as u8;
        Ok(Manual { config, table, default, tally: VirtualTally::default() })
    }

    /// The physical stream of virtual stream `vs`.
    #[inline]
    pub fn map(&self, vs: u16) -> u8 {
        self.table.get(vs as usize).copied().unwrap_or(self.default)
    }
}

impl StreamMapper for Manual {
    fn name(&self) -> &'static str {
        "manual"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, ..Interests::NONE }
    }
    /// No: one table for every tenant, its streams the device's.
    fn frontier_per_tenant(&self) -> bool {
        false
    }
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, _view: &DeviceView) -> u8 {
        self.tally.asked(tenant, lpn, virtual_stream);
        self.map(virtual_stream)
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
        }
    }
    /// `vs<i>_n_pages` and `vs<i>_physical_stream` per virtual stream written, then
    /// `vs_other_n_pages`.
    fn counters(&self, out: &mut Counters) {
        for (vs, &n) in self.tally.n_pages.iter().enumerate() {
            if n > 0 {
                out.push((super::counter_name(format!("vs{vs}_n_pages")), n as f64));
                out.push((
                    super::counter_name(format!("vs{vs}_physical_stream")),
                    self.map(vs as u16) as f64,
                ));
            }
        }
        out.push(("vs_other_n_pages", self.tally.other_n_pages as f64));
    }
    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}
