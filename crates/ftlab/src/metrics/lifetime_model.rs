//! The fast-forward lifetime model behind `ftlab lifetime` (docs/lifetime.md) and the
//! FlashBlox swap bound (slides: K ≥ (N−1−x)/(N·x)). The model takes each channel's erase
//! rate (per vSSD, measured by a detailed run) and each swap's measured cost, and advances
//! wear analytically, event to event (swap checks, swap ends, wear-out), with the same swap
//! rule as `scheme::flashblox`, so years take microseconds. Pure arithmetic on plain data:
//! extracting the inputs from a run's `summary.json` is `inputs_from_run`; no file I/O, no
//! simulation.

use crate::error::FtlabError;
use serde_json::{json, Value};

/// The real-valued bound of the slides: rounds of cycling K after which the wear imbalance
/// (max / mean) of `n` channels is at most `1 + x`: K ≥ (N − 1 − x) / (N·x).
pub fn swap_rounds_bound(n: u32, x: f64) -> f64 {
    (n as f64 - 1.0 - x) / (n as f64 * x)
}

/// The slides' wear imbalance after `k` rounds of cycling over `n` channels:
/// (K + 1) / (K + 1/N) (the most-worn channel took one round more than the average).
pub fn imbalance_after_rounds(n: u32, k: f64) -> f64 {
    (k + 1.0) / (k + 1.0 / n as f64)
}

fn usage(arg: &str, reason: String) -> FtlabError {
    FtlabError::Usage { arg: arg.to_string(), reason }
}

/// No vSSD may swap this channel.
pub const FIXED: u16 = u16::MAX;

/// What the model advances.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInput {
    pub pe_cycles: f64,
    /// Per channel: blocks, most-worn block's erase count at time 0, erase rate (erases a
    /// second over the whole channel) of the load it holds at time 0, and the vSSD holding it
    /// (`FIXED` if it cannot be swapped).
    pub blocks: Vec<f64>,
    pub wear_start: Vec<f64>,
    pub rate_per_s: Vec<f64>,
    pub owner: Vec<u16>,
    /// The swap rule (`[scheme.flashblox]`) and each swap's cost.
    pub swap_threshold: f64,
    pub swap_interval_min_s: f64,
    pub epoch_s: f64,
    pub swap_time_s: f64,
    /// Erases one swap adds to each of its two channels.
    pub swap_erases: f64,
}

/// What the model found.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRun {
    /// When the first channel's most-worn block reaches `pe_cycles` (`None`: never).
    pub first_wear_out_s: Option<f64>,
    /// Start time of every swap up to the wear-out (or the horizon).
    pub swap_times_s: Vec<f64>,
    /// (time, wear of each channel) at time 0, at each swap's start and end, and at the end;
    /// wear is linear in between.
    pub series: Vec<(f64, Vec<f64>)>,
}

/// Most swaps one model run may make (a bound, reported when reached).
pub const SWAPS_MAX: usize = 1_000_000;

impl ModelInput {
    fn slope(&self, c: usize, rate: &[f64]) -> f64 {
        rate[c] / self.blocks[c]
    }

    /// Time from now until some channel reaches `pe_cycles` at the current rates.
    fn time_to_wear_out(&self, wear: &[f64], rate: &[f64]) -> Option<f64> {
        (0..wear.len())
            .filter_map(|c| {
                let left = self.pe_cycles - wear[c];
                let s = self.slope(c, rate);
                if left <= 0.0 {
                    Some(0.0)
                } else if s > 0.0 {
                    Some(left / s)
                } else {
                    None
                }
            })
            .min_by(f64::total_cmp)
    }

    /// The pair the swap rule picks now (`scheme::flashblox::swap_pair` on constant rates):
    /// `Ok(Some)` swap, `Ok(None)` not now but maybe later (the most-worn channel wears slowest),
    /// `Err(())` never (rates balanced within the threshold, or fewer than two vSSDs).
    fn pick(&self, wear: &[f64], rate: &[f64], owner: &[u16]) -> Result<Option<(usize, usize)>, ()> {
        let sw: Vec<usize> = (0..wear.len()).filter(|&c| owner[c] != FIXED).collect();
        if sw.len() < 2 {
            return Err(());
        }
        let mean = sw.iter().map(|&c| rate[c]).sum::<f64>() / sw.len() as f64;
        let max = sw.iter().map(|&c| rate[c]).fold(0.0, f64::max);
        if mean <= 0.0 || max / mean <= self.swap_threshold {
            return Err(());
        }
        let hot = *sw.iter().max_by(|&&a, &&b| wear[a].total_cmp(&wear[b]).then(b.cmp(&a))).expect("two channels");
        let cool = sw
            .iter()
            .copied()
            .filter(|&c| owner[c] != owner[hot])
            .min_by(|&a, &b| rate[a].total_cmp(&rate[b]).then(wear[a].total_cmp(&wear[b])).then(a.cmp(&b)));
        match cool {
            None => Err(()),
            Some(cool) if rate[hot] > rate[cool] => Ok(Some((hot, cool))),
            Some(_) => Ok(None),
        }
    }

    /// Earliest time from now at which another channel's wear passes the most-worn one's.
    fn next_crossing(&self, wear: &[f64], rate: &[f64], owner: &[u16]) -> Option<f64> {
        let sw: Vec<usize> = (0..wear.len()).filter(|&c| owner[c] != FIXED).collect();
        let hot = *sw.iter().max_by(|&&a, &&b| wear[a].total_cmp(&wear[b]).then(b.cmp(&a)))?;
        sw.iter()
            .filter(|&&c| c != hot && self.slope(c, rate) > self.slope(hot, rate))
            .map(|&c| (wear[hot] - wear[c]) / (self.slope(c, rate) - self.slope(hot, rate)))
            .min_by(f64::total_cmp)
    }

    fn on_epoch_grid(&self, t: f64) -> f64 {
        if self.epoch_s > 0.0 {
            (t / self.epoch_s - 1e-9).ceil() * self.epoch_s
        } else {
            t
        }
    }

    /// Advance wear from time 0 to the first wear-out or `horizon_s`, swapping when `swaps`.
    pub fn run(&self, swaps: bool, horizon_s: f64) -> ModelRun {
        self.run_to(swaps, horizon_s, true)
    }

    /// As `run`, going on past the first wear-out to `horizon_s` unless `stop_at_wear_out`
    /// (the device of the model does not stop; the count of swaps over a fixed span does).
    pub fn run_to(&self, swaps: bool, horizon_s: f64, stop_at_wear_out: bool) -> ModelRun {
        let (mut wear, mut rate, mut owner) = (self.wear_start.clone(), self.rate_per_s.clone(), self.owner.clone());
        let mut out = ModelRun { first_wear_out_s: None, swap_times_s: Vec::new(), series: vec![(0.0, wear.clone())] };
        let mut t = 0.0;
        let mut check = if swaps { Some(self.on_epoch_grid(self.swap_interval_min_s)) } else { None };
        while t < horizon_s && out.swap_times_s.len() < SWAPS_MAX {
            let until_out = if out.first_wear_out_s.is_none() { self.time_to_wear_out(&wear, &rate).map(|d| t + d) } else { None };
            let next = check.unwrap_or(f64::INFINITY).min(until_out.unwrap_or(f64::INFINITY)).min(horizon_s);
            let dt = next - t;
            for (c, w) in wear.iter_mut().enumerate() {
                *w += self.slope(c, &rate) * dt;
            }
            t = next;
            if until_out.is_some_and(|w| w <= t) {
                out.first_wear_out_s = Some(t);
                if stop_at_wear_out {
                    break;
                }
            }
            if check.is_none_or(|ct| ct > t) {
                continue;
            }
            match self.pick(&wear, &rate, &owner) {
                Err(()) => check = None,
                Ok(None) => check = self.next_crossing(&wear, &rate, &owner).map(|d| self.on_epoch_grid(t + d.max(self.epoch_s))),
                Ok(Some((hot, cool))) => {
                    out.swap_times_s.push(t);
                    out.series.push((t, wear.clone()));
                    rate.swap(hot, cool);
                    owner.swap(hot, cool);
                    for c in [hot, cool] {
                        wear[c] += self.swap_erases / self.blocks[c];
                    }
                    let end = t + self.swap_time_s;
                    for (c, w) in wear.iter_mut().enumerate() {
                        *w += self.slope(c, &rate) * self.swap_time_s;
                    }
                    t = end;
                    out.series.push((t, wear.clone()));
                    check = Some(self.on_epoch_grid(end + self.swap_interval_min_s));
                }
            }
        }
        out.series.push((t, wear));
        out
    }
}

/// The model's input from a detailed run: its `summary.json` text, its resolved scenario
/// (for `[scheme.flashblox]`) and the scheme's name. A flashblox run gives per-vSSD rates
/// (its tenants' `wear.erase_rate_per_s`, less the erases its swaps caused, spread over its
/// channels) and swap costs; any other scheme gives per-channel rates and no swaps.
pub fn inputs_from_run(summary: &str, resolved_toml: &str, scheme: &str) -> Result<ModelInput, FtlabError> {
    let bad = |key: &str, why: &str| usage("summary.json", format!("schemes.{scheme}.{key}: {why}"));
    let s: Value = serde_json::from_str(summary).map_err(|e| usage("summary.json", format!("not JSON: {e}")))?;
    let p = s["schemes"].get(scheme).ok_or_else(|| bad("", "no such scheme in this run"))?;
    let num = |v: &Value, key: &str| v.as_f64().ok_or_else(|| bad(key, "missing or not a number (a run of an older ftlab?)"));
    let pe_cycles = num(&p["device"]["pe_cycles"], "device.pe_cycles")?;
    let channels = p["channels"].as_array().ok_or_else(|| bad("channels", "missing"))?;
    let mut input = ModelInput {
        pe_cycles,
        blocks: Vec::new(),
        wear_start: Vec::new(),
        rate_per_s: Vec::new(),
        owner: vec![FIXED; channels.len()],
        swap_threshold: f64::INFINITY,
        swap_interval_min_s: 0.0,
        epoch_s: 0.0,
        swap_time_s: 0.0,
        swap_erases: 0.0,
    };
    for (i, c) in channels.iter().enumerate() {
        input.blocks.push(num(&c["blocks"], &format!("channels.{i}.blocks"))?);
        input.wear_start.push(num(&c["erase_count_max_start"], &format!("channels.{i}.erase_count_max_start"))?);
        input.rate_per_s.push(num(&c["erase_rate_per_s"], &format!("channels.{i}.erase_rate_per_s"))?);
    }
    if scheme == "flashblox" {
        flashblox_inputs(&mut input, p, resolved_toml, &num)?;
    }
    Ok(input)
}

fn flashblox_inputs(input: &mut ModelInput, p: &Value, resolved_toml: &str, num: &dyn Fn(&Value, &str) -> Result<f64, FtlabError>) -> Result<(), FtlabError> {
    use crate::scheme::flashblox::{FlashbloxConfig, Vssd};
    let doc: toml::Table = resolved_toml.parse().map_err(|e: toml::de::Error| usage("scenario.resolved.toml", e.to_string()))?;
    let table = doc.get("scheme").and_then(|s| s.get("flashblox")).cloned().unwrap_or(toml::Value::Table(toml::Table::new()));
    let cfg: FlashbloxConfig = table.try_into().map_err(|e| usage("scenario.resolved.toml", format!("scheme.flashblox: {e}")))?;
    let c = &p["scheme_counters"];
    let n_swaps = num(&c["n_swaps"], "scheme_counters.n_swaps")?;
    let done = num(&c["n_swaps_completed"], "scheme_counters.n_swaps_completed")?;
    let secs = num(&p["device"]["measured_s"], "device.measured_s")?;
    let swap_blocks = num(&c["swap_blocks"], "scheme_counters.swap_blocks")?;
    if cfg.swaps {
        input.swap_threshold = cfg.swap_threshold;
        input.swap_interval_min_s = cfg.swap_interval_min_s;
        input.epoch_s = cfg.epoch_s;
    }
    input.swap_time_s = if done > 0.0 { num(&c["swap_device_time_s"], "scheme_counters.swap_device_time_s")? / done } else { 0.0 };
    input.swap_erases = if n_swaps > 0.0 { swap_blocks / n_swaps / 2.0 } else { 0.0 };
    // Channel vSSDs hold consecutive channels from 0 at the start (`flashblox::allocate`).
    let tenants: Vec<&Value> = p["tenants"].as_object().map(|m| m.values().collect()).unwrap_or_default();
    let rates: Vec<f64> = tenants.iter().enumerate().map(|(t, v)| num(&v["wear"]["erase_rate_per_s"], &format!("tenants.{t}.wear.erase_rate_per_s"))).collect::<Result<_, _>>()?;
    let total: f64 = rates.iter().sum();
    // The swaps' own erases are in the measured rates: take them out, in proportion.
    let keep = if total > 0.0 && secs > 0.0 { ((total - swap_blocks / secs) / total).max(0.0) } else { 1.0 };
    let mut next = 0usize;
    for (t, v) in cfg.tenants.iter().enumerate() {
        if let Vssd::Channel { channels } = *v {
            for ch in next..next + channels as usize {
                input.owner[ch] = t as u16;
                input.rate_per_s[ch] = rates.get(t).copied().unwrap_or(0.0) * keep / channels as f64;
            }
            next += channels as usize;
        }
    }
    Ok(())
}

/// `ftlab lifetime`'s answer, as JSON: the inputs, and the model with and without swaps
/// (time to first wear-out in seconds and days, swaps, the wear series).
pub fn lifetime_json(input: &ModelInput, horizon_s: f64) -> String {
    let run = |swaps| {
        let r = input.run(swaps, horizon_s);
        json!({
            "first_wear_out_s": r.first_wear_out_s,
            "first_wear_out_days": r.first_wear_out_s.map(|s| s / 86_400.0),
            "n_swaps": r.swap_times_s.len(),
            "swap_times_s": r.swap_times_s,
            "series": r.series.iter().map(|(t, w)| json!({"t_s": t, "wear": w})).collect::<Vec<_>>(),
        })
    };
    let v = json!({
        "inputs": {
            "pe_cycles": input.pe_cycles,
            "blocks": input.blocks,
            "wear_start": input.wear_start,
            "rate_per_s": input.rate_per_s,
            "owner": input.owner.iter().map(|&o| if o == FIXED { Value::Null } else { json!(o) }).collect::<Vec<_>>(),
            "swap_threshold": if input.swap_threshold.is_finite() { json!(input.swap_threshold) } else { Value::Null },
            "swap_interval_min_s": input.swap_interval_min_s,
            "swap_time_s": input.swap_time_s,
            "swap_erases": input.swap_erases,
        },
        "with_swaps": run(true),
        "without_swaps": run(false),
    });
    serde_json::to_string_pretty(&v).expect("serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slides_example_n16_x01() {
        // (16 − 1 − 0.1) / (16 · 0.1) = 14.9 / 1.6 = 9.3125; the slides print K = 9.
        let k = swap_rounds_bound(16, 0.1);
        assert!((k - 9.3125).abs() < 1e-12, "{k}");
        assert_eq!(k.floor(), 9.0, "the slides' 9 is the bound rounded down (or to nearest)");
        assert_eq!(k.round(), 9.0);
        assert_eq!(k.ceil(), 10.0, "the least integer K that meets the bound");
        // Read back through the imbalance: K = 9 gives 10 / 9.0625 = 1.1034 > 1.1 (misses the
        // target slightly), K = 10 gives 11 / 10.0625 = 1.0932 <= 1.1.
        assert!((imbalance_after_rounds(16, 9.0) - 10.0 / 9.0625).abs() < 1e-12);
        assert!(imbalance_after_rounds(16, 9.0) > 1.1 && imbalance_after_rounds(16, 10.0) <= 1.1);
        assert!((imbalance_after_rounds(16, k) - 1.1).abs() < 1e-12, "the real bound meets 1 + x exactly");
        // "swap NK times": 16 · 9 = 144 (the slides print 148); 5 years / 144 swaps = 12.7 days
        // (the slides: "once per 12 days").
        assert_eq!(16.0 * k.floor(), 144.0);
        assert_eq!((5.0 * 365.0 / 144.0f64).floor(), 12.0);
    }

    fn two_channels() -> ModelInput {
        ModelInput {
            pe_cycles: 100.0,
            blocks: vec![10.0, 10.0],
            wear_start: vec![0.0, 0.0],
            rate_per_s: vec![10.0, 0.0],
            owner: vec![0, 1],
            swap_threshold: 1.5,
            swap_interval_min_s: 1.0,
            epoch_s: 0.5,
            swap_time_s: 0.0,
            swap_erases: 0.0,
        }
    }

    #[test]
    fn no_swaps_wears_the_hot_channel_at_its_rate() {
        // 10 erases/s over 10 blocks = 1 cycle/s: 100 cycles in 100 s.
        let r = two_channels().run(false, 1e9);
        assert_eq!(r.first_wear_out_s, Some(100.0));
        assert!(r.swap_times_s.is_empty());
    }

    #[test]
    fn free_swaps_every_second_double_the_lifetime() {
        // Swapping every 1 s at no cost alternates the load: each channel ages 0.5 cycles/s on
        // average, so wear-out comes at about 200 s (the hot channel of the last second leads
        // by at most 1 cycle: 199 s).
        let r = two_channels().run(true, 1e9);
        let t = r.first_wear_out_s.unwrap();
        assert!((199.0..=200.0).contains(&t), "{t}");
        assert!((198..=200).contains(&r.swap_times_s.len()), "{}", r.swap_times_s.len());
    }
}
