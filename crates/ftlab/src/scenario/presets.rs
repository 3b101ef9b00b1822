//! Device presets: the papers' devices and a tiny one for tests. A preset fills every
//! `[device]` key the scenario leaves out. Where a paper gives no number, the value is a
//! datasheet-typical one and the comment says so.

use super::{RawDevice, RawTiming};

/// Names a scenario may use in `device.preset`.
pub const PRESETS: &[&str] = &["tiny", "upi", "mqsim", "vstream", "cosmos", "flashblox"];

pub fn preset(name: &str) -> Option<RawDevice> {
    match name {
        // A small device for tests: 4 dies on 2 channels, 64 blocks of 64 pages each
        // (64 MiB raw). Timing as `mqsim` (datasheet-typical MLC).
        "tiny" => Some(RawDevice {
            preset: Some(name.into()),
            channels: Some(2),
            chips_per_channel: Some(2),
            dies_per_chip: Some(1),
            planes_per_die: Some(1),
            blocks_per_plane: Some(64),
            pages_per_block: Some(64),
            page_bytes: Some(4096),
            mapping_unit_bytes: Some(4096),
            multi_plane: None,
            program_erase_suspend: None,
            background_free: None,
            pe_cycles: None,
            fdp: None,
            board: None,
            over_provisioning: Some(0.25),
            timing: mlc_fast(),
        }),
        // The UPI paper's device (§5): 3 channels x 4 chips, 150 GB logical / 192 GB
        // physical (28% over-provisioning). The paper's Table 1 is not in our copy: the
        // timing follows a published reimplementation (read 50 us, program 500 us, erase
        // 5 ms, about 40 us to move a 4 KiB page: 100 MT/s x 8 bit) and 128 pages per
        // block. 192e9 bytes / 12 dies / (128 x 4096 bytes) = 30518 blocks per die, as
        // 2 planes x 15259 blocks (192.0 GB physical; 150 GB logical at 28%).
        "upi" => Some(RawDevice {
            preset: Some(name.into()),
            channels: Some(3),
            chips_per_channel: Some(4),
            dies_per_chip: Some(1),
            planes_per_die: Some(2),
            blocks_per_plane: Some(15_259),
            pages_per_block: Some(128),
            page_bytes: Some(4096),
            mapping_unit_bytes: Some(4096),
            multi_plane: None,
            program_erase_suspend: None,
            background_free: None,
            pe_cycles: None,
            fdp: None,
            board: None,
            over_provisioning: Some(0.28),
            timing: RawTiming {
                read_us: Some(50.0),
                program_us: Some(500.0),
                erase_us: Some(5000.0),
                command_ns: Some(0),
                channel_mts: Some(100),
                channel_width_bits: Some(8),
                suspend_us: None,
                read_holds_channel: None,
            },
        }),
        // The MQSim-comparable device of `ftlab bench`: 4 channels x 4 chips x 1 die x 2
        // planes x 1024 blocks x 256 pages x 4 KiB (32 GiB raw), 7% over-provisioning,
        // read 25 us, program 200 us, erase 1.5 ms, 8-bit 333 MT/s channels.
        "mqsim" => Some(RawDevice {
            preset: Some(name.into()),
            channels: Some(4),
            chips_per_channel: Some(4),
            dies_per_chip: Some(1),
            planes_per_die: Some(2),
            blocks_per_plane: Some(1024),
            pages_per_block: Some(256),
            page_bytes: Some(4096),
            mapping_unit_bytes: Some(4096),
            multi_plane: None,
            program_erase_suspend: None,
            background_free: None,
            pe_cycles: None,
            fdp: None,
            board: None,
            over_provisioning: Some(0.07),
            timing: mlc_fast(),
        }),
        // The vStream paper's device (§5.1): "128Gb TLC 3D NAND flash memory [11] providing the
        // total capacity of 128GB with a 7% over-provisioning area", a page-mapping FTL with
        // 4 KiB logical pages. 128 GiB of 128 Gbit (16 GiB) dies = 8 dies, on the c = 4
        // channels of the paper's "realistic organization" (§4.2), 2 chips of 1 die each, 2
        // planes (b = 2); 16 KiB flash pages (l = 4 units of 4 KiB) and 256 wordlines of 3
        // pages (LSB, CSB, MSB) = 768 pages per block (§4.2). 16 GiB / 12 MiB blocks =
        // 1365.3, rounded up to 2 planes x 683 = 1366 blocks per die: 128.06 GiB physical,
        // 7% over-provisioning (ftlab's (physical - logical) / logical) -> 119.7 GiB logical,
        // the paper's "total 120GB of storage capacity" (§5.2).
        // Timing: tPROG = 700 us for a one-shot program of a wordline's 3 pages (Im et al.,
        // ISSCC 2015, the paper's [11]: "program time is 700 us and I/O rate is 1 Gb/s");
        // the 1 Gb/s per pin I/O on an 8-bit bus is 1000 MT/s x 8 bit. ftlab programs one
        // flash page per operation and cannot program 3 pages in one tPROG, so the closest
        // faithful representation is tPROG = 700 / 3 = 233.3 us per 16 KiB page: the die's
        // program bandwidth (48 KiB per 700 us) is the chip's; a single page's program
        // latency is 1/3 of the real one-shot's, which only a write-through (unbuffered)
        // device would see (the default write buffer of 4 pages per die hides it), and
        // vStream's shared timestamps use `stamp_group_pages = 3` for the one-shot group.
        // [11]'s read and erase times are not in its abstract: datasheet-typical 3D TLC
        // values, tR = 60 us (45 to 75 us; e.g. 74 us single-plane read in the CAES
        // UT81NDQ512G8T (Micron B17A TLC) datasheet) and tBERS = 3.5 ms (3 to 5 ms for TLC of
        // that generation; longer for today's larger blocks, 15 ms in the same datasheet).
        // Multi-plane operation is off (ftlab's default): with it each stream's frontier
        // would keep one open block per plane.
        "vstream" => Some(RawDevice {
            preset: Some(name.into()),
            channels: Some(4),
            chips_per_channel: Some(2),
            dies_per_chip: Some(1),
            planes_per_die: Some(2),
            blocks_per_plane: Some(683),
            pages_per_block: Some(768),
            page_bytes: Some(16_384),
            mapping_unit_bytes: Some(4096),
            multi_plane: None,
            program_erase_suspend: None,
            background_free: None,
            pe_cycles: None,
            fdp: None,
            board: None,
            over_provisioning: Some(0.07),
            timing: RawTiming {
                read_us: Some(60.0),
                program_us: Some(VSTREAM_ONE_SHOT_PROGRAM_US / VSTREAM_ONE_SHOT_PAGES),
                erase_us: Some(3500.0),
                command_ns: Some(0),
                channel_mts: Some(1000),
                channel_width_bits: Some(8),
                suspend_us: None,
                read_holds_channel: None,
            },
        }),
        // The Cosmos OpenSSD board of the PaRT-FTL paper (§II-A, §VI-B, Fig. 9): one DIMM of
        // 4 channels x 4 ways, one die per chip (MT29F256G08CMCABH2 MLC), planes not used
        // (the FPGA controller could not), 8 KiB pages, 256 pages per block; 128 GB per DIMM
        // over 16 chips is 8 GiB per die = 4096 blocks of 2 MiB. Over-provisioning 1.075:
        // 48.2% of the device holds data, the paper's configuration for PaRT-FTL and WAO-GC
        // alike (§V-A). The board's channel controller (`device.board`, `flash::board`): a
        // round-robin way arbiter over one 2 KiB page buffer per channel, four transfers per
        // 8 KiB page and a status check per operation (§II-A, §V-A, §VI-A). The array times
        // and the board's knobs are fitted to Table I (`flash::cosmos_fit`; the table and its
        // errors in docs/devices/cosmos.md). The bus rate only prices the `fair` scheduler's
        // costs: 8 KiB in the board's four 42 us transfers is 48.8 MB/s, 49 MT/s x 8 bit.
        "cosmos" => Some(RawDevice {
            preset: Some(name.into()),
            channels: Some(4),
            chips_per_channel: Some(4),
            dies_per_chip: Some(1),
            planes_per_die: Some(1),
            blocks_per_plane: Some(4096),
            pages_per_block: Some(256),
            page_bytes: Some(8192),
            mapping_unit_bytes: Some(8192),
            multi_plane: None,
            program_erase_suspend: None,
            background_free: None,
            pe_cycles: None,
            fdp: None,
            board: Some(crate::flash::board::BoardConfig::default()),
            over_provisioning: Some(1.075),
            timing: RawTiming {
                read_us: Some(COSMOS_READ_US),
                program_us: Some(COSMOS_PROGRAM_US),
                erase_us: Some(COSMOS_ERASE_US),
                command_ns: Some(0),
                channel_mts: Some(COSMOS_CHANNEL_MTS),
                channel_width_bits: Some(8),
                suspend_us: None,
                read_holds_channel: None,
            },
        }),
        // The FlashBlox talk's device (FAST '17 slides, "Experimental Setup": a CNEX Labs
        // open-channel SSD, "16 channels, 4 chips, 4 planes, 16 KB page size"). The slides
        // give no capacity, block size, over-provisioning or timing; these are ours:
        // - 1 TiB raw (64 dies of 128 Gbit MLC, the die size of 2015-16 MLC such as Micron's 16 nm 128 Gb
        //   parts) with 28% over-provisioning, the enterprise (mixed-use) figure the `upi` preset also uses:
        //   859 GB logical. 7% (a 1 TB drive's binary/decimal gap) makes random-write tenants' GC dominate
        //   (write amplification above 10 on the reduced device of the quick run); the slides do not say;
        // - 256 pages of 16 KiB = 4 MiB blocks (datasheet-typical for 16 KiB-page MLC); 16 GiB / 4 planes / 4
        //   MiB = 1024 blocks per plane;
        // - MLC timing, datasheet-typical ranges: read 50-100 us, program 1-1.6 ms, erase 3-5 ms for 16
        //   KiB-page MLC (e.g. Micron L85A/L95B class); we take read 80 us, program 1300 us, erase 3.5 ms,
        //   and an ONFI 3 NV-DDR2 bus of 400 MT/s x 8 bit;
        // - pe_cycles: the default 3000 (docs/lifetime.md: MLC).
        // `ftlab reproduce flashblox --quick` reduces blocks_per_plane only (same channels,
        // chips, planes, pages and timing).
        "flashblox" => Some(RawDevice {
            preset: Some(name.into()),
            channels: Some(16),
            chips_per_channel: Some(4),
            dies_per_chip: Some(1),
            planes_per_die: Some(4),
            blocks_per_plane: Some(1024),
            pages_per_block: Some(256),
            page_bytes: Some(16_384),
            mapping_unit_bytes: Some(4096),
            multi_plane: None,
            program_erase_suspend: None,
            background_free: None,
            pe_cycles: None,
            fdp: None,
            board: None,
            over_provisioning: Some(0.28),
            timing: RawTiming {
                read_us: Some(80.0),
                program_us: Some(1300.0),
                erase_us: Some(3500.0),
                command_ns: Some(0),
                channel_mts: Some(400),
                channel_width_bits: Some(8),
                suspend_us: None,
                read_holds_channel: None,
            },
        }),
        _ => None,
    }
}

/// The `cosmos` preset's array times (tR, tPROG, tBERS), fitted with the board's knobs
/// (`flash::board::BoardConfig::default()`) to Table I (`flash::cosmos_fit`).
pub const COSMOS_READ_US: f64 = 85.0;
pub const COSMOS_PROGRAM_US: f64 = 1040.0;
pub const COSMOS_ERASE_US: f64 = 3640.0;
/// 8 KiB in the board's four 42 us transfers is 48.8 MB/s over an 8-bit bus: 49 MT/s (the
/// `fair` scheduler's costs only; the board moves the pages).
pub const COSMOS_CHANNEL_MTS: u32 = 49;

/// One-shot program time of a TLC wordline (its LSB, CSB and MSB pages at once) of the
/// vStream paper's flash, in microseconds (Im et al., ISSCC 2015, the paper's reference 11).
pub const VSTREAM_ONE_SHOT_PROGRAM_US: f64 = 700.0;

/// Flash pages programmed by one one-shot program of a TLC wordline (p = 3, vStream §4.2).
pub const VSTREAM_ONE_SHOT_PAGES: f64 = 3.0;

fn mlc_fast() -> RawTiming {
    RawTiming {
        read_us: Some(25.0),
        program_us: Some(200.0),
        erase_us: Some(1500.0),
        command_ns: Some(0),
        channel_mts: Some(333),
        channel_width_bits: Some(8),
        suspend_us: None,
        read_holds_channel: None,
    }
}
