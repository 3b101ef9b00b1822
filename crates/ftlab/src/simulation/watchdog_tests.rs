//! Unit tests of the run loop's progress watchdog (`Engine::watchdog`, `progress`): it fires when its
//! event bound passes with requests outstanding, and its error says what waited. The bound is
//! set here far below its real value (`WATCHDOG_EVENTS_FLOOR` and per page) so that an ordinary
//! run trips it; no scenario key sets it.

use crate::error::{FtlabError, RunError};
use std::path::Path;

const SCENARIO: &str = r#"seed = 1
schemes = ["unified"]
[device]
preset = "tiny"
[[tenants]]
name = "a"
namespace_fraction = 0.5
queue_depth = 1
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
sizes = [{ bytes = 4096, weight = 1.0 }]
arrival = "closed"
requests = 100
"#;

fn simulation() -> super::Simulation<'static> {
    let s = crate::scenario::load(SCENARIO, "w.toml", &[], None).expect("loads");
    crate::api::build_simulation(&s, "unified", Path::new("."), "w.toml").expect("builds")
}

#[test]
fn the_real_bound_lets_an_ordinary_run_finish() {
    let mut sim = simulation();
    // 16 x 16384 flash pages + 2^22 (tiny: 4 dies x 64 blocks x 64 pages).
    assert_eq!(sim.progress_mut().watchdog_events, 16 * 16_384 + (1 << 22));
    sim.run(&mut |_| {}).expect("runs");
}

#[test]
fn a_run_past_the_bound_with_a_request_outstanding_ends_with_the_error() {
    let mut sim = simulation();
    // The first event (tenant a's arrival) submits a write; a write completes events later.
    sim.progress_mut().watchdog_events = 0;
    match sim.run(&mut |_| {}) {
        Err(FtlabError::Run(RunError::NoProgress { from_ns, waiting, events, bound, reason, .. })) => {
            assert_eq!((from_ns, waiting, events, bound), (0, vec!["a".to_string()], 1, 0));
            assert!(
                reason.contains("made no progress from 0.000000 s")
                    && reason.contains(": 1 requests of a outstanding, and"),
                "{reason}"
            );
            assert!(reason.contains("in 1 events (bound 0)"), "{reason}");
        }
        other => panic!("expected the watchdog's error, got {other:?}"),
    }
}

/// A scheme whose admission holds every write for ever (1 ms at a time), placing on die 0.
struct HoldsWrites;

impl crate::scheme::Scheme for HoldsWrites {
    fn name(&self) -> &'static str {
        "holds-writes"
    }

    fn host_write_die(
        &mut self,
        _: u16,
        _: u8,
        _: &crate::policy::DeviceView,
    ) -> crate::flash::geometry::DieIdx {
        crate::flash::geometry::DieIdx(0)
    }

    fn admit(
        &mut self,
        _: u16,
        _: crate::workload::IoOp,
        view: &crate::policy::DeviceView,
    ) -> crate::scheme::Admission {
        crate::scheme::Admission::Defer(view.now + crate::sim::time::SimTime::from_ns(1_000_000))
    }

    fn resolved_config(&self) -> toml::Table {
        toml::Table::new()
    }
}

/// A write held by the scheme's admission at every poll is not an idle gap: with the real
/// bounds the run ends with the watchdog's error once 600 simulated seconds pass (about
/// 600,000 deferrals; the event bound, 4.4 million, is further), naming the held request.
/// Before, with nothing outstanding, the watchdog started over each time and the run never
/// ended (soak seed 76, part-ftl).
#[test]
fn a_run_whose_writes_are_held_for_ever_ends_with_the_error() {
    let s = crate::scenario::load(SCENARIO, "w.toml", &[], None).expect("loads");
    let mut sim = crate::api::build_simulation_with(&s, Box::new(HoldsWrites), Path::new("."), "w.toml")
        .expect("builds");
    match sim.run(&mut |_| {}) {
        Err(FtlabError::Run(RunError::NoProgress { from_ns, at_ns, waiting, erases, reason, .. })) => {
            assert_eq!((from_ns, at_ns, erases), (0, 600_001_000_000, 0));
            assert_eq!(waiting, ["a"]);
            assert!(reason.contains("made no progress from 0.000000 s to 600.001000 s"), "{reason}");
            assert!(reason.contains(": a's next request held by the scheme's admission, and in"), "{reason}");
        }
        other => panic!("expected the watchdog's error, got {other:?}"),
    }
}
