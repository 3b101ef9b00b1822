//! What a policy (a `Scheme` or a `StreamMapper`) sees of the device and what it may ask the
//! engine to do (DESIGN §11): the read-only `DeviceView`, the events the engine delivers
//! (`Placed`, `Invalidated`, erases), the per-epoch counters (`EpochStats`), the scheduler
//! classes of flash operations (`OpClass`), the kinds of background jobs (`JobKind`) and the
//! `Command`s a hook may push. Plain data only: it runs nothing and decides nothing. The
//! engine (`simulation`) builds views, delivers events and turns commands into jobs.

use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::Ftl;
use crate::sim::time::SimTime;

/// Scheduler class of a flash operation. The scheduler maps classes to queues by a table
/// (`sched::ClassTable`), so a new class is one more row, not a new hard-wired queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpClass {
    HostRead = 0,
    HostWrite = 1,
    /// GC and static wear leveling (reads, copies, erases).
    Gc = 2,
    /// Migration jobs (moving a set of blocks elsewhere: swaps, relocation).
    Migrate = 3,
    /// Parity programs.
    Parity = 4,
}

/// Number of `OpClass`es.
pub(crate) const N_CLASSES: usize = 5;

/// What a background job does. Every background flash operation belongs to a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum JobKind {
    /// Collect one victim block: copy its valid units, erase it.
    Gc = 0,
    /// Static wear leveling: collect a cold block so it returns to the pool.
    WearLevel = 1,
    /// Move every valid unit of a list of blocks to a destination, erasing each source.
    Migrate = 2,
    /// Program one parity page.
    Parity = 3,
}

/// Number of `JobKind`s.
pub(crate) const N_JOB_KINDS: usize = 4;

impl JobKind {
    pub(crate) const ALL: [JobKind; N_JOB_KINDS] =
        [JobKind::Gc, JobKind::WearLevel, JobKind::Migrate, JobKind::Parity];

    pub(crate) fn name(self) -> &'static str {
        match self {
            JobKind::Gc => "gc",
            JobKind::WearLevel => "wear_level",
            JobKind::Migrate => "migrate",
            JobKind::Parity => "parity",
        }
    }

    /// The scheduler class of this job's operations.
    pub(crate) fn class(self) -> OpClass {
        match self {
            JobKind::Gc | JobKind::WearLevel => OpClass::Gc,
            JobKind::Migrate => OpClass::Migrate,
            JobKind::Parity => OpClass::Parity,
        }
    }
}

/// What one die is doing right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DieStatus {
    /// Class of the operation the die executes (array or transfer phase), if any.
    pub(crate) busy: Option<OpClass>,
    /// Kind of the job that holds the die's collector slot (it is moving a source block of
    /// this die), if any.
    pub(crate) job: Option<JobKind>,
    /// Programs, erases and job reads queued at the die or running on it (every operation but
    /// a host read): a scheme that moves its write dies waits for them to drain (`part-ftl`).
    pub(crate) writes_queued: u32,
}

impl DieStatus {
    pub const IDLE: DieStatus = DieStatus { busy: None, job: None, writes_queued: 0 };
}

/// Counters of the current epoch (since the last scheme epoch tick). Host reads per (tenant,
/// die), host and GC units per tenant, erases per die.
#[derive(Clone, Debug)]
pub struct EpochStats {
    pub(crate) n_dies: usize,
    /// Host flash reads per (tenant, die), row-major: `reads[tenant * n_dies + die]`.
    pub reads: Vec<u64>,
    /// Host units programmed per tenant.
    pub host_units: Vec<u64>,
    /// GC units copied per tenant (charged to the owner of the data).
    pub gc_units: Vec<u64>,
    /// Blocks erased per die.
    pub(crate) erases: Vec<u64>,
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
            erases: vec![0; n_dies],
            window: SimTime::ZERO,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.reads.fill(0);
        self.host_units.fill(0);
        self.gc_units.fill(0);
        self.erases.fill(0);
    }
}

/// The read-only view of the device a policy hook receives.
#[derive(Clone, Copy)]
pub struct DeviceView<'a> {
    pub ftl: &'a Ftl,
    pub(crate) now: SimTime,
    /// Per die: what it executes and which job holds it.
    pub(crate) dies: &'a [DieStatus],
    /// The counters of the epoch in progress.
    pub(crate) epoch: &'a EpochStats,
}

impl<'a> DeviceView<'a> {
    pub fn new(ftl: &'a Ftl, now: SimTime, dies: &'a [DieStatus], epoch: &'a EpochStats) -> DeviceView<'a> {
        assert_eq!(dies.len(), ftl.geometry.n_dies as usize, "one status per die");
        DeviceView { ftl, now, dies, epoch }
    }

    /// Whether `die` is executing an operation.
    pub fn is_busy(&self, die: DieIdx) -> bool {
        self.dies[die.0 as usize].busy.is_some()
    }

    /// Whether `die` executes an operation of a job (GC, wear leveling, migration, parity).
    pub fn runs_job_op(&self, die: DieIdx) -> bool {
        matches!(self.dies[die.0 as usize].busy, Some(OpClass::Gc | OpClass::Migrate | OpClass::Parity))
    }

    /// Whether a GC or wear-leveling job is collecting a block of `die`.
    pub fn is_collecting(&self, die: DieIdx) -> bool {
        matches!(self.dies[die.0 as usize].job, Some(JobKind::Gc | JobKind::WearLevel))
    }
}

/// Why a unit stopped holding the latest version of its logical page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The host wrote the logical page again.
    Overwrite,
    /// The host trimmed it.
    Trim,
    /// A job (GC, wear leveling, migration) copied it elsewhere.
    Moved,
}

/// A unit was handed a physical location (host write, or a job's copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub tenant: u16,
    pub lpn: u32,
    pub ppa: Ppa,
    pub stream: u8,
    pub class: WriteClass,
}

/// A unit's data died (see `Cause`). Its block's write stamp (`BlockInfo::last_write_ns`)
/// and `DeviceView::now` give a policy its lifetime at the block's granularity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invalidated {
    pub tenant: u16,
    pub lpn: u32,
    pub ppa: Ppa,
    pub cause: Cause,
}

/// Which events a policy wants (asked once, at build); events nobody wants cost nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Interests {
    pub placed: bool,
    pub invalidated: bool,
    pub erased: bool,
}

impl Interests {
    pub const NONE: Interests = Interests { placed: false, invalidated: false, erased: false };

    pub(crate) fn or(self, o: Interests) -> Interests {
        Interests {
            placed: self.placed || o.placed,
            invalidated: self.invalidated || o.invalidated,
            erased: self.erased || o.erased,
        }
    }
}

/// Where a job's copies go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dest {
    /// Where the scheme's `gc_write_die` says (GC's rule).
    Scheme,
    /// Round-robin over these dies, skipping a die whose free blocks are down to the host
    /// reserve; if every one is, the copy stays on the source block's die (counted in the
    /// job counters as `fallback_copies`).
    Dies(Vec<DieIdx>),
}

/// A migration: move every valid unit of `blocks`, one block at a time, then erase it (or,
/// with `erase_sources` false, leave it full of dead data for a later GC to erase: a scheme
/// whose parity stripes still need the old pages, such as `part-ftl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    pub blocks: Vec<BlockIdx>,
    pub dest: Dest,
    pub erase_sources: bool,
    /// Page reads of the job in flight at once, >= 1 (the migration's rate limit).
    pub reads_in_flight_max: u32,
    /// Deadline its operations carry (EDF); `SimTime::MAX` for none.
    pub deadline: SimTime,
}

/// Work a policy hook asks the engine to start. The engine turns each into a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Migrate(Migration),
    /// Run (or continue) GC on `die` for at most `pages` more victim page reads, then pause
    /// (partial GC). Starts a GC job with the scheme's victim if the die has none.
    StepGc {
        die: DieIdx,
        pages: u32,
    },
    /// A partial-GC step of at most `pages` victim page reads and their copies, or the
    /// victim's erase alone, that runs right after a host program on `die` with that program
    /// as one non-preemptive unit: from the program's start to the step's last operation the
    /// die runs nothing else, so a host read queued meanwhile waits for the whole unit
    /// (WAO-GC as the PaRT-FTL paper analyses it, Eq. 13-14; `simulation/step_unit.rs`).
    /// Starts a GC job with the scheme's victim if the die has none.
    StepGcUnit {
        die: DieIdx,
        pages: u32,
    },
    /// Program one parity page on `die` through `tenant`'s parity frontier of `stream`: the
    /// XOR of the data pages `data`, which must be wholly written. The engine tells the scheme
    /// where it went (`Scheme::on_parity_placed`); the integrity oracle seals it.
    ProgramParity {
        tenant: u16,
        stream: u8,
        die: DieIdx,
        data: StripePages,
    },
    /// `die` may now run operations it held back (`Scheme::may_write` turned true): start its
    /// next queued operation if it is idle.
    Dispatch {
        die: DieIdx,
    },
    /// Close open `block`, a frontier block whose writer has left its die (a channel swap,
    /// `flashblox`): it becomes full at its write pointer, its unwritten pages given up
    /// (`Ftl::close_block`), so GC and migrations may take it. It must be closable when the
    /// command is applied (`Ftl::is_closable`): push it before any command that may write.
    CloseBlock {
        block: BlockIdx,
    },
}

/// Most data pages one parity page covers.
pub const STRIPE_PAGES_MAX: usize = 15;

/// The data pages a parity page covers, each named by one of its units; fixed capacity, so a
/// parity command allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StripePages {
    pages: [Ppa; STRIPE_PAGES_MAX],
    n_pages: u8,
}

impl StripePages {
    /// `pages`: 1 to `STRIPE_PAGES_MAX` data pages.
    pub fn new(pages: &[Ppa]) -> StripePages {
        assert!(
            !pages.is_empty() && pages.len() <= STRIPE_PAGES_MAX,
            "a stripe of {} data pages",
            pages.len()
        );
        let mut out = StripePages { pages: [Ppa(0); STRIPE_PAGES_MAX], n_pages: pages.len() as u8 };
        out.pages[..pages.len()].copy_from_slice(pages);
        out
    }

    pub fn as_slice(&self) -> &[Ppa] {
        &self.pages[..self.n_pages as usize]
    }
}

/// A policy config value is wrong (a scheme's or a stream mapper's): `key` is relative to
/// the policy's table.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeConfigError {
    pub key: String,
    pub reason: String,
}

impl SchemeConfigError {
    pub(crate) fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        SchemeConfigError { key: key.into(), reason: reason.into() }
    }
}

/// Deserialize a policy's config struct from its table, with `deny_unknown_fields` errors
/// turned into `SchemeConfigError`.
pub(crate) fn parse_config<T: serde::de::DeserializeOwned>(
    table: &toml::Table,
) -> Result<T, SchemeConfigError> {
    serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
        // The path of the key at fault ("" for the table itself, e.g. an unknown key).
        let path = e.path().to_string();
        let key = if path == "." { String::new() } else { path };
        SchemeConfigError::new(key, e.inner().message().to_string())
    })
}

/// Serialize a config struct back to a table.
pub(crate) fn to_table<T: serde::Serialize>(config: &T) -> toml::Table {
    match toml::Value::try_from(config).expect("policy config serializes") {
        toml::Value::Table(t) => t,
        other => panic!("policy config serialized to {other:?}"),
    }
}

/// A policy's own counters for `summary.json`: (name, value) pairs in a fixed order.
pub(crate) type Counters = Vec<(&'static str, f64)>;

/// A counter name made at run time (per-stream counters: `vs3_n_pages`; per-set counters:
/// `set0_status`), interned so that `Counters` keeps its `&'static str` names. Each distinct
/// name is leaked once per process (a bounded set: streams or sets x counter kinds); called
/// from `counters()` only, never per write.
pub(crate) fn counter_name(name: String) -> &'static str {
    use std::collections::BTreeMap;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<BTreeMap<String, &'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(|| Mutex::new(BTreeMap::new())).lock().expect("counter names lock");
    if let Some(n) = names.get(&name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
    names.insert(name, leaked);
    leaked
}
