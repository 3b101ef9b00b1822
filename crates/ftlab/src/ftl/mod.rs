//! The page-mapped FTL shared by every scheme (DESIGN §5): per-namespace L2P, a global P2L,
//! block state, write frontiers keyed by (stream, class, die) and, where the policies separate
//! tenants (`FtlParams::frontier_per_tenant`), by tenant, GC victim selection, wear leveling
//! and the integrity oracle. It decides nothing about *where* data goes: the
//! caller passes the die a scheme chose. It has no notion of time beyond stamps it is given,
//! and it issues no flash operations (the simulation does; `copy` marks the pages it fills
//! programmed, for the executor whose programs complete at once).

pub(crate) mod block_info;
pub(crate) mod blocks;
pub(crate) mod copy;
pub(crate) mod gc;
pub(crate) mod oracle;
pub(crate) mod table;
pub(crate) mod victim_index;

use crate::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
use crate::sim::time::SimTime;
use blocks::{BlockState, Blocks, WriteClass, N_WRITE_CLASSES, OWNER_NONE};
use gc::VictimPolicy;
use oracle::Oracle;
use table::UnitTable;

/// "Unmapped" / "none" in the flat u32 tables.
pub const NONE: u32 = u32::MAX;

/// Which frontier a unit is written through, and whose unit it is: `tenant` picks the frontier
/// only where frontiers are per tenant (`FtlParams::frontier_per_tenant`); otherwise every
/// tenant's units of one (stream, class) share the die's frontier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontierKey {
    pub tenant: u16,
    pub stream: u8,
    pub class: WriteClass,
}

/// A die has no free block a writer of this class may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSpace(pub DieIdx);

/// Where one unit went, and the flash page it completed, if any (ready to program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub ppa: Ppa,
    pub page_full: Option<(BlockIdx, u32)>,
}

/// One unit `hand_out` gave: where, the page it completed (to program) and whether it filled
/// its block.
#[derive(Clone, Copy, Debug)]
struct HandOut {
    ppa: Ppa,
    page_full: Option<u32>,
    full: bool,
}

/// Static parameters of the FTL.
#[derive(Clone, Debug)]
pub struct FtlParams {
    pub namespace_units: Vec<u32>,
    pub physical_streams: u8,
    /// Host writes may not take a die's last `host_reserve_blocks` free blocks (kept for GC).
    pub host_reserve_blocks: u32,
    pub dynamic_wear_leveling: bool,
    pub integrity: bool,
    /// Planes a frontier stripes its pages over (1, or the die's planes for multi-plane
    /// operations: page k goes to plane 0's block, then plane 1's, ..., then page k + 1).
    pub frontier_planes: u32,
    /// Write frontiers keyed by tenant, (tenant, stream, class, die): a block then only ever
    /// holds one tenant's data. False: one frontier per (stream, class, die) shared by every
    /// tenant, as in a conventional SSD, whose host write point per die takes whatever the
    /// host writes (GC copies still go to frontiers of their own class, which all tenants'
    /// copies share too). The engine sets it from `ftl.frontier_per_tenant` and the policies
    /// (`Scheme::frontier_per_tenant`, `StreamMapper::frontier_per_tenant`).
    pub frontier_per_tenant: bool,
}

/// Mapping, blocks and frontiers of the whole device.
#[derive(Clone, Debug)]
pub struct Ftl {
    pub geometry: Geometry,
    pub params: FtlParams,
    /// Block state (private: valid counts and greedy keys must stay in step with P2L).
    blocks: Blocks,
    /// Per tenant: logical page -> `Ppa` or `NONE`.
    l2p: Vec<UnitTable>,
    /// Per physical unit: logical page of the unit's tenant (`unit_tenant`), or `NONE` if
    /// invalid.
    p2l: UnitTable,
    /// Per physical unit handed out since its block's last erase: the tenant whose unit it is
    /// (`OWNER_NONE`: never handed out to a tenant). Empty where frontiers are per tenant or
    /// there is one tenant: every unit is then its block owner's.
    unit_tenant: Vec<u16>,
    /// Open block per (slot, stream, class, die, plane), or `NONE`; the slot is the tenant
    /// where frontiers are per tenant, else 0 (`frontier_slot`).
    frontiers: Vec<u32>,
    /// Per (slot, stream, class, die): the plane whose block takes the next page.
    plane_cursor: Vec<u8>,
    /// Die of the partly filled host page per (slot, stream), or `NONE`.
    host_cursor: Vec<u32>,
    /// Valid units per (tenant, die), row-major by tenant (for placement metrics).
    valid_by_tenant_die: Vec<u64>,
    oracle: Option<Oracle>,
    /// The geometry's divisors as shifts where they are powers of two (`Div`).
    div: Divisors,
}

/// A divisor of the hot paths' address arithmetic, as a shift when it is a power of two:
/// `x / d` is then `x >> shift`, the same value without a division instruction (tens of
/// cycles, several per GC copy), else the division itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Div {
    d: u32,
    shift: u32,
}

impl Div {
    pub(crate) fn new(d: u32) -> Div {
        assert!(d > 0, "a divisor of zero");
        Div { d, shift: if d.is_power_of_two() { d.trailing_zeros() } else { u32::MAX } }
    }

    #[inline(always)]
    pub(crate) fn div(self, x: u32) -> u32 {
        if self.shift != u32::MAX {
            x >> self.shift
        } else {
            x / self.d
        }
    }

    /// Whether `x` is a multiple of the divisor.
    #[inline(always)]
    pub(crate) fn divides(self, x: u32) -> bool {
        if self.shift != u32::MAX {
            x & (self.d - 1) == 0
        } else {
            x.is_multiple_of(self.d)
        }
    }
}

/// The geometry's divisors on the hot paths.
#[derive(Clone, Copy, Debug)]
struct Divisors {
    units_per_block: Div,
    blocks_per_die: Div,
    units_per_page: Div,
}

impl Ftl {
    pub fn new(geometry: Geometry, params: FtlParams) -> Ftl {
        let n_tenants = params.namespace_units.len();
        let n_slots = if params.frontier_per_tenant { n_tenants } else { 1 };
        let n_keys = n_slots * params.physical_streams as usize * N_WRITE_CLASSES;
        let oracle = params
            .integrity
            .then(|| Oracle::new(&params.namespace_units, geometry.n_units(), geometry.units_per_page));
        assert!((1..=crate::flash::geometry::PLANES_MAX.min(geometry.planes_per_die))
            .contains(&params.frontier_planes));
        Ftl {
            blocks: Blocks::new(
                &geometry,
                params.dynamic_wear_leveling,
                if params.frontier_planes > 1 { geometry.planes_per_die } else { 1 },
            ),
            l2p: params.namespace_units.iter().map(|&n| UnitTable::nothing(n as usize)).collect(),
            p2l: UnitTable::nothing(geometry.n_units() as usize),
            // One tenant's units are all its own: its blocks' owner says whose a unit is, and
            // the 2 B per unit are not spent (the bench's single-tenant cases stay in memory).
            unit_tenant: if params.frontier_per_tenant || n_tenants == 1 {
                Vec::new()
            } else {
                vec![OWNER_NONE; geometry.n_units() as usize]
            },
            frontiers: vec![NONE; n_keys * geometry.n_dies as usize * params.frontier_planes as usize],
            plane_cursor: vec![0; n_keys * geometry.n_dies as usize],
            host_cursor: vec![NONE; n_slots * params.physical_streams as usize],
            valid_by_tenant_die: vec![0; n_tenants * geometry.n_dies as usize],
            oracle,
            div: Divisors {
                units_per_block: Div::new(geometry.units_per_block),
                blocks_per_die: Div::new(geometry.blocks_per_die),
                units_per_page: Div::new(geometry.units_per_page),
            },
            geometry,
            params,
        }
    }

    pub fn n_tenants(&self) -> usize {
        self.l2p.len()
    }

    /// Every block's state (read-only: changes go through the FTL's methods).
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// The physical unit holding `lpn` of `tenant`, without an oracle check (`NONE` if unmapped).
    pub fn l2p(&self, tenant: u16, lpn: u32) -> u32 {
        self.l2p[tenant as usize].get(lpn as usize)
    }

    /// The logical page unit `ppa` holds for its tenant (`unit_tenant`), or `NONE` if it is
    /// invalid.
    pub fn p2l(&self, ppa: Ppa) -> u32 {
        self.p2l.get(ppa.0 as usize)
    }

    /// The tenant whose unit `ppa` is (handed out since its block's last erase): its block's
    /// owner where frontiers are per tenant, else the tenant it was allocated to
    /// (`OWNER_NONE` for padding).
    #[inline]
    pub fn unit_tenant(&self, ppa: Ppa) -> u16 {
        match self.unit_tenant.get(ppa.0 as usize) {
            Some(&t) => t,
            None => self.blocks.get(self.block_of(ppa)).owner,
        }
    }

    /// The frontier slot of `tenant`'s units: the tenant where frontiers are per tenant, else
    /// 0 (every tenant shares the frontiers). Host pages filling through one frontier are
    /// tracked per (slot, stream).
    #[inline]
    pub(crate) fn frontier_slot(&self, tenant: u16) -> u16 {
        if self.params.frontier_per_tenant {
            tenant
        } else {
            0
        }
    }

    /// Valid units among the `n` from `first` (a page or a block): those with a P2L entry.
    pub(crate) fn valid_in_range(&self, first: Ppa, n: u32) -> u32 {
        self.p2l.count_some(first.0 as usize, n as usize) as u32
    }

    /// The oracle (when on) records that the page holding `parity` was programmed as the
    /// parity of `data`.
    pub(crate) fn oracle_seal_parity(&mut self, parity: Ppa, data: &[Ppa]) {
        if let Some(o) = &mut self.oracle {
            o.seal_parity(parity, data);
        }
    }

    /// The oracle (when on) checks that reading `members` rebuilds the page holding `target`.
    pub(crate) fn oracle_check_rebuild(&mut self, target: Ppa, members: &[Ppa]) {
        if let Some(o) = &mut self.oracle {
            o.check_rebuild(target, members);
        }
    }

    /// Reads and GC copies the integrity oracle has checked (0 when it is off).
    pub(crate) fn oracle_checks(&self) -> u64 {
        self.oracle.as_ref().map_or(0, |o| o.checks)
    }

    /// A host read was served from `block` (read-aware relocation counts these).
    pub fn note_read(&mut self, block: BlockIdx) {
        self.blocks.note_read(block);
    }

    /// Units of `tenant` that hold the latest version of some logical page and lie on `die`.
    pub fn valid_units_on(&self, tenant: u16, die: DieIdx) -> u64 {
        self.valid_by_tenant_die[tenant as usize * self.geometry.n_dies as usize + die.0 as usize]
    }

    /// The die holding the partly filled host page of `tenant`'s frontier of `stream` (shared
    /// with the other tenants unless frontiers are per tenant), if any: the next host unit
    /// through that frontier must go there so pages fill before a new die is chosen.
    pub(crate) fn host_cursor(&self, tenant: u16, stream: u8) -> Option<DieIdx> {
        let c = self.host_cursor[self.cursor_idx(tenant, stream)];
        (c != NONE).then_some(DieIdx(c))
    }

    /// Hand out the next unit of `key`'s frontier on `die` (opening a block if needed),
    /// stamping the block with `stamp_ns` (see `BlockInfo::last_write_ns`).
    pub fn allocate(&mut self, key: FrontierKey, die: DieIdx, stamp_ns: i64) -> Result<Placement, NoSpace> {
        let (plane, block) = if self.params.frontier_planes == 1 {
            (0, self.open_block(key, die, 0)?)
        } else {
            self.open_block_any_plane(key, die)?
        };
        let unit = self.hand_out(key, die, plane, block, stamp_ns);
        let placed = self.handed_out(key, die, block, unit);
        if key.class == WriteClass::Host {
            let idx = self.cursor_idx(key.tenant, key.stream);
            self.host_cursor[idx] = if placed.page_full.is_some() { NONE } else { die.0 };
        }
        Ok(placed)
    }

    /// `allocate` of a host unit of `key` where its frontier has a partly filled page
    /// (`host_cursor`): the unit goes to that page, in the frontier's block (open: its page is
    /// partly filled), without `allocate`'s open-block check. `None`: no partial page (ask
    /// `allocate` with a die).
    #[inline]
    pub(crate) fn allocate_at_cursor(
        &mut self,
        key: FrontierKey,
        stamp_ns: i64,
    ) -> Option<(DieIdx, Placement)> {
        debug_assert_eq!(key.class, WriteClass::Host);
        let idx = self.cursor_idx(key.tenant, key.stream);
        let die = self.host_cursor[idx];
        if die == NONE {
            return None;
        }
        let die = DieIdx(die);
        let planes = self.params.frontier_planes;
        let plane = if planes == 1 { 0 } else { self.plane_cursor[self.key_die_idx(key, die)] as u32 };
        let block = self.frontiers[self.frontier_idx(key, die, plane)];
        assert!(block != NONE, "a host cursor on a frontier with no open block");
        let block = BlockIdx(block);
        let unit = self.hand_out(key, die, plane, block, stamp_ns);
        let placed = self.handed_out(key, die, block, unit);
        if placed.page_full.is_some() {
            self.host_cursor[idx] = NONE;
        }
        Some((die, placed))
    }

    /// The common tail of `allocate` and `allocate_at_cursor`: a block the unit filled gets
    /// its greedy key, a page it filled moves the frontier to its next plane.
    #[inline(always)]
    fn handed_out(&mut self, key: FrontierKey, die: DieIdx, block: BlockIdx, unit: HandOut) -> Placement {
        if unit.full {
            self.blocks.refresh_key(block);
        }
        let page_full = unit.page_full.map(|page| (block, page));
        if page_full.is_some() && self.params.frontier_planes > 1 {
            self.next_plane(key, die);
        }
        Placement { ppa: unit.ppa, page_full }
    }

    /// The per-unit core of `allocate` (`hand_out_run` is its run form): the next unit of `block`,
    /// open as `key`'s frontier on `die` (`plane`), handed out to `key.tenant` and stamped
    /// `stamp_ns`; a block it fills turns `Full` and leaves the frontier. Its greedy key is the
    /// caller's to refresh (`handed_out`).
    #[inline(always)]
    fn hand_out(
        &mut self,
        key: FrontierKey,
        die: DieIdx,
        plane: u32,
        block: BlockIdx,
        stamp_ns: i64,
    ) -> HandOut {
        let g = self.geometry;
        let info = self.blocks.get_mut(block);
        debug_assert!(info.state == BlockState::Open);
        let ppa = Ppa(block.0 * g.units_per_block + info.write_ptr);
        info.write_ptr += 1;
        info.last_write_ns = stamp_ns;
        if let Some(t) = self.unit_tenant.get_mut(ppa.0 as usize) {
            *t = key.tenant;
            info.multi_tenant |= info.owner != key.tenant;
        }
        let upp = self.div.units_per_page;
        let page_full = upp.divides(info.write_ptr).then(|| upp.div(info.write_ptr) - 1);
        let full = info.write_ptr == g.units_per_block;
        if full {
            self.leave_frontier(key, die, plane, block);
        }
        HandOut { ppa, page_full, full }
    }

    /// The end of a block `hand_out` or `hand_out_run` filled: it turns `Full` and leaves
    /// `key`'s frontier on `die` (`plane`). Its greedy key is the caller's to refresh.
    #[inline(always)]
    fn leave_frontier(&mut self, key: FrontierKey, die: DieIdx, plane: u32, block: BlockIdx) {
        let info = self.blocks.get_mut(block);
        assert!(
            info.write_ptr == self.geometry.units_per_block,
            "block {} left its frontier unfilled",
            block.0
        );
        info.state = BlockState::Full;
        let f = self.frontier_idx(key, die, plane);
        assert!(self.frontiers[f] == block.0, "block {} left a frontier it was not open on", block.0);
        self.frontiers[f] = NONE;
    }

    /// `n` calls of `hand_out` on plane 0 at once, for the copy loop (which has mapped the
    /// units from `block`'s write pointer on): the same write pointer, stamp, tenants and
    /// state after. Returns the pages the units filled (each to be marked programmed, in
    /// order) and whether the block filled (it left the frontier; its key is the caller's).
    fn hand_out_run(
        &mut self,
        key: FrontierKey,
        die: DieIdx,
        block: BlockIdx,
        n: u32,
        stamp_ns: i64,
    ) -> (std::ops::Range<u32>, bool) {
        let g = self.geometry;
        let info = self.blocks.get_mut(block);
        assert!(info.state == BlockState::Open, "block {} handed out while not open", block.0);
        let (old, new) = (info.write_ptr, info.write_ptr + n);
        assert!(new <= g.units_per_block, "block {} handed out past its end", block.0);
        info.write_ptr = new;
        info.last_write_ns = stamp_ns;
        let first = block.0 * g.units_per_block;
        if let Some(units) = self.unit_tenant.get_mut((first + old) as usize..(first + new) as usize) {
            if !units.is_empty() {
                units.fill(key.tenant);
                info.multi_tenant |= info.owner != key.tenant;
            }
        }
        let full = new == g.units_per_block;
        if full {
            self.leave_frontier(key, die, 0, block);
        }
        let upp = self.div.units_per_page;
        (upp.div(old)..upp.div(new), full)
    }

    /// Keep the index of a scored victim search (`best_eligible`, `ftl::victim_index`) from
    /// now on: a run whose victims are scored (cost-benefit) calls it at build; a scheme that
    /// scores its own under another policy gets it at its first search; others do not pay its
    /// upkeep at every valid-count change.
    pub(crate) fn enable_victim_bounds(&mut self) {
        self.blocks.enable_bounds(self.params.namespace_units.len());
    }

    /// Whether every scored victim search is to be checked against a scan (with the
    /// integrity oracle on: the integrity tests).
    pub(crate) fn checks_victims(&self) -> bool {
        self.oracle.is_some()
    }

    /// Move every block's write stamp by `delta_ns` (the warm-up by workload keeps its newest
    /// stamp at 0, see `simulation::warm`); the victim index is built anew.
    pub(crate) fn shift_write_stamps(&mut self, delta_ns: i64) {
        for b in &mut self.blocks.info {
            b.last_write_ns = b.last_write_ns.saturating_add(delta_ns);
        }
        self.blocks.rebuild_index();
    }

    /// Close the partly filled page of `key` on `die` by padding it; returns the page to
    /// program, or `None` if the frontier has no partial page.
    pub(crate) fn pad_page(&mut self, key: FrontierKey, die: DieIdx) -> Option<(BlockIdx, u32)> {
        let plane = self.plane_cursor[self.key_die_idx(key, die)] as u32;
        let b = self.frontiers[self.frontier_idx(key, die, plane)];
        if b == NONE {
            return None;
        }
        let g = self.geometry;
        let info = self.blocks.get_mut(BlockIdx(b));
        let fill = info.write_ptr % g.units_per_page;
        if fill == 0 {
            return None;
        }
        info.write_ptr += g.units_per_page - fill;
        let page = info.write_ptr / g.units_per_page - 1;
        if info.write_ptr == g.units_per_block {
            info.state = BlockState::Full;
            self.blocks.refresh_key(BlockIdx(b));
            let f = self.frontier_idx(key, die, plane);
            self.frontiers[f] = NONE;
        }
        if self.params.frontier_planes > 1 {
            self.next_plane(key, die);
        }
        if key.class == WriteClass::Host {
            let idx = self.cursor_idx(key.tenant, key.stream);
            self.host_cursor[idx] = NONE;
        }
        Some((BlockIdx(b), page))
    }

    /// Whether open `block` may be closed now (`close_block`): every unit handed out is in a
    /// page whose program has completed (no partial page, no program in flight).
    pub fn is_closable(&self, block: BlockIdx) -> bool {
        let info = self.blocks.get(block);
        info.state == BlockState::Open
            && info.programmed_pages * self.geometry.units_per_page == info.write_ptr
    }

    /// Close an open block whose frontier's writer has left its die (a scheme's command,
    /// `Command::CloseBlock`): its frontier lets it go and it becomes full at its write
    /// pointer. Its unwritten pages are given up, not programmed: no program is simulated or
    /// counted, nothing maps to them, and the block's erase reclaims them with the rest (NAND
    /// erases a partly programmed block as any other). From here on `write_ptr` and
    /// `programmed_pages` count them as handed out and programmed, so the block is
    /// collectable like any full block, its unwritten units counted as invalid. The block
    /// must be closable (`is_closable`).
    pub fn close_block(&mut self, block: BlockIdx) {
        assert!(self.is_closable(block), "close of block {} that is not closable", block.0);
        let g = self.geometry;
        let info = *self.blocks.get(block);
        let key = FrontierKey { tenant: info.owner, stream: info.stream, class: info.class };
        let die = g.die_of_block(block);
        for plane in 0..self.params.frontier_planes {
            let f = self.frontier_idx(key, die, plane);
            if self.frontiers[f] == block.0 {
                self.frontiers[f] = NONE;
            }
        }
        let info = self.blocks.get_mut(block);
        info.state = BlockState::Full;
        info.write_ptr = g.units_per_block;
        info.programmed_pages = g.pages_per_block;
        self.blocks.refresh_key(block);
    }

    /// Pad every open frontier's partial page (end of preconditioning); returns the pages.
    pub(crate) fn pad_all_frontiers(&mut self) -> Vec<(BlockIdx, u32)> {
        let mut pages = Vec::new();
        let slots = if self.params.frontier_per_tenant { self.n_tenants() as u16 } else { 1 };
        for tenant in 0..slots {
            for stream in 0..self.params.physical_streams {
                for class in WriteClass::ALL {
                    for die in 0..self.geometry.n_dies {
                        // A partial page exists only on the plane the cursor points at.
                        pages.extend(self.pad_page(FrontierKey { tenant, stream, class }, DieIdx(die)));
                    }
                }
            }
        }
        pages
    }

    /// Map host-written `lpn` of `tenant` to `ppa`, invalidating its previous location,
    /// which it returns.
    pub fn map_host(&mut self, tenant: u16, lpn: u32, ppa: Ppa) -> Option<Ppa> {
        let old = self.remap(tenant, lpn, ppa);
        if let Some(o) = &mut self.oracle {
            o.host_write(tenant, lpn, ppa);
        }
        old
    }

    /// Prefetch the L2P entries of the valid units among `first..first + n` (physical units
    /// of one block), ahead of the GC copies that will check and move them.
    pub(crate) fn prefetch_l2p_of_units(&self, first: u32, n: u32) {
        let owner = self.blocks.get(self.block_of(Ppa(first))).owner;
        for u in first..first + n {
            let lpn = self.p2l.get(u as usize);
            if lpn != NONE {
                let t = self.unit_tenant.get(u as usize).map_or(owner, |&t| t);
                self.l2p[t as usize].prefetch(lpn as usize);
            }
        }
    }

    /// Prefetch the P2L entry of unit `ppa` (a GC read of it is coming).
    pub(crate) fn prefetch_p2l(&self, ppa: u32) {
        self.p2l.prefetch(ppa as usize);
    }

    /// Prefetch the L2P entry of `lpn` (a host write or read of it is coming).
    pub(crate) fn prefetch_l2p(&self, tenant: u16, lpn: u32) {
        self.l2p[tenant as usize].prefetch(lpn as usize);
    }

    /// Prefetch what overwriting `lpn` will touch at its current location: the P2L entry
    /// and the block's state. Reads the L2P entry (best prefetched first).
    pub(crate) fn prefetch_old_location(&self, tenant: u16, lpn: u32) {
        self.prefetch_locations(tenant, std::iter::once(lpn), true);
    }

    /// Prefetch what a request over `lpns` touches at their current locations: each unit's
    /// block state (a read's `is_programmed`, an overwrite's `invalidate`, which refreshes the
    /// block's greedy key too) once per run of units in one block, and, for an overwrite, each
    /// unit's P2L entry. Reads the L2P entries (best prefetched first); a hint only.
    pub(crate) fn prefetch_locations(&self, tenant: u16, lpns: impl Iterator<Item = u32>, overwrite: bool) {
        self.prefetch_locations_with(tenant, lpns, overwrite, |_| {});
    }

    /// `prefetch_locations`, handing `on_old` each current location found (for the caller's
    /// own prefetches of what the location's death will touch).
    #[inline]
    pub(crate) fn prefetch_locations_with(
        &self,
        tenant: u16,
        lpns: impl Iterator<Item = u32>,
        overwrite: bool,
        mut on_old: impl FnMut(Ppa),
    ) {
        let l2p = &self.l2p[tenant as usize];
        let mut last_block = u32::MAX;
        for lpn in lpns {
            let Some(old) = l2p.try_get(lpn as usize) else { continue };
            if old == NONE {
                continue;
            }
            if overwrite {
                self.p2l.prefetch(old as usize);
                on_old(Ppa(old));
            }
            let block = self.div.units_per_block.div(old);
            if block != last_block {
                self.blocks.prefetch(block, overwrite);
                last_block = block;
            }
        }
    }

    /// Trim `lpn`: unmap it and invalidate its unit, which it returns (`None`: unmapped).
    pub(crate) fn trim(&mut self, tenant: u16, lpn: u32) -> Option<Ppa> {
        let old = self.l2p[tenant as usize].replace(lpn as usize, NONE);
        if old != NONE {
            self.invalidate(tenant, Ppa(old));
        }
        if let Some(o) = &mut self.oracle {
            o.trim(tenant, lpn);
        }
        (old != NONE).then_some(Ppa(old))
    }

    /// Where `lpn` lives, checked by the oracle when it is on.
    pub(crate) fn lookup(&mut self, tenant: u16, lpn: u32) -> Option<Ppa> {
        let ppa = self.l2p[tenant as usize].get(lpn as usize);
        match (&mut self.oracle, ppa) {
            (Some(o), NONE) => o.check_unmapped(tenant, lpn),
            (Some(o), p) => o.check_read(tenant, lpn, Ppa(p)),
            (None, _) => {}
        }
        (ppa != NONE).then_some(Ppa(ppa))
    }

    /// Whether the flash page holding `ppa` has been programmed (else its data is still in
    /// the controller's buffer).
    pub(crate) fn is_programmed(&self, ppa: Ppa) -> bool {
        self.geometry.page_of(ppa) < self.blocks.get(self.geometry.block_of(ppa)).programmed_pages
    }

    /// Whether every unit of the page holding `ppa` has been handed out (the page is written
    /// or waits only for its program).
    pub(crate) fn page_is_allocated(&self, ppa: Ppa) -> bool {
        let g = self.geometry;
        (g.page_of(ppa) + 1) * g.units_per_page <= self.blocks.get(g.block_of(ppa)).write_ptr
    }

    /// A program of `page` in `block` completed. Pages complete in order.
    pub fn programmed(&mut self, block: BlockIdx, page: u32) {
        let info = self.blocks.get(block);
        assert!(page * self.geometry.units_per_page < info.write_ptr, "program of an unallocated page");
        self.mark_programmed(block, page);
        self.blocks.refresh_key(block);
    }

    /// The core of `programmed`, which the copy loop calls too (its greedy key is the
    /// caller's to refresh): `page` of `block`, the next in order, is programmed.
    #[inline(always)]
    fn mark_programmed(&mut self, block: BlockIdx, page: u32) {
        let info = self.blocks.get_mut(block);
        assert_eq!(info.programmed_pages, page, "block {} programmed out of order: {info:?}", block.0);
        info.programmed_pages += 1;
    }

    /// GC takes collectable `block` as its victim (it leaves the candidates).
    pub fn mark_victim(&mut self, block: BlockIdx) {
        self.blocks.get_mut(block).state = BlockState::Victim;
        self.blocks.refresh_key(block);
    }

    /// A victim whose data was moved but that is not to be erased yet (a copy-only migration)
    /// is full again: of dead data, collectable later.
    pub(crate) fn unmark_victim(&mut self, block: BlockIdx) {
        let info = self.blocks.get_mut(block);
        assert_eq!(info.state, BlockState::Victim, "block {} is not a victim", block.0);
        info.state = BlockState::Full;
        self.blocks.refresh_key(block);
    }

    /// Erase a victim whose data has all been moved, and return it to the free pool.
    pub(crate) fn erase(&mut self, block: BlockIdx) {
        let g = self.geometry;
        let info = self.blocks.get(block);
        assert_eq!(info.state, BlockState::Victim);
        assert_eq!(
            info.programmed_pages * g.units_per_page,
            info.write_ptr,
            "erase before programs completed"
        );
        let first = block.0 * g.units_per_block;
        debug_assert_eq!(self.p2l.count_some(first as usize, g.units_per_block as usize), 0);
        if let Some(o) = &mut self.oracle {
            o.erase(Ppa(first), g.units_per_block);
        }
        self.blocks.release(g.die_of_block(block), block);
    }

    /// Check the mapping's invariants over the whole device (tests; O(device)): L2P and P2L
    /// are inverse, every block's valid count matches its P2L entries and its greedy key and
    /// victim index its state, the indexed cost-benefit victim search agrees with a scan, and
    /// (with the oracle)
    /// every logical page reads back its latest version. Panics on the first violation.
    pub fn check_consistency(&mut self) {
        let g = self.geometry;
        let mut valid = vec![0u32; g.n_blocks as usize];
        let mut by_tenant_die = vec![0u64; self.valid_by_tenant_die.len()];
        for (ppa, lpn) in self.p2l.iter().enumerate() {
            if lpn == NONE {
                continue;
            }
            let block = ppa as u32 / g.units_per_block;
            let info = &self.blocks.info[block as usize];
            let tenant = self.unit_tenant(Ppa(ppa as u32));
            assert_ne!(info.owner, OWNER_NONE, "unit {ppa} valid in an unowned block");
            assert_ne!(tenant, OWNER_NONE, "unit {ppa} valid but handed out to no tenant");
            assert!(
                tenant == info.owner || info.multi_tenant,
                "unit {ppa} of tenant {tenant} in block {block} of {} not marked multi-tenant",
                info.owner
            );
            assert_eq!(
                self.l2p[tenant as usize].get(lpn as usize),
                ppa as u32,
                "P2L of unit {ppa} disagrees with L2P"
            );
            valid[block as usize] += 1;
            by_tenant_die
                [tenant as usize * g.n_dies as usize + g.die_of_block(BlockIdx(block)).0 as usize] += 1;
        }
        for (b, info) in self.blocks.info.iter().enumerate() {
            assert_eq!(info.valid_units, valid[b], "valid count of block {b}");
            assert!(info.state != BlockState::Free || info.valid_units == 0, "free block {b} holds data");
            let key = self.blocks.greedy_keys()[b];
            assert_eq!(key, self.blocks.greedy_key(BlockIdx(b as u32)), "greedy key of block {b}");
        }
        assert_eq!(by_tenant_die, self.valid_by_tenant_die, "valid units per (tenant, die)");
        self.blocks.check_index();
        // The indexed cost-benefit search finds what a scan finds, now and much later.
        let newest = self.blocks.info.iter().map(|b| b.last_write_ns).max().unwrap_or(0).max(0) as u64;
        for now in [newest, newest * 3 + 1_000_000_000] {
            for d in 0..g.n_dies {
                let (die, now) = (DieIdx(d), SimTime(now));
                let bounded = self.select_victim(die, VictimPolicy::CostBenefit, now);
                assert_eq!(
                    bounded,
                    self.scored_victim(die, VictimPolicy::CostBenefit, now),
                    "victim of die {d}"
                );
            }
        }
        for table in &self.l2p {
            for ppa in table.iter() {
                assert!(ppa == NONE || !self.p2l.is_none(ppa as usize), "L2P points at invalid unit {ppa}");
            }
        }
        if let Some(o) = &mut self.oracle {
            o.check_all(&self.l2p);
        }
    }

    fn remap(&mut self, tenant: u16, lpn: u32, ppa: Ppa) -> Option<Ppa> {
        let g = self.geometry;
        let block = self.block_of(ppa);
        let unit_tenant = self.unit_tenant(ppa);
        assert_eq!(
            unit_tenant, tenant,
            "unit {} of block {} handed out to {unit_tenant} written for tenant {tenant}",
            ppa.0, block.0
        );
        let info = self.blocks.get_mut(block);
        info.valid_units += 1;
        self.blocks.refresh_key_valid(block);
        let die = self.div.blocks_per_die.div(block.0);
        self.valid_by_tenant_die[tenant as usize * g.n_dies as usize + die as usize] += 1;
        assert!(self.p2l.is_none(ppa.0 as usize), "unit {} written twice", ppa.0);
        self.p2l.set(ppa.0 as usize, lpn);
        let old = self.l2p[tenant as usize].replace(lpn as usize, ppa.0);
        if old != NONE {
            self.invalidate(tenant, Ppa(old));
        }
        (old != NONE).then_some(Ppa(old))
    }

    /// `Geometry::block_of` without a division where it is a shift.
    #[inline(always)]
    fn block_of(&self, ppa: Ppa) -> BlockIdx {
        BlockIdx(self.div.units_per_block.div(ppa.0))
    }

    /// Unit `ppa`, which holds data of `owner`, no longer does.
    fn invalidate(&mut self, owner: u16, ppa: Ppa) {
        let block = self.block_of(ppa);
        assert!(!self.p2l.is_none(ppa.0 as usize), "invalidating invalid unit {}", ppa.0);
        debug_assert_eq!(self.unit_tenant(ppa), owner, "unit {} is another tenant's", ppa.0);
        self.p2l.set(ppa.0 as usize, NONE);
        let info = self.blocks.get_mut(block);
        assert!(info.valid_units > 0);
        info.valid_units -= 1;
        self.blocks.refresh_key(block);
        let g = &self.geometry;
        let i = owner as usize * g.n_dies as usize + self.div.blocks_per_die.div(block.0) as usize;
        assert!(self.valid_by_tenant_die[i] > 0, "valid count of tenant {owner} on a die underflows");
        self.valid_by_tenant_die[i] -= 1;
    }

    /// The open block of the cursor's plane; if that plane's block is full and no free block
    /// can be taken, another plane's open block (so a frontier striped over planes never
    /// needs more new blocks than a single-plane one: GC's reserve argument still holds).
    fn open_block_any_plane(&mut self, key: FrontierKey, die: DieIdx) -> Result<(u32, BlockIdx), NoSpace> {
        let cursor = self.plane_cursor[self.key_die_idx(key, die)] as u32;
        match self.open_block(key, die, cursor) {
            Ok(b) => Ok((cursor, b)),
            Err(no_space) => {
                let planes = self.params.frontier_planes;
                let other = (1..planes).map(|k| (cursor + k) % planes).find(|&q| {
                    let b = self.frontiers[self.frontier_idx(key, die, q)];
                    b != NONE && self.blocks.get(BlockIdx(b)).state == BlockState::Open
                });
                let q = other.ok_or(no_space)?;
                let i = self.key_die_idx(key, die);
                self.plane_cursor[i] = q as u8;
                Ok((q, self.open_block(key, die, q).expect("an open block")))
            }
        }
    }

    fn open_block(&mut self, key: FrontierKey, die: DieIdx, plane: u32) -> Result<BlockIdx, NoSpace> {
        let idx = self.frontier_idx(key, die, plane);
        let current = self.frontiers[idx];
        // A frontier block that filled up may since have been collected and reused: only an
        // Open block with this key's slot, class and stream is still this frontier's.
        if current != NONE {
            let info = self.blocks.get(BlockIdx(current));
            if info.state == BlockState::Open {
                assert!(
                    self.frontier_slot(info.owner) == self.frontier_slot(key.tenant)
                        && info.class == key.class
                        && info.stream == key.stream,
                    "frontier block {current} reused"
                );
                return Ok(BlockIdx(current));
            }
        }
        // Only jobs' copies may take the reserve (host data and parity may not).
        let reserve = if key.class == WriteClass::Gc { 0 } else { self.params.host_reserve_blocks };
        if self.blocks.free_count(die) <= reserve {
            return Err(NoSpace(die));
        }
        let block = if self.params.frontier_planes > 1 {
            self.blocks.take_free_on(die, plane)
        } else {
            self.blocks.take_free(die)
        }
        .expect("free count above reserve");
        let info = self.blocks.get_mut(block);
        debug_assert_eq!(info.owner, OWNER_NONE);
        info.state = BlockState::Open;
        info.owner = key.tenant;
        info.stream = key.stream;
        info.class = key.class;
        self.blocks.refresh_key(block);
        self.frontiers[idx] = block.0;
        Ok(block)
    }

    /// Index of (key, die) in `plane_cursor`.
    fn key_die_idx(&self, key: FrontierKey, die: DieIdx) -> usize {
        let s = self.params.physical_streams as usize;
        debug_assert!((key.stream as usize) < s);
        let slot = self.frontier_slot(key.tenant) as usize;
        ((slot * s + key.stream as usize) * N_WRITE_CLASSES + key.class as usize)
            * self.geometry.n_dies as usize
            + die.0 as usize
    }

    fn frontier_idx(&self, key: FrontierKey, die: DieIdx, plane: u32) -> usize {
        self.key_die_idx(key, die) * self.params.frontier_planes as usize + plane as usize
    }

    /// The next page of (key, die) goes to the next plane.
    fn next_plane(&mut self, key: FrontierKey, die: DieIdx) {
        let i = self.key_die_idx(key, die);
        let next = self.plane_cursor[i] as u32 + 1;
        self.plane_cursor[i] = if next == self.params.frontier_planes { 0 } else { next as u8 };
    }

    fn cursor_idx(&self, tenant: u16, stream: u8) -> usize {
        self.frontier_slot(tenant) as usize * self.params.physical_streams as usize + stream as usize
    }
}
