//! `rtgc`: real-time garbage collection in the manner of RTGC (Chang, Kuo and Lo, ACM TECS
//! 3(4), 2004), as the PaRT-FTL paper describes it (§IV: each real-time writer is paired with a
//! periodic garbage-collection task; reads and writes are not partitioned) and as `rt::rtgc`
//! reconstructs its task model. Host pages are striped over every die, channel first. For each
//! periodic write task (w_i, T_i^w) of the scenario a GC task is released every T_i^G
//! (`rt::rtgc::gc_task_ms`); each GC job collects one greedy victim on every die
//! (`Command::StepGc` with a whole block's budget), which is how `rt::rtgc` maps one job onto a
//! multi-die device. A scenario whose periodic tasks fail RTGC's utilisation test is refused
//! with its terms unless `admission = "report"`.
//!
//! What this is not: the original paper could not be read (docs/rt.md says what was reachable);
//! the GC jobs carry no deadline of their own (EDF serves them after deadline-carrying I/O), and
//! releases are checked at the scheme's epoch, the shortest GC period. The engine's foreground
//! GC below `ftl.gc_low_watermark_blocks` stays as a safety net; set `ftl.background_gc =
//! false` so that GC runs only in the periodic jobs (and, if space runs short, the net).

use super::{
    parse_config, to_table, Capabilities, RoundRobin, Scheme, SchemeConfigError, SchemeContext, SchemeInfo,
};
use crate::flash::geometry::{DieIdx, Geometry};
use crate::knobs::{config_fields, serde_defaults, Knob, KnobKind};
use crate::policy::{Command, DeviceView, Interests};
use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};

pub(crate) use super::part_ftl::AdmissionMode;

/// Knobs of `[scheme.rtgc]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RtgcConfig {
    /// What a periodic task set failing RTGC's test (`rt::rtgc::test`) does: `enforce`
    /// (default) refuses the scenario with every term; `report` runs it and reports the total.
    #[serde(default)]
    pub(crate) admission: AdmissionMode,
}

/// The knobs of `rtgc`.
pub(crate) const KNOBS: &[Knob] = &[Knob::new(
    "admission",
    "",
    KnobKind::Choice(&["enforce", "report"]),
    "A periodic task set failing RTGC's test: refused with its terms (enforce) or run and reported (report).",
)];

/// `rtgc`'s registry entry.
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "rtgc",
    summary: "RTGC: striping over every die, a periodic GC task per periodic writer, admission by RTGC's \
              test.",
    knobs: KNOBS,
    fields: config_fields::<RtgcConfig>,
    defaults: serde_defaults::<RtgcConfig>,
    build,
    caps: Capabilities { analysis: Some(crate::rt::rtgc::analysis), ..Capabilities::labelled("RTGC") },
};

/// One periodic GC task: its period and next release.
struct GcTask {
    period: SimTime,
    next: SimTime,
}

pub(crate) struct Rtgc {
    config: RtgcConfig,
    cursors: Vec<RoundRobin>,
    n_dies: u32,
    pages_per_block: u32,
    tasks: Vec<GcTask>,
    epoch: Option<SimTime>,
    releases: u64,
    test_total: f64,
}

pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    Ok(Box::new(Rtgc::new(table, ctx)?))
}

/// `rt::rtgc`'s configuration for this device: every die, P, σ = the namespaces over the
/// device, tR and tPROG each with one page's transfer and command, tBERS.
pub(crate) fn analysis_config(g: &Geometry, ctx: &SchemeContext) -> crate::rt::rtgc::Config {
    let (read_ms, write_ms, erase_ms) = super::analysis_times_ms(g, &ctx.timing);
    let logical: u64 = ctx.namespace_units.iter().map(|&u| u as u64).sum();
    crate::rt::rtgc::Config {
        dies: g.n_dies,
        pages_per_block: g.pages_per_block,
        lambda: logical as f64 / g.n_units() as f64,
        read_ms,
        write_ms,
        erase_ms,
    }
}

impl Rtgc {
    pub(crate) fn new(table: &toml::Table, ctx: &SchemeContext) -> Result<Rtgc, SchemeConfigError> {
        let config: RtgcConfig = parse_config(table)?;
        let g = ctx.geometry;
        let c = analysis_config(g, ctx);
        if c.reclaimed_pages() == 0 {
            return Err(SchemeConfigError::new(
                "",
                format!(
                    "a greedy victim may hold all {} pages at σ = {:.3}: raise device.over_provisioning",
                    g.pages_per_block, c.lambda
                ),
            ));
        }
        let test = crate::rt::rtgc::test(&c, ctx.tasks);
        if config.admission == AdmissionMode::Enforce && !test.passes() {
            let terms: Vec<String> =
                test.terms.iter().map(|x| format!("{} = {:.4}", x.name, x.value)).collect();
            return Err(SchemeConfigError::new(
                "admission",
                format!(
                    "the periodic tasks fail {} (must be <= 1): {} = {:.4}; set admission = \"report\" to \
                     run them anyway",
                    test.equation,
                    terms.join(" + "),
                    test.total()
                ),
            ));
        }
        let tasks: Vec<GcTask> = ctx
            .tasks
            .iter()
            .filter(|t| t.write_pages > 0)
            .map(|t| {
                let period =
                    SimTime::from_secs_f64(crate::rt::rtgc::gc_task_ms(&c, t).1 / 1e3).max(SimTime(1));
                GcTask { period, next: period }
            })
            .collect();
        let epoch = tasks.iter().map(|t| t.period).min();
        let dies = g.dies_channel_first();
        Ok(Rtgc {
            config,
            cursors: vec![RoundRobin::new(dies); ctx.namespace_units.len()],
            n_dies: g.n_dies,
            pages_per_block: g.pages_per_block,
            tasks,
            epoch,
            releases: 0,
            test_total: test.total(),
        })
    }
}

impl Scheme for Rtgc {
    fn name(&self) -> &'static str {
        "rtgc"
    }

    fn interests(&self) -> Interests {
        Interests::NONE
    }

    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursors[tenant as usize].next_die()
    }

    /// Copies stay on the victim's die (`gc_write_die`'s default), for the whole block.
    fn gc_block_die(&self, _owner: u16, victim_die: DieIdx) -> Option<DieIdx> {
        Some(victim_die)
    }

    fn epoch(&self) -> Option<SimTime> {
        self.epoch
    }

    /// Every GC task due releases a job: one victim collected on every die.
    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let mut due = 0;
        for t in &mut self.tasks {
            while t.next <= view.now {
                t.next += t.period;
                due += 1;
            }
        }
        for _ in 0..due {
            self.releases += 1;
            cmds.extend(
                (0..self.n_dies).map(|d| Command::StepGc { die: DieIdx(d), pages: self.pages_per_block }),
            );
        }
    }

    fn counters(&self, out: &mut crate::policy::Counters) {
        out.push(("gc_task_releases", self.releases as f64));
        out.push(("gc_tasks", self.tasks.len() as f64));
        out.push(("admission_total", self.test_total));
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}
