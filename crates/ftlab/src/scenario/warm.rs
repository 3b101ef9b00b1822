//! `[precondition]`'s mode and the knobs of the warm-up by workload (`[precondition.warm]`):
//! their schema, defaults, the default mode (`workload` where the scenario's workload writes
//! and `fill_fraction > 0`, else `fill`) and their validation. The warm-up itself is `simulation::warm`; the
//! reference is docs/scenario.md, "`[precondition]`".

use super::{PreconditionConfig, RawPrecondition, TenantConfig, Workload};
use crate::workload::IoOp;
use serde::{Deserialize, Serialize};

/// How preconditioning brings the device to steady state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PreconditionMode {
    /// Fill, then `overwrite_passes` of uniform random overwrites (the state of a device that
    /// ran a uniform random writer).
    Fill,
    /// Fill and overwrite as `fill` does, then run the scenario's own tenants (instant, no
    /// latency accounting) until the device WAF has converged (`[precondition.warm]`).
    Workload,
}

/// How preconditioning brings its fill to the steady state of uniform random overwrites
/// (`[precondition] overwrites`; see docs/scenario.md and `simulation::steady`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Overwrites {
    /// Simulate `overwrite_passes` x the filled size of uniform random overwrites after the
    /// fill (GC runs as it would). The default.
    #[default]
    Simulate,
    /// Write each filled unit once, interleaved with stale units so that every block holds
    /// the valid fraction the steady state of uniform random overwrites gives a block of its
    /// age (`simulation::steady`); no overwrite is simulated.
    ClosedForm,
}

impl Overwrites {
    /// The default (`simulate`), which the resolved scenario's TOML leaves out.
    pub(crate) fn is_simulate(&self) -> bool {
        *self == Overwrites::Simulate
    }
}

/// `[precondition.warm]`: when the warm-up by workload (`mode = "workload"`) has converged,
/// and when it gives up. Windows and the cap are in host bytes written, as fractions of the
/// device's logical capacity (physical / (1 + over-provisioning)), so they scale with the
/// device and not with the workload's rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WarmConfig {
    /// Host bytes written per convergence window, as a fraction of the logical capacity.
    /// In [0.01, 10]. Default 0.25.
    #[serde(default = "default_window")]
    pub(crate) window_capacity_fraction: f64,
    /// Converged when the device WAF of the last window is within this relative difference
    /// of the window before it: |a - b| <= tolerance x max(a, b). In (0, 1]. Default 0.02.
    #[serde(default = "default_tolerance")]
    pub(crate) waf_tolerance: f64,
    /// The cap: the warm-up stops (and says so in `summary.json`) after this many logical
    /// capacities of host bytes, converged or not. In [2 x window_capacity_fraction, 1000].
    /// Default 8.
    #[serde(default = "default_cap")]
    pub(crate) max_capacity_multiple: f64,
}

impl Default for WarmConfig {
    /// The serde defaults above (an absent `[precondition.warm]`).
    fn default() -> Self {
        WarmConfig {
            window_capacity_fraction: default_window(),
            waf_tolerance: default_tolerance(),
            max_capacity_multiple: default_cap(),
        }
    }
}

fn default_window() -> f64 {
    0.25
}

fn default_tolerance() -> f64 {
    0.02
}

fn default_cap() -> f64 {
    8.0
}

/// Whether tenant `t`'s workload may write or trim (change what the device holds): a
/// synthetic part with `read_ratio < 1`, a periodic write task, or a trace (whose records
/// are not read before the run).
pub(crate) fn tenant_writes(t: &TenantConfig) -> bool {
    match &t.workload {
        Workload::Synthetic(w) => w.parts().iter().any(|p| p.read_ratio < 1.0),
        Workload::Periodic(p) => p.tasks.iter().any(|k| k.op != IoOp::Read),
        Workload::Trace(_) => true,
    }
}

/// Fill in the default mode and check the warm-up's knobs, for the (validated) `tenants`
/// under `schemes`.
pub(super) fn resolve(
    p: RawPrecondition,
    tenants: &[TenantConfig],
    schemes: &[String],
) -> Result<PreconditionConfig, (String, String)> {
    let writes = tenants.iter().any(tenant_writes);
    // `fill_fraction = 0` asks for an empty device: warming it by default would fill it.
    // A scheme whose state advances with simulated time only (its registry entry's
    // `timed_only`), which the instant executor does not have, is refused.
    let timed_only = schemes
        .iter()
        .find_map(|n| crate::scheme::info(n).and_then(|i| i.caps.timed_only).map(|why| (n.as_str(), why)));
    let warm = writes && p.fill_fraction > 0.0 && timed_only.is_none();
    let mode = p.mode.unwrap_or(if warm { PreconditionMode::Workload } else { PreconditionMode::Fill });
    if let (PreconditionMode::Workload, Some((name, why))) = (mode, timed_only) {
        return Err((
            "precondition.mode".into(),
            format!(
                "\"workload\" cannot warm {name}: {why}, which the warm-up's instant executor does not \
                 have; use \"fill\" or run {name} in a scenario of its own"
            ),
        ));
    }
    if mode == PreconditionMode::Workload && !writes {
        return Err((
            "precondition.mode".into(),
            "\"workload\" warms the device with the tenants' writes, and no tenant's workload writes (every \
             synthetic part has read_ratio = 1, every periodic task reads); use \"fill\""
                .into(),
        ));
    }
    if p.overwrites == Overwrites::ClosedForm && p.overwrite_passes == 0.0 {
        return Err((
            "precondition.overwrites".into(),
            "\"closed_form\" writes the steady state of uniform random overwrites, and \
             precondition.overwrite_passes = 0 asks for none; use \"simulate\" (or leave overwrites out)"
                .into(),
        ));
    }
    let w = &p.warm;
    if !(0.01..=10.0).contains(&w.window_capacity_fraction) {
        return Err((
            "precondition.warm.window_capacity_fraction".into(),
            format!("must be in [0.01, 10], got {}", w.window_capacity_fraction),
        ));
    }
    if !(w.waf_tolerance > 0.0 && w.waf_tolerance <= 1.0) {
        return Err((
            "precondition.warm.waf_tolerance".into(),
            format!("must be in (0, 1], got {}", w.waf_tolerance),
        ));
    }
    let floor = 2.0 * w.window_capacity_fraction;
    if !(w.max_capacity_multiple >= floor && w.max_capacity_multiple <= 1000.0) {
        return Err((
            "precondition.warm.max_capacity_multiple".into(),
            format!(
                "must be in [{floor}, 1000] (at least two windows of \
                 precondition.warm.window_capacity_fraction = {}, or convergence can never be tested), got \
                 {}",
                w.window_capacity_fraction, w.max_capacity_multiple
            ),
        ));
    }
    Ok(PreconditionConfig {
        fill_fraction: p.fill_fraction,
        order: p.order,
        overwrite_passes: p.overwrite_passes,
        overwrites: p.overwrites,
        mode,
        warm: p.warm,
    })
}
