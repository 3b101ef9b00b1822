//! The integrity oracle (DESIGN §5): a reference model of what every logical page must read
//! back, kept apart from the FTL's own mapping. It tracks a version per logical page and the
//! version stored in every physical unit, and checks each read and each GC copy. A mismatch
//! is a simulator bug: it panics with the address. Not a performance model; off by default in
//! runs because it costs 4 bytes per logical and per physical unit.

use crate::flash::geometry::Ppa;

const NEVER: u32 = 0;

/// Versions of logical pages and the contents of physical units.
#[derive(Clone, Debug)]
pub struct Oracle {
    /// Per tenant, per logical page: the latest version written, `NEVER` if unwritten or trimmed.
    expected: Vec<Vec<u32>>,
    /// Per physical unit: `(tenant << 32 | lpn, version)` stored there, or erased.
    stored: Vec<(u64, u32)>,
    next_version: u32,
    pub checks: u64,
}

const ERASED: (u64, u32) = (u64::MAX, NEVER);

impl Oracle {
    pub fn new(namespace_units: &[u32], physical_units: u64) -> Oracle {
        Oracle {
            expected: namespace_units.iter().map(|&n| vec![NEVER; n as usize]).collect(),
            stored: vec![ERASED; physical_units as usize],
            next_version: 1,
            checks: 0,
        }
    }

    fn key(tenant: u16, lpn: u32) -> u64 {
        (tenant as u64) << 32 | lpn as u64
    }

    /// The host wrote `lpn` into `ppa`.
    pub fn host_write(&mut self, tenant: u16, lpn: u32, ppa: Ppa) {
        let v = self.next_version;
        self.next_version = self.next_version.checked_add(1).expect("oracle version overflow");
        self.expected[tenant as usize][lpn as usize] = v;
        let slot = &mut self.stored[ppa.0 as usize];
        assert_eq!(*slot, ERASED, "oracle: host write of t{tenant}:lpn{lpn} into unerased unit {}", ppa.0);
        *slot = (Self::key(tenant, lpn), v);
    }

    /// GC copied the latest version of `lpn` from `src` to `dst`.
    pub fn copy(&mut self, tenant: u16, lpn: u32, src: Ppa, dst: Ppa) {
        self.check_read(tenant, lpn, src);
        let content = self.stored[src.0 as usize];
        let slot = &mut self.stored[dst.0 as usize];
        assert_eq!(*slot, ERASED, "oracle: GC copy of t{tenant}:lpn{lpn} into unerased unit {}", dst.0);
        *slot = content;
    }

    /// The FTL serves a read of `lpn` from `ppa`; it must hold the latest version.
    pub fn check_read(&mut self, tenant: u16, lpn: u32, ppa: Ppa) {
        self.checks += 1;
        let want = self.expected[tenant as usize][lpn as usize];
        let have = self.stored[ppa.0 as usize];
        assert!(
            want != NEVER && have == (Self::key(tenant, lpn), want),
            "oracle: read of t{tenant}:lpn{lpn} from unit {} found {:?}, expected version {want}",
            ppa.0,
            have
        );
    }

    /// The FTL reports `lpn` unmapped; it must never have been written, or been trimmed.
    pub fn check_unmapped(&mut self, tenant: u16, lpn: u32) {
        self.checks += 1;
        let want = self.expected[tenant as usize][lpn as usize];
        assert_eq!(want, NEVER, "oracle: t{tenant}:lpn{lpn} lost: unmapped, but version {want} was written");
    }

    pub fn trim(&mut self, tenant: u16, lpn: u32) {
        self.expected[tenant as usize][lpn as usize] = NEVER;
    }

    /// A block was erased: its units hold nothing.
    pub fn erase(&mut self, first: Ppa, n_units: u32) {
        for slot in &mut self.stored[first.0 as usize..(first.0 + n_units) as usize] {
            *slot = ERASED;
        }
    }

    /// Every logical page must map to a unit holding its latest version (full sweep).
    pub fn check_all(&mut self, l2p: &[Vec<u32>]) {
        for (t, table) in l2p.iter().enumerate() {
            for (lpn, &ppa) in table.iter().enumerate() {
                if ppa == u32::MAX {
                    self.check_unmapped(t as u16, lpn as u32);
                } else {
                    self.check_read(t as u16, lpn as u32, Ppa(ppa));
                }
            }
        }
    }
}
