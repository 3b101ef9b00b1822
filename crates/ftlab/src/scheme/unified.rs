//! `unified`: every tenant may write every die; host pages are striped round-robin over all
//! dies (channel first), GC copies stay on the victim's die. The UPI paper's "Unified"
//! baseline: maximal parallelism, no isolation. Its frontiers are shared by the tenants
//! (`Scheme::frontier_per_tenant` false): one host write point per (stream, die), as in a
//! conventional SSD, so blocks mix tenants. No knobs.

use super::{
    parse_config, to_table, Capabilities, RoundRobin, Scheme, SchemeConfigError, SchemeContext, SchemeInfo,
};
use crate::flash::geometry::DieIdx;
use crate::knobs::{config_fields, serde_defaults};
use crate::policy::DeviceView;
use serde::{Deserialize, Serialize};

/// `unified` has no knobs; its table must be empty.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnifiedConfig {}

/// `unified`'s registry entry (no knobs).
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "unified",
    summary: "Every tenant stripes over every die; GC copies stay on the victim's die (no isolation).",
    knobs: &[],
    fields: config_fields::<UnifiedConfig>,
    defaults: serde_defaults::<UnifiedConfig>,
    build,
    caps: Capabilities::labelled("Unified"),
};

pub(crate) struct Unified {
    /// One striping cursor per tenant, shared by its streams.
    cursors: Vec<RoundRobin>,
}

pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    let _: UnifiedConfig = parse_config(table)?;
    let dies = ctx.geometry.dies_channel_first();
    Ok(Box::new(Unified { cursors: vec![RoundRobin::new(dies); ctx.namespace_units.len()] }))
}

impl Scheme for Unified {
    fn name(&self) -> &'static str {
        "unified"
    }

    /// No: one host and one GC frontier per (stream, die) for every tenant, as a conventional
    /// SSD (the UPI paper's Unified baseline separates only host from GC data).
    fn frontier_per_tenant(&self) -> bool {
        false
    }

    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursors[tenant as usize].next_die()
    }

    /// Copies stay on the victim's die (`gc_write_die`'s default), for the whole block.
    fn gc_block_die(&self, _owner: u16, victim_die: DieIdx) -> Option<DieIdx> {
        Some(victim_die)
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&UnifiedConfig {})
    }
}
