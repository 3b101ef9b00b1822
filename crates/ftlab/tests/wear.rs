//! Wear leveling: under a skewed (hot/cold) workload, static wear leveling keeps the spread of
//! erase counts near its gap, while without it cold blocks are never erased and the spread
//! grows with the skew.

use crate::common;

use common::run;

fn scenario(gap: u32) -> String {
    format!(
        r#"seed = 9
schemes = ["unified"]
[device]
preset = "tiny"
[ftl]
static_wear_leveling_gap = {gap}
[precondition]
fill_fraction = 1.0
overwrite_passes = 0.0
[[tenants]]
name = "hc"
namespace_fraction = 1.0
queue_depth = 8
[tenants.synthetic]
pattern = "hotcold"
hot_fraction = 0.1
hot_access_fraction = 0.95
arrival = "closed"
requests = 300000
"#
    )
}

fn spread(gap: u32) -> u64 {
    let s = run(&scenario(gap), &[]);
    let d = &s["schemes"]["unified"]["device"];
    d["erase_count_max"].as_u64().unwrap() - d["erase_count_min"].as_u64().unwrap()
}

#[test]
fn static_wear_leveling_bounds_the_erase_count_spread() {
    const GAP: u32 = 8;
    // The check keeps every *full* block within GAP erases of the most-erased block of its
    // die; free and open blocks escape it until they fill, so the bound asserted on all blocks
    // is the looser 2 x GAP. Without static wear leveling the cold tenth of the data is never
    // moved and its blocks stay at their preconditioning counts.
    let with = spread(GAP);
    let without = spread(0);
    assert!(with <= 2 * GAP as u64, "spread {with} with static wear leveling (gap {GAP})");
    assert!(without > 4 * GAP as u64, "spread {without} without static wear leveling");
}
