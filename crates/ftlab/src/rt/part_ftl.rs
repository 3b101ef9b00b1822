//! PaRT-FTL's analysis (§III-B to §III-E): per task, the read capacity (Eq. 1), write capacity
//! (Eq. 2), encoding task (Eq. 3) and GC task (Eq. 5, with λ of Eq. 4 and α); admission by SRP
//! with EDF, one test for the read dies (Eq. 6) and one for the write dies (Eq. 7); the worst
//! read (Eq. 8) and the bandwidths (Eq. 9-11). Pure arithmetic, in milliseconds.

use super::{Admit, Analysis, Bound, BoundKind, Series, Task, Term, Test};

/// The device and configuration the analysis needs (Table II's symbols).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// |F|: all flash dies.
    pub(crate) dies: u32,
    /// |F_w|: write dies.
    pub(crate) write_dies: u32,
    /// f_r: page reads that can run in parallel on the read dies (Table IV: 12).
    pub(crate) parallel_reads: u32,
    /// k: dies storing data; m: dies storing parity.
    pub(crate) data_dies: u32,
    pub(crate) parity_dies: u32,
    /// P: pages per block.
    pub(crate) pages_per_block: u32,
    /// λ: logical over physical space of the data dies (Eq. 4).
    pub(crate) lambda: f64,
    /// t_r on the read dies (Table IV F_r: 1.23 ms), and t'_r, t_w, t_e on the write dies
    /// (Table IV F_w: 0.375, 1.33, 3.84 ms).
    pub read_ms: f64,
    pub(crate) write_die_read_ms: f64,
    pub(crate) write_ms: f64,
    pub(crate) erase_ms: f64,
    /// t_c^e, t_c^d: encoding and decoding a parity page (§VI-B: 1.2 ms with NEON, taken as
    /// 0 in the paper's hardware experiments).
    pub(crate) encode_ms: f64,
    pub(crate) decode_ms: f64,
}

impl Config {
    /// The paper's configuration: Cosmos, 16 dies, 4 write dies, 12 data and 4 parity dies,
    /// 256-page blocks, λ = 64.3% (§V-A), Table IV's times, XOR cost 0 as in §VI-B.
    pub fn paper() -> Config {
        Config {
            dies: 16,
            write_dies: 4,
            parallel_reads: 12,
            data_dies: 12,
            parity_dies: 4,
            pages_per_block: 256,
            lambda: 0.643,
            read_ms: 1.23,
            write_die_read_ms: 0.375,
            write_ms: 1.33,
            erase_ms: 3.84,
            encode_ms: 0.0,
            decode_ms: 0.0,
        }
    }

    /// ⌈λ·P⌉: the most valid pages a greedy victim holds (§III-B 2).
    pub fn victim_valid_pages(&self) -> u32 {
        (self.lambda * self.pages_per_block as f64).ceil() as u32
    }

    /// α = P − ⌈λ·P⌉: the fewest pages a reclaimed block gives back.
    pub fn alpha(&self) -> u32 {
        self.pages_per_block - self.victim_valid_pages()
    }
}

/// Eq. 1: C_i^r = r_i · (t_r + t_c^d).
pub fn read_capacity_ms(c: &Config, t: &Task) -> f64 {
    t.read_pages as f64 * (c.read_ms + c.decode_ms)
}

/// Eq. 2: C_i^w = ⌈w_i / |F_w|⌉ · t_w.
pub fn write_capacity_ms(c: &Config, t: &Task) -> f64 {
    t.write_pages.div_ceil(c.write_dies) as f64 * c.write_ms
}

/// Eq. 3: C_i^e = m·P·t_c^e + ⌈m·P / |F_w|⌉·t_w, and T_i^e = T_i^w · k·P / w_i.
pub fn encoding_task_ms(c: &Config, t: &Task) -> (f64, f64) {
    let mp = c.parity_dies * c.pages_per_block;
    let capacity = mp as f64 * c.encode_ms + mp.div_ceil(c.write_dies) as f64 * c.write_ms;
    let period = t.write_period_ms * (c.data_dies * c.pages_per_block) as f64 / t.write_pages as f64;
    (capacity, period)
}

/// Eq. 5: C_i^g = ⌈(k+m)/|F_w|⌉ · (⌈λP⌉(t'_r + t_w) + t_e), and T_i^g = T_i^w / ⌈w_i/(kα)⌉
/// if w_i > kα, else T_i^w · ⌊kα / w_i⌋.
pub fn gc_task_ms(c: &Config, t: &Task) -> (f64, f64) {
    let rounds = (c.data_dies + c.parity_dies).div_ceil(c.write_dies) as f64;
    let capacity = rounds * (c.victim_valid_pages() as f64 * (c.write_die_read_ms + c.write_ms) + c.erase_ms);
    let k_alpha = c.data_dies * c.alpha();
    let period = if t.write_pages > k_alpha {
        t.write_period_ms / t.write_pages.div_ceil(k_alpha) as f64
    } else {
        t.write_period_ms * (k_alpha / t.write_pages) as f64
    };
    (capacity, period)
}

/// Eq. 5's copy charge per reclaimed page: "to reclaim k·α pages ... (k + m)·⌈λ·P⌉ pages
/// need to be copied" (§III-B 2), i.e. (k+m)·⌈λP⌉ / (k·α); `None` when α = 0 (nothing is
/// reclaimed). With the paper's k = 12, m = 4, P = 256: 2.42 at λ = 0.643 (its data dies' λ,
/// §V-A) and 1.25 at λ = 0.482 (the share of the whole device).
pub(crate) fn gc_copies_per_reclaimed_page(c: &Config) -> Option<f64> {
    let (k, m) = (c.data_dies as f64, c.parity_dies as f64);
    (c.alpha() > 0).then(|| (k + m) * c.victim_valid_pages() as f64 / (k * c.alpha() as f64))
}

/// Eq. 5's data-page part of the same charge, k·⌈λP⌉ / (k·α) = ⌈λP⌉ / α: the copies of the
/// k data blocks alone (the m encoding blocks' copies excluded); `None` when α = 0.
pub(crate) fn gc_data_copies_per_reclaimed_page(c: &Config) -> Option<f64> {
    (c.alpha() > 0).then(|| c.victim_valid_pages() as f64 / c.alpha() as f64)
}

fn term(name: String, value: f64) -> Term {
    Term { name, value }
}

/// Eq. 6, the read dies: t_r / min(T^r) + Σ C_i^r / T_i^r ≤ 1.
pub fn read_test(c: &Config, tasks: &[Task]) -> Test {
    let readers: Vec<(usize, &Task)> = tasks.iter().enumerate().filter(|(_, t)| t.read_pages > 0).collect();
    let mut terms = Vec::with_capacity(readers.len() + 1);
    if let Some(min_t) = readers.iter().map(|(_, t)| t.read_period_ms).reduce(f64::min) {
        terms.push(term("t_r / min(T^r)".into(), c.read_ms / min_t));
    }
    terms.extend(
        readers
            .iter()
            .map(|(i, t)| term(format!("C_{i}^r / T_{i}^r"), read_capacity_ms(c, t) / t.read_period_ms)),
    );
    Test { equation: "Eq. 6", terms }
}

/// Eq. 7, the write dies: t_e / min(T) + Σ (C_i^w/T_i^w + C_i^e/T_i^e + C_i^g/T_i^g) ≤ 1,
/// min(T) over every write, encoding and GC period.
pub fn write_test(c: &Config, tasks: &[Task]) -> Test {
    let mut terms = Vec::new();
    let mut min_t = f64::INFINITY;
    for (i, t) in tasks.iter().enumerate().filter(|(_, t)| t.write_pages > 0) {
        let (ce, te) = encoding_task_ms(c, t);
        let (cg, tg) = gc_task_ms(c, t);
        min_t = min_t.min(t.write_period_ms).min(te).min(tg);
        terms.push(term(format!("C_{i}^w / T_{i}^w"), write_capacity_ms(c, t) / t.write_period_ms));
        terms.push(term(format!("C_{i}^e / T_{i}^e"), ce / te));
        terms.push(term(format!("C_{i}^g / T_{i}^g"), cg / tg));
    }
    if min_t.is_finite() {
        terms.insert(0, term("t_e / min(T)".into(), c.erase_ms / min_t));
    }
    Test { equation: "Eq. 7", terms }
}

/// Admission (§III-C): both tests must pass.
pub fn admits(c: &Config, tasks: &[Task]) -> bool {
    read_test(c, tasks).passes() && write_test(c, tasks).passes()
}

/// Eq. 8: the worst read, a rebuild, t_r + t_c^d.
pub fn worst_read_ms(c: &Config) -> f64 {
    c.read_ms + c.decode_ms
}

/// Eq. 9 in pages per second, k·B_r / (s·[B_v(t_r + t_w) + t_e + B_r·t_w]) with B_v = ⌈λP⌉,
/// B_r = α and t_r, t_w of the write dies, for a scale `s`: the printed equation has
/// s = |F|/|F_w| (`write_bandwidth_printed`); the paper's 7.3 MB/s needs s = k/|F_w|
/// (`write_bandwidth_as_reported`; see docs/rt.md).
fn write_bandwidth(c: &Config, scale: f64) -> f64 {
    let (bv, br) = (c.victim_valid_pages() as f64, c.alpha() as f64);
    let cycle_ms = scale * (bv * (c.write_die_read_ms + c.write_ms) + c.erase_ms + br * c.write_ms);
    c.data_dies as f64 * br / (cycle_ms / 1000.0)
}

pub fn write_bandwidth_printed(c: &Config) -> f64 {
    write_bandwidth(c, c.dies as f64 / c.write_dies as f64)
}

pub fn write_bandwidth_as_reported(c: &Config) -> f64 {
    write_bandwidth(c, c.data_dies as f64 / c.write_dies as f64)
}

/// Eq. 10: f_r / t_r pages per second (no page rebuilt).
pub fn read_bandwidth(c: &Config) -> f64 {
    c.parallel_reads as f64 / (c.read_ms / 1000.0)
}

/// Eq. 11: 1 / (t_r + t_c^d) pages per second (every page rebuilt).
pub fn read_bandwidth_worst(c: &Config) -> f64 {
    1.0 / (worst_read_ms(c) / 1000.0)
}

/// PaRT-FTL's analysis as a scheme's capability (`rt::Analysis`): admission by Eq. 6 and 7,
/// one series of Figures 5-7, and its Table IV column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PartFtlAnalysis(pub Config);

/// The analysis with the paper's configuration (the registry's hook).
pub(crate) fn analysis() -> Box<dyn Analysis> {
    Box::new(PartFtlAnalysis(Config::paper()))
}

impl Analysis for PartFtlAnalysis {
    fn controls_admission(&self) -> bool {
        true
    }

    fn admit(&self, tasks: &[Task]) -> Admit {
        let tests = vec![read_test(&self.0, tasks), write_test(&self.0, tasks)];
        let admitted = tests.iter().all(Test::passes);
        Admit { tests, admitted, note: None }
    }

    fn series(&self) -> &'static [Series] {
        &[Series { key: "part-ftl", label: "PaRT-FTL" }]
    }

    fn schedulable(&self, _series: usize, set: &super::schedulability::TaskSet) -> bool {
        admits(&self.0, &set.tasks)
    }

    fn bounds(&self) -> Vec<Bound> {
        let p = &self.0;
        let row = |kind, quantity, equation, value, paper| Bound { kind, quantity, equation, value, paper };
        let bw = BoundKind::Bandwidth;
        vec![
            row(
                bw,
                "PaRT-FTL write (as printed, |F|/|F_w|)",
                "Eq. 9",
                write_bandwidth_printed(p),
                "7.3 MB/s",
            ),
            row(bw, "PaRT-FTL write (k/|F_w|)", "Eq. 9", write_bandwidth_as_reported(p), "7.3 MB/s"),
            row(bw, "PaRT-FTL read", "Eq. 10", read_bandwidth(p), "76 MB/s"),
            row(bw, "PaRT-FTL read, every page rebuilt", "Eq. 11", read_bandwidth_worst(p), "-"),
            row(BoundKind::Latency, "PaRT-FTL worst read (rebuilt)", "Eq. 8", worst_read_ms(p), "-"),
        ]
    }
}
