//! Preconditioning (DESIGN §5, §11): fill each namespace to a fraction, sequentially or in a
//! random order, then overwrite at random, so the timed run starts in steady state. It runs
//! the engine's own placement path (`place_host_unit`, the scheme, the stream mapper, the
//! frontiers) and its own jobs (GC, wear leveling, their copies) with the *instant executor*
//! (`executor::Instant`, the engine is `Engine<Instant>` here): a job's page read copies at once, a program
//! completes at once, and other operations (erases, which may start the next job) are queued for
//! `drain_instant`, which completes them in order; no time passes and nothing is measured. While it writes,
//! dies count as busy, so GC keeps them at the low watermark as under load; it ends as an idle device would:
//! every die's background GC has brought it to the high watermark (or it stays at the low one
//! without background GC).
//!
//! Write stamps (block ages for cost-benefit GC): the k-th of N preconditioning units is
//! stamped `k * t_unit` on the fill's own clock, where `t_unit` = tPROG / (dies x units per
//! page) is the time one unit takes at the device's full program bandwidth, and GC chooses its
//! victims on that clock (`Engine::victim_view`: a block's age is the time since its last
//! write). At the fill's end every stamp moves back by `N * t_unit`: ages are spread in write
//! order over the time the device would have needed to write them, ending at t = 0 when the
//! timed run (or the warm-up) starts; a GC copy takes the stamp of the host unit that
//! triggered it.
//!
//! `precondition` is `fill` (the fill and its overwrites, simulated or, with
//! `overwrites = "closed_form"`, written as their steady state: `fill_closed_form`, whose model
//! is `steady`) then `finish_precondition` (padding,
//! idle background GC); the warm-up by workload (`warm`, `precondition_warm`) runs between the
//! two, and places its units through the same `place_unit_instant`. This file also holds the
//! instant executor's paths (`impl Executor for Instant`, `drain_instant`; its state is
//! `executor::Instant`).

use super::engine::Engine;
use super::engine::Executor;
use super::executor::{Instant, PREFETCH_AHEAD_UNITS};
use super::ops::OpKind;
use super::ops::{FlashOp, Owner};
use super::steady::{Log, FRONTIER_ROOM_BLOCKS};
use crate::error::FtlabError;
use crate::flash::geometry::{BlockIdx, DieIdx};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, Placement};
use crate::metrics::report::ClosedFormReport;
use crate::policy::JobKind;
use crate::policy::OpClass;
use crate::scenario::{FillOrder, Overwrites, PreconditionConfig};
use crate::sim::time::SimTime;
use crate::sim::Rng;
use rand::Rng as _;

/// Preconditioning could not place a unit of `tenant` (index in scenario order): the device
/// has too little spare space for the namespaces, frontiers and GC reserve of this scenario.
/// The reason says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OutOfSpace {
    pub(crate) tenant: u16,
    pub(crate) reason: String,
}

/// Writes run this many units behind the sequence, so the L2P entry of each unit (and then
/// the P2L entry of its old location) is prefetched while earlier units are written.
const LOOKAHEAD: usize = 16;

impl Engine<'_, Instant> {
    /// Fill the namespaces as `cfg` says, tenants interleaved unit by unit, with `rng` drawing
    /// the random order and overwrites.
    pub(super) fn precondition(&mut self, cfg: &PreconditionConfig, rng: &mut Rng) -> Result<(), OutOfSpace> {
        self.fill(cfg, rng)?;
        self.finish_precondition()
    }

    /// The fill and the uniform overwrites of `precondition`, without its end (the warm-up
    /// by workload runs between the two, see `warm`).
    pub(super) fn fill(&mut self, cfg: &PreconditionConfig, rng: &mut Rng) -> Result<(), OutOfSpace> {
        assert!(self.sink.erase_precondition.is_none(), "preconditioning runs once, before the timed run");
        let ns = self.ftl.params.namespace_units.clone();
        let fill: Vec<u64> = ns.iter().map(|&n| (n as f64 * cfg.fill_fraction).floor() as u64).collect();
        let perms: Vec<Permutation> = fill.iter().map(|&n| Permutation::new(n, rng.random())).collect();
        let overwrites: Vec<u64> =
            fill.iter().map(|&n| (n as f64 * cfg.overwrite_passes).round() as u64).collect();
        let total: u64 = fill.iter().sum::<u64>()
            + overwrites.iter().zip(&fill).filter(|(_, &f)| f > 0).map(|(&o, _)| o).sum::<u64>();
        // The fill's clock: unit k is stamped k x t_unit, so GC ages blocks against it while
        // the fill runs; at its end every stamp moves back by the whole fill, which then ends
        // at t = 0 (the module doc).
        self.exec.stamp = 0;
        let longest = fill.iter().copied().max().unwrap_or(0);
        let fills = (0..longest).flat_map(|i| {
            let (fill, perms) = (&fill, &perms);
            (0..fill.len()).filter(move |&t| i < fill[t]).map(move |t| {
                let lpn = match cfg.order {
                    FillOrder::Sequential => i,
                    FillOrder::Random => perms[t].at(i),
                };
                (t as u16, lpn as u32)
            })
        });
        if cfg.overwrites == Overwrites::ClosedForm {
            // Each filled unit once, with the stale units of the steady state (`steady`).
            let report = self.fill_closed_form(fills, &fill)?;
            let programmed = report.live_units + report.stale_units;
            assert_eq!(self.exec.stamp, (programmed as i64).saturating_mul(self.p.unit_program_ns));
            self.sink.closed_form = Some(report);
        } else {
            self.write_all(fills)?;
            let most = overwrites.iter().copied().max().unwrap_or(0);
            let overwrite = (0..most).flat_map(|i| {
                let (fill, overwrites) = (&fill, &overwrites);
                (0..fill.len()).filter(move |&t| i < overwrites[t] && fill[t] > 0).map(move |t| (t as u16, t))
            });
            // The draw is made when an item is taken, so the PRNG sequence is the one of a plain loop.
            self.write_all(overwrite.map(|(t, ti)| (t, rng.random_range(0..fill[ti]) as u32)))?;
            let stamp = (total as i64).saturating_mul(self.p.unit_program_ns);
            assert_eq!(self.exec.stamp, stamp, "a step per unit");
        }
        self.ftl.shift_write_stamps(-self.exec.stamp);
        self.exec.stamp = 0;
        Ok(())
    }

    /// The closed-form fill (`precondition.overwrites = "closed_form"`, `steady`): every
    /// `(tenant, lpn)` of `units` (`live[t]` of tenant t) written once, after the earlier
    /// versions the steady-state profile owes its blocks; returns what it wrote.
    fn fill_closed_form(
        &mut self,
        units: impl Iterator<Item = (u16, u32)>,
        live: &[u64],
    ) -> Result<ClosedFormReport, OutOfSpace> {
        let g = self.ftl.geometry;
        // The log a steady-state die holds written (`steady`'s module doc): every block
        // but those GC keeps free on each die, less one block per die, the expected unwritten
        // room of its host and GC frontiers (each half written at a random instant).
        let reserved = u64::from(g.n_dies) * (u64::from(self.p.low_watermark) + FRONTIER_ROOM_BLOCKS);
        let room_units = u64::from(g.n_blocks).saturating_sub(reserved) * u64::from(g.units_per_block);
        let mut log = Log::new(room_units, live, g.n_blocks as usize);
        self.write_all_with(units, |e, t, lpn| e.closed_form_unit(&mut log, t, lpn))?;
        Ok(log.report())
    }

    /// Write unit `lpn` of tenant `t` through the host placement path, as many versions as
    /// `log` says its frontier's blocks are owed and then its live one, each version mapped
    /// (the next overwrites it) and a step of the fill's clock.
    fn closed_form_unit(&mut self, log: &mut Log, t: u16, lpn: u32) -> Result<(), OutOfSpace> {
        let upb = self.ftl.geometry.units_per_block;
        let (pol, v) = self.policies_and_view();
        let stream = pol.mapper.host_stream(t, lpn, 0, &v);
        let key = FrontierKey { tenant: t, stream, class: WriteClass::Host };
        loop {
            self.exec.stamp += self.p.unit_program_ns;
            let (die, at) = self.place_or_wait(key)?;
            let live = log.live(t, (at.ppa.0 / upb) as usize, at.ppa.0 % upb == 0);
            self.map_host_unit(t, lpn, 0, stream, at.ppa);
            self.placed_instant(t, die, at)?;
            if live {
                return Ok(());
            }
        }
    }

    /// Program a padded page (no mapping unit in it) instantly, as preconditioning and the
    /// warm-up do when they close a partial page.
    pub(super) fn program_pad(&mut self, tenant: u16, die: DieIdx, block: BlockIdx, page: u32) {
        let op = FlashOp::program(
            OpClass::HostWrite,
            tenant,
            die,
            (block, page),
            0,
            Owner::Precondition,
            SimTime::MAX,
        );
        Instant::issue(self, op);
    }

    /// The end of preconditioning: pad the open pages, then let every die's background GC
    /// run as on an idle device.
    pub(super) fn finish_precondition(&mut self) -> Result<(), OutOfSpace> {
        for (block, page) in self.ftl.pad_all_frontiers() {
            let die = self.ftl.geometry.die_of_block(block);
            let tenant = self.block_tenant(block);
            self.program_pad(tenant, die, block, page);
        }
        self.drain_instant();
        // An idle device's background GC runs every die up to its high watermark. One pass over
        // the dies may leave an earlier die short again: a policy that copies a victim onto
        // other dies of its owner's set (upi) spends their free blocks. So the passes repeat
        // while one frees a block; the free count is bounded, so a pass that frees none ends it.
        self.exec.idle = true;
        loop {
            let free_before = self.free_blocks_total();
            for d in 0..self.ftl.geometry.n_dies {
                self.maybe_start_gc(crate::flash::geometry::DieIdx(d));
                self.drain_instant();
            }
            if self.free_blocks_total() <= free_before {
                break;
            }
        }
        self.copy_room()?;
        self.sink.precondition_erases = self.sink.device.erases;
        self.end_precondition();
        Ok(())
    }

    /// The free blocks of every die.
    fn free_blocks_total(&self) -> u64 {
        let n_dies = self.ftl.geometry.n_dies;
        (0..n_dies).map(|d| self.ftl.blocks().free_count(crate::flash::geometry::DieIdx(d)) as u64).sum()
    }

    /// `Err` once a job's copy found no free block (`NoCopyRoom`): preconditioning ends there.
    pub(super) fn copy_room(&self) -> Result<(), OutOfSpace> {
        match self.jobs.no_room {
            None => Ok(()),
            Some(n) => Err(OutOfSpace { tenant: n.owner, reason: self.no_copy_room_reason(n) }),
        }
    }

    /// Write every `(tenant, lpn)` of `units`, in order.
    fn write_all(&mut self, units: impl Iterator<Item = (u16, u32)>) -> Result<(), OutOfSpace> {
        self.write_all_with(units, Self::precondition_unit)
    }

    /// Write every `(tenant, lpn)` of `units`, in order, by `write`, with their mapping
    /// entries prefetched ahead.
    pub(super) fn write_all_with(
        &mut self,
        units: impl Iterator<Item = (u16, u32)>,
        mut write: impl FnMut(&mut Self, u16, u32) -> Result<(), OutOfSpace>,
    ) -> Result<(), OutOfSpace> {
        let mut ring = [(0u16, 0u32); LOOKAHEAD];
        let mut taken = 0usize;
        for unit in units {
            let slot = taken % LOOKAHEAD;
            if taken >= LOOKAHEAD {
                let (t, lpn) = ring[slot];
                write(self, t, lpn)?;
            }
            self.ftl.prefetch_l2p(unit.0, unit.1);
            if taken >= LOOKAHEAD / 2 {
                let (t, lpn) = ring[(taken - LOOKAHEAD / 2) % LOOKAHEAD];
                self.ftl.prefetch_old_location(t, lpn);
            }
            ring[slot] = unit;
            taken += 1;
        }
        for k in taken.saturating_sub(LOOKAHEAD)..taken {
            let (t, lpn) = ring[k % LOOKAHEAD];
            write(self, t, lpn)?;
        }
        Ok(())
    }

    /// Write one unit through the host placement path, then run the flash work it caused.
    fn precondition_unit(&mut self, t: u16, lpn: u32) -> Result<(), OutOfSpace> {
        self.exec.stamp += self.p.unit_program_ns;
        self.place_unit_instant(t, lpn, 0)
    }

    /// Write unit `lpn` of tenant `t` (virtual stream `vstream`) through the host placement
    /// path, then run the flash work it caused (instant executor).
    pub(super) fn place_unit_instant(&mut self, t: u16, lpn: u32, vstream: u16) -> Result<(), OutOfSpace> {
        let (pol, v) = self.policies_and_view();
        let stream = pol.mapper.host_stream(t, lpn, vstream, &v);
        let key = FrontierKey { tenant: t, stream, class: WriteClass::Host };
        let (die, placed) = self.place_or_wait(key)?;
        self.map_host_unit(t, lpn, vstream, stream, placed.ppa);
        self.placed_instant(t, die, placed)
    }

    /// Hand out a host unit of `key` (`place_host_unit`); where no die it tried had room, let
    /// the GC queued there run, then try again.
    #[inline]
    pub(super) fn place_or_wait(&mut self, key: FrontierKey) -> Result<(DieIdx, Placement), OutOfSpace> {
        if let Some(p) = self.place_host_unit(key) {
            return Ok(p);
        }
        self.drain_instant();
        self.copy_room()?;
        self.place_host_unit(key).ok_or_else(|| OutOfSpace {
            tenant: key.tenant,
            reason: "preconditioning found no die with room for its data: every die the scheme lets \
                     it write is down to its GC reserve, and GC freed no block there (the dies are \
                     full of valid data, or of blocks the scheme does not let GC take now)"
                .into(),
        })
    }

    /// The flash work a host unit of tenant `t` handed out on `die` causes (mapped or not):
    /// the program of the page it filled, GC where the die is below its low watermark, all
    /// of it run at once.
    #[inline]
    pub(super) fn placed_instant(
        &mut self,
        t: u16,
        die: DieIdx,
        placed: Placement,
    ) -> Result<(), OutOfSpace> {
        if let Some(page) = placed.page_full {
            let n_units = self.ftl.geometry.units_per_page as u16;
            let op = FlashOp::program(
                OpClass::HostWrite,
                t,
                die,
                page,
                n_units,
                Owner::Precondition,
                SimTime::MAX,
            );
            Instant::issue(self, op);
        }
        if self.ftl.blocks().free_count(die) < self.p.low_watermark {
            self.maybe_start_gc(die);
        }
        self.drain_instant();
        self.copy_room()
    }
}

/// A pseudo-random permutation of `[0, n)` without a table: a full-period LCG modulo the
/// next power of two, skipping values >= n (cycle walking).
struct Permutation {
    n: u64,
    mask: u64,
    mult: u64,
    add: u64,
}

impl Permutation {
    fn new(n: u64, seed: u64) -> Permutation {
        let m = n.max(2).next_power_of_two();
        // Hull-Dobell: c odd, a = 1 mod 4 give a full period modulo 2^k.
        Permutation {
            n,
            mask: m - 1,
            mult: (seed << 2 | 1) & (m - 1) | 1 | 4 & (m - 1),
            add: (seed >> 20) | 1,
        }
    }

    /// The `i`-th element: the LCG orbit from 0, walking past values >= n.
    fn at(&self, i: u64) -> u64 {
        let mut x = i;
        loop {
            x = (x.wrapping_mul(self.mult).wrapping_add(self.add)) & self.mask;
            if x < self.n {
                return x;
            }
        }
    }
}

impl Engine<'_, Instant> {
    /// Prefetch the L2P entries of `block`'s valid units up to the pages `PREFETCH_AHEAD_UNITS`
    /// past `page` (the one being copied), from where the last call stopped.
    #[inline]
    fn prefetch_ahead(&mut self, block: BlockIdx, page: u32) {
        let g = self.ftl.geometry;
        if self.exec.pf_block != block {
            self.exec.pf_block = block;
            self.exec.pf_page = page;
        }
        let end = (page + 1 + PREFETCH_AHEAD_UNITS.div_ceil(g.units_per_page)).min(g.pages_per_block);
        let from = self.exec.pf_page.max(page);
        if from < end {
            let first = block.0 * g.units_per_block;
            self.ftl.prefetch_l2p_of_units(first + from * g.units_per_page, (end - from) * g.units_per_page);
            self.exec.pf_page = end;
        }
    }

    /// The program of `page` of `block` (a copy's or preconditioning's: no request or job
    /// waits for it) completes now: exactly what `program_done` does for such a program.
    #[inline]
    pub(super) fn programmed_at_once(&mut self, block: BlockIdx, page: u32) {
        self.ftl.programmed(block, page);
        self.sink.device.flash_pages_programmed += 1;
    }

    /// Complete every operation the instant executor holds, in issue order (completions may
    /// issue more).
    pub(super) fn drain_instant(&mut self) {
        while let Some(&op) = self.exec.queue.get(self.exec.next) {
            self.exec.next += 1;
            self.complete_op(op).expect("instant operations raise no input error");
        }
        self.exec.queue.clear();
        self.exec.next = 0;
    }
}

impl Executor for Instant {
    #[inline]
    fn issue(e: &mut Engine<'_, Self>, op: FlashOp) {
        if op.kind == OpKind::Program {
            match op.owner() {
                // A copy's or preconditioning's page: exactly what `program_done` does for it,
                // without the dispatch on kind and owner (one per copied page here).
                Owner::Job(_) | Owner::Precondition if op.class != crate::policy::OpClass::Parity => {
                    e.programmed_at_once(op.block, op.page)
                }
                _ => e.complete_op(op).expect("an instant program raises no input error"),
            }
            return;
        }
        let x = &mut e.exec;
        x.queue.push(op);
        let queued = x.queue.len() - x.next;
        assert!(queued <= x.ops_max, "{queued} instant operations queued, bound {}", x.ops_max);
    }

    /// Copies the page now; where nothing can come between two copies, with every page of
    /// the block after it in the same loop (`copy_rest_at_once`).
    #[inline]
    fn job_read(e: &mut Engine<'_, Self>, id: u32, op: FlashOp) {
        if !e.copy_rest_at_once(id, op.block, op.page) {
            e.prefetch_ahead(op.block, op.page);
            e.copy_page(id, op.block, op.page);
        }
    }

    #[inline]
    fn stamp(e: &Engine<'_, Self>) -> i64 {
        e.exec.stamp
    }

    #[inline]
    fn write_time(_: &Engine<'_, Self>) -> Option<SimTime> {
        None
    }

    #[inline]
    fn may_collect(_: &Engine<'_, Self>, _: DieIdx) -> bool {
        true
    }

    #[inline]
    fn die_idle(e: &Engine<'_, Self>, _: DieIdx) -> bool {
        e.exec.idle
    }

    /// The whole block is copied next: start fetching its L2P entries, `PREFETCH_AHEAD_UNITS`
    /// ahead of the copies (the timed run prefetches page by page when each read starts, a tR
    /// ahead).
    #[inline]
    fn source_taken(e: &mut Engine<'_, Self>, block: BlockIdx) {
        e.exec.pf_block = BlockIdx(crate::ftl::NONE);
        e.prefetch_ahead(block, 0);
    }

    #[inline]
    fn unit_copied(_: &mut Engine<'_, Self>) {}

    #[inline]
    fn erased(_: &mut Engine<'_, Self>, _: BlockIdx, _: JobKind) -> Result<(), FtlabError> {
        Ok(())
    }

    #[inline]
    fn dispatch(_: &mut Engine<'_, Self>, _: DieIdx) {}

    /// No time passes, so nothing can wait behind a unit: the step is a plain `StepGc`.
    #[inline]
    fn step_gc_unit(e: &mut Engine<'_, Self>, die: DieIdx, pages: u32) {
        e.step_gc(die, pages);
    }
}
