//! `part-ftl`: PaRT-FTL's data layout (`../shared/papers/part-ftl-partitioned-real-time-flash.txt`
//! §III-A, Figures 3 and 4): read and write dies apart, XOR parity per channel, and reads of a
//! write die rebuilt from the stripe.
//!
//! - **Dies.** Way `W−1` of every channel holds parity (m = channels parity dies); ways `0..W−1` hold data (k
//!   = channels × (W−1) data dies). The write set F_w is one data way across all channels; host pages and GC
//!   copies are striped over it, channel first. F_w rotates to the next data way once as many pages as a
//!   block per F_w die have been written in the turn (Fig. 4: "after a block of data is written to each write
//!   chip").
//! - **Stripes of blocks.** In each channel, the n-th block filled on each data way form the channel's n-th
//!   stripe; row r of the stripe is page r of each of its blocks, and its parity page (the XOR of the row,
//!   Fig. 3) is programmed on the channel's parity die as soon as the stripe's last block is full
//!   (`Command::ProgramParity`). The integrity oracle seals each parity page and checks every rebuild.
//! - **Reads.** A read of a page on an F_w die, or on a die with a collection under way, is rebuilt from its
//!   row's other data pages and its parity page (`ReadPlan::Rebuild`). A page of a block in no stripe yet
//!   (its stripe waits for a block of a later turn) or whose parity is not placed yet is read directly and
//!   counted (`direct_write_die_reads`).
//! - **GC keeps stripes rebuildable** by never erasing a page that a live stripe needs. When an F_w or parity
//!   die is down to `gc_trigger_free_blocks` free blocks, the stripe with the lowest live fraction is copied
//!   out: every valid unit of its data blocks goes to F_w by copy-only migrations (`erase_sources = false`),
//!   so the old pages stay on flash and every row stays whole until the stripe holds no valid unit. Then it
//!   is dead: its data blocks and (once no live stripe has a page in them) its parity blocks are erasable,
//!   and the engine's GC erases them on F_w dies only (`gc_victim`; `erasable` finds them through
//!   `part_ftl_index.rs`, an index kept by the scheme's events).
//!
//! What this is not: the real-time analysis (Eq. 1-11, admission) is `rt`; deadlines and EDF
//! are the engine's (`ftl.scheduler = "edf"`). Choices the paper leaves open are listed in
//! docs/schemes/part-ftl.md.

use super::{
    parse_config, to_table, Capabilities, ReadPlan, Scheme, SchemeConfigError, SchemeContext, SchemeInfo,
    Stripes, WriteRoles,
};
use crate::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
use crate::ftl::blocks::{BlockState, WriteClass};
use crate::knobs::{check_all, config_fields, serde_defaults, IntBounds, Knob, KnobKind};
use crate::policy::{
    Command, Counters, Dest, DeviceView, Interests, Invalidated, Migration, Placed, StripePages,
};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::{BTreeSet, VecDeque};

#[path = "part_ftl_index.rs"]
mod index;
use index::{ErasableIndex, Mark};

/// Knobs of `[scheme.part-ftl]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PartFtlConfig {
    /// An F_w die (or a parity die) at or below this many free blocks starts a copy-out. Must
    /// be above `ftl.gc_low_watermark_blocks` (where host writes start to wait) and below half
    /// a die's blocks. Default: that watermark + tenants + 1 (room for a copy-out's GC
    /// frontiers) + dies per channel (a stripe's blocks of every data way land on one way).
    #[serde(default)]
    pub(crate) gc_trigger_free_blocks: Option<u32>,
    /// Page reads in flight of one copy-out migration (its rate limit), >= 1. Default 2.
    #[serde(default = "default_reads_in_flight")]
    pub(crate) copy_reads_in_flight: u32,
    /// What a periodic task set failing the admission test (Eq. 6-7, `rt::part_ftl`) does:
    /// `enforce` (default) refuses the scenario with every term of the failing equation;
    /// `report` runs it anyway and reports the verdict in `scheme_counters`.
    #[serde(default)]
    pub(crate) admission: AdmissionMode,
    /// The write buffer's size (§V: "Write requests are buffered"), in blocks per data die,
    /// from 1 to a die's blocks. Default 4, ftlab's sizing (`buffer_pages`): the paper gives
    /// none, and docs/schemes/part-ftl.md reports the claims from 1 to 8.
    #[serde(default = "default_buffer_blocks")]
    pub(crate) write_buffer_blocks_per_data_die: u32,
}

/// The knobs of `part-ftl`: the ranges its build enforces and `ftlab schemes` lists.
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "gc_trigger_free_blocks",
        "blocks",
        KnobKind::Int(IntBounds::ANY),
        "An F_w or parity die at or below this many free blocks starts a stripe copy-out.",
    )
    .also("in (ftl.gc_low_watermark_blocks, half a die's blocks)")
    .absent("ftl.gc_low_watermark_blocks + tenants + 1 + dies per channel"),
    Knob::new(
        "copy_reads_in_flight",
        "pages",
        KnobKind::Int(IntBounds::at_least(1)),
        "Page reads in flight of one copy-out migration (its rate limit).",
    ),
    Knob::new(
        "admission",
        "",
        KnobKind::Choice(&["enforce", "report"]),
        "A periodic task set failing Eq. 6-7: refused with its terms (enforce) or run and reported (report).",
    ),
    Knob::new(
        "write_buffer_blocks_per_data_die",
        "blocks",
        KnobKind::Int(IntBounds::at_least(1)),
        "The write buffer (§V), in blocks per data die; replaces ftl.write_buffer_bytes.",
    )
    .also("at most a die's blocks"),
];

/// `part-ftl`'s registry entry.
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "part-ftl",
    summary: "PaRT-FTL: a rotating write way, XOR parity stripes per channel, rebuilt reads, Eq. 6-7 \
              admission.",
    knobs: KNOBS,
    fields: config_fields::<PartFtlConfig>,
    defaults: serde_defaults::<PartFtlConfig>,
    build,
    caps: Capabilities {
        analysis: Some(crate::rt::part_ftl::analysis),
        // Its buffer drains and its die roles rotate with simulated time (tests/part_ftl.rs:
        // warmed by the instant executor, its buffer held more pages than its size).
        timed_only: Some("its write buffer drains and its die roles rotate with simulated time"),
        ..Capabilities::labelled("PaRT-FTL")
    },
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AdmissionMode {
    #[default]
    Enforce,
    Report,
}

/// The analysis' configuration (Table II's symbols) for this device: |F| dies, |F_w| = one
/// way across the channels, f_r = the other dies, k data and m parity dies, P, λ = the
/// namespaces over the data dies' units, and the device's own times (tR and tPROG each with
/// one page's bus transfer and command; XOR costs 0, as in §VI-B). On the Cosmos board, Table
/// IV's two columns: the read dies' t_r with the other ways of the channel busy
/// (`analysis_times_ms`), and the write dies' (one per channel, Table I's channel-striping
/// rows) t_r, t_w and t_e of one operation alone on its channel.
pub fn analysis_config(g: &Geometry, ctx: &SchemeContext) -> crate::rt::part_ftl::Config {
    let ways = g.dies_per_channel();
    let (read_ms, mut write_ms, mut erase_ms) = super::analysis_times_ms(g, &ctx.timing);
    let mut write_die_read_ms = read_ms;
    let t = &ctx.timing;
    if let Some(b) = &t.board {
        let board = crate::flash::board::Board::new(g, b);
        let ms = |x: SimTime| (x + t.command).as_secs_f64() * 1e3;
        write_die_read_ms = ms(board.lone_read(t.read, g.page_bytes));
        write_ms = ms(board.lone_program(t.program, g.page_bytes));
        erase_ms = ms(board.lone_erase(t.erase));
    }
    let logical: u64 = ctx.namespace_units.iter().map(|&u| u as u64).sum();
    let data_units = (g.channels * (ways - 1)) as u64 * g.blocks_per_die as u64 * g.units_per_block as u64;
    crate::rt::part_ftl::Config {
        dies: g.n_dies,
        write_dies: g.channels,
        parallel_reads: g.n_dies - g.channels,
        data_dies: g.channels * (ways - 1),
        parity_dies: g.channels,
        pages_per_block: g.pages_per_block,
        lambda: logical as f64 / data_units as f64,
        read_ms,
        write_die_read_ms,
        write_ms,
        erase_ms,
        encode_ms: 0.0,
        decode_ms: 0.0,
    }
}

/// Eq. 6 and Eq. 7 on the scenario's periodic tasks: `Err` with every term of a failing test
/// unless `mode` is `report`; the two totals either way (0 without tasks).
fn admission(
    g: &Geometry,
    ctx: &SchemeContext,
    mode: AdmissionMode,
) -> Result<(f64, f64), SchemeConfigError> {
    use crate::rt::part_ftl::{read_test, write_test};
    if ctx.tasks.is_empty() {
        return Ok((0.0, 0.0));
    }
    let c = analysis_config(g, ctx);
    let (r, w) = (read_test(&c, ctx.tasks), write_test(&c, ctx.tasks));
    let failing = [&r, &w].into_iter().find(|t| !t.passes());
    if let (AdmissionMode::Enforce, Some(t)) = (mode, failing) {
        let terms: Vec<String> = t.terms.iter().map(|x| format!("{} = {:.4}", x.name, x.value)).collect();
        return Err(SchemeConfigError::new(
            "admission",
            format!(
                "the periodic tasks fail {} (SRP with EDF, must be <= 1): {} = {:.4}; set admission = \
                 \"report\" to run them anyway",
                t.equation,
                terms.join(" + "),
                t.total()
            ),
        ));
    }
    Ok((r.total(), w.total()))
}

fn default_reads_in_flight() -> u32 {
    2
}

fn default_buffer_blocks() -> u32 {
    4
}

const NONE: u32 = u32::MAX;

/// One stripe: a full block of each data way of a channel, and the parity page of each row.
struct Stripe {
    channel: u32,
    /// `data[way]`: the stripe's block on that data way.
    data: Vec<BlockIdx>,
    /// `parity[row]`: the parity page (global page index), `NONE` until placed.
    parity: Vec<u32>,
    /// Rows whose parity page is programmed (in order): their data left the write buffer.
    covered_rows: u32,
    /// Valid units in the data blocks; the stripe dies at 0.
    live_units: u32,
}

/// Copy-outs in progress per channel at most (each takes one turn per data way).
const COPYING_MAX: usize = 2;

pub(crate) struct PartFtl {
    config: PartFtlConfig,
    g: Geometry,
    trigger_free_blocks: u32,
    data_ways: u32,
    /// The way that is F_w: a data way, or the parity way (`data_ways`) in its turn.
    cur_way: u32,
    /// The data way host pages and GC copies are placed on: F_w's, or the next data way's
    /// once F_w has its block per die (its programs then wait in the buffer for its turn).
    place_way: u32,
    /// The current data turn has its block per die: placement is on the next data way.
    ahead: bool,
    next_channel: u32,
    /// Pages placed on `place_way` since it became the placement way.
    place_pages: u64,
    /// `filled[channel * data_ways + way]`: full data blocks waiting for their stripe, with
    /// their erase count when they filled (a block erased since is dropped).
    filled: Vec<VecDeque<(BlockIdx, u32)>>,
    /// Live stripes by id (`None` once dead), and free ids.
    stripes: Vec<Option<Stripe>>,
    free_ids: Vec<u32>,
    /// Live stripes with rows not yet covered by a programmed parity page.
    uncovered: Vec<u32>,
    /// Per block: the live stripe of a data block, or `NONE`.
    block_stripe: Vec<u32>,
    /// Per block: its data pages still held in the write buffer.
    retained: Vec<u32>,
    /// Per parity block: parity pages of live stripes in it.
    parity_live: Vec<u32>,
    /// Per block: entries for it in `filled` (a block waiting for its stripe).
    waiting: Vec<u32>,
    /// The index of `erasable`: per die, a bit per block that may be erasable (see
    /// `ErasableIndex`).
    erasable_index: ErasableIndex,
    /// Per channel: the stripes being copied out, a block per data way in that way's turn.
    copying: Vec<Vec<u32>>,
    /// Per channel: every live stripe as `(live_units, id)`, so that the copy-out pick (the
    /// fewest valid units, the lowest id on a tie) is the first entries, not a scan of every
    /// stripe on every placed page. Kept in step with `Stripe::live_units` by `seal`,
    /// `on_invalidated` and `kill`.
    by_live_units: Vec<BTreeSet<(u32, u32)>>,
    /// The reclaim poll: one page program (tPROG).
    epoch: SimTime,
    /// `ftl.gc_low_watermark_blocks`: host writes wait while the placement dies are at or
    /// below it.
    write_gate_free_blocks: u32,
    /// The write buffer's size and occupancy, in flash pages.
    buffer_pages_size: u64,
    buffer_pages: u64,
    buffer_pages_max: u64,
    counts: PartFtlCounts,
    direct_write_die_reads: Cell<u64>,
    /// Eq. 6's and Eq. 7's totals for the scenario's periodic tasks (0 without tasks).
    eq6_total: f64,
    eq7_total: f64,
    /// The analysis' configuration (Table II), for Eq. 5's charge at the measured λ.
    analysis: crate::rt::part_ftl::Config,
    /// What the measured phase did (reset when it starts).
    measured: MeasuredCounts,
    /// When the current data turn's F_w began to drain (placement moved past it).
    drain_since: Option<SimTime>,
    /// The write buffer's occupancy sampled at every poll of the timed run.
    buffer_samples: u64,
    buffer_pages_sum: u64,
}

/// Counters of the measured phase (issue 39): GC's copies and what they gave back, F_w's
/// rotations and drains.
#[derive(Default)]
struct MeasuredCounts {
    /// GC copies (units placed by a job), and the data and parity blocks erased.
    gc_copy_units: u64,
    erased_data_blocks: u64,
    erased_parity_blocks: u64,
    /// Stripes that died (no valid unit left): their blocks became erasable.
    stripes_freed: u64,
    rotations: u64,
    /// Time from a data turn's last placed page (placement moved on) to F_w's rotation.
    drain_ns_total: u64,
    drain_ns_max: u64,
    /// Copy-out migrations started, and the valid units of their blocks when they started.
    copy_out_blocks: u64,
    copy_out_valid_units_sum: u64,
    copy_out_valid_units_max: u64,
    /// The data dies' valid units over their capacity (Eq. 4's λ), sampled at every poll.
    lambda_samples: u64,
    lambda_sum: f64,
}

#[derive(Default)]
struct PartFtlCounts {
    rotations: u64,
    early_rotations: u64,
    stripes_sealed: u64,
    stripes_copied: u64,
    copy_out_blocks: u64,
    deferred_writes: u64,
    buffer_overflows: u64,
    parity_dead_on_arrival: u64,
}

pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    Ok(Box::new(PartFtl::new(table, ctx)?))
}

impl PartFtl {
    pub(crate) fn new(table: &toml::Table, ctx: &SchemeContext) -> Result<PartFtl, SchemeConfigError> {
        let config: PartFtlConfig = parse_config(table)?;
        let g = *ctx.geometry;
        let ways = g.dies_per_channel();
        if ways < 2 || ways - 1 > crate::policy::STRIPE_PAGES_MAX as u32 {
            return Err(SchemeConfigError::new(
                "",
                format!(
                    "needs 2 to {} dies per channel (data ways and one parity way), the device has {ways}",
                    crate::policy::STRIPE_PAGES_MAX + 1
                ),
            ));
        }
        check_all(KNOBS, &config)?;
        let low = ctx.low_watermark_blocks;
        let trigger =
            config.gc_trigger_free_blocks.unwrap_or(low + ctx.namespace_units.len() as u32 + 1 + ways);
        if trigger <= low || trigger >= g.blocks_per_die / 2 {
            return Err(SchemeConfigError::new(
                "gc_trigger_free_blocks",
                format!(
                    "must be in {}..{} (above ftl.gc_low_watermark_blocks = {low}, below half a die's {} \
                     blocks), got {trigger}",
                    low + 1,
                    g.blocks_per_die / 2,
                    g.blocks_per_die
                ),
            ));
        }
        if config.write_buffer_blocks_per_data_die > g.blocks_per_die {
            return Err(SchemeConfigError::new(
                "write_buffer_blocks_per_data_die",
                format!(
                    "must be in 1..={} (a die's blocks), got {}",
                    g.blocks_per_die, config.write_buffer_blocks_per_data_die
                ),
            ));
        }
        check_space(&g, ctx, trigger)?;
        let (eq6_total, eq7_total) = admission(&g, ctx, config.admission)?;
        let buffer_pages_size = buffer_pages(&g, config.write_buffer_blocks_per_data_die);
        let analysis = analysis_config(&g, ctx);
        Ok(PartFtl {
            config,
            g,
            trigger_free_blocks: trigger,
            data_ways: ways - 1,
            cur_way: 0,
            place_way: 0,
            ahead: false,
            next_channel: 0,
            place_pages: 0,
            filled: vec![VecDeque::new(); (g.channels * (ways - 1)) as usize],
            stripes: Vec::new(),
            free_ids: Vec::new(),
            uncovered: Vec::new(),
            block_stripe: vec![NONE; g.n_blocks as usize],
            retained: vec![0; g.n_blocks as usize],
            parity_live: vec![0; g.n_blocks as usize],
            waiting: vec![0; g.n_blocks as usize],
            erasable_index: ErasableIndex::new(&g),
            copying: vec![Vec::new(); g.channels as usize],
            by_live_units: vec![BTreeSet::new(); g.channels as usize],
            epoch: ctx.timing.program,
            write_gate_free_blocks: low,
            buffer_pages_size,
            buffer_pages: 0,
            buffer_pages_max: 0,
            counts: PartFtlCounts::default(),
            direct_write_die_reads: Cell::new(0),
            eq6_total,
            eq7_total,
            analysis,
            measured: MeasuredCounts::default(),
            drain_since: None,
            buffer_samples: 0,
            buffer_pages_sum: 0,
        })
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

    /// Whether `die` is in F_w now.
    fn is_write_die(&self, die: DieIdx) -> bool {
        self.way_of(die) == self.cur_way
    }

    fn page(&self, ppa: Ppa) -> u32 {
        ppa.0 / self.g.units_per_page
    }

    fn stripe(&self, id: u32) -> &Stripe {
        self.stripes[id as usize].as_ref().expect("a live stripe")
    }

    /// Whether channel `ch` can take a host write: its placement die is above the host gate
    /// (the space below is for copy-outs).
    fn channel_open(&self, view: &DeviceView, ch: u32) -> bool {
        view.ftl.blocks().free_count(self.die(ch, self.place_way)) > self.write_gate_free_blocks
    }

    /// The next die of the placement way, channel first: for a host write one of an open
    /// channel, for a copy one above the host reserve.
    fn next_write_die(&mut self, view: &DeviceView, host: bool) -> DieIdx {
        let c = self.g.channels;
        for k in 0..c {
            let ch = (self.next_channel + k) % c;
            let die = self.die(ch, self.place_way);
            let room = if host {
                self.channel_open(view, ch)
            } else {
                view.ftl.blocks().free_count(die) > view.ftl.params.host_reserve_blocks
            };
            if room {
                self.next_channel = (ch + 1) % c;
                return die;
            }
        }
        // Every placement die is down to the reserve: a copy takes the reserve of the
        // roomiest (the reserve is kept for GC; host writes are gated well above it).
        (0..c)
            .map(|ch| self.die(ch, self.place_way))
            .max_by_key(|&d| (view.ftl.blocks().free_count(d), std::cmp::Reverse(d.0)))
            .expect("a channel")
    }

    /// A data page was placed (host or copy): it enters the write buffer and counts towards
    /// the placement way's block per die; a block it fills waits for its stripe.
    fn page_placed(&mut self, view: &DeviceView, page: u32, die: DieIdx, cmds: &mut Vec<Command>) {
        assert!(!self.is_parity_die(die), "data page {page} on parity die {}", die.0);
        let ppb = self.g.pages_per_block;
        let block = BlockIdx(page / ppb);
        self.retained[block.0 as usize] += 1;
        self.buffer_pages += 1;
        self.buffer_pages_max = self.buffer_pages_max.max(self.buffer_pages);
        if self.buffer_pages > self.buffer_pages_size {
            // Nothing waits for room (a page leaves the buffer only when its stripe, which
            // needs more pages, is covered): an overflow is counted, never hidden.
            self.counts.buffer_overflows += 1;
        }
        // The block's last page (an event may arrive after nested copies have filled the
        // block further, so "the block is full now" would count a block twice).
        if page % ppb == ppb - 1 {
            let slot = (self.g.channel_of(die) * self.data_ways + self.way_of(die)) as usize;
            self.filled[slot].push_back((block, view.ftl.blocks().get(block).erase_count));
            self.waiting[block.0 as usize] += 1;
            self.form_stripes(view, self.g.channel_of(die), cmds);
        }
        if self.way_of(die) == self.place_way {
            self.place_pages += 1;
        }
        if self.place_pages >= self.g.channels as u64 * ppb as u64 {
            self.advance_placement(view.now);
        }
        self.reclaim(view, cmds);
    }

    /// The placement way has its block per die (Fig. 4: "after a block of data is written to
    /// each write chip"): placement moves to the next data way, once, ahead of F_w.
    fn advance_placement(&mut self, now: SimTime) {
        if self.ahead {
            return;
        }
        self.ahead = true;
        self.drain_since = Some(now);
        self.place_way = (self.place_way + 1) % self.data_ways;
        self.place_pages = 0;
    }

    /// With one data way the next data way is F_w's own: host pages wait for the parity
    /// way's turn instead of keeping F_w from draining.
    fn placement_waits(&self) -> bool {
        self.ahead && self.place_way == self.cur_way
    }

    /// While every data way of `channel` has a full block waiting, the front blocks form a
    /// stripe and its parity programs are pushed. A waiting block erased meanwhile (all its
    /// data died before it had a stripe) is dropped.
    fn form_stripes(&mut self, view: &DeviceView, channel: u32, cmds: &mut Vec<Command>) {
        let w = self.data_ways as usize;
        let slots = channel as usize * w..(channel as usize + 1) * w;
        loop {
            for q in &mut self.filled[slots.clone()] {
                while let Some(&(b, erases)) = q.front() {
                    let info = view.ftl.blocks().get(b);
                    if info.erase_count == erases
                        && matches!(info.state, BlockState::Full | BlockState::Victim)
                    {
                        break;
                    }
                    q.pop_front();
                    self.waiting[b.0 as usize] -= 1;
                }
            }
            if self.filled[slots.clone()].iter().any(VecDeque::is_empty) {
                return;
            }
            let data: Vec<BlockIdx> =
                self.filled[slots.clone()].iter_mut().map(|q| q.pop_front().expect("checked").0).collect();
            for &b in &data {
                self.waiting[b.0 as usize] -= 1;
            }
            self.seal(view, channel, data, cmds);
        }
    }

    /// A new stripe over `data` (one full block per data way of `channel`): one parity
    /// program per row on the channel's parity die (run in the parity way's turn).
    fn seal(&mut self, view: &DeviceView, channel: u32, data: Vec<BlockIdx>, cmds: &mut Vec<Command>) {
        let live_units: u32 = data.iter().map(|&b| view.ftl.blocks().get(b).valid_units).sum();
        let id = self.free_ids.pop().unwrap_or(self.stripes.len() as u32);
        for &b in &data {
            assert_eq!(self.block_stripe[b.0 as usize], NONE, "block {} in two stripes", b.0);
            self.block_stripe[b.0 as usize] = id;
        }
        let (ppb, upp) = (self.g.pages_per_block, self.g.units_per_page);
        let parity_die = self.die(channel, self.data_ways);
        let mut row = Vec::with_capacity(data.len());
        for r in 0..ppb {
            row.clear();
            row.extend(data.iter().map(|&b| Ppa((b.0 * ppb + r) * upp)));
            cmds.push(Command::ProgramParity {
                tenant: 0,
                stream: 0,
                die: parity_die,
                data: StripePages::new(&row),
            });
        }
        let stripe = Stripe { channel, data, parity: vec![NONE; ppb as usize], covered_rows: 0, live_units };
        if id as usize == self.stripes.len() {
            self.stripes.push(Some(stripe));
        } else {
            self.stripes[id as usize] = Some(stripe);
        }
        let fresh = self.by_live_units[channel as usize].insert((live_units, id));
        assert!(fresh, "stripe {id} indexed twice");
        self.uncovered.push(id);
        self.counts.stripes_sealed += 1;
        if live_units == 0 {
            self.kill(id);
        }
    }

    /// The pages of `block` still in the write buffer leave it.
    fn release(&mut self, block: BlockIdx) {
        let n = std::mem::take(&mut self.retained[block.0 as usize]);
        assert!(
            self.buffer_pages >= n as u64,
            "write buffer holds fewer pages than block {} retains",
            block.0
        );
        self.buffer_pages -= n as u64;
    }

    /// Stripe `id` holds no valid unit: its blocks no longer pin anything, and its data
    /// leaves the buffer.
    fn kill(&mut self, id: u32) {
        let s = self.stripes[id as usize].take().expect("a live stripe dies once");
        self.measured.stripes_freed += 1;
        assert_eq!(s.live_units, 0, "stripe {id} dies with valid units");
        let indexed = self.by_live_units[s.channel as usize].remove(&(0, id));
        assert!(indexed, "stripe {id} was not indexed at 0 valid units");
        for &b in &s.data {
            self.block_stripe[b.0 as usize] = NONE;
            self.release(b);
            self.erasable_index.mark(b);
        }
        let ppb = self.g.pages_per_block;
        for p in s.parity.into_iter().filter(|&p| p != NONE) {
            let n = &mut self.parity_live[(p / ppb) as usize];
            assert!(*n > 0, "parity block {} pinned by no live page", p / ppb);
            *n -= 1;
            if *n == 0 {
                self.erasable_index.mark(BlockIdx(p / ppb));
            }
        }
        self.free_ids.push(id);
        self.uncovered.retain(|&x| x != id);
        self.copying[s.channel as usize].retain(|&x| x != id);
    }

    /// Rows whose parity page is now programmed leave the buffer (in row order).
    fn update_coverage(&mut self, view: &DeviceView) {
        let (ppb, upp) = (self.g.pages_per_block, self.g.units_per_page);
        let mut i = 0;
        while i < self.uncovered.len() {
            let id = self.uncovered[i];
            let s = self.stripes[id as usize].as_mut().expect("an uncovered stripe is live");
            while s.covered_rows < ppb {
                let p = s.parity[s.covered_rows as usize];
                if p == NONE || !view.ftl.is_programmed(Ppa(p * upp)) {
                    break;
                }
                s.covered_rows += 1;
                for &b in &s.data {
                    // A padded page (no data, no `Placed` event) was never in the buffer.
                    let r = &mut self.retained[b.0 as usize];
                    if *r > 0 {
                        *r -= 1;
                        self.buffer_pages -= 1;
                    }
                }
            }
            if s.covered_rows == ppb {
                self.uncovered.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// F_w moves on once it has done its turn and drained: a data way when placement has
    /// moved past it, the parity way when its programs are done; every F_w die must have no
    /// program, erase or job read queued or running, and no job holding it. The new F_w dies
    /// start what waited for them.
    fn try_rotate(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let ways = self.data_ways + 1;
        let turn_done = if self.cur_way == self.data_ways {
            // Eq. 3's encoding task: the sealed stripes' parity is programmed, unless what is
            // left cannot be: once the parity dies have drained (below) with no erase due on
            // any of them (`erase_due`), every parity program left waits for a block that only
            // a data turn can free (its stripes die by copy-outs), so the turn ends and the
            // rest waits a cycle. (This used to ask that no parity die hold an erasable block:
            // a die with room and dead blocks, not short enough to erase them, then kept the
            // turn, and the device, waiting for ever; soak seeds 6 and 76.)
            self.uncovered.is_empty()
                || !(0..self.g.channels).any(|ch| self.erase_due(view, self.die(ch, self.data_ways)))
        } else {
            self.ahead
        };
        let drained = (0..self.g.channels).all(|ch| {
            let st = view.dies[self.die(ch, self.cur_way).0 as usize];
            st.writes_queued == 0 && st.job.is_none()
        });
        if !(turn_done && drained) {
            return;
        }
        self.counts.rotations += 1;
        self.measured.rotations += 1;
        if let Some(since) = self.drain_since.take() {
            let ns = view.now.ns() - since.ns();
            self.measured.drain_ns_total += ns;
            self.measured.drain_ns_max = self.measured.drain_ns_max.max(ns);
        }
        self.cur_way = (self.cur_way + 1) % ways;
        if self.cur_way != self.data_ways {
            assert_eq!(self.place_way, self.cur_way, "F_w moved to a data way placement is not on");
            self.ahead = false;
        }
        for ch in 0..self.g.channels {
            cmds.push(Command::Dispatch { die: self.die(ch, self.cur_way) });
        }
    }

    /// Reclaiming, polled and on every placed page: coverage, rotation; then, in a data
    /// way's turn (not while it drains), copy-outs of the current way's blocks of the stripes
    /// being copied and erases of dead blocks on F_w; in the parity way's turn, its erases.
    fn reclaim(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        self.update_coverage(view);
        self.try_rotate(view, cmds);
        let draining = self.cur_way != self.data_ways && self.ahead;
        if draining {
            return;
        }
        // Erases first: a dead block's erase is the GC operation that gives a block back, and a
        // copy-out started first would hold the die's collector for a whole block of copies.
        self.erase_dead(view, cmds);
        if self.cur_way != self.data_ways {
            for ch in 0..self.g.channels {
                if self.erase_due(view, self.die(ch, self.cur_way)) {
                    continue;
                }
                self.pick_copy_stripe(view, ch);
                for i in 0..self.copying[ch as usize].len() {
                    let id = self.copying[ch as usize][i];
                    self.copy_out(view, id, cmds);
                }
            }
        }
        // The write set is at the host gate and can erase nothing: its turn ends early.
        let stuck = self.cur_way != self.data_ways
            && (0..self.g.channels).all(|ch| {
                let d = self.die(ch, self.cur_way);
                view.ftl.blocks().free_count(d) <= self.write_gate_free_blocks
                    && self.erasable(view, d).is_none()
            });
        if stuck {
            self.counts.early_rotations += 1;
            self.advance_placement(view.now);
        }
    }

    /// Channel `ch`'s F_w or parity die is at or below the trigger: one more stripe of the
    /// channel (the fewest valid units, the lowest id on a tie; never one with no invalid
    /// unit) is copied out, up to `COPYING_MAX` at a time.
    fn pick_copy_stripe(&mut self, view: &DeviceView, ch: u32) {
        if self.copying[ch as usize].len() >= COPYING_MAX {
            return;
        }
        // Free blocks and dead ones (their erase is due, `erase_dead`): a die whose dead blocks
        // would lift it above the trigger needs erases, not another stripe's copies. (Until
        // issue 39 only free blocks counted: the copy-outs kept a die's collector busy, its dead
        // blocks waited for an erase that the next copy-out's job pre-empted, and GC copied
        // stripes with next to no invalid unit, 255 of 256 pages a block, to make room that the
        // dead blocks already held.)
        let cap = self.trigger_free_blocks + 1;
        let room = |way| self.reclaimable_blocks(view, self.die(ch, way), cap);
        let short = room(self.cur_way) <= self.trigger_free_blocks
            || room(self.data_ways) <= self.trigger_free_blocks;
        if !short {
            return;
        }
        let full = self.data_ways * self.g.units_per_block;
        let busy = &self.copying[ch as usize];
        let best = self.by_live_units[ch as usize]
            .iter()
            .take_while(|&&(live_units, _)| live_units < full)
            .find(|(_, id)| !busy.contains(id));
        if let Some(&(_, id)) = best {
            self.copying[ch as usize].push(id);
            self.counts.stripes_copied += 1;
        }
    }

    /// F_w dies with no job erase a dead block when they are short of space.
    fn erase_dead(&self, view: &DeviceView, cmds: &mut Vec<Command>) {
        for ch in 0..self.g.channels {
            let d = self.die(ch, self.cur_way);
            if self.erase_due(view, d) {
                cmds.push(Command::StepGc { die: d, pages: 1 });
            }
        }
    }

    /// Whether `die`, in its turn, erases a dead block now: it is short of space, has no job,
    /// and holds an erasable block.
    fn erase_due(&self, view: &DeviceView, die: DieIdx) -> bool {
        view.ftl.blocks().free_count(die) <= self.trigger_free_blocks + 1
            && view.dies[die.0 as usize].job.is_none()
            && self.erasable(view, die).is_some()
    }

    /// The lowest-numbered full block of `die` with every page programmed, no valid unit
    /// and no live stripe needing it (`ErasableIndex`: only the die's marked blocks are
    /// looked at).
    fn erasable(&self, view: &DeviceView, die: DieIdx) -> Option<BlockIdx> {
        self.erasable_index.first(die, |b| self.erasable_mark(view, b))
    }

    /// The verdict on a marked block: erasable now, maybe later without an event, or not
    /// until an event marks it again.
    fn erasable_mark(&self, view: &DeviceView, b: BlockIdx) -> Mark {
        let blocks = view.ftl.blocks();
        let i = b.0 as usize;
        if blocks.get(b).valid_units > 0 || self.block_stripe[i] != NONE || self.parity_live[i] > 0 {
            return Mark::Drop;
        }
        // Full with every page programmed and no valid unit (greedy key 0); a block still
        // open, programming or under a copy-out becomes so without an event: keep it.
        if blocks.greedy_keys()[i] == 0 {
            Mark::Found
        } else {
            Mark::Keep
        }
    }

    /// The blocks `die` can have without copying a page: its free blocks and its erasable
    /// (dead) ones, counted up to `cap`. A dead block is space already reclaimed by GC's
    /// copies; it waits only for its erase (§V: GC's operations on a die are "either reading a
    /// valid page, writing a valid page, or erasing a block").
    fn reclaimable_blocks(&self, view: &DeviceView, die: DieIdx, cap: u32) -> u32 {
        let free = view.ftl.blocks().free_count(die);
        if free >= cap {
            return free;
        }
        free + self.erasable_index.count(die, cap - free, |b| self.erasable_mark(view, b))
    }

    /// A full block of `die` that is in no stripe and waits for none (its last page was
    /// padded, so it never joined one) with the fewest valid units: no parity covers it, so
    /// the engine's GC may move its data and erase it as on any device.
    fn unstriped_victim(&self, view: &DeviceView, die: DieIdx) -> Option<BlockIdx> {
        let ppb = self.g.pages_per_block;
        view.ftl
            .geometry
            .blocks_of_die(die)
            .map(BlockIdx)
            .filter(|&b| {
                let info = view.ftl.blocks().get(b);
                let i = b.0 as usize;
                info.state == BlockState::Full
                    && info.programmed_pages == ppb
                    && self.block_stripe[i] == NONE
                    && self.parity_live[i] == 0
                    && self.waiting[i] == 0
            })
            .min_by_key(|&b| (view.ftl.blocks().get(b).valid_units, b.0))
    }

    /// Copy out stripe `id`'s block on F_w, if it still holds valid units, is collectable
    /// (programs done) and its die's collector slot is free: one copy-only migration, whose
    /// reads, copies and (later) erase all run on F_w dies.
    fn copy_out(&mut self, view: &DeviceView, id: u32, cmds: &mut Vec<Command>) {
        let ftl = view.ftl;
        let b = self.stripe(id).data[self.cur_way as usize];
        let die = self.g.die_of_block(b);
        if ftl.is_collectable(b)
            && ftl.blocks().get(b).valid_units > 0
            && view.dies[die.0 as usize].job.is_none()
        {
            self.counts.copy_out_blocks += 1;
            let valid = ftl.blocks().get(b).valid_units as u64;
            self.measured.copy_out_blocks += 1;
            self.measured.copy_out_valid_units_sum += valid;
            self.measured.copy_out_valid_units_max = self.measured.copy_out_valid_units_max.max(valid);
            let m = Migration {
                blocks: vec![b],
                dest: Dest::Scheme,
                erase_sources: false,
                reads_in_flight_max: self.config.copy_reads_in_flight,
                deadline: SimTime::MAX,
            };
            cmds.push(Command::Migrate(m));
        }
    }

    /// Eq. 4's λ on the data dies now: their valid units over their capacity.
    fn data_lambda(&self, view: &DeviceView) -> f64 {
        let tenants = view.ftl.n_tenants() as u16;
        let mut valid = 0u64;
        for ch in 0..self.g.channels {
            for way in 0..self.data_ways {
                let d = self.die(ch, way);
                valid += (0..tenants).map(|t| view.ftl.valid_units_on(t, d)).sum::<u64>();
            }
        }
        let data_units = (self.g.channels * self.data_ways) as u64
            * self.g.blocks_per_die as u64
            * self.g.units_per_block as u64;
        valid as f64 / data_units as f64
    }

    /// The measured phase's counters (issue 39; docs/schemes/part-ftl.md, "Counters"), and
    /// Eq. 5's copy charge at the measured λ beside the measured copies per reclaimed page.
    fn measured_counters(&self, out: &mut Counters) {
        let m = &self.measured;
        let erased = m.erased_data_blocks + m.erased_parity_blocks;
        out.push(("gc_copies", m.gc_copy_units as f64));
        out.push(("erased_data_blocks", m.erased_data_blocks as f64));
        out.push(("erased_parity_blocks", m.erased_parity_blocks as f64));
        if erased > 0 {
            out.push(("gc_copies_per_erased_block_mean", m.gc_copy_units as f64 / erased as f64));
        }
        out.push(("copy_out_blocks_measured", m.copy_out_blocks as f64));
        if m.copy_out_blocks > 0 {
            out.push((
                "copy_out_valid_units_mean",
                m.copy_out_valid_units_sum as f64 / m.copy_out_blocks as f64,
            ));
        }
        out.push(("copy_out_valid_units_max", m.copy_out_valid_units_max as f64));
        out.push(("stripes_freed", m.stripes_freed as f64));
        out.push(("rotations_measured", m.rotations as f64));
        out.push(("fw_drain_ns_total", m.drain_ns_total as f64));
        out.push(("fw_drain_ns_max", m.drain_ns_max as f64));
        if self.buffer_samples > 0 {
            out.push(("write_buffer_pages_mean", self.buffer_pages_sum as f64 / self.buffer_samples as f64));
        }
        // Reclaimed: the erased data blocks' units less the copies that moved their valid
        // ones (Eq. 5's k·α for k victims of ⌈λP⌉ valid pages each).
        let upb = self.g.units_per_block as u64;
        let reclaimed = (m.erased_data_blocks * upb).saturating_sub(m.gc_copy_units);
        if reclaimed > 0 {
            out.push(("gc_copies_per_reclaimed_page", m.gc_copy_units as f64 / reclaimed as f64));
        }
        if m.lambda_samples > 0 {
            let lambda = m.lambda_sum / m.lambda_samples as f64;
            out.push(("lambda_measured", lambda));
            let c = crate::rt::part_ftl::Config { lambda, ..self.analysis };
            if let Some(x) = crate::rt::part_ftl::gc_copies_per_reclaimed_page(&c) {
                out.push(("eq5_copies_per_reclaimed_page", x));
            }
            if let Some(x) = crate::rt::part_ftl::gc_data_copies_per_reclaimed_page(&c) {
                out.push(("eq5_data_copies_per_reclaimed_page", x));
            }
        }
    }

    /// The stripe and row of `page` when it can be rebuilt: its row's parity is programmed.
    fn covered(&self, page: u32) -> Option<(u32, u32)> {
        let ppb = self.g.pages_per_block;
        let id = self.block_stripe[(page / ppb) as usize];
        if id == NONE {
            return None;
        }
        let row = page % ppb;
        (row < self.stripe(id).covered_rows).then_some((id, row))
    }
}

/// The write buffer's size in flash pages: `blocks` blocks per data die. A page stays in the
/// buffer until its row's parity page is programmed, in the parity way's turn after every
/// block of its stripe is full. The default, 4, is per data die the open block of host pages,
/// the open block of GC copies (a separate frontier), a full block waiting for the other
/// ways' blocks of its stripe, and a full block of a sealed stripe waiting for the parity
/// way's turn. ftlab's sizing; the paper gives none (docs/schemes/part-ftl.md sweeps 1-8).
/// The measured high-water mark and every page past the size are counted.
fn buffer_pages(g: &Geometry, blocks: u32) -> u64 {
    blocks as u64 * (g.channels * (g.dies_per_channel() - 1)) as u64 * g.pages_per_block as u64
}

/// The namespaces must fit in the data dies with room for the trigger's spare blocks and a
/// stripe per data way in flight.
fn check_space(g: &Geometry, ctx: &SchemeContext, trigger: u32) -> Result<(), SchemeConfigError> {
    let ways = g.dies_per_channel() as u64;
    let data_dies = g.channels as u64 * (ways - 1);
    let spare_blocks = trigger as u64 + ways;
    let room = data_dies * (g.blocks_per_die as u64).saturating_sub(spare_blocks) * g.units_per_block as u64;
    let logical: u64 = ctx.namespace_units.iter().map(|&u| u as u64).sum();
    if logical > room {
        let op_needed = g.n_units() as f64 / room as f64 - 1.0;
        return Err(SchemeConfigError::new(
            "",
            format!(
                "the namespaces ({logical} units) do not fit in the {data_dies} data dies less \
                 {spare_blocks} spare blocks each ({room} units; the parity way holds no data): raise \
                 device.over_provisioning to at least {op_needed:.3}"
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
        Interests { placed: true, invalidated: true, erased: true }
    }

    fn host_write_die(&mut self, _tenant: u16, _stream: u8, view: &DeviceView) -> DieIdx {
        self.next_write_die(view, true)
    }

    /// Per copy (no `gc_block_die`): the placement die rotates as pages fill.
    fn gc_write_die(&mut self, _owner: u16, _victim_die: DieIdx, view: &DeviceView) -> DieIdx {
        self.next_write_die(view, false)
    }

    /// One page program: the last job's end raises no event the scheme hears, so coverage,
    /// rotation and reclaiming are also polled.
    fn epoch(&self) -> Option<SimTime> {
        Some(self.epoch)
    }

    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        self.buffer_samples += 1;
        self.buffer_pages_sum += self.buffer_pages;
        self.measured.lambda_samples += 1;
        self.measured.lambda_sum += self.data_lambda(view);
        self.reclaim(view, cmds);
    }

    fn on_measure_start(&mut self, _view: &DeviceView) {
        self.measured = MeasuredCounts::default();
    }

    /// §V: "Each read or write request is split up into flash page-size requests by the
    /// device driver and then inserted into a request circular buffer. The FTL retrieves the
    /// requests and orders them according to Earliest Deadline First": a write waiting for
    /// room waits in that buffer, and the reads behind it go on.
    fn deferred_writes_wait_in_queue(&self) -> bool {
        true
    }

    /// Host writes wait (one poll) while no placement die is open (down to the low
    /// watermark: the space below is for copy-outs).
    fn admit(&mut self, _tenant: u16, op: crate::workload::IoOp, view: &DeviceView) -> super::Admission {
        if op != crate::workload::IoOp::Write {
            return super::Admission::Admit;
        }
        if !self.placement_waits() && (0..self.g.channels).any(|ch| self.channel_open(view, ch)) {
            return super::Admission::Admit;
        }
        self.counts.deferred_writes += 1;
        super::Admission::Defer(view.now + self.epoch)
    }

    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        self.erasable_index.mark(self.g.block_of(ev.ppa));
        if ev.class == WriteClass::Gc {
            self.measured.gc_copy_units += 1;
        }
        let upp = self.g.units_per_page;
        if ev.class == WriteClass::Parity || ev.ppa.0 % upp != upp - 1 {
            return;
        }
        self.page_placed(view, self.page(ev.ppa), self.g.die_of(ev.ppa), cmds);
    }

    fn on_invalidated(&mut self, _view: &DeviceView, ev: &Invalidated, _cmds: &mut Vec<Command>) {
        let block = self.g.block_of(ev.ppa);
        self.erasable_index.mark(block);
        let id = self.block_stripe[block.0 as usize];
        if id == NONE {
            return;
        }
        let s = self.stripes[id as usize].as_mut().expect("a live stripe");
        assert!(s.live_units > 0, "stripe {id} lost a unit it did not count");
        let index = &mut self.by_live_units[s.channel as usize];
        let indexed = index.remove(&(s.live_units, id));
        assert!(indexed, "stripe {id} was not indexed at {} valid units", s.live_units);
        s.live_units -= 1;
        index.insert((s.live_units, id));
        if s.live_units == 0 {
            self.kill(id);
        }
    }

    /// A block erased while its pages were still in the buffer (it filled, its data died
    /// before its stripe formed): they leave it.
    fn on_erased(&mut self, _view: &DeviceView, block: BlockIdx, _cmds: &mut Vec<Command>) {
        self.erasable_index.unmark(block);
        if self.is_parity_die(self.g.die_of_block(block)) {
            self.measured.erased_parity_blocks += 1;
        } else {
            self.measured.erased_data_blocks += 1;
        }
        self.release(block);
    }

    /// GC erases a block with no valid unit that no live stripe needs (stripes are copied out
    /// by `reclaim`), else collects a block that joined no stripe; on F_w only.
    fn gc_victim(
        &self,
        die: DieIdx,
        view: &DeviceView,
        _policy: crate::ftl::gc::VictimPolicy,
    ) -> Option<BlockIdx> {
        if !self.is_write_die(die) {
            return None;
        }
        self.erasable(view, die).or_else(|| self.unstriped_victim(view, die))
    }

    fn on_run_start(&mut self, _view: &DeviceView, _cmds: &mut Vec<Command>) {
        // The buffer's high-water mark and overflows of the timed run (preconditioning writes
        // instantly, roles and buffer being bookkeeping only).
        self.buffer_pages_max = self.buffer_pages;
        self.counts.buffer_overflows = (self.buffer_pages > self.buffer_pages_size) as u64;
        self.buffer_samples = 0;
        self.buffer_pages_sum = 0;
    }

    fn counters(&self, out: &mut Counters) {
        let c = &self.counts;
        out.push(("rotations", c.rotations as f64));
        out.push(("early_rotations", c.early_rotations as f64));
        out.push(("stripes_sealed", c.stripes_sealed as f64));
        out.push(("stripes_copied", c.stripes_copied as f64));
        out.push(("copy_out_blocks", c.copy_out_blocks as f64));
        out.push(("deferred_writes", c.deferred_writes as f64));
        out.push(("write_buffer_overflows", c.buffer_overflows as f64));
        out.push(("parity_dead_on_arrival", c.parity_dead_on_arrival as f64));
        out.push(("direct_write_die_reads", self.direct_write_die_reads.get() as f64));
        out.push(("live_stripes", self.stripes.iter().filter(|s| s.is_some()).count() as f64));
        out.push(("write_buffer_pages", self.buffer_pages_size as f64));
        out.push(("write_buffer_pages_max", self.buffer_pages_max as f64));
        out.push(("admission_eq6_total", self.eq6_total));
        out.push(("admission_eq7_total", self.eq7_total));
        self.measured_counters(out);
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&PartFtlConfig {
            gc_trigger_free_blocks: Some(self.trigger_free_blocks),
            ..self.config.clone()
        })
    }

    fn stripes(&self) -> Option<&dyn Stripes> {
        Some(self)
    }

    fn stripes_mut(&mut self) -> Option<&mut dyn Stripes> {
        Some(self)
    }

    fn write_roles(&self) -> Option<&dyn WriteRoles> {
        Some(self)
    }
}

impl WriteRoles for PartFtl {
    /// §III-A: "F_w is the set of flash chips servicing only write requests and performing
    /// garbage collection, and F_r is the set of flash chips servicing only read requests".
    fn may_write(&self, die: DieIdx) -> bool {
        self.is_write_die(die)
    }

    /// §V: "Write requests are buffered and admission control guarantees that the buffer
    /// will not overflow."
    fn write_buffer_units(&self) -> Option<u64> {
        Some(self.buffer_pages_size * self.g.units_per_page as u64)
    }
}

impl Stripes for PartFtl {
    fn on_parity_placed(&mut self, data: &StripePages, parity: Ppa, _view: &DeviceView) {
        self.erasable_index.mark(self.g.block_of(parity));
        let first = self.page(data.as_slice()[0]);
        let ppb = self.g.pages_per_block;
        let id = self.block_stripe[(first / ppb) as usize];
        if id == NONE {
            // Its stripe died while this program waited for room: the parity page is dead as
            // soon as it is written. (The engine drops waiting parity whose data block is
            // erased, so the data is still the stripe's.)
            self.counts.parity_dead_on_arrival += 1;
            return;
        }
        let row = first % ppb;
        let p = self.page(parity);
        let s = self.stripes[id as usize].as_mut().expect("a live stripe");
        assert_eq!(s.parity[row as usize], NONE, "row {row} of stripe {id} has two parity pages");
        assert_eq!(self.g.channel_of(self.g.die_of(parity)), s.channel, "parity on another channel");
        s.parity[row as usize] = p;
        self.parity_live[(p / ppb) as usize] += 1;
    }

    /// A page whose row's parity is not programmed yet is still in the write buffer (§V;
    /// the "read from the buffer until their stripe is sealed"); a covered page on
    /// F_w is rebuilt from F_r (§III-A); any other is read where it is, on a read die.
    fn read_plan(&self, ppa: Ppa, _view: &DeviceView) -> ReadPlan {
        let die = self.g.die_of(ppa);
        let page = self.page(ppa);
        if self.retained[(page / self.g.pages_per_block) as usize] > 0 && self.covered(page).is_none() {
            return ReadPlan::Buffer;
        }
        if !self.is_write_die(die) {
            return ReadPlan::Direct;
        }
        if self.is_parity_die(die) || self.covered(page).is_none() {
            self.direct_write_die_reads.set(self.direct_write_die_reads.get() + 1);
            return ReadPlan::Direct;
        }
        ReadPlan::Rebuild
    }

    fn stripe_members(&self, ppa: Ppa, _view: &DeviceView, out: &mut Vec<Ppa>) {
        let own = self.page(ppa);
        let (id, row) = self.covered(own).expect("rebuild of a page with no programmed parity");
        let s = self.stripe(id);
        let (ppb, upp) = (self.g.pages_per_block, self.g.units_per_page);
        out.extend(s.data.iter().map(|&b| b.0 * ppb + row).filter(|&p| p != own).map(|p| Ppa(p * upp)));
        out.push(Ppa(s.parity[row as usize] * upp));
    }

    /// Static wear leveling moves a block and erases it: only on F_w, one no live stripe
    /// needs.
    fn may_level(&self, block: BlockIdx, _view: &DeviceView) -> bool {
        let i = block.0 as usize;
        self.is_write_die(self.g.die_of_block(block))
            && self.block_stripe[i] == NONE
            && self.parity_live[i] == 0
    }
}
