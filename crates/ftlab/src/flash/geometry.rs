//! Device geometry and the typed addresses derived from it (`DieIdx`, `BlockIdx`, `Ppa`).
//! Not the timing (see `timing`) and not the state of blocks (see `ftl::blocks`).
//!
//! Die numbering: `die = (channel * chips_per_channel + chip) * dies_per_chip + die_in_chip`.
//! Blocks are numbered globally, `block = die * blocks_per_die + block_in_die`; planes are
//! folded into the die's blocks (multi-plane operations are not modelled).
//! A physical address `Ppa` names one mapping unit: `block * units_per_block +
//! page * units_per_page + slot`.

use serde::{Deserialize, Serialize};

/// Index of a die (the unit that executes one array operation at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DieIdx(pub u32);

/// Global index of an erase block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockIdx(pub u32);

/// Physical address of one mapping unit (a slot of a flash page).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppa(pub u32);

/// The most planes a multi-plane operation spans.
pub(crate) const PLANES_MAX: u32 = 4;

/// The largest number of mapping units a flash page may hold.
pub(crate) const UNITS_PER_PAGE_MAX: u32 = 16;

/// The shape of the flash array. Construct with `Geometry::new`, which checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub unit_bytes: u32,
    // Derived.
    pub n_dies: u32,
    pub blocks_per_die: u32,
    pub n_blocks: u32,
    pub units_per_page: u32,
    pub units_per_block: u32,
}

impl Geometry {
    /// Derive the geometry; `Err((field, reason))` if a value is out of range.
    // The eight dimensions of the device (DESIGN §4), each its own validated argument.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        channels: u32,
        chips_per_channel: u32,
        dies_per_chip: u32,
        planes_per_die: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
        page_bytes: u32,
        unit_bytes: u32,
    ) -> Result<Geometry, (&'static str, String)> {
        for (name, v) in [
            ("channels", channels),
            ("chips_per_channel", chips_per_channel),
            ("dies_per_chip", dies_per_chip),
            ("planes_per_die", planes_per_die),
            ("blocks_per_plane", blocks_per_plane),
            ("pages_per_block", pages_per_block),
            ("page_bytes", page_bytes),
            ("mapping_unit_bytes", unit_bytes),
        ] {
            if v == 0 {
                return Err((name, "must be at least 1, got 0".into()));
            }
        }
        if unit_bytes < 512 || !unit_bytes.is_power_of_two() {
            return Err(("mapping_unit_bytes", format!("must be a power of two >= 512, got {unit_bytes}")));
        }
        if !page_bytes.is_multiple_of(unit_bytes) || page_bytes / unit_bytes > UNITS_PER_PAGE_MAX {
            return Err((
                "page_bytes",
                format!(
                    "must be a multiple of mapping_unit_bytes ({unit_bytes}) holding at most \
                     {UNITS_PER_PAGE_MAX} units, got {page_bytes}"
                ),
            ));
        }
        if pages_per_block > 65_536 {
            return Err(("pages_per_block", format!("must be in [1, 65536], got {pages_per_block}")));
        }
        let n_dies = channels as u64 * chips_per_channel as u64 * dies_per_chip as u64;
        let blocks_per_die = planes_per_die as u64 * blocks_per_plane as u64;
        let units_per_page = page_bytes / unit_bytes;
        let units_per_block = pages_per_block as u64 * units_per_page as u64;
        let n_units = n_dies * blocks_per_die * units_per_block;
        if n_dies > 4096 {
            return Err(("channels", format!("the device may have at most 4096 dies, got {n_dies}")));
        }
        if n_units >= u32::MAX as u64 {
            return Err((
                "blocks_per_plane",
                format!("the device has {n_units} mapping units; at most {} are supported", u32::MAX - 1),
            ));
        }
        Ok(Geometry {
            channels,
            chips_per_channel,
            dies_per_chip,
            planes_per_die,
            blocks_per_plane,
            pages_per_block,
            page_bytes,
            unit_bytes,
            n_dies: n_dies as u32,
            blocks_per_die: blocks_per_die as u32,
            n_blocks: (n_dies * blocks_per_die) as u32,
            units_per_page,
            units_per_block: units_per_block as u32,
        })
    }

    /// Physical capacity in mapping units.
    pub fn n_units(&self) -> u64 {
        self.n_blocks as u64 * self.units_per_block as u64
    }

    pub(crate) fn dies_per_channel(&self) -> u32 {
        self.chips_per_channel * self.dies_per_chip
    }

    pub(crate) fn channel_of(&self, die: DieIdx) -> u32 {
        die.0 / self.dies_per_channel()
    }

    pub fn die_of_block(&self, block: BlockIdx) -> DieIdx {
        DieIdx(block.0 / self.blocks_per_die)
    }

    pub fn block_of(&self, ppa: Ppa) -> BlockIdx {
        BlockIdx(ppa.0 / self.units_per_block)
    }

    /// Flash page index within its block.
    pub(crate) fn page_of(&self, ppa: Ppa) -> u32 {
        (ppa.0 % self.units_per_block) / self.units_per_page
    }

    pub fn die_of(&self, ppa: Ppa) -> DieIdx {
        self.die_of_block(self.block_of(ppa))
    }

    /// The first unit of `page` in `block`.
    pub fn ppa(&self, block: BlockIdx, page: u32, slot: u32) -> Ppa {
        debug_assert!(page < self.pages_per_block && slot < self.units_per_page);
        Ppa(block.0 * self.units_per_block + page * self.units_per_page + slot)
    }

    /// The blocks of `die`, as a range of global block indices.
    pub fn blocks_of_die(&self, die: DieIdx) -> std::ops::Range<u32> {
        let first = die.0 * self.blocks_per_die;
        first..first + self.blocks_per_die
    }

    /// Plane of `block` within its die (planes are consecutive ranges of the die's blocks).
    pub(crate) fn plane_of(&self, block: BlockIdx) -> u32 {
        (block.0 % self.blocks_per_die) / self.blocks_per_plane
    }

    /// All dies in channel-first order (die 0 of channel 0, die 0 of channel 1, ...), the
    /// order that spreads consecutive pages over channels before ways.
    pub fn dies_channel_first(&self) -> Vec<DieIdx> {
        let per_channel = self.dies_per_channel();
        (0..per_channel).flat_map(|w| (0..self.channels).map(move |c| DieIdx(c * per_channel + w))).collect()
    }
}
