//! The schedulability experiment of the PaRT-FTL paper's §VI-A (Figures 5-7): for each total
//! utilisation U = 0.05, 0.10, …, 0.95, `n_sets` random task sets of `n_tasks` tasks (UUniFast),
//! periods from Eq. 17-18, and each set tested in every series of the analyses it is given
//! (`rt::Analysis`: the registry's schemes with an analysis, `scheme::analyses`; in the paper,
//! PaRT-FTL's Eq. 6-7, RTGC's test and WAO-GC's demand test at two trigger rates); then the
//! weighted schedulability (Bastoni, Brandenburg and Anderson, OSPERT 2010) per request size.
//! It names no scheme: the series, their keys and their order are the analyses'.
//!
//! Choices the paper leaves open, each documented in docs/rt.md ("Figures 5-7"): a task's
//! utilisation U_i is split into U_i^r = s·U_i and U_i^w = (1 − s)·U_i with s = `read_share`
//! (0.5); Eq. 17-18 use §V-A's t_r = 1.23 and t_w = 1.87 ms and |F| = 16; Figure 6's read sizes
//! are 1..=16 pages and Figure 7's write sizes 3, 6, …, 48. Each utilisation step has its own
//! PCG stream seeded from (`seed`, step), so the same sets are tested at every request size and
//! Figure 5 equals Figure 6 at r = 1 and Figure 7 at w = 3.
//!
//! Pure and deterministic: no I/O, no threads, no clock. Plotting and files are the Python
//! front's (`ftlab rt schedulability`).

use super::{uunifast::uunifast, Analysis, Blockers, Series, Task};
use crate::error::ParameterError;
use rand::{Rng, SeedableRng};

/// Every series of `analyses`, in their order: the order of every result.
pub fn series(analyses: &[&dyn Analysis]) -> Vec<Series> {
    analyses.iter().flat_map(|a| a.series().iter().copied()).collect()
}

/// Number of utilisation steps: U = 0.05 · k for k = 1..=19.
pub(crate) const UTILISATION_STEPS: u32 = 19;

/// The experiment's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Experiment {
    /// Task sets per utilisation (§VI-A: 500).
    pub n_sets: u32,
    /// Tasks per set (§VI-A: 10).
    pub n_tasks: u32,
    pub seed: u64,
    /// s: the part of each task's utilisation that its reads get.
    pub read_share: f64,
    /// Figure 5's r_i and w_i (§VI-A: 1 and 3 pages); the fixed size in Figures 6 and 7.
    pub read_pages: u32,
    pub write_pages: u32,
    /// Figure 6's read sizes and Figure 7's write sizes, in pages.
    pub fig6_read_pages: Vec<u32>,
    pub fig7_write_pages: Vec<u32>,
    /// Eq. 17-18's device: |F|, t_r and t_w (§V-A).
    pub dies: u32,
    pub read_ms: f64,
    pub write_ms: f64,
}

impl Experiment {
    /// §VI-A's experiment with this project's choices for what it leaves open.
    pub fn paper(n_sets: u32, seed: u64) -> Experiment {
        Experiment {
            n_sets,
            n_tasks: 10,
            seed,
            read_share: 0.5,
            read_pages: 1,
            write_pages: 3,
            fig6_read_pages: (1..=16).collect(),
            fig7_write_pages: (1..=16).map(|k| 3 * k).collect(),
            dies: 16,
            read_ms: 1.23,
            write_ms: 1.87,
        }
    }

    /// The first parameter out of range.
    pub fn check(&self) -> Result<(), ParameterError> {
        let bad = |name, value: &dyn std::fmt::Display, range| {
            Err(ParameterError { name, value: value.to_string(), range })
        };
        if !(1..=1_000_000).contains(&self.n_sets) {
            return bad("n_sets", &self.n_sets, "1..=1000000");
        }
        if !(1..=1000).contains(&self.n_tasks) {
            return bad("n_tasks", &self.n_tasks, "1..=1000");
        }
        if !(0.0..=1.0).contains(&self.read_share) {
            return bad("read_share", &self.read_share, "[0, 1]");
        }
        let sizes =
            [self.read_pages, self.write_pages].into_iter().chain(self.fig6_read_pages.iter().copied());
        let mut sizes = sizes.chain(self.fig7_write_pages.iter().copied());
        if let Some(p) = sizes.find(|&p| p == 0 || p > 1_000_000) {
            return bad("pages", &p, "1..=1000000 (the pages of every request size)");
        }
        Ok(())
    }
}

/// The k-th utilisation step, 0.05 · k (k = 1..=19).
pub(crate) fn utilisation(step: u32) -> f64 {
    step as f64 * 0.05
}

/// Eq. 17: T_i^w = ⌈w_i / |F|⌉ · t_w / U_i^w.
pub fn write_period_ms(write_pages: u32, dies: u32, write_ms: f64, write_utilisation: f64) -> f64 {
    write_pages.div_ceil(dies) as f64 * write_ms / write_utilisation
}

/// Eq. 18: T_i^r = r_i · t_r / U_i^r.
pub fn read_period_ms(read_pages: u32, read_ms: f64, read_utilisation: f64) -> f64 {
    read_pages as f64 * read_ms / read_utilisation
}

/// One generated task set: the tasks and each task's blockers (for a demand test with
/// blocking).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSet {
    pub tasks: Vec<Task>,
    pub blockers: Vec<Blockers>,
}

/// Draws one task set of total utilisation `total`: UUniFast utilisations, split by
/// `read_share`, periods by Eq. 17-18, then each task's blockers uniform in 0..n_tasks
/// (read, then write). The draws do not depend on the request sizes.
pub fn task_set<R: Rng + ?Sized>(
    rng: &mut R,
    e: &Experiment,
    total: f64,
    read_pages: u32,
    write_pages: u32,
) -> TaskSet {
    let n = e.n_tasks as usize;
    let tasks = uunifast(rng, n, total)
        .into_iter()
        .map(|u| Task {
            read_pages,
            read_period_ms: read_period_ms(read_pages, e.read_ms, e.read_share * u),
            write_pages,
            write_period_ms: write_period_ms(write_pages, e.dies, e.write_ms, (1.0 - e.read_share) * u),
        })
        .collect();
    let blockers = (0..n)
        .map(|_| Blockers { read: rng.random_range(0..e.n_tasks), write: rng.random_range(0..e.n_tasks) })
        .collect();
    TaskSet { tasks, blockers }
}

/// Whether `set` is schedulable in each series of `analyses`, in `series(analyses)` order.
pub(crate) fn verdicts(analyses: &[&dyn Analysis], set: &TaskSet) -> Vec<bool> {
    analyses.iter().flat_map(|a| (0..a.series().len()).map(move |i| a.schedulable(i, set))).collect()
}

/// One point of a figure: how many of `n_sets` sets of utilisation `utilisation` and the
/// given request sizes the series `scheme` (its key) schedules.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub figure: u8,
    pub read_pages: u32,
    pub write_pages: u32,
    pub scheme: &'static str,
    pub utilisation: f64,
    pub n_schedulable: u32,
    pub n_sets: u32,
}

impl Row {
    pub(crate) fn fraction(&self) -> f64 {
        self.n_schedulable as f64 / self.n_sets as f64
    }
}

/// The PCG stream of utilisation step `step`: the same for every figure and request size.
fn step_rng(seed: u64, step: u32) -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Every utilisation step of one figure at one pair of request sizes: 19 rows per series, by
/// step then series.
pub(crate) fn sweep(
    e: &Experiment,
    analyses: &[&dyn Analysis],
    figure: u8,
    read_pages: u32,
    write_pages: u32,
) -> Vec<Row> {
    let keys: Vec<&'static str> = series(analyses).iter().map(|s| s.key).collect();
    let mut rows = Vec::with_capacity(UTILISATION_STEPS as usize * keys.len());
    for step in 1..=UTILISATION_STEPS {
        let mut rng = step_rng(e.seed, step);
        let mut counts = vec![0u32; keys.len()];
        for _ in 0..e.n_sets {
            let set = task_set(&mut rng, e, utilisation(step), read_pages, write_pages);
            for (count, ok) in counts.iter_mut().zip(verdicts(analyses, &set)) {
                *count += ok as u32;
            }
        }
        rows.extend(keys.iter().zip(counts).map(|(&scheme, n)| Row {
            figure,
            read_pages,
            write_pages,
            scheme,
            utilisation: utilisation(step),
            n_schedulable: n,
            n_sets: e.n_sets,
        }));
    }
    rows
}

/// Weighted schedulability: Σ_U U · f(U) / Σ_U U over (U, fraction schedulable f(U)) points;
/// with the same number of sets at every U this is §VI-A's "sum of the total utilisations of
/// the schedulable task sets divided by the sum of all the total utilisations". 0 for no point.
pub fn weighted_schedulability(points: &[(f64, f64)]) -> f64 {
    let total: f64 = points.iter().map(|(u, _)| u).sum();
    if total <= 0.0 {
        return 0.0;
    }
    points.iter().map(|(u, f)| u * f).sum::<f64>() / total
}

/// One scheme's weighted schedulability at one pair of request sizes of a figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Weighted {
    pub(crate) figure: u8,
    pub(crate) read_pages: u32,
    pub(crate) write_pages: u32,
    pub(crate) scheme: &'static str,
    pub(crate) value: f64,
}

/// The weighted schedulability of each series of `keys` in `rows` (one sweep), in that order.
pub(crate) fn weigh(rows: &[Row], keys: &[&'static str]) -> Vec<Weighted> {
    let Some(first) = rows.first() else { return Vec::new() };
    keys.iter()
        .map(|&scheme| {
            let points: Vec<(f64, f64)> =
                rows.iter().filter(|r| r.scheme == scheme).map(|r| (r.utilisation, r.fraction())).collect();
            Weighted {
                figure: first.figure,
                read_pages: first.read_pages,
                write_pages: first.write_pages,
                scheme,
                value: weighted_schedulability(&points),
            }
        })
        .collect()
}

/// Figures 5-7: every row and every weighted value.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    pub rows: Vec<Row>,
    pub weighted: Vec<Weighted>,
}

/// Runs the whole experiment: Figure 5 at (`read_pages`, `write_pages`), Figure 6 over
/// `fig6_read_pages` with `write_pages`, Figure 7 over `fig7_write_pages` with `read_pages`.
/// `analyses` give the series, in their order.
pub fn run(e: &Experiment, analyses: &[&dyn Analysis]) -> Results {
    let keys: Vec<&'static str> = series(analyses).iter().map(|s| s.key).collect();
    let mut cases = vec![(5u8, e.read_pages, e.write_pages)];
    cases.extend(e.fig6_read_pages.iter().map(|&r| (6, r, e.write_pages)));
    cases.extend(e.fig7_write_pages.iter().map(|&w| (7, e.read_pages, w)));
    let mut out = Results { rows: Vec::new(), weighted: Vec::new() };
    for (figure, r, w) in cases {
        let rows = sweep(e, analyses, figure, r, w);
        out.weighted.extend(weigh(&rows, &keys));
        out.rows.extend(rows);
    }
    out
}
