//! Stream mappers (DESIGN §6, §11): map a host write's virtual stream to one of the device's
//! few physical streams (which picks the frontier), and choose the stream of a GC copy. A
//! mapper is a policy like a scheme: it is built from the same context (geometry, namespace
//! sizes, unit size), gets the engine's `DeviceView`, may tick an epoch, may hear placements,
//! invalidations and erases, may push `Command`s, and adds its own counters to
//! `summary.json`. Any mapper runs under any scheme. Adding a mapper = one file + one
//! `REGISTRY` line.

pub mod legacy;

use crate::flash::geometry::{BlockIdx, Geometry};
use crate::policy::{Command, Counters, DeviceView, Interests, Invalidated, Placed, SchemeConfigError};
use crate::sim::time::SimTime;

/// What a mapper is built from (besides its own config table).
#[derive(Clone, Copy, Debug)]
pub struct MapperContext<'a> {
    pub geometry: &'a Geometry,
    /// Logical size of each tenant's namespace, in mapping units, in scenario order.
    pub namespace_units: &'a [u32],
    /// The device's physical streams (`ftl.physical_streams`): mapped streams are below it.
    pub physical_streams: u8,
}

/// One stream mapper.
pub trait StreamMapper: Send {
    fn name(&self) -> &'static str;

    /// Which events this mapper wants; asked once.
    fn interests(&self) -> Interests {
        Interests::NONE
    }

    /// Physical stream of a host write of `lpn` tagged with `virtual_stream`.
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, view: &DeviceView) -> u8;

    /// Physical stream of a GC copy of `lpn`, which was written through `from_stream`.
    fn gc_stream(&mut self, tenant: u16, lpn: u32, from_stream: u8, view: &DeviceView) -> u8;

    /// Interval of `on_epoch` (vStream's re-clustering); `None` for mappers without epochs.
    fn epoch(&self) -> Option<SimTime> {
        None
    }

    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let _ = (view, cmds);
    }

    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        let _ = (view, ev, cmds);
    }

    fn on_invalidated(&mut self, view: &DeviceView, ev: &Invalidated, cmds: &mut Vec<Command>) {
        let _ = (view, ev, cmds);
    }

    fn on_erased(&mut self, view: &DeviceView, block: BlockIdx, cmds: &mut Vec<Command>) {
        let _ = (view, block, cmds);
    }

    /// The mapper's own counters for `summary.json` (`mapper_counters`), appended to `out`.
    fn counters(&self, out: &mut Counters) {
        let _ = out;
    }

    fn resolved_config(&self) -> toml::Table;
}

/// Builds a mapper from its config table.
pub type BuildFn = fn(&toml::Table, &MapperContext) -> Result<Box<dyn StreamMapper>, SchemeConfigError>;

/// Every stream mapper a scenario may name (the integrity property test runs each one).
pub const REGISTRY: &[(&str, BuildFn)] = &[("legacy", legacy::build)];

pub fn build(name: &str, config: &toml::Table, ctx: &MapperContext) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    match REGISTRY.iter().find(|(n, _)| *n == name) {
        Some((_, build)) => build(config, ctx),
        None => Err(SchemeConfigError::new(
            "",
            format!("unknown stream mapper {name:?}; known: {}", REGISTRY.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")),
        )),
    }
}
