use ftlab::api::{run_scenario, RunOptions, ScenarioSource};
use std::path::PathBuf;
fn base() -> String {
    r#"
[device]
preset = "tiny"
[precondition]
fill_fraction = 0.0
[[tenants]]
name = "web"
namespace_fraction = 0.5
[tenants.synthetic]
requests = 10
"#.to_string()
}
fn run(t: &str, o: &[String]) -> String {
    let src = ScenarioSource::Text { text: t.to_string(), base_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces"), name: "test.toml".into() };
    let opts = RunOptions { seed: None, overrides: o.iter().map(|s| s.to_string()).collect() };
    let t = t.to_string();
    let r = std::panic::catch_unwind(move || { let _ = &t; run_scenario(&src, &opts, &mut |_| {}).map(|_| ()) });
    match r { Ok(v) => format!("{v:?}"), Err(e) => format!("PANIC {:?}", e.downcast_ref::<String>().cloned().or(e.downcast_ref::<&str>().map(|s| s.to_string()))) }
}
#[test]
fn explore() {
    let b = base();
    let tr = b.replace("[tenants.synthetic]\nrequests = 10", "[tenants.trace]\npath = \"msr.csv\"\nformat = \"msr\"");
    let two = b.clone() + "[[tenants]]\nname = \"b\"\nnamespace_fraction = 0.5\n[tenants.synthetic]\nrequests = 20\n";
    let mq = b.replace("[tenants.synthetic]\nrequests = 10", "[tenants.trace]\npath = \"mqsim.trace\"\nformat = \"mqsim\"");
    let gib = b.replace("namespace_fraction = 0.5", "namespace_gib = 1e-12");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let cases: Vec<(String, String, Vec<String>)> = vec![
        ("mq ok".into(), mq.clone(), s(&[])),
        ("mq ts huge".into(), mq.clone(), s(&["tenants.0.trace.time_scale=1e300", "measure.window_s=86400"])),
        ("mq ts 1e12".into(), mq.clone(), s(&["tenants.0.trace.time_scale=1e12", "measure.window_s=86400"])),
        ("mq maxreq 0".into(), mq.clone(), s(&["tenants.0.trace.max_requests=0"])),
        ("mq closed".into(), mq.clone(), s(&["tenants.0.trace.replay=closed"])),
        ("cmd i64max".into(), b.clone(), s(&["device.timing.command_ns=9223372036854775807"])),
        ("cmd 1e12".into(), b.clone(), s(&["device.timing.command_ns=1000000000000"])),
        ("part die ovf".into(), two.clone(), s(&["schemes=[\"partitioned\"]", "scheme.partitioned.by=\"die\"", "scheme.partitioned.shares=[4294967295, 5]"])),
        ("part ch ovf".into(), two.clone(), s(&["schemes=[\"partitioned\"]", "scheme.partitioned.shares=[4294967295, 3]"])),
        ("gib tiny".into(), gib.clone(), s(&[])),
        ("start 1.8e10".into(), b.clone(), s(&["tenants.0.start_s=1.8e10", "measure.window_s=86400"])),
        ("start 1e9 dur 1e10".into(), b.clone(), s(&["tenants.0.start_s=1e9", "tenants.0.duration_s=1.8e10", "measure.window_s=86400"])),
        ("warmup>dur".into(), b.clone(), s(&["measure.warmup_s=5", "measure.duration_s=1"])),
        ("read_us 1e6 many".into(), b.clone(), s(&["device.timing.read_us=1e6", "device.timing.program_us=1e6","device.timing.erase_us=1e6", "measure.window_s=86400"])),
        ("reserve 40".into(), b.clone(), s(&["ftl.gc_reserve_blocks=40"])),
        ("low 20".into(), b.clone(), s(&["ftl.gc_low_watermark_blocks=20"])),
        ("fill seq".into(), b.clone(), s(&["precondition.order=sequential", "precondition.fill_fraction=1"])),
        ("ns 2 full".into(), two.clone(), s(&["tenants.1.namespace_fraction=0.6"])),
        ("257 names".into(), two.clone(), s(&["tenants.b.name=web"])),
    ];
    for (n, t, o) in cases {
        println!("{n}: {:?} => {}", o, run(&t, &o));
    }
}
