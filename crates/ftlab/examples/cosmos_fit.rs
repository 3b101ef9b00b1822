//! Prints Table I of the PaRT-FTL paper beside ftlab's least-squares fit (`flash::cosmos_fit`)
//! and the `cosmos` preset's times, as the markdown table of docs/devices/cosmos.md.
//! `cargo run --release --example cosmos_fit`.

use ftlab::internals::flash::cosmos_fit::{fit, TABLE_I_AVG_MS};

fn main() {
    let f = fit();
    println!(
        "Fitted: t_R = {:.4} ms, x = {:.4} ms per 8 KiB page, t_P = {:.4} ms, t_E = {:.4} ms\n",
        f.read_ms, f.transfer_ms, f.program_ms, f.erase_ms
    );
    println!("| operation | placement | Table I avg (ms) | fitted model (ms) | residual (ms) |");
    println!("|---|---|---|---|---|");
    for (i, (op, placement, avg)) in TABLE_I_AVG_MS.iter().enumerate() {
        let p = f.predicted_ms[i];
        println!("| {op} | {placement} | {avg} | {p:.3} | {:+.3} |", p - avg);
    }
}
