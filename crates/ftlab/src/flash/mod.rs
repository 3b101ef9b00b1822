//! The flash array: geometry and typed addresses (`geometry`), timing (`timing`), and the
//! per-die / per-channel state machine that turns operations into busy time (`array`), and
//! the Cosmos board's channel controller (`board`, the `cosmos` preset only).
//! Nothing here knows about tenants, mapping or GC.

pub(crate) mod array;
pub(crate) mod board;
pub(crate) mod cosmos_fit;
pub(crate) mod geometry;
pub(crate) mod timing;
