//! The index of a scored GC victim search (`VictimIndex`), kept in step with the blocks'
//! state by `Blocks::refresh_key` and `Blocks::note_read`, and the search over it
//! (`VictimIndex::best`), which finds exactly what a scan of every block of the die finds.
//! Cost-benefit (`Ftl::select_victim`) and `upi`'s read-weighted score use it.
//!
//! Two sets of lazy min-heaps of the GC-eligible blocks (full, every page programmed), each
//! ordered by write stamp, then block:
//! - *by units*: per die, owner slot and count of valid units v. Where a slot's score
//!   depends only on v and the stamp (an *exact* slot: cost-benefit, or `upi`'s blocks that
//!   cannot earn the read term here), the score is a chain of correctly rounded operations,
//!   each monotone, on v and the age `now - stamp`: at a fixed v it never rises as the stamp
//!   grows. So a heap's top, the oldest block of (slot, v), has the heap's highest score, and
//!   the blocks that tie with it are found by walking down from the top while the score stays
//!   equal (a child's stamp is at least its parent's).
//! - *by reads*, built at the first search that needs it: per die, owner slot, band of valid
//!   units and read level (`ReadLevels`: the block's host reads in quarters of a power of
//!   two, the last level taking every count from 2^24). For a *bounded* slot (`upi`'s blocks
//!   that may earn the read term) the caller bounds the score from the band's fewest units,
//!   the stamp and the level's most reads, monotone in the stamp as above; the search walks
//!   the heaps in order of their top's bound (those below the exact slots' best not at all),
//!   a level of a heap's tree at a time (`Walk`), and skips a subtree whose root's bound is
//!   below the best score found, and every entry whose stamp is at least one whose bound was.
//!
//! A block without valid units scores +infinity under both scores, so the lowest such block
//! wins. Ties go to the lowest block index, as a scan in index order keeps the first maximum.
//! Upkeep is lazy twice over. A change of a block's state only marks the block (`Pending`: a
//! tag per block and a list per die, for the heaps by reads a list per die and owner slot);
//! its heaps follow at the next search of its die, so a block whose valid units fall many
//! times between two searches (a long write invalidating a run of its units) moves once, and
//! the heaps by reads follow only at a search that walks them, for the slots it walks: those
//! scored by a bound that hold an eligible block on the die (on a die holding only blocks of
//! owners scored exactly, none). Before, every change moved the block at once: a push into a
//! heap and a stale entry per invalidated unit, a third of a `upi` run's time. A block that
//! changes heap gets a new version and a new entry; its old entry, left behind, is dropped at
//! once if it was its heap's top (so every top is fresh: `Heaps::settle`), else when it
//! reaches the top or when the die's heaps are compacted (when they hold more than twice its
//! eligible blocks). Each heap's top is also kept in two dense arrays (`Heaps::top_blocks`,
//! `top_keys`), so that a search, which reads the top of every heap of the die (and again to
//! find the blocks tying with the best), reads them in order instead of one heap's memory
//! each. The heaps' shapes differ from those of the eager upkeep, never a
//! search's result: that is the highest score, ties to the lowest block, whatever the shape.
//! What this is not: it knows no score and no policy (the callers give them), and it is not
//! kept before `Ftl::enable_victim_bounds` (`Blocks::kept_index`).

use super::block_info::{BlockInfo, BlockState};

/// "Not in any heap" in `Member::bucket`.
const NO_BUCKET: u32 = u32::MAX;

/// Owner slots at most: tenants `0..OWNER_SLOTS_MAX` have a slot each, every other owner
/// (and `OWNER_NONE`) shares the last one.
const OWNER_SLOTS_MAX: u32 = 16;
// `best` keeps a set of owner slots as the bits of a u32.
const _: () = assert!(OWNER_SLOTS_MAX < 32);

/// Stale entries a die's heaps may hold beyond its eligible blocks before they are compacted.
const COMPACT_SLACK: u32 = 64;

/// Host reads from which every count shares the last read level (2^24).
const READ_BITS_MAX: u32 = 24;

/// The heaps by reads of one die, at most: the read levels are made coarser where owner
/// slots x bands x levels would exceed it (memory: 24 bytes per heap, most of them empty).
const BY_READS_HEAPS_PER_DIE_MAX: u32 = 1 << 15;

/// Bands of valid units of the heaps by reads, at most.
const BANDS_MAX: u32 = 128;

/// Waiting blocks ahead of the one caught up whose state and membership are prefetched (the
/// list is in the order the blocks changed: their entries lie at random).
const CATCH_UP_PREFETCH_AHEAD: usize = 8;

/// One heap entry: a block, its heap key (the write stamp; 0 in the heaps by units of no
/// valid unit, so that the top there is the lowest block), and the version of the block's
/// heap membership it was pushed with (stale once the block's version moved on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    key: i64,
    block: u32,
    version: u32,
}

impl Entry {
    /// Heap order: key, then block.
    #[inline]
    fn before(&self, other: &Entry) -> bool {
        (self.key, self.block) < (other.key, other.block)
    }
}

/// A heap's top as kept (`Heaps::top`).
#[derive(Clone, Copy, Debug)]
struct Top {
    key: i64,
    block: u32,
}

/// How a victim search scores the blocks of one owner slot on the die searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotScore {
    /// Every block's score is `exact(v, stamp)`.
    Exact,
    /// Every block's score is at most `bound(band's fewest units, stamp, slot, most reads)`;
    /// `score` gives it.
    Bounded,
}

/// The read levels of the heaps by reads: counts below 2^`sub_bits` have a level each; from
/// there, each power of two [2^b, 2^(b+1)) is cut into 2^`sub_bits` levels by the count's
/// `sub_bits` bits after its leading one; every count from 2^`READ_BITS_MAX` on shares the
/// last level. A level's most reads bound its blocks' counts within a factor
/// 1 + 2^-`sub_bits`: the bound of a walk by reads is that much tighter than by bit length
/// alone (`sub_bits` 0), which on the UPI full form's device let the search visit four times
/// the blocks.
#[derive(Clone, Copy, Debug)]
struct ReadLevels {
    sub_bits: u32,
    /// Levels in all.
    count: u32,
}

impl ReadLevels {
    fn new(sub_bits: u32) -> ReadLevels {
        assert!(sub_bits < READ_BITS_MAX, "read levels: {sub_bits} sub-bits");
        ReadLevels { sub_bits, count: (1 << sub_bits) + (READ_BITS_MAX - sub_bits) * (1 << sub_bits) + 1 }
    }

    /// The level of a block with `reads` host reads.
    #[inline]
    fn of(&self, reads: u32) -> u32 {
        let s = self.sub_bits;
        if reads < 1 << s {
            return reads;
        }
        let bits = 32 - reads.leading_zeros();
        if bits > READ_BITS_MAX {
            return self.count - 1;
        }
        let sub = (reads >> (bits - 1 - s)) & ((1 << s) - 1);
        (1 << s) + (bits - 1 - s) * (1 << s) + sub
    }

    /// The most reads of a block at `level` (`None`: any number).
    fn reads_max(&self, level: u32) -> Option<u32> {
        let s = self.sub_bits;
        if level == self.count - 1 {
            return None;
        }
        if level < 1 << s {
            return Some(level);
        }
        let (octave, sub) = ((level - (1 << s)) >> s, (level - (1 << s)) & ((1 << s) - 1));
        Some((((1u32 << s) + sub + 1) << octave) - 1)
    }
}

/// A block's heap in a `Heaps` (`NO_BUCKET`: none) and the version of that membership, bumped
/// whenever the heap changes (an entry with another version is stale). A block changes heap a
/// few hundred times per erase at most, so the u32 wraps only after millions of erases of one
/// block.
#[derive(Clone, Copy, Debug)]
struct Member {
    bucket: u32,
    version: u32,
    /// The key of its entry there (a block may leave its heap and come back to it with another
    /// stamp between two searches of its die: that is a change too).
    key: i64,
}

/// Lazy min-heaps over the blocks, each block in at most one of them (its bucket), numbered
/// die by die (`per_die` each).
#[derive(Clone, Debug)]
struct Heaps {
    per_die: u32,
    blocks_per_die: u32,
    heaps: Vec<Vec<Entry>>,
    /// Per heap: its top (fresh), where it holds an entry.
    /// Per heap: its top's (fresh) block and key, where it holds an entry (4 and 8 bytes a
    /// heap, so that the check of a moving block and a search's reading of the tops touch
    /// few cache lines).
    top_blocks: Vec<u32>,
    top_keys: Vec<i64>,
    /// Bit h: heap h holds an entry (fresh or stale), so that a search skips empty heaps.
    nonempty: Vec<u64>,
    /// Per block: its bucket, version and key (one cache line for all three).
    member: Vec<Member>,
    /// Per die: entries in its heaps (fresh and stale), and blocks in a bucket.
    entries_per_die: Vec<u32>,
    live_per_die: Vec<u32>,
}

impl Heaps {
    fn new(n_dies: u32, blocks_per_die: u32, per_die: u32) -> Heaps {
        let n_blocks = (n_dies * blocks_per_die) as usize;
        Heaps {
            per_die,
            blocks_per_die,
            heaps: vec![Vec::new(); (n_dies * per_die) as usize],
            top_blocks: vec![0; (n_dies * per_die) as usize],
            top_keys: vec![0; (n_dies * per_die) as usize],
            nonempty: vec![0; (n_dies * per_die).div_ceil(64) as usize],
            member: vec![Member { bucket: NO_BUCKET, version: 0, key: 0 }; n_blocks],
            entries_per_die: vec![0; n_dies as usize],
            live_per_die: vec![0; n_dies as usize],
        }
    }

    /// Put block `b` into `bucket` (or none) with heap key `key`, if it is not there.
    #[inline]
    fn set(&mut self, b: u32, bucket: u32, key: i64) {
        let m = self.member[b as usize];
        if bucket != m.bucket || (bucket != NO_BUCKET && key != m.key) {
            self.change(b, m.bucket, bucket, key);
        }
    }

    fn change(&mut self, b: u32, old: u32, new: u32, key: i64) {
        let die = (b / self.blocks_per_die) as usize;
        let m = &mut self.member[b as usize];
        let version = m.version.wrapping_add(1);
        *m = Member { bucket: new, version, key };
        if old == NO_BUCKET {
            self.live_per_die[die] += 1;
        } else if self.top_blocks[old as usize] == b {
            // The block's entry was its old heap's top: a fresh top there again.
            self.settle(old as usize);
        }
        if new == NO_BUCKET {
            self.live_per_die[die] -= 1;
            return;
        }
        let entry = Entry { key, block: b, version };
        let heap = &mut self.heaps[new as usize];
        heap.push(entry);
        let last = heap.len() - 1;
        if sift_up(heap, last) == 0 {
            self.keep_top(new as usize, entry);
        }
        self.nonempty[new as usize / 64] |= 1 << (new % 64);
        self.entries_per_die[die] += 1;
        if self.entries_per_die[die] > 2 * self.live_per_die[die] + COMPACT_SLACK {
            self.compact(die);
        }
    }

    /// Hint that block `b`'s membership will be read soon (`set`).
    #[inline(always)]
    fn prefetch_member(&self, b: u32) {
        super::table::prefetch(&self.member, b as usize);
    }

    /// Hint that an entry will be pushed onto heap `bucket` (`NO_BUCKET`: none) soon: its
    /// parent-to-be, the first entry `sift_up` compares with, and the heap's last entry (whose
    /// cache line the new one mostly shares).
    #[inline(always)]
    fn prefetch_push(&self, bucket: u32) {
        if let Some(heap) = self.heaps.get(bucket as usize) {
            super::table::prefetch(heap, heap.len().saturating_sub(1) / 2);
            super::table::prefetch(heap, heap.len().wrapping_sub(1));
        }
    }

    /// Whether `e` is its block's current entry.
    #[inline]
    fn fresh(&self, e: &Entry) -> bool {
        self.member[e.block as usize].version == e.version
    }

    /// Drop the stale entries of die `die`'s heaps.
    fn compact(&mut self, die: usize) {
        let per_die = self.per_die as usize;
        let (mut entries, end) = (0, (die + 1) * per_die);
        // Only the heaps holding entries: a die has up to tens of thousands of heaps by reads,
        // nearly all empty.
        let mut next = die * per_die;
        while let Some(i) = self.next_nonempty(next, end) {
            next = i + 1;
            let mut heap = std::mem::take(&mut self.heaps[i]);
            heap.retain(|e| self.fresh(e));
            if heap.capacity() > 2 * heap.len() + 8 {
                // A heap keeps its largest size otherwise (every block of a die passes through
                // the heap of full blocks during a fill): memory, not results.
                heap.shrink_to_fit();
            }
            heapify(&mut heap);
            entries += heap.len() as u32;
            match heap.first() {
                Some(&top) => self.keep_top(i, top),
                None => self.nonempty[i / 64] &= !(1 << (i % 64)),
            }
            self.heaps[i] = heap;
        }
        assert_eq!(entries, self.live_per_die[die], "victim index of die {die}: fresh entries");
        self.entries_per_die[die] = entries;
    }

    /// Every heap empty, every block in none.
    fn clear(&mut self) {
        self.heaps.iter_mut().for_each(Vec::clear);
        self.nonempty.fill(0);
        self.entries_per_die.fill(0);
        self.live_per_die.fill(0);
        self.member.iter_mut().for_each(|m| m.bucket = NO_BUCKET);
    }

    /// The top of heap `h` (fresh), or `None` if it is empty.
    #[inline]
    fn top(&self, h: usize) -> Option<Top> {
        (self.nonempty[h / 64] >> (h % 64) & 1 == 1)
            .then(|| Top { key: self.top_keys[h], block: self.top_blocks[h] })
    }

    #[inline]
    fn keep_top(&mut self, h: usize, top: Entry) {
        self.top_blocks[h] = top.block;
        self.top_keys[h] = top.key;
    }

    /// Drop heap `h`'s stale entries from its top until a fresh one is there (kept as its
    /// top), or it is empty.
    fn settle(&mut self, h: usize) {
        while let Some(&top) = self.heaps[h].first() {
            if self.fresh(&top) {
                self.keep_top(h, top);
                return;
            }
            pop(&mut self.heaps[h]);
            self.entries_per_die[h / self.per_die as usize] -= 1;
        }
        self.nonempty[h / 64] &= !(1 << (h % 64));
        // Compaction skips empty heaps: give back what a large one held.
        if self.heaps[h].capacity() > 64 {
            self.heaps[h] = Vec::new();
        }
    }

    /// The first heap in `from..end` that holds an entry.
    #[inline]
    fn next_nonempty(&self, from: usize, end: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = self.nonempty.get(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                let h = w * 64 + bits.trailing_zeros() as usize;
                return (h < end).then_some(h);
            }
            w += 1;
            if w * 64 >= end {
                return None;
            }
            bits = self.nonempty[w];
        }
    }

    /// Every invariant against `expected(block)` = (bucket, key): each block's bucket, one fresh
    /// entry per block in a bucket, with its key, the heaps' order, the counts (O(entries)).
    fn check(&self, what: &str, expected: impl Fn(u32) -> (u32, i64)) {
        let mut seen = vec![false; self.member.len()];
        for (h, heap) in self.heaps.iter().enumerate() {
            let bit = self.nonempty[h / 64] >> (h % 64) & 1 == 1;
            assert_eq!(bit, !heap.is_empty(), "{what}: heap {h} marked empty or not wrongly");
            if let Some(top) = heap.first() {
                let kept = (self.top_keys[h], self.top_blocks[h]);
                assert_eq!((top.key, top.block), kept, "{what}: the kept top of heap {h}");
                assert!(self.fresh(top), "{what}: heap {h}'s top is stale");
            }
            for (i, e) in heap.iter().enumerate() {
                if i > 0 {
                    assert!(!e.before(&heap[(i - 1) / 2]), "{what}: heap {h} out of order at {i}");
                }
                if self.fresh(e) {
                    let b = e.block as usize;
                    assert_eq!(
                        self.member[b].bucket, h as u32,
                        "{what}: fresh entry of block {b} in heap {h}"
                    );
                    assert!(!seen[b], "{what}: block {b} has two fresh entries");
                    seen[b] = true;
                    assert_eq!(e.key, expected(b as u32).1, "{what}: key of block {b}");
                }
            }
        }
        for (b, (m, &seen)) in self.member.iter().zip(&seen).enumerate() {
            let bucket = expected(b as u32).0;
            assert_eq!(m.bucket, bucket, "{what}: bucket of block {b}");
            assert_eq!(seen, bucket != NO_BUCKET, "{what}: entry of block {b}");
        }
        let per_die = self.per_die as usize;
        for die in 0..self.live_per_die.len() {
            let entries: usize = self.heaps[die * per_die..(die + 1) * per_die].iter().map(Vec::len).sum();
            assert_eq!(entries, self.entries_per_die[die] as usize, "{what}: entries of die {die}");
            let bpd = self.blocks_per_die as usize;
            let live = (die * bpd..(die + 1) * bpd).filter(|&b| self.member[b].bucket != NO_BUCKET).count();
            assert_eq!(live, self.live_per_die[die] as usize, "{what}: blocks of die {die}");
        }
    }
}

/// Blocks whose heaps may lag behind their state (module documentation), in lists per die
/// and list of the die (one list for the heaps by units; one per owner slot for the heaps by
/// reads, so that a walk catches up only the slots it walks). Each block carries the list it
/// last went to (`listed`, 0: none): a block goes to a list when it is marked for another
/// list than its own, so it may wait in two lists (its owner changed while it waited: its
/// block was erased and taken again); whichever list comes first catches it up and clears its
/// tag, and the other skips it.
#[derive(Clone, Debug)]
struct Pending {
    /// Per block: 1 + the list of its die it waits in, 0 if it waits in none.
    listed: Vec<u8>,
    lists_per_die: u32,
    /// Per die and list: the blocks waiting there (`die * lists_per_die + list`).
    lists: Vec<Vec<u32>>,
    /// Per die: the entries of its lists (`grown`).
    entries_per_die: Vec<u32>,
}

impl Pending {
    fn new(n_dies: u32, blocks_per_die: u32, lists_per_die: u32) -> Pending {
        assert!(lists_per_die < u8::MAX as u32, "{lists_per_die} pending lists per die");
        let n_blocks = (n_dies * blocks_per_die) as usize;
        Pending {
            listed: vec![0; n_blocks],
            lists_per_die,
            lists: vec![Vec::new(); (n_dies * lists_per_die) as usize],
            entries_per_die: vec![0; n_dies as usize],
        }
    }

    /// Mark block `b` of die `die` in list `list` of the die, unless it waits there already.
    #[inline]
    fn mark(&mut self, b: u32, die: u32, list: u32) {
        let tag = list as u8 + 1;
        if self.listed[b as usize] != tag {
            self.listed[b as usize] = tag;
            self.lists[(die * self.lists_per_die + list) as usize].push(b);
            self.entries_per_die[die as usize] += 1;
        }
    }

    /// The blocks listed in list `list` of die `die` (give the list back with `give_back`);
    /// `due` says which of them still wait (and clears their tag).
    fn take(&mut self, die: u32, list: u32) -> Vec<u32> {
        let list = std::mem::take(&mut self.lists[(die * self.lists_per_die + list) as usize]);
        self.entries_per_die[die as usize] -= list.len() as u32;
        list
    }

    /// Whether die `die`'s lists hold more than twice its `blocks_per_die` blocks (a block goes
    /// to a list once per change of its list: owners alternating over erases could grow a list
    /// that is never taken).
    #[inline]
    fn grown(&self, die: u32, blocks_per_die: u32) -> bool {
        self.entries_per_die[die as usize] > 2 * blocks_per_die
    }

    /// Whether block `b`, taken from a list, still waits (no other list caught it up), and
    /// it no longer does.
    #[inline]
    fn due(&mut self, b: u32) -> bool {
        std::mem::take(&mut self.listed[b as usize]) != 0
    }

    /// The list `take` gave, emptied, so that its room serves again.
    fn give_back(&mut self, die: u32, list: u32, mut taken: Vec<u32>) {
        taken.clear();
        self.lists[(die * self.lists_per_die + list) as usize] = taken;
    }

    /// No block waits.
    fn clear(&mut self) {
        self.listed.fill(0);
        self.lists.iter_mut().for_each(Vec::clear);
        self.entries_per_die.fill(0);
    }
}

/// The heaps by units and by reads (see the module's documentation).
#[derive(Clone, Debug)]
pub(crate) struct VictimIndex {
    /// Owner slots per die (`slot_of`).
    n_slots: u32,
    /// Levels of valid units: 0 ..= units per block.
    levels: u32,
    /// Valid units v fall in band `v >> band_shift` of the heaps by reads (`bands` of them).
    band_shift: u32,
    bands: u32,
    read_levels: ReadLevels,
    n_dies: u32,
    blocks_per_die: u32,
    pages_per_block: u32,
    by_units: Heaps,
    /// Built at the first search with a bounded slot.
    by_reads: Option<Heaps>,
    /// Blocks whose heap by units, and whose heap by reads, may lag behind their state.
    pending_units: Pending,
    pending_reads: Pending,
    /// Scratch of `best`: the heaps by reads to walk, with their top's bound; a walk's
    /// (`Walk::level`, `Walk::next`).
    order: Vec<(f64, u32, u32)>,
    level: Vec<(f64, u32)>,
    next: Vec<u32>,
    /// Scratch of `best`: the heaps by units whose top ties with the exact slots' best, and
    /// their v.
    tied: Vec<(u32, u32)>,
}

impl VictimIndex {
    /// An empty index (no eligible block) for `n_tenants` tenants: `rebuild` fills it.
    pub(crate) fn new(
        n_dies: u32,
        blocks_per_die: u32,
        units_per_block: u32,
        pages_per_block: u32,
        n_tenants: usize,
    ) -> VictimIndex {
        let n_slots = (n_tenants as u32).min(OWNER_SLOTS_MAX) + 1;
        let levels = units_per_block + 1;
        let band_shift = (0..32).find(|&s| (units_per_block >> s) < BANDS_MAX).expect("a shift");
        let bands = (units_per_block >> band_shift) + 1;
        let read_levels = (0..=2)
            .rev()
            .map(ReadLevels::new)
            .find(|l| n_slots * bands * l.count <= BY_READS_HEAPS_PER_DIE_MAX)
            .unwrap_or(ReadLevels::new(0));
        VictimIndex {
            n_slots,
            levels,
            band_shift,
            bands,
            read_levels,
            n_dies,
            blocks_per_die,
            pages_per_block,
            by_units: Heaps::new(n_dies, blocks_per_die, n_slots * levels),
            by_reads: None,
            pending_units: Pending::new(n_dies, blocks_per_die, 1),
            pending_reads: Pending::new(n_dies, blocks_per_die, n_slots),
            order: Vec::new(),
            level: Vec::new(),
            next: Vec::new(),
            tied: Vec::new(),
        }
    }

    /// Owner slots per die.
    pub(crate) fn n_slots(&self) -> u32 {
        self.n_slots
    }

    /// The slot of `owner`'s blocks.
    #[inline]
    fn slot_of(&self, owner: u16) -> u32 {
        (owner as u32).min(self.n_slots - 1)
    }

    #[inline]
    fn eligible(&self, info: &BlockInfo) -> bool {
        info.state == BlockState::Full && info.programmed_pages == self.pages_per_block
    }

    /// Block `b`'s heap by units and its key there.
    #[inline]
    fn by_units_of(&self, b: u32, info: &BlockInfo) -> (u32, i64) {
        if !self.eligible(info) {
            return (NO_BUCKET, 0);
        }
        let bucket = self.unit_heap(b / self.blocks_per_die, self.slot_of(info.owner), info.valid_units);
        (bucket as u32, if info.valid_units == 0 { 0 } else { info.last_write_ns })
    }

    /// The heap by units of die `die`, owner slot `slot` and `v` valid units (`v` up to
    /// `levels`: one past the slot's last heap).
    #[inline]
    fn unit_heap(&self, die: u32, slot: u32, v: u32) -> usize {
        ((die * self.n_slots + slot) * self.levels + v) as usize
    }

    /// Block `b`'s heap by reads (none without valid units: those win before any walk).
    #[inline]
    fn by_reads_of(&self, b: u32, info: &BlockInfo) -> (u32, i64) {
        if !self.eligible(info) || info.valid_units == 0 {
            return (NO_BUCKET, 0);
        }
        let die = b / self.blocks_per_die;
        let band = info.valid_units >> self.band_shift;
        let level = self.read_levels.of(info.read_count);
        let bucket = ((die * self.n_slots + self.slot_of(info.owner)) * self.bands + band)
            * self.read_levels.count
            + level;
        (bucket, info.last_write_ns)
    }

    /// Block `b`'s state changed (its state, owner, valid units, programmed pages or stamp:
    /// `Blocks::refresh_key`), `owner` its owner now: its heaps follow at its die's next
    /// search (those by reads at the next that walks its owner's slot).
    #[inline]
    pub(crate) fn refresh(&mut self, b: u32, owner: u16) {
        let die = b / self.blocks_per_die;
        self.pending_units.mark(b, die, 0);
        if self.by_reads.is_some() {
            self.pending_reads.mark(b, die, self.slot_of(owner));
        }
    }

    /// After a host read of block `b` (its read count rose by one): its read level may have
    /// changed.
    #[inline]
    pub(crate) fn note_read(&mut self, b: u32, info: &BlockInfo) {
        let levels = self.read_levels;
        if self.by_reads.is_some() && levels.of(info.read_count) != levels.of(info.read_count - 1) {
            self.pending_reads.mark(b, b / self.blocks_per_die, self.slot_of(info.owner));
        }
    }

    /// Bring the heaps by units of die `die`'s waiting blocks in step with `info`.
    fn catch_up_units(&mut self, die: u32, info: &[BlockInfo]) {
        let list = self.pending_units.take(die, 0);
        for (i, &b) in list.iter().enumerate() {
            if let Some(&ahead) = list.get(i + CATCH_UP_PREFETCH_AHEAD) {
                super::table::prefetch_whole(info, ahead as usize);
                self.by_units.prefetch_member(ahead);
            }
            if let Some(&ahead) = list.get(i + CATCH_UP_PREFETCH_AHEAD / 2) {
                // Its state is in cache by now: where its entry would go, and that place's
                // parent, the first entry a push compares with (the heaps are large).
                let (bucket, _) = self.by_units_of(ahead, &info[ahead as usize]);
                self.by_units.prefetch_push(bucket);
            }
            if self.pending_units.due(b) {
                let (bucket, key) = self.by_units_of(b, &info[b as usize]);
                self.by_units.set(b, bucket, key);
            }
        }
        self.pending_units.give_back(die, 0, list);
    }

    /// Bring the heaps by reads (built) of die `die` in step with `info` for the owner slots
    /// of `slots` (bit s: slot s), or for every slot if the die's lists grew beyond twice its
    /// blocks (`Pending::grown`; `best` checks that at every search of the die, walk or not).
    ///
    /// What the walk of `slots` needs (module documentation): every block whose entry or
    /// whose heap now is in a heap of those slots has caught up. A block waits in the list of
    /// its owner's slot at the change that listed it; an eligible block's owner does not
    /// change (only a block taken from the free ones gets one), so a block with an entry
    /// waits in its entry's slot, and a block that became eligible was marked then, under its
    /// owner now.
    fn catch_up_reads(&mut self, die: u32, info: &[BlockInfo], slots: u32) {
        let every = self.pending_reads.grown(die, self.blocks_per_die);
        for s in (0..self.n_slots).filter(|&s| every || slots >> s & 1 == 1) {
            let list = self.pending_reads.take(die, s);
            for (i, &b) in list.iter().enumerate() {
                if let Some(&ahead) = list.get(i + CATCH_UP_PREFETCH_AHEAD) {
                    super::table::prefetch_whole(info, ahead as usize);
                    self.by_reads.as_ref().expect("heaps by reads").prefetch_member(ahead);
                }
                if self.pending_reads.due(b) {
                    let (bucket, key) = self.by_reads_of(b, &info[b as usize]);
                    self.by_reads.as_mut().expect("heaps by reads").set(b, bucket, key);
                }
            }
            self.pending_reads.give_back(die, s, list);
        }
    }

    /// Forget every block and index `info` anew (at enabling, and after the stamps moved).
    pub(crate) fn rebuild(&mut self, info: &[BlockInfo]) {
        self.pending_units.clear();
        self.by_units.clear();
        for (b, i) in info.iter().enumerate() {
            let (bucket, key) = self.by_units_of(b as u32, i);
            self.by_units.set(b as u32, bucket, key);
        }
        if self.by_reads.is_some() {
            self.build_by_reads(info);
        }
    }

    fn build_by_reads(&mut self, info: &[BlockInfo]) {
        self.pending_reads.clear();
        let per_die = self.n_slots * self.bands * self.read_levels.count;
        let mut heaps = Heaps::new(self.n_dies, self.blocks_per_die, per_die);
        for (b, i) in info.iter().enumerate() {
            let (bucket, key) = self.by_reads_of(b as u32, i);
            heaps.set(b as u32, bucket, key);
        }
        self.by_reads = Some(heaps);
    }

    /// The eligible block of die `die` with the highest score, ties to the lowest index:
    /// what a scan of the die's blocks in index order finds. Every block with no valid unit
    /// must score +infinity. `kind(slot)` says how each owner slot is scored: `exact(v,
    /// stamp)` (`None`: no candidate), or at most `bound(v, stamp, slot, reads)` for every
    /// block with at least v valid units, at most `reads` host reads (`None`: any number) and
    /// a stamp at least `stamp`, `score` being the block's own; `exact` and `bound` must not
    /// rise as the stamp grows (module documentation), and `exact` must fall strictly as v
    /// grows at a fixed stamp (where it is `Some`).
    pub(crate) fn best(
        &mut self,
        die: u32,
        info: &[BlockInfo],
        kind: impl Fn(u32) -> SlotScore,
        exact: impl Fn(u32, i64) -> Option<f64>,
        bound: impl Fn(u32, i64, u32, Option<u32>) -> f64,
        mut score: impl FnMut(u32, &BlockInfo) -> Option<f64>,
    ) -> Option<u32> {
        self.catch_up_units(die, info);
        if self.by_reads.is_some() && self.pending_reads.grown(die, self.blocks_per_die) {
            // Lists no walk takes (slots never walked on this die) catch up here.
            self.catch_up_reads(die, info, 0);
        }
        // Blocks without valid data score +infinity: the lowest of them wins.
        let empty = (0..self.n_slots)
            .filter_map(|s| self.by_units.top(self.unit_heap(die, s, 0)))
            .map(|e| e.block)
            .min();
        if empty.is_some() {
            return empty;
        }
        // The exact slots' best, and the heaps whose top scores it (for the ties below).
        let mut tied = std::mem::take(&mut self.tied);
        let top = self.exact_best(die, &kind, &exact, &mut tied);
        // The bounded slots' best, ties to the lowest block, skipping what cannot reach it.
        // Only slots with an eligible block of valid units on the die are walked: the heaps by
        // units, caught up above, hold every such block and keep a fresh top, so a slot whose
        // heaps by units (v >= 1) are all empty has none. Only the walked slots' heaps by
        // reads are caught up (`catch_up_reads`): on a die holding only its set's owner's
        // blocks, scored exactly, none are.
        let walked = (0..self.n_slots)
            .filter(|&s| {
                kind(s) == SlotScore::Bounded
                    && self
                        .by_units
                        .next_nonempty(self.unit_heap(die, s, 1), self.unit_heap(die, s, self.levels))
                        .is_some()
            })
            .fold(0u32, |mask, s| mask | 1 << s);
        let mut found: Option<(f64, u32)> = None;
        if walked != 0 {
            found = self.walk_bounded(die, info, walked, top, &bound, &mut score);
        }
        let best = match (top, found) {
            (None, None) => None,
            (Some(t), Some((f, _))) => Some(t.max(f)),
            (Some(t), None) => Some(t),
            (None, Some((f, _))) => Some(f),
        };
        let mut winner = found.filter(|&(f, _)| Some(f) == best).map(|(_, b)| b);
        if best.is_some() && top == best {
            // The exact slots' blocks that tie with the best: below the tops that do (a
            // heap's own memory only where its top ties).
            for &(h, v) in &tied {
                let heap = &self.by_units.heaps[h as usize];
                ties(heap, &self.by_units, 0, &|key| exact(v, key) == best, &mut winner);
            }
        }
        self.tied = tied;
        winner
    }

    /// The best score of the exact slots' blocks on `die` (`None`: no candidate), and into
    /// `tied` the heaps by units (with their v) whose top scores it.
    fn exact_best(
        &self,
        die: u32,
        kind: &impl Fn(u32) -> SlotScore,
        exact: &impl Fn(u32, i64) -> Option<f64>,
        tied: &mut Vec<(u32, u32)>,
    ) -> Option<f64> {
        let mut top: Option<f64> = None;
        tied.clear();
        for s in (0..self.n_slots).filter(|&s| kind(s) == SlotScore::Exact) {
            let (first, end) = (self.unit_heap(die, s, 1), self.unit_heap(die, s, self.levels));
            let mut next = first;
            // The oldest top of the slot's heaps of fewer units, scored: a heap whose top is
            // no older scores below it, and nothing there ties (`exact` falls strictly as v
            // grows), so it is not scored (most of a die's heaps by units).
            let mut oldest = i64::MAX;
            while let Some(h) = self.by_units.next_nonempty(next, end) {
                next = h + 1;
                let v = (h - first) as u32 + 1;
                let Some(t) = self.by_units.top(h) else { continue };
                if t.key >= oldest {
                    continue;
                }
                if let Some(sc) = exact(v, t.key) {
                    oldest = t.key;
                    let new_top = top.map_or(sc, |t| t.max(sc));
                    if Some(new_top) != top {
                        tied.clear();
                    }
                    if sc == new_top {
                        tied.push((h as u32, v));
                    }
                    top = Some(new_top);
                }
            }
        }
        top
    }

    /// The best block on `die` of the bounded slots `slots` (bit s: slot s; ties to the
    /// lowest), walking their heaps by reads in order of their top's bound and skipping every
    /// subtree that cannot reach the best score found (or `top`, the exact slots' best).
    fn walk_bounded(
        &mut self,
        die: u32,
        info: &[BlockInfo],
        slots: u32,
        top: Option<f64>,
        bound: &impl Fn(u32, i64, u32, Option<u32>) -> f64,
        score: &mut impl FnMut(u32, &BlockInfo) -> Option<f64>,
    ) -> Option<(f64, u32)> {
        if self.by_reads.is_none() {
            self.build_by_reads(info);
        } else {
            self.catch_up_reads(die, info, slots);
        }
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        let (band_shift, levels) = (self.band_shift, self.read_levels);
        let per_slot = self.bands * levels.count;
        let heaps = self.by_reads.as_mut().expect("heaps by reads");
        for s in (0..self.n_slots).filter(|&s| slots >> s & 1 == 1) {
            let first = ((die * self.n_slots + s) * per_slot) as usize;
            let mut next = first;
            while let Some(h) = heaps.next_nonempty(next, first + per_slot as usize) {
                next = h + 1;
                if let Some(e) = heaps.top(h) {
                    let (band, level) =
                        ((h - first) as u32 / levels.count, (h - first) as u32 % levels.count);
                    let (v, reads) = band_bound(band_shift, levels, band, level);
                    let root_bound = bound(v, e.key, s, reads);
                    // A heap whose top cannot reach the exact slots' best is never walked.
                    if top.is_none_or(|t| root_bound >= t) {
                        order.push((root_bound, h as u32, s));
                    }
                }
            }
        }
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let heaps = self.by_reads.as_ref().expect("heaps by reads");
        let (mut level, mut next) = (std::mem::take(&mut self.level), std::mem::take(&mut self.next));
        let mut walk = Walk { heaps, info, best: top, found: None, level: &mut level, next: &mut next };
        for &(root_bound, h, s) in &order {
            if walk.best.is_some_and(|b| root_bound < b) {
                break;
            }
            let band = h / levels.count % self.bands;
            let (v, reads) = band_bound(band_shift, levels, band, h % levels.count);
            walk.heap(h as usize, &|key| bound(v, key, s, reads), score);
        }
        let found = walk.found;
        (self.order, self.level, self.next) = (order, level, next);
        found
    }

    /// Every invariant of the index against `info` (integrity checks; O(blocks)), once every
    /// waiting block has caught up.
    pub(crate) fn check(&mut self, info: &[BlockInfo]) {
        for die in 0..self.n_dies {
            self.catch_up_units(die, info);
            if self.by_reads.is_some() {
                self.catch_up_reads(die, info, u32::MAX);
            }
        }
        self.by_units.check("victim heaps by units", |b| self.by_units_of(b, &info[b as usize]));
        if let Some(heaps) = &self.by_reads {
            heaps.check("victim heaps by reads", |b| self.by_reads_of(b, &info[b as usize]));
        }
    }
}

/// The fewest valid units of `band` (at least 1) and the most reads of `level`.
fn band_bound(band_shift: u32, levels: ReadLevels, band: u32, level: u32) -> (u32, Option<u32>) {
    ((band << band_shift).max(1), levels.reads_max(level))
}

/// The walk of the heaps by reads: visits the entries whose bound reaches the best score so
/// far (`best`, which starts at the exact slots' best), scoring the fresh ones into `found`.
/// A heap is walked a level of its tree at a time: the entries of the level whose bound
/// reaches the best are found first, their blocks' membership and state prefetched, then
/// scored (each checked again against the best, which may have risen meanwhile). Scored one
/// at a time, depth first, each entry waited for its two random reads (a third of a `upi`
/// run's search); the order of the visits never changes the result, the highest score, ties
/// to the lowest block (an entry skipped had a bound below a best that only rises).
struct Walk<'a> {
    heaps: &'a Heaps,
    info: &'a [BlockInfo],
    best: Option<f64>,
    found: Option<(f64, u32)>,
    /// Scratch: the level's entries that reach the best, with their bound; the next level's.
    level: &'a mut Vec<(f64, u32)>,
    next: &'a mut Vec<u32>,
}

impl Walk<'_> {
    fn heap(
        &mut self,
        h: usize,
        bound: &impl Fn(i64) -> f64,
        score: &mut impl FnMut(u32, &BlockInfo) -> Option<f64>,
    ) {
        let heap = &self.heaps.heaps[h];
        // Entries with a stamp at least this one have a bound below the best (`bound` bounds
        // every block of the heap with a stamp at least its argument's): none is computed.
        let mut stamp_fails = i64::MAX;
        self.next.clear();
        self.next.push(0);
        while !self.next.is_empty() {
            self.level.clear();
            for &i in self.next.iter() {
                let Some(e) = heap.get(i as usize) else { continue };
                // Every entry below has a stamp at least e's, so a bound at most e's.
                if e.key >= stamp_fails {
                    continue;
                }
                let b = bound(e.key);
                if self.best.is_some_and(|best| b < best) {
                    stamp_fails = e.key;
                    continue;
                }
                self.heaps.prefetch_member(e.block);
                super::table::prefetch_whole(self.info, e.block as usize);
                self.level.push((b, i));
            }
            self.next.clear();
            for &(b, i) in self.level.iter() {
                if self.best.is_some_and(|best| b < best) {
                    stamp_fails = stamp_fails.min(heap[i as usize].key);
                    continue;
                }
                let e = &heap[i as usize];
                if self.heaps.fresh(e) {
                    if let Some(s) = score(e.block, &self.info[e.block as usize]) {
                        if self.found.is_none_or(|(fs, fb)| s > fs || (s == fs && e.block < fb)) {
                            self.found = Some((s, e.block));
                        }
                        if self.best.is_none_or(|best| s > best) {
                            self.best = Some(s);
                        }
                    }
                }
                self.next.extend([2 * i + 1, 2 * i + 2]);
            }
        }
    }
}

/// The lowest fresh block of heap `heap` whose key `tied` holds, into `winner`: the walk stops
/// where it does not (the score of a child is at most its parent's).
fn ties(heap: &[Entry], heaps: &Heaps, i: usize, tied: &impl Fn(i64) -> bool, winner: &mut Option<u32>) {
    let Some(e) = heap.get(i) else { return };
    if !tied(e.key) {
        return;
    }
    if heaps.fresh(e) && winner.is_none_or(|w| e.block < w) {
        *winner = Some(e.block);
    }
    ties(heap, heaps, 2 * i + 1, tied, winner);
    ties(heap, heaps, 2 * i + 2, tied, winner);
}

/// Sift entry `i` up; returns where it ends.
fn sift_up(h: &mut [Entry], mut i: usize) -> usize {
    while i > 0 {
        let p = (i - 1) / 2;
        if !h[i].before(&h[p]) {
            break;
        }
        h.swap(i, p);
        i = p;
    }
    i
}

fn sift_down(h: &mut [Entry], mut i: usize) {
    loop {
        let l = 2 * i + 1;
        if l >= h.len() {
            break;
        }
        let c = if l + 1 < h.len() && h[l + 1].before(&h[l]) { l + 1 } else { l };
        if !h[c].before(&h[i]) {
            break;
        }
        h.swap(i, c);
        i = c;
    }
}

fn pop(h: &mut Vec<Entry>) {
    let last = h.pop().expect("a non-empty heap");
    if !h.is_empty() {
        h[0] = last;
        sift_down(h, 0);
    }
}

fn heapify(h: &mut [Entry]) {
    for i in (0..h.len() / 2).rev() {
        sift_down(h, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts to try: every count below 2^17, and around every power of two and 2^24.
    fn counts() -> Vec<u32> {
        let mut c: Vec<u32> = (0..1 << 17).collect();
        for b in 17..32 {
            c.extend([(1u32 << b) - 1, 1 << b, (1 << b) + 1, (1 << b) + (1 << (b - 3)) - 1]);
        }
        c.extend([u32::MAX - 1, u32::MAX]);
        c
    }

    /// Levels never fall as the count grows, take every value from 0 to the last, and a
    /// level's most reads is its last count: the next count is in the next level. A level's
    /// most reads are less than 1 + 2^-sub_bits times its fewest (what makes the walk's bound tight), and
    /// with no sub-bits the level is the count's bit length, as before the sub-levels.
    #[test]
    fn read_levels_partition_the_counts() {
        for sub_bits in 0..=2 {
            let l = ReadLevels::new(sub_bits);
            let mut last = 0;
            let mut first_of_level = 0u64;
            for rc in counts() {
                let level = l.of(rc);
                assert!(level < l.count, "sub-bits {sub_bits}: count {rc} at level {level}");
                assert!(level == last || level == last + 1 || rc > 1 << 17, "levels skip at {rc}");
                if level != last {
                    first_of_level = rc as u64;
                }
                last = level;
                match l.reads_max(level) {
                    None => assert!(rc >= 1 << READ_BITS_MAX && level == l.count - 1, "count {rc}"),
                    Some(m) => {
                        assert!(rc <= m, "sub-bits {sub_bits}: count {rc} above its level's most {m}");
                        assert_eq!(l.of(m + 1), level + 1, "sub-bits {sub_bits}: after level {level}'s last");
                        if rc <= 1 << 17 && first_of_level > 0 {
                            let span = m as f64 / first_of_level as f64;
                            assert!(span < 1.0 + 0.5f64.powi(sub_bits as i32), "level {level}: span {span}");
                        }
                    }
                }
                if sub_bits == 0 && rc < 1 << 16 {
                    assert_eq!(level, 32 - rc.leading_zeros(), "bit length of {rc}");
                }
            }
            assert_eq!(last, l.count - 1, "sub-bits {sub_bits}: the last level is reached");
        }
    }

    /// A `upi`-like score: age x ((1 - u) + w r / (r + age k)) / (2u) for owners that may earn
    /// the read term (`bounded`), without it for the others; +infinity without valid units.
    struct Scores {
        units_per_block: u32,
        now: i64,
        /// Reads per ns of age at which the read term is half its weight.
        k: f64,
    }

    impl Scores {
        const W: f64 = 1.0;

        fn bounded(owner: u16) -> bool {
            owner != 0
        }

        fn age(&self, stamp: i64) -> f64 {
            (self.now - stamp) as f64 + 1.0
        }

        fn of(&self, v: u32, age: f64, reads: Option<f64>) -> Option<f64> {
            if v == 0 {
                return Some(f64::INFINITY);
            }
            let u = v as f64 / self.units_per_block as f64;
            let term = reads.map_or(Self::W, |r| Self::W * r / (r + age * self.k));
            let benefit = (1.0 - u) + term;
            (benefit > 0.0).then(|| age * benefit / (2.0 * u))
        }

        fn score(&self, info: &BlockInfo) -> Option<f64> {
            let age = self.age(info.last_write_ns);
            let reads = if Self::bounded(info.owner) { info.read_count as f64 } else { 0.0 };
            self.of(info.valid_units, age, Some(reads))
        }

        fn exact(&self, v: u32, stamp: i64) -> Option<f64> {
            (v < self.units_per_block).then(|| self.of(v, self.age(stamp), Some(0.0))).flatten()
        }

        /// At least `score` of every block with >= v units, a stamp >= `stamp` and at most
        /// `reads` reads: the score rises with the age, the reads and as v falls.
        fn bound(&self, v: u32, stamp: i64, reads: Option<u32>) -> f64 {
            let s = self.of(v, self.age(stamp), reads.map(|r| r as f64)).unwrap_or(0.0);
            s * (1.0 + 1e-9)
        }

        /// What a scan of die `die`'s eligible blocks in index order finds.
        fn scan(&self, info: &[BlockInfo], die: u32, per_die: u32, pages: u32) -> Option<u32> {
            let mut best: Option<(f64, u32)> = None;
            for b in die * per_die..(die + 1) * per_die {
                let i = &info[b as usize];
                if i.state != BlockState::Full || i.programmed_pages != pages {
                    continue;
                }
                if let Some(s) = self.score(i) {
                    if best.is_none_or(|(bs, _)| s > bs) {
                        best = Some((s, b));
                    }
                }
            }
            best.map(|(_, b)| b)
        }
    }

    /// How the test's blocks are drawn and scored.
    #[derive(Clone, Copy, Debug)]
    struct Regime {
        k: f64,
        /// Valid units from this many up.
        valid_min: u32,
        /// Stamps: `now - i * step` for i below `grid`.
        grid: i64,
        step_ns: i64,
    }

    /// A random block: eligible mostly, with valid units (one without any would win every
    /// search at once, before any walk; the integrity tests cover those). Units, reads and
    /// stamps fall in few heaps by reads and on a coarse grid, so that heaps are deep and
    /// blocks tie; owner 0 (scored exactly) holds about 40% of them.
    fn random_block(rng: &mut rand_pcg::Pcg64, now: i64, r: Regime, units: u32, pages: u32) -> BlockInfo {
        use rand::Rng;
        let full = rng.random_bool(0.9);
        BlockInfo {
            state: if full { BlockState::Full } else { BlockState::Open },
            owner: if rng.random_bool(0.4) { 0 } else { rng.random_range(1..4) },
            programmed_pages: if full { pages } else { rng.random_range(0..pages) },
            valid_units: rng.random_range(r.valid_min..=units),
            read_count: rng.random_range(0..40),
            last_write_ns: now - rng.random_range(0..r.grid) * r.step_ns,
            ..BlockInfo::FREE
        }
    }

    /// The indexed search finds what a scan finds (the highest score, ties to the lowest
    /// block) while blocks change between searches: units invalidated (never the last),
    /// reads served, blocks erased and written anew, time passing.
    #[test]
    fn best_finds_what_a_scan_finds() {
        use rand::{Rng, SeedableRng};
        let (n_dies, per_die, units, pages) = (2u32, 3_000u32, 64u32, 16u32);
        // Reads that barely count (the exact owner competes, its blocks tie), and reads that
        // decide (the walks go deep).
        let regimes = [
            Regime { k: 1e-5, valid_min: units - 8, grid: 20, step_ns: 5_000_000_000 },
            Regime { k: 3e-10, valid_min: units / 2, grid: 8, step_ns: 20_000_000_000 },
        ];
        for (seed, r) in (0..4u64).flat_map(|s| regimes.map(|r| (s, r))) {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
            let mut sc = Scores { units_per_block: units, now: 200_000_000_000, k: r.k };
            let mut info: Vec<BlockInfo> =
                (0..n_dies * per_die).map(|_| random_block(&mut rng, sc.now, r, units, pages)).collect();
            let mut index = VictimIndex::new(n_dies, per_die, units, pages, 4);
            index.rebuild(&info);
            for round in 0..60 {
                for _ in 0..200 {
                    // Every change is told as `Ftl` tells it: a state change with the owner
                    // then, a read at a time.
                    let b = rng.random_range(0..n_dies * per_die);
                    match rng.random_range(0..10) {
                        0 => {
                            info[b as usize].state = BlockState::Free;
                            index.refresh(b, info[b as usize].owner);
                            info[b as usize] = random_block(&mut rng, sc.now, r, units, pages);
                        }
                        1..=5 => {
                            let i = &mut info[b as usize];
                            i.valid_units = i.valid_units.saturating_sub(rng.random_range(1..4)).max(1);
                        }
                        _ => {
                            for _ in 0..rng.random_range(1..20) {
                                info[b as usize].read_count += 1;
                                index.note_read(b, &info[b as usize]);
                            }
                            continue;
                        }
                    }
                    index.refresh(b, info[b as usize].owner);
                }
                sc.now += rng.random_range(0..3) * 1_000_000_000;
                for die in 0..n_dies {
                    let kind = |s: u32| {
                        if Scores::bounded(s as u16) {
                            SlotScore::Bounded
                        } else {
                            SlotScore::Exact
                        }
                    };
                    let found = index.best(
                        die,
                        &info,
                        kind,
                        |v, stamp| sc.exact(v, stamp),
                        |v, stamp, _, reads| sc.bound(v, stamp, reads),
                        |_, i| sc.score(i),
                    );
                    let scan = sc.scan(&info, die, per_die, pages);
                    assert_eq!(found, scan, "{r:?}, seed {seed}, round {round}, die {die}");
                }
            }
            index.check(&info);
        }
    }
}
