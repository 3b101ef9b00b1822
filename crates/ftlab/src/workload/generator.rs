//! Synthetic workload generators: a seeded, deterministic stream of [`TraceRecord`]s drawn
//! from a [`GeneratorConfig`] (address pattern, op mix, request-size mix, arrival process).
//!
//! What this is: a pure function of `(config, namespace size, seed)` to an iterator of
//! records, with O(1) state (apart from the short request-size table) and no heap allocation
//! per request. What this is not: it does not know about the device, the FTL, tenants or
//! queue depth; it does not rebase or schedule anything (closed-loop records all carry time
//! zero and the host decides when to issue them); it reads no file and no clock.
//!
//! # Model
//!
//! Addresses are chosen in whole *pages* of `align_bytes` bytes inside the *footprint*, a
//! region of `footprint_fraction` of the namespace starting at `footprint_offset_fraction` of
//! it (default 0: the namespace's start). Both are rounded down to whole pages (the start
//! `floor(namespace pages × footprint_offset_fraction)`, the length `floor(namespace pages ×
//! footprint_fraction)`), the length is grown to the largest request size if it would be
//! smaller, and the region never passes the namespace's end. Every rule below (patterns,
//! cursors, wrap-around, clamping) is relative to the footprint: page `p` of the footprint is
//! namespace page `start + p`. Several parts of one workload with disjoint regions model a
//! partitioned device (the vStream paper's synthetic benchmark, §5.2). The first page of a
//! request is drawn by the pattern:
//!
//! * `uniform`: every footprint page equally likely.
//! * `zipf`: page rank `k` (1-based) has probability `k^-θ / H(n, θ)` with `H(n, θ) = Σ_{j=1..n} j^-θ` and
//!   `n` the number of footprint pages. Ranks are drawn with [`rand_distr::Zipf`] (rand_distr 0.5), which
//!   samples the exact finite Zipf pmf by rejection from a continuous envelope: O(1) setup (three floats, no
//!   table) and O(1) expected time per sample, for any `n` (10^8 pages is fine) and any `θ > 0` including 1.
//!   Ranks are then mapped to pages by a fixed bijection of `[0, n)` (`Scramble` in this file), so the hot
//!   pages are spread over the footprint instead of packed at its start. The bijection depends only on `n`,
//!   not on the seed: the same footprint always has the same hot pages.
//! * `sequential`: each op (read, write, trim) has its own cursor starting at page 0; a request starts at its
//!   op's cursor, which then advances by the request size. When the request would pass the footprint end, it
//!   starts at page 0 instead (wrap-around); the few pages at the end smaller than the request are skipped on
//!   that pass.
//! * `hotcold`: the hot region is the first `hot_fraction` of the footprint pages (rounded to the nearest
//!   page, at least one page, and at least one cold page when the footprint has two or more). It is
//!   contiguous and *not* scrambled, so an LBA-range classifier can see it; use `zipf` for scattered skew. A
//!   request goes to the hot region with probability `hot_access_fraction`, else to the cold region,
//!   uniformly within the region. A request may extend past the region's end (only the first page is drawn
//!   from the region).
//!
//! **Sequential fractions** (`read_sequential_fraction`, `write_sequential_fraction`, default
//! 0). Reads and writes each keep a cursor, starting at page 0. With its op's fraction as
//! probability, a read (write) starts at its op's cursor, i.e. where the previous read (write)
//! ended; when it would pass the footprint end it starts at page 0 instead (wrap-around, as
//! `sequential`). Otherwise its first page is drawn by the pattern as above. Either way the
//! cursor then moves to the request's end. Trims are never made sequential by a fraction.
//! The pattern's draw is made for every request, even one that then starts at the cursor, so
//! the non-sequential requests get the same addresses as with both fractions 0. With
//! `pattern = "sequential"` every request already starts at its cursor: a fraction other than
//! 0 is rejected (`validate`) rather than silently ignored.
//!
//! For the random patterns, a request whose `offset + size` would pass the footprint end is
//! *clamped by moving its offset back* so that it ends exactly at the footprint end; its size
//! is never truncated. (This gives the last pages of the footprint slightly more mass when
//! requests are larger than a page.)
//!
//! The op is `read` with probability `read_ratio`, `trim` with probability `trim_ratio`, else
//! `write`. The size is drawn from `sizes` with probability proportional to `weight`. Every
//! record carries the virtual stream id `stream` (default 0): the host's stream tag, which
//! the scenario's stream mapper maps to a physical stream; it draws nothing.
//!
//! Arrivals: `poisson` draws exponential gaps of mean `1 / rate_iops` seconds, the first
//! request at active time 0 (times are accumulated in f64 ns and rounded to the nearest ns, so
//! there is no drift); `fixed` issues request `i` at active time `round(i · (interval_us ·
//! 1000))` ns; `closed` gives every record time 0 and leaves the pacing to the host's queue
//! depth.
//!
//! **Time windows** (timed arrivals only). The arrival process runs on an *active* clock that
//! is mapped to the record's time (nanoseconds from the tenant's start) as follows, with every
//! time in whole nanoseconds (`round(x_s · 10^9)`):
//!
//! * `start_s` (default 0) shifts every arrival: active time `a` becomes `start + a`.
//! * `on_s` and `off_s` (both or neither) gate the process: from `start_s`, cycles of an "on" period of
//!   `on_s` then an "off" period of `off_s` repeat, and the active clock runs only during "on" periods, so
//!   active time `a` becomes `start + ⌊a / on⌋ · (on + off) + a mod on`. An arrival never falls in an "off"
//!   period; the rate during "on" periods is the configured one.
//! * `end_s` ends the generator: the first request whose time is at or after `end_s` is not produced, and
//!   neither is any later one.
//!
//! With none of them set, a record's time is its active time, as before these knobs existed.
//! `closed` arrivals reject all four (its records carry no time; use the tenant's `start_s`
//! and `duration_s`).
//!
//! # Randomness
//!
//! Five independent [`Pcg64Mcg`] streams, all derived from the caller's seed, drive the
//! addresses, the ops, the sizes, the arrival gaps and the sequential-fraction coins (one coin
//! per request, drawn only when a fraction is not 0). Changing one knob (say `read_ratio`)
//! therefore leaves the other draws unchanged (common random numbers across experiments);
//! the exceptions are `sequential` and the sequential fractions, whose offsets follow the op
//! sequence by design. The time-window knobs only map times and draw nothing. A draw whose
//! value cannot change the record is not made: the op coin when `read_ratio + trim_ratio`
//! is 0 (every op a write) or `read_ratio` is 1 (every op a read), the size when `sizes`
//! has one entry; each of those streams draws for nothing else, so every record is the one
//! the draw would have given. The Zipf
//! and Poisson draws go through `f64` `powf`/`ln`/`exp`, so a sequence is bit-identical for
//! a given build and platform, not necessarily across platforms' math libraries.

use super::{IoOp, TraceRecord};
use crate::sim::time::{round_u64, SimTime};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, Zipf};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// How the first page of each request is chosen. See the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Every footprint page equally likely.
    #[default]
    Uniform,
    /// Zipf over footprint pages with exponent `zipf_theta`, ranks scrambled over the footprint.
    Zipf,
    /// Per-op cursors that wrap at the footprint end.
    Sequential,
    /// A contiguous hot region at the start of the footprint gets `hot_access_fraction` of the
    /// requests.
    HotCold,
}

/// When requests arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Poisson process at `rate_iops` requests per second (exponential gaps), first at time 0.
    #[default]
    Poisson,
    /// One request every `interval_us` microseconds, first at time 0.
    Fixed,
    /// Every record has time 0; the host replays them at its queue depth (closed loop).
    Closed,
}

/// One entry of the request-size distribution.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeWeight {
    /// Request size in bytes; a positive multiple of `align_bytes`.
    pub bytes: u64,
    /// Relative weight (finite, >= 0; the weights must not all be 0). Default 1.0.
    #[serde(default = "one")]
    pub weight: f64,
}

fn one() -> f64 {
    1.0
}

/// Knobs of a synthetic workload. Every field has a default, so a config names only what it
/// changes; unknown keys are rejected. Call [`GeneratorConfig::validate`] before use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GeneratorConfig {
    /// Address pattern: `"uniform"` (default), `"zipf"`, `"sequential"` or `"hotcold"`.
    pub pattern: Pattern,
    /// Zipf exponent θ (unitless), used by `zipf`. Must be in (0, 10]; 1 is allowed.
    /// Default 0.99 (as YCSB).
    pub zipf_theta: f64,
    /// `hotcold`: fraction of the footprint's pages that are hot, in (0, 1). Default 0.2.
    pub hot_fraction: f64,
    /// `hotcold`: fraction of requests that go to the hot region, in [0, 1]. Default 0.8.
    pub hot_access_fraction: f64,
    /// Probability that a request is a read, in [0, 1]. Default 0.0.
    pub read_ratio: f64,
    /// Probability that a request is a trim, in [0, 1], with `read_ratio + trim_ratio <= 1`.
    /// Default 0.0.
    pub trim_ratio: f64,
    /// Request-size distribution (bytes and relative weight). Default `[{bytes = 4096,
    /// weight = 1.0}]`.
    pub sizes: Vec<SizeWeight>,
    /// Alignment and address granularity in bytes (> 0); every offset and size is a
    /// multiple of it. Default 4096.
    pub align_bytes: u64,
    /// Arrival process: `"poisson"` (default), `"fixed"` or `"closed"`.
    pub arrival: Arrival,
    /// `poisson`: mean arrival rate in requests per second (IOPS), finite and > 0.
    /// Default 1000.0.
    pub rate_iops: f64,
    /// `fixed`: gap between requests in microseconds, finite and > 0. Default 100.0.
    pub interval_us: f64,
    /// Fraction of the namespace that the workload touches, in (0, 1], starting at
    /// `footprint_offset_fraction`. Default 1.0.
    pub footprint_fraction: f64,
    /// Where the footprint starts, as a fraction of the namespace, in [0, 1), with
    /// `footprint_offset_fraction + footprint_fraction <= 1` (to a relative 1e-9, for sums of
    /// decimal fractions). Default 0.0 (the footprint starts at byte 0).
    pub footprint_offset_fraction: f64,
    /// Virtual stream id carried by every record (the host's stream tag, which the scenario's
    /// stream mapper maps to a physical stream), in [0, 65535]. Default 0.
    pub stream: u32,
    /// Number of requests to generate, >= 1; absent (default) means unbounded and the
    /// simulation stops on its duration (or `end_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Probability that a read starts where the previous read ended (its cursor, wrapping at
    /// the footprint end), else its first page is drawn by the pattern; in [0, 1]. Must be 0
    /// with `pattern = "sequential"`. Default 0.0.
    pub read_sequential_fraction: f64,
    /// As `read_sequential_fraction`, for writes. Default 0.0.
    pub write_sequential_fraction: f64,
    /// Time of the first arrival, in seconds from the tenant's start, in [0, 10^7]; timed
    /// arrivals only (0 with `closed`). Default 0.0.
    pub start_s: f64,
    /// No request at or after this time (seconds from the tenant's start): the generator ends
    /// there. In (`start_s`, 10^7]; timed arrivals only. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_s: Option<f64>,
    /// Length of the "on" period of the on/off cycle that starts at `start_s`, in seconds,
    /// in [10^-6, 10^7]; set with `off_s` (both or neither); timed arrivals only. Requests
    /// arrive only during "on" periods. Default: none (always on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_s: Option<f64>,
    /// Length of the "off" period of the on/off cycle, in seconds, in [10^-6, 10^7]; set with
    /// `on_s`. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off_s: Option<f64>,
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            pattern: Pattern::Uniform,
            zipf_theta: 0.99,
            hot_fraction: 0.2,
            hot_access_fraction: 0.8,
            read_ratio: 0.0,
            trim_ratio: 0.0,
            sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }],
            align_bytes: 4096,
            arrival: Arrival::Poisson,
            rate_iops: 1000.0,
            interval_us: 100.0,
            footprint_fraction: 1.0,
            footprint_offset_fraction: 0.0,
            stream: 0,
            requests: None,
            read_sequential_fraction: 0.0,
            write_sequential_fraction: 0.0,
            start_s: 0.0,
            end_s: None,
            on_s: None,
            off_s: None,
        }
    }
}

/// Largest accepted virtual stream id (`stream`): the 16-bit stream tag of a request.
pub(crate) const MAX_STREAM: u32 = u16::MAX as u32;

/// Slack on `footprint_offset_fraction + footprint_fraction <= 1`, so that decimal fractions
/// summing to 1 (0.05 + 0.95, or partitions of 6/120, 14/120 ...) are accepted.
pub(crate) const FRACTION_SLACK: f64 = 1e-9;

/// Largest accepted Zipf exponent. Beyond it nearly every access hits rank 1 anyway.
pub(crate) const MAX_ZIPF_THETA: f64 = 10.0;

/// Largest accepted `start_s`, `end_s`, `on_s` and `off_s`, in seconds: the bound the
/// scenario puts on every time (about 116 days of simulated time).
pub(crate) const MAX_TIME_S: f64 = 1e7;

/// Shortest accepted `on_s` and `off_s`, in seconds (one microsecond), so that a period is
/// always many nanoseconds long.
pub(crate) const MIN_PERIOD_S: f64 = 1e-6;

fn err(key: &str, reason: String) -> Result<(), (String, String)> {
    Err((key.to_string(), reason))
}

impl GeneratorConfig {
    /// Check every field's range (all fields, whatever the pattern and arrival). On the first
    /// failure return `(key, reason)`: `key` is the field name (e.g. `"zipf_theta"`) and
    /// `reason` states the allowed range and the value given, e.g. `"must be in (0, 1], got
    /// 1.5"`. NaN fails every range.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let open_closed = |key: &str, v: f64, hi: f64| {
            if v > 0.0 && v <= hi {
                Ok(())
            } else {
                err(key, format!("must be in (0, {hi}], got {v}"))
            }
        };
        let closed01 = |key: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                err(key, format!("must be in [0, 1], got {v}"))
            }
        };
        let positive = |key: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                err(key, format!("must be finite and > 0, got {v}"))
            }
        };

        open_closed("zipf_theta", self.zipf_theta, MAX_ZIPF_THETA)?;
        if !(self.hot_fraction > 0.0 && self.hot_fraction < 1.0) {
            return err("hot_fraction", format!("must be in (0, 1), got {}", self.hot_fraction));
        }
        closed01("hot_access_fraction", self.hot_access_fraction)?;
        closed01("read_ratio", self.read_ratio)?;
        closed01("trim_ratio", self.trim_ratio)?;
        let mix = self.read_ratio + self.trim_ratio;
        if mix > 1.0 + 1e-12 {
            return err(
                "trim_ratio",
                format!(
                    "read_ratio + trim_ratio must be <= 1, got {} + {} = {mix}",
                    self.read_ratio, self.trim_ratio
                ),
            );
        }
        self.validate_sizes()?;
        positive("rate_iops", self.rate_iops)?;
        positive("interval_us", self.interval_us)?;
        open_closed("footprint_fraction", self.footprint_fraction, 1.0)?;
        self.validate_region()?;
        if self.requests == Some(0) {
            return err("requests", "must be >= 1 (omit it for an unbounded workload), got 0".to_string());
        }
        self.validate_sequential_fractions()?;
        self.validate_time_windows()
    }

    /// `footprint_offset_fraction` (with `footprint_fraction`) and `stream`.
    fn validate_region(&self) -> Result<(), (String, String)> {
        let off = self.footprint_offset_fraction;
        if !(0.0..1.0).contains(&off) {
            return err("footprint_offset_fraction", format!("must be in [0, 1), got {off}"));
        }
        let end = off + self.footprint_fraction;
        if end > 1.0 + FRACTION_SLACK {
            return err(
                "footprint_offset_fraction",
                format!(
                    "footprint_offset_fraction + footprint_fraction must be <= 1 (the footprint ends inside \
                     the namespace), got {off} + {} = {end}",
                    self.footprint_fraction
                ),
            );
        }
        if self.stream > MAX_STREAM {
            return err("stream", format!("must be in [0, {MAX_STREAM}], got {}", self.stream));
        }
        Ok(())
    }

    /// `read_sequential_fraction` and `write_sequential_fraction`.
    fn validate_sequential_fractions(&self) -> Result<(), (String, String)> {
        for (key, v) in [
            ("read_sequential_fraction", self.read_sequential_fraction),
            ("write_sequential_fraction", self.write_sequential_fraction),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return err(key, format!("must be in [0, 1], got {v}"));
            }
            if self.pattern == Pattern::Sequential && v != 0.0 {
                return err(
                    key,
                    format!(
                        "must be 0 with pattern = \"sequential\" (every request already starts where the \
                         previous one of its op ended), got {v}"
                    ),
                );
            }
        }
        Ok(())
    }

    /// `start_s`, `end_s`, `on_s` and `off_s`: ranges, pairing, and none with `closed`.
    fn validate_time_windows(&self) -> Result<(), (String, String)> {
        let start = self.start_s;
        if !(0.0..=MAX_TIME_S).contains(&start) {
            return err("start_s", format!("must be in [0, {MAX_TIME_S}] seconds, got {start}"));
        }
        if let Some(end) = self.end_s.filter(|&e| !(e > start && e <= MAX_TIME_S)) {
            return err(
                "end_s",
                format!("must be in (start_s, {MAX_TIME_S}] seconds (start_s = {start}), got {end}"),
            );
        }
        for (key, v) in [("on_s", self.on_s), ("off_s", self.off_s)] {
            if let Some(v) = v.filter(|v| !(MIN_PERIOD_S..=MAX_TIME_S).contains(v)) {
                return err(key, format!("must be in [{MIN_PERIOD_S}, {MAX_TIME_S}] seconds, got {v}"));
            }
        }
        match (self.on_s, self.off_s) {
            (Some(_), None) => return err("off_s", "must be set with on_s (both or neither)".to_string()),
            (None, Some(_)) => return err("on_s", "must be set with off_s (both or neither)".to_string()),
            _ => {}
        }
        if self.arrival == Arrival::Closed {
            let set = [
                ("start_s", start != 0.0),
                ("end_s", self.end_s.is_some()),
                ("on_s", self.on_s.is_some()),
                ("off_s", self.off_s.is_some()),
            ];
            if let Some((key, _)) = set.iter().find(|(_, set)| *set) {
                return err(
                    key,
                    format!(
                        "does not apply to arrival = \"closed\" (its requests carry no time; use the \
                         tenant's start_s and duration_s), got {}",
                        self.time_knob_text(key)
                    ),
                );
            }
        }
        Ok(())
    }

    /// The value of a time knob as the user wrote it, for messages.
    fn time_knob_text(&self, key: &str) -> String {
        let v = match key {
            "start_s" => Some(self.start_s),
            "end_s" => self.end_s,
            "on_s" => self.on_s,
            _ => self.off_s,
        };
        v.map_or_else(|| "none".to_string(), |v| v.to_string())
    }

    /// `align_bytes` and the request-size table.
    fn validate_sizes(&self) -> Result<(), (String, String)> {
        if self.align_bytes == 0 {
            return err("align_bytes", "must be > 0, got 0".to_string());
        }
        if self.sizes.is_empty() {
            return err("sizes", "must list at least one size, got an empty list".to_string());
        }
        let mut total_weight = 0.0;
        for (i, s) in self.sizes.iter().enumerate() {
            if s.bytes == 0 || s.bytes % self.align_bytes != 0 {
                return err(
                    "sizes",
                    format!(
                        "entry {i}: bytes must be a positive multiple of align_bytes ({}), got {}",
                        self.align_bytes, s.bytes
                    ),
                );
            }
            if !(s.weight >= 0.0 && s.weight.is_finite()) {
                return err("sizes", format!("entry {i}: weight must be finite and >= 0, got {}", s.weight));
            }
            total_weight += s.weight;
        }
        if !(total_weight > 0.0 && total_weight.is_finite()) {
            return err("sizes", format!("weights must sum to a finite value > 0, got {total_weight}"));
        }
        Ok(())
    }
}

/// A fixed pseudo-random bijection of `[0, n)`, used to spread Zipf ranks over the footprint.
///
/// With `k = ceil(log2 n)` bits, one round is `x -> (x·C1 + C2) mod 2^k`, `x ^= x >> s`,
/// `x -> x·C3 mod 2^k`, `x ^= x >> s` (with `s = max(1, ceil(k/2))`); each step is a bijection
/// of `[0, 2^k)` (odd multiplier, addition, xor-shift), so the round is. Values that land in
/// `[n, 2^k)` are fed through the round again ("cycle walking"), which stays a bijection of
/// `[0, n)`; since `2^k < 2n`, it takes fewer than 2 rounds on average. The constants are
/// fixed, so the map depends on `n` only.
#[derive(Clone, Copy, Debug)]
struct Scramble {
    n: u64,
    mask: u64,
    shift: u32,
}

impl Scramble {
    const C1: u64 = 0x9E37_79B9_7F4A_7C15;
    const C2: u64 = 0x632B_E59B_D9B4_E019;
    const C3: u64 = 0xBF58_476D_1CE4_E5B9;

    fn new(n: u64) -> Scramble {
        assert!(n >= 1);
        let k = 64 - (n - 1).leading_zeros(); // ceil(log2 n); 0 for n == 1
        let mask = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        Scramble { n, mask, shift: k.div_ceil(2).max(1) }
    }

    #[inline]
    fn round(&self, mut x: u64) -> u64 {
        x = x.wrapping_mul(Self::C1).wrapping_add(Self::C2) & self.mask;
        x ^= x >> self.shift;
        x = x.wrapping_mul(Self::C3) & self.mask;
        x ^= x >> self.shift;
        x
    }

    #[inline]
    fn apply(&self, rank: u64) -> u64 {
        debug_assert!(rank < self.n);
        let mut x = self.round(rank);
        while x >= self.n {
            x = self.round(x);
        }
        x
    }
}

#[derive(Clone, Debug)]
enum AddrState {
    Uniform,
    Zipf {
        zipf: Zipf<f64>,
        scramble: Scramble,
    },
    /// One cursor per op: read, write, trim.
    Sequential {
        cursors: [u64; 3],
    },
    HotCold {
        hot_pages: u64,
        hot_prob: f64,
    },
}

#[derive(Clone, Debug)]
enum ArrivalState {
    Poisson { gap: Exp<f64>, next_ns: f64 },
    Fixed { interval_ns: f64 },
    Closed,
}

impl AddrState {
    /// The pattern's state over a footprint of `footprint_pages` pages (validated config).
    fn new(cfg: &GeneratorConfig, footprint_pages: u64) -> AddrState {
        match cfg.pattern {
            Pattern::Uniform => AddrState::Uniform,
            Pattern::Zipf => AddrState::Zipf {
                zipf: Zipf::new(footprint_pages as f64, cfg.zipf_theta)
                    .expect("validated: n >= 1, theta > 0"),
                scramble: Scramble::new(footprint_pages),
            },
            Pattern::Sequential => AddrState::Sequential { cursors: [0; 3] },
            Pattern::HotCold => {
                let hot = (footprint_pages as f64 * cfg.hot_fraction).round() as u64;
                let hot_pages =
                    if footprint_pages >= 2 { hot.clamp(1, footprint_pages - 1) } else { footprint_pages };
                AddrState::HotCold { hot_pages, hot_prob: cfg.hot_access_fraction }
            }
        }
    }
}

impl ArrivalState {
    /// The arrival process of a validated config.
    fn new(cfg: &GeneratorConfig) -> ArrivalState {
        match cfg.arrival {
            Arrival::Poisson => ArrivalState::Poisson {
                gap: Exp::new(cfg.rate_iops / 1e9).expect("validated: rate > 0"),
                next_ns: 0.0,
            },
            Arrival::Fixed => ArrivalState::Fixed { interval_ns: cfg.interval_us * 1e3 },
            Arrival::Closed => ArrivalState::Closed,
        }
    }
}

/// The sequential fractions: one coin stream and a cursor per op (read, write).
#[derive(Clone, Debug)]
struct SeqMix {
    rng: Pcg64Mcg,
    /// `read_sequential_fraction`, `write_sequential_fraction`.
    fraction: [f64; 2],
    /// Where the previous read (write) ended, in pages; 0 at the start.
    cursors: [u64; 2],
}

/// The time windows: how active time maps to record time, and where the generator ends.
#[derive(Clone, Copy, Debug)]
struct Window {
    start_ns: u64,
    end_ns: Option<u64>,
    /// `(on, off)` period lengths in ns, both >= 1000.
    cycle: Option<(u64, u64)>,
}

impl Window {
    fn new(cfg: &GeneratorConfig) -> Window {
        let ns = |s: f64| (s * 1e9).round() as u64;
        Window {
            start_ns: ns(cfg.start_s),
            end_ns: cfg.end_s.map(ns),
            cycle: cfg.on_s.zip(cfg.off_s).map(|(on, off)| (ns(on), ns(off))),
        }
    }

    /// Record time of active time `active_ns` (saturating at `u64::MAX` ns).
    #[inline]
    fn time_of(&self, active_ns: u64) -> u64 {
        let offset = match self.cycle {
            None => u128::from(active_ns),
            Some((on, off)) => u128::from(active_ns / on) * u128::from(on + off) + u128::from(active_ns % on),
        };
        u64::try_from(u128::from(self.start_ns) + offset).unwrap_or(u64::MAX)
    }
}

/// A seeded iterator of synthetic [`TraceRecord`]s. See the module docs for the model.
#[derive(Clone, Debug)]
pub struct Generator {
    addr_rng: Pcg64Mcg,
    op_rng: Pcg64Mcg,
    size_rng: Pcg64Mcg,
    time_rng: Pcg64Mcg,
    addr: AddrState,
    arrival: ArrivalState,
    /// `None` when both sequential fractions are 0 (no coin is drawn).
    seq: Option<SeqMix>,
    window: Window,
    align: u64,
    /// First page of the footprint (`footprint_offset_fraction` of the namespace).
    base_page: u64,
    footprint_pages: u64,
    /// `stream` of every record.
    stream: u16,
    read_ratio: f64,
    read_or_trim: f64,
    /// The op of every request when the ratios leave no choice (`next_op`).
    op_fixed: Option<IoOp>,
    /// Request sizes in pages and their cumulative weights (last = total weight).
    size_pages: Vec<u64>,
    size_cum: Vec<f64>,
    emitted: u64,
    limit: Option<u64>,
    /// Set when a request fell at or after `end_s`: the generator has ended.
    ended: bool,
}

/// SplitMix64 finaliser, to derive independent sub-seeds from one seed.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn sub_rng(seed: u64, stream: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(splitmix64(seed ^ splitmix64(stream)))
}

/// The footprint `(first page, pages)` of a validated config in a namespace of `ns_pages`
/// pages whose largest request is `max_size` pages (`max_size <= ns_pages`): it starts at
/// `floor(ns_pages × footprint_offset_fraction)` and has `floor(ns_pages ×
/// footprint_fraction)` pages, grown to `max_size` if smaller; its end is at most `ns_pages`
/// (a sum within FRACTION_SLACK of 1 can round one page past it). An error on
/// `footprint_offset_fraction` when fewer than `max_size` pages are left after its start.
fn footprint(cfg: &GeneratorConfig, ns_pages: u64, max_size: u64) -> Result<(u64, u64), (String, String)> {
    let base = (ns_pages as f64 * cfg.footprint_offset_fraction).floor() as u64;
    let left = ns_pages.saturating_sub(base);
    if left < max_size {
        return Err((
            "footprint_offset_fraction".to_string(),
            format!(
                "the footprint starts at page {base} of {ns_pages} (pages of {} bytes), leaving {left} \
                 pages, fewer than the largest request ({max_size} pages); got {}",
                cfg.align_bytes, cfg.footprint_offset_fraction
            ),
        ));
    }
    let pages = ((ns_pages as f64 * cfg.footprint_fraction).floor() as u64).max(max_size).min(left);
    Ok((base, pages))
}

impl Generator {
    /// A generator over a namespace of `namespace_bytes` bytes, seeded with `seed`.
    ///
    /// # Panics
    /// If `cfg.validate()` fails, or the largest request size exceeds the namespace (rounded
    /// down to whole `align_bytes` pages). Use [`Generator::try_new`] to get the error instead.
    pub fn new(cfg: &GeneratorConfig, namespace_bytes: u64, seed: u64) -> Generator {
        match Generator::try_new(cfg, namespace_bytes, seed) {
            Ok(g) => g,
            Err((key, reason)) => panic!("invalid generator config: {key}: {reason}"),
        }
    }

    /// As [`Generator::new`], but returns `(key, reason)` instead of panicking: the
    /// [`GeneratorConfig::validate`] error, or key `"sizes"` when the largest request does not
    /// fit in the namespace.
    pub fn try_new(
        cfg: &GeneratorConfig,
        namespace_bytes: u64,
        seed: u64,
    ) -> Result<Generator, (String, String)> {
        cfg.validate()?;
        let align = cfg.align_bytes;
        let ns_pages = namespace_bytes / align;
        let size_pages: Vec<u64> = cfg.sizes.iter().map(|s| s.bytes / align).collect();
        let max_size = size_pages.iter().copied().max().unwrap_or(1);
        if max_size > ns_pages {
            return Err((
                "sizes".to_string(),
                format!(
                    "largest request ({} bytes) does not fit in the namespace ({namespace_bytes} bytes, \
                     {ns_pages} pages of {align} bytes)",
                    max_size * align
                ),
            ));
        }
        let (base_page, footprint_pages) = footprint(cfg, ns_pages, max_size)?;

        let mut acc = 0.0;
        let size_cum: Vec<f64> = cfg
            .sizes
            .iter()
            .map(|s| {
                acc += s.weight;
                acc
            })
            .collect();

        let addr = AddrState::new(cfg, footprint_pages);
        let arrival = ArrivalState::new(cfg);
        let fraction = [cfg.read_sequential_fraction, cfg.write_sequential_fraction];
        let seq = (fraction != [0.0; 2]).then(|| SeqMix { rng: sub_rng(seed, 5), fraction, cursors: [0; 2] });
        Ok(Generator {
            addr_rng: sub_rng(seed, 1),
            op_rng: sub_rng(seed, 2),
            size_rng: sub_rng(seed, 3),
            time_rng: sub_rng(seed, 4),
            addr,
            arrival,
            seq,
            window: Window::new(cfg),
            align,
            base_page,
            footprint_pages,
            stream: u16::try_from(cfg.stream).expect("validated: stream <= 65535"),
            read_ratio: cfg.read_ratio,
            read_or_trim: cfg.read_ratio + cfg.trim_ratio,
            op_fixed: if cfg.read_ratio + cfg.trim_ratio <= 0.0 {
                Some(IoOp::Write)
            } else if cfg.read_ratio >= 1.0 {
                Some(IoOp::Read)
            } else {
                None
            },
            size_pages,
            size_cum,
            emitted: 0,
            limit: cfg.requests,
            ended: false,
        })
    }

    /// Number of pages (of `align_bytes`) the workload touches; every request lies in
    /// `[footprint_offset_bytes(), footprint_offset_bytes() + footprint_bytes())`.
    pub fn footprint_pages(&self) -> u64 {
        self.footprint_pages
    }

    /// Where the footprint starts, in bytes: `floor(namespace pages ×
    /// footprint_offset_fraction) × align_bytes`.
    pub fn footprint_offset_bytes(&self) -> u64 {
        self.base_page * self.align
    }

    /// The footprint in bytes: `footprint_pages() * align_bytes`.
    pub fn footprint_bytes(&self) -> u64 {
        self.footprint_pages * self.align
    }

    /// Number of records produced so far.
    pub fn emitted(&self) -> u64 {
        self.emitted
    }

    /// Time of the next request on the active clock (see the module docs), in ns.
    #[inline]
    fn next_active_ns(&mut self) -> u64 {
        match &mut self.arrival {
            ArrivalState::Poisson { gap, next_ns } => {
                let t = *next_ns;
                *next_ns += gap.sample(&mut self.time_rng);
                round_u64(t)
            }
            ArrivalState::Fixed { interval_ns } => round_u64(self.emitted as f64 * *interval_ns),
            ArrivalState::Closed => 0,
        }
    }

    /// The op of the next request. The coin `u` is in [0, 1), so with `read_or_trim <= 0`
    /// every op is a write and with `read_ratio >= 1` every op is a read whatever it is: then
    /// no coin is drawn. The op stream draws for nothing else, so every record is the same.
    #[inline]
    fn next_op(&mut self) -> IoOp {
        if let Some(op) = self.op_fixed {
            return op;
        }
        let u: f64 = self.op_rng.random();
        if u < self.read_ratio {
            IoOp::Read
        } else if u < self.read_or_trim {
            IoOp::Trim
        } else {
            IoOp::Write
        }
    }

    /// The size of the next request, drawn by weight; with one size, no draw (the size
    /// stream draws for nothing else, so every record is the same).
    #[inline]
    fn next_size_pages(&mut self) -> u64 {
        if let [only] = self.size_pages[..] {
            return only;
        }
        let total = *self.size_cum.last().expect("validated: non-empty");
        let u: f64 = self.size_rng.random::<f64>() * total;
        // First entry whose cumulative weight exceeds u (zero-weight entries are never hit).
        let i = self.size_cum.partition_point(|&c| c <= u);
        self.size_pages[i.min(self.size_pages.len() - 1)]
    }

    /// First page of a request of `size` pages; `start + size <= footprint_pages`.
    #[inline]
    fn next_start_page(&mut self, op: IoOp, size: u64) -> u64 {
        let n = self.footprint_pages;
        let start = match &mut self.addr {
            AddrState::Uniform => self.addr_rng.random_range(0..n),
            AddrState::Zipf { zipf, scramble } => {
                let x = zipf.sample(&mut self.addr_rng); // in [1, n]
                let rank = ((x as u64).max(1) - 1).min(n - 1);
                scramble.apply(rank)
            }
            AddrState::Sequential { cursors } => {
                let c = &mut cursors[match op {
                    IoOp::Read => 0,
                    IoOp::Write => 1,
                    IoOp::Trim => 2,
                }];
                if *c + size > n {
                    *c = 0;
                }
                let start = *c;
                *c += size;
                return start;
            }
            AddrState::HotCold { hot_pages, hot_prob } => {
                let hot = *hot_pages;
                let to_hot = self.addr_rng.random::<f64>() < *hot_prob;
                if to_hot || hot == n {
                    self.addr_rng.random_range(0..hot)
                } else {
                    self.addr_rng.random_range(hot..n)
                }
            }
        };
        // Clamp by moving the offset back, never by shrinking the request.
        start.min(n - size)
    }

    /// With the sequential fractions: `drawn` (the pattern's start) or, on the op's coin,
    /// the op's cursor (wrapping to 0 when the request would pass the footprint end); the
    /// cursor then moves to the request's end. One coin per request, whatever its op.
    #[inline]
    fn sequential_start(&mut self, op: IoOp, size: u64, drawn: u64) -> u64 {
        let n = self.footprint_pages;
        let Some(seq) = &mut self.seq else { return drawn };
        let u: f64 = seq.rng.random();
        let i = match op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            IoOp::Trim => return drawn,
        };
        let cursor = &mut seq.cursors[i];
        let start = if u >= seq.fraction[i] {
            drawn
        } else if *cursor + size > n {
            0
        } else {
            *cursor
        };
        *cursor = start + size;
        start
    }
}

impl Iterator for Generator {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        if self.ended || self.limit.is_some_and(|l| self.emitted >= l) {
            return None;
        }
        let active = self.next_active_ns();
        let time = self.window.time_of(active);
        if self.window.end_ns.is_some_and(|end| time >= end) {
            self.ended = true;
            return None;
        }
        let op = self.next_op();
        let size = self.next_size_pages();
        let drawn = self.next_start_page(op, size);
        let start = self.sequential_start(op, size, drawn);
        self.emitted += 1;
        Some(TraceRecord {
            time: SimTime(time),
            op,
            offset_bytes: (self.base_page + start) * self.align,
            size_bytes: size * self.align,
            stream: self.stream,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.ended {
            return (0, Some(0));
        }
        // With an end time, the generator may stop before its request limit.
        let may_end_early = self.window.end_ns.is_some();
        match self.limit {
            Some(l) => {
                let left = usize::try_from(l - self.emitted).unwrap_or(usize::MAX);
                (if may_end_early { 0 } else { left }, Some(left))
            }
            None if may_end_early => (0, None),
            None => (usize::MAX, None),
        }
    }
}

impl std::iter::FusedIterator for Generator {}

#[cfg(test)]
mod tests {
    use super::Scramble;
    use crate::sim::time::round_u64;

    /// The draws left out (`next_op` with no choice of op, `next_size_pages` with one size)
    /// change no record: against configurations that make the draws and give the same
    /// answer whatever they are (a second size of weight 0 is never chosen; a coin `u` in
    /// [0, 1) is below the smallest positive double, or not below the largest double under
    /// 1, only when it is exactly 0 or exactly that double, a chance of 2^-53 a draw).
    #[test]
    fn draws_left_out_change_no_record() {
        use super::{Generator, GeneratorConfig, SizeWeight};
        let below_one = 1.0 - f64::EPSILON / 2.0;
        let sizes = |n: usize| {
            let mut v = vec![SizeWeight { bytes: 8192, weight: 1.0 }];
            v.extend((1..n).map(|_| SizeWeight { bytes: 4096, weight: 0.0 }));
            v
        };
        for (skipping, drawing) in [(0.0, f64::from_bits(1)), (1.0, below_one)] {
            let cfg = |read_ratio: f64, n_sizes: usize| GeneratorConfig {
                read_ratio,
                sizes: sizes(n_sizes),
                requests: Some(20_000),
                ..GeneratorConfig::default()
            };
            let a: Vec<_> = Generator::new(&cfg(skipping, 1), 1 << 30, 7).collect();
            let b: Vec<_> = Generator::new(&cfg(drawing, 2), 1 << 30, 7).collect();
            assert_eq!(a.len(), 20_000);
            assert_eq!(a, b, "read_ratio {skipping} against {drawing}");
        }
    }

    /// `round_u64` against std's `f64::round` then `as u64`: the edges by hand (halves, the
    /// largest double below 0.5, where doubles stop having fractions, saturation, NaN,
    /// negatives), then a million bit patterns from every exponent (SplitMix64 steps).
    #[test]
    fn round_u64_is_f64_round() {
        let p52 = 4_503_599_627_370_496.0; // 2^52
        let edges = [
            0.0,
            -0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            1e9 + 0.5,
            p52 - 0.5,
            p52 - 1.5,
            p52,
            p52 + 1.0,
            2.0 * p52,
            9.223372036854776e18,
            1.8446744073709552e19,
            1e300,
            f64::INFINITY,
            f64::NAN,
            -0.4,
            -0.5,
            -1.5,
            -1e300,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
        ];
        // Every quarter of [0, 10^4) and just around it: the halves and their neighbours.
        let quarters = (0..40_000u32).map(|k| k as f64 * 0.25);
        let around = quarters.clone().flat_map(|x| [x.next_down(), x.next_up()]);
        for x in edges.into_iter().chain(quarters).chain(around) {
            assert_eq!(round_u64(x), x.round() as u64, "x = {x:e}");
        }
        let mut z = 0u64;
        for _ in 0..1_000_000 {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let x = f64::from_bits(super::splitmix64(z));
            assert_eq!(round_u64(x), x.round() as u64, "x = {x:e}");
            // Near the integers too, where the fraction decides: a uniform [0, 2^20) value.
            let y = (z >> 11) as f64 / (1u64 << 33) as f64;
            assert_eq!(round_u64(y), y.round() as u64, "y = {y:e}");
        }
    }

    #[test]
    fn scramble_is_a_bijection() {
        for n in [1u64, 2, 3, 5, 7, 8, 9, 100, 1000, 1023, 1024, 1025, 4097] {
            let s = Scramble::new(n);
            let mut seen = vec![false; n as usize];
            for r in 0..n {
                let p = s.apply(r);
                assert!(p < n, "n={n} r={r} p={p}");
                assert!(!seen[p as usize], "n={n}: {p} hit twice");
                seen[p as usize] = true;
            }
        }
    }

    #[test]
    fn scramble_spreads_the_top_ranks() {
        // The 10 hottest ranks of a 10^6-page footprint do not all sit in its first 1%.
        let n = 1_000_000;
        let s = Scramble::new(n);
        let low = (0..10).filter(|&r| s.apply(r) < n / 100).count();
        assert!(low < 10);
        assert_ne!(s.apply(0), 0);
    }
}
