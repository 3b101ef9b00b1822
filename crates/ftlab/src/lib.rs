//! ftlab: a fast, deterministic simulator of a shared (multi-tenant) NAND-flash SSD.
//!
//! The model (`sim`, `flash`, `ftl`, `policy`, `scheme`, `stream`, `sched`, `host`,
//! `metrics`, `simulation`) does no I/O. `workload` and `scenario` turn text into plain data. `api`
//! is the only edge that opens files. See `docs/ARCHITECTURE.md`.
//!
//! Every module is private; this file lists the public API. A user of the crate gets:
//!
//! - **Running a scenario**: [`run_scenario`] (a scenario's [`RunOutput`]: summary.json, the resolved
//!   scenario and the [`Table`]s), [`resolve_scenario`], [`default_scenario_toml`], [`policies`] (every
//!   scheme and stream mapper with its knobs), the validated [`Scenario`].
//! - **Errors**: [`FtlabError`], located by [`Stage`] and [`Place`]; the module [`error`] (public whole)
//!   holds each operation's error (run, trace, capture, rt, lifetime) and its typed kinds.
//! - **Traces**: [`trace_stats`] of a trace file in a [`TraceFormat`] ([`TraceStats`]).
//! - **Capture**: [`capture`] turns an strace log into a trace ([`CaptureConfig`], [`StreamRule`]).
//! - **Real-time analysis**: [`rt_admit`], [`rt_bounds`], [`rt_schedulability`], and the schemes that bring
//!   an analysis ([`SCHEMES`], [`scheme_analyses`]).
//! - **Lifetime**: [`lifetime`] and the swap-round bounds ([`swap_rounds_bound`], [`swap_rounds_whole`]).
//! - **Bench cases**: [`bench_case`], [`bench_case_with`] ([`BenchResult`], [`BENCH_CASES`]).
//!
//! [`internals`] re-exports, item by item, the engine's parts that the integration tests and the
//! examples drive or check directly (the FTL types the integrity oracle reads, the policy
//! contracts, the schemes' and the rt analyses' formulas). It is not a stable API.
//!
//! A public type's methods and fields are `pub` only where a test, an example or the bindings use
//! them; the rest are `pub(crate)`.
//!
//! `#![warn(unreachable_pub)]` keeps it so: an item declared `pub` that nothing above re-exports
//! is a warning (an error under CI's `clippy -D warnings`); declare it `pub(crate)`. Re-export an
//! item from the module that defines it. See "Public surface" in `docs/ARCHITECTURE.md`.
#![warn(unreachable_pub)]

mod api;
mod array;
mod capture;
pub mod error;
mod flash;
mod ftl;
mod host;
mod knobs;
mod metrics;
mod policy;
mod rt;
mod scenario;
mod sched;
mod scheme;
mod sim;
mod simulation;
mod stream;
mod workload;

// Running a scenario.
pub use api::{
    default_scenario_toml, policies, resolve_scenario, run_scenario, Progress, RunOptions, RunOutput,
    ScenarioSource,
};
pub use scenario::Scenario;
pub use sim::time::SimTime;

// Errors: the module is public whole (every error an operation returns, with its typed
// kinds: `error::{run, trace, capture, rt, lifetime}`); the three every caller meets are here.
pub use error::{FtlabError, Place, Stage};

// Result tables (a run's time series, latency CDF and wear) and their column names.
pub use metrics::table::{Column, Table};
pub use metrics::timeseries::{
    base_columns as timeseries_columns, DEVICE_COLUMNS as TIMESERIES_DEVICE_COLUMNS,
};

// Traces.
pub use api::trace_stats;
pub use workload::{stats::TraceStats, TraceFormat};

// Capture.
pub use api::capture;
pub use capture::{CaptureConfig, StreamRule};

// Real-time analysis.
pub use api::{rt_admit, rt_bounds, rt_schedulability};
pub use scheme::{analyses as scheme_analyses, REGISTRY as SCHEMES};

// Lifetime.
pub use api::lifetime;
pub use metrics::lifetime_model::{swap_rounds_bound, swap_rounds_whole};

// Bench cases.
pub use api::{bench_case, bench_case_with, BenchResult, BENCH_CASES, BENCH_REQUESTS, BENCH_TIMED_CASES};

/// The engine's parts that the integration tests (`crates/ftlab/tests/`) and the examples drive
/// or check below [`run_scenario`]: not a stable API.
///
/// The path under `internals` is the item's path in the crate (`crate::ftl::Ftl` is
/// `ftlab::internals::ftl::Ftl`), and each module lists only the items a test or an example
/// uses. Add an item here only for a test that cannot go through the API above.
pub mod internals {
    /// Building and preconditioning a simulation by hand (the integrity oracle, the policy tests).
    pub mod api {
        pub use crate::api::{build_simulation, build_simulation_with, precondition, scheme_context};
    }
    /// The NAND array: geometry, timing, the flash array and the Cosmos+ timing fit.
    pub mod flash {
        pub mod array {
            pub use crate::flash::array::{ArrayOp, FlashArray};
        }
        pub mod board {
            pub use crate::flash::board::{analysis_times, latencies, Board, BoardConfig, BusPhase, MicroOp};
        }
        pub mod cosmos_fit {
            pub use crate::flash::cosmos_fit::{
                geometry, measure, unmatched, Column, Placement, Row, TABLE_I, UNMATCHED,
            };
        }
        pub mod geometry {
            pub use crate::flash::geometry::{BlockIdx, DieIdx, Geometry, Ppa};
        }
        pub mod timing {
            pub use crate::flash::timing::Timing;
        }
    }
    /// The FTL the integrity oracle checks: mapping, blocks, frontiers, GC victims.
    pub mod ftl {
        pub use crate::ftl::{FrontierKey, Ftl, FtlParams, NONE};
        pub mod blocks {
            pub use crate::ftl::blocks::{BlockState, WriteClass, NOT_COLLECTABLE};
        }
        pub mod copy {
            pub use crate::ftl::copy::CopyRun;
        }
        pub mod gc {
            pub use crate::ftl::gc::VictimPolicy;
        }
    }
    /// The host interface layer's request sources.
    pub mod host {
        pub use crate::host::{Records, Source, SourceParams};
    }
    /// Policy knobs and their bounds.
    pub mod knobs {
        pub use crate::knobs::{Bounds, IntBounds, Knob, KnobKind, PolicyInfo};
    }
    /// Metrics: backlog, latency histogram, lifetime model, the per-scheme report.
    pub mod metrics {
        pub mod backlog {
            pub use crate::metrics::backlog::Backlog;
        }
        pub mod latency {
            pub use crate::metrics::latency::{LatencyHist, LatencySummary, HIGHEST_NS};
        }
        pub mod lifetime_model {
            pub use crate::metrics::lifetime_model::{
                device_scale, inputs_from_run, swap_bound_check, swap_rounds_bound, worst_case, ModelInput,
                ModelRun, SwapStats, FIXED, SLIDES_LIFE_S,
            };
        }
        pub mod report {
            pub use crate::metrics::report::SchemeResult;
        }
    }
    /// The contract between the engine and a scheme.
    pub mod policy {
        pub use crate::policy::{
            Cause, Command, Dest, DeviceView, DieStatus, EpochStats, Interests, Invalidated, JobKind,
            Migration, OpClass, Placed, SchemeConfigError, StripePages, STRIPE_PAGES_MAX,
        };
    }
    /// The real-time analyses: the papers' admission tests and bounds.
    pub mod rt {
        pub use crate::rt::{megabytes, Analysis, Blockers, Task};
        pub mod part_ftl {
            pub use crate::rt::part_ftl::{
                admits, encoding_task_ms, gc_task_ms, read_bandwidth, read_bandwidth_worst, read_capacity_ms,
                read_test, worst_read_ms, write_bandwidth_as_reported, write_bandwidth_printed,
                write_capacity_ms, write_test, Config,
            };
        }
        pub mod rtgc {
            pub use crate::rt::rtgc::{gc_task_ms, test, Config};
        }
        pub mod schedulability {
            pub use crate::rt::schedulability::{
                read_period_ms, run, series, task_set, weighted_schedulability, write_period_ms, Experiment,
            };
        }
        pub mod uunifast {
            pub use crate::rt::uunifast::uunifast;
        }
        pub mod wao_gc {
            pub use crate::rt::wao_gc::{
                demand_passes, demand_test, lambda_max, one_block_suffices, read_bandwidth,
                steps_per_reclaim, trigger_share, worst_read_ms, worst_write_ms, write_bandwidth, Config,
            };
        }
    }
    /// Scenario loading and device presets.
    pub mod scenario {
        pub use crate::host::AddressMap;
        pub use crate::scenario::{load, to_toml, Scenario};
        pub mod presets {
            pub use crate::scenario::presets::{
                preset, COSMOS_CHANNEL_MTS, COSMOS_ERASE_US, COSMOS_PROGRAM_US, COSMOS_READ_US, PRESETS,
                VSTREAM_ONE_SHOT_PAGES, VSTREAM_ONE_SHOT_PROGRAM_US,
            };
        }
    }
    /// The die schedulers.
    pub mod sched {
        pub use crate::sched::{FairCosts, SchedOp, Scheduler, SchedulerKind};
    }
    /// The scheme registry, the `Scheme` trait and the schemes' formulas the tests check.
    pub mod scheme {
        pub use crate::scheme::{
            analyses, build, info, ReadPlan, RoundRobin, Scheme, SchemeContext, Stripes, REGISTRY,
        };
        pub mod flashblox {
            pub use crate::scheme::flashblox::{ChannelState, Decision, RateWindow, SwapPolicy, NO_OWNER};
        }
        pub mod part_ftl {
            pub use crate::scheme::part_ftl::analysis_config;
        }
        pub mod upi {
            pub use crate::scheme::upi::{delay_weight, EpochModel, Smoothed, Upi, UpiConfig};
        }
    }
    /// The simulation engine.
    pub mod simulation {
        pub use crate::simulation::Simulation;
    }
    /// The stream mappers and their registry.
    pub mod stream {
        pub use crate::stream::{build, MapperContext, StreamMapper, REGISTRY};
        pub mod autostream {
            pub use crate::stream::autostream::AutoStream;
        }
        pub mod dac {
            pub use crate::stream::dac::Dac;
        }
        pub mod direct {
            pub use crate::stream::direct::Direct;
        }
        pub mod fdp {
            pub use crate::stream::fdp::config::{FdpConfig, RuSpan, RuhType};
            pub use crate::stream::fdp::{Fdp, EVENT_PID, EVENT_REALLOC};
        }
        pub mod manual {
            pub use crate::stream::manual::{Manual, VSTREAM_TABLE1};
        }
        pub mod vstream {
            pub use crate::stream::vstream::{kmeans_1d, stamp_table_bytes, VStream};
        }
    }
    /// Trace parsers and writers, the synthetic and periodic generators.
    pub mod workload {
        pub use crate::error::trace::TraceErrorKind;
        pub use crate::workload::{read_trace, IoOp, LineError, TraceRecord, MAX_LINE_BYTES};
        pub mod ftlab_csv {
            pub use crate::workload::ftlab_csv::{write_header, write_record};
        }
        pub mod generator {
            pub use crate::workload::generator::{Arrival, Generator, GeneratorConfig, Pattern, SizeWeight};
        }
        pub mod periodic {
            pub use crate::workload::periodic::{
                PeriodicRecord, PeriodicStream, PeriodicTask, PeriodicWorkload,
            };
        }
        pub mod stats {
            pub use crate::workload::stats::{trace_reader_stats, trace_stats};
        }
        pub mod synthetic {
            pub use crate::workload::synthetic::{part_seed, SyntheticStream, SyntheticWorkload};
        }
    }
}
