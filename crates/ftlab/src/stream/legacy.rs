//! `legacy`: no streams. Every host write and GC copy goes through physical stream 0. No
//! knobs, no state.

use super::{MapperContext, MapperInfo, StreamMapper};
use crate::knobs::{config_fields, serde_defaults};
use crate::policy::{parse_config, to_table, DeviceView, SchemeConfigError};
use serde::{Deserialize, Serialize};

/// `legacy` has no knobs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegacyConfig {}

/// `legacy`'s registry entry (no knobs).
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "legacy",
    summary: "No streams: every host write and GC copy goes through physical stream 0.",
    knobs: &[],
    fields: config_fields::<LegacyConfig>,
    defaults: serde_defaults::<LegacyConfig>,
    build,
    caps: (),
};

pub(crate) struct Legacy;

pub(crate) fn build(
    table: &toml::Table,
    _ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    let _: LegacyConfig = parse_config(table)?;
    Ok(Box::new(Legacy))
}

impl StreamMapper for Legacy {
    fn name(&self) -> &'static str {
        "legacy"
    }
    /// No: stream 0 is the device's one write point, whoever writes.
    fn frontier_per_tenant(&self) -> bool {
        false
    }
    /// No: every write goes to stream 0, so per-stream columns would repeat the totals.
    fn stream_series(&self) -> bool {
        false
    }
    fn host_stream(&mut self, _tenant: u16, _lpn: u32, _virtual_stream: u16, _view: &DeviceView) -> u8 {
        0
    }
    fn gc_stream(&mut self, _tenant: u16, _lpn: u32, _from_stream: u8, _view: &DeviceView) -> u8 {
        0
    }
    /// Stream 0, for every unit.
    fn gc_block_stream(&self, _tenant: u16, _from_stream: u8) -> Option<u8> {
        Some(0)
    }
    fn resolved_config(&self) -> toml::Table {
        to_table(&LegacyConfig {})
    }
}
