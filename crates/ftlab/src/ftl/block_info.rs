//! What one erase block is: its state (`BlockInfo`), its life cycle (`BlockState`) and the
//! class of data it takes (`WriteClass`). Plain data with accessors; the table of every block,
//! its pools and its GC keys are `ftl::blocks`, which the victim index (`ftl::victim_index`)
//! reads these types from too. Not a table, not a policy.

/// "No tenant" in `BlockInfo::owner`.
pub(crate) const OWNER_NONE: u16 = u16::MAX;

/// Life cycle of a block: Free -> Open (a frontier writes it) -> Full -> Victim (GC is
/// moving its data out) -> erased -> Free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Open,
    Full,
    Victim,
}

/// Whether a block takes host writes or GC copies (they never share a block: each class has
/// frontiers of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WriteClass {
    Host = 0,
    Gc = 1,
    /// Parity pages (no logical data: every unit of them is invalid to GC).
    Parity = 2,
}

/// Number of `WriteClass`es.
pub(crate) const N_WRITE_CLASSES: usize = 3;

impl WriteClass {
    pub(crate) const ALL: [WriteClass; N_WRITE_CLASSES] =
        [WriteClass::Host, WriteClass::Gc, WriteClass::Parity];
}

/// State of one erase block.
#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    pub(crate) state: BlockState,
    /// Tenant whose data the block holds, `OWNER_NONE` when free. Where frontiers are shared
    /// by tenants (`FtlParams::frontier_per_tenant` false) a block may hold several tenants'
    /// data: `owner` is then the tenant whose unit opened it, and `multi_tenant` says whether
    /// another tenant's unit was written into it since (the FTL's `unit_tenant` names each
    /// unit's tenant).
    pub(crate) owner: u16,
    /// Units of more than one tenant were handed out in this block since its last erase
    /// (set at allocation, so O(1) per erase to count; padding is no tenant's).
    pub(crate) multi_tenant: bool,
    /// Physical stream of the frontier that wrote it.
    pub(crate) stream: u8,
    pub(crate) class: WriteClass,
    /// Mapping units that hold the latest version of some logical page.
    pub(crate) valid_units: u32,
    /// Mapping units handed out (written or padded) since the last erase.
    pub(crate) write_ptr: u32,
    /// Flash pages whose program has completed; pages are programmed in order.
    pub(crate) programmed_pages: u32,
    pub(crate) erase_count: u32,
    /// Host reads served from this block since it was last written from empty.
    pub(crate) read_count: u32,
    /// Write stamp of the last unit handed out, in ns relative to the start of the timed run
    /// (negative for preconditioning writes, see `simulation::precondition`): the block's
    /// age for cost-benefit GC is `now - last_write_ns`.
    pub(crate) last_write_ns: i64,
}

impl BlockInfo {
    pub(crate) const FREE: BlockInfo = BlockInfo {
        state: BlockState::Free,
        owner: OWNER_NONE,
        multi_tenant: false,
        stream: 0,
        class: WriteClass::Host,
        valid_units: 0,
        write_ptr: 0,
        programmed_pages: 0,
        erase_count: 0,
        read_count: 0,
        last_write_ns: 0,
    };

    /// Its state (free, open, full).
    pub fn state(&self) -> BlockState {
        self.state
    }

    /// Tenant whose data the block holds, `OWNER_NONE` when free.
    pub fn owner(&self) -> u16 {
        self.owner
    }

    /// Whether units of more than one tenant were written into it since its last erase.
    pub fn multi_tenant(&self) -> bool {
        self.multi_tenant
    }

    /// Physical stream of the frontier that wrote it.
    pub fn stream(&self) -> u8 {
        self.stream
    }

    /// Mapping units that hold the latest version of some logical page.
    pub fn valid_units(&self) -> u32 {
        self.valid_units
    }

    /// Mapping units handed out (written or padded) since the last erase.
    pub fn write_ptr(&self) -> u32 {
        self.write_ptr
    }

    /// Erases of the block so far.
    pub fn erase_count(&self) -> u32 {
        self.erase_count
    }

    /// Write stamp of the last unit handed out, in ns relative to the start of the timed run.
    pub fn last_write_ns(&self) -> i64 {
        self.last_write_ns
    }
}
