//! A tenant's health over the measured phase (DESIGN §12): the longest time any request waited
//! (`wait_ns_max`), the longest stretch with requests outstanding and none completing
//! (`stall_ns_max`) and the most requests outstanding at once (`backlog_max`), host-queued ones
//! included; and the verdicts drawn from them against `[measure]`'s bounds (`HealthLimits`):
//! `starved` (a wait beyond `starvation_wait_s`) and the backlog part of `unstable` (beyond
//! `backlog_queue_depths_max` queue depths at any time). Not the backlog's growth over the run
//! (`backlog`), nor the latency histograms (`latency`).
//!
//! The backlog is exact, not sampled, up to a cap on memory. A request that waits in the host
//! beyond the queue depth becomes known only when the host reads it, after its arrival; by then
//! completions later than its arrival may have been counted. So the completion times since the
//! last known arrival are kept (`Pending`) and, when an arrival becomes known, those at or
//! before it are counted as earlier: the backlog just after arrival k is k minus the
//! completions at or before it (completions at the same instant count first). The backlog's
//! maximum is reached just after an arrival, so checking each arrival (and the start of the
//! measured phase) finds it. Arrivals become known in time order.
//!
//! *Why a cap.* The times kept are those of completions after the latest arrival the host has
//! read, so their number is about the requests waiting in the host: O(requests) for a tenant
//! whose arrivals outrun the device all run long. No bounded memory keeps the maximum exact
//! then: the next arrival read can fall between any two of the kept completions, and which two
//! decides whether it sets a new maximum (an arrival just before the completion numbered
//! k − max does, one just after does not), so each kept time can be the one that decides.
//! Hence at most `PENDING_BUCKETS_MAX` distinct times are kept; beyond that their resolution
//! halves (times are kept per 2^shift ns quantum with a count) until they fit in half the cap.
//! An arrival that falls inside a quantum holding completions then has a backlog known only
//! between two bounds; `backlog_max` is the maximum of the lower bounds (a backlog that
//! certainly occurred) and `backlog_max_error` the most the true maximum can exceed it (the
//! maximum of the upper bounds minus `backlog_max`). The first halving needs more than
//! `PENDING_BUCKETS_MAX` completions after the latest known arrival, hence a backlog above it,
//! so `backlog_max_error` is 0 for every tenant whose backlog stays at or below 65,536; the
//! resolution is back to 1 ns whenever the host has read an arrival at or after every
//! completion so far. Waits and stalls are exact at any backlog.

use crate::sim::time::SimTime;
use std::collections::VecDeque;

/// The most completion-time buckets a tenant's health keeps (16 bytes each, so 1 MiB) before
/// their resolution halves. Above every bundled scenario's backlog (the largest is 40,072).
pub(crate) const PENDING_BUCKETS_MAX: usize = 1 << 16;

/// The completions not yet counted, in time order: buckets `(quantum, completions)`, where
/// quantum `q` holds the nanoseconds `[q << shift, ((q + 1) << shift) - 1]`. Invariants: the
/// quanta strictly increase, every count is positive, at most `cap` buckets.
#[derive(Clone, Debug)]
struct Pending {
    buckets: VecDeque<(u64, u64)>,
    shift: u32,
    cap: usize,
}

impl Pending {
    fn new(cap: usize) -> Pending {
        assert!(cap >= 2, "a pending cap below 2 cannot halve");
        Pending { buckets: VecDeque::new(), shift: 0, cap }
    }

    fn first_ns(&self, q: u64) -> u64 {
        q << self.shift
    }

    fn last_ns(&self, q: u64) -> u64 {
        (q << self.shift) | ((1u64 << self.shift) - 1)
    }

    /// A completion at `t`, at or after every completion kept.
    fn push(&mut self, t: SimTime) {
        loop {
            let q = t.ns() >> self.shift;
            match self.buckets.back_mut() {
                Some(b) if b.0 == q => {
                    b.1 += 1;
                    return;
                }
                Some(b) => assert!(b.0 < q, "completions out of time order"),
                None => {}
            }
            if self.buckets.len() < self.cap {
                self.buckets.push_back((q, 1));
                return;
            }
            self.coarsen();
        }
    }

    /// Halve the resolution until the buckets fill at most half the cap (amortized O(1) per
    /// completion: each halving pass of n buckets follows at least cap / 2 pushes).
    fn coarsen(&mut self) {
        while self.buckets.len() > self.cap / 2 {
            self.shift += 1;
            let mut out = 0;
            for i in 0..self.buckets.len() {
                let (q, n) = self.buckets[i];
                if out > 0 && self.buckets[out - 1].0 == q >> 1 {
                    self.buckets[out - 1].1 += n;
                } else {
                    self.buckets[out] = (q >> 1, n);
                    out += 1;
                }
            }
            self.buckets.truncate(out);
        }
    }

    /// Remove and count the completions certainly at or before `t`: every one when `all` (the
    /// caller knows no completion kept is later than `t`), else the buckets wholly at or
    /// before it. Back to 1 ns resolution when none is left.
    fn take_until(&mut self, t: SimTime, all: bool) -> u64 {
        let mut n = 0;
        while let Some(&(q, c)) = self.buckets.front() {
            if !all && self.last_ns(q) > t.ns() {
                break;
            }
            self.buckets.pop_front();
            n += c;
        }
        if self.buckets.is_empty() {
            self.shift = 0;
        }
        n
    }

    /// The completions whose order with `t` is unknown (after `take_until(t)`): those of the
    /// quantum holding `t`; 0 at 1 ns resolution.
    fn straddling(&self, t: SimTime) -> u64 {
        match self.buckets.front() {
            Some(&(q, c)) if self.first_ns(q) <= t.ns() => c,
            _ => 0,
        }
    }
}

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
    /// The most requests certainly outstanding at once in the measured phase, host-queued
    /// included: exact when `backlog_max_error` is 0.
    pub(crate) backlog_max: u64,
    /// The most the true maximum can exceed `backlog_max`: 0 unless completion times were
    /// kept coarser than 1 ns (`PENDING_BUCKETS_MAX`).
    pub(crate) backlog_max_error: u64,
    /// `wait_ns_max` above `HealthLimits::starvation_wait`.
    pub(crate) starved: bool,
    /// `backlog_max` above `HealthLimits::backlog_queue_depths_max` queue depths.
    pub(crate) backlog_exceeded: bool,
}

/// The online tracking of one tenant: O(1) amortized per arrival and completion, memory
/// bounded by `PENDING_BUCKETS_MAX` buckets.
#[derive(Clone, Debug)]
pub(crate) struct Health {
    warmup: SimTime,
    /// Arrivals known so far.
    arrivals: u64,
    /// Completions certainly at or before the latest known arrival's time (or the warm-up's end).
    completions_counted: u64,
    /// All completions so far, and the latest one's time.
    completions: u64,
    last_completion: SimTime,
    /// The completions not yet counted.
    pending: Pending,
    last_arrival: SimTime,
    /// The backlog at the warm-up's end has been taken into the maximum.
    phase_started: bool,
    /// The last completion, or the moment the backlog went from 0 to 1.
    progress_at: SimTime,
    /// The maxima of the backlog's lower and upper bounds (equal at 1 ns resolution).
    backlog_max: u64,
    backlog_max_upper: u64,
    wait_ns_max: u64,
    stall_ns_max: u64,
}

impl Health {
    pub(crate) fn new(warmup: SimTime) -> Health {
        Health::with_cap(warmup, PENDING_BUCKETS_MAX)
    }

    /// `new` keeping at most `cap` completion-time buckets (tests use small caps).
    fn with_cap(warmup: SimTime, cap: usize) -> Health {
        Health {
            warmup,
            arrivals: 0,
            completions_counted: 0,
            completions: 0,
            last_completion: SimTime::ZERO,
            pending: Pending::new(cap),
            last_arrival: SimTime::ZERO,
            phase_started: false,
            progress_at: SimTime::ZERO,
            backlog_max: 0,
            backlog_max_upper: 0,
            wait_ns_max: 0,
            stall_ns_max: 0,
        }
    }

    /// Count the pending completions certainly at or before `t`; return the bounds of the
    /// backlog just before `t`'s arrivals (lower, upper).
    fn backlog_at(&mut self, t: SimTime) -> (u64, u64) {
        let all = self.last_completion <= t;
        self.completions_counted += self.pending.take_until(t, all);
        let upper = self.arrivals - self.completions_counted;
        (upper - self.pending.straddling(t), upper)
    }

    fn note_backlog(&mut self, (lower, upper): (u64, u64)) {
        self.backlog_max = self.backlog_max.max(lower);
        self.backlog_max_upper = self.backlog_max_upper.max(upper);
    }

    /// The backlog at the warm-up's end (all arrivals before it known) joins the maximum.
    fn start_phase(&mut self) {
        let b = self.backlog_at(self.warmup);
        self.phase_started = true;
        self.note_backlog(b);
    }

    /// A request that arrived at `at` became known (arrivals become known in time order).
    pub(crate) fn arrived(&mut self, at: SimTime) {
        assert!(at >= self.last_arrival, "arrivals of a tenant out of time order");
        if !self.phase_started && at >= self.warmup {
            self.start_phase();
        }
        let (lower, upper) = self.backlog_at(at);
        if self.completions == self.arrivals && self.last_completion <= at {
            // Every known request completed by `at`: the backlog goes from 0 to 1.
            assert!(lower == 0 && self.pending.buckets.is_empty(), "completions after an idle arrival");
            assert!(self.progress_at <= at, "progress after an idle arrival");
            self.progress_at = at;
        }
        self.arrivals += 1;
        self.last_arrival = at;
        if at >= self.warmup {
            self.note_backlog((lower + 1, upper + 1));
        }
    }

    /// A request that arrived at `arrival` completed at `now`.
    pub(crate) fn completed(&mut self, now: SimTime, arrival: SimTime) {
        self.pending.push(now);
        self.completions += 1;
        self.last_completion = now;
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
        assert!(self.completions <= self.arrivals, "more completions than arrivals");
        if self.completions < self.arrivals {
            self.stalled_until(end);
        }
        HealthVerdict {
            wait_ns_max: self.wait_ns_max,
            stall_ns_max: self.stall_ns_max,
            backlog_max: self.backlog_max,
            backlog_max_error: self.backlog_max_upper - self.backlog_max,
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
        assert_eq!(v.backlog_max_error, 0);
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

    /// SplitMix64: the test's own seeded generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        /// Uniform in `[lo, hi]`.
        fn range(&mut self, lo: u64, hi: u64) -> u64 {
            lo + self.next() % (hi - lo + 1)
        }
    }

    /// One tenant's run as the host sees it: arrival times, and the calls the host makes in
    /// simulated-time order (a completion before a read at the same instant, as a completion
    /// frees the slot the read takes).
    enum Call {
        Read(u64),
        Done { at: u64, arrival: u64 },
    }

    struct Case {
        name: &'static str,
        requests: usize,
        queue_depth: usize,
        /// Gap between arrivals: 0 with probability `burst` (in 1/100), else in `[1, gap_max]`.
        gap_max: u64,
        burst: u64,
        /// Service time of a request once read, in `[service.0, service.1]`.
        service: (u64, u64),
        /// Every time a multiple of this (ties between arrivals and completions).
        grid: u64,
        warmup: u64,
        /// The run ends after this fraction (in 1/100) of the last arrival.
        end_percent: u64,
    }

    /// The host of a tenant at `queue_depth` reading arrivals in order (a read waits for a free
    /// slot), each served for a random time; the calls up to `end`, then the arrivals up to
    /// `end` still unread (as the engine's end of run reads them). Returns (arrivals, calls, end).
    fn host_run(c: &Case, rng: &mut Rng) -> (Vec<u64>, Vec<Call>, u64) {
        let mut t = 0;
        let arrivals: Vec<u64> = (0..c.requests)
            .map(|_| {
                if rng.range(1, 100) > c.burst {
                    t += rng.range(1, c.gap_max) * c.grid;
                }
                t
            })
            .collect();
        let end = t * c.end_percent / 100;
        let mut calls = Vec::new();
        // In flight: (completion, arrival), unsorted (a few at most).
        let mut in_flight: Vec<(u64, u64)> = Vec::new();
        let (mut next, mut now) = (0, 0);
        loop {
            let done = in_flight.iter().enumerate().min_by_key(|(_, x)| x.0).map(|(i, x)| (i, *x));
            let read_at =
                (next < arrivals.len() && in_flight.len() < c.queue_depth).then(|| arrivals[next].max(now));
            match (done, read_at) {
                (Some((i, (at, arrival))), r) if r.is_none_or(|r| at <= r) => {
                    if at > end {
                        break;
                    }
                    in_flight.swap_remove(i);
                    now = at;
                    calls.push(Call::Done { at, arrival });
                }
                (_, Some(r)) => {
                    if r > end {
                        break;
                    }
                    now = r;
                    calls.push(Call::Read(arrivals[next]));
                    in_flight.push((r + rng.range(c.service.0, c.service.1) * c.grid, arrivals[next]));
                    next += 1;
                }
                (None, None) => break,
                (Some(_), None) => unreachable!("the first arm takes a completion when no read waits"),
            }
        }
        calls.extend(arrivals[next..].iter().take_while(|&&a| a <= end).map(|&a| Call::Read(a)));
        (arrivals, calls, end)
    }

    /// The reference, brute force from the definition (docs/scenario.md, "Health"): the backlog
    /// just after arrival k (in the measured phase) is k minus the completions at or before
    /// its time, at the warm-up's end it is the arrivals before it minus the completions at or
    /// before it; the maximum of these in the measured phase, and over the whole run.
    fn reference_backlog(arrivals: &[u64], done: &[u64], warmup: u64, end: u64) -> (u64, u64) {
        let completed_by = |t: u64| done.iter().filter(|&&c| c <= t).count() as u64;
        let mut phase = 0;
        if end >= warmup {
            phase = arrivals.iter().filter(|&&a| a < warmup).count() as u64 - completed_by(warmup);
        }
        let mut run = 0;
        for (k, &a) in arrivals.iter().enumerate().take_while(|(_, &a)| a <= end) {
            let b = k as u64 + 1 - completed_by(a);
            run = run.max(b);
            if a >= warmup {
                phase = phase.max(b);
            }
        }
        (phase, run)
    }

    /// The reference stall: sweep arrivals and completions in time order (completions first at
    /// an instant); a stretch starts at a completion or an arrival into an empty backlog and
    /// ends at the next completion (or the end) while requests are outstanding; clipped to
    /// `[warmup, end]`.
    fn reference_stall(arrivals: &[u64], done: &[u64], warmup: u64, end: u64) -> u64 {
        let mut events: Vec<(u64, bool)> = done.iter().map(|&c| (c, false)).collect();
        events.extend(arrivals.iter().take_while(|&&a| a <= end).map(|&a| (a, true)));
        events.sort();
        let (mut backlog, mut since, mut longest) = (0u64, 0u64, 0u64);
        let stretch = |from: u64, to: u64| to.saturating_sub(from.max(warmup));
        for (t, arrival) in events {
            if arrival {
                if backlog == 0 {
                    since = t;
                }
                backlog += 1;
            } else {
                longest = longest.max(stretch(since, t));
                since = t;
                backlog -= 1;
            }
        }
        if backlog > 0 {
            longest = longest.max(stretch(since, end));
        }
        longest
    }

    /// The reference wait: the longest arrival-to-completion of a request that arrived in the
    /// measured phase, one outstanding at the end counting to the end.
    fn reference_wait(arrivals: &[u64], calls: &[Call], warmup: u64, end: u64) -> u64 {
        let mut open: Vec<u64> = arrivals.iter().copied().filter(|&a| a <= end).collect();
        let mut longest = 0;
        for call in calls {
            if let Call::Done { at, arrival } = *call {
                open.remove(open.iter().position(|&a| a == arrival).expect("an arrival completes once"));
                if arrival >= warmup {
                    longest = longest.max(at - arrival);
                }
            }
        }
        open.iter().filter(|&&a| a >= warmup).fold(longest, |m, &a| m.max(end - a))
    }

    /// Feed `calls` to a `Health` keeping `cap` buckets and close it at `end`.
    fn tracked(calls: &[Call], c: &Case, cap: usize, end: u64) -> HealthVerdict {
        let mut h = Health::with_cap(SimTime::from_ns(c.warmup), cap);
        let mut outstanding: Vec<u64> = Vec::new();
        for call in calls {
            match *call {
                Call::Read(a) => {
                    h.arrived(SimTime::from_ns(a));
                    outstanding.push(a);
                }
                Call::Done { at, arrival } => {
                    h.completed(SimTime::from_ns(at), SimTime::from_ns(arrival));
                    let i = outstanding.iter().position(|&a| a == arrival).expect("completes a read request");
                    outstanding.swap_remove(i);
                }
            }
        }
        for a in outstanding {
            h.outstanding(SimTime::from_ns(end), SimTime::from_ns(a));
        }
        h.verdict(SimTime::from_ns(end), c.queue_depth as u32, &LIMITS)
    }

    const CASES: &[Case] = &[
        // Arrivals slower than service at queue depth 4: the host never lags.
        Case {
            name: "light",
            requests: 400,
            queue_depth: 4,
            gap_max: 100,
            burst: 0,
            service: (1, 60),
            grid: 1,
            warmup: 0,
            end_percent: 100,
        },
        // Bursts of simultaneous arrivals at queue depth 1: the host lags through each, then drains.
        Case {
            name: "bursts",
            requests: 600,
            queue_depth: 1,
            gap_max: 400,
            burst: 85,
            service: (5, 20),
            grid: 1,
            warmup: 2_000,
            end_percent: 100,
        },
        // Saturated: arrivals every 1-3 ns, service 20-40 ns at queue depth 8: the backlog grows
        // all run and the host reads arrivals far behind their time.
        Case {
            name: "saturated",
            requests: 1_500,
            queue_depth: 8,
            gap_max: 3,
            burst: 10,
            service: (20, 40),
            grid: 1,
            warmup: 300,
            end_percent: 100,
        },
        // Saturated and cut before the last arrivals are read (read at the end, outstanding).
        Case {
            name: "saturated-cut",
            requests: 1_500,
            queue_depth: 2,
            gap_max: 4,
            burst: 0,
            service: (5, 9),
            grid: 1,
            warmup: 0,
            end_percent: 70,
        },
        // Times on a coarse grid: arrivals and completions at the same instants.
        Case {
            name: "ties",
            requests: 800,
            queue_depth: 3,
            gap_max: 3,
            burst: 30,
            service: (1, 4),
            grid: 10,
            warmup: 500,
            end_percent: 90,
        },
        // Long services, warm-up ending inside a lagging stretch.
        Case {
            name: "lag-at-warmup",
            requests: 1_000,
            queue_depth: 16,
            gap_max: 2,
            burst: 50,
            service: (100, 900),
            grid: 7,
            warmup: 3_000,
            end_percent: 100,
        },
    ];

    /// `backlog_max` against the brute-force reference on random runs: exact (error 0) with a
    /// cap no backlog reaches; with small caps, the reference lies in [backlog_max,
    /// backlog_max + backlog_max_error], the error is 0 while no backlog of the run exceeds the
    /// cap, and waits and stalls are exact at any cap.
    #[test]
    fn backlog_max_matches_brute_force_on_random_runs() {
        let (mut lagged, mut inexact) = (0, 0);
        for c in CASES {
            for seed in 0..20 {
                let mut rng = Rng(seed * 1_000_003 + c.requests as u64);
                let (arrivals, calls, end) = host_run(c, &mut rng);
                let done: Vec<u64> = calls
                    .iter()
                    .filter_map(|x| if let Call::Done { at, .. } = x { Some(*at) } else { None })
                    .collect();
                let (phase_max, run_max) = reference_backlog(&arrivals, &done, c.warmup, end);
                lagged += u64::from(run_max > 4 * c.queue_depth as u64);
                let wait = reference_wait(&arrivals, &calls, c.warmup, end);
                let stall = reference_stall(&arrivals, &done, c.warmup, end);
                for cap in [1 << 16, 64, 8, 2] {
                    let v = tracked(&calls, c, cap, end);
                    let what = format!("{} seed {seed} cap {cap}", c.name);
                    assert!(
                        v.backlog_max <= phase_max && phase_max <= v.backlog_max + v.backlog_max_error,
                        "{what}: {v:?} vs {phase_max}"
                    );
                    inexact += u64::from(v.backlog_max_error > 0);
                    if run_max <= cap as u64 {
                        assert_eq!((v.backlog_max, v.backlog_max_error), (phase_max, 0), "{what}");
                    }
                    assert_eq!((v.stall_ns_max, v.wait_ns_max), (stall, wait), "{what}: stall, wait");
                }
            }
        }
        assert!(lagged > 40, "the cases must include runs whose host lags ({lagged})");
        assert!(inexact > 10, "the small caps must leave some maxima inexact ({inexact})");
    }
}
