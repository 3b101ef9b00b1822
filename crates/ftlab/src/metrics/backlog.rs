//! A tenant's backlog: requests that have arrived and not completed, binned by time-series
//! window, and the verdict of whether it grew through the measured phase (`unstable`). The
//! arrivals of a timed tenant that waits at its queue depth are only known when the host
//! reads them, so the bins are filled as requests are read (and, at the end, as the
//! remaining arrivals up to the end are drained) and the backlog is evaluated afterwards.
//! Not the latency (see `latency`).

use crate::sim::time::SimTime;

/// Arrivals and completions of one tenant per window.
#[derive(Clone, Debug)]
pub struct Backlog {
    window_ns: u64,
    arrivals: Vec<u64>,
    completions: Vec<u64>,
}

/// What the backlog says at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BacklogVerdict {
    /// Requests arrived by the end and not completed (in flight or waiting in the host).
    pub outstanding_at_end: u64,
    /// Least-squares growth of the backlog over the measured phase (slope x its length).
    pub growth: f64,
    /// The backlog grew by more than the queue depth over the measured phase and ended above
    /// it: more work arrived than the device served, not a burst the queue absorbed.
    pub unstable: bool,
}

impl Backlog {
    pub fn new(window: SimTime) -> Backlog {
        assert!(window.ns() > 0);
        Backlog { window_ns: window.ns(), arrivals: Vec::new(), completions: Vec::new() }
    }

    fn bump(v: &mut Vec<u64>, k: usize) {
        if v.len() <= k {
            v.resize(k + 1, 0);
        }
        v[k] += 1;
    }

    /// A request arriving at `at` became known.
    pub fn arrived(&mut self, at: SimTime) {
        Self::bump(&mut self.arrivals, (at.ns() / self.window_ns) as usize);
    }

    /// A request completed at `at`.
    pub fn completed(&mut self, at: SimTime) {
        Self::bump(&mut self.completions, (at.ns() / self.window_ns) as usize);
    }

    /// Backlog at the end of each of the first `n` windows.
    pub(crate) fn at_window_ends(&self, n: usize) -> Vec<u64> {
        let (mut a, mut c) = (0u64, 0u64);
        (0..n)
            .map(|k| {
                a += self.arrivals.get(k).copied().unwrap_or(0);
                c += self.completions.get(k).copied().unwrap_or(0);
                assert!(c <= a, "more completions than arrivals by window {k}");
                a - c
            })
            .collect()
    }

    /// The verdict over the measured phase `[start, end]` for a tenant of `queue_depth`.
    /// Arrivals after `end` must not have been recorded.
    pub fn verdict(&self, start: SimTime, end: SimTime, queue_depth: u32) -> BacklogVerdict {
        let total_a: u64 = self.arrivals.iter().sum();
        let total_c: u64 = self.completions.iter().sum();
        assert!(total_c <= total_a, "more completions than arrivals");
        let first = (start.ns() / self.window_ns) as usize;
        let last = (end.ns() / self.window_ns) as usize;
        let ends = self.at_window_ends(last.max(first) + 1);
        // Window ends inside the phase, then the end itself.
        let mut pts: Vec<(f64, f64)> =
            (first..last).map(|k| (((k + 1) as u64 * self.window_ns) as f64, ends[k] as f64)).collect();
        pts.push((end.ns() as f64, (total_a - total_c) as f64));
        let before = if first == 0 { 0 } else { ends[first - 1] };
        pts.insert(0, (start.ns() as f64, before as f64));
        let growth = slope(&pts) * (end.ns() as f64 - start.ns() as f64);
        let outstanding_at_end = total_a - total_c;
        let unstable = growth > queue_depth as f64 && outstanding_at_end > queue_depth as u64;
        BacklogVerdict { outstanding_at_end, growth, unstable }
    }
}

/// Least-squares slope of `pts` (0 for fewer than two distinct abscissae).
fn slope(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 {
        0.0
    } else {
        sxy / sxx
    }
}
