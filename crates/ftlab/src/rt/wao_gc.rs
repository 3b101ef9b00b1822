//! WAO-GC's analysis as the PaRT-FTL paper gives it (§IV, Eq. 12-16): the space bound of
//! partial GC with c copies per step, the worst write and read, and the bandwidths. Pure
//! arithmetic, in milliseconds. The scheme that acts on a device is `scheme::wao_gc`.
//!
//! WAO-GC has no admission control (§VI-A). For Figures 5-7 this module also has
//! `demand_test`, this project's reading of §VI-A's text (docs/rt.md, "WAO-GC's demand
//! test"): an EDF utilisation test on the shared dies in which each job is charged the partial
//! GC steps that can block it.

use super::{Task, Term, Test};

/// Table IV's WAO-GC column and the step size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// |F|: dies written in parallel; f_r: page reads in parallel.
    pub dies: u32,
    pub parallel_reads: u32,
    pub pages_per_block: u32,
    /// c: page copies per partial step.
    pub copies_per_step: u32,
    pub read_ms: f64,
    pub write_ms: f64,
    pub erase_ms: f64,
}

impl Config {
    /// Table IV: |F| = f_r = 16, t_r 1.23, t_w 1.87, t_e 3.84 ms; P = 256, c = 2 (§V-A).
    pub fn paper() -> Config {
        Config { dies: 16, parallel_reads: 16, pages_per_block: 256, copies_per_step: 2, read_ms: 1.23, write_ms: 1.87, erase_ms: 3.84 }
    }

    /// max(t_e, c(t_r + t_w)): one partial step.
    pub fn step_ms(&self) -> f64 {
        f64::max(self.erase_ms, self.copies_per_step as f64 * (self.read_ms + self.write_ms))
    }
}

/// Eq. 12's bound on λ, (P−1)c / ((c+1)P).
pub fn lambda_max(pages_per_block: u32, copies: u32) -> f64 {
    let (p, c) = (pages_per_block as f64, copies as f64);
    (p - 1.0) * c / ((c + 1.0) * p)
}

/// Eq. 13: the worst page write, t_w + max(t_e, c(t_r + t_w)).
pub fn worst_write_ms(c: &Config) -> f64 {
    c.write_ms + c.step_ms()
}

/// Eq. 14: the worst page read, t_r + t_w + max(t_e, c(t_r + t_w)).
pub fn worst_read_ms(c: &Config) -> f64 {
    c.read_ms + c.write_ms + c.step_ms()
}

/// Eq. 15: |F| / (t_w + max(...)) pages per second.
pub fn write_bandwidth(c: &Config) -> f64 {
    c.dies as f64 / (worst_write_ms(c) / 1000.0)
}

/// Eq. 16: f_r / (t_r + t_w + max(...)) pages per second.
pub fn read_bandwidth(c: &Config) -> f64 {
    c.parallel_reads as f64 / (worst_read_ms(c) / 1000.0)
}

/// How many other tasks' partial GC steps block one job of a task (§VI-A: "in the worst case,
/// a task will be blocked by all the other tasks; ... we used a uniform probability to
/// determine the interference"). The caller chooses: drawn uniformly from 0..n for the
/// experiment, n − 1 for the worst case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blockers {
    pub read: u32,
    pub write: u32,
}

/// The demand test for WAO-GC with a fraction `trigger` of writes starting a partial step
/// (§VI-A's "WAO-GC 75" is 0.75; 1 when λ is at Eq. 12's bound). With S = max(t_e, c(t_r + t_w))
/// (Eq. 13-14), each step is charged `trigger` · S, and on the |F| shared dies:
/// - a read job costs C_i^r = r_i · t_r + b_i^r · trigger · S (Eq. 14 with b_i^r blockers);
/// - a write job costs C_i^w = ⌈w_i/|F|⌉ · (t_w + trigger · S) + b_i^w · trigger · S (Eq. 13
///   for each striped round, plus the blockers);
///
/// and the set passes if Σ (C_i^r/T_i^r + C_i^w/T_i^w) ≤ 1 (EDF on one resource). `blockers`
/// holds one entry per task.
pub fn demand_test(c: &Config, tasks: &[Task], blockers: &[Blockers], trigger: f64) -> Test {
    assert_eq!(tasks.len(), blockers.len(), "one Blockers per task");
    let step_ms = trigger * c.step_ms();
    let mut terms = Vec::with_capacity(2 * tasks.len());
    for (i, (t, b)) in tasks.iter().zip(blockers).enumerate() {
        if t.read_pages > 0 {
            let cr = t.read_pages as f64 * c.read_ms + b.read as f64 * step_ms;
            terms.push(Term { name: format!("C_{i}^r / T_{i}^r"), value: cr / t.read_period_ms });
        }
        if t.write_pages > 0 {
            let rounds = t.write_pages.div_ceil(c.dies) as f64;
            let cw = rounds * (c.write_ms + step_ms) + b.write as f64 * step_ms;
            terms.push(Term { name: format!("C_{i}^w / T_{i}^w"), value: cw / t.write_period_ms });
        }
    }
    Test { equation: "WAO-GC demand (docs/rt.md)", terms }
}
