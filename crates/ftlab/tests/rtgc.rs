//! Tests of the `rtgc` scheme (RTGC's periodic GC tasks paired with the write tasks, as the
//! PaRT-FTL paper describes it, §IV; the task model is `rt::rtgc`'s reconstruction): GC jobs
//! are released at the GC tasks' periods and collect on every die, a set failing RTGC's test is
//! refused with its terms unless `admission = "report"`, and the integrity oracle holds.

use crate::common;

use common::{run, run_raw};
use ftlab::FtlabError;

/// The `cosmos` board with 64 blocks per die, EDF, GC only in the periodic jobs (and the
/// engine's safety net), one tenant with `tasks`.
fn scenario(tasks: &str, admission: &str, duration_s: f64) -> String {
    format!(
        "seed = 5\nschemes = [\"rtgc\"]\n[device]\npreset = \"cosmos\"\nblocks_per_plane = \
         64\n[ftl]\nscheduler = \"edf\"\nbackground_gc = false\n[check]\nintegrity = \
         true\n[precondition]\nfill_fraction = 1.0\noverwrite_passes = 0.5\n[measure]\nduration_s = \
         {duration_s:.1}\n[scheme.rtgc]\nadmission = \"{admission}\"\n[[tenants]]\nname = \
         \"rt\"\nnamespace_fraction = 1.0\nqueue_depth = 64\n[tenants.periodic]\ntasks = [{tasks}]\n"
    )
}

/// One writer of 12 pages every 60 ms and one reader of 3 pages every 15 ms (Table III's
/// tasks, one of each): GC tasks are released about every T^G, and each release asks every one
/// of the 16 dies for a collection.
#[test]
fn gc_jobs_are_released_at_the_gc_period_on_every_die() {
    let tasks = concat!(
        r#"{ name = "w", op = "write", pages = 12, period_ms = 60.0 }, { name = "r", op = "read", pages = "#,
        r#"3, period_ms = 15.0 }"#,
    );
    // T^G = T^w · ⌊α / w⌋ (rt::rtgc::gc_task_ms) with α = 16 dies × (256 − ⌈σ·256⌉) pages and
    // σ = 1/2.075 = 0.482 (the preset's 48.2% for data): ⌈123.4⌉ = 124, α = 16 × 132 = 2112,
    // ⌊2112 / 12⌋ = 176, T^G = 60 ms × 176 = 10.56 s. A 12 s run releases exactly one job
    // (at 10.56 s); a 10 s run none.
    for (duration_s, releases) in [(12.0, 1.0), (10.0, 0.0)] {
        let s = run(&scenario(tasks, "report", duration_s), &[]);
        let p = &s["schemes"]["rtgc"];
        let c = &p["scheme_counters"];
        assert_eq!(c["gc_tasks"].as_f64(), Some(1.0), "{c}");
        assert_eq!(c["gc_task_releases"].as_f64(), Some(releases), "{duration_s} s: {c}");
        assert!(p["device"]["integrity_checks"].as_f64().unwrap() > 0.0);
    }
}

/// 40-page writers every 2 ms: the GC period shrinks to T^w / ⌈w/α⌉ or T^w · ⌊α/w⌋, small
/// enough that jobs are released within the run; every release asks 16 dies to collect.
#[test]
fn heavy_writers_get_gc_jobs_within_the_run() {
    let tasks = concat!(
        r#"{ name = "w0", op = "write", pages = 40, period_ms = 2.0 }, { name = "w1", op = "write", pages "#,
        r#"= 40, period_ms = 2.0, offset_ms = 1.0 }"#,
    );
    let s = run(&scenario(tasks, "report", 3.0), &[]);
    let p = &s["schemes"]["rtgc"];
    let c = &p["scheme_counters"];
    let releases = c["gc_task_releases"].as_f64().unwrap();
    assert!(releases > 0.0, "no GC job released: {c}");
    let steps = p["jobs"]["gc_steps"].as_f64().unwrap();
    assert!(steps >= 16.0 * releases, "each release asks all 16 dies: {steps} steps for {releases} releases");
}

#[test]
fn a_set_failing_rtgcs_test_is_refused_with_its_terms() {
    let tasks = r#"{ name = "big", op = "read", pages = 64, period_ms = 10.0 }"#;
    match run_raw(&scenario(tasks, "enforce", 1.0), &[]) {
        Err(FtlabError::Config { key, reason, .. }) => {
            assert_eq!(key, "scheme.rtgc.admission");
            assert!(
                reason.contains("RTGC")
                    && reason.contains("C_0^r / T_0^r")
                    && reason.contains("admission = \"report\""),
                "{reason}"
            );
        }
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
    let s = run(&scenario(tasks, "report", 1.0), &[]);
    assert!(s["schemes"]["rtgc"]["scheme_counters"]["admission_total"].as_f64().unwrap() > 1.0);
}
