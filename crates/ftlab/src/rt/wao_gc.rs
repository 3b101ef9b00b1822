//! WAO-GC's analysis as the PaRT-FTL paper gives it (§IV, Eq. 12-16): the space bound of
//! partial GC with c copies per step, the worst write and read, and the bandwidths. Pure
//! arithmetic, in milliseconds. The scheme that acts on a device is `scheme::wao_gc`.
//!
//! WAO-GC has no admission control (§VI-A). For Figures 5-7 this module also has
//! `demand_passes` and `demand_test`, this project's reading of §VI-A's text (docs/rt.md,
//! "WAO-GC's demand test"): EDF with SRP on the shared dies, writes charged their partial steps
//! with a trigger probability, and each job blocked by the writes and steps of a number of
//! other tasks that the caller draws.

use super::{Admit, Analysis, Bound, BoundKind, Series, Task, Term, Test};

/// Table IV's WAO-GC column and the step size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// |F|: dies written in parallel; f_r: page reads in parallel.
    pub(crate) dies: u32,
    pub(crate) parallel_reads: u32,
    pub(crate) pages_per_block: u32,
    /// c: page copies per partial step.
    pub(crate) copies_per_step: u32,
    pub read_ms: f64,
    pub(crate) write_ms: f64,
    pub(crate) erase_ms: f64,
}

impl Config {
    /// Table IV: |F| = f_r = 16, t_r 1.23, t_w 1.87, t_e 3.84 ms; P = 256, c = 2 (§V-A).
    pub fn paper() -> Config {
        Config {
            dies: 16,
            parallel_reads: 16,
            pages_per_block: 256,
            copies_per_step: 2,
            read_ms: 1.23,
            write_ms: 1.87,
            erase_ms: 3.84,
        }
    }

    /// max(t_e, c(t_r + t_w)): one partial step.
    pub(crate) fn step_ms(&self) -> f64 {
        f64::max(self.erase_ms, self.copies_per_step as f64 * (self.read_ms + self.write_ms))
    }
}

/// Eq. 12's bound on λ, (P−1)c / ((c+1)P).
pub fn lambda_max(pages_per_block: u32, copies: u32) -> f64 {
    let (p, c) = (pages_per_block as f64, copies as f64);
    (p - 1.0) * c / ((c + 1.0) * p)
}

/// §IV-B: the partial steps one reclamation takes, n = ⌈v/c⌉ + 1 ("Let c be the number of
/// page copies that can be done in a partial step. Thus, n = ⌈v/c⌉ + 1"): ⌈v/c⌉ steps of
/// copies and one erase, one step after each page write.
pub fn steps_per_reclaim(valid_pages: u32, copies: u32) -> u32 {
    valid_pages.div_ceil(copies) + 1
}

/// §IV-B's constraint behind Eq. 12, n + v ≤ P, with v = ⌈λ·P⌉ ("Given that v ≤ ⌈λ·P⌉ due
/// to the over-provisioning"): one free block holds the victim's valid pages and the host
/// pages written while it is reclaimed.
pub fn one_block_suffices(lambda: f64, pages_per_block: u32, copies: u32) -> bool {
    let v = victim_valid_pages(lambda, pages_per_block);
    steps_per_reclaim(v, copies) + v <= pages_per_block
}

/// §IV-B: "v ≤ ⌈λ·P⌉ due to the over-provisioning": the most valid pages a victim holds.
pub(crate) fn victim_valid_pages(lambda: f64, pages_per_block: u32) -> u32 {
    (lambda * pages_per_block as f64).ceil() as u32
}

/// The copies per reclaimed page that §IV-B's premise allows (the premise of Eq. 12): a victim
/// of v ≤ ⌈λP⌉ valid pages gives back P − v, so at most ⌈λP⌉ / (P − ⌈λP⌉); `None` when
/// ⌈λP⌉ = P. 0.94 at λ = 0.482, P = 256.
pub(crate) fn copies_per_reclaimed_page_max(lambda: f64, pages_per_block: u32) -> Option<f64> {
    let v = victim_valid_pages(lambda, pages_per_block);
    (v < pages_per_block).then(|| v as f64 / (pages_per_block - v) as f64)
}

/// §VI-A's trigger share: λ as a fraction of Eq. 12's maximum ("When λ is set to the maximum
/// value in Equation 12, partial garbage collection will occur after every write operation
/// ... λ = 48.2%, which is 72.5% of the maximum value").
pub fn trigger_share(lambda: f64, pages_per_block: u32, copies: u32) -> f64 {
    lambda / lambda_max(pages_per_block, copies)
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

/// How many other tasks' partial GC steps block one job of a task (`rt::Blockers`).
pub(crate) use super::Blockers;

/// One job type of the demand test: task `task`'s reads or writes, its cost, period and
/// blocking, in ms.
#[derive(Clone, Copy, Debug)]
struct Level {
    task: usize,
    side: char,
    cost_ms: f64,
    period_ms: f64,
    blocking_ms: f64,
}

/// The job types of `tasks`, sorted by period (ties in task order, reads first).
fn levels(c: &Config, tasks: &[Task], blockers: &[Blockers], trigger: f64) -> Vec<Level> {
    assert_eq!(tasks.len(), blockers.len(), "one Blockers per task");
    let step_ms = trigger * c.step_ms();
    let blocker_ms = c.write_ms + step_ms;
    let mut out = Vec::with_capacity(2 * tasks.len());
    for (i, (t, b)) in tasks.iter().zip(blockers).enumerate() {
        if t.read_pages > 0 {
            let cost_ms = t.read_pages as f64 * c.read_ms;
            out.push(Level {
                task: i,
                side: 'r',
                cost_ms,
                period_ms: t.read_period_ms,
                blocking_ms: b.read as f64 * blocker_ms,
            });
        }
        if t.write_pages > 0 {
            let cost_ms = t.write_pages.div_ceil(c.dies) as f64 * (c.write_ms + step_ms);
            out.push(Level {
                task: i,
                side: 'w',
                cost_ms,
                period_ms: t.write_period_ms,
                blocking_ms: b.write as f64 * blocker_ms,
            });
        }
    }
    out.sort_by(|a, b| a.period_ms.total_cmp(&b.period_ms));
    out
}

/// For each level (sorted as `levels`): Σ_{T_j ≤ T_i} C_j/T_j + B_i/T_i.
fn level_totals(levels: &[Level]) -> Vec<f64> {
    let mut totals = Vec::with_capacity(levels.len());
    let (mut start, mut sum) = (0, 0.0);
    while start < levels.len() {
        let end =
            start + levels[start..].iter().take_while(|l| l.period_ms == levels[start].period_ms).count();
        sum += levels[start..end].iter().map(|l| l.cost_ms / l.period_ms).sum::<f64>();
        totals.extend(levels[start..end].iter().map(|l| sum + l.blocking_ms / l.period_ms));
        start = end;
    }
    totals
}

/// WAO-GC's demand test, this project's reading of §VI-A (docs/rt.md): EDF with the Stack
/// Resource Policy (Baker 1991), the scheduler Eq. 6-7 assume for PaRT-FTL, on the |F| shared
/// dies, with a fraction `trigger` of write rounds starting a partial step of
/// S = max(t_e, c(t_r + t_w)) (§VI-A's "WAO-GC 75" is 0.75). Job costs: a read job r_i · t_r
/// (Eq. 18's charge); a write job ⌈w_i/|F|⌉ · (t_w + trigger · S) (Eq. 13, the step weighted
/// by its probability). Blocking: b blockers (`blockers`), each a write and its step as in
/// Eq. 14, B = b · (t_w + trigger · S). The set passes if at every job type i,
/// Σ_{T_j ≤ T_i} C_j/T_j + B_i/T_i ≤ 1.
pub fn demand_passes(c: &Config, tasks: &[Task], blockers: &[Blockers], trigger: f64) -> bool {
    level_totals(&levels(c, tasks, blockers, trigger)).iter().all(|&t| t <= 1.0)
}

/// `demand_passes`'s binding level (the largest sum) term by term: every C_j/T_j with
/// T_j ≤ T_i, then B_i/T_i; it passes exactly when `demand_passes` does. No term if no task.
pub fn demand_test(c: &Config, tasks: &[Task], blockers: &[Blockers], trigger: f64) -> Test {
    let levels = levels(c, tasks, blockers, trigger);
    let totals = level_totals(&levels);
    let mut terms = Vec::new();
    if let Some((i, _)) = totals.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
        let top = levels[i];
        for l in levels.iter().take_while(|l| l.period_ms <= top.period_ms) {
            terms.push(Term {
                name: format!("C_{}^{} / T_{}^{}", l.task, l.side, l.task, l.side),
                value: l.cost_ms / l.period_ms,
            });
        }
        terms.push(Term {
            name: format!("B_{}^{} / T_{}^{}", top.task, top.side, top.task, top.side),
            value: top.blocking_ms / top.period_ms,
        });
    }
    Test { equation: "WAO-GC demand, SRP with EDF, binding level (docs/rt.md)", terms }
}

/// WAO-GC's analysis as a scheme's capability (`rt::Analysis`): no admission control, its
/// worst-case demand test shown by `ftlab rt admit`, one series of Figures 5-7 per trigger rate
/// of `TRIGGERS`, and its Table IV column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WaoGcAnalysis(pub Config);

/// The trigger rates of WAO-GC's series of Figures 5-7: 75% and 50% of writes starting a
/// partial step (§VI-A).
pub(crate) const TRIGGERS: [f64; 2] = [0.75, 0.5];

/// The series of `TRIGGERS`, in that order.
pub(crate) const SERIES: [Series; 2] =
    [Series { key: "wao-gc-75", label: "WAO-GC 75" }, Series { key: "wao-gc-50", label: "WAO-GC 50" }];

/// The analysis with the paper's configuration (the registry's hook).
pub(crate) fn analysis() -> Box<dyn Analysis> {
    Box::new(WaoGcAnalysis(Config::paper()))
}

impl Analysis for WaoGcAnalysis {
    fn controls_admission(&self) -> bool {
        false
    }

    fn admit(&self, tasks: &[Task]) -> Admit {
        let worst = tasks.len().saturating_sub(1) as u32;
        let blockers = vec![Blockers { read: worst, write: worst }; tasks.len()];
        Admit {
            tests: vec![demand_test(&self.0, tasks, &blockers, 1.0)],
            admitted: true,
            note: Some(
                "WAO-GC has no admission control (PaRT-FTL paper, §VI-A): every task set is admitted. Shown \
                 for information: this project's worst-case demand test (every other task blocks each job, \
                 every write starts a partial step; docs/rt.md)",
            ),
        }
    }

    fn series(&self) -> &'static [Series] {
        &SERIES
    }

    fn schedulable(&self, series: usize, set: &super::schedulability::TaskSet) -> bool {
        demand_passes(&self.0, &set.tasks, &set.blockers, TRIGGERS[series])
    }

    fn bounds(&self) -> Vec<Bound> {
        let w = &self.0;
        let row = |kind, quantity, equation, value, paper| Bound { kind, quantity, equation, value, paper };
        vec![
            row(BoundKind::Bandwidth, "WAO-GC write", "Eq. 15", write_bandwidth(w), "15.5 MB/s"),
            row(BoundKind::Bandwidth, "WAO-GC read", "Eq. 16", read_bandwidth(w), "13.4 MB/s"),
            row(BoundKind::Latency, "WAO-GC worst write", "Eq. 13", worst_write_ms(w), "-"),
            row(BoundKind::Latency, "WAO-GC worst read", "Eq. 14", worst_read_ms(w), "-"),
            row(
                BoundKind::Space,
                "WAO-GC's bound on λ",
                "Eq. 12",
                lambda_max(w.pages_per_block, w.copies_per_step),
                "66.4%",
            ),
        ]
    }
}
