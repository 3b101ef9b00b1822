//! A tenant's health over the measured phase (DESIGN §12): the longest time any request waited
//! (`wait_ns_max`), the longest stretch with requests outstanding and none completing
//! (`stall_ns_max`) and the most requests outstanding at once (`backlog_max`), host-queued ones
//! included; and the verdicts drawn from them against `[measure]`'s bounds (`HealthLimits`):
//! `starved` (a wait beyond `starvation_wait_s`) and the backlog part of `unstable` (beyond
//! `backlog_queue_depths_max` queue depths at any time). Not the backlog's growth over the run
//! (`backlog`), nor the latency histograms (`latency`).
//!
//! The backlog is exact, not sampled. A request that waits in the host beyond the queue depth
//! becomes known only when the host reads it, after its arrival; by then completions later
//! than its arrival may have been counted. So the completion times since the last known
//! arrival are kept in a queue (reused, no allocation per request in steady state) and, when an
//! arrival becomes known, those at or before it are counted as earlier: the backlog just after
//! arrival k is k minus the completions at or before it (completions at the same instant count
//! first). The backlog's maximum is reached just after an arrival, so checking each arrival
//! (and the start of the measured phase) finds it. Arrivals become known in time order.

use crate::sim::time::SimTime;
use std::collections::VecDeque;

/// The bounds a tenant's health is judged by (`[measure]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HealthLimits {
    /// A tenant is starved when a request waited longer than this (`measure.starvation_wait_s`).
    pub(crate) starvation_wait: SimTime,
    /// A tenant is unstable when its backlog exceeded this many queue depths at any time
    /// (`measure.backlog_queue_depths_max`).
    pub(crate) backlog_queue_depths_max: f64,
}

/// What a tenant's health tracking measured, and its verdicts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HealthVerdict {
    /// The longest wait, arrival to completion, of a request that arrived in the measured
    /// phase; one still outstanding at the end counts with its wait so far.
    pub(crate) wait_ns_max: u64,
    /// The longest stretch inside the measured phase with requests outstanding (host-queued
    /// included) and none completing.
    pub(crate) stall_ns_max: u64,
    /// The most requests outstanding at once in the measured phase, host-queued included.
    pub(crate) backlog_max: u64,
    /// `wait_ns_max` above `HealthLimits::starvation_wait`.
    pub(crate) starved: bool,
    /// `backlog_max` above `HealthLimits::backlog_queue_depths_max` queue depths.
    pub(crate) backlog_exceeded: bool,
}

/// The online tracking of one tenant: O(1) amortized per arrival and completion.
#[derive(Clone, Debug)]
pub(crate) struct Health {
    warmup: SimTime,
    /// Arrivals known so far.
    arrivals: u64,
    /// Completions at or before the latest known arrival's time (or the warm-up's end).
    completions_counted: u64,
    /// Times of the completions not yet counted, in order.
    pending: VecDeque<SimTime>,
    last_arrival: SimTime,
    /// The backlog at the warm-up's end has been taken into the maximum.
    phase_started: bool,
    /// The last completion, or the moment the backlog went from 0 to 1.
    progress_at: SimTime,
    backlog_max: u64,
    wait_ns_max: u64,
    stall_ns_max: u64,
}

impl Health {
    pub(crate) fn new(warmup: SimTime) -> Health {
        Health {
            warmup,
            arrivals: 0,
            completions_counted: 0,
            pending: VecDeque::new(),
            last_arrival: SimTime::ZERO,
            phase_started: false,
            progress_at: SimTime::ZERO,
            backlog_max: 0,
            wait_ns_max: 0,
            stall_ns_max: 0,
        }
    }

    /// Count the pending completions at or before `t`.
    fn count_until(&mut self, t: SimTime) {
        while self.pending.front().is_some_and(|&c| c <= t) {
            self.pending.pop_front();
            self.completions_counted += 1;
        }
    }

    /// The backlog at the warm-up's end (all arrivals before it known) joins the maximum.
    fn start_phase(&mut self) {
        self.count_until(self.warmup);
        self.phase_started = true;
        self.backlog_max = self.backlog_max.max(self.arrivals - self.completions_counted);
    }

    /// A request that arrived at `at` became known (arrivals become known in time order).
    pub(crate) fn arrived(&mut self, at: SimTime) {
        assert!(at >= self.last_arrival, "arrivals of a tenant out of time order");
        if !self.phase_started && at >= self.warmup {
            self.start_phase();
        }
        self.count_until(at);
        let before = self.arrivals - self.completions_counted;
        if before == 0 {
            assert!(self.pending.is_empty() && self.progress_at <= at, "completions after an idle arrival");
            self.progress_at = at;
        }
        self.arrivals += 1;
        self.last_arrival = at;
        if at >= self.warmup {
            self.backlog_max = self.backlog_max.max(before + 1);
        }
    }

    /// A request that arrived at `arrival` completed at `now`.
    pub(crate) fn completed(&mut self, now: SimTime, arrival: SimTime) {
        self.pending.push_back(now);
        if arrival >= self.warmup {
            self.wait_ns_max = self.wait_ns_max.max((now - arrival).ns());
        }
        self.stalled_until(now);
        self.progress_at = now;
    }

    /// The stretch since the last progress, clipped to the measured phase, ends at `t`.
    fn stalled_until(&mut self, t: SimTime) {
        if t > self.warmup {
            self.stall_ns_max = self.stall_ns_max.max((t - self.progress_at.max(self.warmup)).ns());
        }
    }

    /// A request that arrived at `arrival` is still outstanding at the end `end`.
    pub(crate) fn outstanding(&mut self, end: SimTime, arrival: SimTime) {
        if arrival >= self.warmup {
            self.wait_ns_max = self.wait_ns_max.max(end.saturating_sub(arrival).ns());
        }
    }

    /// The verdict at the end `end` of the run, after every arrival up to it became known and
    /// every outstanding request was told (`outstanding`), for a tenant of `queue_depth`.
    pub(crate) fn verdict(&mut self, end: SimTime, queue_depth: u32, limits: &HealthLimits) -> HealthVerdict {
        if !self.phase_started && end >= self.warmup {
            self.start_phase();
        }
        let completions = self.completions_counted + self.pending.len() as u64;
        assert!(completions <= self.arrivals, "more completions than arrivals");
        if completions < self.arrivals {
            self.stalled_until(end);
        }
        HealthVerdict {
            wait_ns_max: self.wait_ns_max,
            stall_ns_max: self.stall_ns_max,
            backlog_max: self.backlog_max,
            starved: self.wait_ns_max > limits.starvation_wait.ns(),
            backlog_exceeded: self.backlog_max as f64 > limits.backlog_queue_depths_max * queue_depth as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u64) -> SimTime {
        SimTime::from_secs_f64(x as f64)
    }

    const LIMITS: HealthLimits =
        HealthLimits { starvation_wait: SimTime::from_ns(3_000_000_000), backlog_queue_depths_max: 2.0 };

    /// Arrivals at 0, 1, 2, 3 (the last two known late, at 5 and 6); completions at 5 (of 0),
    /// 6 (of 1), 9 (of 2); 3 outstanding at the end 10. Backlog: 1, 2, 3, 4 just after the
    /// arrivals (no completion before 5), so 4 > 2 x QD 1. Waits: 5, 5, 7 and 10 - 3 = 7.
    /// Stalls: 0..5 (5 s, outstanding from the arrival at 0), 5..6, 6..9, 9..10.
    #[test]
    fn late_known_arrivals_count_in_the_backlog() {
        let mut h = Health::new(SimTime::ZERO);
        h.arrived(s(0));
        h.arrived(s(1));
        h.completed(s(5), s(0));
        h.arrived(s(2));
        h.completed(s(6), s(1));
        h.arrived(s(3));
        h.completed(s(9), s(2));
        h.outstanding(s(10), s(3));
        let v = h.verdict(s(10), 1, &LIMITS);
        assert_eq!((v.backlog_max, v.wait_ns_max, v.stall_ns_max), (4, 7_000_000_000, 5_000_000_000));
        assert!(v.starved && v.backlog_exceeded);
    }

    /// Idle time is no stall: arrival at 0 done at 1, arrival at 10 done at 12 (the stall
    /// restarts at the arrival, 2 s), a warm-up of 11 clips the last stretch to 11..12.
    #[test]
    fn idle_is_not_a_stall_and_warmup_clips() {
        let mut h = Health::new(SimTime::ZERO);
        h.arrived(s(0));
        h.completed(s(1), s(0));
        h.arrived(s(10));
        h.completed(s(12), s(10));
        assert_eq!(h.verdict(s(12), 1, &LIMITS).stall_ns_max, 2_000_000_000);
        let mut w = Health::new(s(11));
        w.arrived(s(0));
        w.completed(s(1), s(0));
        w.arrived(s(10));
        w.completed(s(12), s(10));
        let v = w.verdict(s(12), 1, &LIMITS);
        // Outstanding at the warm-up's end: the request of 10 (backlog 1); its wait is not
        // measured (it arrived before the phase).
        assert_eq!((v.stall_ns_max, v.backlog_max, v.wait_ns_max), (1_000_000_000, 1, 0));
        assert!(!v.starved && !v.backlog_exceeded);
    }
}
