//! PLACEHOLDER until the real latency histogram lands (same API).
use crate::sim::time::SimTime;
use serde::Serialize;

#[derive(Clone, Debug)]
pub struct LatencyHist { h: hdrhistogram::Histogram<u64>, sum: u128, max: u64 }
#[derive(Serialize, Clone, Debug, PartialEq, Default)]
pub struct LatencySummary { pub count: u64, pub mean_us: f64, pub p50_us: f64, pub p90_us: f64, pub p99_us: f64, pub p999_us: f64, pub p9999_us: f64, pub max_us: f64 }
impl Default for LatencyHist { fn default() -> Self { Self::new() } }
impl LatencyHist {
    pub fn new() -> Self { LatencyHist { h: hdrhistogram::Histogram::new_with_bounds(1, 1_000_000_000_000, 3).unwrap(), sum: 0, max: 0 } }
    pub fn record(&mut self, l: SimTime) { self.h.saturating_record(l.0); self.sum += l.0 as u128; self.max = self.max.max(l.0); }
    pub fn count(&self) -> u64 { self.h.len() }
    pub fn reset(&mut self) { self.h.reset(); self.sum = 0; self.max = 0; }
    pub fn merge(&mut self, o: &LatencyHist) { self.h.add(&o.h).unwrap(); self.sum += o.sum; self.max = self.max.max(o.max); }
    pub fn summary(&self) -> LatencySummary {
        let n = self.h.len(); if n == 0 { return LatencySummary::default(); }
        let q = |x: f64| r3(self.h.value_at_quantile(x) as f64 / 1e3);
        LatencySummary { count: n, mean_us: r3(self.sum as f64 / n as f64 / 1e3), p50_us: q(0.5), p90_us: q(0.9), p99_us: q(0.99), p999_us: q(0.999), p9999_us: q(0.9999), max_us: r3(self.max as f64 / 1e3) }
    }
    pub fn cdf_points(&self) -> Vec<(f64, f64)> { vec![] }
}
fn r3(x: f64) -> f64 { (x * 1e3).round() / 1e3 }
