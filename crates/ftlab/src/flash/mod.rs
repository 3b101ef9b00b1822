//! The flash array: geometry and typed addresses (`geometry`), timing (`timing`), and the
//! per-die / per-channel state machine that turns operations into busy time (`array`).
//! Nothing here knows about tenants, mapping or GC.

pub(crate) mod array;
pub(crate) mod cosmos_fit;
pub(crate) mod geometry;
pub(crate) mod timing;
