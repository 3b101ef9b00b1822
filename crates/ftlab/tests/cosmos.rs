//! The `cosmos` preset (PaRT-FTL paper §II-A, Table I): its times are the least-squares fit
//! of `flash::cosmos_fit`, and the flash array with them shows Table I's shape: 4 reads on the
//! 4 ways of a channel are no faster than 4 on one die, 4 reads on 4 channels are at least 3x
//! faster, and writes and erases gain from way interleaving and from channel striping.

use ftlab::internals::flash::array::{ArrayOp, FlashArray};
use ftlab::internals::flash::cosmos_fit::{fit, model_row, TABLE_I_AVG_MS};
use ftlab::internals::flash::geometry::{DieIdx, Geometry};
use ftlab::internals::flash::timing::Timing;
use ftlab::internals::scenario::presets::{
    self, COSMOS_CHANNEL_MTS, COSMOS_ERASE_US, COSMOS_PROGRAM_US, COSMOS_READ_US,
};
use ftlab::SimTime;

#[test]
fn the_fit_is_least_squares_and_physical() {
    let f = fit();
    let p = [f.read_ms, f.transfer_ms, f.program_ms, f.erase_ms];
    assert!(p.iter().all(|&x| x > 0.0), "a negative time: {p:?}");
    // Least squares: the residual is orthogonal to every column of the model (Aᵀ(Ap − b) = 0).
    for col in 0..4 {
        let dot: f64 = TABLE_I_AVG_MS
            .iter()
            .enumerate()
            .map(|(i, (op, pl, avg))| model_row(op, pl)[col] * (f.predicted_ms[i] - avg))
            .sum();
        assert!(dot.abs() < 1e-9, "column {col}: Aᵀr = {dot}");
    }
    // The erase rows alone: t_E = (3.84 + 3.84 + 4 · 12.6) / (1 + 1 + 16) = 58.08 / 18 = 3.22667.
    assert!((f.erase_ms - 58.08 / 18.0).abs() < 1e-12);
}

#[test]
fn the_preset_holds_the_fit_rounded() {
    let f = fit();
    assert_eq!(COSMOS_READ_US, (f.read_ms * 10_000.0).round() / 10.0);
    assert_eq!(COSMOS_PROGRAM_US, (f.program_ms * 10_000.0).round() / 10.0);
    assert_eq!(COSMOS_ERASE_US, (f.erase_ms * 10_000.0).round() / 10.0);
    assert_eq!(COSMOS_CHANNEL_MTS, (8192.0 / (f.transfer_ms / 1000.0) / 1e6).round() as u32);
    let d = presets::preset("cosmos").expect("preset");
    assert_eq!(
        (d.channels, d.chips_per_channel, d.dies_per_chip, d.pages_per_block, d.page_bytes),
        (Some(4), Some(4), Some(1), Some(256), Some(8192))
    );
    assert_eq!(d.timing.read_holds_channel, Some(true));
}

/// The time for 4 operations of `op` on `dies` (issued at 0, each die taking the next
/// when idle) to complete, on the preset's timing, in ms.
fn four(op: ArrayOp, dies: [u32; 4]) -> f64 {
    let g = Geometry::new(4, 4, 1, 1, 16, 256, 8192, 8192).expect("geometry");
    let t = Timing {
        read: SimTime::from_secs_f64(COSMOS_READ_US / 1e6),
        program: SimTime::from_secs_f64(COSMOS_PROGRAM_US / 1e6),
        erase: SimTime::from_secs_f64(COSMOS_ERASE_US / 1e6),
        command: SimTime::ZERO,
        suspend: SimTime::ZERO,
        channel_mts: COSMOS_CHANNEL_MTS,
        channel_width_bits: 8,
        read_holds_channel: true,
    };
    let mut a = FlashArray::new(g, t);
    let mut free_at = [SimTime::ZERO; 16];
    let mut last = SimTime::ZERO;
    for d in dies {
        let die = DieIdx(d);
        let start = free_at[d as usize];
        let mut end = a.begin(die, op, start);
        if let ArrayOp::Read { bytes } = op {
            end = a.read_transfer(die, bytes, end);
        }
        a.end(die, end);
        free_at[d as usize] = end;
        last = last.max(end);
    }
    last.as_secs_f64() * 1000.0
}

#[test]
fn the_array_shows_table_is_shape() {
    // Dies: die = channel · 4 + way.
    let (same, ways, channels) = ([0, 0, 0, 0], [0, 1, 2, 3], [0, 4, 8, 12]);
    let read = ArrayOp::Read { bytes: 8192 };
    let write = ArrayOp::Program { bytes: 8192 };
    let (r_same, r_way, r_ch) = (four(read, same), four(read, ways), four(read, channels));
    let (w_same, w_way, w_ch) = (four(write, same), four(write, ways), four(write, channels));
    let (e_same, e_way, e_ch) =
        (four(ArrayOp::Erase, same), four(ArrayOp::Erase, ways), four(ArrayOp::Erase, channels));
    // The simulated times are the fitted model's, up to the preset's rounding: each of at
    // most 4 operations carries the bus rate's rounding (8192 B at 43 MT/s against the fitted
    // x) and up to 0.05 us of each time's, plus 1 ns of transfer rounding.
    let f = fit();
    let x_preset_ms = 8192.0 / (COSMOS_CHANNEL_MTS as f64 * 1e6) * 1000.0;
    let tol_ms = 4.0 * ((x_preset_ms - f.transfer_ms).abs() + 0.05e-3 + 1e-6);
    let got = [w_same, w_way, w_ch, r_same, r_way, r_ch, e_same, e_way, e_ch];
    for (i, (op, pl, _)) in TABLE_I_AVG_MS.iter().enumerate() {
        assert!(
            (got[i] - f.predicted_ms[i]).abs() <= tol_ms,
            "{op} {pl}: array {} ms, model {} ms (± {tol_ms})",
            got[i],
            f.predicted_ms[i]
        );
    }
    // Reads: way interleaving gains nothing (Table I: 1.23 vs 1.04 ms); 4 channels are at
    // least 3x faster (Table I: 1.23 / 0.375 = 3.3; the model gives 4).
    assert!(r_way >= r_same, "way reads {r_way} faster than same-die {r_same}");
    assert!(r_way >= 3.0 * r_ch, "channel reads {r_ch} not 3x faster than way reads {r_way}");
    // Writes and erases gain from both.
    assert!(w_way < w_same && w_ch < w_way, "writes: {w_same} {w_way} {w_ch}");
    assert!(e_way < e_same && e_ch <= e_way, "erases: {e_same} {e_way} {e_ch}");
}
