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
fn run(t: &str, o: &[&str]) -> String {
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
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("ok", b.clone(), vec![]),
        //("start huge", b.clone(), vec!["tenants.0.start_s=1e300"]),
        ("start+dur inf", b.clone(), vec!["tenants.0.start_s=1e308", "tenants.0.duration_s=1e308"]),
        //("start 1e10", b.clone(), vec!["tenants.0.start_s=1e10", "measure.window_s=86400"]),
        ("cmd max", b.clone(), vec!["device.timing.command_ns=18446744073709551615"]),
        ("warmup huge", b.clone(), vec!["measure.warmup_s=1e300"]),
        ("ns gib tiny", b.clone(), vec!["tenants.0.namespace_gib=1e-12", "tenants.0.namespace_fraction=0.0"]),
        ("trace ok", tr.clone(), vec![]),
        ("trace ts huge", tr.clone(), vec!["tenants.0.trace.time_scale=1e300"]),
        ("trace missing", tr.clone(), vec!["tenants.0.trace.path=nope.csv"]),
        ("trace scale", tr.clone(), vec!["tenants.0.trace.address_map=scale"]),
        ("trace reject", tr.clone(), vec!["tenants.0.trace.address_map=reject"]),
        ("trace maxreq0", tr.clone(), vec!["tenants.0.trace.max_requests=0"]),
        ("part die overflow", b.clone(), vec!["schemes=[\"partitioned\"]", "scheme.partitioned.by=die", "scheme.partitioned.shares=[4294967295, 5]"]),
        ("part die overflow2", b.clone(), vec!["schemes=[\"partitioned\"]", "scheme.partitioned.by=channel", "scheme.partitioned.shares=[4294967295, 3]"]),
        ("big sizes", b.clone(), vec!["tenants.0.synthetic.sizes=[{bytes=1048576}]", "tenants.0.namespace_fraction=0.001"]),
        ("reserve big", b.clone(), vec!["ftl.gc_reserve_blocks=4294967295"]),
        ("low big", b.clone(), vec!["ftl.gc_low_watermark_blocks=4294967295"]),
        ("wb", b.clone(), vec!["ftl.write_buffer_bytes=65536"]),
        ("qd 65536", b.clone(), vec!["tenants.0.queue_depth=65536"]),
        ("swl gap", b.clone(), vec!["ftl.static_wear_leveling_gap=1"]),
        ("op 4", b.clone(), vec!["device.over_provisioning=4"]),
        ("op tiny", b.clone(), vec!["device.over_provisioning=1e-300", "tenants.0.namespace_fraction=1.0"]),
        ("bigpage", b.clone(), vec!["device.page_bytes=65536", "device.mapping_unit_bytes=4096"]),
        ("unit 512", b.clone(), vec!["device.mapping_unit_bytes=512"]),
        ("streams 16", b.clone(), vec!["ftl.physical_streams=16"]),
        ("align 512", b.clone(), vec!["tenants.0.synthetic.align_bytes=512", "tenants.0.synthetic.sizes=[{bytes=512}]"]),
        ("fixed closed", b.clone(), vec!["tenants.0.synthetic.arrival=closed"]),
        ("fill 1 op tiny", b.clone(), vec!["precondition.fill_fraction=1.0", "tenants.0.namespace_fraction=1.0", "device.over_provisioning=0.001"]),
        ("dur tiny", b.clone(), vec!["measure.duration_s=1e-9"]),
        ("tenant dur tiny", b.clone(), vec!["tenants.0.duration_s=1e-300"]),
        ("dram", b.clone(), vec!["ftl.dram_latency_us=0.001"]),
        ("erase small", b.clone(), vec!["device.timing.read_us=1e-9", "device.timing.program_us=1e-9", "device.timing.erase_us=1e-9"]),
        ("many tenants partitioned", b.clone(), vec!["schemes=[\"partitioned\"]", "scheme.partitioned.by=die", "scheme.partitioned.shares=[4]", "tenants.0.namespace_fraction=1.0"]),
    ];
    for (n, t, o) in cases {
        println!("{n}: {:?} => {}", o, run(&t, &o));
    }
}
