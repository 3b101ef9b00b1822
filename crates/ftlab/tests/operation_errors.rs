//! The typed errors of the operations other than the trace parsers (`trace_errors.rs`) and
//! the run (`host.rs`: out of space; `simulation/watchdog_tests.rs`: no progress): the real-time
//! task files (`RtError`), the lifetime model's inputs (`LifetimeError`), and the Python class
//! each `FtlabError` maps to (`FtlabError::kind`). Expected fields are worked out from the
//! inputs written here (a line number, a key path), not read from the code under test.

use ftlab::error::{LifetimeError, RtError, TaskProblem};
use ftlab::{lifetime, rt_admit, FtlabError};

const PERIOD_MS_MAX: f64 = 1e10;

/// (task file, the error's key, the problem).
fn task_cases() -> Vec<(&'static str, &'static str, TaskProblem)> {
    vec![
        ("[[tasks]]\nread_pages = 3\nread_period_ms = -1.0\n", "tasks.0.read_period_ms", {
            TaskProblem::PeriodOutOfRange { ms: -1.0, max_ms: PERIOD_MS_MAX }
        }),
        ("[[tasks]]\nread_pages = 3\n", "tasks.0.read_period_ms", TaskProblem::PeriodMissing),
        (
            "[[tasks]]\nwrite_period_ms = 5.0\nread_pages = 1\nread_period_ms = 2.0\n",
            "tasks.0.write_period_ms",
            { TaskProblem::PeriodWithoutPages },
        ),
        ("[[tasks]]\nname = \"idle\"\n", "tasks.0.read_pages", TaskProblem::NoPages),
        ("tasks = []\n", "tasks", TaskProblem::Count { found: 0, max: 1024 }),
    ]
}

#[test]
fn task_files_fail_with_the_key_and_the_problem() {
    for (text, key, problem) in task_cases() {
        let want = RtError::Task { file: "t.toml".into(), key: key.into(), problem };
        match rt_admit(text, "t.toml", "part-ftl") {
            Err(FtlabError::Rt(e)) => assert_eq!(e, want, "{text:?}"),
            other => panic!("{text:?}: expected {want:?}, got {other:?}"),
        }
    }
    // An unknown key is the schema's problem, at its key path (serde_path_to_error's notation,
    // which indexes arrays in brackets and names the unknown key).
    match rt_admit("[[tasks]]\nread_pagez = 1\n", "t.toml", "part-ftl") {
        Err(FtlabError::Rt(RtError::Task { key, problem: TaskProblem::Schema { reason }, .. })) => {
            assert_eq!(key, "tasks[0].read_pagez");
            assert!(reason.contains("read_pagez"), "{reason}");
        }
        other => panic!("expected a schema problem, got {other:?}"),
    }
}

#[test]
fn a_task_file_that_is_not_toml_names_its_line() {
    // The value of line 3 is missing.
    let e = rt_admit("[[tasks]]\nread_pages = 3\nread_period_ms = \n", "t.toml", "part-ftl").unwrap_err();
    let FtlabError::Rt(RtError::Syntax { ref file, line, .. }) = e else { panic!("{e:?}") };
    assert_eq!((file.as_str(), line), ("t.toml", 3));
    assert!(e.to_string().starts_with("t.toml:3:"), "{e}");
    assert_eq!(e.kind(), "RtError");
}

#[test]
fn a_malformed_lifetime_input_names_its_file_and_line() {
    // summary.json: line 2 holds the stray comma.
    let e = lifetime("{\n ,}", "", "flashblox", 1.0).unwrap_err();
    let FtlabError::Lifetime(LifetimeError::Malformed { ref file, line, .. }) = e else { panic!("{e:?}") };
    assert_eq!((file.as_str(), line), ("summary.json", 2));
    assert_eq!(e.kind(), "LifetimeError");
    // A summary without the scheme.
    let e = lifetime("{\"schemes\": {}}", "", "unified", 1.0).unwrap_err();
    let want = LifetimeError::Missing {
        file: "summary.json".into(),
        key: "schemes.unified".into(),
        what: "no such scheme in this run".into(),
    };
    assert_eq!(e, FtlabError::Lifetime(want));
    assert_eq!(e.to_string(), "summary.json: schemes.unified: no such scheme in this run");
    // A channel without its erase rate.
    let summary = r#"{"schemes": {"unified": {"device": {"pe_cycles": 3000}, "channels": [{"blocks": 8}]}}}"#;
    let e = lifetime(summary, "", "unified", 1.0).unwrap_err();
    let FtlabError::Lifetime(LifetimeError::Missing { key, .. }) = e else { panic!("{e:?}") };
    assert_eq!(key, "schemes.unified.channels.0.erase_count_max_start");
}

#[test]
fn a_malformed_resolved_scenario_names_its_line() {
    // FlashBlox reads its swap rule from the resolved scenario: line 2 is not TOML.
    let summary = r#"{"schemes": {"flashblox": {"device": {"pe_cycles": 3000}, "channels": []}}}"#;
    let e = lifetime(summary, "name = \"x\"\n[scheme.flashblox\n", "flashblox", 1.0).unwrap_err();
    let FtlabError::Lifetime(LifetimeError::Malformed { ref file, line, .. }) = e else { panic!("{e:?}") };
    assert_eq!((file.as_str(), line), ("scenario.resolved.toml", 2));
    assert!(!e.to_string().contains('\n'), "one line: {e}");
}

#[test]
fn usage_errors_stay_usage_errors() {
    let e = lifetime("{}", "", "unified", -1.0).unwrap_err();
    assert!(matches!(&e, FtlabError::Usage { arg, .. } if arg == "--horizon-days"), "{e:?}");
    assert_eq!(e.kind(), "UsageError");
    let e = ftlab::rt_schedulability(1, 1, 2.0).unwrap_err();
    assert_eq!(
        e,
        FtlabError::Usage { arg: "--read-share".into(), reason: "must be in [0, 1], got 2".into() }
    );
}
