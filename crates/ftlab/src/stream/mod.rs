//! Stream mappers (DESIGN §6, §11): map a host write's virtual stream to one of the device's
//! few physical streams (which picks the frontier), and choose the stream of a GC copy. A
//! mapper is a policy like a scheme: it is built from the same context (geometry, namespace
//! sizes, unit size), gets the engine's `DeviceView`, may tick an epoch, may hear placements,
//! invalidations and erases, may push `Command`s, and adds its own counters to
//! `summary.json`. Any mapper runs under any scheme. Adding a mapper = one file + one
//! `REGISTRY` line.

pub(crate) mod autostream;
pub(crate) mod dac;
pub(crate) mod direct;
pub(crate) mod fdp;
pub(crate) mod legacy;
pub(crate) mod manual;
pub(crate) mod vstream;

pub(crate) use fdp::config::FdpConfig;

use crate::flash::geometry::{BlockIdx, Geometry, Ppa};
pub(crate) use crate::policy::counter_name;
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
    /// `[device.fdp]` when the scenario gives one (the `fdp` mapper's device side).
    pub fdp: Option<&'a FdpConfig>,
}

/// Physical streams a device may have (`ftl.physical_streams` is at most this; the FDP mapper's
/// reclaim unit handles take one each).
pub(crate) const PHYSICAL_STREAMS_MAX: usize = 16;

/// The mapper a scenario runs when it names none (`stream_mapper`): the conventional SSD's.
pub(crate) const DEFAULT_MAPPER: &str = legacy::INFO.name;

/// Whether mapper `name` reads the device's `[device.fdp]` configuration (whose reclaim unit
/// handles each need a physical stream): a registry question, so that the scenario's checks
/// name no mapper.
pub(crate) fn reads_device_fdp(name: &str) -> bool {
    name == fdp::INFO.name
}

/// One stream mapper.
pub trait StreamMapper: Send {
    fn name(&self) -> &'static str;

    /// Which events this mapper wants; asked once.
    fn interests(&self) -> Interests {
        Interests::NONE
    }

    /// Whether this mapper's physical streams are private to each tenant (its stream numbers
    /// mean different things for different tenants, or it keeps a tenant's streams apart from
    /// another's): the FTL then keys its write frontiers by tenant. False: a physical stream
    /// is a device-wide write point any tenant may share (a conventional SSD's one stream,
    /// `legacy`; a table every tenant uses, `manual`; temperature regions, `dac`; FDP's reclaim
    /// unit handles, which the NVMe specification makes the device's). Frontiers are per
    /// tenant if the mapper, the scheme (`Scheme::frontier_per_tenant`) or
    /// `ftl.frontier_per_tenant` says so. Default true.
    fn frontier_per_tenant(&self) -> bool {
        true
    }

    /// Whether the time series gets the per-stream columns (`metrics::streams::series_names`).
    /// Default true; a mapper that writes everything to one stream says no.
    fn stream_series(&self) -> bool {
        true
    }

    /// Physical stream of a host write of `lpn` tagged with `virtual_stream`.
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, view: &DeviceView) -> u8;

    /// Physical stream of a GC copy of `lpn`, which was written through `from_stream`; asked
    /// per copy where `gc_block_stream` answers `None`.
    fn gc_stream(&mut self, tenant: u16, lpn: u32, from_stream: u8, view: &DeviceView) -> u8;

    /// The physical stream of *every* GC copy of `tenant`'s data from one victim block written
    /// through `from_stream`, if it is one stream for the whole block: asked once, when a job
    /// takes the block, instead of `gc_stream` per copy. A mapper answers `Some(s)` only where
    /// its `gc_stream` would answer `s` for each unit of the block whatever happens while the
    /// block is copied: a function of its arguments and its fixed configuration. `None` (the
    /// default, always exact): the stream may vary from unit to unit (DAC's region of each
    /// page), and `gc_stream` is asked for each. Not asked for a block of several tenants' data
    /// (`BlockInfo::multi_tenant`): each of its copies asks `gc_stream` with its own tenant.
    fn gc_block_stream(&self, tenant: u16, from_stream: u8) -> Option<u8> {
        let _ = (tenant, from_stream);
        None
    }

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

    /// A hint: the unit at `ppa` is about to die (a host request fetched will overwrite it).
    /// A mapper that reads state of the dead unit's location in `on_invalidated` may start
    /// fetching it into the cache now; it must not change anything. Default: nothing.
    fn prefetch_death(&self, ppa: Ppa) {
        let _ = ppa;
    }

    /// The host trims `lpn` of `tenant` with a request tagged `virtual_stream` (the vStream
    /// paper passes the stream ID with each DISCARD, §5.1). Called for a unit that held data,
    /// just before its `Invalidated { cause: Trim }` event (which goes only to mappers whose
    /// `interests()` ask for invalidations). `Invalidated` says why a page died but not with
    /// which stream the trim came; this hook is the one thing it lacks.
    fn on_trim(&mut self, tenant: u16, lpn: u32, virtual_stream: u16) {
        let _ = (tenant, lpn, virtual_stream);
    }

    fn on_erased(&mut self, view: &DeviceView, block: BlockIdx, cmds: &mut Vec<Command>) {
        let _ = (view, block, cmds);
    }

    /// The mapper's own counters for `summary.json` (`mapper_counters`), appended to `out`.
    fn counters(&self, out: &mut Counters) {
        let _ = out;
    }

    /// A structured report for `summary.json`'s `mapper_report` under the returned key
    /// (`fdp`: the nvme-cli shaped statistics and events); `None` for most mappers.
    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        None
    }

    fn resolved_config(&self) -> toml::Table;
}

/// Builds a mapper from its config table.
pub(crate) type BuildFn =
    fn(&toml::Table, &MapperContext) -> Result<Box<dyn StreamMapper>, SchemeConfigError>;

/// A mapper's registry entry: name, summary, knob table, build function.
pub(crate) type MapperInfo = crate::knobs::PolicyInfo<BuildFn>;

/// Every stream mapper a scenario may name (the integrity property test runs each one;
/// `ftlab mappers` lists them with their knobs).
pub const REGISTRY: &[MapperInfo] =
    &[legacy::INFO, direct::INFO, manual::INFO, dac::INFO, autostream::INFO, vstream::INFO, fdp::INFO];

/// The registry entry of the mapper called `name`.
pub(crate) fn info(name: &str) -> Option<&'static MapperInfo> {
    REGISTRY.iter().find(|p| p.name == name)
}

pub fn build(
    name: &str,
    config: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    match info(name) {
        Some(p) => (p.build)(config, ctx),
        None => Err(SchemeConfigError::new(
            "",
            format!("unknown stream mapper {name:?}; known: {}", crate::knobs::names(REGISTRY)),
        )),
    }
}

/// Virtual streams whose pages are counted one by one in the per-stream counters; pages of
/// higher ids are counted together in `vs_other_n_pages`.
pub(crate) const COUNTED_VIRTUAL_STREAMS: usize = 256;

/// Host pages written per virtual stream, counted when the unit lands (`on_placed`), not when
/// `host_stream` is asked: a write that stalls for space asks again when it resumes. The
/// virtual stream of the last `host_stream` call is kept until its unit lands.
#[derive(Clone, Debug)]
pub(crate) struct VirtualTally {
    /// (tenant, lpn, virtual stream) of the last `host_stream` call.
    pending: (u16, u32, u16),
    pub(crate) n_pages: Vec<u64>,
    pub(crate) other_n_pages: u64,
}

impl Default for VirtualTally {
    fn default() -> Self {
        VirtualTally {
            pending: (u16::MAX, u32::MAX, 0),
            n_pages: vec![0; COUNTED_VIRTUAL_STREAMS],
            other_n_pages: 0,
        }
    }
}

impl VirtualTally {
    /// Remember the virtual stream `host_stream` was asked about.
    #[inline]
    pub(crate) fn asked(&mut self, tenant: u16, lpn: u32, virtual_stream: u16) {
        self.pending = (tenant, lpn, virtual_stream);
    }

    /// The virtual stream of a host unit asked about last, if `(tenant, lpn)` is that unit.
    #[inline]
    pub(crate) fn pending(&self, tenant: u16, lpn: u32) -> Option<u16> {
        (self.pending.0 == tenant && self.pending.1 == lpn).then_some(self.pending.2)
    }

    /// A host unit landed: count it in its virtual stream. Returns that stream.
    #[inline]
    pub(crate) fn placed(&mut self, tenant: u16, lpn: u32) -> Option<u16> {
        let vs = self.pending(tenant, lpn)?;
        self.pending = (u16::MAX, u32::MAX, 0);
        match self.n_pages.get_mut(vs as usize) {
            Some(n) => *n += 1,
            None => self.other_n_pages += 1,
        }
        Some(vs)
    }

    /// `vs<i>_n_pages` for every counted virtual stream with pages, then `vs_other_n_pages`.
    pub(crate) fn counters(&self, out: &mut Counters) {
        for (vs, &n) in self.n_pages.iter().enumerate() {
            if n > 0 {
                out.push((counter_name(format!("vs{vs}_n_pages")), n as f64));
            }
        }
        out.push(("vs_other_n_pages", self.other_n_pages as f64));
    }
}
