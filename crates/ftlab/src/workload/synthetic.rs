//! Multi-part synthetic workloads: a tenant's `synthetic` is one generator table or an array of
//! them ([`SyntheticWorkload`]), and [`SyntheticStream`] merges the parts' records in time
//! order.
//!
//! What this is: the schema type (its serde form is a TOML table or an array of tables, and it
//! serializes back in the form it was read in), the part seeds and the merge. What this is
//! not: the generator model itself (`generator.rs`), scenario-level checks (whether the
//! workload ever ends is decided with the tenant's and the measurement's durations in
//! `scenario/validate.rs`), or anything about the device or the host.
//!
//! # Merge
//!
//! Part `j` is a [`Generator`] seeded with [`part_seed`]`(tenant_seed, j)`, so each part's
//! records are exactly those it would produce alone. The stream yields the record with the
//! smallest time among the parts' next records; ties go to the lower part index. It keeps one
//! pending record per part and finds the minimum by a linear scan (no heap allocation per
//! record). A part that ends (its `requests` or `end_s`) drops out; the stream ends when every
//! part has ended. A single part is passed through unchanged (no look-ahead), so a one-table
//! workload gives exactly the records of its generator.
//!
//! **Closed loop.** A workload whose parts all have `arrival = "closed"` carries no time to
//! merge by: its parts are merged *round-robin* instead, one record of part 0, then one of
//! part 1, ..., then part 0 again; a part that ends drops out of the rotation and the others
//! keep their order. This is the vStream paper's synthetic benchmark (§5.2: "we loop over the
//! 8 partitions one by one, issuing a single 128KB write request at a time in each
//! partition"). Closed and timed parts cannot be mixed in one workload.

use super::generator::{Arrival, Generator, GeneratorConfig};
use super::TraceRecord;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Most parts a synthetic workload may have.
pub(crate) const MAX_PARTS: usize = 64;

/// A tenant's synthetic workload: one [`GeneratorConfig`] (`[tenants.synthetic]`) or several
/// (`[[tenants.synthetic]]`). Never empty.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticWorkload {
    parts: Vec<GeneratorConfig>,
    /// Written as an array of tables (even of one): error keys then carry the part index,
    /// and it serializes back as an array.
    array: bool,
}

impl SyntheticWorkload {
    /// A one-table workload.
    pub fn single(cfg: GeneratorConfig) -> SyntheticWorkload {
        SyntheticWorkload { parts: vec![cfg], array: false }
    }

    /// A workload written as an array of tables; `None` if `parts` is empty.
    pub fn array(parts: Vec<GeneratorConfig>) -> Option<SyntheticWorkload> {
        (!parts.is_empty()).then_some(SyntheticWorkload { parts, array: true })
    }

    /// The parts, in order (at least one).
    pub fn parts(&self) -> &[GeneratorConfig] {
        &self.parts
    }

    /// Whether it was written as an array of tables.
    pub fn is_array(&self) -> bool {
        self.array
    }

    /// Whether it is a closed-loop workload (every part has `arrival = "closed"`; parts are
    /// then merged round-robin).
    pub fn is_closed(&self) -> bool {
        self.parts.iter().all(|p| p.arrival == Arrival::Closed)
    }

    /// The key of `field` of part `part`, relative to the `synthetic` table: `field` for a
    /// single table, `part.field` for an array.
    pub(crate) fn key(&self, part: usize, field: &str) -> String {
        if self.array {
            format!("{part}.{field}")
        } else {
            field.to_string()
        }
    }

    /// Check every part and build the merged stream over a namespace of `namespace_bytes`.
    /// The error is `(key, reason)` with `key` relative to the `synthetic` table (see
    /// `SyntheticWorkload::key`; empty for the workload as a whole).
    pub fn try_build(
        &self,
        namespace_bytes: u64,
        tenant_seed: u64,
    ) -> Result<SyntheticStream, (String, String)> {
        let n = self.parts.len();
        if n > MAX_PARTS {
            return Err((String::new(), format!("must list 1 to {MAX_PARTS} parts, got {n}")));
        }
        self.check_arrivals()?;
        let mut gens = Vec::with_capacity(n);
        for (j, cfg) in self.parts.iter().enumerate() {
            let g = Generator::try_new(cfg, namespace_bytes, part_seed(tenant_seed, j))
                .map_err(|(k, r)| (self.key(j, &k), r))?;
            gens.push(g);
        }
        Ok(if self.is_closed() { SyntheticStream::round_robin(gens) } else { SyntheticStream::new(gens) })
    }

    /// Every part closed, or none: the first part whose `arrival` differs from part 0's is
    /// the error.
    fn check_arrivals(&self) -> Result<(), (String, String)> {
        let closed = self.parts[0].arrival == Arrival::Closed;
        let Some(j) = self.parts.iter().position(|p| (p.arrival == Arrival::Closed) != closed) else {
            return Ok(());
        };
        let name = |a: Arrival| match a {
            Arrival::Closed => "closed",
            Arrival::Poisson => "poisson",
            Arrival::Fixed => "fixed",
        };
        Err((
            self.key(j, "arrival"),
            format!(
                "closed and timed parts cannot be mixed: a closed-loop workload needs every part \"closed\" \
                 (they are merged round-robin, having no time to merge by); part 0 is \"{}\", part {j} is \
                 \"{}\"",
                name(self.parts[0].arrival),
                name(self.parts[j].arrival)
            ),
        ))
    }
}

/// Compatibility for code written when a workload was one table: the first part. Its
/// `arrival` is the workload's replay mode (the parts are all closed or all timed); for
/// anything else, read [`SyntheticWorkload::parts`].
impl std::ops::Deref for SyntheticWorkload {
    type Target = GeneratorConfig;

    fn deref(&self) -> &GeneratorConfig {
        &self.parts[0]
    }
}

impl Serialize for SyntheticWorkload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.array {
            self.parts.serialize(s)
        } else {
            self.parts[0].serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for SyntheticWorkload {
    /// A table is one part, an array of tables several. Errors inside a part keep its path
    /// (`synthetic.theta`, `synthetic.1.theta`); an empty array is an error.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Parts;

        impl<'de> Visitor<'de> for Parts {
            type Value = SyntheticWorkload;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of generator keys or an array of such tables")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SyntheticWorkload, A::Error> {
                GeneratorConfig::deserialize(MapAccessDeserializer::new(map)).map(SyntheticWorkload::single)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SyntheticWorkload, A::Error> {
                let parts = Vec::<GeneratorConfig>::deserialize(SeqAccessDeserializer::new(seq))?;
                SyntheticWorkload::array(parts)
                    .ok_or_else(|| de::Error::invalid_length(0, &"an array of at least one generator table"))
            }
        }

        d.deserialize_any(Parts)
    }
}

/// SplitMix64 finaliser.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of part `part` of a workload seeded with `tenant_seed`: the tenant seed itself for
/// part 0 (so a one-part workload is seeded as a single table is), a SplitMix64 derivation of
/// both for the others.
pub fn part_seed(tenant_seed: u64, part: usize) -> u64 {
    if part == 0 {
        tenant_seed
    } else {
        splitmix64(tenant_seed ^ splitmix64(0x5041_5254_0000_0000 | part as u64))
    }
}

/// The merge of a workload's parts: in time order, or round-robin for closed-loop parts.
/// See the module docs.
#[derive(Clone, Debug)]
pub struct SyntheticStream {
    parts: Vec<Generator>,
    /// The next record of each part (`None`: the part has ended); filled on first use.
    /// Unused by the round-robin merge.
    heads: Vec<Option<TraceRecord>>,
    primed: bool,
    /// `Some(next part)` for a round-robin merge.
    turn: Option<usize>,
    /// Round-robin: whether each part is still running (empty for the time merge).
    running: Vec<bool>,
}

impl SyntheticStream {
    /// The time-ordered merge of `parts` (at least one), part `j` being `parts[j]`.
    pub(crate) fn new(parts: Vec<Generator>) -> SyntheticStream {
        assert!(!parts.is_empty(), "a synthetic workload has at least one part");
        let heads = vec![None; parts.len()];
        SyntheticStream { parts, heads, primed: false, turn: None, running: Vec::new() }
    }

    /// The round-robin merge of `parts` (at least one): one record of each running part in
    /// turn, starting with part 0; an ended part is skipped from then on.
    pub(crate) fn round_robin(parts: Vec<Generator>) -> SyntheticStream {
        let mut s = SyntheticStream::new(parts);
        s.turn = Some(0);
        s.running = vec![true; s.parts.len()];
        s
    }

    /// Round-robin: the next record of the next running part, or `None` when all have ended.
    fn next_in_turn(&mut self, first: usize) -> Option<(usize, TraceRecord)> {
        let n = self.parts.len();
        for k in 0..n {
            let j = (first + k) % n;
            if !self.running[j] {
                continue;
            }
            match self.parts[j].next() {
                Some(r) => {
                    self.turn = Some((j + 1) % n);
                    return Some((j, r));
                }
                None => self.running[j] = false,
            }
        }
        None
    }

    /// The next record and the index of the part it comes from.
    pub fn next_with_part(&mut self) -> Option<(usize, TraceRecord)> {
        if let Some(first) = self.turn {
            return self.next_in_turn(first);
        }
        if self.parts.len() == 1 {
            return self.parts[0].next().map(|r| (0, r));
        }
        if !self.primed {
            for (head, part) in self.heads.iter_mut().zip(&mut self.parts) {
                *head = part.next();
            }
            self.primed = true;
        }
        let mut best: Option<(usize, u64)> = None;
        for (j, head) in self.heads.iter().enumerate() {
            if let Some(r) = head {
                // Strictly earlier only: on a tie the lower index (found first) stays.
                if best.is_none_or(|(_, t)| r.time.ns() < t) {
                    best = Some((j, r.time.ns()));
                }
            }
        }
        let (j, _) = best?;
        let record = self.heads[j].take().expect("the chosen part has a record");
        self.heads[j] = self.parts[j].next();
        Some((j, record))
    }
}

impl Iterator for SyntheticStream {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        self.next_with_part().map(|(_, r)| r)
    }
}
