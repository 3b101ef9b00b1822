//! Runs one `ftlab bench` case natively (no Python), for profiling:
//! `cargo run --release --example bench_case -- random-write [requests] [KEY=VALUE ...]`,
//! the trailing arguments being scenario overrides as `--set` takes them (for example
//! `scheme.upi.epoch_s=86400` to time `upi-mixed-70r30w` without its epochs). It prints the
//! wall and thread CPU seconds of the timed run and of preconditioning (`precondition`: of
//! preconditioning alone, also `precondition-closed-form`), or the bytes per mapping unit
//! (`memory-1tb`).

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "random-write".into());
    let requests = args.next().map(|s| s.parse().expect("requests: an integer")).unwrap_or(1_000_000);
    let overrides: Vec<String> = args.collect();
    match ftlab::bench_case_with(&case, requests, &overrides) {
        Ok(r) if r.case == "memory-1tb" => match r.bytes_per_mapping_unit {
            Some(b) => println!("{}: {b:.3} bytes per mapping unit ({:.3} s)", r.case, r.wall_s),
            None => println!("{}: no heap count on this platform", r.case),
        },
        Ok(r) if r.case.starts_with("precondition") => {
            let cpu = r.cpu_s.map_or("-".into(), |c| format!("{c:.3}"));
            println!("{}: preconditioning {:.3} s; thread CPU s {cpu}", r.case, r.wall_s)
        }
        Ok(r) => {
            let cpu = |c: Option<f64>| c.map_or("-".into(), |c| format!("{c:.3}"));
            println!(
                "{}: {} requests in {:.3} s = {:.0} requests/s (preconditioning {:.3} s); thread CPU s: run \
                 {}, preconditioning {}",
                r.case,
                r.requests,
                r.wall_s,
                r.requests_per_s,
                r.precondition_wall_s,
                cpu(r.cpu_s),
                cpu(r.precondition_cpu_s)
            )
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
