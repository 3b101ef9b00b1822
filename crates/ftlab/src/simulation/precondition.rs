//! Preconditioning (DESIGN §5): fill each namespace to a fraction, sequentially or in a
//! random order, then overwrite at random so GC reaches steady state. It is instant (no
//! timing, no metrics) but goes through the same scheme, stream mapper, frontiers and GC
//! victim choice as the timed run, so the layout is the one the scheme would produce.

use crate::flash::geometry::DieIdx;
use crate::ftl::blocks::WriteClass;
use crate::ftl::gc::VictimPolicy;
use crate::ftl::{FrontierKey, Ftl, NONE};
use crate::scenario::{FillOrder, PreconditionConfig};
use crate::scheme::Scheme;
use crate::sim::time::SimTime;
use crate::sim::Rng;
use crate::stream::StreamMapper;
use rand::Rng as _;

/// GC knobs preconditioning needs.
#[derive(Clone, Copy, Debug)]
pub struct PreconditionGc {
    pub low_watermark: u32,
    pub policy: VictimPolicy,
}

/// Fill every namespace of `ftl` as `cfg` says. Tenants are interleaved unit by unit.
pub fn precondition(
    ftl: &mut Ftl,
    scheme: &mut dyn Scheme,
    mapper: &mut dyn StreamMapper,
    cfg: &PreconditionConfig,
    gc: PreconditionGc,
    rng: &mut Rng,
) -> Result<(), OutOfSpace> {
    let ns = ftl.params.namespace_units.clone();
    let fill: Vec<u64> = ns.iter().map(|&n| (n as f64 * cfg.fill_fraction).floor() as u64).collect();
    let perms: Vec<Permutation> = fill.iter().map(|&n| Permutation::new(n, rng.random())).collect();
    let longest = fill.iter().copied().max().unwrap_or(0);
    let mut w = Writer { ftl, scheme, mapper, gc };
    let fills = (0..longest).flat_map(|i| {
        let (fill, perms) = (&fill, &perms);
        (0..fill.len()).filter(move |&t| i < fill[t]).map(move |t| {
            let lpn = match cfg.order {
                FillOrder::Sequential => i,
                FillOrder::Random => perms[t].at(i),
            };
            (t as u16, lpn as u32)
        })
    });
    w.write_all(fills)?;
    let overwrites: Vec<u64> = fill.iter().map(|&n| (n as f64 * cfg.overwrite_passes).round() as u64).collect();
    let most = overwrites.iter().copied().max().unwrap_or(0);
    let overwrite = (0..most).flat_map(|i| {
        let (fill, overwrites) = (&fill, &overwrites);
        (0..fill.len()).filter(move |&t| i < overwrites[t] && fill[t] > 0).map(move |t| (t as u16, t))
    });
    // The draw is made when an item is taken, so the PRNG sequence is the one of a plain loop.
    w.write_all(overwrite.map(|(t, ti)| (t, rng.random_range(0..fill[ti]) as u32)))?;
    for (block, page) in w.ftl.pad_all_frontiers() {
        w.ftl.programmed(block, page);
    }
    Ok(())
}

/// Preconditioning could not place a unit of `tenant` (index in scenario order): the device
/// has too little spare space for the namespaces, frontiers and GC reserve of this scenario.
/// The reason says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfSpace {
    pub tenant: u16,
    pub reason: String,
}

struct Writer<'f> {
    ftl: &'f mut Ftl,
    scheme: &'f mut dyn Scheme,
    mapper: &'f mut dyn StreamMapper,
    gc: PreconditionGc,
}

/// Writes run this many units behind the sequence, so the L2P entry of each unit (and then
/// the P2L entry of its old location) is prefetched while earlier units are written.
const LOOKAHEAD: usize = 16;

impl Writer<'_> {
    /// Write every `(tenant, lpn)` of `units`, in order.
    fn write_all(&mut self, units: impl Iterator<Item = (u16, u32)>) -> Result<(), OutOfSpace> {
        let mut ring = [(0u16, 0u32); LOOKAHEAD];
        let mut taken = 0usize;
        for unit in units {
            let slot = taken % LOOKAHEAD;
            if taken >= LOOKAHEAD {
                let (t, lpn) = ring[slot];
                self.write(t, lpn)?;
            }
            self.ftl.prefetch_l2p(unit.0, unit.1);
            if taken >= LOOKAHEAD / 2 {
                let (t, lpn) = ring[(taken - LOOKAHEAD / 2) % LOOKAHEAD];
                self.ftl.prefetch_old_location(t, lpn);
            }
            ring[slot] = unit;
            taken += 1;
        }
        for k in taken.saturating_sub(LOOKAHEAD)..taken {
            let (t, lpn) = ring[k % LOOKAHEAD];
            self.write(t, lpn)?;
        }
        Ok(())
    }

    fn write(&mut self, t: u16, lpn: u32) -> Result<(), OutOfSpace> {
        let stream = self.mapper.host_stream(t, lpn, 0, SimTime::ZERO);
        let key = FrontierKey { tenant: t, stream, class: WriteClass::Host };
        for _attempt in 0..self.ftl.geometry.n_dies + 1 {
            let die = match self.ftl.host_cursor(t, stream) {
                Some(d) => d,
                None => self.scheme.host_write_die(t, stream, self.ftl),
            };
            match self.ftl.allocate(key, die, SimTime::ZERO) {
                Ok(p) => {
                    self.ftl.map_host(t, lpn, p.ppa);
                    if let Some((block, page)) = p.page_full {
                        self.ftl.programmed(block, page);
                    }
                    if self.ftl.blocks.free_count(die) < self.gc.low_watermark {
                        self.collect(die)?;
                    }
                    return Ok(());
                }
                Err(_) => self.collect(die)?,
            }
        }
        Err(OutOfSpace {
            tenant: t,
            reason: "preconditioning found no die with room for its data: every die it may write is full of valid data".into(),
        })
    }

    /// Instant GC on `die` until it is back at the low watermark (or has nothing to collect).
    fn collect(&mut self, die: DieIdx) -> Result<(), OutOfSpace> {
        while self.ftl.blocks.free_count(die) < self.gc.low_watermark {
            let Some(victim) = self.scheme.gc_victim(die, self.ftl, self.gc.policy, SimTime::ZERO) else {
                return Ok(());
            };
            self.ftl.mark_victim(victim);
            let g = self.ftl.geometry;
            let info = *self.ftl.blocks.get(victim);
            let first = victim.0 * g.units_per_block;
            self.ftl.prefetch_l2p_of_units(info.owner, first, g.units_per_block);
            for src in first..first + g.units_per_block {
                let lpn = self.ftl.p2l[src as usize];
                if lpn == NONE {
                    continue;
                }
                let stream = self.mapper.gc_stream(info.owner, lpn, info.stream);
                let key = FrontierKey { tenant: info.owner, stream, class: WriteClass::Gc };
                let to = self.scheme.gc_write_die(info.owner, die, self.ftl);
                let p = self.ftl.allocate(key, to, SimTime::ZERO).map_err(|_| {
                    OutOfSpace { tenant: info.owner, reason: format!("preconditioning GC found no free block on die {} for the data it moves", to.0) }
                })?;
                self.ftl.map_copy(info.owner, lpn, crate::flash::geometry::Ppa(src), p.ppa);
                if let Some((block, page)) = p.page_full {
                    self.ftl.programmed(block, page);
                }
            }
            self.ftl.erase(victim);
        }
        Ok(())
    }
}

/// A pseudo-random permutation of `[0, n)` without a table: a full-period LCG modulo the
/// next power of two, skipping values >= n (cycle walking).
struct Permutation {
    n: u64,
    mask: u64,
    mult: u64,
    add: u64,
}

impl Permutation {
    fn new(n: u64, seed: u64) -> Permutation {
        let m = n.max(2).next_power_of_two();
        // Hull-Dobell: c odd, a = 1 mod 4 give a full period modulo 2^k.
        Permutation { n, mask: m - 1, mult: (seed << 2 | 1) & (m - 1) | 1 | 4 & (m - 1), add: (seed >> 20) | 1 }
    }

    /// The `i`-th element: the LCG orbit from 0, walking past values >= n.
    fn at(&self, i: u64) -> u64 {
        let mut x = i;
        loop {
            x = (x.wrapping_mul(self.mult).wrapping_add(self.add)) & self.mask;
            if x < self.n {
                return x;
            }
        }
    }
}
