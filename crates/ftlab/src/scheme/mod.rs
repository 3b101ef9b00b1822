//! Isolation and placement schemes (DESIGN §6) behind one trait, and the registry that
//! builds them by name. A scheme decides where each flash page is written, how a read is
//! served, which block GC takes and where its data goes, what happens at each epoch tick,
//! and whether a request is admitted. It never moves data or issues flash operations itself:
//! it answers the engine's questions and may push `Command`s (migrations, partial-GC steps,
//! parity programs) that the engine runs as jobs.
//!
//! The registry is the one place that knows every scheme: each entry (`SchemeInfo`, a file's
//! `INFO`) carries everything its scheme brings: name, summary, knobs, build, and its
//! `Capabilities` (label, real-time analysis, lifetime-model hook, whether the warm-up may run
//! it). Nothing outside a scheme's own files and this registry names a scheme
//! (`tests/python/test_scheme_names.py`). Adding a scheme = one file + one `REGISTRY` line
//! (docs/schemes/README.md).
//!
//! The `Scheme` trait holds what every scheme answers; what only some schemes have is a
//! capability sub-trait (`Stripes`, `WriteRoles`, `TenantSeries`) that a scheme exposes through
//! `Scheme::stripes` and the like. The engine asks `dyn Scheme`'s methods of the same names,
//! which answer as a scheme without the capability would when it is absent.

pub(crate) mod flashblox;
pub(crate) mod iod;
pub(crate) mod part_ftl;
pub(crate) mod partitioned;
pub(crate) mod plm;
pub(crate) mod rtgc;
pub(crate) mod swap;
pub(crate) mod swap_log;
pub(crate) mod unified;
pub(crate) mod upi;
pub(crate) mod wao_gc;

use crate::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
use crate::flash::timing::Timing;
use crate::ftl::gc::VictimPolicy;
use crate::policy::{Command, Counters, DeviceView, Interests, Invalidated, Placed, StripePages};
use crate::sim::time::SimTime;
use crate::workload::IoOp;

pub(crate) use crate::policy::{parse_config, to_table, EpochStats, SchemeConfigError};

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
    /// `ftl.gc_low_watermark_blocks`: below it the engine's own foreground GC runs.
    pub low_watermark_blocks: u32,
    /// Every tenant's periodic real-time tasks (`Scenario::rt_tasks`), for a scheme with an
    /// admission test (`part-ftl`, Eq. 6-7).
    pub tasks: &'a [crate::rt::Task],
    /// `ftl.scheduler` (`flashblox` isolates software vSSDs with `fair`).
    pub scheduler: crate::sched::SchedulerKind,
}

/// The real-time analyses' times for this device, in milliseconds (the `rt` unit): a page
/// read and a page program each with one page's transfer and the command cycles, and an erase
/// with its command (`part-ftl` and `rtgc` admission). On the Cosmos board (`timing.board`),
/// Table IV's condition instead (§V-A: "assuming other flash dies on the same way are busy"):
/// each the average latency of one such operation on every die of a channel at once
/// (`flash::board::analysis_times`), command cycles added.
pub(crate) fn analysis_times_ms(g: &Geometry, t: &Timing) -> (f64, f64, f64) {
    let ms = |x: SimTime| x.as_secs_f64() * 1e3;
    if let Some(b) = &t.board {
        let (r, w, e) = crate::flash::board::analysis_times(g, b, (t.read, t.program, t.erase));
        return (ms(r + t.command), ms(w + t.command), ms(e + t.command));
    }
    (
        ms(t.page_read(g.page_bytes) + t.command),
        ms(t.page_program(g.page_bytes) + t.command),
        ms(t.erase + t.command),
    )
}

/// How a host read of one flash page is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPlan {
    /// Read the page where it is.
    Direct,
    /// Rebuild it from the other pages of its parity stripe (PaRT-FTL): the scheme lists them
    /// through `stripe_members`. A member not yet programmed is taken from the write buffer.
    Rebuild,
    /// Serve it from the controller's write buffer, which still holds the page (PaRT-FTL keeps
    /// written pages there until their parity row is programmed): no flash read.
    Buffer,
}

/// Whether a request enters the device now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Admit,
    /// Hold it until `SimTime` (for example, the start of its task's next period).
    Defer(SimTime),
}

/// One isolation / placement scheme: a policy the engine tells (events, epochs) and asks
/// (where to write, how to read, which victim), and that may push `Command`s for the engine
/// to run as jobs. Hooks with defaults are the ones most schemes leave alone; see
/// `docs/ARCHITECTURE.md` for which scheme uses which. What only some schemes have is a
/// capability sub-trait the scheme returns from `stripes`, `write_roles` or `tenant_series`.
pub trait Scheme: Send {
    fn name(&self) -> &'static str;

    /// Which events this scheme wants (`on_placed`, `on_invalidated`, `on_erased`); asked
    /// once, so events nobody wants cost nothing.
    fn interests(&self) -> Interests {
        Interests::NONE
    }

    /// Whether this scheme keeps each tenant's data in blocks of its own: the FTL then keys
    /// its write frontiers by tenant, (tenant, stream, class, die). A scheme that answers false
    /// (`unified`) lets every tenant's units of one (stream, class) share each die's frontier,
    /// as a conventional SSD's one write point per die does; blocks then hold several tenants'
    /// data, and the scheme's hooks must expect that (a block's `owner` is only the tenant
    /// whose unit opened it). Frontiers are per tenant if the scheme, the stream mapper
    /// (`StreamMapper::frontier_per_tenant`) or `ftl.frontier_per_tenant` says so. Default
    /// true: the schemes that give tenants dies, sets or GC of their own, and any scheme that
    /// does not say otherwise.
    fn frontier_per_tenant(&self) -> bool {
        true
    }

    /// The die that takes the next host flash page of `tenant` (called once per page).
    fn host_write_die(&mut self, tenant: u16, stream: u8, view: &DeviceView) -> DieIdx;

    /// The die that takes a GC copy of `owner`'s data from a victim on `victim_die`, asked per
    /// copy where `gc_block_die` answers `None`.
    fn gc_write_die(&mut self, owner: u16, victim_die: DieIdx, view: &DeviceView) -> DieIdx {
        let _ = (owner, view);
        victim_die
    }

    /// The die that takes *every* GC copy of `owner`'s data from one victim block on
    /// `victim_die`, if it is one die for the whole block: asked once, when a job takes the
    /// block, instead of `gc_write_die` per copy. A scheme answers `Some(d)` only where its
    /// `gc_write_die` would answer `d` for each copy of the block whatever happens while the
    /// block is copied (host writes, epochs, other jobs' copies, simulated time passing):
    /// a function of its arguments and its fixed configuration. `None` (the default, always
    /// exact): the die may vary from copy to copy, and `gc_write_die` is asked for each. Not
    /// asked for a block of several tenants' data (`BlockInfo::multi_tenant`): each of its
    /// copies asks `gc_write_die` with its own tenant.
    fn gc_block_die(&self, owner: u16, victim_die: DieIdx) -> Option<DieIdx> {
        let _ = (owner, victim_die);
        None
    }

    /// The next GC victim on `die`; by default the scenario's policy.
    fn gc_victim(&self, die: DieIdx, view: &DeviceView, policy: VictimPolicy) -> Option<BlockIdx> {
        view.ftl.select_victim(die, policy, view.now)
    }

    /// The timed run starts (preconditioning, if any, is over).
    fn on_run_start(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let _ = (view, cmds);
    }

    /// The measured phase starts (after `measure.warmup_s`, or with the run): counters that
    /// describe the measured phase restart here.
    fn on_measure_start(&mut self, view: &DeviceView) {
        let _ = view;
    }

    /// Interval of `on_epoch`, or `None` for a scheme without epochs.
    fn epoch(&self) -> Option<SimTime> {
        None
    }

    /// Called every `epoch()`; `view.epoch` holds the counters of the epoch that just ended.
    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let _ = (view, cmds);
    }

    /// A unit was placed (host write or job copy); needs `interests().placed`.
    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        let _ = (view, ev, cmds);
    }

    /// A unit's data died; needs `interests().invalidated`.
    fn on_invalidated(&mut self, view: &DeviceView, ev: &Invalidated, cmds: &mut Vec<Command>) {
        let _ = (view, ev, cmds);
    }

    /// A block was erased; needs `interests().erased`.
    fn on_erased(&mut self, view: &DeviceView, block: BlockIdx, cmds: &mut Vec<Command>) {
        let _ = (view, block, cmds);
    }

    /// Whether a write that `admit` defers waits in its tenant's queue (counted in its queue
    /// depth, asked again when it reaches the head of the tenant's waiting writes) while the
    /// requests behind it go on; false: the tenant submits nothing until it is admitted.
    fn deferred_writes_wait_in_queue(&self) -> bool {
        false
    }

    /// Admission control of a host request (PaRT-FTL).
    fn admit(&mut self, tenant: u16, op: IoOp, view: &DeviceView) -> Admission {
        let _ = (tenant, op, view);
        Admission::Admit
    }

    /// The scheme's own counters for `summary.json` (`scheme_counters`), appended to `out`.
    fn counters(&self, out: &mut Counters) {
        let _ = out;
    }

    /// The scheme's config with every default filled in (for `scenario.resolved.toml`).
    fn resolved_config(&self) -> toml::Table;

    /// Its parity stripes, if it has any (PaRT-FTL).
    fn stripes(&self) -> Option<&dyn Stripes> {
        None
    }

    /// `stripes`, to record a stripe.
    fn stripes_mut(&mut self) -> Option<&mut dyn Stripes> {
        None
    }

    /// Its die roles and write buffer, if it has its own (PaRT-FTL).
    fn write_roles(&self) -> Option<&dyn WriteRoles> {
        None
    }

    /// Its extra per-tenant time-series columns, if any (UPI).
    fn tenant_series(&self) -> Option<&dyn TenantSeries> {
        None
    }

    /// Its windows without background work, if it has them (`iod`'s Deterministic Windows).
    fn background_windows(&self) -> Option<&dyn BackgroundWindows> {
        None
    }

    /// `background_windows`, for an excursion.
    fn background_windows_mut(&mut self) -> Option<&mut dyn BackgroundWindows> {
        None
    }
}

/// Windows in which a die runs no background work (NVMe Predictable Latency Mode's
/// Deterministic Windows, `iod`): the engine starts no job and dispatches no job operation
/// (GC, wear leveling, migration, parity) on a die that may not run them; host reads and host
/// programs go on.
pub trait BackgroundWindows {
    /// Whether `die` may run job operations now.
    fn may_run_jobs(&self, die: DieIdx) -> bool;

    /// `die` is down to its host reserve of free blocks and may not run jobs: the device must
    /// collect now (a deterministic excursion). Returns whether `die` may run jobs now.
    fn excursion(&mut self, die: DieIdx, now: SimTime) -> bool;
}

/// Parity stripes (PaRT-FTL, §III-C): host reads rebuilt from a stripe or served from the
/// write buffer, each stripe recorded when its parity page is placed, blocks a stripe pins
/// kept from static wear leveling.
pub trait Stripes {
    /// How to serve a host read of the page at `ppa`.
    fn read_plan(&self, ppa: Ppa, view: &DeviceView) -> ReadPlan;

    /// The parity page of `data` (from `Command::ProgramParity`) was placed at `parity`; its
    /// program is issued. A scheme that rebuilds reads records its stripe here.
    fn on_parity_placed(&mut self, data: &StripePages, parity: Ppa, view: &DeviceView);

    /// The pages to read to rebuild the page at `ppa` (its stripe peers and parity), for a
    /// scheme whose `read_plan` returns `Rebuild`. The integrity oracle checks that they give
    /// the page back (no member erased or rewritten since its parity was programmed).
    fn stripe_members(&self, ppa: Ppa, view: &DeviceView, out: &mut Vec<Ppa>);

    /// Whether static wear leveling may collect `block` (move its data and erase it); a scheme
    /// whose parity stripes pin blocks says no for them.
    fn may_level(&self, block: BlockIdx, view: &DeviceView) -> bool {
        let _ = (block, view);
        true
    }
}

/// Die roles and a write buffer of the scheme's own (PaRT-FTL's read and write dies, §III-A,
/// and its buffered writes, §V).
pub trait WriteRoles {
    /// Whether `die` may run programs, erases and job reads now; a die that may not runs host
    /// reads only, and the rest waits in its queue (PaRT-FTL's read dies, §III-A). A scheme
    /// that turns a die back on pushes `Command::Dispatch` for it.
    fn may_write(&self, die: DieIdx) -> bool;

    /// The write buffer this scheme needs, in mapping units, replacing
    /// `ftl.write_buffer_bytes` (PaRT-FTL: writes are buffered, §V); `None` keeps the
    /// scenario's.
    fn write_buffer_units(&self) -> Option<u64>;
}

/// Extra per-tenant time-series columns (UPI's allocation sets and utility).
pub trait TenantSeries {
    /// Names of the extra per-tenant time-series columns this scheme exposes.
    fn series_names(&self) -> &'static [&'static str];

    /// Values of `series_names()` for `tenant`, appended to `out`.
    fn series_values(&self, tenant: u16, view: &DeviceView, out: &mut Vec<f64>);
}

/// What the engine asks of any scheme, capability or not: a scheme without the capability
/// answers as the defaults say (read in place, every die may write, the scenario's buffer, no
/// extra columns).
impl<'a> dyn Scheme + 'a {
    pub(crate) fn read_plan(&self, ppa: Ppa, view: &DeviceView) -> ReadPlan {
        self.stripes().map_or(ReadPlan::Direct, |s| s.read_plan(ppa, view))
    }

    pub(crate) fn on_parity_placed(&mut self, data: &StripePages, parity: Ppa, view: &DeviceView) {
        if let Some(s) = self.stripes_mut() {
            s.on_parity_placed(data, parity, view);
        }
    }

    pub(crate) fn stripe_members(&self, ppa: Ppa, view: &DeviceView, out: &mut Vec<Ppa>) {
        match self.stripes() {
            Some(s) => s.stripe_members(ppa, view, out),
            None => {
                panic!("scheme {} asked to rebuild unit {} but has no parity stripes", self.name(), ppa.0)
            }
        }
    }

    pub(crate) fn may_level(&self, block: BlockIdx, view: &DeviceView) -> bool {
        self.stripes().is_none_or(|s| s.may_level(block, view))
    }

    pub(crate) fn may_write(&self, die: DieIdx) -> bool {
        self.write_roles().is_none_or(|w| w.may_write(die))
    }

    pub(crate) fn may_run_jobs(&self, die: DieIdx) -> bool {
        self.background_windows().is_none_or(|w| w.may_run_jobs(die))
    }

    pub(crate) fn excursion(&mut self, die: DieIdx, now: SimTime) -> bool {
        self.background_windows_mut().is_none_or(|w| w.excursion(die, now))
    }

    pub(crate) fn write_buffer_units(&self) -> Option<u64> {
        self.write_roles().and_then(|w| w.write_buffer_units())
    }

    pub(crate) fn series_names(&self) -> &'static [&'static str] {
        self.tenant_series().map_or(&[], |s| s.series_names())
    }

    pub(crate) fn series_values(&self, tenant: u16, view: &DeviceView, out: &mut Vec<f64>) {
        if let Some(s) = self.tenant_series() {
            s.series_values(tenant, view, out);
        }
    }
}

/// Builds a scheme from its config table.
pub(crate) type BuildFn = fn(&toml::Table, &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError>;

/// A scheme's registry entry: name, summary, knob table, build function, capabilities.
pub(crate) type SchemeInfo = crate::knobs::PolicyInfo<BuildFn, Capabilities>;

/// What a scheme brings besides its build: what the rest of ftlab asks the registry instead of
/// naming the scheme.
#[derive(Clone, Copy)]
pub struct Capabilities {
    /// The scheme's name in figures and tables ("PaRT-FTL").
    pub label: &'static str,
    /// Its real-time analysis with the paper's configuration (`ftlab rt admit`, Figures 5-7,
    /// Table IV); `None`: it has none.
    pub(crate) analysis: Option<fn() -> Box<dyn crate::rt::Analysis>>,
    /// Its part of the fast-forward lifetime model (`ftlab lifetime`): a scheme that swaps
    /// channels gives its swap rule and per-tenant loads; `None`: the model takes the run's
    /// per-channel rates and swaps nothing.
    pub lifetime: Option<swap::LifetimeHook>,
    /// Why the warm-up by workload (`precondition.mode = "workload"`, the instant executor)
    /// cannot run it, for a scheme whose state advances with simulated time only; `None`: it
    /// can.
    pub timed_only: Option<&'static str>,
}

impl Capabilities {
    /// A scheme with a label and nothing else.
    pub(crate) const fn labelled(label: &'static str) -> Capabilities {
        Capabilities { label, analysis: None, lifetime: None, timed_only: None }
    }
}

/// Every scheme a scenario may name (the integrity property test runs each one; `ftlab
/// schemes` lists them with their knobs).
pub const REGISTRY: &[SchemeInfo] = &[
    // First: the scheme a scenario without `schemes` runs (`scenario::raw`).
    unified::INFO,
    partitioned::INFO,
    upi::INFO,
    upi::GUARDED_INFO,
    wao_gc::INFO,
    flashblox::INFO,
    part_ftl::INFO,
    rtgc::INFO,
    iod::INFO,
];

/// The registry entry of the scheme called `name`.
pub fn info(name: &str) -> Option<&'static SchemeInfo> {
    REGISTRY.iter().find(|p| p.name == name)
}

/// Whether scheme `name` has the knob `key` (an array's `stagger` asks for a host window
/// schedule, `host_offset_ms`, without naming the scheme that has one).
pub(crate) fn has_knob(name: &str, key: &str) -> bool {
    info(name).is_some_and(|i| i.knobs.iter().any(|k| k.key == key))
}

/// Every scheme with a real-time analysis, with its analysis: those that control admission
/// first, then those whose test is information only, each group in registry order. This is
/// the order of `ftlab rt admit`'s schemes, of the series of Figures 5-7 and of Table IV.
pub fn analyses() -> Vec<(&'static SchemeInfo, Box<dyn crate::rt::Analysis>)> {
    let mut out: Vec<_> = REGISTRY.iter().filter_map(|s| s.caps.analysis.map(|a| (s, a()))).collect();
    out.sort_by_key(|(_, a)| !a.controls_admission());
    out
}

/// Build the scheme called `name`.
pub fn build(
    name: &str,
    config: &toml::Table,
    ctx: &SchemeContext,
) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    match info(name) {
        Some(p) => (p.build)(config, ctx),
        None => Err(SchemeConfigError::new(
            "",
            format!("unknown scheme {name:?}; known: {}", crate::knobs::names(REGISTRY)),
        )),
    }
}

/// Round-robin over a fixed list of dies.
#[derive(Clone, Debug)]
pub struct RoundRobin {
    pub(crate) dies: Vec<DieIdx>,
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
