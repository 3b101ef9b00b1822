//! The integration tests of the ftlab crate in one test binary: each module below is one
//! file of tests/, whose own `//!` says what it checks. One binary links once and runs every
//! file's tests on every core. Four files stay binaries of their own (Cargo.toml's `[[test]]`
//! tables): `generator`, `latency` and `periodic` count the process's allocations through a
//! global allocator (`common/counting_alloc.rs`), which other tests running beside them would
//! disturb, and `integrity` is the binary `scripts/soak.sh` runs seed by seed. It is not a test
//! of its own, except `every_test_file_is_built`: a file of tests/ that is neither a module here
//! nor a `[[test]]` target would never be compiled (Cargo.toml sets `autotests = false`).

mod common;

#[path = "array.rs"]
mod array;
#[path = "autostream.rs"]
mod autostream;
#[path = "conventional.rs"]
mod conventional;
#[path = "cosmos.rs"]
mod cosmos;
#[path = "determinism.rs"]
mod determinism;
#[path = "engine.rs"]
mod engine;
#[path = "fair.rs"]
mod fair;
#[path = "fdp.rs"]
mod fdp;
#[path = "flashblox.rs"]
mod flashblox;
#[path = "gc_hooks.rs"]
mod gc_hooks;
#[path = "health.rs"]
mod health;
#[path = "host.rs"]
mod host;
#[path = "iod.rs"]
mod iod;
#[path = "isolation.rs"]
mod isolation;
#[path = "knobs.rs"]
mod knobs;
#[path = "layers.rs"]
mod layers;
#[path = "lifetime.rs"]
mod lifetime;
#[path = "lifetime_model.rs"]
mod lifetime_model;
#[path = "operation_errors.rs"]
mod operation_errors;
#[path = "parsers.rs"]
mod parsers;
#[path = "part_ftl.rs"]
mod part_ftl;
#[path = "rt.rs"]
mod rt;
#[path = "rtgc.rs"]
mod rtgc;
#[path = "scenario_errors.rs"]
mod scenario_errors;
#[path = "solo.rs"]
mod solo;
#[path = "steady_state.rs"]
mod steady_state;
#[path = "streams.rs"]
mod streams;
#[path = "swap_policy.rs"]
mod swap_policy;
#[path = "timing.rs"]
mod timing;
#[path = "trace_errors.rs"]
mod trace_errors;
#[path = "traces_e2e.rs"]
mod traces_e2e;
#[path = "upi.rs"]
mod upi;
#[path = "vstream_device.rs"]
mod vstream_device;
#[path = "waf_model.rs"]
mod waf_model;
#[path = "wao_gc.rs"]
mod wao_gc;
#[path = "warm.rs"]
mod warm;
#[path = "wear.rs"]
mod wear;

/// Every `.rs` file directly in tests/ is a module of this binary or a `[[test]]` target of
/// Cargo.toml, so none is left unbuilt by `autotests = false`.
#[test]
fn every_test_file_is_built() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let this = std::fs::read_to_string(root.join("tests/integration.rs")).expect("tests/integration.rs");
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let mut unbuilt = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).expect("tests/") {
        let name = entry.expect("a directory entry").file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        let module = this.contains(&format!("#[path = \"{name}\"]\nmod {stem};"));
        let target = cargo.contains(&format!("path = \"tests/{name}\""));
        if !(module || target) {
            unbuilt.push(name);
        }
    }
    assert!(
        unbuilt.is_empty(),
        "test files neither a module of tests/integration.rs nor a [[test]]: {unbuilt:?}"
    );
}
