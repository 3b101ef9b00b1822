//! RTGC's admission test (Chang, Kuo and Lo, "Real-time garbage collection for flash-memory
//! storage systems of real-time embedded systems", ACM TECS 3(4), 2004), as far as the sources
//! reachable here allow, on the PaRT-FTL paper's 16-die device. Pure arithmetic, in ms.
//!
//! What this is and is not: the original paper could not be read (only its abstract; see
//! docs/rt.md). What is here comes from three places, each cited where it is used:
//! - the PaRT-FTL paper, §IV: RTGC pairs each real-time task with a garbage-collection task and does not
//!   partition reads and writes, so one EDF utilisation test covers every die;
//! - Lazy-RTGC (Zhang et al., ACM TODAES 2015), §7 and Theorem 4.3 (credited there to Chang 2004): with
//!   greedy victims and a logical space of σ of the physical, a victim holds at most ⌈σπ⌉ valid pages, so
//!   each GC job frees at least α = π − ⌈σπ⌉ pages;
//! - a public re-implementation of RTGC (github.com/Minjin-Oh/StateAwareSimulator, commit 23520a9,
//!   `src/util.c`: `_gc_period`, `__calc_gcu`, `find_worst_util`): the GC task's period and cost, and the
//!   test Σ(U^r + U^w + U^G) + t_e / min(T) ≤ 1.
//!
//! The mapping onto 16 dies is this project's assumption: a job's pages are charged as Eq. 17
//! and 18 of the PaRT-FTL paper charge them (reads one after another, writes striped over the
//! |F| dies), and one GC job reclaims one victim on every die at once. It is not a scheme that
//! acts on a simulated device: that is `scheme::rtgc`, which releases these GC tasks.

use super::{Admit, Analysis, Series, Task, Term, Test};

/// The device RTGC runs on for the comparison of §VI-A.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// |F|: dies, all of them reading and writing.
    pub(crate) dies: u32,
    /// π: pages per block.
    pub(crate) pages_per_block: u32,
    /// σ: logical over physical space (§V-A: 48.2% of the SSD holds data in RTGC).
    pub(crate) lambda: f64,
    pub read_ms: f64,
    pub(crate) write_ms: f64,
    pub(crate) erase_ms: f64,
}

impl Config {
    /// §V-A: 16 dies, 256-page blocks, σ = 0.482 ("a matching data storage capacity"),
    /// t_r = 1.23, t_w = 1.87, t_e = 3.84 ms (the times of WAO-GC's column of Table IV).
    pub fn paper() -> Config {
        Config {
            dies: 16,
            pages_per_block: 256,
            lambda: 0.482,
            read_ms: 1.23,
            write_ms: 1.87,
            erase_ms: 3.84,
        }
    }

    /// ⌈σπ⌉: the most valid pages of a greedy victim (Lazy-RTGC, Theorem 4.3).
    pub fn victim_valid_pages(&self) -> u32 {
        (self.lambda * self.pages_per_block as f64).ceil() as u32
    }

    /// The fewest pages one GC job frees: α = π − ⌈σπ⌉ on each of the |F| dies.
    pub fn reclaimed_pages(&self) -> u32 {
        self.dies * (self.pages_per_block - self.victim_valid_pages())
    }
}

/// A read job of r_i pages: r_i · t_r (as Eq. 18 of the PaRT-FTL paper charges it).
pub(crate) fn read_capacity_ms(c: &Config, t: &Task) -> f64 {
    t.read_pages as f64 * c.read_ms
}

/// A write job of w_i pages striped over the dies: ⌈w_i / |F|⌉ · t_w (as Eq. 17 charges it).
pub(crate) fn write_capacity_ms(c: &Config, t: &Task) -> f64 {
    t.write_pages.div_ceil(c.dies) as f64 * c.write_ms
}

/// The GC task paired with a writer: cost c^G = ⌈σπ⌉(t_r + t_w) + t_e (StateAwareSimulator
/// `__calc_gcu`; Lazy-RTGC Eq. 6 has the same form), and period T^G = T^w · ⌊α/w⌋ if α ≥ w,
/// else T^w / ⌈w/α⌉ (`_gc_period`), α being `Config::reclaimed_pages`.
pub fn gc_task_ms(c: &Config, t: &Task) -> (f64, f64) {
    let capacity = c.victim_valid_pages() as f64 * (c.read_ms + c.write_ms) + c.erase_ms;
    let alpha = c.reclaimed_pages();
    let period = if alpha >= t.write_pages {
        t.write_period_ms * (alpha / t.write_pages) as f64
    } else {
        t.write_period_ms / t.write_pages.div_ceil(alpha) as f64
    };
    (capacity, period)
}

/// The admission test: t_e / min(T) + Σ (C_i^r/T_i^r + C_i^w/T_i^w + C_i^G/T_i^G) ≤ 1, min(T)
/// over every read, write and GC period (StateAwareSimulator `find_worst_util`: the erase is
/// the longest operation a job cannot preempt, the blocking factor).
pub fn test(c: &Config, tasks: &[Task]) -> Test {
    let mut terms = Vec::new();
    let mut min_t = f64::INFINITY;
    for (i, t) in tasks.iter().enumerate() {
        if t.read_pages > 0 {
            min_t = min_t.min(t.read_period_ms);
            terms.push(Term {
                name: format!("C_{i}^r / T_{i}^r"),
                value: read_capacity_ms(c, t) / t.read_period_ms,
            });
        }
        if t.write_pages > 0 {
            let (cg, tg) = gc_task_ms(c, t);
            min_t = min_t.min(t.write_period_ms).min(tg);
            terms.push(Term {
                name: format!("C_{i}^w / T_{i}^w"),
                value: write_capacity_ms(c, t) / t.write_period_ms,
            });
            terms.push(Term { name: format!("C_{i}^G / T_{i}^G"), value: cg / tg });
        }
    }
    if min_t.is_finite() {
        terms.insert(0, Term { name: "t_e / min(T)".into(), value: c.erase_ms / min_t });
    }
    Test { equation: "RTGC (EDF, one test for all dies)", terms }
}

/// RTGC's analysis as a scheme's capability (`rt::Analysis`): admission by `test`, one series
/// of Figures 5-7, no Table IV column (the paper's table has none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RtgcAnalysis(pub Config);

/// The analysis with the paper's configuration (the registry's hook).
pub(crate) fn analysis() -> Box<dyn Analysis> {
    Box::new(RtgcAnalysis(Config::paper()))
}

impl Analysis for RtgcAnalysis {
    fn controls_admission(&self) -> bool {
        true
    }

    fn admit(&self, tasks: &[Task]) -> Admit {
        let t = test(&self.0, tasks);
        let admitted = t.passes();
        Admit {
            tests: vec![t],
            admitted,
            note: Some(
                "RTGC (Chang, Kuo and Lo, TECS 2004) as reconstructed from secondary sources on the \
                 PaRT-FTL paper's 16 dies; see docs/rt.md",
            ),
        }
    }

    fn series(&self) -> &'static [Series] {
        &[Series { key: "rtgc", label: "RTGC" }]
    }

    fn schedulable(&self, _series: usize, set: &super::schedulability::TaskSet) -> bool {
        test(&self.0, &set.tasks).passes()
    }
}
