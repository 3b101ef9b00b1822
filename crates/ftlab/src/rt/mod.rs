//! Real-time analysis of the PaRT-FTL paper
//! (`../shared/papers/part-ftl-partitioned-real-time-flash.txt`) as pure functions: the task
//! model, PaRT-FTL's capacities, periods and admission test (Eq. 1-7) and its latency and
//! bandwidth bounds (Eq. 8-11), WAO-GC's space bound, latency and bandwidth (Eq. 12-16) and a
//! demand test for it, RTGC's admission test as far as its sources were reachable (`rtgc`),
//! UUniFast task-set generation, and the schedulability experiment of Figures 5-7
//! (`schedulability`). Times are in milliseconds (the paper's unit), bandwidths in pages per
//! second with both byte readings given where the paper's printed numbers need them.
//!
//! What this is not: it simulates nothing and reads no file; the schemes that act on a device
//! are in `scheme/`, and the simulated deadlines are `metrics::deadline`.

pub mod part_ftl;
pub mod rtgc;
pub mod schedulability;
pub mod tasks;
pub mod uunifast;
pub mod wao_gc;

/// One task of the paper's model τ_i = [(r_i, T_i^r), (w_i, T_i^w)] (§III-B): `read_pages`
/// page reads every `read_period_ms` and `write_pages` page writes every `write_period_ms`.
/// A task that only reads (or writes) has 0 pages on the other side; its period is then unused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Task {
    pub read_pages: u32,
    pub read_period_ms: f64,
    pub write_pages: u32,
    pub write_period_ms: f64,
}

impl Task {
    pub fn reader(pages: u32, period_ms: f64) -> Task {
        Task { read_pages: pages, read_period_ms: period_ms, write_pages: 0, write_period_ms: f64::INFINITY }
    }

    pub fn writer(pages: u32, period_ms: f64) -> Task {
        Task { read_pages: 0, read_period_ms: f64::INFINITY, write_pages: pages, write_period_ms: period_ms }
    }
}

/// One term of a schedulability sum, named as in the paper.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub name: String,
    pub value: f64,
}

/// A schedulability test's verdict with every term that went into it: the sum must be at
/// most 1 (Eq. 6, Eq. 7).
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    pub equation: &'static str,
    pub terms: Vec<Term>,
}

impl Test {
    pub fn total(&self) -> f64 {
        self.terms.iter().map(|t| t.value).sum()
    }

    pub fn passes(&self) -> bool {
        self.total() <= 1.0
    }
}

/// Pages per second as bytes per second: `page_bytes` per page, in decimal megabytes
/// (10^6 B/s) and in mebibytes (2^20 B/s). The paper prints both kinds without saying which
/// (see docs/rt.md).
pub fn megabytes(pages_per_s: f64, page_bytes: u32) -> (f64, f64) {
    let bytes = pages_per_s * page_bytes as f64;
    (bytes / 1e6, bytes / 1_048_576.0)
}
