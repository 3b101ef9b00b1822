//! Shared helpers of the integration tests: small scenarios, running them, reading results.
//! Not a test itself.
// Each test binary that includes this module uses only some of its items.
#![allow(dead_code)]

use ftlab::{run_scenario, RunOptions, RunOutput, ScenarioSource};
use std::path::{Path, PathBuf};

/// A scenario on the `tiny` device with `tenants` (TOML `[[tenants]]` blocks) and `extra`
/// top-level tables, integrity oracle on.
pub fn tiny(schemes: &[&str], extra: &str, tenants: &str) -> String {
    tiny_on(schemes, "", extra, tenants)
}

/// `tiny` with extra `[device]` keys (`device`: TOML lines).
pub fn tiny_on(schemes: &[&str], device: &str, extra: &str, tenants: &str) -> String {
    let schemes = schemes.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    format!(
        "seed = 7\nschemes = [{schemes}]\n[device]\npreset = \"tiny\"\n{device}\n[check]\nintegrity = \
         true\n{extra}\n{tenants}"
    )
}

/// Run scenario text and return the parsed summary.json.
pub fn run(text: &str, overrides: &[&str]) -> serde_json::Value {
    let out = run_raw(text, overrides).unwrap_or_else(|e| panic!("scenario failed: {e}"));
    serde_json::from_str(&out.summary_json).expect("summary.json parses")
}

pub fn run_raw(text: &str, overrides: &[&str]) -> Result<RunOutput, ftlab::FtlabError> {
    let source =
        ScenarioSource::Text { text: text.into(), base_dir: PathBuf::from("."), name: "test.toml".into() };
    let opts =
        RunOptions { seed: None, overrides: overrides.iter().map(|s| s.to_string()).collect(), jobs: None };
    run_scenario(&source, &opts, &mut |_| {})
}

/// A fresh file under the system temp dir holding `content`; returns its path.
pub fn temp_file(name: &str, content: &str) -> PathBuf {
    // Tests run in threads and two may write the same name (a file named by its content's
    // hash): each writes a file of its own and renames it over the name, so a reader never
    // sees one truncated by another writer (a run once read an empty trace that way).
    static WRITES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("ftlab-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let own = dir.join(format!(".{name}.{n}.tmp"));
    std::fs::write(&own, content).expect("write temp file");
    std::fs::rename(&own, &path).expect("rename temp file");
    path
}

/// `summary.schemes.<scheme>.tenants.<tenant>.<op>.<key>` as f64.
pub fn metric(summary: &serde_json::Value, scheme: &str, tenant: &str, op: &str, key: &str) -> f64 {
    summary["schemes"][scheme]["tenants"][tenant][op][key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {scheme}.{tenant}.{op}.{key} in summary"))
}

/// The project's copies of the real trace samples: `data/traces` at the repository root
/// (data/traces/README.md gives each one's origin and licence). They are part of the
/// repository, so a test that reads them never skips.
pub fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces")
}

/// The pair of the isolation and solo tests (`tests/isolation.rs`, `tests/solo.rs`): `reader` reads 4 KiB at
/// random, `writer` writes 64 KiB at random; each starts at its `*_start_s` (past the 2 s run = absent). Two
/// channels, one per tenant under `partitioned`.
pub fn reader_writer_pair(reader_start_s: f64, writer_start_s: f64) -> String {
    format!(
        r#"seed = 11
schemes = ["partitioned", "unified"]
[device]
preset = "tiny"
[scheme.partitioned]
by = "channel"
shares = [1, 1]
[measure]
duration_s = 2.0
[[tenants]]
name = "reader"
namespace_fraction = 0.5
start_s = {reader_start_s}
[tenants.synthetic]
pattern = "uniform"
read_ratio = 1.0
arrival = "poisson"
rate_iops = 2000.0
[[tenants]]
name = "writer"
namespace_fraction = 0.5
start_s = {writer_start_s}
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
sizes = [{{ bytes = 65536, weight = 1.0 }}]
arrival = "poisson"
rate_iops = 300.0
"#
    )
}
