//! `[device.fdp]`: the device's NVMe Flexible Data Placement configuration (TP4146, NVMe 2.1),
//! kept with the `fdp` stream mapper that reads it (the scenario holds it as `device.fdp`):
//! how many reclaim groups (RGs) the dies form, how large a reclaim unit (RU) is, and the
//! reclaim unit handles (RUHs) with their isolation type. Its schema, defaults and checks
//! (each error names the key and the range). The `fdp` stream mapper (`stream/fdp/mod.rs`) reads
//! it; without `[device.fdp]` it uses `FdpConfig::default()`.
//!
//! What it is not: it places nothing and counts nothing (the mapper does); the device has no
//! FDP configuration log with several configurations to choose from (one configuration).
//! docs/streams/fdp.md, docs/scenario.md.

use crate::flash::geometry::Geometry;
use serde::{Deserialize, Serialize};

/// Most reclaim unit handles: the device's physical streams
/// (`stream::PHYSICAL_STREAMS_MAX`), one per handle.
pub(crate) const RUHS_MAX: usize = crate::stream::PHYSICAL_STREAMS_MAX;

/// A reclaim unit handle's type (libnvme `enum nvme_fdp_ruh_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuhType {
    /// GC may move data written through this handle into RUs holding data of other
    /// initially isolated handles.
    InitiallyIsolated,
    /// GC keeps data written through this handle in RUs of this handle only.
    PersistentlyIsolated,
}

/// Where an RU's blocks are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuSpan {
    /// `ru_blocks` blocks on one die.
    Die,
    /// `ru_blocks` blocks on every die of the reclaim group.
    Group,
}

/// `[device.fdp]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FdpConfig {
    /// Reclaim groups; the dies split into this many groups of consecutive die indices.
    /// Must divide the number of dies. Default 1.
    pub reclaim_groups: u32,
    /// RU size in erase blocks (per die with `ru_span = "die"`, on each die of the group with
    /// `"group"`). In [1, blocks per die]. Default 1.
    pub ru_blocks: u32,
    /// `"die"` (default) or `"group"`.
    pub ru_span: RuSpan,
    /// One entry per reclaim unit handle (RUH `i` at index `i`): its type. 1 to 16 handles
    /// (at most `ftl.physical_streams`, checked when `fdp` is the mapper).
    /// Default one persistently isolated handle.
    pub handles: Vec<RuhType>,
}

impl Default for FdpConfig {
    fn default() -> Self {
        FdpConfig {
            reclaim_groups: 1,
            ru_blocks: 1,
            ru_span: RuSpan::Die,
            handles: vec![RuhType::PersistentlyIsolated],
        }
    }
}

impl FdpConfig {
    /// Dies per reclaim group.
    pub(crate) fn dies_per_group(&self, g: &Geometry) -> u32 {
        g.n_dies / self.reclaim_groups
    }

    /// Mapping units one RU holds.
    pub fn ru_units(&self, g: &Geometry) -> u64 {
        let dies = match self.ru_span {
            RuSpan::Die => 1,
            RuSpan::Group => self.dies_per_group(g) as u64,
        };
        self.ru_blocks as u64 * dies * g.units_per_block as u64
    }
}

impl FdpConfig {
    /// Checks `[device.fdp]` against the geometry; the error is (key below `device.fdp`, reason).
    pub(crate) fn check(&self, g: &Geometry) -> Result<(), (String, String)> {
        let e = |k: &str, r: String| Err((k.to_string(), r));
        if self.reclaim_groups == 0
            || self.reclaim_groups > g.n_dies
            || !g.n_dies.is_multiple_of(self.reclaim_groups)
        {
            return e(
                "reclaim_groups",
                format!(
                    "must be in [1, {}] and divide the {} dies, got {}",
                    g.n_dies, g.n_dies, self.reclaim_groups
                ),
            );
        }
        if !(1..=g.blocks_per_die).contains(&self.ru_blocks) {
            return e(
                "ru_blocks",
                format!("must be in [1, {}] (blocks per die), got {}", g.blocks_per_die, self.ru_blocks),
            );
        }
        if self.handles.is_empty() || self.handles.len() > RUHS_MAX {
            return e(
                "handles",
                format!("must name 1 to {RUHS_MAX} reclaim unit handles, got {}", self.handles.len()),
            );
        }
        Ok(())
    }
}
