//! Scratch: run a scenario file natively with overrides and print wall and CPU time.
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("scenario path");
    let overrides: Vec<String> = args.collect();
    let t = std::time::Instant::now();
    let opts = ftlab::RunOptions { seed: None, overrides, jobs: Some(1) };
    let out =
        ftlab::run_scenario(&ftlab::ScenarioSource::File(path.into()), &opts, &mut |_| {}).expect("run");
    println!("wall {:.2} s", t.elapsed().as_secs_f64());
    let h = format!("{:x}", md5ish(&out.summary_json));
    println!("summary hash {h}");
}
fn md5ish(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}
