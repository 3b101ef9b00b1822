//! The time series: one row per tenant and fixed window of simulated time (DESIGN §8),
//! built column by column. A window is closed when simulated time passes its end; empty
//! windows get rows of zeros. Scheme-specific columns are appended from the scheme's
//! `series_names` / `series_values`. Not a plotting tool.

use super::table::{Column, Table};
use crate::sim::time::SimTime;
use crate::workload::IoOp;
use hdrhistogram::Histogram;

/// Per-tenant accumulator of the open window.
#[derive(Clone, Debug)]
struct Acc {
    reads: u64,
    writes: u64,
    read_ns: u128,
    write_ns: u128,
    read_hist: Histogram<u64>,
    write_hist: Histogram<u64>,
}

impl Acc {
    fn new() -> Acc {
        // 2 significant digits over the whole latency range (small enough to clear every
        // window); a latency beyond it is counted in `saturated`.
        let h = Histogram::new_with_bounds(1, super::latency::HIGHEST_NS, 2).expect("valid bounds");
        Acc { reads: 0, writes: 0, read_ns: 0, write_ns: 0, read_hist: h.clone(), write_hist: h }
    }

    fn clear(&mut self) {
        self.reads = 0;
        self.writes = 0;
        self.read_ns = 0;
        self.write_ns = 0;
        self.read_hist.reset();
        self.write_hist.reset();
    }
}

/// Device counts of the open window.
#[derive(Clone, Copy, Debug, Default)]
struct DeviceAcc {
    host_units: u64,
    gc_units: u64,
    erases: u64,
}

/// Builder of the time-series table of one scheme's run.
#[derive(Clone, Debug)]
pub(crate) struct TimeSeries {
    window: SimTime,
    /// Index of the open window.
    open: u64,
    /// Where the open window ends, in ns: `(open + 1) * window` (u128: never overflows).
    open_end_ns: u128,
    tenant_names: Vec<String>,
    extra_names: Vec<&'static str>,
    acc: Vec<Acc>,
    device: DeviceAcc,
    // Columns.
    tenant: Vec<String>,
    window_start_s: Vec<f64>,
    f64_cols: Vec<Vec<f64>>,
    extra: Vec<f64>,
    /// Latencies beyond the histograms' range (recorded at its top).
    pub(crate) saturated: u64,
}

/// Names of the fixed f64 columns, in order (after `KEY_COLUMNS`).
pub(crate) const COLUMNS: [&str; 10] = [
    "read_iops",
    "write_iops",
    "read_mean_us",
    "read_p99_us",
    "write_mean_us",
    "write_p99_us",
    "device_waf",
    "gc_pages_copied",
    "erases",
    "host_pages_written",
];

/// The columns that identify a row of the time-series table, in order: `scheme` (added by
/// `table::concat_tables`), then `tenant` and `window_start_s` (added by `TimeSeries::finish`).
pub(crate) const KEY_COLUMNS: [&str; 3] = ["scheme", "tenant", "window_start_s"];
/// The per-window device columns (equal in every tenant's row of a window): the last
/// `COLUMNS`.
pub const DEVICE_COLUMNS: &[&str] = COLUMNS.split_at(6).1;
/// The last column every scheme has (after the scheme's extra columns): each tenant's backlog
/// at the window's end (`simulation::finish`).
pub(crate) const BACKLOG_COLUMN: &str = "backlog";

/// The time-series columns every scheme has, in table order (a scheme's extra columns come
/// between `COLUMNS` and `BACKLOG_COLUMN`). Python reads it as `ftlab._core.TIMESERIES_COLUMNS`.
pub fn base_columns() -> Vec<&'static str> {
    KEY_COLUMNS.iter().chain(&COLUMNS).copied().chain([BACKLOG_COLUMN]).collect()
}

impl TimeSeries {
    pub(crate) fn new(
        window: SimTime,
        tenant_names: Vec<String>,
        extra_names: Vec<&'static str>,
    ) -> TimeSeries {
        assert!(window.ns() > 0, "time-series window must be positive");
        TimeSeries {
            window,
            open: 0,
            open_end_ns: window.ns() as u128,
            acc: vec![Acc::new(); tenant_names.len()],
            tenant_names,
            f64_cols: vec![Vec::new(); COLUMNS.len() + extra_names.len()],
            extra_names,
            device: DeviceAcc::default(),
            tenant: Vec::new(),
            window_start_s: Vec::new(),
            extra: Vec::new(),
            saturated: 0,
        }
    }

    /// Rows the table will hold once the windows up to `now` are closed.
    pub(crate) fn rows_at(&self, now: SimTime) -> u64 {
        (now.ns() / self.window.ns() + 1).saturating_mul(self.tenant_names.len() as u64)
    }

    /// Whether `now` lies past the open window (call `roll` before recording then).
    pub(crate) fn needs_roll(&self, now: SimTime) -> bool {
        // Same as `now / window > open`, without a division per event.
        now.ns() as u128 >= self.open_end_ns
    }

    /// Close every window that ends at or before `now`; `extra(tenant, out)` appends the
    /// scheme's values for the row.
    pub(crate) fn roll(&mut self, now: SimTime, extra: &mut dyn FnMut(u16, &mut Vec<f64>)) {
        let target = now.ns() / self.window.ns();
        while self.open < target {
            self.close_window(extra);
        }
    }

    pub(crate) fn record(&mut self, tenant: u16, op: IoOp, latency: SimTime) {
        self.saturated += u64::from(latency.ns() > super::latency::HIGHEST_NS);
        let a = &mut self.acc[tenant as usize];
        match op {
            IoOp::Read => {
                a.reads += 1;
                a.read_ns += latency.ns() as u128;
                a.read_hist.saturating_record(latency.ns().max(1));
            }
            IoOp::Write => {
                a.writes += 1;
                a.write_ns += latency.ns() as u128;
                a.write_hist.saturating_record(latency.ns().max(1));
            }
            IoOp::Trim => {}
        }
    }

    pub(crate) fn count_host_units(&mut self, n: u64) {
        self.device.host_units += n;
    }
    pub(crate) fn count_gc_units(&mut self, n: u64) {
        self.device.gc_units += n;
    }
    pub(crate) fn count_erase(&mut self) {
        self.device.erases += 1;
    }

    /// Close the open window (even if partial) and return the table.
    pub(crate) fn finish(mut self, extra: &mut dyn FnMut(u16, &mut Vec<f64>)) -> Table {
        self.close_window(extra);
        let mut columns = vec![
            (KEY_COLUMNS[1].to_string(), Column::Str(self.tenant)),
            (KEY_COLUMNS[2].to_string(), Column::F64(self.window_start_s)),
        ];
        let names = COLUMNS.iter().copied().chain(self.extra_names.iter().copied());
        for (name, col) in names.zip(self.f64_cols) {
            columns.push((name.to_string(), Column::F64(col)));
        }
        Table { columns }
    }

    fn close_window(&mut self, extra: &mut dyn FnMut(u16, &mut Vec<f64>)) {
        let secs = self.window.as_secs_f64();
        let start_s = (self.open * self.window.ns()) as f64 / 1e9;
        let d = self.device;
        let waf =
            if d.host_units == 0 { 0.0 } else { (d.host_units + d.gc_units) as f64 / d.host_units as f64 };
        for t in 0..self.tenant_names.len() {
            let a = &self.acc[t];
            let mean = |ns: u128, n: u64| if n == 0 { 0.0 } else { round3(ns as f64 / n as f64 / 1e3) };
            let p99 = |h: &Histogram<u64>| {
                if h.is_empty() {
                    0.0
                } else {
                    round3(h.value_at_quantile(0.99) as f64 / 1e3)
                }
            };
            let row = [
                a.reads as f64 / secs,
                a.writes as f64 / secs,
                mean(a.read_ns, a.reads),
                p99(&a.read_hist),
                mean(a.write_ns, a.writes),
                p99(&a.write_hist),
                waf,
                d.gc_units as f64,
                d.erases as f64,
                d.host_units as f64,
            ];
            self.extra.clear();
            extra(t as u16, &mut self.extra);
            assert_eq!(self.extra.len(), self.extra_names.len(), "scheme series width");
            for (col, v) in self.f64_cols.iter_mut().zip(row.iter().chain(self.extra.iter())) {
                col.push(*v);
            }
            self.tenant.push(self.tenant_names[t].clone());
            self.window_start_s.push(start_s);
        }
        for a in &mut self.acc {
            a.clear();
        }
        self.device = DeviceAcc::default();
        self.open += 1;
        self.open_end_ns = (self.open as u128 + 1) * self.window.ns() as u128;
    }
}

fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}
