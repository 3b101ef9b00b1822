//! UUniFast (Bini and Buttazzo, "Measuring the performance of schedulability tests", Real-Time
//! Systems 2005): n task utilisations summing to U, uniformly distributed over that simplex.
//! The PaRT-FTL paper generates its task sets with it (§VI-A). Deterministic for a seeded
//! generator; nothing else.

use rand::Rng;

/// `n` utilisations that sum to `total`: sum_{i} = total; for i in 1..n, next = sum ·
/// u^(1/(n−i)) with u uniform in [0, 1); U_i = sum − next.
pub fn uunifast<R: Rng + ?Sized>(rng: &mut R, n: usize, total: f64) -> Vec<f64> {
    assert!(n >= 1 && total >= 0.0, "UUniFast of {n} tasks summing to {total}");
    let mut out = Vec::with_capacity(n);
    let mut sum = total;
    for i in 1..n {
        let next = sum * rng.random::<f64>().powf(1.0 / (n - i) as f64);
        out.push(sum - next);
        sum = next;
    }
    out.push(sum);
    out
}
