//! Runs one `ftlab bench` case natively (no Python), for profiling:
//! `cargo run --release --example bench_case -- random-write [requests] [KEY=VALUE ...]`,
//! the trailing arguments being scenario overrides as `--set` takes them (for example
//! `scheme.upi.epoch_s=86400` to time `upi-mixed-70r30w` without its epochs).

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "random-write".into());
    let requests = args.next().map(|s| s.parse().expect("requests: an integer")).unwrap_or(1_000_000);
    let overrides: Vec<String> = args.collect();
    match ftlab::api::bench_case_with(&case, requests, &overrides) {
        Ok(r) => println!(
            "{}: {} requests in {:.3} s = {:.0} requests/s (preconditioning {:.3} s)",
            r.case, r.requests, r.wall_s, r.requests_per_s, r.precondition_wall_s
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
