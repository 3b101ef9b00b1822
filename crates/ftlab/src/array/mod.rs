//! An array of devices (`[array]`, docs/array.md): the scenario's device, `devices` times,
//! under one scheme, behind a host layer with rotating parity (RAID-5), in one deterministic
//! simulation. Each device is a `Simulation` of its own (its own FTL, scheme, dies and event
//! queue, preconditioned apart), fed from above (`simulation::feed`): this module is the
//! feeder. One order of events across the devices and the host layer: the earliest pending
//! event first, ties broken by device index, the host layer's arrivals after every device
//! event of the same time (`run`). Not a second engine: every flash operation is timed by a
//! device's own engine. IODA's contract rides on it: fail-fast reads rebuilt by the host
//! (`host`), and staggered host window schedules (`run::staggered`). Pieces: `layout` (where
//! a unit lives), `plan` (a request cut into device requests), `oracle` (the integrity oracle
//! across the array), `host` (the host layer's requests, stripe locks and queues), `run` (the
//! loop and the results).

mod host;
mod layout;
mod oracle;
mod plan;
mod run;

pub(crate) use run::{array_units, has_host_schedule, run_array, staggered};
