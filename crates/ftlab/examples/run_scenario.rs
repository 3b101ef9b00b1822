//! Runs a scenario file natively (no Python), one scheme at a time, for profiling and for
//! before/after comparisons of one scheme over a chosen stretch of simulated time:
//! `cargo run --profile test-release --example run_scenario -- SCENARIO.toml [KEY=VALUE ...] >
//! summary.json`, the trailing arguments being overrides as `--set` takes them (for example
//! `'schemes=["upi"]' measure.duration_s=7200 'measure.phases=[]'`). It writes summary.json
//! to stdout (compare two builds' with `cmp`) and the wall seconds to stderr; it writes no
//! other result file. Not a replacement for `ftlab run`.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario SCENARIO.toml [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let opts = ftlab::RunOptions { seed: None, overrides: args.collect(), jobs: Some(1) };
    let t0 = std::time::Instant::now();
    match ftlab::run_scenario(&ftlab::ScenarioSource::File(path.into()), &opts, &mut |_| {}) {
        Ok(out) => {
            println!("{}", out.summary_json);
            eprintln!("run_scenario: {:.2} s wall", t0.elapsed().as_secs_f64());
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
