//! The array's layout: RAID-5 with rotating parity, left-symmetric (Linux md's default, which
//! IODA's artifact used: `mdadm --level=5 -c 4` names no layout). A tenant's array namespace
//! is cut into chunks of `chunk_units` mapping units; `devices - 1` data chunks and one parity
//! chunk make a row (a stripe), each on its own device, at the same device offset. Row `r`'s
//! parity is on device `K - 1 - r mod K`, and its data chunks follow it round the devices.
//! Pure arithmetic: no state, no time.

/// Where one array unit lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) row: u32,
    /// The device holding the unit's data chunk.
    pub(crate) device: u32,
    /// Unit offset inside the chunk.
    pub(crate) offset: u32,
}

/// The layout of one array (the same for every tenant; only the rows differ).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub(crate) devices: u32,
    pub(crate) chunk_units: u32,
}

impl Layout {
    pub(crate) fn new(devices: u32, chunk_units: u32) -> Layout {
        assert!(devices >= 3 && chunk_units >= 1, "RAID-5 over at least three devices");
        Layout { devices, chunk_units }
    }

    /// Data chunks per row.
    pub(crate) fn data_chunks(&self) -> u32 {
        self.devices - 1
    }

    /// Rows of a tenant whose namespace on each device is `device_units` (whole chunks only).
    pub(crate) fn rows(&self, device_units: u32) -> u32 {
        device_units / self.chunk_units
    }

    /// The array namespace of a tenant with `device_units` on each device.
    pub(crate) fn array_units(&self, device_units: u32) -> u32 {
        self.rows(device_units) * self.data_chunks() * self.chunk_units
    }

    /// The parity device of row `row`.
    pub(crate) fn parity_device(&self, row: u32) -> u32 {
        self.devices - 1 - row % self.devices
    }

    /// The device of data chunk `i` (0-based, `< data_chunks`) of row `row`.
    pub(crate) fn data_device(&self, row: u32, i: u32) -> u32 {
        (self.parity_device(row) + 1 + i) % self.devices
    }

    /// Where array unit `unit` lives.
    pub(crate) fn place(&self, unit: u32) -> Place {
        let chunk = unit / self.chunk_units;
        let row = chunk / self.data_chunks();
        Place {
            row,
            device: self.data_device(row, chunk % self.data_chunks()),
            offset: unit % self.chunk_units,
        }
    }

    /// The array unit stored at unit `offset` of row `row` on `device`, or `None` where the
    /// device holds the row's parity.
    pub(crate) fn unit_at(&self, row: u32, device: u32, offset: u32) -> Option<u32> {
        let p = self.parity_device(row);
        if device == p {
            return None;
        }
        let i = (device + self.devices - p - 1) % self.devices;
        Some((row * self.data_chunks() + i) * self.chunk_units + offset)
    }

    /// The device unit (logical page in the tenant's device namespace) of `offset` in `row`.
    pub(crate) fn device_unit(&self, row: u32, offset: u32) -> u32 {
        row * self.chunk_units + offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every array unit has one place, a data place; each (row, device, offset) holds at most
    /// one unit, and each row has exactly one parity chunk, on a device that rotates.
    #[test]
    fn the_layout_is_a_bijection_onto_data_places() {
        for (devices, chunk_units, rows) in [(3, 1, 7), (4, 1, 9), (4, 4, 5), (5, 2, 11), (8, 16, 3)] {
            let l = Layout::new(devices, chunk_units);
            let n = l.array_units(rows * chunk_units);
            assert_eq!(n, rows * (devices - 1) * chunk_units);
            let mut seen = std::collections::HashSet::new();
            for u in 0..n {
                let p = l.place(u);
                assert!(p.row < rows && p.device < devices && p.offset < chunk_units);
                assert_ne!(p.device, l.parity_device(p.row), "unit {u} on its row's parity device");
                assert!(seen.insert((p.row, p.device, p.offset)), "two units at {p:?}");
                assert_eq!(l.unit_at(p.row, p.device, p.offset), Some(u));
            }
            for r in 0..rows {
                let parity: Vec<u32> = (0..devices).filter(|&d| l.unit_at(r, d, 0).is_none()).collect();
                assert_eq!(parity, vec![l.parity_device(r)]);
                if r > 0 {
                    assert_ne!(l.parity_device(r), l.parity_device(r - 1), "parity rotates");
                }
            }
        }
    }

    /// md's left-symmetric layout over four devices (`drivers/md/raid5.c`,
    /// ALGORITHM_LEFT_SYMMETRIC): row 0 is D0 D1 D2 P, row 1 is D4 D5 P D3, row 2 is
    /// D8 P D6 D7, row 3 is P D9 D10 D11 (chunks numbered across rows).
    #[test]
    fn four_devices_match_left_symmetric() {
        let l = Layout::new(4, 1);
        let rows: [[Option<u32>; 4]; 4] = [
            [Some(0), Some(1), Some(2), None],
            [Some(4), Some(5), None, Some(3)],
            [Some(8), None, Some(6), Some(7)],
            [None, Some(9), Some(10), Some(11)],
        ];
        for (r, row) in rows.iter().enumerate() {
            for (d, want) in row.iter().enumerate() {
                assert_eq!(l.unit_at(r as u32, d as u32, 0), *want, "row {r} device {d}");
            }
        }
    }
}
