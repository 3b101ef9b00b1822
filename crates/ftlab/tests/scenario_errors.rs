//! Bad scenario input gets a precise error and never a panic.
//!
//! Data-driven: every case is one change (a line of TOML, a replaced line or a `--set`
//! override) to a small valid base scenario (the `tiny` device, two synthetic tenants), and
//! one helper, `check`, loads it (or runs it, for errors that only show when files are
//! opened) and compares the outcome with the expectation: the error variant, the key path and
//! fragments of the reason (the allowed range or what was expected, and the value given).
//! A panic is caught and reported as a failure of its case. Each test runs a table of cases
//! and reports every failing case at once.
//!
//! Key paths have one spelling: errors found by the schema (serde: unknown keys, wrong types,
//! missing fields) and errors found by validation both use dots (`tenants.0.foo`,
//! `tenants.0.queue_depth`), the spelling `--set` accepts.

use ftlab::error::TraceError;
use ftlab::internals::scenario;
use ftlab::internals::scenario::presets;
use ftlab::{run_scenario, FtlabError, Place, RunOptions, Scenario, ScenarioSource};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------
// The base scenario and how a case changes it.

/// A valid scenario: the `tiny` preset (4 dies of 64 blocks x 64 pages of 4 KiB, 25%
/// over-provisioning: 13107 logical units), two synthetic tenants of 40% each, no
/// preconditioning. `#name` lines are insertion points for `Case::at`.
const BASE: &str = r#"name = "errors"
seed = 7
schemes = ["unified"]
#top
[device]
preset = "tiny"
#device
[device.timing]
#timing
[ftl]
#ftl
[precondition]
fill_fraction = 0.0
#precondition
[measure]
#measure
[check]
#check
[[tenants]]
name = "web"
namespace_fraction = 0.4
#tenant0
[tenants.synthetic]
read_ratio = 0.5
requests = 200
#synthetic0
[[tenants]]
name = "db"
namespace_fraction = 0.4
#tenant1
[tenants.synthetic]
pattern = "zipf"
requests = 200
#synthetic1
#end
"#;

/// The device of `tiny`, key by key (for the cases without a preset).
const TINY_DEVICE: &[(&str, &str)] = &[
    ("channels", "2"),
    ("chips_per_channel", "2"),
    ("dies_per_chip", "1"),
    ("planes_per_die", "1"),
    ("blocks_per_plane", "64"),
    ("pages_per_block", "64"),
    ("page_bytes", "4096"),
    ("mapping_unit_bytes", "4096"),
    ("over_provisioning", "0.25"),
    ("timing.read_us", "25.0"),
    ("timing.program_us", "200.0"),
    ("timing.erase_us", "1500.0"),
    ("timing.channel_mts", "333"),
    ("timing.channel_width_bits", "8"),
];

/// How a case is evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// `scenario::load` (parse, overrides, schema, validation).
    Load,
    /// `api::run_scenario` end to end: errors that show when trace files are opened.
    Run,
}

/// One input: scenario text, `--set` overrides and an optional seed override.
#[derive(Clone, Debug)]
struct Case {
    text: String,
    overrides: Vec<String>,
    seed: Option<u64>,
    mode: Mode,
}

fn base() -> Case {
    Case { text: BASE.to_string(), overrides: Vec::new(), seed: None, mode: Mode::Load }
}

/// The base with one tenant (`web`, 40%) only.
fn one_tenant() -> Case {
    let start = BASE.find("[[tenants]]\nname = \"db\"").unwrap();
    let end = BASE.find("#end").unwrap();
    Case { text: format!("{}{}", &BASE[..start], &BASE[end..]), ..base() }
}

/// The base with tenant 0 replaying a trace (`path` relative to the run's base dir).
fn trace_tenant(path: &str, format: &str) -> Case {
    base().replace(
        "[tenants.synthetic]\nread_ratio = 0.5\nrequests = 200\n#synthetic0",
        &format!("[tenants.trace]\npath = {path:?}\nformat = {format:?}\n#trace0"),
    )
}

/// The base without a preset: every device key written out.
fn no_preset() -> Case {
    let mut device = String::new();
    let mut timing = String::new();
    for (k, v) in TINY_DEVICE {
        match k.strip_prefix("timing.") {
            Some(t) => timing += &format!("{t} = {v}\n"),
            None => device += &format!("{k} = {v}\n"),
        }
    }
    base().replace("preset = \"tiny\"\n", &device).at("timing", timing.trim_end())
}

impl Case {
    /// Insert `line` at the `#marker` line (which stays, for further insertions).
    fn at(mut self, marker: &str, line: &str) -> Case {
        let m = format!("#{marker}\n");
        assert!(self.text.contains(&m), "no marker {m:?}");
        self.text = self.text.replacen(&m, &format!("{line}\n{m}"), 1);
        self
    }

    /// Replace the only occurrence of `old`.
    fn replace(mut self, old: &str, new: &str) -> Case {
        assert_eq!(self.text.matches(old).count(), 1, "{old:?} must occur once in:\n{}", self.text);
        self.text = self.text.replacen(old, new, 1);
        self
    }

    /// Add a `--set` override.
    fn set(mut self, o: &str) -> Case {
        self.overrides.push(o.to_string());
        self
    }

    fn seed(mut self, seed: u64) -> Case {
        self.seed = Some(seed);
        self
    }

    fn run(mut self) -> Case {
        self.mode = Mode::Run;
        self
    }

    /// 1-based line of the first line of the text containing `needle`.
    fn line_of(&self, needle: &str) -> u64 {
        let at = self.text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
        self.text[..at].matches('\n').count() as u64 + 1
    }
}

// ---------------------------------------------------------------------------------------
// Expectations and the check.

/// What a case must produce. Reason fragments must all occur in the error's reason.
#[derive(Clone, Debug)]
enum Expect {
    /// `FtlabError::Config` with exactly this key, from file `test.toml`, and this place if
    /// one is given.
    Config(String, Vec<String>, Option<Place>),
    /// `FtlabError::Syntax` at this 1-based line (and column, if given), from `test.toml`.
    Syntax(u64, Option<u64>, Vec<String>),
    /// `FtlabError::Io` whose path ends with the first string.
    Io(String, Vec<String>),
    /// `FtlabError::Trace` whose file ends with the first string, at this line.
    Trace(String, u64, Vec<String>),
}

fn config(key: &str, reason: &[&str]) -> Expect {
    Expect::Config(key.to_string(), reason.iter().map(|s| s.to_string()).collect(), None)
}

/// A config error whose key is written at `line`:`column` of the text.
fn config_at(key: &str, (line, column): (u64, u64), reason: &[&str]) -> Expect {
    Expect::Config(
        key.to_string(),
        reason.iter().map(|s| s.to_string()).collect(),
        Some(Place::At { line, column }),
    )
}

/// A config error caused by the `--set` override `assignment`.
fn config_set(key: &str, assignment: &str, reason: &[&str]) -> Expect {
    Expect::Config(
        key.to_string(),
        reason.iter().map(|s| s.to_string()).collect(),
        Some(Place::Set(assignment.into())),
    )
}

fn syntax(line: u64, reason: &[&str]) -> Expect {
    Expect::Syntax(line, None, reason.iter().map(|s| s.to_string()).collect())
}

fn syntax_at(line: u64, column: u64, reason: &[&str]) -> Expect {
    Expect::Syntax(line, Some(column), reason.iter().map(|s| s.to_string()).collect())
}

fn outcome(case: &Case) -> std::thread::Result<Result<Option<Scenario>, FtlabError>> {
    catch_unwind(AssertUnwindSafe(|| match case.mode {
        Mode::Load => scenario::load(&case.text, "test.toml", &case.overrides, case.seed).map(Some),
        Mode::Run => {
            let source = ScenarioSource::Text {
                text: case.text.clone(),
                base_dir: temp_dir(),
                name: "test.toml".into(),
            };
            let opts = RunOptions { seed: case.seed, overrides: case.overrides.clone(), jobs: None };
            run_scenario(&source, &opts, &mut |_| {}).map(|_| None)
        }
    }))
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn reason_has(reason: &str, fragments: &[String]) -> Result<(), String> {
    match fragments.iter().find(|f| !reason.contains(f.as_str())) {
        Some(f) => Err(format!("reason {reason:?} lacks {f:?}")),
        None => Ok(()),
    }
}

/// Evaluate `case` and compare with `expected`.
fn check(case: &Case, expected: &Expect) -> Result<(), String> {
    let got = match outcome(case) {
        Err(p) => return Err(format!("PANICKED: {}", panic_message(&*p))),
        Ok(Ok(_)) => return Err("accepted, expected an error".into()),
        Ok(Err(e)) => e,
    };
    let fail = |why: String| Err(format!("{why}; got {got:?}"));
    // No message starts with a blank line (or any space) or ends with a line break.
    let shown = got.to_string();
    if shown.starts_with(char::is_whitespace) || shown.ends_with('\n') {
        return fail(format!("message {shown:?} starts with a space or ends with a line break"));
    }
    match (expected, &got) {
        (Expect::Config(key, frags, place), FtlabError::Config { file, key: k, reason, place: p }) => {
            if file != "test.toml" {
                return fail(format!("file {file:?}, expected \"test.toml\""));
            }
            if k != key {
                return fail(format!("key {k:?}, expected {key:?}"));
            }
            if place.as_ref().is_some_and(|place| place != p) {
                return fail(format!("place {p:?}, expected {place:?}"));
            }
            reason_has(reason, frags).or_else(fail)
        }
        (Expect::Syntax(line, column, frags), FtlabError::Syntax { file, line: l, column: c, reason }) => {
            if file != "test.toml" || l != line || column.is_some_and(|column| column != *c) {
                return fail(format!("at {file}:{l}:{c}, expected test.toml:{line}:{column:?}"));
            }
            reason_has(reason, frags).or_else(fail)
        }
        (Expect::Io(path, frags), FtlabError::Io { path: p, reason }) => {
            if !p.ends_with(path.as_str()) {
                return fail(format!("path {p:?} does not end with {path:?}"));
            }
            reason_has(reason, frags).or_else(fail)
        }
        (Expect::Trace(file, line, frags), FtlabError::Trace(e)) => {
            let TraceError { file: f, line: l, kind } = e.as_ref();
            if !f.ends_with(file.as_str()) || l != line {
                return fail(format!("at {f}:{l}, expected {file}:{line}"));
            }
            reason_has(&kind.to_string(), frags).or_else(fail)
        }
        _ => fail(format!("wrong variant, expected {expected:?}")),
    }
}

/// Check every case of a table; fail with the list of the cases that failed.
fn check_all(cases: Vec<(String, Case, Expect)>) {
    assert!(!cases.is_empty());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(name, case, expected)| {
            check(case, expected)
                .err()
                .map(|why| format!("- {name}: {why}\n  overrides: {:?}", case.overrides))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Load `case`, which must be accepted.
fn load_ok(case: &Case) -> Scenario {
    match outcome(case) {
        Err(p) => panic!("PANICKED: {}\n{}", panic_message(&*p), case.text),
        Ok(Err(e)) => panic!("rejected: {e}\noverrides: {:?}\n{}", case.overrides, case.text),
        Ok(Ok(s)) => s.expect("load mode"),
    }
}

/// A per-process scratch directory for trace files and runs.
fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ftlab-scenario-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `(name, case, expectation)` rows, the name defaulting to the change made.

// ---------------------------------------------------------------------------------------
// Positive cases: the base and its variants load.

#[test]
fn base_scenarios_are_valid() {
    for case in [base(), one_tenant(), no_preset()] {
        let s = load_ok(&case);
        assert_eq!(s.device.geometry.channels, 2);
        // Resolved defaults: command_ns 0, watermarks max(reserve + 4, 64 / 100) and 2x that.
        assert_eq!(s.device.timing.command_ns, 0);
        assert_eq!(s.ftl.gc_low_watermark_blocks, 6);
        assert_eq!(s.ftl.gc_high_watermark_blocks, 12);
    }
    let s = load_ok(&base());
    assert_eq!(s.logical_units(), 13107);
    assert_eq!(s.namespace_units(), vec![5242, 5242]);
    // The bundled default scenario loads too.
    load_ok(&Case { text: ftlab::default_scenario_toml().into(), ..base() });
}

#[test]
fn every_preset_loads_with_its_values() {
    for &name in presets::PRESETS {
        let p = presets::preset(name).expect("listed preset exists");
        let s = load_ok(&base().replace("preset = \"tiny\"", &format!("preset = {name:?}")));
        let (d, g) = (&s.device, &s.device.geometry);
        assert_eq!(d.preset.as_deref(), Some(name));
        assert_eq!(
            (
                Some(g.channels),
                Some(g.chips_per_channel),
                Some(g.dies_per_chip),
                Some(g.planes_per_die),
                Some(g.blocks_per_plane),
                Some(g.pages_per_block)
            ),
            (
                p.channels,
                p.chips_per_channel,
                p.dies_per_chip,
                p.planes_per_die,
                p.blocks_per_plane,
                p.pages_per_block
            ),
            "{name}"
        );
        assert_eq!(
            (Some(g.page_bytes), Some(g.unit_bytes), Some(d.over_provisioning)),
            (p.page_bytes, p.mapping_unit_bytes, p.over_provisioning)
        );
        let (t, pt) = (&d.timing, &p.timing);
        assert_eq!(
            (Some(t.read_us), Some(t.program_us), Some(t.erase_us)),
            (pt.read_us, pt.program_us, pt.erase_us),
            "{name}"
        );
        assert_eq!(
            (Some(t.command_ns), Some(t.channel_mts), Some(t.channel_width_bits)),
            (pt.command_ns, pt.channel_mts, pt.channel_width_bits)
        );
    }
    // A key set next to a preset wins over the preset's value.
    let s = load_ok(&base().at("device", "channels = 4").at("timing", "read_us = 60.0"));
    assert_eq!(
        (s.device.geometry.channels, s.device.geometry.chips_per_channel, s.device.timing.read_us),
        (4, 2, 60.0)
    );
}

#[test]
fn overrides_that_work() {
    let s = load_ok(&base().set("tenants.web.queue_depth=7"));
    assert_eq!((s.tenants[0].queue_depth, s.tenants[1].queue_depth), (7, 32));
    let s = load_ok(&base().set("tenants.0.queue_depth=7"));
    assert_eq!((s.tenants[0].queue_depth, s.tenants[1].queue_depth), (7, 32));
    let s = load_ok(&base().set("tenants.db.synthetic.read_ratio=0.25").set("tenants.1.start_s=2"));
    assert_eq!((s.tenants[1].synthetic().unwrap().read_ratio, s.tenants[1].start_s), (0.25, 2.0));
    // An element of a nested array that exists in the text.
    let s = load_ok(
        &base().at("synthetic1", "sizes = [{ bytes = 4096 }]").set("tenants.db.synthetic.sizes.0.bytes=8192"),
    );
    assert_eq!(s.tenants[1].synthetic().unwrap().sizes[0].bytes, 8192);
    // A bare word is a string; a preset key overridden over the preset; overrides in order.
    let s = load_ok(&base().set("device.preset=mqsim").set("device.channels=8").set("device.channels=2"));
    assert_eq!(
        (s.device.preset.as_deref(), s.device.geometry.channels, s.device.geometry.blocks_per_plane),
        (Some("mqsim"), 2, 1024)
    );
    // Missing tables are created; whole arrays replaced.
    let s = load_ok(
        &base()
            .set("schemes=[\"unified\", \"partitioned\"]")
            .set("scheme.partitioned.by=die")
            .set("ftl.gc_reserve_blocks=3"),
    );
    assert_eq!(s.schemes, ["unified", "partitioned"]);
    assert_eq!(s.scheme["partitioned"]["by"].as_str(), Some("die"));
    assert_eq!(s.scheme["partitioned"]["shares"].as_array().map(Vec::len), Some(2));
    assert_eq!(s.ftl.gc_reserve_blocks, 3);
    // Spaces around the parts are trimmed.
    let s = load_ok(&base().set(" tenants . web . queue_depth = 9 "));
    assert_eq!(s.tenants[0].queue_depth, 9);
}

#[test]
fn seed_override() {
    assert_eq!(load_ok(&base()).seed, 7);
    assert_eq!(load_ok(&base().seed(99)).seed, 99);
    assert_eq!(load_ok(&base().set("seed=5")).seed, 5);
    // The seed option is applied after the overrides: it wins.
    assert_eq!(load_ok(&base().set("seed=5").seed(99)).seed, 99);
    // Without `seed` in the text the default is 1.
    assert_eq!(load_ok(&base().replace("seed = 7\n", "")).seed, 1);
}

#[test]
fn resolved_scenario_reloads_to_itself() {
    let s = load_ok(&base().set("schemes=[\"unified\", \"partitioned\"]"));
    let resolved = scenario::to_toml(&s);
    let again = load_ok(&Case { text: resolved.clone(), ..base() });
    assert_eq!(scenario::to_toml(&again), resolved);
    // Every default is written out.
    for key in [
        "gc_low_watermark_blocks = 6",
        "gc_high_watermark_blocks = 12",
        "command_ns = 0",
        "queue_depth = 32",
        "shares = [",
        "[stream.legacy]",
    ] {
        assert!(resolved.contains(key), "resolved scenario lacks {key:?}:\n{resolved}");
    }
}

// ---------------------------------------------------------------------------------------
// Unknown keys, wrong types, missing fields (the schema).

#[test]
fn unknown_keys_are_rejected_with_their_path() {
    check_all(vec![
        (
            "top level".to_string(),
            base().at("top", "bogus = 1"),
            config("bogus", &["unknown field `bogus`", "expected one of", "`device`"]),
        ),
        (
            "[device]".to_string(),
            base().at("device", "chanels = 4"),
            config("device.chanels", &["unknown field `chanels`", "`channels`"]),
        ),
        (
            "[device.timing]".to_string(),
            base().at("timing", "read_ns = 4"),
            config("device.timing.read_ns", &["unknown field `read_ns`", "`read_us`"]),
        ),
        (
            "[ftl]".to_string(),
            base().at("ftl", "gc_low_watermark = 4"),
            config(
                "ftl.gc_low_watermark",
                &["unknown field `gc_low_watermark`", "`gc_low_watermark_blocks`"],
            ),
        ),
        (
            "[[tenants]] 0".to_string(),
            base().at("tenant0", "qd = 4"),
            config("tenants.0.qd", &["unknown field `qd`", "`queue_depth`"]),
        ),
        (
            "[[tenants]] 1".to_string(),
            base().at("tenant1", "weight = 4"),
            config("tenants.1.weight", &["unknown field `weight`"]),
        ),
        (
            "[tenants.synthetic]".to_string(),
            base().at("synthetic1", "theta = 0.9"),
            config("tenants.1.synthetic.theta", &["unknown field `theta`", "`zipf_theta`"]),
        ),
        (
            "[tenants.trace]".to_string(),
            trace_tenant("t.csv", "msr").at("trace0", "scale = 2"),
            config("tenants.0.trace.scale", &["unknown field `scale`", "`time_scale`"]),
        ),
        (
            "[precondition]".to_string(),
            base().at("precondition", "fill = 1"),
            config("precondition.fill", &["unknown field `fill`", "`fill_fraction`"]),
        ),
        (
            "[measure]".to_string(),
            base().at("measure", "duration = 1"),
            config("measure.duration", &["unknown field `duration`", "`duration_s`"]),
        ),
        (
            "[check]".to_string(),
            base().at("check", "oracle = true"),
            config("check.oracle", &["unknown field `oracle`", "`integrity`"]),
        ),
        (
            "[scheme.partitioned]".to_string(),
            base()
                .replace("schemes = [\"unified\"]", "schemes = [\"partitioned\"]")
                .at("end", "[scheme.partitioned]\nshare = [1, 1]"),
            config("scheme.partitioned.share", &["unknown field `share`", "`shares`"]),
        ),
        (
            "[scheme.unified]".to_string(),
            base().at("end", "[scheme.unified]\nby = \"die\""),
            config("scheme.unified.by", &["unknown field `by`", "no fields"]),
        ),
        (
            "[stream.legacy]".to_string(),
            base().at("end", "[stream.legacy]\nstreams = 2"),
            config("stream.legacy.streams", &["unknown field `streams`", "no fields"]),
        ),
        (
            "--set of an unknown [device] key".to_string(),
            base().set("device.chanels=4"),
            config("device.chanels", &["unknown field `chanels`"]),
        ),
        (
            "--set of an unknown tenant key by name".to_string(),
            base().set("tenants.db.speed=3"),
            config("tenants.1.speed", &["unknown field `speed`"]),
        ),
        (
            "--set of an unknown synthetic key".to_string(),
            base().set("tenants.0.synthetic.theta=1"),
            config("tenants.0.synthetic.theta", &["unknown field `theta`"]),
        ),
        (
            "--set of an unknown top-level table".to_string(),
            base().set("devices.channels=4"),
            config("devices", &["unknown field `devices`"]),
        ),
    ]);
}

#[test]
fn wrong_types_and_missing_fields() {
    check_all(vec![
        (
            "channels a string".to_string(),
            base().at("device", "channels = \"four\""),
            config("device.channels", &["invalid type: string \"four\"", "expected u32"]),
        ),
        (
            "channels negative".to_string(),
            base().at("device", "channels = -2"),
            config("device.channels", &["-2", "expected u32"]),
        ),
        (
            "--set bare word where a number is expected".to_string(),
            base().set("device.channels=four"),
            config("device.channels", &["invalid type: string \"four\"", "expected u32"]),
        ),
        (
            "physical_streams beyond u8".to_string(),
            base().at("ftl", "physical_streams = 300"),
            config("ftl.physical_streams", &["300", "expected u8"]),
        ),
        ("negative seed".to_string(), base().set("seed=-1"), config("seed", &["-1", "expected u64"])),
        (
            "gc_policy".to_string(),
            base().at("ftl", "gc_policy = \"lru\""),
            config("ftl.gc_policy", &["unknown variant `lru`", "`greedy`", "`cost-benefit`"]),
        ),
        (
            "scheduler".to_string(),
            base().at("ftl", "scheduler = \"rr\""),
            config("ftl.scheduler", &["unknown variant `rr`", "`priority`", "`fifo`"]),
        ),
        (
            "pattern".to_string(),
            base().set("tenants.web.synthetic.pattern=pareto"),
            config("tenants.0.synthetic.pattern", &["unknown variant `pareto`", "`hotcold`"]),
        ),
        (
            "arrival".to_string(),
            base().set("tenants.web.synthetic.arrival=open"),
            config("tenants.0.synthetic.arrival", &["unknown variant `open`", "`closed`"]),
        ),
        (
            "trace format".to_string(),
            trace_tenant("t.csv", "csv"),
            config("tenants.0.trace.format", &["unknown variant `csv`", "`msr`"]),
        ),
        (
            "address_map".to_string(),
            trace_tenant("t.csv", "msr").at("trace0", "address_map = \"clip\""),
            config(
                "tenants.0.trace.address_map",
                &["unknown variant `clip`", "`wrap`", "`scale`", "`reject`"],
            ),
        ),
        (
            "replay".to_string(),
            trace_tenant("t.csv", "msr").at("trace0", "replay = \"open\""),
            config("tenants.0.trace.replay", &["unknown variant `open`", "`timed`", "`closed`"]),
        ),
        (
            "precondition order".to_string(),
            base().at("precondition", "order = \"reverse\""),
            config("precondition.order", &["unknown variant `reverse`", "`sequential`", "`random`"]),
        ),
        (
            "precondition overwrites".to_string(),
            base().at("precondition", "overwrites = \"closed\""),
            config("precondition.overwrites", &["unknown variant `closed`", "`simulate`", "`closed_form`"]),
        ),
        (
            "partitioned by".to_string(),
            base()
                .replace("schemes = [\"unified\"]", "schemes = [\"partitioned\"]")
                .set("scheme.partitioned.by=plane"),
            config("scheme.partitioned.by", &["unknown variant `plane`", "`channel`", "`die`"]),
        ),
        (
            "integrity not a bool".to_string(),
            base().at("check", "integrity = \"yes\""),
            config("check.integrity", &["invalid type", "expected a boolean"]),
        ),
        (
            "measure.solo not a bool".to_string(),
            base().at("measure", "solo = 1"),
            config("measure.solo", &["invalid type: integer `1`", "expected a boolean"]),
        ),
        (
            "--set measure.solo to a word".to_string(),
            base().set("measure.solo=yes"),
            config("measure.solo", &["invalid type: string \"yes\"", "expected a boolean"]),
        ),
        (
            "schemes not an array".to_string(),
            base().replace("schemes = [\"unified\"]", "schemes = \"unified\""),
            config("schemes", &["invalid type", "expected a sequence"]),
        ),
        (
            "no device table at all".to_string(),
            base().replace("[device]\npreset = \"tiny\"\n#device\n[device.timing]\n#timing\n", ""),
            config("device", &["missing field `device`"]),
        ),
        (
            "no tenants".to_string(),
            Case { text: "[device]\npreset = \"tiny\"\n".into(), ..base() },
            config("tenants", &["missing field `tenants`"]),
        ),
        (
            "tenant without a name".to_string(),
            base().replace("name = \"db\"\n", ""),
            config("tenants.1.name", &["missing field `name`"]),
        ),
        (
            "trace without a format".to_string(),
            base().replace(
                "[tenants.synthetic]\nread_ratio = 0.5\nrequests = 200\n",
                "[tenants.trace]\npath = \"t.csv\"\n",
            ),
            config("tenants.0.trace.format", &["missing field `format`"]),
        ),
        (
            "trace without a path".to_string(),
            base().replace(
                "[tenants.synthetic]\nread_ratio = 0.5\nrequests = 200\n",
                "[tenants.trace]\nformat = \"msr\"\n",
            ),
            config("tenants.0.trace.path", &["missing field `path`"]),
        ),
        (
            "size entry without bytes".to_string(),
            base().at("synthetic0", "sizes = [{ weight = 1.0 }]"),
            config("tenants.0.synthetic.sizes.0.bytes", &["missing field `bytes`"]),
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// [device] and [device.timing].

#[test]
fn device_keys_missing_without_a_preset() {
    let mut cases = Vec::new();
    for (k, v) in TINY_DEVICE {
        let line = format!("{} = {v}\n", k.trim_start_matches("timing."));
        cases.push((
            format!("without {k}"),
            no_preset().replace(&line, ""),
            config(&format!("device.{k}"), &["missing: set it or choose a device.preset"]),
        ));
    }
    check_all(cases);
}

#[test]
fn device_presets_and_geometry() {
    let mut cases = vec![
        (
            "unknown preset".to_string(),
            base().replace("preset = \"tiny\"", "preset = \"huge\""),
            config("device.preset", &["unknown preset \"huge\"", "known: tiny, upi, mqsim"]),
        ),
        (
            "unknown preset by --set".to_string(),
            base().set("device.preset=TINY"),
            config("device.preset", &["unknown preset \"TINY\""]),
        ),
        (
            "mapping unit below 512".to_string(),
            base().at("device", "mapping_unit_bytes = 256"),
            config("device.mapping_unit_bytes", &["must be a power of two >= 512, got 256"]),
        ),
        (
            "mapping unit not a power of two".to_string(),
            base().at("device", "mapping_unit_bytes = 3072\npage_bytes = 6144"),
            config("device.mapping_unit_bytes", &["must be a power of two >= 512, got 3072"]),
        ),
        (
            "page not a multiple of the unit".to_string(),
            base().at("device", "page_bytes = 6144"),
            config(
                "device.page_bytes",
                &["multiple of mapping_unit_bytes (4096)", "at most 16 units", "got 6144"],
            ),
        ),
        (
            "page of 17 units".to_string(),
            base().at("device", "page_bytes = 8704\nmapping_unit_bytes = 512"),
            config("device.page_bytes", &["at most 16 units", "got 8704"]),
        ),
        (
            "pages_per_block above 65536".to_string(),
            base().at("device", "pages_per_block = 65537"),
            config("device.pages_per_block", &["must be in [1, 65536], got 65537"]),
        ),
        (
            "4098 dies".to_string(),
            base().at("device", "channels = 2049"),
            config("device.channels", &["at most 4096 dies, got 4098"]),
        ),
        (
            "2^32 mapping units".to_string(),
            base().at("device", "blocks_per_plane = 16777216"),
            config("device.blocks_per_plane", &["4294967296 mapping units", "at most 4294967294"]),
        ),
        (
            "3 blocks per die".to_string(),
            base().at("device", "blocks_per_plane = 3"),
            config("device.blocks_per_plane", &["at least 4 blocks", "got 3"]),
        ),
        (
            "over_provisioning 0".to_string(),
            base().at("device", "over_provisioning = 0.0"),
            config(
                "device.over_provisioning",
                &["must be in (0, 4]", "(physical - logical) / logical", "got 0"],
            ),
        ),
        (
            "over_provisioning above 4".to_string(),
            base().at("device", "over_provisioning = 4.01"),
            config("device.over_provisioning", &["must be in (0, 4]", "got 4.01"]),
        ),
        (
            "over_provisioning NaN".to_string(),
            base().at("device", "over_provisioning = nan"),
            config("device.over_provisioning", &["must be in (0, 4]", "got NaN"]),
        ),
        // Two namespaces of floor(0.4 x 16384 / 1.25) = 5242 units: 10484; with 24 reserve blocks GC can
        // keep 4 x (64 - 24 - 1) x 64 = 9984 valid; it fits from 0.8 x 16384 / 9984 - 1 = 0.3128.
        (
            "namespaces over what GC keeps valid".to_string(),
            base().at("ftl", "gc_reserve_blocks = 24\ngc_high_watermark_blocks = 30"),
            config(
                "device.over_provisioning",
                &["the namespaces total 10484 mapping units, more than GC can keep valid: 4 dies x (64 \
                   blocks - 24 GC reserve (ftl.gc_reserve_blocks) - 1 block to reclaim) x 64 units = 9984; \
                   raise device.over_provisioning to at least 0.3128, or lower the namespaces or \
                   ftl.gc_reserve_blocks"],
            ),
        ),
        (
            "namespaces in GiB over what GC keeps valid".to_string(),
            one_tenant()
                .at("ftl", "gc_reserve_blocks = 24\ngc_high_watermark_blocks = 30")
                .replace("namespace_fraction = 0.4", "namespace_gib = 0.04"),
            config(
                "device.over_provisioning",
                &["more than GC can keep valid", "= 9984; lower the namespaces or ftl.gc_reserve_blocks"],
            ),
        ),
    ];
    for k in [
        "channels",
        "chips_per_channel",
        "dies_per_chip",
        "planes_per_die",
        "blocks_per_plane",
        "pages_per_block",
        "page_bytes",
        "mapping_unit_bytes",
    ] {
        cases.push((
            format!("{k} = 0"),
            base().at("device", &format!("{k} = 0")),
            config(&format!("device.{k}"), &["must be at least 1, got 0"]),
        ));
    }
    check_all(cases);
    // The edges just inside the ranges load.
    load_ok(&base().at("device", "over_provisioning = 4.0"));
    load_ok(&base().at("device", "channels = 2048"));
    load_ok(&base().at("device", "page_bytes = 8192\nmapping_unit_bytes = 512"));
}

#[test]
fn timing_ranges() {
    let mut cases = vec![
        (
            "channel_mts 0".to_string(),
            base().at("timing", "channel_mts = 0"),
            config("device.timing.channel_mts", &["must be in [1, 100000] MT/s, got 0"]),
        ),
        (
            "channel_mts above".to_string(),
            base().at("timing", "channel_mts = 100001"),
            config("device.timing.channel_mts", &["must be in [1, 100000] MT/s, got 100001"]),
        ),
        (
            "channel width 4".to_string(),
            base().at("timing", "channel_width_bits = 4"),
            config("device.timing.channel_width_bits", &["must be 8 or 16, got 4"]),
        ),
        (
            "channel width 12".to_string(),
            base().at("timing", "channel_width_bits = 12"),
            config("device.timing.channel_width_bits", &["must be 8 or 16, got 12"]),
        ),
        (
            "channel width 32".to_string(),
            base().at("timing", "channel_width_bits = 32"),
            config("device.timing.channel_width_bits", &["must be 8 or 16, got 32"]),
        ),
        (
            "suspend latency negative".to_string(),
            base().at("timing", "suspend_us = -1.0"),
            config("device.timing.suspend_us", &["must be in [0, 10000]", "got -1"]),
        ),
        (
            "suspend latency too long".to_string(),
            base().at("timing", "suspend_us = 10001.0"),
            config("device.timing.suspend_us", &["must be in [0, 10000]", "got 10001"]),
        ),
        (
            "multi-plane over 4 planes".to_string(),
            base().at("device", "planes_per_die = 8\nblocks_per_plane = 8\nmulti_plane = true"),
            config("device.multi_plane", &["at most 4 planes", "has 8"]),
        ),
        (
            "command_ns above 1 s".to_string(),
            base().at("timing", "command_ns = 1000000001"),
            config("device.timing.command_ns", &["must be in [0, 1000000000] nanoseconds, got 1000000001"]),
        ),
        (
            "command_ns near i64::MAX".to_string(),
            base().at("timing", "command_ns = 9223372036854775807"),
            config("device.timing.command_ns", &["must be in [0, 1000000000]"]),
        ),
    ];
    for k in ["read_us", "program_us", "erase_us"] {
        let key = format!("device.timing.{k}");
        for (v, shown) in
            [("0.0", "got 0"), ("1000000.5", "got 1000000.5"), ("nan", "got NaN"), ("-1.0", "got -1")]
        {
            cases.push((
                format!("{k} = {v}"),
                base().at("timing", &format!("{k} = {v}")),
                config(&key, &["must be in (0, 1000000] microseconds", shown]),
            ));
        }
    }
    check_all(cases);
    load_ok(&base().at(
        "timing",
        "read_us = 1000000.0\ncommand_ns = 1000000000\nchannel_mts = 100000\nchannel_width_bits = 16",
    ));
}

// ---------------------------------------------------------------------------------------
// [ftl] (tiny: 64 blocks per die, so watermarks up to 32; defaults low 6, high 12, reserve 2).

#[test]
fn ftl_ranges() {
    check_all(vec![
        (
            "low watermark 1".to_string(),
            base().at("ftl", "gc_low_watermark_blocks = 1"),
            config(
                "ftl.gc_low_watermark_blocks",
                &["must be in [2, 32] (half the 64 blocks per die), got 1"],
            ),
        ),
        (
            "low watermark 33".to_string(),
            base().at("ftl", "gc_low_watermark_blocks = 33"),
            config("ftl.gc_low_watermark_blocks", &["must be in [2, 32]", "got 33"]),
        ),
        (
            "high watermark below low".to_string(),
            base().at("ftl", "gc_high_watermark_blocks = 5"),
            config("ftl.gc_high_watermark_blocks", &["must be in [6, 32]", "got 5"]),
        ),
        (
            "high watermark 33".to_string(),
            base().at("ftl", "gc_high_watermark_blocks = 33"),
            config("ftl.gc_high_watermark_blocks", &["must be in [6, 32]", "got 33"]),
        ),
        (
            "reserve 0".to_string(),
            base().at("ftl", "gc_reserve_blocks = 0"),
            config("ftl.gc_reserve_blocks", &["must be in [1, 3] (below the low watermark 4), got 0"]),
        ),
        (
            "reserve at the low watermark".to_string(),
            base().at("ftl", "gc_reserve_blocks = 6\ngc_low_watermark_blocks = 6"),
            config("ftl.gc_reserve_blocks", &["must be in [1, 5]", "got 6"]),
        ),
        (
            "default low watermark too high for the reserve".to_string(),
            base().at("ftl", "gc_reserve_blocks = 29"),
            config(
                "ftl.gc_low_watermark_blocks",
                &["must be in [2, 32]", "got 33", "the default", "gc_reserve_blocks + 4"],
            ),
        ),
        (
            "reserve u32::MAX (no overflow)".to_string(),
            base().at("ftl", "gc_reserve_blocks = 4294967295"),
            config("ftl.gc_low_watermark_blocks", &["got 4294967295", "the default"]),
        ),
        (
            "low watermark u32::MAX (no overflow)".to_string(),
            base().at("ftl", "gc_low_watermark_blocks = 4294967295"),
            config("ftl.gc_low_watermark_blocks", &["got 4294967295"]),
        ),
        (
            "default high watermark too high".to_string(),
            base().at("ftl", "gc_low_watermark_blocks = 17"),
            config(
                "ftl.gc_high_watermark_blocks",
                &["must be in [17, 32]", "got 34", "the default, 2 x the low watermark"],
            ),
        ),
        (
            "default watermarks on a 4-block die".to_string(),
            base().at("device", "blocks_per_plane = 4"),
            config("ftl.gc_low_watermark_blocks", &["must be in [2, 2]", "got 6", "the default"]),
        ),
        (
            "physical_streams 0".to_string(),
            base().at("ftl", "physical_streams = 0"),
            config("ftl.physical_streams", &["must be in [1, 16], got 0"]),
        ),
        (
            "physical_streams 17".to_string(),
            base().at("ftl", "physical_streams = 17"),
            config("ftl.physical_streams", &["must be in [1, 16], got 17"]),
        ),
        (
            "dram latency below".to_string(),
            base().at("ftl", "dram_latency_us = 0.0009"),
            config("ftl.dram_latency_us", &["must be in [0.001, 1000] microseconds, got 0.0009"]),
        ),
        (
            "dram latency above".to_string(),
            base().at("ftl", "dram_latency_us = 1000.5"),
            config("ftl.dram_latency_us", &["must be in [0.001, 1000]", "got 1000.5"]),
        ),
        (
            "dram latency NaN".to_string(),
            base().at("ftl", "dram_latency_us = nan"),
            config("ftl.dram_latency_us", &["must be in [0.001, 1000]", "got NaN"]),
        ),
        (
            "write buffer not a multiple of the unit".to_string(),
            base().at("ftl", "write_buffer_bytes = 20000"),
            config(
                "ftl.write_buffer_bytes",
                &["multiple of mapping_unit_bytes (4096) up to 1 TiB, got 20000"],
            ),
        ),
        (
            "write buffer above 1 TiB".to_string(),
            base().at("ftl", "write_buffer_bytes = 1099511631872"),
            config("ftl.write_buffer_bytes", &["up to 1 TiB, got 1099511631872"]),
        ),
        (
            "write buffer below a page per die".to_string(),
            base().at("ftl", "write_buffer_bytes = 12288"),
            config("ftl.write_buffer_bytes", &["at least one flash page per die (16384 bytes), got 12288"]),
        ),
    ]);
    load_ok(&base().at(
        "ftl",
        "gc_low_watermark_blocks = 2\ngc_high_watermark_blocks = 32\ngc_reserve_blocks = \
         1\nphysical_streams = 16\ndram_latency_us = 0.001\nwrite_buffer_bytes = 16384",
    ));
    load_ok(
        &base()
            .at(
                "ftl",
                "gc_low_watermark_blocks = 32\ndram_latency_us = 1000.0\nwrite_buffer_bytes = 1099511627776",
            )
            .set("ftl.gc_high_watermark_blocks=32"),
    );
}

// ---------------------------------------------------------------------------------------
// [[tenants]], namespaces and workloads.

#[test]
fn tenant_ranges() {
    let many = |n: usize| {
        let mut text = BASE[..BASE.find("[[tenants]]").unwrap()].to_string();
        for i in 0..n {
            text += &format!(
                "[[tenants]]\nname = \"t{i}\"\nnamespace_fraction = 0.003\n[tenants.synthetic]\nrequests = \
                 1\n"
            );
        }
        Case { text, ..base() }
    };
    load_ok(&many(256));
    check_all(vec![
        (
            "no tenants".to_string(),
            Case {
                text: BASE[..BASE.find("[[tenants]]").unwrap()].replace("#top", "tenants = []"),
                ..base()
            },
            config("tenants", &["must list 1 to 256 tenants, got 0"]),
        ),
        ("257 tenants".to_string(), many(257), config("tenants", &["must list 1 to 256 tenants, got 257"])),
        (
            "empty name".to_string(),
            base().replace("name = \"db\"", "name = \"\""),
            config("tenants.1.name", &["must be non-empty and unique, got \"\""]),
        ),
        (
            "duplicate name".to_string(),
            base().replace("name = \"db\"", "name = \"web\""),
            config("tenants.1.name", &["must be non-empty and unique, got \"web\""]),
        ),
        (
            "duplicate name by --set".to_string(),
            base().set("tenants.db.name=web"),
            config("tenants.1.name", &["unique", "\"web\""]),
        ),
        (
            "namespace_fraction 0".to_string(),
            base().set("tenants.db.namespace_fraction=0.0"),
            config("tenants.1.namespace_fraction", &["must be in (0, 1], got 0"]),
        ),
        (
            "namespace_fraction above 1".to_string(),
            base().set("tenants.db.namespace_fraction=1.01"),
            config("tenants.1.namespace_fraction", &["must be in (0, 1], got 1.01"]),
        ),
        (
            "namespace_fraction NaN".to_string(),
            base().set("tenants.db.namespace_fraction=nan"),
            config("tenants.1.namespace_fraction", &["must be in (0, 1], got NaN"]),
        ),
        (
            "namespace_gib 0".to_string(),
            base().replace("namespace_fraction = 0.4\n#tenant1", "namespace_gib = 0.0\n#tenant1"),
            config("tenants.1.namespace_gib", &["must be > 0, got 0"]),
        ),
        (
            "namespace_gib negative".to_string(),
            base().replace("namespace_fraction = 0.4\n#tenant1", "namespace_gib = -1.0\n#tenant1"),
            config("tenants.1.namespace_gib", &["must be > 0, got -1"]),
        ),
        (
            "namespace_gib infinite".to_string(),
            base().replace("namespace_fraction = 0.4\n#tenant1", "namespace_gib = inf\n#tenant1"),
            config("tenants.1.namespace_gib", &["must be > 0, got inf"]),
        ),
        (
            "both namespace keys".to_string(),
            base().at("tenant1", "namespace_gib = 0.001"),
            config(
                "tenants.1.namespace_fraction",
                &["set exactly one of namespace_fraction and namespace_gib"],
            ),
        ),
        (
            "neither namespace key".to_string(),
            base().replace("namespace_fraction = 0.4\n#tenant1", "#tenant1"),
            config(
                "tenants.1.namespace_fraction",
                &["set exactly one of namespace_fraction and namespace_gib"],
            ),
        ),
        (
            "namespace below one unit (fraction)".to_string(),
            base().set("tenants.db.namespace_fraction=0.00001"),
            config("tenants.1.namespace_fraction", &["smaller than one mapping unit (4096 bytes)"]),
        ),
        (
            "namespace below one unit (GiB)".to_string(),
            base().replace("namespace_fraction = 0.4\n#tenant1", "namespace_gib = 0.000001\n#tenant1"),
            config("tenants.1.namespace_gib", &["smaller than one mapping unit (4096 bytes)"]),
        ),
        (
            "namespaces larger than the device".to_string(),
            base().set("tenants.db.namespace_fraction=0.61"),
            config(
                "tenants",
                &["namespaces total", "larger than the device's logical capacity of 53686272 bytes"],
            ),
        ),
        (
            "namespace in GiB larger than the device".to_string(),
            base().replace("namespace_fraction = 0.4\n#tenant1", "namespace_gib = 0.1\n#tenant1"),
            config("tenants", &["namespaces total 128843776 bytes", "logical capacity of 53686272 bytes"]),
        ),
        (
            "queue_depth 0".to_string(),
            base().set("tenants.db.queue_depth=0"),
            config("tenants.1.queue_depth", &["must be in [1, 65536], got 0"]),
        ),
        (
            "queue_depth 65537".to_string(),
            base().set("tenants.db.queue_depth=65537"),
            config("tenants.1.queue_depth", &["must be in [1, 65536], got 65537"]),
        ),
        (
            "start_s negative".to_string(),
            base().set("tenants.db.start_s=-1.0"),
            config("tenants.1.start_s", &["must be in [0, 10000000] seconds, got -1"]),
        ),
        (
            "start_s above 10^7".to_string(),
            base().set("tenants.db.start_s=10000001.0"),
            config("tenants.1.start_s", &["must be in [0, 10000000] seconds, got 10000001"]),
        ),
        (
            "start_s NaN".to_string(),
            base().set("tenants.db.start_s=nan"),
            config("tenants.1.start_s", &["got NaN"]),
        ),
        (
            "duration_s 0".to_string(),
            base().set("tenants.db.duration_s=0.0"),
            config("tenants.1.duration_s", &["must be in (0, 10000000] seconds, got 0"]),
        ),
        (
            "duration_s above 10^7".to_string(),
            base().set("tenants.db.duration_s=10000001.0"),
            config("tenants.1.duration_s", &["must be in (0, 10000000] seconds, got 10000001"]),
        ),
        (
            "duration_s infinite".to_string(),
            base().set("tenants.db.duration_s=inf"),
            config("tenants.1.duration_s", &["got inf"]),
        ),
        (
            "both trace and synthetic".to_string(),
            base().at("tenant1", "[tenants.trace]\npath = \"t.csv\"\nformat = \"msr\""),
            config(
                "tenants.1.trace",
                &["set exactly one of [tenants.trace], [tenants.synthetic] and [tenants.periodic]"],
            ),
        ),
        (
            "unbounded synthetic workload".to_string(),
            base().replace("pattern = \"zipf\"\nrequests = 200\n", "pattern = \"zipf\"\n"),
            config(
                "tenants.1.synthetic.requests",
                &["the workload never ends: set requests or end_s, tenants.1.duration_s or \
                   measure.duration_s"],
            ),
        ),
        (
            "neither trace nor synthetic".to_string(),
            base().replace("[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n", ""),
            config(
                "tenants.1.trace",
                &["set exactly one of [tenants.trace], [tenants.synthetic] and [tenants.periodic]"],
            ),
        ),
        (
            "both synthetic and periodic".to_string(),
            base()
                .at("tenant1", "[tenants.periodic]\ntasks = [{ op = \"read\", pages = 1, period_ms = 1.0 }]"),
            config(
                "tenants.1.trace",
                &["set exactly one of [tenants.trace], [tenants.synthetic] and [tenants.periodic]"],
            ),
        ),
        (
            "periodic tasks that never end".to_string(),
            base().replace(
                "[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n",
                "[tenants.periodic]\ntasks = [{ op = \"read\", pages = 1, period_ms = 1.0 }]\n",
            ),
            config(
                "tenants.1.periodic.end_s",
                &["periodic tasks never end: set end_s, tenants.1.duration_s or measure.duration_s"],
            ),
        ),
    ]);
    // The edges just inside the ranges load.
    load_ok(
        &base()
            .set("tenants.db.namespace_fraction=0.6")
            .set("tenants.db.queue_depth=65536")
            .set("tenants.db.start_s=10000000.0")
            .set("tenants.db.duration_s=10000000.0")
            .set("measure.window_s=86400"),
    );
    load_ok(&one_tenant().set("tenants.web.namespace_fraction=1.0").set("tenants.web.queue_depth=1"));
    // A synthetic workload without `requests` ends at its own or the measurement's duration.
    let unbounded = || base().replace("pattern = \"zipf\"\nrequests = 200\n", "pattern = \"zipf\"\n");
    load_ok(&unbounded().set("tenants.db.duration_s=1.0"));
    load_ok(&unbounded().set("measure.duration_s=1.0"));
}

#[test]
fn trace_ranges() {
    let t = || trace_tenant("t.csv", "msr");
    check_all(vec![
        (
            "time_scale 0".to_string(),
            t().at("trace0", "time_scale = 0.0"),
            config("tenants.0.trace.time_scale", &["must be in (0, 1000], got 0"]),
        ),
        (
            "time_scale above 1000".to_string(),
            t().at("trace0", "time_scale = 1000.5"),
            config("tenants.0.trace.time_scale", &["must be in (0, 1000], got 1000.5"]),
        ),
        (
            "time_scale NaN".to_string(),
            t().at("trace0", "time_scale = nan"),
            config("tenants.0.trace.time_scale", &["got NaN"]),
        ),
        (
            "empty path".to_string(),
            trace_tenant("", "msr"),
            config("tenants.0.trace.path", &["must not be empty"]),
        ),
        (
            "lba_max_bytes 0".to_string(),
            t().at("trace0", "address_map = \"scale\"\nlba_max_bytes = 0"),
            config("tenants.0.trace.lba_max_bytes", &["must be > 0"]),
        ),
        (
            "max_requests 0".to_string(),
            t().at("trace0", "max_requests = 0"),
            config("tenants.0.trace.max_requests", &["must be >= 1", "got 0"]),
        ),
        (
            "max_requests negative".to_string(),
            t().at("trace0", "max_requests = -1"),
            config("tenants.0.trace.max_requests", &["expected u64"]),
        ),
    ]);
    load_ok(&t().at(
        "trace0",
        "time_scale = 1000.0\nmax_requests = 1\naddress_map = \"scale\"\nlba_max_bytes = 1\nreplay = \
         \"closed\"",
    ));
}

#[test]
fn synthetic_ranges() {
    let s = |line: &str| base().at("synthetic1", line);
    check_all(vec![
        (
            "zipf_theta 0".to_string(),
            s("zipf_theta = 0.0"),
            config("tenants.1.synthetic.zipf_theta", &["must be in (0, 10], got 0"]),
        ),
        (
            "zipf_theta above 10".to_string(),
            s("zipf_theta = 10.5"),
            config("tenants.1.synthetic.zipf_theta", &["must be in (0, 10], got 10.5"]),
        ),
        (
            "hot_fraction 0".to_string(),
            s("hot_fraction = 0.0"),
            config("tenants.1.synthetic.hot_fraction", &["must be in (0, 1), got 0"]),
        ),
        (
            "hot_fraction 1".to_string(),
            s("hot_fraction = 1.0"),
            config("tenants.1.synthetic.hot_fraction", &["must be in (0, 1), got 1"]),
        ),
        (
            "hot_access_fraction below".to_string(),
            s("hot_access_fraction = -0.1"),
            config("tenants.1.synthetic.hot_access_fraction", &["must be in [0, 1], got -0.1"]),
        ),
        (
            "hot_access_fraction above".to_string(),
            s("hot_access_fraction = 1.1"),
            config("tenants.1.synthetic.hot_access_fraction", &["must be in [0, 1], got 1.1"]),
        ),
        (
            "read_ratio below".to_string(),
            s("read_ratio = -0.1"),
            config("tenants.1.synthetic.read_ratio", &["must be in [0, 1], got -0.1"]),
        ),
        (
            "read_ratio above".to_string(),
            s("read_ratio = 1.1"),
            config("tenants.1.synthetic.read_ratio", &["must be in [0, 1], got 1.1"]),
        ),
        (
            "trim_ratio below".to_string(),
            s("trim_ratio = -0.1"),
            config("tenants.1.synthetic.trim_ratio", &["must be in [0, 1], got -0.1"]),
        ),
        (
            "trim_ratio above".to_string(),
            s("trim_ratio = 1.1"),
            config("tenants.1.synthetic.trim_ratio", &["must be in [0, 1], got 1.1"]),
        ),
        (
            "read + trim above 1".to_string(),
            base().at("synthetic0", "trim_ratio = 0.6"),
            config("tenants.0.synthetic.trim_ratio", &["read_ratio + trim_ratio must be <= 1", "0.5 + 0.6"]),
        ),
        (
            "align_bytes 0".to_string(),
            s("align_bytes = 0"),
            config("tenants.1.synthetic.align_bytes", &["must be > 0, got 0"]),
        ),
        (
            "no sizes".to_string(),
            s("sizes = []"),
            config("tenants.1.synthetic.sizes", &["must list at least one size"]),
        ),
        (
            "size 0".to_string(),
            s("sizes = [{ bytes = 0 }]"),
            config(
                "tenants.1.synthetic.sizes",
                &["entry 0: bytes must be a positive multiple of align_bytes (4096), got 0"],
            ),
        ),
        (
            "size not aligned".to_string(),
            s("sizes = [{ bytes = 4096 }, { bytes = 6000 }]"),
            config(
                "tenants.1.synthetic.sizes",
                &["entry 1: bytes must be a positive multiple of align_bytes (4096), got 6000"],
            ),
        ),
        (
            "negative weight".to_string(),
            s("sizes = [{ bytes = 4096, weight = -1.0 }]"),
            config("tenants.1.synthetic.sizes", &["entry 0: weight must be finite and >= 0, got -1"]),
        ),
        (
            "weights all 0".to_string(),
            s("sizes = [{ bytes = 4096, weight = 0.0 }]"),
            config("tenants.1.synthetic.sizes", &["weights must sum to a finite value > 0, got 0"]),
        ),
        (
            "largest size beyond the namespace".to_string(),
            s("sizes = [{ bytes = 8192 }]").set("tenants.db.namespace_fraction=0.0001"),
            config(
                "tenants.1.synthetic.sizes",
                &["largest request (8192 bytes) does not fit in the namespace (4096 bytes"],
            ),
        ),
        (
            "rate_iops 0".to_string(),
            s("rate_iops = 0.0"),
            config("tenants.1.synthetic.rate_iops", &["must be finite and > 0, got 0"]),
        ),
        (
            "rate_iops infinite".to_string(),
            s("rate_iops = inf"),
            config("tenants.1.synthetic.rate_iops", &["must be finite and > 0, got inf"]),
        ),
        (
            "interval_us 0".to_string(),
            s("interval_us = 0.0"),
            config("tenants.1.synthetic.interval_us", &["must be finite and > 0, got 0"]),
        ),
        (
            "interval_us infinite".to_string(),
            s("interval_us = inf"),
            config("tenants.1.synthetic.interval_us", &["must be finite and > 0, got inf"]),
        ),
        (
            "footprint_fraction 0".to_string(),
            s("footprint_fraction = 0.0"),
            config("tenants.1.synthetic.footprint_fraction", &["must be in (0, 1], got 0"]),
        ),
        (
            "footprint_fraction above 1".to_string(),
            s("footprint_fraction = 1.1"),
            config("tenants.1.synthetic.footprint_fraction", &["must be in (0, 1], got 1.1"]),
        ),
        (
            "footprint_offset_fraction 1".to_string(),
            s("footprint_offset_fraction = 1.0"),
            config("tenants.1.synthetic.footprint_offset_fraction", &["must be in [0, 1), got 1"]),
        ),
        (
            "footprint past the namespace".to_string(),
            s("footprint_offset_fraction = 0.5\nfootprint_fraction = 0.75"),
            config(
                "tenants.1.synthetic.footprint_offset_fraction",
                &["footprint_offset_fraction + footprint_fraction must be <= 1", "got 0.5 + 0.75 = 1.25"],
            ),
        ),
        (
            "stream above 65535".to_string(),
            s("stream = 65536"),
            config("tenants.1.synthetic.stream", &["must be in [0, 65535], got 65536"]),
        ),
        (
            "stream negative".to_string(),
            s("stream = -1"),
            config("tenants.1.synthetic.stream", &["invalid value", "-1"]),
        ),
        (
            "requests 0".to_string(),
            base().set("tenants.db.synthetic.requests=0"),
            config("tenants.1.synthetic.requests", &["must be >= 1", "got 0"]),
        ),
    ]);
    load_ok(&s("zipf_theta = 10.0\nhot_fraction = 0.999\nhot_access_fraction = 1.0\nread_ratio = \
                0.0\ntrim_ratio = 1.0\nfootprint_fraction = 1.0\nsizes = [{ bytes = 4096, weight = 0.0 }, \
                { bytes = 8192 }]"));
    load_ok(&s("sizes = [{ bytes = 4096 }]").set("tenants.db.namespace_fraction=0.0001"));
}

#[test]
fn synthetic_sequential_fractions_and_time_windows() {
    let s = |line: &str| base().at("synthetic1", line);
    let k = |key: &str| format!("tenants.1.synthetic.{key}");
    check_all(vec![
        (
            "read_sequential_fraction above 1".to_string(),
            s("read_sequential_fraction = 1.5"),
            config(&k("read_sequential_fraction"), &["must be in [0, 1], got 1.5"]),
        ),
        (
            "write_sequential_fraction negative".to_string(),
            s("write_sequential_fraction = -0.1"),
            config(&k("write_sequential_fraction"), &["must be in [0, 1], got -0.1"]),
        ),
        (
            "a fraction with pattern = sequential".to_string(),
            base()
                .replace("pattern = \"zipf\"", "pattern = \"sequential\"")
                .at("synthetic1", "read_sequential_fraction = 0.2"),
            config(&k("read_sequential_fraction"), &["must be 0 with pattern = \"sequential\"", "got 0.2"]),
        ),
        (
            "start_s negative".to_string(),
            s("start_s = -1.0"),
            config(&k("start_s"), &["must be in [0, 10000000] seconds, got -1"]),
        ),
        (
            "end_s not after start_s".to_string(),
            s("start_s = 3.0\nend_s = 2.5"),
            config(&k("end_s"), &["must be in (start_s, 10000000] seconds (start_s = 3), got 2.5"]),
        ),
        (
            "on_s without off_s".to_string(),
            s("on_s = 1.0"),
            config(&k("off_s"), &["must be set with on_s (both or neither)"]),
        ),
        (
            "off_s without on_s".to_string(),
            s("off_s = 1.0"),
            config(&k("on_s"), &["must be set with off_s (both or neither)"]),
        ),
        (
            "on_s below a microsecond".to_string(),
            s("on_s = 0.0000001\noff_s = 1.0"),
            config(&k("on_s"), &["must be in [0.000001, 10000000] seconds, got 0.0000001"]),
        ),
        (
            "off_s above 10^7".to_string(),
            s("on_s = 1.0\noff_s = 20000000.0"),
            config(&k("off_s"), &["must be in [0.000001, 10000000] seconds, got 20000000"]),
        ),
        (
            "a time knob with closed arrivals".to_string(),
            s("arrival = \"closed\"\nend_s = 5.0"),
            config(
                &k("end_s"),
                &["does not apply to arrival = \"closed\"", "the tenant's start_s and duration_s"],
            ),
        ),
        (
            "closed and never ending (no end_s suggested)".to_string(),
            base().replace("pattern = \"zipf\"\nrequests = 200\n", "arrival = \"closed\"\n"),
            config(
                &k("requests"),
                &["the workload never ends: set requests, tenants.1.duration_s or measure.duration_s"],
            ),
        ),
    ]);
    // An end_s ends a workload without requests; the edges load.
    let s1 =
        load_ok(&base().replace("pattern = \"zipf\"\nrequests = 200\n", "pattern = \"zipf\"\nend_s = 2.0\n"));
    assert_eq!(s1.tenants[1].synthetic().unwrap().parts()[0].end_s, Some(2.0));
    load_ok(&s("read_sequential_fraction = 1.0\nwrite_sequential_fraction = 0.0\nstart_s = 10000000.0"));
    load_ok(&s("start_s = 0.5\nend_s = 10000000.0\non_s = 0.000001\noff_s = 10000000.0"));
}

/// The base with tenant 1 (`db`) as a two-part workload; `#part0` and `#part1` are insertion
/// points in its parts.
fn two_parts() -> Case {
    base().replace(
        "[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n#synthetic1\n",
        "[[tenants.synthetic]]\npattern = \"zipf\"\nrequests = \
         200\n#part0\n[[tenants.synthetic]]\nread_ratio = 1.0\nstart_s = 0.5\nend_s = 1.0\n#part1\n",
    )
}

#[test]
fn multi_part_synthetic_workloads() {
    let p1 = |line: &str| two_parts().at("part1", line);
    let sixty_five: String = (0..65).map(|_| "[[tenants.synthetic]]\nrequests = 1\n").collect();
    check_all(vec![
        (
            "a range error in part 1".to_string(),
            p1("zipf_theta = 0.0"),
            config("tenants.1.synthetic.1.zipf_theta", &["must be in (0, 10], got 0"]),
        ),
        (
            "an unknown key in part 1".to_string(),
            p1("theta = 0.9"),
            config("tenants.1.synthetic.1.theta", &["unknown field `theta`", "`zipf_theta`"]),
        ),
        (
            "a wrong type in part 0".to_string(),
            two_parts().at("part0", "rate_iops = \"fast\""),
            config("tenants.1.synthetic.0.rate_iops", &["invalid type", "expected f64"]),
        ),
        (
            "closed arrivals in a two-part workload".to_string(),
            two_parts().at("part0", "arrival = \"closed\""),
            config(
                "tenants.1.synthetic.1.arrival",
                &["closed and timed parts cannot be mixed", "part 0 is \"closed\", part 1 is \"poisson\""],
            ),
        ),
        (
            "part 1 never ends".to_string(),
            two_parts().replace("end_s = 1.0\n", ""),
            config(
                "tenants.1.synthetic.1.requests",
                &["part 1 never ends, so the workload never ends: set requests or end_s, \
                   tenants.1.duration_s or measure.duration_s"],
            ),
        ),
        (
            "an empty array of parts".to_string(),
            base().replace(
                "[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n#synthetic1\n",
                "synthetic = []\n",
            ),
            config("tenants.1.synthetic", &["invalid length 0", "at least one generator table"]),
        ),
        (
            "synthetic neither a table nor an array".to_string(),
            base().replace(
                "[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n#synthetic1\n",
                "synthetic = 4\n",
            ),
            config("tenants.1.synthetic", &["a table of generator keys or an array of such tables"]),
        ),
        (
            "65 parts".to_string(),
            base().replace(
                "[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n#synthetic1\n",
                &sixty_five,
            ),
            config("tenants.1.synthetic", &["must list 1 to 64 parts, got 65"]),
        ),
        (
            "--set out of range in a part".to_string(),
            two_parts().set("tenants.db.synthetic.1.read_ratio=2"),
            config("tenants.1.synthetic.1.read_ratio", &["must be in [0, 1], got 2"]),
        ),
        (
            "an array of one keeps the index".to_string(),
            base()
                .replace(
                    "[tenants.synthetic]\npattern = \"zipf\"",
                    "[[tenants.synthetic]]\npattern = \"zipf\"",
                )
                .at("synthetic1", "hot_fraction = 1.0"),
            config("tenants.1.synthetic.0.hot_fraction", &["must be in (0, 1), got 1"]),
        ),
    ]);
    let s = load_ok(&two_parts().set("tenants.db.synthetic.1.rate_iops=5"));
    let parts = s.tenants[1].synthetic().unwrap().parts();
    assert_eq!(
        (parts.len(), parts[0].pattern, parts[1].rate_iops),
        (2, ftlab::internals::workload::generator::Pattern::Zipf, 5.0)
    );
    // A tenant or measurement duration ends a part that would not end by itself.
    load_ok(&two_parts().replace("end_s = 1.0\n", "").set("tenants.db.duration_s=3"));
    load_ok(&two_parts().replace("end_s = 1.0\n", "").set("measure.duration_s=3"));
}

#[test]
fn resolved_multi_part_scenario_reloads_to_itself() {
    let s = load_ok(&two_parts().at("part1", "on_s = 0.01\noff_s = 0.04\nwrite_sequential_fraction = 0.3"));
    let resolved = scenario::to_toml(&s);
    let again = load_ok(&Case { text: resolved.clone(), ..base() });
    assert_eq!(scenario::to_toml(&again), resolved);
    assert_eq!(again.tenants[1].synthetic(), s.tenants[1].synthetic());
    // Tenant 0 stays a table, tenant 1 an array of two tables; the new keys are written out.
    let headers = |h: &str| resolved.lines().filter(|l| *l == h).count();
    assert_eq!((headers("[tenants.synthetic]"), headers("[[tenants.synthetic]]")), (1, 2), "{resolved}");
    for key in [
        "read_sequential_fraction = 0.0",
        "write_sequential_fraction = 0.3",
        "start_s = 0.5",
        "end_s = 1.0",
        "on_s = 0.01",
        "off_s = 0.04",
    ] {
        assert!(resolved.contains(key), "resolved scenario lacks {key:?}:\n{resolved}");
    }
}

// ---------------------------------------------------------------------------------------
// [precondition], [measure].

#[test]
fn phase_ranges() {
    check_all(vec![
        (
            "fill_fraction below".to_string(),
            base().replace("fill_fraction = 0.0", "fill_fraction = -0.1"),
            config("precondition.fill_fraction", &["must be in [0, 1], got -0.1"]),
        ),
        (
            "fill_fraction above".to_string(),
            base().replace("fill_fraction = 0.0", "fill_fraction = 1.1"),
            config("precondition.fill_fraction", &["must be in [0, 1], got 1.1"]),
        ),
        (
            "overwrite_passes below".to_string(),
            base().at("precondition", "overwrite_passes = -0.5"),
            config("precondition.overwrite_passes", &["must be in [0, 10], got -0.5"]),
        ),
        (
            "overwrite_passes above".to_string(),
            base().at("precondition", "overwrite_passes = 10.5"),
            config("precondition.overwrite_passes", &["must be in [0, 10], got 10.5"]),
        ),
        (
            "closed-form overwrites with no overwrites".to_string(),
            base().at("precondition", "overwrite_passes = 0.0\noverwrites = \"closed_form\""),
            config(
                "precondition.overwrites",
                &[
                    "\"closed_form\" writes the steady state",
                    "overwrite_passes = 0 asks for none",
                    "\"simulate\"",
                ],
            ),
        ),
        (
            "window_s below".to_string(),
            base().at("measure", "window_s = 0.0000001"),
            config("measure.window_s", &["must be in [0.000001, 86400] seconds, got 0.0000001"]),
        ),
        (
            "window_s above".to_string(),
            base().at("measure", "window_s = 86401.0"),
            config("measure.window_s", &["must be in [0.000001, 86400] seconds, got 86401"]),
        ),
        (
            "warmup_s negative".to_string(),
            base().at("measure", "warmup_s = -1.0"),
            config("measure.warmup_s", &["must be in [0, 10000000] seconds, got -1"]),
        ),
        (
            "warmup_s above 10^7".to_string(),
            base().at("measure", "warmup_s = 10000001.0"),
            config("measure.warmup_s", &["must be in [0, 10000000] seconds, got 10000001"]),
        ),
        (
            "warmup_s NaN".to_string(),
            base().at("measure", "warmup_s = nan"),
            config("measure.warmup_s", &["got NaN"]),
        ),
        (
            "duration_s 0".to_string(),
            base().at("measure", "duration_s = 0.0"),
            config("measure.duration_s", &["must be in (0, 10000000] seconds, got 0"]),
        ),
        (
            "duration_s above".to_string(),
            base().at("measure", "duration_s = 10000001.0"),
            config("measure.duration_s", &["must be in (0, 10000000] seconds, got 10000001"]),
        ),
        (
            "warm-up as long as the run".to_string(),
            base().at("measure", "duration_s = 5.0\nwarmup_s = 5.0"),
            config("measure.warmup_s", &["must be below measure.duration_s (5 seconds), got 5"]),
        ),
        (
            "too many time-series windows".to_string(),
            base().at("measure", "duration_s = 256.0\nwindow_s = 0.0000152587890625"),
            config(
                "measure.window_s",
                &[
                    "too small for a 256-second run",
                    "2 tenants x 16777216 windows",
                    "more than 10000000 time-series rows",
                    "use at least",
                ],
            ),
        ),
        (
            "too many windows (tenant durations)".to_string(),
            base()
                .at("measure", "window_s = 0.000001")
                .set("tenants.web.duration_s=6")
                .set("tenants.db.duration_s=1"),
            config(
                "measure.window_s",
                &["too small for a 6-second run", "2 tenants x", "more than 10000000 time-series rows"],
            ),
        ),
    ]);
    load_ok(
        &base()
            .replace("fill_fraction = 0.0", "fill_fraction = 1.0")
            .at("precondition", "overwrite_passes = 10.0\norder = \"sequential\""),
    );
    load_ok(&base().at("measure", "duration_s = 10000000.0\nwarmup_s = 9999999.0\nwindow_s = 86400.0"));
    load_ok(&base().at("measure", "duration_s = 10.0\nwindow_s = 0.000004"));
    // Without a known end, a fine window is allowed.
    load_ok(&base().at("measure", "window_s = 0.000001"));
}

// ---------------------------------------------------------------------------------------
// Schemes and stream mappers.

#[test]
fn scheme_errors() {
    let both = || base().replace("schemes = [\"unified\"]", "schemes = [\"unified\", \"partitioned\"]");
    let part = |lines: &str| both().at("end", &format!("[scheme.partitioned]\n{lines}"));
    let upi = |lines: &str| {
        base()
            .replace("schemes = [\"unified\"]", "schemes = [\"upi\"]")
            .at("end", &format!("[scheme.upi]\n{lines}"))
    };
    let one = |name: &str, lines: &str| {
        base()
            .replace("schemes = [\"unified\"]", &format!("schemes = [{name:?}]"))
            .at("end", &format!("[scheme.{name}]\n{lines}"))
    };
    check_all(vec![
        (
            "unknown scheme in schemes".to_string(),
            base().replace("schemes = [\"unified\"]", "schemes = [\"unified\", \"no-such-scheme\"]"),
            config("schemes.1", &["unknown scheme \"no-such-scheme\"", "known: unified, partitioned, upi"]),
        ),
        (
            "unknown scheme table".to_string(),
            base().at("end", "[scheme.no-such-scheme]\nepoch_ms = 100"),
            config("scheme.no-such-scheme", &["unknown scheme", "known: unified, partitioned, upi"]),
        ),
        (
            "upi unknown knob".to_string(),
            upi("epoch_ms = 100"),
            config("scheme.upi.epoch_ms", &["unknown field `epoch_ms`"]),
        ),
        (
            "upi epoch too short".to_string(),
            upi("epoch_s = 0.0"),
            config("scheme.upi.epoch_s", &["must be in [0.001, 86400], got 0"]),
        ),
        (
            "upi traffic cap of 1".to_string(),
            upi("traffic_cap = 1.0"),
            config("scheme.upi.traffic_cap", &["must be in (0, 1), got 1"]),
        ),
        (
            "upi exponents of the wrong length".to_string(),
            upi("traffic_exponents = [1.0]"),
            config("scheme.upi.traffic_exponents", &["one exponent per tenant (2)", "got 1"]),
        ),
        (
            "upi negative exponent".to_string(),
            upi("traffic_exponents = [1.0, -2.0]"),
            config("scheme.upi.traffic_exponents.1", &["must be in (0, 8], got -2"]),
        ),
        (
            "upi read-only die out of range".to_string(),
            upi("read_only_dies = [9]"),
            config("scheme.upi.read_only_dies.0", &["must be a die index in [0, 4), got 9"]),
        ),
        (
            "upi read-only die twice".to_string(),
            upi("read_only_dies = [1, 1]"),
            config("scheme.upi.read_only_dies.1", &["die 1 is listed twice"]),
        ),
        (
            "upi read-only dies empty a set".to_string(),
            upi("read_only_dies = [0, 2]"),
            config("scheme.upi.read_only_dies", &["tenant 0's set keeps 0 of its 2 dies"]),
        ),
        (
            "upi shares of the wrong sum".to_string(),
            upi("initial_shares = [1, 1]"),
            config("scheme.upi.initial_shares", &["must sum to the device's 4 dies, got 2"]),
        ),
        (
            "upi zero min set".to_string(),
            upi("min_set_dies = 0"),
            config("scheme.upi.min_set_dies", &["must be >= 1, got 0"]),
        ),
        (
            "part-ftl unknown admission".to_string(),
            one("part-ftl", "admission = \"maybe\""),
            config("scheme.part-ftl.admission", &["unknown variant `maybe`", "enforce", "report"]),
        ),
        (
            "part-ftl no copy reads".to_string(),
            one("part-ftl", "copy_reads_in_flight = 0"),
            config("scheme.part-ftl.copy_reads_in_flight", &["must be >= 1, got 0"]),
        ),
        (
            "part-ftl namespaces over the data ways".to_string(),
            one("part-ftl", ""),
            config(
                "scheme.part-ftl",
                &["do not fit in the 2 data dies", "raise device.over_provisioning to at least"],
            ),
        ),
        (
            "flashblox software vSSD under priority".to_string(),
            one("flashblox", "tenants = [{kind = \"channel\", channels = 1}, {kind = \"software\"}]"),
            config(
                "scheme.flashblox.tenants.1",
                &["software-isolated vSSD", "ftl.scheduler = \"fair\"", "it is \"priority\""],
            ),
        ),
        (
            "flashblox software vSSD under fifo".to_string(),
            one("flashblox", "tenants = [{kind = \"software\"}, {kind = \"software\", iops_max = 100.0}]")
                .at("ftl", "scheduler = \"fifo\""),
            config("scheme.flashblox.tenants.0", &["ftl.scheduler = \"fair\"", "it is \"fifo\""]),
        ),
        (
            "flashblox software vSSD under edf by --set".to_string(),
            one("flashblox", "tenants = [{kind = \"die\", dies = 2}, {kind = \"software\"}]")
                .set("ftl.scheduler=edf"),
            config("scheme.flashblox.tenants.1", &["ftl.scheduler = \"fair\"", "it is \"edf\""]),
        ),
        (
            "rtgc unknown admission".to_string(),
            one("rtgc", "admission = \"maybe\""),
            config("scheme.rtgc.admission", &["unknown variant `maybe`"]),
        ),
        (
            "rtgc unknown knob".to_string(),
            one("rtgc", "period_ms = 1"),
            config("scheme.rtgc.period_ms", &["unknown field `period_ms`"]),
        ),
        (
            "no schemes".to_string(),
            base().replace("schemes = [\"unified\"]", "schemes = []"),
            config("schemes", &["must name at least one scheme"]),
        ),
        (
            "a scheme twice".to_string(),
            base().replace("schemes = [\"unified\"]", "schemes = [\"unified\", \"unified\"]"),
            config("schemes.1", &["\"unified\" is listed twice"]),
        ),
        (
            "shares of the wrong length".to_string(),
            part("shares = [2]"),
            config("scheme.partitioned.shares", &["must list one share per tenant (2), got 1"]),
        ),
        (
            "shares of the wrong sum".to_string(),
            part("shares = [1, 2]"),
            config("scheme.partitioned.shares", &["must sum to the device's 2 units, got 3"]),
        ),
        (
            "a zero share".to_string(),
            part("by = \"die\"\nshares = [0, 4]"),
            config("scheme.partitioned.shares.0", &["must be in [1, 4], got 0"]),
        ),
        (
            "a share larger than the device (its sum would wrap)".to_string(),
            part("by = \"die\"\nshares = [4294967295, 5]"),
            config("scheme.partitioned.shares.0", &["must be in [1, 4], got 4294967295"]),
        ),
        (
            "namespace beyond its partition".to_string(),
            part("by = \"die\"\nshares = [1, 3]"),
            config(
                "scheme.partitioned.shares",
                &[
                    "tenant 0's namespace (5242 units) exceeds its partition's logical capacity (3276 units \
                     of 1 dies",
                    "give it a larger share",
                ],
            ),
        ),
        (
            "more tenants than channels".to_string(),
            both().at(
                "end",
                "[[tenants]]\nname = \"c\"\nnamespace_fraction = 0.1\n[tenants.synthetic]\nrequests = 1",
            ),
            config("scheme.partitioned.by", &["3 tenants need at least 3 partition units, the device has 2"]),
        ),
        (
            "shares as a --set".to_string(),
            both().set("scheme.partitioned.shares=[2, 2]"),
            config("scheme.partitioned.shares", &["must sum to the device's 2 units, got 4"]),
        ),
        (
            "unknown stream mapper".to_string(),
            base().at("top", "stream_mapper = \"nosuch\""),
            config(
                "stream_mapper",
                &[
                    "unknown stream mapper \"nosuch\"",
                    "known: legacy, direct, manual, dac, autostream, vstream",
                ],
            ),
        ),
        (
            "unknown stream table".to_string(),
            base().at("end", "[stream.nosuch]\nk = 4"),
            config(
                "stream.nosuch",
                &["unknown stream mapper", "known: legacy, direct, manual, dac, autostream, vstream"],
            ),
        ),
        (
            "a mapper not selected is still checked".to_string(),
            base().at("end", "[stream.direct]\nbeyond_limit = \"close\""),
            config(
                "stream.direct.beyond_limit",
                &["unknown variant `close`", "expected `release` or `unstreamed`"],
            ),
        ),
        (
            "a mapper not selected: range checks that need no device".to_string(),
            base().at("end", "[stream.manual]\ntable = [-1]"),
            config("stream.manual.table.0", &["must be in [0, ", "got -1"]),
        ),
    ]);
    let s = load_ok(&part("by = \"die\"\nshares = [2, 2]"));
    assert_eq!(s.scheme["partitioned"]["shares"].as_array().unwrap().len(), 2);
}

// ---------------------------------------------------------------------------------------
// TOML syntax.

#[test]
fn syntax_errors_name_the_line() {
    let missing_value = base().at("ftl", "gc_policy =");
    let duplicate = base().at("device", "preset = \"upi\"");
    let bad_header = base().at("measure", "[tenants");
    let bad_string = base().at("synthetic1", "pattern2 = \"zipf");
    let cases = vec![
        (
            "missing value".to_string(),
            missing_value.clone(),
            syntax(missing_value.line_of("gc_policy ="), &[]),
        ),
        (
            "duplicate key".to_string(),
            duplicate.clone(),
            syntax(duplicate.line_of("preset = \"upi\""), &["duplicate key"]),
        ),
        (
            "unclosed table header".to_string(),
            bad_header.clone(),
            syntax(bad_header.line_of("[tenants\n"), &[]),
        ),
        ("unterminated string".to_string(), bad_string.clone(), syntax(bad_string.line_of("pattern2"), &[])),
        ("line 1".to_string(), Case { text: "= 3\n".into(), ..base() }, syntax(1, &[])),
    ];
    check_all(cases);
}

// ---------------------------------------------------------------------------------------
// Malformed `--set` overrides.

#[test]
fn malformed_overrides() {
    check_all(vec![
        (
            "no =".to_string(),
            base().set("device.channels"),
            config("device.channels", &["an override must look like key.path=value"]),
        ),
        (
            "empty segment".to_string(),
            base().set("device..channels=4"),
            config("device..channels", &["empty segment in key path"]),
        ),
        ("leading dot".to_string(), base().set(".seed=4"), config(".seed", &["empty segment in key path"])),
        ("empty key".to_string(), base().set("=4"), config("", &["empty segment in key path"])),
        (
            "indexing a scalar".to_string(),
            base().set("seed.x=1"),
            config("seed", &["is an integer, not a table"]),
        ),
        (
            "indexing a nested scalar".to_string(),
            base().set("device.preset.x=1"),
            config("device.preset", &["is a string, not a table"]),
        ),
        (
            "indexing a tenant's scalar".to_string(),
            base().set("tenants.web.name.x=1"),
            config("tenants.web.name", &["is a string, not a table"]),
        ),
        (
            "array index out of range".to_string(),
            base().set("tenants.2.queue_depth=1"),
            config("tenants.2", &["index out of range: the array has 2 elements"]),
        ),
        (
            "unknown tenant name".to_string(),
            base().set("tenants.cache.queue_depth=1"),
            config("tenants.cache", &["no element named \"cache\""]),
        ),
        (
            "an array element itself".to_string(),
            base().set("tenants.web=1"),
            config("tenants", &["is an array", "tenants.0.queue_depth", "the whole array"]),
        ),
        (
            "an element of an array of strings".to_string(),
            base().set("schemes.0=partitioned"),
            config("schemes", &["is an array"]),
        ),
        (
            "a key of a string element".to_string(),
            base().set("schemes.0.x=1"),
            config("schemes.0", &["is not a table"]),
        ),
        (
            "an element of an array that is not set".to_string(),
            base().set("tenants.0.synthetic.sizes.0.bytes=8192"),
            config(
                "tenants.0.synthetic.sizes",
                &["is not set, so it has no element 0", "set the whole array"],
            ),
        ),
        (
            "out of range after a good one".to_string(),
            base().set("tenants.web.queue_depth=7").set("tenants.db.queue_depth=0"),
            config("tenants.1.queue_depth", &["must be in [1, 65536], got 0"]),
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// Errors that show when the run opens its files.

#[test]
fn trace_files_at_run_time() {
    let dir = temp_dir();
    std::fs::write(dir.join("far.trace"), "0 0 0 8 0\n1000 0 99999999 8 1\n").unwrap();
    check_all(vec![
        (
            "missing trace file".to_string(),
            trace_tenant("no-such-trace.csv", "msr").run(),
            Expect::Io("no-such-trace.csv".into(), vec!["(tenants.0.trace.path)".into()]),
        ),
        (
            "missing trace file of tenant 1".to_string(),
            base()
                .replace(
                    "[tenants.synthetic]\npattern = \"zipf\"\nrequests = 200\n",
                    "[tenants.trace]\npath = \"sub/none.mqsim\"\nformat = \"mqsim\"\n",
                )
                .run(),
            Expect::Io("sub/none.mqsim".into(), vec!["(tenants.1.trace.path)".into()]),
        ),
        // With `address_map = "scale"` and no `lba_max_bytes`, the run reads the trace once
        // for its highest address before opening it for replay; that first open's error has
        // the path but not the key (api.rs; reported).
        (
            "missing trace file, address_map = scale".to_string(),
            trace_tenant("no-such-trace.csv", "msr").at("trace0", "address_map = \"scale\"").run(),
            Expect::Io("no-such-trace.csv".into(), vec![]),
        ),
        (
            "address past the namespace with address_map = reject".to_string(),
            trace_tenant("far.trace", "mqsim").at("trace0", "address_map = \"reject\"").run(),
            Expect::Trace(
                "far.trace".into(),
                2,
                vec!["lies outside the namespace".into(), "address_map = \"reject\"".into()],
            ),
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// Where an error is: the line and column of its key in the file, or the `--set` override that
// caused it. Lines are found in the case's text; a key at the start of its line is column 1.

#[test]
fn errors_name_their_line_and_column_or_their_override() {
    let typo = base().at("device", "  chanels = 4");
    let bad_value = base().at("tenant1", "queue_depth = 0");
    let bad_type = base().at("ftl", "physical_streams = \"four\"");
    let never = base().replace("pattern = \"zipf\"\nrequests = 200\n", "pattern = \"zipf\"\n");
    // Tenant 1's `[tenants.synthetic]` is the line before its `pattern`; `synthetic` starts at
    // column 10, after `[tenants.`.
    let never_table = never.line_of("pattern = \"zipf\"") - 1;
    let in_array = base().replace("schemes = [\"unified\"]", "schemes = [\"unified\", \"partitoned\"]");
    check_all(vec![
        (
            "a misspelt key".into(),
            typo.clone(),
            config_at(
                "device.chanels",
                (typo.line_of("chanels"), 3),
                &["unknown field `chanels` (did you mean `channels`?)"],
            ),
        ),
        (
            "a value out of range".into(),
            bad_value.clone(),
            config_at(
                "tenants.1.queue_depth",
                (bad_value.line_of("queue_depth = 0"), 1),
                &["must be in [1, 65536], got 0"],
            ),
        ),
        (
            "a value of the wrong type".into(),
            bad_type.clone(),
            config_at("ftl.physical_streams", (bad_type.line_of("physical_streams"), 1), &["invalid type"]),
        ),
        (
            "a key left out: the table it belongs in".into(),
            never,
            config_at("tenants.1.synthetic.requests", (never_table, 10), &["never ends"]),
        ),
        // `schemes = [` is 11 characters and `"unified", ` 11 more: element 1 starts at 23.
        (
            "an element of an array".into(),
            in_array,
            config_at("schemes.1", (3, 23), &["unknown scheme \"partitoned\""]),
        ),
        (
            "an override's typo".into(),
            base().set("device.chanels=4"),
            config_set("device.chanels", "device.chanels=4", &["did you mean `channels`?"]),
        ),
        (
            "an override's value".into(),
            base().set("tenants.db.queue_depth=0"),
            config_set("tenants.1.queue_depth", "tenants.db.queue_depth=0", &["got 0"]),
        ),
        (
            "an override of a value the file has".into(),
            bad_value.clone().set("tenants.1.queue_depth=70000"),
            config_set("tenants.1.queue_depth", "tenants.1.queue_depth=70000", &["got 70000"]),
        ),
        (
            "an override inside an array of tables".into(),
            base().set("tenants.db.synthetic.read_ratio=2"),
            config_set("tenants.1.synthetic.read_ratio", "tenants.db.synthetic.read_ratio=2", &["got 2"]),
        ),
        (
            "an override creating a table".into(),
            base().set("devices.channels=4"),
            config_set(
                "devices",
                "devices.channels=4",
                &["unknown field `devices` (did you mean `device`?)"],
            ),
        ),
        (
            "a malformed override".into(),
            base().set("device..channels=4"),
            config_set("device..channels", "device..channels=4", &["empty segment"]),
        ),
        (
            "the file's typo, an unrelated override".into(),
            typo.clone().set("seed=3"),
            config_at("device.chanels", (typo.line_of("chanels"), 3), &["unknown field"]),
        ),
        (
            "a key the file leaves out".into(),
            base().replace("[device]\npreset = \"tiny\"\n#device\n[device.timing]\n#timing\n", ""),
            Expect::Config("device".into(), vec!["missing field `device`".into()], Some(Place::Unknown)),
        ),
    ]);
    // The message starts with where it is: file:line:column, or the override.
    let e = scenario::load(&typo.text, "test.toml", &[], None).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "test.toml:{}:3: device.chanels: unknown field `chanels` (did you mean",
            typo.line_of("chanels")
        )),
        "{e}"
    );
    let e = scenario::load(BASE, "test.toml", &["device.chanels=4".into()], None).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "--set device.chanels=4: device.chanels: unknown field `chanels` (did you mean `channels`?)"
        ),
        "{e}"
    );
}

#[test]
fn syntax_errors_name_the_line_and_column() {
    let duplicate = base().at("device", "preset = \"upi\"");
    let cases = vec![
        (
            "a duplicate key, at the start of its line".to_string(),
            duplicate.clone(),
            syntax_at(duplicate.line_of("preset = \"upi\""), 1, &["duplicate key"]),
        ),
        (
            "a key-less value on line 1".to_string(),
            Case { text: "= 3\n".into(), ..base() },
            syntax_at(1, 1, &[]),
        ),
    ];
    check_all(cases);
    let e = scenario::load(&duplicate.text, "test.toml", &[], None).unwrap_err().to_string();
    assert!(e.starts_with(&format!("test.toml:{}:1: ", duplicate.line_of("preset = \"upi\""))), "{e}");
}

#[test]
fn did_you_mean() {
    let schemes = |list: &str| base().replace("schemes = [\"unified\"]", &format!("schemes = {list}"));
    check_all(vec![
        (
            "a key one letter off".to_string(),
            base().at("device", "chanels = 4"),
            config(
                "device.chanels",
                &["unknown field `chanels` (did you mean `channels`?)", "expected one of"],
            ),
        ),
        (
            "a key without its unit".to_string(),
            base().at("measure", "duration = 1"),
            config("measure.duration", &["(did you mean `duration_s`?)"]),
        ),
        (
            "a tenant's key".to_string(),
            base().at("tenant0", "queue_dept = 4"),
            config("tenants.0.queue_dept", &["(did you mean `queue_depth`?)"]),
        ),
        (
            "a variant".to_string(),
            base().at("ftl", "gc_policy = \"greedyy\""),
            config("ftl.gc_policy", &["unknown variant `greedyy` (did you mean `greedy`?)"]),
        ),
        (
            "a scheme's knob".to_string(),
            schemes("[\"upi\"]").at("end", "[scheme.upi]\nepoch_ms = 100"),
            config("scheme.upi.epoch_ms", &["(did you mean `epoch_s`?)"]),
        ),
        (
            "a scheme's name".to_string(),
            schemes("[\"unified\", \"partitoned\"]"),
            config(
                "schemes.1",
                &[
                    "unknown scheme \"partitoned\"; did you mean \"partitioned\"?",
                    "known: unified, partitioned",
                ],
            ),
        ),
        (
            "a scheme table's name".to_string(),
            base().at("end", "[scheme.unifed]"),
            config("scheme.unifed", &["unknown scheme; did you mean \"unified\"?"]),
        ),
        (
            "vstream in schemes".to_string(),
            schemes("[\"unified\", \"vstream\"]"),
            config("schemes.1", &["vstream is a stream mapper", "stream_mapper = \"vstream\""]),
        ),
        (
            "vstream's knobs under [scheme]".to_string(),
            base().at("end", "[scheme.vstream]\nk = 4"),
            config(
                "scheme.vstream",
                &["vstream is a stream mapper", "[stream.vstream]", "stream_mapper = \"vstream\""],
            ),
        ),
        (
            "a mapper's name".to_string(),
            base().at("top", "stream_mapper = \"vstrem\""),
            config("stream_mapper", &["unknown stream mapper \"vstrem\"; did you mean \"vstream\"?"]),
        ),
        (
            "a scheme as the mapper".to_string(),
            base().at("top", "stream_mapper = \"upi\""),
            config("stream_mapper", &["upi is a scheme, not a stream mapper", "schemes"]),
        ),
        (
            "a mapper table's name".to_string(),
            base().at("end", "[stream.legazy]"),
            config("stream.legazy", &["unknown stream mapper; did you mean \"legacy\"?"]),
        ),
    ]);
    // Nothing close: no suggestion.
    for (case, key) in
        [(base().at("check", "oracle = true"), "check.oracle"), (schemes("[\"nosuch\"]"), "schemes.0")]
    {
        match outcome(&case) {
            Ok(Err(FtlabError::Config { key: k, reason, .. })) => {
                assert!(k == key && !reason.contains("did you mean"), "{reason}")
            }
            other => panic!("{key}: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// `[scheme.X]` tables of schemes the run does not list: checked for typos, types and static
// ranges, not against the device.

#[test]
fn tables_of_schemes_not_run_are_checked_without_the_device() {
    // Die vSSDs of 3 + 3 dies: more than tiny's 4 dies, so flashblox could not run here.
    let too_big =
        "[scheme.flashblox]\ntenants = [{ kind = \"die\", dies = 3 }, { kind = \"die\", dies = 3 }]";
    let s = load_ok(&base().at("end", too_big));
    assert_eq!(s.schemes, ["unified"]);
    // Kept as written (not resolved): its defaults are not filled in.
    assert_eq!(s.scheme["flashblox"].keys().collect::<Vec<_>>(), ["tenants"]);
    let unlisted = |name: &str, lines: &str| base().at("end", &format!("[scheme.{name}]\n{lines}"));
    check_all(vec![
        (
            "run, it does not fit".to_string(),
            base().at("end", too_big).set("schemes=[\"flashblox\"]"),
            config("scheme.flashblox.tenants.1.dies", &["must be in [1, 1]", "got 3"]),
        ),
        (
            "a typo".to_string(),
            unlisted("flashblox", "tenant = []"),
            config("scheme.flashblox.tenant", &["unknown field `tenant` (did you mean `tenants`?)"]),
        ),
        (
            "a typo in an array of tables".to_string(),
            unlisted("flashblox", "tenants = [{ kind = \"die\", dise = 2 }]"),
            config("scheme.flashblox.tenants.0.dise", &["unknown field `dise` (did you mean `dies`?)"]),
        ),
        (
            "a wrong type".to_string(),
            unlisted("upi", "epoch_s = \"fast\""),
            config("scheme.upi.epoch_s", &["invalid type"]),
        ),
        (
            "a static range".to_string(),
            unlisted("upi", "epoch_s = 0.0"),
            config("scheme.upi.epoch_s", &["must be in [0.001, 86400], got 0"]),
        ),
        (
            "an unknown variant".to_string(),
            unlisted("partitioned", "by = \"plane\""),
            config("scheme.partitioned.by", &["unknown variant `plane`"]),
        ),
    ]);
    // Every scheme's resolved table (as it ran) is accepted as the table of a scheme not run.
    let mut checked = 0;
    for info in ftlab::internals::scheme::REGISTRY {
        let run = base().replace("schemes = [\"unified\"]", &format!("schemes = [{:?}]", info.name));
        let Ok(Ok(Some(s))) = outcome(&run) else { continue };
        let mut wrapper = toml::Table::new();
        wrapper.insert(
            "scheme".into(),
            toml::Value::Table(
                [(info.name.to_string(), toml::Value::Table(s.scheme[info.name].clone()))]
                    .into_iter()
                    .collect(),
            ),
        );
        let text = format!("{}\n{}", base().text.replace("#end\n", ""), toml::to_string(&wrapper).unwrap());
        let s = load_ok(&Case { text, ..base() });
        assert!(s.scheme.contains_key(info.name));
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} schemes load on the base");
}

/// The README's `--set` example on the bundled default scenario: doubling the channels doubles
/// every namespace (they are fractions of the device), and flashblox's die vSSDs, which leave
/// their die counts out, follow: 1/4, 1/4 and 1/2 of the dies, 2, 2 and 4 of 8, then 4, 4 and
/// 8 of 16.
#[test]
fn the_default_scenario_with_twice_the_channels() {
    let default = || Case { text: ftlab::default_scenario_toml().into(), ..base() };
    let dies = |s: &Scenario| -> Vec<i64> {
        s.scheme["flashblox"]["tenants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["dies"].as_integer().unwrap())
            .collect()
    };
    assert_eq!(dies(&load_ok(&default())), [2, 2, 4]);
    let s = load_ok(&default().set("device.channels=8"));
    assert_eq!(s.device.geometry.channels, 8);
    assert_eq!(dies(&s), [4, 4, 8]);
    // Die counts set in the file stay as set, and still must fit.
    let fixed = default().replace(
        "tenants = [{ kind = \"die\" }, { kind = \"die\" }, { kind = \"die\" }]",
        "tenants = [{ kind = \"die\", dies = 2 }, { kind = \"die\", dies = 2 }, { kind = \"die\", dies = 4 \
         }]",
    );
    assert_eq!(dies(&load_ok(&fixed)), [2, 2, 4]);
    check_all(vec![(
        "fixed dies on twice the channels".to_string(),
        fixed.clone().set("device.channels=8"),
        config("scheme.flashblox.tenants.0.dies", &["exceeds the logical capacity of its 2 dies"]),
    )]);
    // One die vSSD set to 7 of the 8 dies leaves 1 for the other two: not one each.
    let one_set = default().replace(
        "tenants = [{ kind = \"die\" }, { kind = \"die\" }, { kind = \"die\" }]",
        "tenants = [{ kind = \"die\" }, { kind = \"die\" }, { kind = \"die\", dies = 7 }]",
    );
    check_all(vec![(
        "7 dies set leave 1 for two vSSDs".to_string(),
        one_set,
        config("scheme.flashblox.tenants.0.dies", &["2 die vSSDs leave out dies, but only 1 dies are left"]),
    )]);
}

/// A scenario without `schemes` runs unified, the baseline (docs/scenario.md; the registry's
/// first entry, `scenario::raw`).
#[test]
fn a_scenario_without_schemes_runs_unified() {
    let s = load_ok(&base().replace("schemes = [\"unified\"]\n", ""));
    assert_eq!(s.schemes, ["unified"]);
}
