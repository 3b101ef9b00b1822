//! Lifetime metrics of every run (`metrics/lifetime.rs`, docs/lifetime.md): per channel, per
//! tenant and per device erase counts, erase rates, wear imbalance and projected lifetime at
//! `device.pe_cycles`. The summary's numbers are checked against the per-block wear table
//! (a separate count: erase counts at the end minus those at the end of preconditioning) and
//! the projection against its equation computed here; `device.pe_cycles` is validated.

use crate::common;

use common::{run_raw, tiny_on};
use ftlab::{Column, Table};
use serde_json::Value;

/// Two tenants on channels of their own (`partitioned` by channel): `hot` overwrites at
/// random, `cold` only reads. Warm-up 0: the measured phase starts after preconditioning.
fn scenario(scheme: &str, device: &str) -> String {
    let tenants = r#"
[scheme.partitioned]
by = "channel"
shares = [1, 1]
[measure]
duration_s = 3.0
[[tenants]]
name = "hot"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
arrival = "closed"
requests = 40000
[[tenants]]
name = "cold"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "uniform"
read_ratio = 1.0
arrival = "closed"
requests = 4000
"#;
    tiny_on(&[scheme], device, "", tenants)
}

fn column<'t>(t: &'t Table, name: &str) -> &'t [u64] {
    match &t.columns.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no column {name}")).1 {
        Column::U64(v) => v,
        _ => panic!("column {name} is not u64"),
    }
}

/// Eq. of docs/lifetime.md: days = (pe_cycles - erase_count_max) * blocks / erase_rate / 86400.
fn projected_days(pe: f64, max: f64, blocks: f64, rate: f64) -> f64 {
    (pe - max) * blocks / rate / 86_400.0
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{what}: {a} vs {b}");
}

#[test]
fn channel_wear_matches_the_block_table_and_the_projection() {
    let out = run_raw(&scenario("partitioned", "pe_cycles = 500"), &[]).expect("runs");
    let s: Value = serde_json::from_str(&out.summary_json).unwrap();
    let p = &s["schemes"]["partitioned"];
    let (ch, end, pre) = (
        column(&out.wear, "channel"),
        column(&out.wear, "erase_count"),
        column(&out.wear, "erase_count_precondition"),
    );
    let secs = p["device"]["measured_s"].as_f64().unwrap();
    assert!(secs > 0.5, "measured {secs} s");
    let mut firsts = Vec::new();
    for c in 0..2u64 {
        let row = &p["channels"][c as usize];
        let idx: Vec<usize> = (0..ch.len()).filter(|&i| ch[i] == c).collect();
        let erased: u64 = idx.iter().map(|&i| end[i] - pre[i]).sum();
        let max = idx.iter().map(|&i| end[i]).max().unwrap();
        let min = idx.iter().map(|&i| end[i]).min().unwrap();
        let mean = idx.iter().map(|&i| end[i] as f64).sum::<f64>() / idx.len() as f64;
        assert_eq!(row["channel"].as_u64(), Some(c));
        assert_eq!(row["blocks"].as_u64(), Some(idx.len() as u64));
        assert_eq!(row["erases"].as_u64(), Some(erased), "channel {c}: erases vs the wear table");
        assert_eq!(row["erase_count_max"].as_u64(), Some(max));
        assert_eq!(row["erase_count_min"].as_u64(), Some(min));
        close(row["erase_count_mean"].as_f64().unwrap(), mean, "mean");
        close(row["wear_imbalance"].as_f64().unwrap(), max as f64 / mean, "imbalance");
        let rate = erased as f64 / secs;
        close(row["erase_rate_per_s"].as_f64().unwrap(), rate, "rate");
        if erased > 0 {
            let days = projected_days(500.0, max as f64, idx.len() as f64, rate);
            close(row["lifetime_days"].as_f64().unwrap(), days, "channel lifetime");
            firsts.push(days);
        } else {
            assert!(row["lifetime_days"].is_null(), "a channel never erased never wears out");
        }
    }
    // The hot tenant's channel is erased, the reader's is not (reads erase nothing).
    assert!(p["channels"][0]["erases"].as_u64().unwrap() > 50);
    assert_eq!(p["channels"][1]["erases"].as_u64(), Some(0));
    let d = &p["device"];
    assert_eq!(d["pe_cycles"].as_u64(), Some(500));
    close(
        d["lifetime_days"].as_f64().unwrap(),
        firsts.iter().copied().fold(f64::INFINITY, f64::min),
        "first channel",
    );
    // Balanced: the same erases spread over both channels' blocks, so (with the same most-worn
    // block) it lasts longer than the first channel by the ratio of blocks.
    let all = ch.len() as f64;
    let dmax = *end.iter().max().unwrap() as f64;
    let drate = d["erases"].as_f64().unwrap() / secs;
    close(d["lifetime_days_balanced"].as_f64().unwrap(), projected_days(500.0, dmax, all, drate), "balanced");
    close(d["erase_rate_imbalance"].as_f64().unwrap(), 2.0, "one channel does all erases: max/mean = 2");
    // Tenants: hot's erases are its channel's; cold's data is never erased.
    assert_eq!(p["tenants"]["hot"]["wear"]["erases"], p["channels"][0]["erases"]);
    assert_eq!(p["tenants"]["cold"]["wear"]["erases"].as_u64(), Some(0));
    assert!(p["tenants"]["cold"]["wear"]["lifetime_days"].is_null());
}

#[test]
fn every_scheme_reports_lifetime() {
    for scheme in ["unified", "upi", "partitioned"] {
        let out = run_raw(&scenario(scheme, ""), &[]).expect("runs");
        let s: Value = serde_json::from_str(&out.summary_json).unwrap();
        let p = &s["schemes"][scheme];
        assert_eq!(p["device"]["pe_cycles"].as_u64(), Some(3000), "{scheme}: the default endurance");
        let ch: u64 = p["channels"].as_array().unwrap().iter().map(|c| c["erases"].as_u64().unwrap()).sum();
        assert_eq!(
            ch,
            p["device"]["erases"].as_u64().unwrap(),
            "{scheme}: channel erases sum to the device's"
        );
        let t: u64 =
            ["hot", "cold"].iter().map(|t| p["tenants"][t]["wear"]["erases"].as_u64().unwrap()).sum();
        assert_eq!(t, ch, "{scheme}: every erased block held some tenant's data");
        assert!(p["device"]["lifetime_days"].as_f64().unwrap() > 0.0, "{scheme}");
    }
}

#[test]
fn pe_cycles_out_of_range_is_a_precise_error() {
    for bad in ["0", "1000001"] {
        let e = run_raw(&scenario("unified", &format!("pe_cycles = {bad}")), &[])
            .expect_err("rejected")
            .to_string();
        assert!(e.contains("device.pe_cycles") && e.contains("[1, 1000000]") && e.contains(bad), "{e}");
    }
    let e = run_raw(&scenario("unified", "pe_cycles = -3"), &[]).expect_err("rejected").to_string();
    assert!(e.contains("pe_cycles"), "{e}");
}
