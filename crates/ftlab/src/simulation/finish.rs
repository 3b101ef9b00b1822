//! The end of a run: what was still outstanding (requests in flight and arrivals still waiting
//! in the host, drained from the sources up to the end), each tenant's backlog and health
//! verdicts (a backlog beyond `measure.backlog_queue_depths_max` makes it unstable), the
//! deadlines of jobs left over, and the `SchemeResult` and tables handed to the caller. Nothing
//! outstanding is dropped: it is counted here.

use super::engine::Engine;
use super::executor::Timed;
use crate::error::FtlabError;
use crate::host::NO_TASK;
use crate::metrics::lifetime::LifetimeResult;
use crate::metrics::phase::PhaseResult;
use crate::metrics::report::SchemeResult;
use crate::metrics::table::{cdf_table, wear_table, Column, Table};
use crate::metrics::timeseries::BACKLOG_COLUMN;
use crate::policy::DeviceView;
use crate::sim::time::SimTime;
use crate::workload::IoOp;

/// The tables of one scheme's run (the caller adds the `scheme` column).
#[derive(Clone, Debug)]
pub struct RunTables {
    /// One row per tenant and window.
    pub timeseries: Table,
    /// Empirical latency CDF: one row per (tenant, op, histogram bucket).
    pub(crate) latency_cdf: Table,
    /// Erase count of every block (at the end and after preconditioning): one row per block.
    pub(crate) wear: Table,
}

impl Engine<'_, Timed> {
    /// The measured results and the tables of this run.
    pub(super) fn finish(mut self, scheme_name: &str) -> Result<(SchemeResult, RunTables), FtlabError> {
        let end = self.now;
        self.count_outstanding(end)?;
        let phases = self.close_phases(end);
        self.close_tenants(end)?;
        let g = self.ftl.geometry;
        let erase: Vec<u32> = self.ftl.blocks().info.iter().map(|b| b.erase_count).collect();
        let erase_pre = self.sink.erase_precondition.clone().unwrap_or_else(|| vec![0; erase.len()]);
        let measured = end.saturating_sub(self.p.warmup);
        let util = self
            .exec
            .array
            .die_busy_ns()
            .iter()
            .zip(&self.sink.busy_at_measure)
            .map(|(&b, &b0)| if measured.ns() == 0 { 0.0 } else { (b - b0) as f64 / measured.ns() as f64 })
            .collect();
        let lifetime = LifetimeResult::compute(
            &g,
            &self.ftl.blocks().info,
            &erase_pre,
            &self.sink.wear,
            measured.as_secs_f64(),
        );
        let v = DeviceView { ftl: &self.ftl, now: self.now, dies: &self.die_status, epoch: &self.sink.epoch };
        let (scheme, streams) = (&self.pol.scheme, &mut self.sink.streams);
        let ts_saturated = self.sink.ts.saturated;
        let mut timeseries = self.sink.ts.finish(&mut |t, out| {
            scheme.series_values(t, &v, out);
            streams.series_values(t, out);
        });
        add_backlog_column(&mut timeseries, &self.sink.metrics);
        let mut scheme_counters = Vec::new();
        self.pol.scheme.counters(&mut scheme_counters);
        let mut mapper_counters = Vec::new();
        self.pol.mapper.counters(&mut mapper_counters);
        let queue_depths = self.host.tenants.iter().map(|t| t.queue_depth).collect();
        let tenants: Vec<(String, _)> = self.host.names.into_iter().zip(self.sink.metrics).collect();
        let tables = RunTables {
            latency_cdf: cdf_table(&tenants),
            wear: wear_table(&g, &erase, &erase_pre),
            timeseries,
        };
        let result = SchemeResult {
            scheme: scheme_name.to_string(),
            tenants,
            queue_depths,
            device: self.sink.device,
            jobs: self.sink.job_counts,
            scheme_counters,
            mapper_counters,
            mapper_report: self.pol.mapper.report(),
            units_per_page: g.units_per_page,
            erase_count_min: erase.iter().copied().min().unwrap_or(0),
            erase_count_max: erase.iter().copied().max().unwrap_or(0),
            erase_count_mean: erase.iter().map(|&e| e as f64).sum::<f64>() / erase.len().max(1) as f64,
            precondition_erases: self.sink.precondition_erases,
            sim_time: end,
            measured,
            die_utilisation: util,
            integrity_checks: self.ftl.oracle_checks(),
            timeseries_saturated: ts_saturated,
            write_buffer_bytes: self.p.buffer_units * g.unit_bytes as u64,
            streams: self.sink.streams.result(self.ftl.params.physical_streams),
            phases,
            lifetime,
            health_limits: self.p.health,
            solo: None,
            warm_up: None,
            closed_form: self.sink.closed_form.clone(),
        };
        Ok((result, tables))
    }

    /// Each tenant's source counts, backlog and health verdicts at `end`.
    fn close_tenants(&mut self, end: SimTime) -> Result<(), FtlabError> {
        let measure_from = self.p.warmup.min(end);
        for (t, m) in self.sink.metrics.iter_mut().enumerate() {
            m.reordered_arrivals = self.host.tenants[t].source.reordered;
            m.skipped_records = self.host.tenants[t].source.skipped_records();
            // After the skips are taken: reading the rest of the trace skips more.
            let pending = u64::from(self.host.tenants[t].next.is_some());
            m.records_not_replayed = self.host.tenants[t].source.records_not_replayed(pending)?;
            let qd = self.host.tenants[t].queue_depth;
            let mut verdict = m.backlog.verdict(measure_from, end, qd);
            let health = m.health.verdict(end, qd, &self.p.health);
            verdict.unstable |= health.backlog_exceeded;
            m.verdict = Some(verdict);
            m.health_verdict = Some(health);
        }
        Ok(())
    }

    /// End the phases still open at `end` and return what every phase measured; a phase
    /// that never started (the run ended first) starts and ends at `end`.
    fn close_phases(&mut self, end: SimTime) -> Vec<PhaseResult> {
        assert_eq!(self.now, end, "phases close at the end of the run");
        let snap = self.snapshot();
        let upp = self.ftl.geometry.units_per_page;
        for p in &mut self.sink.phases {
            p.at_start.get_or_insert_with(|| snap.clone());
            p.at_end.get_or_insert_with(|| snap.clone());
        }
        self.sink.phases.iter().map(|p| p.result(upp)).collect()
    }

    /// Count, per tenant, the requests that arrived by `end` and did not complete: those in
    /// flight and those still waiting in the host (read from the source now). Periodic jobs
    /// among them are deadline misses if their deadline passed, else pending.
    fn count_outstanding(&mut self, end: SimTime) -> Result<(), FtlabError> {
        let warmup = self.p.warmup;
        for id in self.host.reqs.live_indices() {
            let r = self.host.reqs.get(id).req;
            let t = self.host.reqs.get(id).tenant as usize;
            if r.task != NO_TASK && r.arrival >= warmup {
                self.sink.metrics[t].tasks[r.task as usize].outstanding(r.deadline, end);
            }
            self.sink.metrics[t].health.outstanding(end, r.arrival);
            self.sink.metrics[t].writes_outstanding_at_end += u64::from(r.op == IoOp::Write);
        }
        for t in 0..self.host.tenants.len() {
            if self.host.tenants[t].closed_loop {
                continue;
            }
            while let Some(r) = self.host.tenants[t].next.filter(|r| r.arrival <= end) {
                self.sink.metrics[t].backlog.arrived(r.arrival);
                self.sink.metrics[t].health.arrived(r.arrival);
                self.sink.metrics[t].health.outstanding(end, r.arrival);
                self.sink.metrics[t].writes_outstanding_at_end += u64::from(r.op == IoOp::Write);
                if r.task != NO_TASK && r.arrival >= warmup {
                    self.sink.metrics[t].tasks[r.task as usize].outstanding(r.deadline, end);
                }
                self.host.tenants[t].next = self.host.tenants[t].source.next_request()?;
            }
        }
        Ok(())
    }
}

/// The `backlog` column: each tenant's backlog at the end of each window (rows are window by
/// window, tenants in order within a window).
fn add_backlog_column(ts: &mut Table, metrics: &[crate::metrics::TenantMetrics]) {
    let rows = ts.columns.first().map_or(0, |(_, c)| match c {
        Column::Str(v) => v.len(),
        Column::F64(v) => v.len(),
        Column::U64(v) => v.len(),
    });
    let n = metrics.len();
    assert!(n > 0 && rows.is_multiple_of(n), "time-series rows are windows x tenants");
    let per_tenant: Vec<Vec<u64>> = metrics.iter().map(|m| m.backlog.at_window_ends(rows / n)).collect();
    let col = (0..rows).map(|r| per_tenant[r % n][r / n] as f64).collect();
    ts.columns.push((BACKLOG_COLUMN.into(), Column::F64(col)));
}
