//! Columnar tables handed to the caller (time series, latency CDFs, wear) and their helpers:
//! the `Table` type, stacking the tables of several schemes, and building the latency-CDF and
//! wear tables of one run. Plain data; it writes no file (Python writes parquet).

use super::TenantMetrics;
use crate::flash::geometry::{DieIdx, Geometry};

/// One typed column of the time-series table. Equality is bit for bit: the same run gives
/// the same bytes, and a NaN cell (a column another scheme adds) equals the same NaN, where
/// IEEE `==` would call two identical tables different.
#[derive(Clone, Debug)]
pub enum Column {
    Str(Vec<String>),
    F64(Vec<f64>),
    U64(Vec<u64>),
}

impl PartialEq for Column {
    fn eq(&self, other: &Column) -> bool {
        match (self, other) {
            (Column::Str(a), Column::Str(b)) => a == b,
            (Column::U64(a), Column::U64(b)) => a == b,
            (Column::F64(a), Column::F64(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            _ => false,
        }
    }
}

/// A columnar table: `(name, column)` pairs, all columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

/// Stack the schemes' tables with a leading `scheme` column; an f64 column some scheme lacks
/// is NaN in its rows (columns of other types must exist in every table).
pub(crate) fn concat_tables(tables: Vec<(String, Table)>) -> Table {
    let mut out: Vec<(String, Column)> = Vec::new();
    for (_, t) in &tables {
        for (n, c) in &t.columns {
            if !out.iter().any(|(o, _)| o == n) {
                out.push((n.clone(), empty_like(c)));
            }
        }
    }
    let mut scheme_col = Vec::new();
    for (scheme, t) in tables {
        let rows = t.columns.first().map_or(0, |(_, c)| col_len(c));
        scheme_col.extend(std::iter::repeat_n(scheme, rows));
        for (name, acc) in out.iter_mut() {
            match (t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c), acc) {
                (Some(Column::Str(v)), Column::Str(o)) => o.extend(v.iter().cloned()),
                (Some(Column::F64(v)), Column::F64(o)) => o.extend(v.iter().copied()),
                (Some(Column::U64(v)), Column::U64(o)) => o.extend(v.iter().copied()),
                (None, Column::F64(o)) => o.extend(std::iter::repeat_n(f64::NAN, rows)),
                (c, _) => panic!("table column {name} missing or changing type: {c:?}"),
            }
        }
    }
    let mut columns = vec![("scheme".to_string(), Column::Str(scheme_col))];
    columns.extend(out);
    Table { columns }
}

fn empty_like(c: &Column) -> Column {
    match c {
        Column::Str(_) => Column::Str(Vec::new()),
        Column::F64(_) => Column::F64(Vec::new()),
        Column::U64(_) => Column::U64(Vec::new()),
    }
}

fn col_len(c: &Column) -> usize {
    match c {
        Column::Str(v) => v.len(),
        Column::F64(v) => v.len(),
        Column::U64(v) => v.len(),
    }
}

/// Empirical latency CDF: one row per (tenant, op, histogram bucket).
pub(crate) fn cdf_table(tenants: &[(String, TenantMetrics)]) -> Table {
    let (mut tenant, mut op, mut lat, mut cdf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (name, m) in tenants {
        for (op_name, stats) in [("read", &m.read), ("write", &m.write), ("trim", &m.trim)] {
            for (l, c) in stats.hist.cdf_points() {
                tenant.push(name.clone());
                op.push(op_name.to_string());
                lat.push(l);
                cdf.push(c);
            }
        }
    }
    Table {
        columns: vec![
            ("tenant".into(), Column::Str(tenant)),
            ("op".into(), Column::Str(op)),
            ("latency_us".into(), Column::F64(lat)),
            ("cdf".into(), Column::F64(cdf)),
        ],
    }
}

/// Erase count of every block at the end, and at the end of preconditioning (so the wear of
/// the measured phase is the difference): one row per block.
pub(crate) fn wear_table(g: &Geometry, erase: &[u32], erase_precondition: &[u32]) -> Table {
    assert_eq!(erase.len(), erase_precondition.len());
    let die = (0..g.n_blocks).map(|b| (b / g.blocks_per_die) as u64).collect();
    let block = (0..g.n_blocks).map(|b| (b % g.blocks_per_die) as u64).collect();
    let channel = (0..g.n_blocks).map(|b| g.channel_of(DieIdx(b / g.blocks_per_die)) as u64).collect();
    Table {
        columns: vec![
            ("channel".into(), Column::U64(channel)),
            ("die".into(), Column::U64(die)),
            ("block".into(), Column::U64(block)),
            ("erase_count".into(), Column::U64(erase.iter().map(|&e| e as u64).collect())),
            (
                "erase_count_precondition".into(),
                Column::U64(erase_precondition.iter().map(|&e| e as u64).collect()),
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::Column;

    #[test]
    fn columns_compare_bit_for_bit() {
        let f = |v: &[f64]| Column::F64(v.to_vec());
        // What must hold: the same values, NaN included, are equal.
        assert_eq!(f(&[1.5, f64::NAN]), f(&[1.5, f64::NAN]));
        assert_eq!(Column::U64(vec![3]), Column::U64(vec![3]));
        // What must not: other bits, other lengths, other types.
        assert_ne!(f(&[0.0]), f(&[-0.0]));
        assert_ne!(f(&[1.5, f64::NAN]), f(&[1.5]));
        assert_ne!(f(&[1.0]), f(&[1.0 + f64::EPSILON]));
        assert_ne!(f(&[3.0]), Column::U64(vec![3]));
        assert_ne!(Column::Str(vec!["a".into()]), Column::Str(vec!["b".into()]));
    }
}
