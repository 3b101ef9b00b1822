//! The GC copy's mapping, one core for both executors: `map_copy` (a unit at a time, as the
//! timed executor and the unit-by-unit path copy) and `Ftl::copy_block_at_once` (the rest of a
//! victim block in one loop, for an executor whose programs complete at once: preconditioning's
//! instant executor) both go through `move_unit` (the mapping and the destination's valid
//! count) and `settle_copies` (the victim's valid count, the counts per (tenant, die) and the
//! greedy keys), with `allocate`'s and `programmed`'s cores (`hand_out`, `mark_programmed`).
//! The loop leaves the FTL exactly as `allocate`, `map_copy` and `programmed` called unit by
//! unit would: the same units handed out in the same order, the same mapping, stamps, valid
//! counts and programmed pages; it only settles once per run instead of at every unit (nothing
//! reads those counts and keys in between). Not the choice of what to copy or where (the
//! engine's GC paths, `simulation::gc` and `simulation::copy`, and the policies). The loop's
//! victim holds one tenant's data (a block of several tenants' is copied unit by unit, each
//! unit through its tenant's answers); its destination may be shared with other tenants'
//! copies.

use super::blocks::{BlockState, WriteClass};
use super::{FrontierKey, Ftl, NONE};
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};

/// What one `copy_block_at_once` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyRun {
    /// Units copied.
    pub units: u32,
    /// Pages of the victim, from the first one looked at, that held a valid unit (each one a
    /// page read).
    pub pages_read: u32,
    /// Destination pages filled, each programmed as it filled.
    pub pages_programmed: u32,
    /// The run stopped early: `die` had no free block for the next copy. The units copied
    /// before it are settled; the rest of the victim is still valid where it was.
    pub no_room: bool,
}

impl Ftl {
    /// Copy every valid unit of `victim`'s pages from `from_page` on, in order, through `key`'s
    /// frontier (class `Gc`) on `die`, each stamped `stamp_ns`; each destination page is
    /// programmed (`programmed`) as it fills. The L2P entries of the units `prefetch_units`
    /// ahead are prefetched as it goes. `None`, having done nothing, for frontiers striped over
    /// planes (`allocate`'s plane cursor: copy unit by unit). Where `die` has no free block for
    /// a copy, it stops there (`CopyRun::no_room`), with what it copied settled.
    pub fn copy_block_at_once(
        &mut self,
        victim: BlockIdx,
        from_page: u32,
        key: FrontierKey,
        die: DieIdx,
        stamp_ns: i64,
        prefetch_units: u32,
    ) -> Option<CopyRun> {
        if self.params.frontier_planes != 1 {
            return None;
        }
        assert_eq!(key.class, WriteClass::Gc, "a copy through a frontier of another class");
        let g = self.geometry;
        let owner = key.tenant;
        let v = self.blocks.get(victim);
        assert!(
            v.state == BlockState::Victim && v.owner == owner && !v.multi_tenant,
            "copies of block {} not a victim of {owner} alone",
            victim.0
        );
        let first = victim.0 * g.units_per_block;
        let end = first + g.units_per_block;
        let mut run = CopyRun::default();
        // The destination block being written (`NONE`: the frontier's, opened if need be).
        let mut dst = NONE;
        'pages: for p in from_page..g.pages_per_block {
            let from = first + p * g.units_per_page;
            let mut read = false;
            for src in from..from + g.units_per_page {
                if src + prefetch_units < end {
                    let ahead = self.p2l.get((src + prefetch_units) as usize);
                    if ahead != NONE {
                        self.l2p[owner as usize].prefetch(ahead as usize);
                    }
                }
                let lpn = self.p2l.get(src as usize);
                if lpn == NONE {
                    continue;
                }
                read = true;
                if dst == NONE {
                    let Ok(block) = self.open_block(key, die, 0) else {
                        // This page was read (it holds a valid unit); the loop's count is skipped.
                        run.no_room = true;
                        run.pages_read += 1;
                        break 'pages;
                    };
                    dst = block.0;
                }
                if self.copy_unit_at_once(key, die, BlockIdx(dst), lpn, Ppa(src), stamp_ns, &mut run) {
                    dst = NONE;
                }
            }
            run.pages_read += read as u32;
        }
        self.settle_copies(victim, die, dst, owner, run.units);
        Some(run)
    }

    /// One copy of `copy_block_at_once` into the open block `dst`: `allocate`'s and
    /// `map_copy`'s per-unit cores (`hand_out`, `move_unit`) and, when the page fills,
    /// `programmed`'s, without the greedy keys and valid counts per (tenant, die), which
    /// `settle_copies` brings in step once per run. Returns whether `dst` filled (its key is
    /// refreshed).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn copy_unit_at_once(
        &mut self,
        key: FrontierKey,
        die: DieIdx,
        dst: BlockIdx,
        lpn: u32,
        src: Ppa,
        stamp_ns: i64,
        run: &mut CopyRun,
    ) -> bool {
        // `allocate` (the frontier's block is open, of `owner`'s frontier slot: `open_block`).
        let unit = self.hand_out(key, die, 0, dst, stamp_ns);
        self.move_unit(key.tenant, lpn, src, unit.ppa, dst);
        if let Some(page) = unit.page_full {
            self.mark_programmed(dst, page);
            run.pages_programmed += 1;
        }
        run.units += 1;
        if unit.full {
            self.blocks.refresh_key(dst);
        }
        unit.full
    }

    /// Move `lpn` of `tenant` from `src` (where it is still current) to `dst` (a GC copy),
    /// just handed out to `tenant`: `move_unit`, then `settle_copies` for this one unit.
    pub fn map_copy(&mut self, tenant: u16, lpn: u32, src: Ppa, dst: Ppa) {
        let handed_to = self.unit_tenant(dst);
        assert_eq!(handed_to, tenant, "unit {} handed out to {handed_to} written for tenant {tenant}", dst.0);
        debug_assert_eq!(self.unit_tenant(src), tenant, "unit {} is another tenant's", src.0);
        let to = self.block_of(dst);
        self.move_unit(tenant, lpn, src, dst, to);
        let die = DieIdx(self.div.blocks_per_die.div(to.0));
        self.settle_copies(self.block_of(src), die, to.0, tenant, 1);
    }

    /// The per-unit core of a GC copy's mapping, for `map_copy` and the copy loop: `lpn` of
    /// `owner` moves from `src` to `dst`, whose block `to` gains a valid unit. The source block's
    /// valid count, the counts per (tenant, die) and the greedy keys are the caller's
    /// (`settle_copies`, per unit or once per run).
    #[inline(always)]
    fn move_unit(&mut self, owner: u16, lpn: u32, src: Ppa, dst: Ppa, to: BlockIdx) {
        let was = self.l2p[owner as usize].replace(lpn as usize, dst.0);
        assert_eq!(was, src.0, "GC copy of a stale unit");
        if let Some(o) = &mut self.oracle {
            o.copy(owner, lpn, src, dst);
        }
        assert!(self.p2l.is_none(dst.0 as usize), "unit {} written twice", dst.0);
        self.p2l.set(dst.0 as usize, lpn);
        self.p2l.set(src.0 as usize, NONE);
        self.blocks.get_mut(to).valid_units += 1;
    }

    /// The counts of `units` copies of `owner` from `victim` to `die`, after `move_unit`: the
    /// victim's valid count and those per (tenant, die), and the keys of the victim and of the
    /// destination block `dst` if it is open (`NONE`: none). `map_copy` calls it per unit; the
    /// end of `copy_block_at_once` once per run (nothing reads them while the victim is copied).
    fn settle_copies(&mut self, victim: BlockIdx, die: DieIdx, dst: u32, owner: u16, units: u32) {
        let v = self.blocks.get_mut(victim);
        assert!(v.valid_units >= units, "block {} copied more units than it held valid", victim.0);
        v.valid_units -= units;
        let n_dies = self.geometry.n_dies as usize;
        let from = owner as usize * n_dies + self.div.blocks_per_die.div(victim.0) as usize;
        let to = owner as usize * n_dies + die.0 as usize;
        self.valid_by_tenant_die[to] += units as u64;
        assert!(
            self.valid_by_tenant_die[from] >= units as u64,
            "valid count of tenant {owner} on a die underflows"
        );
        self.valid_by_tenant_die[from] -= units as u64;
        self.blocks.refresh_key(victim);
        if dst != NONE {
            self.blocks.refresh_key(BlockIdx(dst));
        }
    }
}
