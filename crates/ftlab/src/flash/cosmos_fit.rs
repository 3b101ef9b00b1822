//! The `cosmos` preset's times, fitted by least squares to Table I of the PaRT-FTL paper
//! (`../shared/papers/part-ftl-partitioned-real-time-flash.txt` §II-A): the average latency,
//! in ms, of 4 reads, writes or erases on one die, on the 4 ways of one channel, or on 4
//! channels. Pure arithmetic; the preset (`scenario::presets`) holds the rounded result and a
//! test checks they agree. Not a general fitting tool.
//!
//! **Reading of the table.** ftlab takes each row as the time for all four operations to
//! complete. The other reading, the mean latency of four operations issued together, fits
//! with a negative transfer time (the same-die write row is 3.9x the channel row, more than
//! the 2.5x that reading allows), so it is rejected; neither reading explains the Min column
//! (a lone read takes about 0.375 ms, yet the same-die minimum is 0.856), which is why only
//! the averages are fitted. docs/devices/cosmos.md gives both fits.
//!
//! **Model** (ftlab's array with `read_holds_channel`, command cycles 0): a read holds its die
//! and its channel for t_R + x (x: one 8 KiB page over the channel), so 4 reads take
//! 4(t_R + x) on one die or one channel and t_R + x on 4 channels; a write moves its page
//! over the channel (x) and then programs (t_P) with the channel free, so 4 writes take
//! 4(x + t_P) on one die, 4x + t_P on one channel's 4 ways and x + t_P on 4 channels; an
//! erase takes t_E, and 4 take 4 t_E on one die, t_E otherwise.

/// Table I's average column, ms: (operation, placement, average).
pub const TABLE_I_AVG_MS: [(&str, &str, f64); 9] = [
    ("write", "same die", 5.18),
    ("write", "way", 1.87),
    ("write", "channel", 1.33),
    ("read", "same die", 1.04),
    ("read", "way", 1.23),
    ("read", "channel", 0.375),
    ("erase", "same die", 12.6),
    ("erase", "way", 3.84),
    ("erase", "channel", 3.84),
];

/// The fitted times, ms, and the model's value for each row of `TABLE_I_AVG_MS`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub read_ms: f64,
    pub transfer_ms: f64,
    pub program_ms: f64,
    pub erase_ms: f64,
    pub predicted_ms: [f64; 9],
}

/// The model row of each Table I row, over (t_R, x, t_P, t_E).
pub fn model_row(op: &str, placement: &str) -> [f64; 4] {
    match (op, placement) {
        ("read", "channel") => [1.0, 1.0, 0.0, 0.0],
        ("read", _) => [4.0, 4.0, 0.0, 0.0],
        ("write", "channel") => [0.0, 1.0, 1.0, 0.0],
        ("write", "way") => [0.0, 4.0, 1.0, 0.0],
        ("write", _) => [0.0, 4.0, 4.0, 0.0],
        ("erase", "same die") => [0.0, 0.0, 0.0, 4.0],
        ("erase", _) => [0.0, 0.0, 0.0, 1.0],
        other => panic!("no model row for {other:?}"),
    }
}

/// Least squares over the 9 averages: the normal equations AᵀA p = Aᵀb, solved by Gaussian
/// elimination with partial pivoting.
pub fn fit() -> Fit {
    let mut m = [[0.0f64; 5]; 4];
    for &(op, placement, avg) in &TABLE_I_AVG_MS {
        let a = model_row(op, placement);
        for i in 0..4 {
            for j in 0..4 {
                m[i][j] += a[i] * a[j];
            }
            m[i][4] += a[i] * avg;
        }
    }
    let p = solve(m);
    let predicted_ms = TABLE_I_AVG_MS.map(|(op, placement, _)| {
        let a = model_row(op, placement);
        (0..4).map(|i| a[i] * p[i]).sum()
    });
    Fit { read_ms: p[0], transfer_ms: p[1], program_ms: p[2], erase_ms: p[3], predicted_ms }
}

fn solve(mut m: [[f64; 5]; 4]) -> [f64; 4] {
    for col in 0..4 {
        let pivot = (col..4).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs())).expect("rows");
        m.swap(col, pivot);
        assert!(m[col][col].abs() > 1e-12, "singular normal equations");
        for row in 0..4 {
            if row != col {
                let f = m[row][col] / m[col][col];
                let pivot_row = m[col];
                for (x, p) in m[row][col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * p;
                }
            }
        }
    }
    [0, 1, 2, 3].map(|i| m[i][4] / m[i][i])
}
