//! ftlab: a fast, deterministic simulator of a shared (multi-tenant) NAND-flash SSD.
//!
//! The model (`sim`, `flash`, `ftl`, `policy`, `scheme`, `stream`, `sched`, `host`,
//! `metrics`, `simulation`) does no I/O. `workload` and `scenario` turn text into plain data. `api`
//! is the only edge that opens files. See `docs/ARCHITECTURE.md`.

pub mod api;
pub mod capture;
pub mod error;
pub mod flash;
pub mod ftl;
pub mod host;
pub mod knobs;
pub mod metrics;
pub mod policy;
pub mod rt;
pub mod scenario;
pub mod sched;
pub mod scheme;
pub mod sim;
pub mod simulation;
pub mod stream;
pub mod workload;

pub use error::FtlabError;
pub use sim::time::SimTime;
