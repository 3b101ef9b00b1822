//! The engine's vocabulary, at the bottom of `simulation/`: events (`Event`), flash operations
//! (`FlashOp`, with their kind and their owner packed in 32 bits), a host request in flight
//! (`Request`) and the knobs resolved from the scenario (`Params`). Plain data: what the parts
//! do with them is theirs; this file imports no other file of `simulation/`.

use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::ftl::NONE;
use crate::host::HostRequest;
use crate::metrics::health::HealthLimits;
use crate::policy::OpClass;
use crate::scenario::Scenario;
use crate::sched::SchedOp;
use crate::sim::time::SimTime;

/// Units of a request whose mapping entries and locations are prefetched, at most (64 KiB of
/// 4 KiB units; a larger request's later units are not): by the warm-up and the timed run.
pub(super) const PREFETCH_UNITS_MAX: u32 = 16;

/// How far ahead of a GC read's units the P2L is prefetched: one cache line of entries.
pub(super) const PREFETCH_P2L_AHEAD_UNITS: u32 = 16;

/// `FlashOp::read_tag`'s top bit: a member read of a parity rebuild.
pub(super) const REBUILD_MEMBER: u16 = 1 << 15;

/// What happens at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    /// Tenant's next request is due.
    Arrival(u16),
    /// A die's array phase ended (die and generation, see `die_exec::array_done_tag`; stale after
    /// a suspension).
    ArrayDone(u32),
    /// A die's read transfer ended.
    XferDone(u32),
    /// A grant of the Cosmos board's way arbiter ended on this channel (`flash::board`).
    BusGrant(u32),
    /// A request served without flash completes.
    Complete(u32),
    /// The scheme's epoch tick.
    Epoch,
    /// The stream mapper's epoch tick.
    MapperEpoch,
    /// The measured phase starts (`measure.warmup_s`): counters restart.
    MeasureStart,
    /// A `[[measure.phases]]` entry starts / ends (index).
    PhaseStart(u16),
    PhaseEnd(u16),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpKind {
    Read,
    Program,
    Erase,
}

/// Who an operation belongs to; its completion dispatches on this. Stored in a `FlashOp`
/// packed into a `u32` (`OwnerCode`), which keeps operations at 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    /// A host request (slab index).
    Request(u32),
    /// A background job (slab index).
    Job(u32),
    /// A page of the write buffer (no request waits for it).
    Buffer,
    /// A preconditioning page (instant executor).
    Precondition,
}

/// An `Owner` in 32 bits: the kind in the top two bits, the slab index below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OwnerCode(u32);

const OWNER_TAG_SHIFT: u32 = 30;
const OWNER_ID_MASK: u32 = (1 << OWNER_TAG_SHIFT) - 1;

impl Owner {
    #[inline]
    pub(super) fn code(self) -> OwnerCode {
        let (tag, id) = match self {
            Owner::Request(id) => (0, id),
            Owner::Job(id) => (1, id),
            Owner::Buffer => (2, 0),
            Owner::Precondition => (3, 0),
        };
        assert!(id <= OWNER_ID_MASK, "owner index {id} does not fit in 30 bits");
        OwnerCode(tag << OWNER_TAG_SHIFT | id)
    }
}

impl OwnerCode {
    #[inline]
    pub(super) fn owner(self) -> Owner {
        let id = self.0 & OWNER_ID_MASK;
        match self.0 >> OWNER_TAG_SHIFT {
            0 => Owner::Request(id),
            1 => Owner::Job(id),
            2 => Owner::Buffer,
            _ => Owner::Precondition,
        }
    }
}

/// One flash operation in flight or queued.
#[derive(Clone, Copy, Debug)]
pub(super) struct FlashOp {
    pub(super) kind: OpKind,
    pub(super) class: OpClass,
    /// The tenant it is done for: a host operation's request's tenant, a copy's or parity
    /// program's data owner, 0 for a job's reads and erases (background classes: not looked
    /// up, the `fair` scheduler queues only host classes by tenant).
    pub(super) tenant: u16,
    pub(super) die: DieIdx,
    pub(super) block: BlockIdx,
    pub(super) page: u32,
    /// Units read, or real (not padding) units programmed.
    pub(super) n_units: u16,
    /// Host reads only (`die_exec`'s `STARTS_MASK`): the top bit marks a member read of a parity rebuild;
    /// the low 15 bits hold the die's count of program, erase and job operations started when
    /// the read was queued (wrapping), so that its start can tell whether one ran before it.
    pub(super) read_tag: u16,
    pub(super) owner: OwnerCode,
    /// Inherited from the request or job (`SimTime::MAX`: none).
    pub(super) deadline: SimTime,
}

impl FlashOp {
    /// A placeholder for the unused slots of a die's operation group.
    pub(super) const NONE: FlashOp = FlashOp {
        kind: OpKind::Erase,
        class: OpClass::Gc,
        tenant: 0,
        die: DieIdx(NONE),
        block: BlockIdx(NONE),
        page: 0,
        n_units: 0,
        read_tag: 0,
        owner: OwnerCode(3 << OWNER_TAG_SHIFT),
        deadline: SimTime::MAX,
    };
}

// Operations are copied through the scheduler's queues and the dies' groups: keep them small.
const _: () = assert!(std::mem::size_of::<FlashOp>() == 32);

impl FlashOp {
    #[inline]
    pub(super) fn owner(&self) -> Owner {
        self.owner.owner()
    }

    /// The program of `page` of `block` on `die` (`(block, page)` as `Placement::page_full`
    /// gives it), holding `n_units` real (not padding) units of `tenant`, for `owner`.
    #[inline]
    pub(super) fn program(
        class: OpClass,
        tenant: u16,
        die: DieIdx,
        (block, page): (BlockIdx, u32),
        n_units: u16,
        owner: Owner,
        deadline: SimTime,
    ) -> FlashOp {
        FlashOp {
            kind: OpKind::Program,
            class,
            tenant,
            die,
            block,
            page,
            n_units,
            read_tag: 0,
            owner: owner.code(),
            deadline,
        }
    }
}

impl SchedOp for FlashOp {
    #[inline]
    fn class(&self) -> OpClass {
        self.class
    }
    #[inline]
    fn deadline(&self) -> SimTime {
        self.deadline
    }
    #[inline]
    fn tenant(&self) -> u16 {
        self.tenant
    }
    /// A rebuild's member reads (PaRT-FTL §V: "to the front of the queue").
    #[inline]
    fn front(&self) -> bool {
        self.read_tag & REBUILD_MEMBER != 0
    }
}

/// One host request in flight.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub(super) tenant: u16,
    pub(super) req: HostRequest,
    /// Units placed so far (writes).
    pub(super) next_unit: u32,
    /// Outstanding flash reads, or units placed but not programmed (write-through).
    pub(super) pending: u32,
    /// Member reads of this request's parity rebuilds outstanding, and when they were issued
    /// (all at once, when the request started).
    pub(super) rebuild_pending: u32,
    pub(super) rebuild_at: SimTime,
    /// A write the scheme's admission deferred, parked in its tenant's stall queue so that the
    /// requests behind it go on (`Scheme::deferred_writes_wait_in_queue`): asked again when it
    /// reaches the queue's head. False for every other request.
    pub(super) parked: bool,
}

/// Knobs the loop needs, resolved from the scenario.
#[derive(Clone, Debug)]
pub(super) struct Params {
    pub(super) low_watermark: u32,
    pub(super) high_watermark: u32,
    pub(super) reserve: u32,
    pub(super) background_gc: bool,
    pub(super) policy: crate::ftl::gc::VictimPolicy,
    pub(super) static_gap: u32,
    /// Write-buffer capacity in units; 0 = write-through.
    pub(super) buffer_units: u64,
    pub(super) dram_latency: SimTime,
    pub(super) multi_plane: bool,
    pub(super) suspend: bool,
    /// `device.background_free`: job operations take no time.
    pub(super) background_free: bool,
    pub(super) warmup: SimTime,
    pub(super) end: Option<SimTime>,
    /// `measure.starvation_wait_s` and `measure.backlog_queue_depths_max`.
    pub(super) health: HealthLimits,
    /// Simulated time one unit takes at the device's program bandwidth (preconditioning's
    /// write stamps, see `precondition`).
    pub(super) unit_program_ns: i64,
}

impl Params {
    pub(super) fn of(s: &Scenario) -> Params {
        let g = s.geometry();
        let t = s.timing();
        Params {
            low_watermark: s.ftl.gc_low_watermark_blocks,
            high_watermark: s.ftl.gc_high_watermark_blocks,
            reserve: s.ftl.gc_reserve_blocks,
            background_gc: s.ftl.background_gc,
            policy: s.ftl.gc_policy,
            static_gap: s.ftl.static_wear_leveling_gap,
            buffer_units: s.ftl.write_buffer_bytes / g.unit_bytes as u64,
            dram_latency: SimTime::from_secs_f64(s.ftl.dram_latency_us / 1e6),
            multi_plane: s.device.multi_plane,
            suspend: s.device.program_erase_suspend,
            background_free: s.device.background_free,
            warmup: SimTime::from_secs_f64(s.measure.warmup_s),
            end: s.measure.duration_s.map(SimTime::from_secs_f64),
            health: HealthLimits {
                starvation_wait: SimTime::from_secs_f64(s.measure.starvation_wait_s),
                backlog_queue_depths_max: s.measure.backlog_queue_depths_max,
            },
            unit_program_ns: (t.program.ns() / (g.n_dies as u64 * g.units_per_page as u64)).max(1) as i64,
        }
    }
}
