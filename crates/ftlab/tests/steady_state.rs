//! The closed-form fill (`precondition.overwrites = "closed_form"`, `simulation::steady`)
//! against the simulated one: under a uniform random writer on the baseline scheme, the
//! timed run's device WAF after each must agree. The closed form writes the steady state of
//! uniform random overwrites under FIFO cleaning (Desnoyers, ACM TOS 2014; Hu et al., SYSTOR
//! 2009): a unit written at log position x is valid with probability alpha^(1 - x), where
//! alpha = exp(-(P / U)(1 - alpha)) is the victim's valid fraction and 1 / (1 - alpha) the
//! WAF, which is Xiang & Kurkoski's Eq. (10) (ICNC 2012; tests/waf_model.rs). The run is short
//! (a quarter of the logical capacity written), so the WAF it measures is that of the state
//! the fill left; a plain fill (no overwrites) must miss the simulated WAF by more than the
//! tolerance, so the check can fail.
//!
//! Not here: the integrity of the closed-form fill under every scheme and mapper
//! (tests/integrity.rs), its key's errors (tests/scenario_errors.rs).

use crate::common;
use crate::waf_model::{scenario_with, BLOCKS_PER_DIE, DIES, PAGES_PER_BLOCK};

use common::run;

/// Tolerance of the closed form's WAF against the simulated fill's (relative). The model is
/// the limit of infinitely many pages per block under FIFO; with 128 pages per block greedy
/// finds victims emptier than it, and tests/waf_model.rs bounds that gap at 5% below Eq. (10).
/// The closed-form state starts on the model's profile and the simulated one on greedy's
/// own, so their runs may differ by that much.
const TOLERANCE: f64 = 0.05;

/// The timed run's device WAF on tests/waf_model.rs's device and writer, filled with `passes`
/// overwrite passes (`overwrites`: simulated or in closed form), no warm-up, writing a
/// quarter of the logical capacity.
fn waf(op: f64, policy: &str, passes: f64, overwrites: &str) -> f64 {
    let physical = DIES * BLOCKS_PER_DIE * PAGES_PER_BLOCK;
    let requests = (physical as f64 / (1.0 + op) / 4.0) as u64;
    let precondition = format!("overwrites = \"{overwrites}\"\nmode = \"fill\"");
    let s = run(&scenario_with(op, policy, passes, &precondition, requests), &[]);
    s["schemes"]["unified"]["device"]["waf"].as_f64().expect("waf")
}

#[test]
fn closed_form_waf_matches_the_simulated_fill() {
    for (op, policy) in [(0.1, "greedy"), (0.3, "greedy"), (0.1, "cost-benefit")] {
        let simulated = waf(op, policy, 3.0, "simulate");
        let closed = waf(op, policy, 3.0, "closed_form");
        let plain = waf(op, policy, 0.0, "simulate");
        let off = |w: f64| (w - simulated).abs() / simulated;
        println!(
            "op {op} {policy}: WAF after 3 simulated passes {simulated:.3}, closed form {closed:.3} ({:.1}% \
             off), plain fill {plain:.3} ({:.1}% off)",
            off(closed) * 100.0,
            off(plain) * 100.0
        );
        assert!(off(closed) <= TOLERANCE, "op {op} {policy}: closed form {closed}, simulated {simulated}");
        assert!(off(plain) > TOLERANCE, "op {op} {policy}: the check cannot tell a plain fill ({plain})");
    }
}
