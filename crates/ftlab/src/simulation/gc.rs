//! Timed garbage collection and static wear leveling: one victim per die at a time; its
//! valid pages are read and copied through the scheduler (GC priority) to the die the scheme
//! chooses, then the victim is erased. Copies check validity when their read completes, so a
//! host overwrite in between is never resurrected.

use super::{FlashOp, OpKind, Simulation};
use crate::error::FtlabError;
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, NONE};
use crate::sched::OpClass;

impl Simulation<'_> {
    /// Start collecting on `die` if it needs it: foreground below the low watermark,
    /// background below the high one when the die is idle, or a static wear-leveling move.
    pub(super) fn maybe_start_gc(&mut self, die: DieIdx) {
        let d = die.0 as usize;
        if self.gc_victim[d] != NONE {
            return;
        }
        let free = self.ftl.blocks.free_count(die);
        let idle = !self.array.is_busy(die) && self.sched.is_empty(die);
        let wanted = free < self.p.low_watermark || (self.p.background_gc && idle && free < self.p.high_watermark);
        let mut victim = None;
        if self.p.static_gap > 0 && std::mem::take(&mut self.wl_check[d]) {
            victim = self.ftl.static_wl_victim(die, self.p.static_gap);
        }
        if victim.is_none() && wanted {
            victim = self.scheme.gc_victim(die, &self.ftl, self.p.policy, self.now);
        }
        if let Some(v) = victim {
            self.start_job(die, v);
        }
    }

    fn start_job(&mut self, die: DieIdx, victim: BlockIdx) {
        assert!(self.ftl.is_collectable(victim), "GC victim {} is not collectable", victim.0);
        assert_eq!(self.ftl.geometry.die_of_block(victim), die, "GC victim on another die");
        self.ftl.mark_victim(victim);
        self.gc_victim[die.0 as usize] = victim.0;
        let g = self.ftl.geometry;
        let mut reads = 0;
        for page in 0..g.pages_per_block {
            let first = g.ppa(victim, page, 0).0 as usize;
            let valid = self.ftl.p2l[first..first + g.units_per_page as usize].iter().filter(|&&l| l != NONE).count() as u32;
            if valid > 0 {
                reads += 1;
                let op = FlashOp { kind: OpKind::Read, class: OpClass::Gc, die, block: victim, page, n_units: valid, owner: die.0 };
                self.issue(op);
            }
        }
        self.gc_reads_left[die.0 as usize] = reads;
        if reads == 0 {
            self.issue_erase(die, victim);
        }
    }

    /// A GC read completed: copy the page's still-valid units.
    pub(super) fn gc_read_done(&mut self, op: FlashOp) {
        let g = self.ftl.geometry;
        let victim_die = DieIdx(op.owner);
        let info = *self.ftl.blocks.get(op.block);
        for slot in 0..g.units_per_page {
            let src = g.ppa(op.block, op.page, slot);
            let lpn = self.ftl.p2l[src.0 as usize];
            if lpn == NONE {
                continue;
            }
            self.copy_unit(info.owner, info.stream, lpn, src, victim_die);
        }
        let left = &mut self.gc_reads_left[victim_die.0 as usize];
        assert!(*left > 0);
        *left -= 1;
        if *left == 0 {
            self.issue_erase(victim_die, op.block);
        }
    }

    fn copy_unit(&mut self, owner: u16, from_stream: u8, lpn: u32, src: crate::flash::geometry::Ppa, victim_die: DieIdx) {
        let stream = self.mapper.gc_stream(owner, lpn, from_stream);
        let die = self.scheme.gc_write_die(owner, victim_die, &self.ftl);
        let key = FrontierKey { tenant: owner, stream, class: WriteClass::Gc };
        let placed = self.ftl.allocate(key, die, self.now).unwrap_or_else(|_| {
            panic!("GC copy found no free block on die {} (raise ftl.gc_reserve_blocks)", die.0)
        });
        self.ftl.map_copy(owner, lpn, src, placed.ppa);
        self.metrics[owner as usize].gc_units += 1;
        self.device.gc_units += 1;
        self.epoch.gc_units[owner as usize] += 1;
        self.ts.count_gc_units(1);
        if let Some((block, page)) = placed.page_full {
            let n_units = self.ftl.geometry.units_per_page;
            self.issue(FlashOp { kind: OpKind::Program, class: OpClass::Gc, die, block, page, n_units, owner: NONE });
        }
    }

    fn issue_erase(&mut self, die: DieIdx, block: BlockIdx) {
        self.issue(FlashOp { kind: OpKind::Erase, class: OpClass::Gc, die, block, page: 0, n_units: 0, owner: NONE });
    }

    pub(super) fn erase_done(&mut self, op: FlashOp) -> Result<(), FtlabError> {
        let d = op.die.0 as usize;
        assert_eq!(self.gc_victim[d], op.block.0, "erase of a block that is not the die's victim");
        self.ftl.erase(op.block);
        self.device.erases += 1;
        self.ts.count_erase();
        self.gc_victim[d] = NONE;
        self.wl_check[d] = true;
        self.maybe_start_gc(op.die);
        self.wake_stalled()
    }
}
