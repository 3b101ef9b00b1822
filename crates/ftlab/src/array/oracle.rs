//! The array's integrity oracle (DESIGN §5, across devices): what every array unit must read
//! back, and what every device unit holds, as 64-bit content tokens. A host write gives each
//! unit it writes a fresh token; a parity unit holds the XOR of its row's data tokens at the
//! same offset, as the host layer computed it from what it read (a read-modify-write) or
//! wrote (a full stripe). A plain read must find the expected token on its device; a rebuilt
//! read XORs the tokens the other devices hold (data and parity) and must find it too, which
//! holds only if every parity update was right. Each device's own oracle (`[check]
//! integrity`) checks that the device returns what was last written to its unit, so the two
//! together check the array end to end. A mismatch is a simulator bug: it panics with the
//! address. Kept only with `[check] integrity` (8 bytes per array and per device unit).

use super::layout::Layout;

/// Tokens of every tenant's units, on the array and on each device.
pub(crate) struct ArrayOracle {
    layout: Layout,
    /// Per tenant, per array unit: the token last written.
    expected: Vec<Vec<u64>>,
    /// Per device, per tenant, per device unit: the token the device holds.
    held: Vec<Vec<Vec<u64>>>,
    next: u64,
    pub(crate) checks: u64,
}

/// SplitMix64's finaliser: distinct inputs give distinct, well-spread tokens.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl ArrayOracle {
    /// After preconditioning: every data unit holds a token of its own and every parity unit
    /// the XOR of its row's (the fill wrote every device unit; the array starts consistent,
    /// as md's `--assume-clean` which IODA's artifact used declares it).
    pub(crate) fn new(layout: Layout, device_units: &[u32]) -> ArrayOracle {
        let k = layout.devices as usize;
        let mut held: Vec<Vec<Vec<u64>>> =
            (0..k).map(|_| device_units.iter().map(|&n| vec![0; n as usize]).collect()).collect();
        let mut expected = Vec::with_capacity(device_units.len());
        for (t, &n) in device_units.iter().enumerate() {
            let units = layout.array_units(n);
            let mut exp = vec![0; units as usize];
            for (u, e) in exp.iter_mut().enumerate() {
                let p = layout.place(u as u32);
                *e = mix((t as u64) << 32 | u as u64);
                let du = layout.device_unit(p.row, p.offset) as usize;
                held[p.device as usize][t][du] = *e;
                held[layout.parity_device(p.row) as usize][t][du] ^= *e;
            }
            expected.push(exp);
        }
        ArrayOracle { layout, expected, held, next: 1 << 48, checks: 0 }
    }

    /// A fresh token for a host write of array unit `unit` of tenant `t`: it becomes the
    /// expected content, and the data device holds it.
    pub(crate) fn write_data(&mut self, t: u16, unit: u32) -> u64 {
        self.next += 1;
        let token = mix(self.next);
        let p = self.layout.place(unit);
        self.expected[t as usize][unit as usize] = token;
        self.held[p.device as usize][t as usize][self.layout.device_unit(p.row, p.offset) as usize] = token;
        token
    }

    /// The host layer writes `token` to parity unit `offset` of `row`.
    pub(crate) fn write_parity(&mut self, t: u16, row: u32, offset: u32, token: u64) {
        let d = self.layout.parity_device(row) as usize;
        self.held[d][t as usize][self.layout.device_unit(row, offset) as usize] = token;
    }

    /// What `device` holds at unit `offset` of `row` (a device read returns it).
    pub(crate) fn read(&self, t: u16, device: u32, row: u32, offset: u32) -> u64 {
        self.held[device as usize][t as usize][self.layout.device_unit(row, offset) as usize]
    }

    /// A plain read of array unit `unit` found `token` on its device: `Err` names the
    /// mismatch (the caller panics: a simulator bug).
    pub(crate) fn check_read(&mut self, t: u16, unit: u32, token: u64) -> Result<(), String> {
        self.checks += 1;
        let want = self.expected[t as usize][unit as usize];
        if token == want {
            return Ok(());
        }
        Err(format!("array oracle: read of t{t}:unit{unit} found {token:#x}, expected {want:#x}"))
    }

    /// A read of array unit `unit` rebuilt from the other devices of its row: the XOR of
    /// what they hold must be the expected token (`Err` names the mismatch).
    pub(crate) fn check_rebuild(&mut self, t: u16, unit: u32) -> Result<(), String> {
        let p = self.layout.place(unit);
        let rebuilt = (0..self.layout.devices)
            .filter(|&d| d != p.device)
            .fold(0, |acc, d| acc ^ self.read(t, d, p.row, p.offset));
        self.checks += 1;
        let want = self.expected[t as usize][unit as usize];
        if rebuilt == want {
            return Ok(());
        }
        Err(format!(
            "array oracle: rebuilt read of t{t}:unit{unit} (row {}, device {}) gave {rebuilt:#x}, expected \
             {want:#x}: a parity update was wrong",
            p.row, p.device
        ))
    }

    /// A read of the parity at `offset` of `row` rebuilt from the row's data chunks (a
    /// read-modify-write's old parity, its device busy): their XOR must be the parity its
    /// device holds (`Err` names the mismatch).
    pub(crate) fn check_parity_rebuild(&mut self, t: u16, row: u32, offset: u32) -> Result<(), String> {
        let pd = self.layout.parity_device(row);
        let rebuilt = (0..self.layout.devices)
            .filter(|&d| d != pd)
            .fold(0, |acc, d| acc ^ self.read(t, d, row, offset));
        self.checks += 1;
        let want = self.read(t, pd, row, offset);
        if rebuilt == want {
            return Ok(());
        }
        Err(format!(
            "array oracle: rebuilt parity of t{t}:row{row}:offset{offset} gave {rebuilt:#x}, device {pd} \
             holds {want:#x}: a parity update was wrong"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read-modify-write that updates parity right keeps every rebuild right; one that
    /// leaves the old parity makes the rebuild of an unchanged unit of the row fail.
    #[test]
    fn a_stale_parity_fails_the_rebuild() {
        for (devices, chunk, rows, unit) in [(3u32, 1u32, 4u32, 0u32), (4, 2, 3, 5), (5, 1, 2, 6)] {
            for update_parity in [true, false] {
                let l = Layout::new(devices, chunk);
                let mut o = ArrayOracle::new(l, &[rows * chunk]);
                let p = l.place(unit);
                let old = o.read(0, p.device, p.row, p.offset);
                let old_parity = o.read(0, l.parity_device(p.row), p.row, p.offset);
                let new = o.write_data(0, unit);
                if update_parity {
                    o.write_parity(0, p.row, p.offset, old_parity ^ old ^ new);
                }
                // Another data unit of the row, at the same offset.
                let other = (0..l.data_chunks())
                    .filter_map(|i| l.unit_at(p.row, l.data_device(p.row, i), p.offset))
                    .find(|&u| u != unit)
                    .expect("a row has two data chunks or more");
                let r = o.check_rebuild(0, unit).and(o.check_rebuild(0, other));
                let par = o.check_parity_rebuild(0, p.row, p.offset);
                assert_eq!(par.is_ok(), update_parity, "parity rebuild, devices {devices}, unit {unit}");
                assert_eq!(o.check_read(0, unit, new), Ok(()));
                assert_eq!(
                    r.is_ok(),
                    update_parity,
                    "devices {devices}, unit {unit}, update {update_parity}"
                );
            }
        }
    }
}
