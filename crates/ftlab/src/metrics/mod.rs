//! Metrics: latency histograms, time-series windows, counters and the Report.

pub mod latency;
