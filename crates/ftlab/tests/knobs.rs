//! The drift test of the policies' knob tables (`knobs::Knob`, `PolicyInfo`), data-driven over
//! every scheme of `scheme::REGISTRY` and every mapper of `stream::REGISTRY`: (a) the knob
//! table lists exactly the config struct's serde fields, in order, and a knob has a default in
//! the serde-default table unless it is marked optional (`absent`); the defaults build; (b) for every
//! finite static bound of a numeric knob, a value just outside is refused by
//! `scheme::build`/`stream::build` naming that knob, and the bound (closed) or a value just
//! inside (open) is not refused for its range; every choice is accepted and an unknown one
//! refused; the flashblox vSSD fields likewise. Not a test of bounds that depend on the device
//! (a policy's own tests have those).

use ftlab::internals::knobs::{Bounds, IntBounds, Knob, KnobKind, PolicyInfo};
use ftlab::internals::policy::SchemeConfigError;
use ftlab::internals::scenario::{self, Scenario};
use ftlab::internals::scheme::{self, SchemeContext};
use ftlab::internals::stream::{self, MapperContext};

/// Two tenants on `tiny` with room for every scheme's defaults (Eq. 12 for wao-gc, the data
/// ways of part-ftl): over-provisioning 1, namespaces of 30% each.
fn scenario_text(scheduler: &str) -> String {
    let tenant = |name: &str| {
        format!(
            "[[tenants]]\nname = \"{name}\"\nnamespace_fraction = 0.3\n[tenants.synthetic]\nrequests = 10\n"
        )
    };
    format!(
        "seed = 1\nschemes = [\"unified\"]\n[device]\npreset = \"tiny\"\nover_provisioning = \
         1.0\n[ftl]\nscheduler = \"{scheduler}\"\n{}{}",
        tenant("a"),
        tenant("b")
    )
}

fn load(scheduler: &str) -> Scenario {
    scenario::load(&scenario_text(scheduler), "knobs.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds the policy `name` of either registry from `table` on the test device (mappers with 4
/// physical streams).
fn try_build(s: &Scenario, name: &str, table: &toml::Table) -> Result<(), SchemeConfigError> {
    let (g, ns, tasks) = (s.geometry(), s.namespace_units(), s.rt_tasks());
    if scheme::info(name).is_some() {
        let ctx = SchemeContext {
            geometry: &g,
            namespace_units: &ns,
            over_provisioning: s.device.over_provisioning,
            timing: s.timing(),
            low_watermark_blocks: s.ftl.gc_low_watermark_blocks,
            tasks: &tasks,
            scheduler: s.ftl.scheduler,
        };
        scheme::build(name, table, &ctx).map(|_| ())
    } else {
        stream::build(
            name,
            table,
            &MapperContext { geometry: &g, namespace_units: &ns, physical_streams: 4, fdp: None },
        )
        .map(|_| ())
    }
}

/// (name, knobs, fields, defaults) of every policy of both registries.
fn policies() -> Vec<(&'static str, &'static [Knob], &'static [&'static str], toml::Table)> {
    fn rows<B, C>(
        reg: &[PolicyInfo<B, C>],
    ) -> impl Iterator<Item = (&'static str, &'static [Knob], &'static [&'static str], toml::Table)> + '_
    {
        reg.iter().map(|p| (p.name, p.knobs, (p.fields)(), (p.defaults)()))
    }
    rows(scheme::REGISTRY).chain(rows(stream::REGISTRY)).collect()
}

fn one(key: &str, value: toml::Value) -> toml::Table {
    toml::Table::from_iter([(key.to_string(), value)])
}

#[test]
fn every_knob_table_matches_its_config_struct_and_defaults() {
    let s = load("priority");
    let all = policies();
    assert_eq!(all.len(), scheme::REGISTRY.len() + stream::REGISTRY.len());
    for (name, knobs, fields, defaults) in all {
        let keys: Vec<&str> = knobs.iter().map(|k| k.key).collect();
        assert_eq!(keys, fields, "{name}: knob table vs the config struct's serde fields");
        for key in defaults.keys() {
            assert!(keys.contains(&key.as_str()), "{name}: default {key} has no knob");
        }
        for k in knobs {
            // A preset may give an optional knob a value (upi-guarded's guards).
            assert!(
                defaults.contains_key(k.key) || !k.absent.is_empty(),
                "{name}.{}: no default and not marked optional",
                k.key
            );
            assert!(!k.doc.is_empty() && !k.range_text().is_empty(), "{name}.{}: doc and range", k.key);
        }
        try_build(&s, name, &toml::Table::new())
            .unwrap_or_else(|e| panic!("{name} defaults: {}: {}", e.key, e.reason));
        try_build(&s, name, &defaults)
            .unwrap_or_else(|e| panic!("{name} listed defaults: {}: {}", e.key, e.reason));
    }
}

/// Values on either side of each finite static bound: (value, inside, the element key suffix).
fn float_probes(b: Bounds) -> Vec<(f64, bool)> {
    let mut out = Vec::new();
    if b.lo.is_finite() {
        out.push((if b.lo_open { b.lo } else { b.lo.next_down() }, false));
        out.push((if b.lo_open { b.lo.next_up() } else { b.lo }, true));
    }
    if b.hi.is_finite() {
        out.push((if b.hi_open { b.hi } else { b.hi.next_up() }, false));
        out.push((if b.hi_open { b.hi.next_down() } else { b.hi }, true));
    }
    out
}

fn int_probes(b: IntBounds) -> Vec<(i64, bool)> {
    let mut out = Vec::new();
    if let Some(lo) = b.lo {
        out.extend([(lo - 1, false), (lo, true)]);
    }
    if let Some(hi) = b.hi {
        out.extend([(hi + 1, false), (hi, true)]);
    }
    out
}

/// `value` at `key` (the knob's, or `key.0` of a list) is refused naming it, or not refused
/// for its range.
fn expect(
    s: &Scenario,
    name: &str,
    knob: &Knob,
    table: toml::Table,
    err_key: &str,
    shown: &str,
    inside: bool,
) -> usize {
    let got = try_build(s, name, &table);
    let ctx = format!("{name}.{} = {shown}", knob.key);
    match (inside, got) {
        (false, Ok(())) => panic!("{ctx}: outside {} but accepted", knob.range_text()),
        (false, Err(e)) => {
            assert_eq!(e.key, err_key, "{ctx}: refused under another key ({})", e.reason);
            assert!(
                e.reason.starts_with("must be") && e.reason.ends_with(&format!("got {shown}")),
                "{ctx}: {}",
                e.reason
            );
        }
        // Inside the static range: refused under this key only by a bound the knob names as
        // the device's (`also`), never by another static one.
        (true, Err(e))
            if e.key == err_key && (knob.also.is_empty() || e.reason.contains(&knob.range_text())) =>
        {
            panic!("{ctx}: inside {} but refused: {}", knob.range_text(), e.reason)
        }
        (true, _) => {}
    }
    1
}

#[test]
fn every_static_bound_is_the_validations_bound() {
    let s = load("priority");
    let n_tenants = s.namespace_units().len();
    let mut checked = 0;
    for (name, knobs, _, _) in policies() {
        for k in knobs {
            match k.kind {
                KnobKind::Float(b) => {
                    for (v, inside) in float_probes(b) {
                        checked += expect(
                            &s,
                            name,
                            k,
                            one(k.key, toml::Value::Float(v)),
                            k.key,
                            &v.to_string(),
                            inside,
                        );
                    }
                }
                KnobKind::FloatList(b) => {
                    for (v, inside) in float_probes(b) {
                        let list = toml::Value::Array(vec![toml::Value::Float(v); n_tenants]);
                        checked += expect(
                            &s,
                            name,
                            k,
                            one(k.key, list),
                            &format!("{}.0", k.key),
                            &v.to_string(),
                            inside,
                        );
                    }
                }
                KnobKind::Int(b) => {
                    for (v, inside) in int_probes(b) {
                        checked += expect(
                            &s,
                            name,
                            k,
                            one(k.key, toml::Value::Integer(v)),
                            k.key,
                            &v.to_string(),
                            inside,
                        );
                    }
                }
                KnobKind::Choice(names) => {
                    for c in names {
                        if let Err(e) = try_build(&s, name, &one(k.key, toml::Value::String(c.to_string()))) {
                            assert_ne!(
                                e.key, k.key,
                                "{name}.{} = {c:?} is listed but refused: {}",
                                k.key, e.reason
                            );
                        }
                    }
                    let e = try_build(&s, name, &one(k.key, "no-such-choice".into()))
                        .expect_err("an unknown choice is refused");
                    assert_eq!(e.key, k.key, "{name}: {}", e.reason);
                    checked += 1;
                }
                KnobKind::Bool => {
                    for b in [true, false] {
                        try_build(&s, name, &one(k.key, toml::Value::Boolean(b)))
                            .unwrap_or_else(|e| panic!("{name}.{} = {b}: {}", k.key, e.reason));
                    }
                }
                KnobKind::IntList(_) | KnobKind::Tables(_) => {}
            }
        }
    }
    // upi's and upi-guarded's floats alone are over 30 probes: the loop ran over the tables.
    assert!(checked > 80, "only {checked} probes");
}

/// The fields of a flashblox software vSSD (`KnobKind::Tables`) by the same rule, under the
/// fair scheduler that software vSSDs need.
#[test]
fn flashblox_vssd_fields_are_checked_by_their_table() {
    let s = load("fair");
    let knob =
        scheme::info("flashblox").unwrap().knobs.iter().find(|k| k.key == "tenants").expect("tenants knob");
    let KnobKind::Tables(fields) = knob.kind else { panic!("tenants is a table of vSSDs") };
    let mut checked = 0;
    for f in fields {
        let probes: Vec<(toml::Value, String, bool)> = match f.kind {
            KnobKind::Float(b) => {
                float_probes(b).into_iter().map(|(v, i)| (toml::Value::Float(v), v.to_string(), i)).collect()
            }
            KnobKind::Int(b) => {
                int_probes(b).into_iter().map(|(v, i)| (toml::Value::Integer(v), v.to_string(), i)).collect()
            }
            _ => continue,
        };
        for (v, shown, inside) in probes {
            let vssd =
                toml::Table::from_iter([("kind".to_string(), "software".into()), (f.key.to_string(), v)]);
            let tenants = toml::Value::Array(vec![
                toml::Value::Table(vssd),
                toml::Value::Table(toml::Table::from_iter([("kind".to_string(), "software".into())])),
            ]);
            checked += expect(
                &s,
                "flashblox",
                f,
                one("tenants", tenants),
                &format!("tenants.0.{}", f.key),
                &shown,
                inside,
            );
        }
    }
    assert_eq!(checked, 8, "iops_max and burst, both ends");
}
