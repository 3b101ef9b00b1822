//! Prints Table I of the PaRT-FTL paper beside the `cosmos` preset's board (`flash::board`,
//! `flash::cosmos_fit`): each row's max and avg, paper and ftlab, and the error, as the
//! markdown table of docs/devices/cosmos.md; then Table IV's times as the analyses take them.
//! `cargo run --release --example cosmos_fit`.

use ftlab::internals::flash::board::{analysis_times, BoardConfig, MicroOp};
use ftlab::internals::flash::cosmos_fit::{geometry, measure, unmatched, Column, TABLE_I};
use ftlab::internals::scenario::presets::{COSMOS_ERASE_US, COSMOS_PROGRAM_US, COSMOS_READ_US};
use ftlab::SimTime;

fn main() {
    let us = |v: f64| SimTime((v * 1000.0).round() as u64);
    let times = (us(COSMOS_READ_US), us(COSMOS_PROGRAM_US), us(COSMOS_ERASE_US));
    let cfg = BoardConfig::default();
    println!(
        "tR = {COSMOS_READ_US} us, tPROG = {COSMOS_PROGRAM_US} us, tBERS = {COSMOS_ERASE_US} us, \
         {} B transfers of {} us, status check {} us\n",
        cfg.buffer_bytes, cfg.transfer_us, cfg.status_us
    );
    println!("| row | column | paper (ms) | ftlab (ms) | error | within 10% |");
    println!("|---|---|---|---|---|---|");
    for row in &TABLE_I {
        let (max, avg) = measure(row, &cfg, times);
        let op = match row.op {
            MicroOp::Read => "reads",
            MicroOp::Program => "writes",
            MicroOp::Erase => "erasures",
        };
        for (col, paper, got) in [(Column::Max, row.max, max), (Column::Avg, row.avg, avg)] {
            let err = (got - paper) / paper * 100.0;
            let verdict = if unmatched(row.op, row.placement, col) { "no (see below)" } else { "yes" };
            println!(
                "| 4 {:?} {op} | {col:?} | {paper} | {got:.3} | {err:+.1}% | {verdict} |",
                row.placement
            );
        }
    }
    let (r, w, e) = analysis_times(&geometry(), &cfg, times);
    let ms = |t: SimTime| t.as_secs_f64() * 1e3;
    println!(
        "\nTable IV (the analyses, other ways busy): t_r = {:.3} ms, t_w = {:.3} ms, t_e = {:.3} ms",
        ms(r),
        ms(w),
        ms(e)
    );
}
