//! Deadlines of periodic real-time tasks: per task, jobs released in the measured phase,
//! completed, deadline misses (a job that completed after its deadline, or was still
//! outstanding past it when the run ended) and response times. Counts only; the scheduler
//! that orders by deadline is `sched`.

use crate::sim::time::SimTime;

/// What one task's jobs did.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TaskStats {
    pub(crate) name: String,
    /// Jobs completed (arrived in the measured phase).
    pub(crate) completed: u64,
    /// Completed jobs that finished after their deadline.
    pub(crate) missed: u64,
    /// Jobs outstanding at the end whose deadline had passed (misses too).
    pub(crate) missed_outstanding: u64,
    /// Jobs outstanding at the end whose deadline had not passed yet.
    pub(crate) pending_at_end: u64,
    pub(crate) response_sum_ns: u128,
    pub(crate) response_max_ns: u64,
}

impl TaskStats {
    pub(crate) fn new(name: String) -> TaskStats {
        TaskStats { name, ..TaskStats::default() }
    }

    /// A job released at `release`, due at `deadline`, completed at `now`.
    pub(crate) fn complete(&mut self, release: SimTime, deadline: SimTime, now: SimTime) {
        let response = (now - release).ns();
        self.completed += 1;
        self.missed += u64::from(now > deadline);
        self.response_sum_ns += u128::from(response);
        self.response_max_ns = self.response_max_ns.max(response);
    }

    /// A job due at `deadline` was outstanding when the run ended at `end`.
    pub(crate) fn outstanding(&mut self, deadline: SimTime, end: SimTime) {
        if deadline < end {
            self.missed_outstanding += 1;
        } else {
            self.pending_at_end += 1;
        }
    }

    /// Jobs released: completed or outstanding.
    pub(crate) fn released(&self) -> u64 {
        self.completed + self.missed_outstanding + self.pending_at_end
    }

    /// Every deadline miss.
    pub(crate) fn misses(&self) -> u64 {
        self.missed + self.missed_outstanding
    }
}
