//! `part-ftl`: PaRT-FTL's data layout (`../shared/papers/part-ftl-partitioned-real-time-flash.txt`
//! §III-A, Figures 3 and 4): read and write dies apart, XOR parity per channel, and reads of a
//! write die rebuilt from the stripe.
//!
//! - **Dies.** Way `W−1` of every channel holds parity (m = channels parity dies); ways
//!   `0..W−1` hold data (k = channels × (W−1) data dies). The write set F_w is one data way
//!   across all channels; host pages and GC copies are striped over it, channel first. F_w
//!   rotates to the next data way once as many pages as a block per F_w die have been written
//!   in the turn (Fig. 4: "after a block of data is written to each write chip").
//! - **Stripes.** A *group* is one cycle of turns over the data ways. Row r of a channel's
//!   stripe in a group is the r-th page completed on each of the channel's data dies in the
//!   group's turns; when the cycle ends, each row's parity page (the XOR of the row) is
//!   programmed on the channel's parity die (`Command::ProgramParity`). The integrity oracle
//!   seals each parity page and checks every rebuild.
//! - **Reads.** A read of a page on an F_w die, or on a die with a collection under way, is
//!   rebuilt from its row's other data pages and its parity page (`ReadPlan::Rebuild`), all on
//!   read dies of the same channel (or the parity die). A page whose group is not sealed yet
//!   (the current cycle) has no parity: it is read directly and counted (`direct_write_die_reads`).
//! - **GC keeps stripes rebuildable** by never erasing a page that a live stripe still needs.
//!   When an F_w die is down to `gc_trigger_free_blocks` free blocks, the valid data of the
//!   oldest live group's blocks on that die is copied to F_w (a copy-only migration,
//!   `erase_sources = false`): the old pages stay on flash, so every stripe stays whole. A
//!   group whose data pages hold no valid unit any more is dead; a block is erasable once it
//!   holds no valid unit and no page of a live group (data or parity). Erases happen on F_w
//!   dies and on parity dies only (`gc_victim`), so a read die never erases. Groups die in the
//!   order they were written (log-structured cleaning by group, as Eq. 5 reclaims a group's
//!   k + m blocks), not greedily.
//!
//! What this is not: the real-time analysis (Eq. 1-11, admission) is `rt`; deadlines and EDF
//! are the engine's (`ftl.scheduler = "edf"`). Choices the paper leaves open are listed in
//! docs/schemes/part-ftl.md.

use super::{parse_config, to_table, ReadPlan, Scheme, SchemeConfigError, SchemeContext};
use crate::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
use crate::ftl::blocks::{BlockState, WriteClass};
use crate::policy::{Command, Counters, DeviceView, Dest, Interests, Invalidated, Migration, Placed, StripePages};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::VecDeque;

/// Knobs of `[scheme.part-ftl]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartFtlConfig {
    /// An F_w die (or a parity die) at or below this many free blocks starts copy-outs. Must
    /// be above `ftl.gc_low_watermark_blocks` (where host writes start to wait). Default: that
    /// watermark + tenants + 1 (room for a copy-out's GC frontiers) + dies per channel (a
    /// group dies one cycle of turns after its copy-out starts, and each turn writes about a
    /// block per F_w die).
    #[serde(default)]
    pub gc_trigger_free_blocks: Option<u32>,
    /// Page reads in flight of one copy-out migration (its rate limit), >= 1. Default 2.
    #[serde(default = "default_reads_in_flight")]
    pub copy_reads_in_flight: u32,
}

fn default_reads_in_flight() -> u32 {
    2
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupState {
    /// Its turns are being written; no parity yet.
    Open,
    /// Its parity programs are issued.
    Sealed,
    /// No valid unit left in its data pages; its pages are free to erase.
    Dead,
}

/// One cycle of turns: per (channel, data way), the pages completed in order; per (channel,
/// row), the parity page once placed.
struct Group {
    state: GroupState,
    /// `rows[channel * data_ways + way]`: page indices in completion order.
    rows: Vec<Vec<u32>>,
    /// `parity[channel]`: parity page index of each row (`NONE` until placed).
    parity: Vec<Vec<u32>>,
    /// Data pages holding at least one valid unit.
    live_pages: u32,
}

pub struct PartFtl {
    config: PartFtlConfig,
    g: Geometry,
    trigger_free_blocks: u32,
    data_ways: u32,
    /// The data way that is F_w.
    cur_way: u32,
    next_channel: u32,
    /// Pages completed on F_w dies in this turn.
    turn_pages: u64,
    /// Groups by id - `group_base`, oldest first.
    groups: VecDeque<Group>,
    group_base: u32,
    /// Per physical page: its group id, or `NONE`.
    page_group: Vec<u32>,
    /// Per physical page: its row in its channel's stripes of its group.
    page_row: Vec<u32>,
    /// Per block: pages of live (open or sealed) groups it holds.
    block_live: Vec<u32>,
    /// Per die: the blocks of its last copy-out, with their erase counts then.
    copying: Vec<Vec<(BlockIdx, u32)>>,
    direct_write_die_reads: Cell<u64>,
    copy_outs: u64,
    rotations: u64,
    /// The reclaim poll: one page program (tPROG).
    epoch: SimTime,
    /// `ftl.gc_low_watermark_blocks`: host writes wait while an F_w die is at or below it.
    write_gate_free_blocks: u32,
    deferred_writes: u64,
    early_rotations: u64,
    /// Free blocks every F_w die must have for a copy-out to start: one per tenant (a GC
    /// frontier each) and one more.
    copy_room_blocks: u32,
}

pub fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    Ok(Box::new(PartFtl::new(table, ctx)?))
}

impl PartFtl {
    pub fn new(table: &toml::Table, ctx: &SchemeContext) -> Result<PartFtl, SchemeConfigError> {
        let config: PartFtlConfig = parse_config(table)?;
        let g = *ctx.geometry;
        let ways = g.dies_per_channel();
        if ways < 2 || ways - 1 > crate::policy::STRIPE_PAGES_MAX as u32 {
            return Err(SchemeConfigError::new("", format!("needs 2 to {} dies per channel (data ways and one parity way), the device has {ways}", crate::policy::STRIPE_PAGES_MAX + 1)));
        }
        if config.copy_reads_in_flight == 0 {
            return Err(SchemeConfigError::new("copy_reads_in_flight", "must be at least 1"));
        }
        let low = ctx.low_watermark_blocks;
        let copy_room_blocks = ctx.namespace_units.len() as u32 + 1;
        // Room for a copy-out (copy_room_blocks) and for a group's share of every data way to
        // be copied while the host writes about a block per turn.
        let trigger = config.gc_trigger_free_blocks.unwrap_or(low + copy_room_blocks + ways);
        if trigger <= low || trigger >= g.blocks_per_die / 2 {
            return Err(SchemeConfigError::new("gc_trigger_free_blocks", format!("must be in {}..{} (above ftl.gc_low_watermark_blocks = {low}, below half a die's {} blocks), got {trigger}", low + 1, g.blocks_per_die / 2, g.blocks_per_die)));
        }
        check_space(&g, ctx, trigger)?;
        let n_pages = (g.n_units() / g.units_per_page as u64) as usize;
        let mut s = PartFtl {
            config,
            g,
            trigger_free_blocks: trigger,
            data_ways: ways - 1,
            cur_way: 0,
            next_channel: 0,
            turn_pages: 0,
            groups: VecDeque::new(),
            group_base: 0,
            page_group: vec![NONE; n_pages],
            page_row: vec![NONE; n_pages],
            block_live: vec![0; g.n_blocks as usize],
            copying: vec![Vec::new(); g.n_dies as usize],
            direct_write_die_reads: Cell::new(0),
            copy_outs: 0,
            rotations: 0,
            epoch: ctx.timing.program,
            write_gate_free_blocks: low,
            deferred_writes: 0,
            early_rotations: 0,
            copy_room_blocks,
        };
        s.open_group();
        Ok(s)
    }

    fn die(&self, channel: u32, way: u32) -> DieIdx {
        DieIdx(channel * self.g.dies_per_channel() + way)
    }

    fn way_of(&self, die: DieIdx) -> u32 {
        die.0 % self.g.dies_per_channel()
    }

    fn is_parity_die(&self, die: DieIdx) -> bool {
        self.way_of(die) == self.data_ways
    }

    fn is_write_die(&self, die: DieIdx) -> bool {
        self.way_of(die) == self.cur_way
    }

    fn page(&self, ppa: Ppa) -> u32 {
        ppa.0 / self.g.units_per_page
    }

    fn group(&self, id: u32) -> &Group {
        &self.groups[(id - self.group_base) as usize]
    }

    fn group_mut(&mut self, id: u32) -> &mut Group {
        &mut self.groups[(id - self.group_base) as usize]
    }

    fn current_group(&self) -> u32 {
        self.group_base + self.groups.len() as u32 - 1
    }

    fn open_group(&mut self) {
        let (c, w) = (self.g.channels as usize, self.data_ways as usize);
        self.groups.push_back(Group { state: GroupState::Open, rows: vec![Vec::new(); c * w], parity: vec![Vec::new(); c], live_pages: 0 });
    }

    fn valid_units_of_page(&self, view: &DeviceView, page: u32) -> usize {
        let upp = self.g.units_per_page;
        view.ftl.p2l_range(Ppa(page * upp), upp).iter().filter(|&&l| l != NONE).count()
    }

    /// The next F_w die, channel first; a copy skips dies down to the host reserve.
    fn next_write_die(&mut self, view: Option<&DeviceView>) -> DieIdx {
        let c = self.g.channels;
        for k in 0..c {
            let ch = (self.next_channel + k) % c;
            let die = self.die(ch, self.cur_way);
            let room = view.is_none_or(|v| v.ftl.blocks().free_count(die) > v.ftl.params.host_reserve_blocks);
            if room {
                self.next_channel = (ch + 1) % c;
                return die;
            }
        }
        // Every F_w die is down to the reserve: a copy takes the reserve of the roomiest
        // (the reserve is kept for GC; host writes never reach here with a view).
        let v = view.expect("only copies look at room");
        (0..c).map(|ch| self.die(ch, self.cur_way)).max_by_key(|&d| (v.ftl.blocks().free_count(d), std::cmp::Reverse(d.0))).expect("a channel")
    }

    /// A page completed on an F_w die: it joins the open group's row list of its die.
    /// A page completed on an F_w die: it counts towards the turn; a block it fills joins
    /// the open group, every page of it, in order.
    fn page_completed(&mut self, view: &DeviceView, page: u32, die: DieIdx, cmds: &mut Vec<Command>) {
        assert!(self.is_write_die(die), "page {page} completed on die {} outside F_w", die.0);
        let ppb = self.g.pages_per_block;
        let block = BlockIdx(page / ppb);
        // The block's last page (an event may arrive after nested copies have filled the
        // block further, so "the block is full now" would count a block twice). A block whose
        // last page was padded joins no group: its pages are read directly.
        if page % ppb == ppb - 1 {
            self.block_filled(view, block, die);
        }
        self.turn_pages += 1;
        if self.turn_pages >= self.g.channels as u64 * ppb as u64 {
            self.rotate(cmds);
        }
        self.reclaim(view, cmds);
    }

    /// Rows are made of whole blocks, so a live group's pages are always in full blocks (which
    /// a copy-out can take), never in a frontier block still open.
    fn block_filled(&mut self, view: &DeviceView, block: BlockIdx, die: DieIdx) {
        let gid = self.current_group();
        let slot = (self.g.channel_of(die) * self.data_ways + self.cur_way) as usize;
        let ppb = self.g.pages_per_block;
        let first = block.0 * ppb;
        let live = (first..first + ppb).filter(|&p| self.valid_units_of_page(view, p) > 0).count() as u32;
        let group = self.group_mut(gid);
        let row0 = group.rows[slot].len() as u32;
        group.rows[slot].extend(first..first + ppb);
        group.live_pages += live;
        for (i, p) in (first..first + ppb).enumerate() {
            assert_eq!(self.page_group[p as usize], NONE, "page {p} joined two groups");
            self.page_group[p as usize] = gid;
            self.page_row[p as usize] = row0 + i as u32;
        }
        self.block_live[block.0 as usize] += ppb;
    }

    /// When an F_w die is at or below the trigger: each F_w die with no job erases a block no
    /// stripe needs, else copies out its share of the oldest live group (unless its last
    /// copy-out is still under way). Copying only the oldest group, on every F_w die at once,
    /// lets groups die in order instead of one die racing ahead into younger groups.
    fn reclaim(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        if !self.short_of_space(view, self.trigger_free_blocks) {
            return;
        }
        self.erase_parity(view, cmds);
        let mut busy = false;
        for ch in 0..self.g.channels {
            let d = self.die(ch, self.cur_way);
            if view.dies[d.0 as usize].job.is_some() || self.copy_pending(view, d) {
                busy = true;
            } else if self.gc_victim(d, view, crate::ftl::gc::VictimPolicy::Greedy).is_some() {
                cmds.push(Command::StepGc { die: d, pages: 1 });
                busy = true;
            } else {
                busy |= self.copy_out(view, d, cmds);
            }
        }
        // The write set itself is short of space and can neither erase nor copy (what it holds
        // is the open group's): end the turn early, so the group can be sealed.
        let write_set_short = (0..self.g.channels).any(|ch| view.ftl.blocks().free_count(self.die(ch, self.cur_way)) <= self.trigger_free_blocks);
        if !busy && write_set_short {
            self.early_rotations += 1;
            self.rotate(cmds);
        }
    }

    /// An F_w die or a parity die is at or below `free_blocks` (parity pages are pinned as
    /// long as their group, so the parity dies fill as the data dies do).
    fn short_of_space(&self, view: &DeviceView, free_blocks: u32) -> bool {
        (0..self.g.channels).any(|ch| {
            let free = |way| view.ftl.blocks().free_count(self.die(ch, way));
            free(self.cur_way) <= free_blocks || free(self.data_ways) <= free_blocks
        })
    }

    /// Parity dies erase the blocks of dead groups as soon as they have them.
    fn erase_parity(&self, view: &DeviceView, cmds: &mut Vec<Command>) {
        for ch in 0..self.g.channels {
            let d = self.die(ch, self.data_ways);
            if view.dies[d.0 as usize].job.is_none() && self.gc_victim(d, view, crate::ftl::gc::VictimPolicy::Greedy).is_some() {
                cmds.push(Command::StepGc { die: d, pages: 1 });
            }
        }
    }

    fn copy_pending(&self, view: &DeviceView, die: DieIdx) -> bool {
        // Pending while a block still holds the data asked for (not erased and refilled since).
        self.copying[die.0 as usize].iter().any(|&(b, erases)| {
            let info = view.ftl.blocks().get(b);
            info.erase_count == erases && info.valid_units > 0 && matches!(info.state, BlockState::Full | BlockState::Victim)
        })
    }

    /// F_w moves to the next data way; after the last, the group is sealed and a new one opens.
    fn rotate(&mut self, cmds: &mut Vec<Command>) {
        self.rotations += 1;
        self.turn_pages = 0;
        self.cur_way += 1;
        if self.cur_way < self.data_ways {
            return;
        }
        self.cur_way = 0;
        let gid = self.current_group();
        self.seal(gid, cmds);
        self.open_group();
    }

    /// One parity page per (channel, row) of group `gid`, on the channel's parity die.
    fn seal(&mut self, gid: u32, cmds: &mut Vec<Command>) {
        let w = self.data_ways as usize;
        let mut data = Vec::with_capacity(w);
        for ch in 0..self.g.channels {
            let rows = &self.group(gid).rows[ch as usize * w..(ch as usize + 1) * w];
            let n_rows = rows.iter().map(Vec::len).max().unwrap_or(0);
            for r in 0..n_rows {
                data.clear();
                data.extend(rows.iter().filter_map(|list| list.get(r)).map(|&p| Ppa(p * self.g.units_per_page)));
                cmds.push(Command::ProgramParity { tenant: 0, stream: 0, die: self.die(ch, self.data_ways), data: StripePages::new(&data) });
            }
            self.group_mut(gid).parity[ch as usize] = vec![NONE; n_rows];
        }
        let group = self.group_mut(gid);
        group.state = GroupState::Sealed;
        if group.live_pages == 0 {
            self.kill(gid);
        }
    }

    /// Group `gid` holds no valid data: its pages no longer pin their blocks.
    fn kill(&mut self, gid: u32) {
        let ppb = self.g.pages_per_block;
        let group = self.group_mut(gid);
        assert_eq!(group.state, GroupState::Sealed, "only a sealed group dies");
        group.state = GroupState::Dead;
        let pages: Vec<u32> = group.rows.iter().chain(group.parity.iter()).flatten().copied().filter(|&p| p != NONE).collect();
        for p in pages {
            self.page_group[p as usize] = NONE;
            self.page_row[p as usize] = NONE;
            let b = &mut self.block_live[(p / ppb) as usize];
            assert!(*b > 0, "block {} pinned by no live page", p / ppb);
            *b -= 1;
        }
        while self.groups.front().is_some_and(|g| g.state == GroupState::Dead) {
            self.groups.pop_front();
            self.group_base += 1;
        }
    }

    /// Copy out, on F_w die `die`, one block of the oldest sealed group with valid data there
    /// (copy-only: the old pages stay for the stripes until the group dies). Whether it did.
    fn copy_out(&mut self, view: &DeviceView, die: DieIdx, cmds: &mut Vec<Command>) -> bool {
        let ftl = view.ftl;
        // A block's copies may open a new block in each owner's GC frontier on each F_w die:
        // copy only while every F_w die has that much room.
        let room = (0..self.g.channels).map(|ch| ftl.blocks().free_count(self.die(ch, self.cur_way))).min().unwrap_or(0);
        if room < self.copy_room_blocks {
            return false;
        }
        let ppb = self.g.pages_per_block;
        let slot = (self.g.channel_of(die) * self.data_ways + self.cur_way) as usize;
        // The oldest sealed group with data here: groups die in order as each way's turn
        // copies its share of them.
        for group in self.groups.iter().filter(|g| g.state == GroupState::Sealed) {
            let mut blocks: Vec<BlockIdx> = group.rows[slot].iter().map(|&p| BlockIdx(p / ppb)).collect();
            blocks.sort_unstable();
            blocks.dedup();
            // A migration skips a block whose programs are still pending: take only those
            // it can copy now (the others come in a later copy-out).
            blocks.retain(|&b| ftl.is_collectable(b) && ftl.blocks().get(b).valid_units > 0);
            // One block at a time: the next waits for this one's end, so copies never run far
            // ahead of the space they need.
            blocks.truncate(1);
            if !blocks.is_empty() {
                self.copy_outs += blocks.len() as u64;
                self.copying[die.0 as usize] = blocks.iter().map(|&b| (b, ftl.blocks().get(b).erase_count)).collect();
                let m = Migration { blocks, dest: Dest::Scheme, erase_sources: false, reads_in_flight_max: self.config.copy_reads_in_flight, deadline: SimTime::MAX };
                cmds.push(Command::Migrate(m));
                return true;
            }
        }
        false
    }

    /// The stripe of `page` when it can be rebuilt: (group, channel, row) with parity placed.
    fn stripe_of(&self, page: u32) -> Option<(u32, u32, u32)> {
        let gid = self.page_group[page as usize];
        if gid == NONE {
            return None;
        }
        let group = self.group(gid);
        let ch = self.g.channel_of(self.g.die_of(Ppa(page * self.g.units_per_page)));
        let row = self.page_row[page as usize];
        let parity = group.parity[ch as usize].get(row as usize).copied().unwrap_or(NONE);
        (group.state == GroupState::Sealed && parity != NONE).then_some((gid, ch, row))
    }
}

/// The namespaces must fit in the data dies with room for the copy-out cycle: a group dies
/// one cycle after its copy-out starts, so each data die keeps `trigger` blocks plus one
/// block per data way spare.
fn check_space(g: &Geometry, ctx: &SchemeContext, trigger: u32) -> Result<(), SchemeConfigError> {
    let ways = g.dies_per_channel() as u64;
    let data_dies = g.channels as u64 * (ways - 1);
    let spare_blocks = trigger as u64 + ways;
    let room = data_dies * (g.blocks_per_die as u64).saturating_sub(spare_blocks) * g.units_per_block as u64;
    let logical: u64 = ctx.namespace_units.iter().map(|&u| u as u64).sum();
    if logical > room {
        let physical = g.n_units() as f64;
        let op_needed = physical / room as f64 - 1.0;
        return Err(SchemeConfigError::new(
            "",
            format!(
                "the namespaces ({logical} units) do not fit in the {data_dies} data dies less {spare_blocks} spare blocks each ({room} units; the parity way holds no data): raise device.over_provisioning to at least {op_needed:.3}"
            ),
        ));
    }
    Ok(())
}

impl Scheme for PartFtl {
    fn name(&self) -> &'static str {
        "part-ftl"
    }

    fn interests(&self) -> Interests {
        Interests { placed: true, invalidated: true, erased: false }
    }

    fn host_write_die(&mut self, _tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.next_write_die(None)
    }

    fn gc_write_die(&mut self, _owner: u16, _victim_die: DieIdx, view: &DeviceView) -> DieIdx {
        self.next_write_die(Some(view))
    }

    /// One page program: the last job's end raises no event the scheme hears, so reclaiming
    /// is also polled (it does nothing unless an F_w die is at the trigger).
    fn epoch(&self) -> Option<SimTime> {
        Some(self.epoch)
    }

    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        self.reclaim(view, cmds);
    }

    /// Host writes wait (one poll) while an F_w die is down to the low watermark: the space
    /// below it is for copy-outs, whose copies land on F_w dies and whose sources are erased
    /// only when their group dies (the engine's reserve argument, copies fit on the source's
    /// own die, does not hold for them).
    fn admit(&mut self, _tenant: u16, op: crate::workload::IoOp, view: &DeviceView) -> super::Admission {
        if op != crate::workload::IoOp::Write {
            return super::Admission::Admit;
        }
        if self.short_of_space(view, self.write_gate_free_blocks) {
            self.deferred_writes += 1;
            return super::Admission::Defer(view.now + self.epoch);
        }
        super::Admission::Admit
    }

    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        let upp = self.g.units_per_page;
        if ev.class == WriteClass::Parity || ev.ppa.0 % upp != upp - 1 {
            return;
        }
        self.page_completed(view, self.page(ev.ppa), self.g.die_of(ev.ppa), cmds);
    }

    fn on_invalidated(&mut self, view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        let page = self.page(ev.ppa);
        let gid = self.page_group[page as usize];
        if gid == NONE || self.valid_units_of_page(view, page) > 0 {
            return;
        }
        let group = self.group_mut(gid);
        assert!(group.live_pages > 0, "group {gid} lost a live page it did not count");
        group.live_pages -= 1;
        if group.live_pages == 0 && group.state == GroupState::Sealed {
            self.kill(gid);
        }
    }

    fn on_parity_placed(&mut self, data: &StripePages, parity: Ppa, _view: &DeviceView) {
        let first = self.page(data.as_slice()[0]);
        let (gid, row) = (self.page_group[first as usize], self.page_row[first as usize]);
        assert_ne!(gid, NONE, "parity of page {first}, which is in no group");
        let ch = self.g.channel_of(self.g.die_of(data.as_slice()[0]));
        let p = self.page(parity);
        let group = self.group_mut(gid);
        assert_eq!(group.parity[ch as usize][row as usize], NONE, "row {row} of channel {ch} has two parity pages");
        group.parity[ch as usize][row as usize] = p;
        self.page_group[p as usize] = gid;
        self.page_row[p as usize] = row;
        self.block_live[(p / self.g.pages_per_block) as usize] += 1;
    }

    fn read_plan(&self, ppa: Ppa, view: &DeviceView) -> ReadPlan {
        let die = self.g.die_of(ppa);
        if !(self.is_write_die(die) || view.is_collecting(die)) {
            return ReadPlan::Direct;
        }
        match self.stripe_of(self.page(ppa)) {
            Some(_) => ReadPlan::Rebuild,
            None => {
                self.direct_write_die_reads.set(self.direct_write_die_reads.get() + 1);
                ReadPlan::Direct
            }
        }
    }

    fn stripe_members(&self, ppa: Ppa, _view: &DeviceView, out: &mut Vec<Ppa>) {
        let own = self.page(ppa);
        let (gid, ch, row) = self.stripe_of(own).expect("rebuild of a page with no sealed stripe");
        let group = self.group(gid);
        let w = self.data_ways as usize;
        let upp = self.g.units_per_page;
        for list in &group.rows[ch as usize * w..(ch as usize + 1) * w] {
            if let Some(&p) = list.get(row as usize).filter(|&&p| p != own) {
                out.push(Ppa(p * upp));
            }
        }
        out.push(Ppa(group.parity[ch as usize][row as usize] * upp));
    }

    /// Only dies that may erase (F_w and parity), and only blocks no live stripe needs.
    fn gc_victim(&self, die: DieIdx, view: &DeviceView, _policy: crate::ftl::gc::VictimPolicy) -> Option<BlockIdx> {
        if !(self.is_write_die(die) || self.is_parity_die(die)) {
            return None;
        }
        let ppb = self.g.pages_per_block;
        view.ftl.geometry.blocks_of_die(die).map(BlockIdx).find(|&b| {
            let info = view.ftl.blocks().get(b);
            info.state == BlockState::Full && info.programmed_pages == ppb && info.valid_units == 0 && self.block_live[b.0 as usize] == 0
        })
    }

    /// Static wear leveling erases its block: only where GC may, and only a block no live
    /// stripe needs.
    fn may_level(&self, block: BlockIdx, view: &DeviceView) -> bool {
        let die = view.ftl.geometry.die_of_block(block);
        (self.is_write_die(die) || self.is_parity_die(die)) && self.block_live[block.0 as usize] == 0
    }

    fn counters(&self, out: &mut Counters) {
        out.push(("rotations", self.rotations as f64));
        out.push(("deferred_writes", self.deferred_writes as f64));
        out.push(("early_rotations", self.early_rotations as f64));
        out.push(("copy_out_blocks", self.copy_outs as f64));
        out.push(("direct_write_die_reads", self.direct_write_die_reads.get() as f64));
        out.push(("live_groups", self.groups.iter().filter(|g| g.state != GroupState::Dead).count() as f64));
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&PartFtlConfig { gc_trigger_free_blocks: Some(self.trigger_free_blocks), ..self.config.clone() })
    }
}
