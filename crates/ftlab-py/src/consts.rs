//! The constants `ftlab._core` exports so that Python reads them from the Rust core instead of
//! declaring them a second time: the time-series table's fixed columns. Not the bench cases and
//! trace formats (registered in lib.rs beside the functions that take them).

use pyo3::prelude::*;

/// Add the constants to the module `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Every scheme's time-series columns, in table order (a scheme's extra columns come
    // between the metrics and `backlog`).
    m.add("TIMESERIES_COLUMNS", ftlab::timeseries_columns())?;
    // The per-window device columns (equal in every tenant's row of a window).
    m.add("TIMESERIES_DEVICE_COLUMNS", ftlab::TIMESERIES_DEVICE_COLUMNS.to_vec())?;
    Ok(())
}
