//! Simulation primitives: `SimTime`, the event queue, the slab, and the seeded PRNG.

pub(crate) mod events;
pub(crate) mod slab;
pub(crate) mod time;

use rand_pcg::Pcg64Mcg;

/// The one PRNG type of the simulator: PCG (128-bit MCG), seeded explicitly.
pub(crate) type Rng = Pcg64Mcg;

/// A PRNG for purpose `stream` of a run seeded with `seed` (splitmix64 of both), so
/// independent consumers get independent, reproducible sequences.
pub(crate) fn rng(seed: u64, stream: u64) -> Rng {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = || {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    };
    let state = (next() as u128) << 64 | next() as u128;
    Pcg64Mcg::new(state | 1)
}

/// Seed of `purpose` for tenant `tenant` (generators, preconditioning).
pub(crate) fn seed_for(seed: u64, purpose: u64, tenant: u64) -> u64 {
    let mut r = rng(seed, purpose << 32 | tenant);
    rand::RngCore::next_u64(&mut r)
}
