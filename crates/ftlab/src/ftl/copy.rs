//! The GC copy's mapping, one core for both executors: `map_copy` (a unit at a time, as the
//! timed executor and the unit-by-unit path copy) and `Ftl::copy_block_at_once` (the rest of a
//! victim block in one loop, for an executor whose programs complete at once: preconditioning's
//! instant executor) both map a unit through `move_mapping` (`move_unit`'s mapping) and count
//! through `settle_copies` (the victim's valid count, the counts per (tenant, die) and the
//! greedy keys). The loop keeps its destination's write pointer in a local and hands out and
//! counts each run of units into one destination block at its end (`end_copies`: `allocate`'s
//! core for the run, `hand_out_run`, and `programmed`'s, `mark_programmed`, per filled page).
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

/// The copy loop's open destination: its units are handed out and counted at the end of the
/// run into it (`end_copies`), the write pointer kept here meanwhile.
#[derive(Clone, Copy, Debug)]
struct CopyDst {
    block: BlockIdx,
    /// The block's first unit.
    first: u32,
    /// The write pointer after the units copied so far.
    ptr: u32,
    /// Units copied into it in this run.
    units: u32,
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
        // The destination block being written (`None`: the frontier's, opened if need be).
        let mut dst: Option<CopyDst> = None;
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
                let d = match &mut dst {
                    Some(d) => d,
                    None => {
                        let Ok(block) = self.open_block(key, die, 0) else {
                            // This page was read (it holds a valid unit); the loop's count is skipped.
                            run.no_room = true;
                            run.pages_read += 1;
                            break 'pages;
                        };
                        let ptr = self.blocks.get(block).write_ptr;
                        dst.insert(CopyDst { block, first: block.0 * g.units_per_block, ptr, units: 0 })
                    }
                };
                let to = Ppa(d.first + d.ptr);
                (d.ptr, d.units) = (d.ptr + 1, d.units + 1);
                self.move_mapping(owner, lpn, Ppa(src), to);
                if d.ptr == g.units_per_block {
                    let filled = *d;
                    self.end_copies(key, die, filled, stamp_ns, &mut run);
                    dst = None;
                }
            }
            run.pages_read += read as u32;
        }
        let open = match dst {
            Some(d) => {
                self.end_copies(key, die, d, stamp_ns, &mut run);
                d.block.0
            }
            None => NONE,
        };
        self.settle_copies(victim, die, open, owner, run.units);
        Some(run)
    }

    /// The end of the copy loop's run of units into `d`'s block (it filled, or the loop
    /// ended): `allocate`'s and `programmed`'s cores for all of them at once (`hand_out_run`,
    /// `mark_programmed` per filled page, in order) and the block's valid count; a block that
    /// filled gets its key. The FTL is then as `allocate`, `map_copy` and `programmed` called
    /// unit by unit leave it, bar the counts `settle_copies` brings in step.
    fn end_copies(&mut self, key: FrontierKey, die: DieIdx, d: CopyDst, stamp_ns: i64, run: &mut CopyRun) {
        let (pages, full) = self.hand_out_run(key, die, d.block, d.units, stamp_ns);
        assert_eq!(
            self.blocks.get(d.block).write_ptr,
            d.ptr,
            "the copy loop's write pointer left its block's"
        );
        self.blocks.get_mut(d.block).valid_units += d.units;
        run.pages_programmed += pages.len() as u32;
        for page in pages {
            self.mark_programmed(d.block, page);
        }
        run.units += d.units;
        if full {
            self.blocks.refresh_key(d.block);
        }
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
        self.move_mapping(owner, lpn, src, dst);
        self.blocks.get_mut(to).valid_units += 1;
    }

    /// The mapping of `move_unit` (L2P, P2L, the oracle), without the destination's count.
    #[inline(always)]
    fn move_mapping(&mut self, owner: u16, lpn: u32, src: Ppa, dst: Ppa) {
        let was = self.l2p[owner as usize].replace(lpn as usize, dst.0);
        assert_eq!(was, src.0, "GC copy of a stale unit");
        if let Some(o) = &mut self.oracle {
            o.copy(owner, lpn, src, dst);
        }
        assert!(self.p2l.is_none(dst.0 as usize), "unit {} written twice", dst.0);
        self.p2l.set(dst.0 as usize, lpn);
        self.p2l.set(src.0 as usize, NONE);
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
        // Only the valid counts changed since each block's last refresh (the victim's when it
        // became one; the destination's at `allocate`, or the loop's `end_copies`): the victim
        // is not collectable, nor is the destination while it is open or a page of it is still
        // to program, as the copies' own pages are, so nothing of them changes there.
        self.blocks.refresh_key_valid(victim);
        if dst != NONE {
            self.blocks.refresh_key_valid(BlockIdx(dst));
        }
    }
}
