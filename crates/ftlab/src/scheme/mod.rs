//! Isolation and placement schemes (DESIGN §6) behind one trait, and the registry that
//! builds them by name. A scheme decides where each flash page is written, how a read is
//! served, which block GC takes and where its data goes, what happens at each epoch tick,
//! and whether a request is admitted. It never moves data or issues flash operations itself:
//! it answers the simulation's questions. Adding a scheme = one file + one `REGISTRY` line.

pub mod partitioned;
pub mod unified;
pub mod upi;

use crate::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
use crate::flash::timing::Timing;
use crate::ftl::gc::VictimPolicy;
use crate::ftl::Ftl;
use crate::sim::time::SimTime;
use crate::workload::IoOp;

/// What a scheme is built from (besides its own config table).
#[derive(Clone, Copy, Debug)]
pub struct SchemeContext<'a> {
    pub geometry: &'a Geometry,
    /// Logical size of each tenant's namespace, in mapping units, in scenario order.
    pub namespace_units: &'a [u32],
    /// `device.over_provisioning`: (physical - logical) / logical.
    pub over_provisioning: f64,
    /// The device's flash timing (UPI's service times in Eq. 2).
    pub timing: Timing,
}

/// A scheme config value is wrong: `key` is relative to the scheme's table.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeConfigError {
    pub key: String,
    pub reason: String,
}

impl SchemeConfigError {
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        SchemeConfigError { key: key.into(), reason: reason.into() }
    }
}

/// How a host read of one flash page is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPlan {
    /// Read the page where it is.
    Direct,
    /// Rebuild it from the other pages of its parity stripe (PaRT-FTL): the scheme lists them
    /// through `stripe_members`.
    Rebuild,
}

/// Whether a request enters the device now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Admit,
    /// Hold it until `SimTime` (for example, the start of its task's next period).
    Defer(SimTime),
}

/// Counters the simulation collects over one epoch and hands to `Scheme::on_epoch`.
#[derive(Clone, Debug)]
pub struct EpochStats {
    pub n_dies: usize,
    /// Host flash reads per (tenant, die), row-major: `reads[tenant * n_dies + die]`.
    pub reads: Vec<u64>,
    /// Host units programmed per tenant.
    pub host_units: Vec<u64>,
    /// GC units copied per tenant (charged to the owner of the data).
    pub gc_units: Vec<u64>,
    /// Length of the epoch.
    pub window: SimTime,
}

impl EpochStats {
    pub fn new(n_tenants: usize, n_dies: usize) -> EpochStats {
        EpochStats {
            n_dies,
            reads: vec![0; n_tenants * n_dies],
            host_units: vec![0; n_tenants],
            gc_units: vec![0; n_tenants],
            window: SimTime::ZERO,
        }
    }

    pub fn reads_of(&self, tenant: usize, die: usize) -> u64 {
        self.reads[tenant * self.n_dies + die]
    }

    pub fn clear(&mut self) {
        self.reads.fill(0);
        self.host_units.fill(0);
        self.gc_units.fill(0);
    }
}

/// One isolation / placement scheme. Hooks with defaults are the ones most schemes leave
/// alone; see `docs/ARCHITECTURE.md` for which scheme uses which.
pub trait Scheme: Send {
    fn name(&self) -> &'static str;

    /// The die that takes the next host flash page of `tenant` (called once per page).
    fn host_write_die(&mut self, tenant: u16, stream: u8, ftl: &Ftl) -> DieIdx;

    /// The die that takes a GC copy of `owner`'s data from a victim on `victim_die`.
    fn gc_write_die(&mut self, owner: u16, victim_die: DieIdx, ftl: &Ftl) -> DieIdx {
        let _ = (owner, ftl);
        victim_die
    }

    /// How to serve a host read of the page at `ppa`.
    fn read_plan(&self, ppa: Ppa, ftl: &Ftl) -> ReadPlan {
        let _ = (ppa, ftl);
        ReadPlan::Direct
    }

    /// The pages to read to rebuild the page at `ppa` (its stripe peers and parity), for a
    /// scheme whose `read_plan` returns `Rebuild`.
    fn stripe_members(&self, ppa: Ppa, ftl: &Ftl, out: &mut Vec<Ppa>) {
        let _ = (ftl, out);
        panic!("scheme {} asked to rebuild unit {} but has no parity stripes", self.name(), ppa.0);
    }

    /// The next GC victim on `die`; by default the scenario's policy.
    fn gc_victim(&self, die: DieIdx, ftl: &Ftl, policy: VictimPolicy, now: SimTime) -> Option<BlockIdx> {
        ftl.select_victim(die, policy, now)
    }

    /// The timed run starts (preconditioning, if any, is over).
    fn on_run_start(&mut self, ftl: &Ftl) {
        let _ = ftl;
    }

    /// Interval of `on_epoch`, or `None` for a scheme without epochs.
    fn epoch(&self) -> Option<SimTime> {
        None
    }

    /// Called every `epoch()` with the counters of the epoch that just ended.
    fn on_epoch(&mut self, now: SimTime, stats: &EpochStats, ftl: &Ftl) {
        let _ = (now, stats, ftl);
    }

    /// Admission control of a host request (PaRT-FTL).
    fn admit(&mut self, tenant: u16, op: IoOp, now: SimTime) -> Admission {
        let _ = (tenant, op, now);
        Admission::Admit
    }

    /// Names of the extra per-tenant time-series columns this scheme exposes.
    fn series_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Values of `series_names()` for `tenant`, appended to `out`.
    fn series_values(&self, tenant: u16, ftl: &Ftl, out: &mut Vec<f64>) {
        let _ = (tenant, ftl, out);
    }

    /// The scheme's config with every default filled in (for `scenario.resolved.toml`).
    fn resolved_config(&self) -> toml::Table;
}

/// Builds a scheme from its config table.
pub type BuildFn = fn(&toml::Table, &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError>;

/// Every scheme a scenario may name.
pub const REGISTRY: &[(&str, BuildFn)] = &[("unified", unified::build), ("partitioned", partitioned::build), ("upi", upi::build)];

/// Build the scheme called `name`.
pub fn build(name: &str, config: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    match REGISTRY.iter().find(|(n, _)| *n == name) {
        Some((_, build)) => build(config, ctx),
        None => Err(SchemeConfigError::new(
            "",
            format!("unknown scheme {name:?}; known: {}", REGISTRY.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")),
        )),
    }
}

/// Deserialize a scheme's config struct from its table, with `deny_unknown_fields` errors
/// turned into `SchemeConfigError`.
pub fn parse_config<T: serde::de::DeserializeOwned>(table: &toml::Table) -> Result<T, SchemeConfigError> {
    T::deserialize(toml::Value::Table(table.clone())).map_err(|e| SchemeConfigError::new("", e.message().to_string()))
}

/// Serialize a config struct back to a table.
pub fn to_table<T: serde::Serialize>(config: &T) -> toml::Table {
    match toml::Value::try_from(config).expect("scheme config serializes") {
        toml::Value::Table(t) => t,
        other => panic!("scheme config serialized to {other:?}"),
    }
}

/// Round-robin over a fixed list of dies.
#[derive(Clone, Debug)]
pub struct RoundRobin {
    pub dies: Vec<DieIdx>,
    next: usize,
}

impl RoundRobin {
    pub fn new(dies: Vec<DieIdx>) -> RoundRobin {
        assert!(!dies.is_empty(), "round-robin over no dies");
        RoundRobin { dies, next: 0 }
    }

    pub fn next_die(&mut self) -> DieIdx {
        let die = self.dies[self.next];
        self.next = (self.next + 1) % self.dies.len();
        die
    }
}
