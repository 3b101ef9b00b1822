//! Real-time analysis of the PaRT-FTL paper
//! (`../shared/papers/part-ftl-partitioned-real-time-flash.txt`) as pure functions: the task
//! model, PaRT-FTL's capacities, periods and admission test (Eq. 1-7) and its latency and
//! bandwidth bounds (Eq. 8-11), WAO-GC's space bound, latency and bandwidth (Eq. 12-16) and a
//! demand test for it, RTGC's admission test as far as its sources were reachable (`rtgc`),
//! UUniFast task-set generation, and the schedulability experiment of Figures 5-7
//! (`schedulability`). Times are in milliseconds (the paper's unit), bandwidths in pages per
//! second with both byte readings given where the paper's printed numbers need them.
//!
//! Each scheme's analysis lives in the file of its name and reaches the rest of ftlab through
//! the `Analysis` trait, which the scheme's registry entry carries
//! (`scheme::Capabilities::analysis`): nothing here or in `schedulability` names a scheme.
//!
//! What this is not: it simulates nothing and reads no file; the schemes that act on a device
//! are in `scheme/`, and the simulated deadlines are `metrics::deadline`.

pub(crate) mod part_ftl;
pub(crate) mod rtgc;
pub(crate) mod schedulability;
pub(crate) mod tasks;
pub(crate) mod uunifast;
pub(crate) mod wao_gc;

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
    pub(crate) value: f64,
}

/// A schedulability test's verdict with every term that went into it: the sum must be at
/// most 1 (Eq. 6, Eq. 7).
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    pub(crate) equation: &'static str,
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

/// How many other tasks' non-preemptive work blocks one job of a task (§VI-A: "in the worst
/// case, a task will be blocked by all the other tasks; ... we used a uniform probability to
/// determine the interference"): the part of a task set that a demand test with blocking
/// reads. The caller chooses: drawn uniformly from 0..n for the experiment, n − 1 for the
/// worst case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blockers {
    pub read: u32,
    pub write: u32,
}

/// A scheme's answer to `ftlab rt admit`: its tests, whether it admits the set, and a note
/// where the verdict needs one.
#[derive(Clone, Debug, PartialEq)]
pub struct Admit {
    pub(crate) tests: Vec<Test>,
    pub(crate) admitted: bool,
    pub(crate) note: Option<&'static str>,
}

/// One series of the schedulability experiment (Figures 5-7): its key in the results and
/// files, and its label in figures and tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Series {
    pub key: &'static str,
    pub label: &'static str,
}

/// One row of Table IV (`ftlab rt bounds`): the quantity, its equation, its value (pages per
/// second for a bandwidth, ms for a latency, a fraction for a space bound) and the paper's
/// printed value ("-": none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub(crate) kind: BoundKind,
    pub(crate) quantity: &'static str,
    pub(crate) equation: &'static str,
    pub(crate) value: f64,
    pub(crate) paper: &'static str,
}

/// What a `Bound` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoundKind {
    /// Pages per second.
    Bandwidth,
    /// Milliseconds.
    Latency,
    /// A fraction of a block.
    Space,
}

/// A scheme's real-time analysis with the paper's configuration: the capability that its
/// registry entry carries (`scheme::Capabilities::analysis`). `ftlab rt admit` runs `admit`,
/// the schedulability experiment (`schedulability::run`) tests each of `series`, and `ftlab
/// rt bounds` prints `bounds`.
pub trait Analysis: Send + Sync {
    /// Whether the scheme refuses a task set that fails its test; `false`: it admits every
    /// set, and its test is shown for information.
    fn controls_admission(&self) -> bool;

    /// The admission test on `tasks`.
    fn admit(&self, tasks: &[Task]) -> Admit;

    /// The series this analysis adds to the schedulability experiment, in order.
    fn series(&self) -> &'static [Series];

    /// Whether `set` is schedulable in series `series` (an index of `series()`).
    fn schedulable(&self, series: usize, set: &schedulability::TaskSet) -> bool;

    /// Its rows of Table IV, in the table's order.
    fn bounds(&self) -> Vec<Bound> {
        Vec::new()
    }
}

/// Pages per second as bytes per second: `page_bytes` per page, in decimal megabytes
/// (10^6 B/s) and in mebibytes (2^20 B/s). The paper prints both kinds without saying which
/// (see docs/rt.md).
pub fn megabytes(pages_per_s: f64, page_bytes: u32) -> (f64, f64) {
    let bytes = pages_per_s * page_bytes as f64;
    (bytes / 1e6, bytes / 1_048_576.0)
}
