//! One scheme's run on an array: build and precondition the devices, open the array tenants'
//! workloads, run the one order of events, and finish every device and the host layer.
//!
//! The order: at each step the earliest of (each device's next event, the host layer's next
//! arrival) is handled; among equal times devices go first, in device index order, and the
//! host layer's arrivals last (so requests a completion at time t frees room for are taken
//! in at t, after every device event of t). A device handles exactly one event per step
//! (`Simulation::step_one`); the requests it completed go to the host layer at once, which
//! may inject device requests into any device at the same time (each device's clock moves to
//! it: no device has an event pending before it). The run ends at `measure.duration_s` or
//! when every array tenant's workload is over. The same inputs give the same steps: the
//! summary is byte-identical for any `--jobs` (schemes run on threads of their own).

use super::host::{ArrayHost, ArrayTenant};
use super::layout::Layout;
use super::oracle::ArrayOracle;
use crate::error::FtlabError;
use crate::host::Source;
use crate::metrics::report::{ArrayResult, ArrayTenantResult, SchemeResult};
use crate::scenario::{ArrayConfig, FailFast, Scenario};
use crate::sim::time::SimTime;
use crate::simulation::{RunTables, Simulation};

/// Every device of an array under one scheme, and the host layer over them.
struct Array<'a> {
    devs: Vec<Simulation<'a>>,
    host: ArrayHost<'a>,
    now: SimTime,
}

/// The host layer's turn, after every device of the same time.
const HOST: usize = usize::MAX;

/// Run scheme `scheme_name` on the scenario's array: `devs` are its devices, built with
/// silent sources and preconditioned (`api` builds them, each with its own seed), `sources`
/// the array tenants' workloads, opened on each tenant's array namespace
/// (`Layout::array_units`). Returns each device's result and tables (named `<scheme>/dev<i>`)
/// and the array's.
pub(crate) fn run_array<'a>(
    s: &Scenario,
    a: &ArrayConfig,
    scheme_name: &str,
    mut devs: Vec<Simulation<'a>>,
    sources: Vec<Source<'a>>,
    progress: &mut dyn FnMut(SimTime),
) -> Result<(Vec<(SchemeResult, RunTables)>, ArrayResult), FtlabError> {
    let layout = array_layout(s, a);
    let ns = s.namespace_units();
    assert_eq!(devs.len(), a.devices as usize, "one simulation per device");
    for dev in devs.iter_mut() {
        dev.start_fed()?;
    }
    let mut tenants = Vec::with_capacity(s.tenants.len());
    for ((i, t), mut source) in s.tenants.iter().enumerate().zip(sources) {
        let next = source.next_request()?;
        tenants.push(ArrayTenant {
            source,
            next,
            outstanding: 0,
            queue_depth: t.queue_depth,
            closed_loop: crate::simulation::closed_loop(t),
            start: SimTime::from_secs_f64(t.start_s),
            units: layout.array_units(ns[i]),
            result: ArrayTenantResult::default(),
        });
    }
    let oracle = s.check.integrity.then(|| ArrayOracle::new(layout, &ns));
    let warmup = SimTime::from_secs_f64(s.measure.warmup_s);
    let unit_bytes = s.geometry().unit_bytes as u64;
    let rng = crate::sim::rng(s.seed, 0x494f_4431);
    let host =
        ArrayHost::new(layout, tenants, oracle, a.rebuild_device, (a.fail_fast, rng), unit_bytes, warmup);
    let mut array = Array { devs, host, now: SimTime::ZERO };
    let end = s.measure.duration_s.map(SimTime::from_secs_f64);
    array.run(end, progress)?;
    array.finish(s, a, scheme_name)
}

/// The layout of the scenario's array.
pub(crate) fn array_layout(s: &Scenario, a: &ArrayConfig) -> Layout {
    Layout::new(a.devices, a.chunk_kib * 1024 / s.geometry().unit_bytes)
}

/// Tenant `i`'s array namespace, in mapping units (whole rows of its device namespace).
pub(crate) fn array_units(s: &Scenario, a: &ArrayConfig, i: usize) -> u32 {
    array_layout(s, a).array_units(s.namespace_units()[i])
}

/// The knob of a host window schedule's offset.
pub(crate) const HOST_OFFSET_KNOB: &str = "host_offset_ms";

/// Whether scheme `name` has a host window schedule an array can stagger (its knob table
/// has `host_offset_ms`; asked of the registry, so no scheme is named here).
pub(crate) fn has_host_schedule(name: &str) -> bool {
    crate::scheme::has_knob(name, HOST_OFFSET_KNOB)
}

/// The scenario for device `d` of an array with `[array] stagger`, under `scheme_name` (one
/// with a host window schedule): its schedule shifted by `d` cycles / devices
/// (`host_offset_ms`; validated: host windows no longer than that).
pub(crate) fn staggered(s: &Scenario, a: &ArrayConfig, scheme_name: &str, d: u32) -> Scenario {
    let mut s = s.clone();
    let table = s.scheme.get_mut(scheme_name).expect("a listed scheme's table is resolved");
    let cycle = table.get("host_cycle_ms").and_then(|v| v.as_float()).expect("resolved: a float");
    table.insert(HOST_OFFSET_KNOB.into(), toml::Value::Float(cycle * d as f64 / a.devices as f64));
    s
}

impl<'a> Array<'a> {
    /// The next step: its time and whose it is (a device index, or `HOST`).
    fn next(&mut self) -> Option<(SimTime, usize)> {
        let mut best: Option<(SimTime, usize)> = None;
        for (d, dev) in self.devs.iter_mut().enumerate() {
            if let Some(t) = dev.next_event_time() {
                if best.is_none_or(|(b, _)| t < b) {
                    best = Some((t, d));
                }
            }
        }
        if let Some(t) = self.host.next_arrival(self.now) {
            if best.is_none_or(|(b, _)| t < b) {
                best = Some((t, HOST));
            }
        }
        best
    }

    fn run(&mut self, end: Option<SimTime>, progress: &mut dyn FnMut(SimTime)) -> Result<(), FtlabError> {
        let mut steps: u64 = 0;
        let mut done = Vec::new();
        while !self.host.done() {
            let Some((t, who)) = self.next() else {
                return Err(FtlabError::config(
                    "scenario",
                    "array",
                    "the array stalled: requests outstanding and no event pending on any device",
                ));
            };
            if end.is_some_and(|e| t > e) {
                self.now = end.expect("checked");
                break;
            }
            self.now = t;
            if who == HOST {
                self.host.arrive(t, &mut self.devs)?;
            } else {
                self.devs[who].step_one()?;
                self.devs[who].take_completed(&mut done);
                for id in done.drain(..) {
                    self.host.device_done(who, id, t, &mut self.devs)?;
                }
            }
            steps += 1;
            if steps.is_multiple_of(1 << 16) {
                progress(self.now);
            }
        }
        progress(self.now);
        Ok(())
    }

    fn finish(
        self,
        s: &Scenario,
        a: &ArrayConfig,
        scheme_name: &str,
    ) -> Result<(Vec<(SchemeResult, RunTables)>, ArrayResult), FtlabError> {
        let mut out = Vec::with_capacity(self.devs.len());
        let mut names = Vec::with_capacity(self.devs.len());
        for (d, mut dev) in self.devs.into_iter().enumerate() {
            dev.advance_to(self.now)?;
            let name = format!("{scheme_name}/dev{d}");
            out.push(dev.finish(&name)?);
            names.push(name);
        }
        let warmup = SimTime::from_secs_f64(s.measure.warmup_s);
        let result = ArrayResult {
            scheme: scheme_name.to_string(),
            devices: a.devices,
            chunk_kib: a.chunk_kib,
            rebuild_device: a.rebuild_device,
            fail_fast: match a.fail_fast {
                FailFast::Off => "off",
                FailFast::Random => "random",
                FailFast::Brt => "brt",
                FailFast::Iod3 => "iod3",
            },
            stagger: a.stagger,
            tenants: s
                .tenants
                .iter()
                .map(|t| t.name.clone())
                .zip(self.host.tenants.into_iter().map(|t| t.result))
                .collect(),
            device_names: names,
            device_requests: self.host.device_requests,
            integrity_checks: self.host.oracle.as_ref().map_or(0, |o| o.checks),
            sim_time: self.now,
            measured: self.now.saturating_sub(warmup),
        };
        Ok((out, result))
    }
}
