//! Stream mappers (DESIGN §6): map a host write's virtual stream to one of the device's few
//! physical streams (which picks the frontier), and choose the stream of a GC copy. Any
//! mapper runs under any scheme. Adding a mapper = one file + one `REGISTRY` line.

pub mod legacy;

use crate::scheme::SchemeConfigError;
use crate::sim::time::SimTime;

/// One stream mapper.
pub trait StreamMapper: Send {
    fn name(&self) -> &'static str;
    /// Physical stream of a host write of `lpn` tagged with `virtual_stream`.
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, now: SimTime) -> u8;
    /// Physical stream of a GC copy of `lpn`, which was written through `from_stream`.
    fn gc_stream(&mut self, tenant: u16, lpn: u32, from_stream: u8) -> u8;
    /// Periodic re-clustering (vStream); `None` for mappers without epochs.
    fn epoch(&self) -> Option<SimTime> {
        None
    }
    fn on_epoch(&mut self, now: SimTime) {
        let _ = now;
    }
    fn resolved_config(&self) -> toml::Table;
}

/// Builds a mapper from its config table, for a device with `physical_streams` streams.
pub type BuildFn = fn(&toml::Table, u8) -> Result<Box<dyn StreamMapper>, SchemeConfigError>;

/// Every stream mapper a scenario may name.
pub const REGISTRY: &[(&str, BuildFn)] = &[("legacy", legacy::build)];

pub fn build(name: &str, config: &toml::Table, physical_streams: u8) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    match REGISTRY.iter().find(|(n, _)| *n == name) {
        Some((_, build)) => build(config, physical_streams),
        None => Err(SchemeConfigError::new(
            "",
            format!("unknown stream mapper {name:?}; known: {}", REGISTRY.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")),
        )),
    }
}
