//! PLACEHOLDER until the real generator lands (same API).
use super::{IoOp, TraceRecord};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorConfig {
    #[serde(default)]
    pub read_ratio: f64,
    #[serde(default)]
    pub requests: Option<u64>,
    #[serde(default = "d")]
    pub interval_us: f64,
}
fn d() -> f64 { 100.0 }
impl GeneratorConfig {
    pub fn validate(&self) -> Result<(), (String, String)> { Ok(()) }
}
pub struct Generator { n: u64, i: u64, pages: u64, cfg: GeneratorConfig, x: u64 }
impl Generator {
    pub fn new(cfg: &GeneratorConfig, namespace_bytes: u64, seed: u64) -> Generator {
        Generator { n: cfg.requests.unwrap_or(u64::MAX), i: 0, pages: namespace_bytes / 4096, cfg: cfg.clone(), x: seed | 1 }
    }
}
impl Iterator for Generator {
    type Item = TraceRecord;
    fn next(&mut self) -> Option<TraceRecord> {
        if self.i >= self.n { return None; }
        self.i += 1;
        self.x ^= self.x << 13; self.x ^= self.x >> 7; self.x ^= self.x << 17;
        let r = (self.x >> 11) as f64 / (1u64 << 53) as f64;
        let op = if r < self.cfg.read_ratio { IoOp::Read } else { IoOp::Write };
        Some(TraceRecord { time: SimTime((self.i as f64 * self.cfg.interval_us * 1000.0) as u64), op, offset_bytes: (self.x % self.pages) * 4096, size_bytes: 4096, stream: 0 })
    }
}
