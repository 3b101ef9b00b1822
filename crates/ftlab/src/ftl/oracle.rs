//! The integrity oracle (DESIGN §5): a reference model of what every logical page must read
//! back, kept apart from the FTL's own mapping. It tracks a version per logical page and the
//! version stored in every physical unit, and checks each read and each GC copy. A mismatch
//! is a simulator bug: it panics with the address. Not a performance model; off by default in
//! runs because it costs 4 bytes per logical and per physical unit.
//!
//! Parity: a parity page holds the XOR of its data pages. The oracle models that XOR with a
//! digest: each unit's content, bound to its physical address, is hashed to 64 bits, and a
//! parity page stores the XOR of the hashes of every unit of its data pages when it was
//! programmed (`seal_parity`). A rebuilt read XORs the parity digest with the hashes of the
//! other members as they are *now* (`check_rebuild`): the result equals the target page's
//! hash only if no member was erased or rewritten since (up to a 2^-64 collision), which is
//! exactly when a real XOR rebuild returns the right data.

use super::table::UnitTable;
use crate::flash::geometry::Ppa;

const NEVER: u32 = 0;

/// Versions of logical pages and the contents of physical units.
#[derive(Clone, Debug)]
pub(crate) struct Oracle {
    /// Per tenant, per logical page: the latest version written, `NEVER` if unwritten or trimmed.
    expected: Vec<Vec<u32>>,
    /// Per physical unit: `(tenant << 32 | lpn, version)` stored there, or erased.
    stored: Vec<(u64, u32)>,
    next_version: u32,
    /// Per physical page: the digest of the data pages a parity page covers (0: not a sealed
    /// parity page). Empty until the first parity page is sealed.
    parity: Vec<u64>,
    units_per_page: u32,
    pub(crate) checks: u64,
}

const ERASED: (u64, u32) = (u64::MAX, NEVER);

impl Oracle {
    pub(crate) fn new(namespace_units: &[u32], physical_units: u64, units_per_page: u32) -> Oracle {
        assert!(units_per_page >= 1 && physical_units.is_multiple_of(units_per_page as u64), "whole pages");
        Oracle {
            expected: namespace_units.iter().map(|&n| vec![NEVER; n as usize]).collect(),
            stored: vec![ERASED; physical_units as usize],
            next_version: 1,
            parity: Vec::new(),
            units_per_page,
            checks: 0,
        }
    }

    fn key(tenant: u16, lpn: u32) -> u64 {
        (tenant as u64) << 32 | lpn as u64
    }

    /// The host wrote `lpn` into `ppa`.
    pub(crate) fn host_write(&mut self, tenant: u16, lpn: u32, ppa: Ppa) {
        let v = self.next_version;
        self.next_version = self.next_version.checked_add(1).expect("oracle version overflow");
        self.expected[tenant as usize][lpn as usize] = v;
        let slot = &mut self.stored[ppa.0 as usize];
        assert_eq!(*slot, ERASED, "oracle: host write of t{tenant}:lpn{lpn} into unerased unit {}", ppa.0);
        *slot = (Self::key(tenant, lpn), v);
    }

    /// GC copied the latest version of `lpn` from `src` to `dst`.
    pub(crate) fn copy(&mut self, tenant: u16, lpn: u32, src: Ppa, dst: Ppa) {
        self.check_read(tenant, lpn, src);
        let content = self.stored[src.0 as usize];
        let slot = &mut self.stored[dst.0 as usize];
        assert_eq!(*slot, ERASED, "oracle: GC copy of t{tenant}:lpn{lpn} into unerased unit {}", dst.0);
        *slot = content;
    }

    /// The FTL serves a read of `lpn` from `ppa`; it must hold the latest version.
    pub(crate) fn check_read(&mut self, tenant: u16, lpn: u32, ppa: Ppa) {
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
    pub(crate) fn check_unmapped(&mut self, tenant: u16, lpn: u32) {
        self.checks += 1;
        let want = self.expected[tenant as usize][lpn as usize];
        assert_eq!(want, NEVER, "oracle: t{tenant}:lpn{lpn} lost: unmapped, but version {want} was written");
    }

    pub(crate) fn trim(&mut self, tenant: u16, lpn: u32) {
        self.expected[tenant as usize][lpn as usize] = NEVER;
    }

    /// A block was erased: its units hold nothing, and its parity pages no digest.
    pub(crate) fn erase(&mut self, first: Ppa, n_units: u32) {
        for slot in &mut self.stored[first.0 as usize..(first.0 + n_units) as usize] {
            *slot = ERASED;
        }
        if !self.parity.is_empty() {
            let upp = self.units_per_page;
            self.parity[(first.0 / upp) as usize..((first.0 + n_units) / upp) as usize].fill(0);
        }
    }

    /// The page holding `parity` was programmed as the parity of `data` (pages named by any
    /// of their units): record the XOR of their units' hashes.
    pub(crate) fn seal_parity(&mut self, parity: Ppa, data: &[Ppa]) {
        if self.parity.is_empty() {
            self.parity = vec![0; self.stored.len() / self.units_per_page as usize];
        }
        let p = self.page(parity);
        assert!(!data.iter().any(|&d| self.page(d) == p), "oracle: parity page {p} covers itself");
        assert_eq!(self.parity[p as usize], 0, "oracle: parity page {p} sealed twice without an erase");
        let digest = data.iter().fold(0, |acc, &d| acc ^ self.page_hash(d));
        // A digest of 0 would read as "not parity"; the chance is 2^-64, and it would be caught.
        assert_ne!(digest, 0, "oracle: parity digest of page {p} is 0");
        self.parity[p as usize] = digest;
    }

    /// A read of the page holding `target` is rebuilt from `members`: its stripe's other data
    /// pages and its parity page. The XOR must give back the target page as it is stored.
    pub(crate) fn check_rebuild(&mut self, target: Ppa, members: &[Ppa]) {
        self.checks += 1;
        let t = self.page(target);
        let parities: Vec<u32> = members
            .iter()
            .map(|&m| self.page(m))
            .filter(|&m| self.parity.get(m as usize).is_some_and(|&d| d != 0))
            .collect();
        assert_eq!(
            parities.len(),
            1,
            "oracle: rebuild of page {t} from {} members with {} sealed parity pages",
            members.len(),
            parities.len()
        );
        assert!(
            !members.iter().any(|&m| self.page(m) == t),
            "oracle: rebuild of page {t} reads the page itself"
        );
        let mut acc = self.parity[parities[0] as usize];
        for &m in members.iter().filter(|&&m| self.page(m) != parities[0]) {
            acc ^= self.page_hash(m);
        }
        assert_eq!(
            acc,
            self.page_hash(target),
            "oracle: rebuild of page {t} from parity page {} gives other data (a member was erased or \
             rewritten, or is not in the stripe)",
            parities[0]
        );
    }

    fn page(&self, ppa: Ppa) -> u32 {
        ppa.0 / self.units_per_page
    }

    /// XOR of the hashes of every unit of the page holding `ppa`, each bound to its address.
    fn page_hash(&self, ppa: Ppa) -> u64 {
        let first = self.page(ppa) * self.units_per_page;
        (first..first + self.units_per_page).fold(0, |acc, u| {
            let (key, version) = self.stored[u as usize];
            acc ^ mix(u as u64 ^ mix(key ^ mix(version as u64)))
        })
    }

    /// Every logical page must map to a unit holding its latest version (full sweep).
    pub(crate) fn check_all(&mut self, l2p: &[UnitTable]) {
        for (t, table) in l2p.iter().enumerate() {
            for (lpn, ppa) in table.iter().enumerate() {
                if ppa == u32::MAX {
                    self.check_unmapped(t as u16, lpn as u32);
                } else {
                    self.check_read(t as u16, lpn as u32, Ppa(ppa));
                }
            }
        }
    }
}

/// SplitMix64's finaliser: a bijective 64-bit mix.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    //! The parity digest must accept exactly the rebuilds a real XOR would get right.
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    const UPP: u32 = 2;

    /// Pages 0, 1 and 2 hold data (two units each, lpns 0..6 of tenant 0); page 3 is their parity.
    fn sealed() -> Oracle {
        let mut o = Oracle::new(&[16], 16, UPP);
        for u in 0..6 {
            o.host_write(0, u, Ppa(u));
        }
        o.seal_parity(Ppa(6), &[Ppa(0), Ppa(2), Ppa(4)]);
        o
    }

    /// Whether `check_rebuild(target, members)` holds after `change`.
    fn check(change: impl FnOnce(&mut Oracle), target: u32, members: &[u32]) -> bool {
        let mut o = sealed();
        change(&mut o);
        let members: Vec<Ppa> = members.iter().map(|&m| Ppa(m)).collect();
        catch_unwind(AssertUnwindSafe(|| o.check_rebuild(Ppa(target), &members))).is_ok()
    }

    #[test]
    fn rebuilds_pass_only_while_the_stripe_is_what_was_sealed() {
        // Any unit of a page names the page.
        assert!(check(|_| {}, 0, &[2, 4, 6]));
        assert!(check(|_| {}, 3, &[0, 5, 7]));
        // An overwrite elsewhere leaves the old data on flash: still rebuildable.
        assert!(check(|o| o.host_write(0, 2, Ppa(10)), 0, &[2, 4, 6]));
        // A member erased, or erased and rewritten: the XOR no longer gives the page back.
        assert!(!check(|o| o.erase(Ppa(2), 2), 0, &[2, 4, 6]));
        assert!(!check(
            |o| {
                o.erase(Ppa(2), 2);
                o.host_write(0, 2, Ppa(2));
                o.host_write(0, 3, Ppa(3))
            },
            0,
            &[2, 4, 6]
        ));
        // The parity page erased (its digest goes with it).
        assert!(!check(|o| o.erase(Ppa(6), 2), 0, &[2, 4, 6]));
        // A member left out, a stranger put in, or the page itself read.
        assert!(!check(|_| {}, 0, &[2, 6]));
        assert!(!check(|o| o.host_write(0, 8, Ppa(8)), 0, &[2, 8, 6]));
        assert!(!check(|_| {}, 0, &[0, 2, 4, 6]));
        // No sealed parity among the members.
        assert!(!check(|_| {}, 0, &[2, 4]));
    }
}
