//! Periodic real-time tasks (`[tenants.periodic]`): the task model of PaRT-FTL §III-B, as a
//! seeded, deterministic stream of jobs.
//!
//! What this is: the schema ([`PeriodicWorkload`], [`PeriodicTask`]), its checks and defaults
//! ([`PeriodicWorkload::resolve`]), and the job stream ([`PeriodicStream`]): a pure function of
//! `(tasks, namespace size, page size, seed)`, with O(tasks) state and no heap allocation per
//! job. What this is not: it does not schedule anything (no EDF, no admission control, no
//! schedulability test; the scheduler that orders by deadline is `sched`), it does not count
//! deadline misses (`metrics::deadline`), and it knows nothing of the device beyond its page
//! size. [`PeriodicWorkload::utilisation`] is plain arithmetic, not the paper's admission test
//! (which also charges parity rebuilds, encoding and garbage-collection tasks).
//!
//! # Model
//!
//! The paper's task τ_i = [(r_i, T_i^r), (w_i, T_i^w)] is written here as two entries of
//! `tasks`, one `read` and one `write`: each entry is a periodic task of its own. Task `i`
//! releases job `k = 0, 1, 2, ...` at `offset_i + k · T_i`, with every time in whole
//! nanoseconds: `offset_ms` and `period_ms` are each rounded once to the nearest nanosecond,
//! and the release is computed in integers, so there is no drift however many jobs. A job is
//! due at its release plus the relative deadline (`deadline_ms`, default the period: an
//! implicit deadline). It is **one** request of `pages` pages (`pages · page_bytes` bytes,
//! the whole job), starting at a page chosen uniformly among the positions where the whole
//! request fits in the namespace (rounded down to whole pages). Every record has `stream = 0`.
//!
//! The stream yields the jobs of all tasks in release order, ties going to the lower task
//! index. It keeps one pending release per task in a binary heap (built once, of capacity the
//! number of tasks). A task stops when its next release would be at or after `end_s`, or when
//! the release or its deadline would not fit in 64-bit nanoseconds (after some 584 years of
//! simulated time); without `end_s` the stream is unbounded and the host stops it at the
//! tenant's duration.
//!
//! # Randomness
//!
//! Only the addresses are random: one PCG stream, [`crate::sim::rng`]`(seed,`
//! [`ADDRESS_STREAM`]`)`, one draw per job in the merged order. Release times and deadlines do
//! not depend on the seed.

use super::{IoOp, TraceRecord};
use crate::sim::time::SimTime;
use crate::sim::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, HashMap};

/// Most tasks a periodic workload may have (task indices fit in a `u16`).
pub(crate) const MAX_TASKS: usize = 1024;

/// Largest accepted `period_ms`, `offset_ms` and `deadline_ms`, in milliseconds (10^7 s, the
/// bound the scenario puts on every time).
pub(crate) const MAX_TASK_MS: f64 = 1e10;

/// Largest accepted `end_s`, in seconds.
pub(crate) const MAX_END_S: f64 = 1e7;

/// The `stream` argument of [`crate::sim::rng`] for the address draws ("PERIODIC").
pub(crate) const ADDRESS_STREAM: u64 = 0x5045_5249_4F44_4943;

/// `[tenants.periodic]`: periodic real-time tasks (PaRT-FTL §III-B).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodicWorkload {
    /// The tasks, 1 to 1024 of them.
    pub tasks: Vec<PeriodicTask>,
    /// No job is released at or after this simulated time (seconds, relative to the tenant's
    /// start), in (0, 1e7]. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_s: Option<f64>,
}

/// One periodic task: `pages` pages of `op` every `period_ms`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodicTask {
    /// Shown in reports; default `task<i>` (i = index in `tasks`). Non-empty and unique within
    /// the tenant. ([`PeriodicWorkload::resolve`] fills it in.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `read` or `write` (`trim` is rejected with an error).
    pub op: IoOp,
    /// Flash pages per job (r_i or w_i), >= 1; a job is ONE request of `pages * page_bytes`
    /// bytes, which must fit in the namespace.
    pub pages: u32,
    /// Period T_i in milliseconds, in (0, 1e10], at least 1 ns once rounded to whole
    /// nanoseconds.
    pub period_ms: f64,
    /// Release time of the first job (phase), milliseconds, in [0, 1e10]. Default 0.
    #[serde(default)]
    pub offset_ms: f64,
    /// Relative deadline in milliseconds, in (0, 1e10], at least 1 ns once rounded; default
    /// `period_ms` (implicit deadline; [`PeriodicWorkload::resolve`] fills it in). It may
    /// exceed the period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<f64>,
}

/// One released job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeriodicRecord {
    /// `time` = release time (ns, relative to the tenant start), `op`, `offset_bytes`
    /// (uniformly random, page-aligned, so that the whole request lies inside the namespace),
    /// `size_bytes` = `pages * page_bytes`, `stream` 0.
    pub record: TraceRecord,
    /// Index of the task in `tasks`.
    pub task: u16,
    /// Absolute deadline relative to the tenant start: release + relative deadline.
    pub deadline: SimTime,
}

type Check = Result<(), (String, String)>;

/// Milliseconds to whole nanoseconds, rounded to the nearest (for a validated value).
fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

/// The default name of task `i`.
fn default_name(i: usize) -> String {
    format!("task{i}")
}

/// A duration in (0, 1e10] ms that is at least 1 ns once rounded; NaN fails.
fn check_duration(key: String, ms: f64) -> Check {
    if ms > 0.0 && ms <= MAX_TASK_MS && ms_to_ns(ms) >= 1 {
        Ok(())
    } else {
        Err((
            key,
            format!("must be in (0, {MAX_TASK_MS}] milliseconds and at least 1 ns (0.000001 ms), got {ms}"),
        ))
    }
}

impl PeriodicTask {
    /// The checks of one task's own fields (not its name). `ns_pages`: whole pages in the
    /// namespace.
    fn check(&self, i: usize, ns_pages: u64, namespace_bytes: u64, page_bytes: u32) -> Check {
        let key = |field: &str| format!("tasks.{i}.{field}");
        if self.op == IoOp::Trim {
            return Err((key("op"), "must be \"read\" or \"write\", got \"trim\"".to_string()));
        }
        if self.pages == 0 {
            return Err((key("pages"), "must be >= 1, got 0".to_string()));
        }
        if u64::from(self.pages) > ns_pages {
            let bytes = u64::from(self.pages) * u64::from(page_bytes);
            return Err((
                key("pages"),
                format!(
                    "a job of {} pages ({bytes} bytes) does not fit in the namespace ({namespace_bytes} \
                     bytes, {ns_pages} pages of {page_bytes} bytes): must be in [1, {ns_pages}], got {}",
                    self.pages, self.pages
                ),
            ));
        }
        check_duration(key("period_ms"), self.period_ms)?;
        let offset = self.offset_ms;
        if !(0.0..=MAX_TASK_MS).contains(&offset) {
            return Err((
                key("offset_ms"),
                format!("must be in [0, {MAX_TASK_MS}] milliseconds, got {offset}"),
            ));
        }
        match self.deadline_ms {
            Some(d) => check_duration(key("deadline_ms"), d),
            None => Ok(()),
        }
    }
}

impl PeriodicWorkload {
    /// Validate and fill defaults (names, deadlines) in place. Errors are `(key, reason)`, the
    /// key relative to the `periodic` table (`tasks`, `end_s`, `tasks.2.period_ms`), the
    /// reason stating the allowed range and the value got; on an error nothing is filled in.
    /// Checks that each job (`pages * page_bytes`) fits in the namespace.
    ///
    /// # Panics
    /// If `page_bytes` is 0 (the device's page size is never 0).
    pub fn resolve(&mut self, namespace_bytes: u64, page_bytes: u32) -> Result<(), (String, String)> {
        assert!(page_bytes > 0, "page_bytes must be > 0");
        let n = self.tasks.len();
        if !(1..=MAX_TASKS).contains(&n) {
            return Err(("tasks".to_string(), format!("must list 1 to {MAX_TASKS} tasks, got {n}")));
        }
        if let Some(end) = self.end_s.filter(|&e| !(e > 0.0 && e <= MAX_END_S)) {
            return Err(("end_s".to_string(), format!("must be in (0, {MAX_END_S}] seconds, got {end}")));
        }
        let names = self.task_names();
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(n);
        let ns_pages = namespace_bytes / u64::from(page_bytes);
        for (i, (task, name)) in self.tasks.iter().zip(&names).enumerate() {
            if name.is_empty() {
                return Err((
                    format!("tasks.{i}.name"),
                    "must be non-empty and unique within the tenant, got \"\"".to_string(),
                ));
            }
            if let Some(j) = seen.insert(name, i) {
                let how = if task.name.is_none() { " (this task's default name)" } else { "" };
                return Err((
                    format!("tasks.{i}.name"),
                    format!(
                        "must be non-empty and unique within the tenant, got {name:?}{how}, which task {j} \
                         also has"
                    ),
                ));
            }
            task.check(i, ns_pages, namespace_bytes, page_bytes)?;
        }
        for (task, name) in self.tasks.iter_mut().zip(names) {
            task.name = Some(name);
            task.deadline_ms = Some(task.deadline_ms.unwrap_or(task.period_ms));
        }
        Ok(())
    }

    /// The job stream (call after [`PeriodicWorkload::resolve`]): the jobs of all tasks merged
    /// in release order, ties by task index; deterministic given `seed`. Ends at `end_s` if
    /// set, otherwise unbounded (the host stops it at the tenant's duration). See the module
    /// docs.
    ///
    /// # Panics
    /// If the workload does not pass `resolve` for this namespace and page size (an unchecked
    /// workload is a programming error).
    pub fn build(&self, namespace_bytes: u64, page_bytes: u32, seed: u64) -> PeriodicStream {
        if let Err((key, reason)) = self.clone().resolve(namespace_bytes, page_bytes) {
            panic!("invalid periodic workload (call resolve first): {key}: {reason}");
        }
        let ns_pages = namespace_bytes / u64::from(page_bytes);
        let end_ns = self.end_s.map(|s| SimTime::from_secs_f64(s).ns());
        let tasks: Vec<TaskState> = self
            .tasks
            .iter()
            .map(|t| TaskState {
                op: t.op,
                size_bytes: u64::from(t.pages) * u64::from(page_bytes),
                slots: ns_pages - u64::from(t.pages) + 1,
                offset_ns: ms_to_ns(t.offset_ms),
                period_ns: ms_to_ns(t.period_ms),
                deadline_ns: ms_to_ns(t.deadline_ms.unwrap_or(t.period_ms)),
                next_job: 0,
            })
            .collect();
        let mut heap = BinaryHeap::with_capacity(tasks.len());
        for (i, t) in tasks.iter().enumerate() {
            if let Some(release) = t.release(0, end_ns) {
                heap.push(Reverse((release, i as u16)));
            }
        }
        PeriodicStream {
            tasks,
            heap,
            rng: crate::sim::rng(seed, ADDRESS_STREAM),
            page_bytes: u64::from(page_bytes),
            end_ns,
        }
    }

    /// Task names in task order: the given names, and `task<i>` for a task without one (after
    /// `resolve`, every task has its name).
    pub fn task_names(&self) -> Vec<String> {
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| t.name.clone().unwrap_or_else(|| default_name(i)))
            .collect()
    }

    /// Utilisation of the task set on a device that serves one page in `read_page_ns`
    /// (`write_page_ns`) nanoseconds: `Σ pages · page_ns / period_ns`, with each period in
    /// whole nanoseconds as the stream releases it. A plain demand figure for tests and
    /// reports, not an admission test (see the module docs). A `trim` task, which `resolve`
    /// rejects, counts as a write.
    pub fn utilisation(&self, read_page_ns: f64, write_page_ns: f64) -> f64 {
        self.tasks
            .iter()
            .map(|t| {
                let page_ns = if t.op == IoOp::Read { read_page_ns } else { write_page_ns };
                f64::from(t.pages) * page_ns / ms_to_ns(t.period_ms) as f64
            })
            .sum()
    }
}

/// One task's state in the stream, all times in whole nanoseconds.
#[derive(Clone, Debug)]
struct TaskState {
    op: IoOp,
    size_bytes: u64,
    /// Number of page positions where a job fits: `namespace pages - pages + 1` (>= 1).
    slots: u64,
    offset_ns: u64,
    period_ns: u64,
    deadline_ns: u64,
    /// Index of the job whose release is in the heap.
    next_job: u64,
}

impl TaskState {
    /// Release time of job `k`, or `None` if it is at or after `end_ns`, or it or its
    /// deadline does not fit in 64-bit nanoseconds: the task has ended.
    fn release(&self, k: u64, end_ns: Option<u64>) -> Option<u64> {
        let release = k.checked_mul(self.period_ns)?.checked_add(self.offset_ns)?;
        release.checked_add(self.deadline_ns)?;
        end_ns.is_none_or(|end| release < end).then_some(release)
    }
}

/// The jobs of a periodic workload, in release order. See the module docs.
#[derive(Clone, Debug)]
pub struct PeriodicStream {
    tasks: Vec<TaskState>,
    /// The next release of each task that has not ended, as `(release_ns, task)`, smallest
    /// first.
    heap: BinaryHeap<Reverse<(u64, u16)>>,
    /// The address draws.
    rng: Rng,
    page_bytes: u64,
    end_ns: Option<u64>,
}

impl Iterator for PeriodicStream {
    type Item = PeriodicRecord;

    fn next(&mut self) -> Option<PeriodicRecord> {
        let mut top = self.heap.peek_mut()?;
        let Reverse((release, task)) = *top;
        let t = &mut self.tasks[usize::from(task)];
        t.next_job += 1;
        match t.release(t.next_job, self.end_ns) {
            // Replacing the top in place sifts it down: no allocation.
            Some(next) => *top = Reverse((next, task)),
            None => {
                PeekMut::pop(top);
            }
        }
        let slot = self.rng.random_range(0..t.slots);
        Some(PeriodicRecord {
            record: TraceRecord {
                time: SimTime(release),
                op: t.op,
                offset_bytes: slot * self.page_bytes,
                size_bytes: t.size_bytes,
                stream: 0,
            },
            task,
            deadline: SimTime(release + t.deadline_ns),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Each task still in the heap has at least one job left; without `end_s` the stream
        // is practically unbounded, and with it the count is not worth computing here.
        (self.heap.len(), if self.heap.is_empty() { Some(0) } else { None })
    }
}

impl std::iter::FusedIterator for PeriodicStream {}
