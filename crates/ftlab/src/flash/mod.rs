//! The flash array: geometry and typed addresses (`geometry`), timing (`timing`), and the
//! per-die / per-channel state machine that turns operations into busy time (`array`).
//! Nothing here knows about tenants, mapping or GC.

pub mod array;
pub mod cosmos_fit;
pub mod geometry;
pub mod timing;
