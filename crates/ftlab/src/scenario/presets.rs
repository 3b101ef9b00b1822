//! Device presets: the papers' devices and a tiny one for tests. A preset fills every
//! `[device]` key the scenario leaves out. Where a paper gives no number, the value is a
//! datasheet-typical one and the comment says so.

use super::{DeviceConfig, TimingConfig};

/// Names a scenario may use in `device.preset`.
pub const PRESETS: &[&str] = &["tiny", "upi", "mqsim"];

pub fn preset(name: &str) -> Option<DeviceConfig> {
    match name {
        // A small device for tests: 4 dies on 2 channels, 64 blocks of 64 pages each
        // (64 MiB raw). Timing as `mqsim` (datasheet-typical MLC).
        "tiny" => Some(DeviceConfig {
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
            over_provisioning: Some(0.25),
            timing: mlc_fast(),
        }),
        // The UPI paper's device (§5): 3 channels x 4 chips, 150 GB logical / 192 GB
        // physical (28% over-provisioning). The paper's Table 1 is not in our copy: the
        // timing follows a published reimplementation (read 50 us, program 500 us, erase
        // 5 ms, about 40 us to move a 4 KiB page: 100 MT/s x 8 bit) and 128 pages per
        // block. 192e9 bytes / 12 dies / (128 x 4096 bytes) = 30518 blocks per die, as
        // 2 planes x 15259 blocks (192.0 GB physical; 150 GB logical at 28%).
        "upi" => Some(DeviceConfig {
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
            over_provisioning: Some(0.28),
            timing: TimingConfig {
                read_us: Some(50.0),
                program_us: Some(500.0),
                erase_us: Some(5000.0),
                command_ns: Some(0),
                channel_mts: Some(100),
                channel_width_bits: Some(8),
                suspend_us: None,
            },
        }),
        // The MQSim-comparable device of `ftlab bench`: 4 channels x 4 chips x 1 die x 2
        // planes x 1024 blocks x 256 pages x 4 KiB (32 GiB raw), 7% over-provisioning,
        // read 25 us, program 200 us, erase 1.5 ms, 8-bit 333 MT/s channels.
        "mqsim" => Some(DeviceConfig {
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
            over_provisioning: Some(0.07),
            timing: mlc_fast(),
        }),
        _ => None,
    }
}

fn mlc_fast() -> TimingConfig {
    TimingConfig {
        read_us: Some(25.0),
        program_us: Some(200.0),
        erase_us: Some(1500.0),
        command_ns: Some(0),
        channel_mts: Some(333),
        channel_width_bits: Some(8),
        suspend_us: None,
    }
}
