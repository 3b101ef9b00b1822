//! `partitioned`: each tenant owns a fixed set of channels or dies (vFlash, NVMe sets) and
//! writes, reads and collects only there. Capacity, parallelism and isolation are bound
//! together. Shares are proportional to namespace size (largest remainder, at least one unit
//! each) or given explicitly. Not dynamic: see `upi` for sets that move.

use super::{
    parse_config, to_table, Capabilities, RoundRobin, Scheme, SchemeConfigError, SchemeContext, SchemeInfo,
};
use crate::flash::geometry::{DieIdx, Geometry};
use crate::knobs::{config_fields, serde_defaults, IntBounds, Knob, KnobKind};
use crate::policy::DeviceView;
use serde::{Deserialize, Serialize};

/// Knobs of `partitioned`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PartitionedConfig {
    /// Unit of partitioning: `"channel"` (whole channels) or `"die"`. Default `"channel"`.
    #[serde(default)]
    pub(crate) by: PartitionUnit,
    /// Units (channels or dies) per tenant, in scenario order; must sum to the device's
    /// count. Empty (the default) = proportional to namespace size.
    #[serde(default)]
    pub(crate) shares: Vec<u32>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PartitionUnit {
    #[default]
    Channel,
    Die,
}

/// The knobs of `partitioned` (every bound depends on the device: `check_shares`).
pub(crate) const KNOBS: &[Knob] = &[
    Knob::new(
        "by",
        "",
        KnobKind::Choice(&["channel", "die"]),
        "Unit of partitioning: whole channels or dies.",
    ),
    Knob::new(
        "shares",
        "channels or dies",
        KnobKind::IntList(IntBounds::ANY),
        "Units per tenant, in scenario order; empty = proportional to namespace size.",
    )
    .also("one per tenant, each in [1, units], summing to the device's units"),
];

/// `partitioned`'s registry entry.
pub(crate) const INFO: SchemeInfo = SchemeInfo {
    name: "partitioned",
    summary: "Each tenant owns fixed channels or dies and writes, reads and collects only there.",
    knobs: KNOBS,
    fields: config_fields::<PartitionedConfig>,
    defaults: serde_defaults::<PartitionedConfig>,
    build,
    caps: Capabilities::labelled("Partitioned"),
};

pub(crate) struct Partitioned {
    config: PartitionedConfig,
    /// Per tenant: its dies, striped round-robin.
    sets: Vec<RoundRobin>,
    owner_of_die: Vec<u16>,
}

pub(crate) fn build(table: &toml::Table, ctx: &SchemeContext) -> Result<Box<dyn Scheme>, SchemeConfigError> {
    let mut config: PartitionedConfig = parse_config(table)?;
    let (sets, owner_of_die) = die_sets(config.by, &mut config.shares, ctx)?;
    Ok(Box::new(Partitioned { config, sets: sets.into_iter().map(RoundRobin::new).collect(), owner_of_die }))
}

/// Each tenant's dies by `by` and `shares` (filled in proportion to namespace size when
/// empty), checked (shares, then capacity), and each die's tenant (`u16::MAX`: none): the
/// partitions `partitioned` and `iod`'s NVM Sets are made of.
pub(crate) fn die_sets(
    by: PartitionUnit,
    shares: &mut Vec<u32>,
    ctx: &SchemeContext,
) -> Result<(Vec<Vec<DieIdx>>, Vec<u16>), SchemeConfigError> {
    let g = ctx.geometry;
    let n_units = match by {
        PartitionUnit::Channel => g.channels,
        PartitionUnit::Die => g.n_dies,
    };
    if shares.is_empty() {
        *shares = proportional_shares(ctx.namespace_units, n_units)?;
    }
    check_shares("shares", "units", shares, ctx.namespace_units.len(), n_units)?;
    let sets = assign(g, by, shares);
    check_capacity(g, &sets, ctx)?;
    let mut owner_of_die = vec![u16::MAX; g.n_dies as usize];
    for (t, set) in sets.iter().enumerate() {
        for d in set {
            owner_of_die[d.0 as usize] = t as u16;
        }
    }
    Ok((sets, owner_of_die))
}

impl Scheme for Partitioned {
    fn name(&self) -> &'static str {
        "partitioned"
    }

    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.sets[tenant as usize].next_die()
    }

    fn gc_write_die(&mut self, owner: u16, victim_die: DieIdx, _view: &DeviceView) -> DieIdx {
        self.gc_block_die(owner, victim_die).expect("one die per block")
    }

    /// The victim's die, which is in the owner's partition (asserted), for the whole block.
    fn gc_block_die(&self, owner: u16, victim_die: DieIdx) -> Option<DieIdx> {
        assert_eq!(
            self.owner_of_die[victim_die.0 as usize], owner,
            "tenant {owner}'s data on die {} outside its partition",
            victim_die.0
        );
        Some(victim_die)
    }

    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}

/// Largest-remainder apportionment of `n_units` in proportion to namespace sizes, each
/// tenant getting at least one unit.
pub(crate) fn proportional_shares(
    namespace_units: &[u32],
    n_units: u32,
) -> Result<Vec<u32>, SchemeConfigError> {
    let n = namespace_units.len() as u32;
    if n_units < n {
        return Err(SchemeConfigError::new(
            "by",
            format!("{n} tenants need at least {n} partition units, the device has {n_units}"),
        ));
    }
    let total: u64 = namespace_units.iter().map(|&u| u as u64).sum();
    let exact: Vec<f64> = namespace_units.iter().map(|&u| u as f64 * n_units as f64 / total as f64).collect();
    let mut shares: Vec<u32> = exact.iter().map(|&x| (x.floor() as u32).max(1)).collect();
    while shares.iter().sum::<u32>() > n_units {
        // Take back from the tenant furthest above its exact share (and above one unit).
        let i = (0..shares.len()).filter(|&i| shares[i] > 1).max_by(|&a, &b| {
            (shares[a] as f64 - exact[a]).total_cmp(&(shares[b] as f64 - exact[b])).then(b.cmp(&a))
        });
        shares[i.expect("some share above one")] -= 1;
    }
    while shares.iter().sum::<u32>() < n_units {
        let i = (0..shares.len())
            .max_by(|&a, &b| {
                (exact[a] - shares[a] as f64).total_cmp(&(exact[b] - shares[b] as f64)).then(b.cmp(&a))
            })
            .expect("at least one tenant");
        shares[i] += 1;
    }
    Ok(shares)
}

/// `shares` (at `key`) lists one share per tenant, each in [1, n_units], summing to the
/// device's `n_units` `unit`s (shared with `upi`'s initial sets).
pub(crate) fn check_shares(
    key: &str,
    unit: &str,
    shares: &[u32],
    n_tenants: usize,
    n_units: u32,
) -> Result<(), SchemeConfigError> {
    if shares.len() != n_tenants {
        return Err(SchemeConfigError::new(
            key,
            format!("must list one share per tenant ({n_tenants}), got {}", shares.len()),
        ));
    }
    if let Some(i) = shares.iter().position(|&s| s == 0 || s > n_units) {
        return Err(SchemeConfigError::new(
            format!("{key}.{i}"),
            format!("must be in [1, {n_units}], got {}", shares[i]),
        ));
    }
    let sum: u64 = shares.iter().map(|&s| s as u64).sum();
    if sum != n_units as u64 {
        return Err(SchemeConfigError::new(
            key,
            format!("must sum to the device's {n_units} {unit}, got {sum}"),
        ));
    }
    Ok(())
}

/// Die sets per tenant: consecutive channels, or consecutive dies in channel-first order
/// (so a die partition spreads over channels).
pub(crate) fn assign(g: &Geometry, by: PartitionUnit, shares: &[u32]) -> Vec<Vec<DieIdx>> {
    let order = g.dies_channel_first();
    let mut sets = Vec::with_capacity(shares.len());
    let mut next = 0u32;
    for &share in shares {
        let range = next..next + share;
        next += share;
        let set: Vec<DieIdx> = match by {
            PartitionUnit::Channel => {
                order.iter().copied().filter(|&d| range.contains(&g.channel_of(d))).collect()
            }
            PartitionUnit::Die => order[range.start as usize..range.end as usize].to_vec(),
        };
        sets.push(set);
    }
    sets
}

fn check_capacity(g: &Geometry, sets: &[Vec<DieIdx>], ctx: &SchemeContext) -> Result<(), SchemeConfigError> {
    for (t, set) in sets.iter().enumerate() {
        let physical = set.len() as u64 * g.blocks_per_die as u64 * g.units_per_block as u64;
        let logical = (physical as f64 / (1.0 + ctx.over_provisioning)).floor() as u64;
        let need = ctx.namespace_units[t] as u64;
        if need > logical {
            return Err(SchemeConfigError::new(
                "shares",
                format!(
                    "tenant {t}'s namespace ({need} units) exceeds its partition's logical capacity \
                     ({logical} units of {} dies at {:.1}% over-provisioning); give it a larger share",
                    set.len(),
                    ctx.over_provisioning * 100.0
                ),
            ));
        }
    }
    Ok(())
}
