//! How the host layer cuts one array request into device requests (pure: no state, no time).
//! A read becomes one device read per run of units in one chunk; a unit on the device
//! `[array] rebuild_device` names is read instead from every other device of its row (data and
//! parity) at the same offset. A write is planned per row: a row whose data chunks it covers
//! whole is a full-stripe write (data and the parity computed from it, no read); any other
//! row is a read-modify-write: read the old data of the units it writes and the old parity of
//! the offsets they span, then write the new data and parity (new parity = old parity XOR old
//! data XOR new data). md chooses between read-modify-write and reconstruct-write by the
//! number of reads; this layer always takes read-modify-write for a partial row (one rule,
//! docs/array.md).

use super::layout::Layout;

/// A run of units at one place: `n` units from `offset` of chunk `row` on `device`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) device: u32,
    pub(crate) row: u32,
    pub(crate) offset: u32,
    pub(crate) n: u32,
}

/// The array units of a request (`n` units from `first`, wrapping at `units`), cut into
/// pieces, each within one chunk; consecutive units of one chunk make one piece. Returns the
/// pieces with the array unit of each piece's first unit.
pub(crate) fn pieces(l: &Layout, first: u32, n: u32, units: u32) -> Vec<(u32, Piece)> {
    let mut out: Vec<(u32, Piece)> = Vec::new();
    for i in 0..n {
        let u = (first as u64 + i as u64) % units as u64;
        let p = l.place(u as u32);
        if let Some((_, last)) = out.last_mut() {
            if last.device == p.device && last.row == p.row && last.offset + last.n == p.offset {
                last.n += 1;
                continue;
            }
        }
        out.push((u as u32, Piece { device: p.device, row: p.row, offset: p.offset, n: 1 }));
    }
    out
}

/// The member reads that rebuild `p` (on a device not to be read): the same units of its row
/// on every other device.
pub(crate) fn rebuild_members(l: &Layout, p: &Piece) -> impl Iterator<Item = Piece> {
    let p = *p;
    (0..l.devices).filter(move |&d| d != p.device).map(move |d| Piece { device: d, ..p })
}

/// One row of a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowWrite {
    pub(crate) row: u32,
    /// The data pieces written, with the array unit of each one's first unit.
    pub(crate) data: Vec<(u32, Piece)>,
    /// Every data unit of the row is written: parity is computed, nothing is read.
    pub(crate) full: bool,
    /// The parity offsets written: `[lo, hi)` (for a full row, the whole chunk).
    pub(crate) lo: u32,
    pub(crate) hi: u32,
}

impl RowWrite {
    /// The parity piece this row writes.
    pub(crate) fn parity(&self, l: &Layout) -> Piece {
        Piece { device: l.parity_device(self.row), row: self.row, offset: self.lo, n: self.hi - self.lo }
    }
}

/// The rows of a write of `pieces` (as `pieces` gives them), in the order of their first
/// piece.
pub(crate) fn row_writes(l: &Layout, pieces: &[(u32, Piece)]) -> Vec<RowWrite> {
    let mut rows: Vec<RowWrite> = Vec::new();
    for &(u, p) in pieces {
        let at = match rows.iter().position(|r| r.row == p.row) {
            Some(i) => i,
            None => {
                rows.push(RowWrite { row: p.row, data: Vec::new(), full: false, lo: p.offset, hi: p.offset });
                rows.len() - 1
            }
        };
        let r = &mut rows[at];
        r.data.push((u, p));
        r.lo = r.lo.min(p.offset);
        r.hi = r.hi.max(p.offset + p.n);
    }
    for r in rows.iter_mut() {
        let mut covered = vec![false; (l.data_chunks() * l.chunk_units) as usize];
        for &(u, p) in &r.data {
            let base = u - r.row * l.data_chunks() * l.chunk_units;
            for i in 0..p.n {
                covered[(base + i) as usize] = true;
            }
        }
        r.full = covered.iter().all(|&c| c);
        if r.full {
            (r.lo, r.hi) = (0, l.chunk_units);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (devices, chunk units, rows, first unit, units) -> pieces cover each unit once, in
    /// order, each within one chunk; full rows are exactly those covered whole.
    #[test]
    fn pieces_and_rows_cover_the_request() {
        let cases = [
            (3, 1, 4, 0, 2, 1),
            (4, 4, 3, 0, 12, 1),
            (4, 4, 3, 2, 12, 0),
            (4, 4, 3, 30, 10, 0),
            (5, 2, 2, 3, 5, 0),
            (4, 2, 4, 5, 8, 1),
        ];
        for (devices, chunk, rows, first, n, full_rows) in cases {
            let l = Layout::new(devices, chunk);
            let units = l.array_units(rows * chunk);
            let ps = pieces(&l, first, n, units);
            let mut next = first;
            for &(u, p) in &ps {
                assert_eq!(u, next % units, "pieces in order");
                for i in 0..p.n {
                    let at = l.place((u + i) % units);
                    assert_eq!((at.device, at.row, at.offset), (p.device, p.row, p.offset + i));
                }
                next += p.n;
            }
            assert_eq!(next - first, n, "every unit once");
            let rw = row_writes(&l, &ps);
            assert_eq!(rw.iter().filter(|r| r.full).count(), full_rows, "{devices} {chunk} {first} {n}");
            for r in &rw {
                let par = r.parity(&l);
                assert_eq!(par.device, l.parity_device(r.row));
                assert!(r
                    .data
                    .iter()
                    .all(|(_, p)| p.offset >= par.offset && p.offset + p.n <= par.offset + par.n));
            }
        }
    }
}
