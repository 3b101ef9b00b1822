//! Simulation primitives: `SimTime`, the event queue, and the seeded PRNG.

pub mod time;
