//! The declarative description of a policy's knobs (schemes and stream mappers): each knob's
//! key, unit, kind and device-independent range, with the one checker every policy's
//! validation runs (`check_all`), and `PolicyInfo`, a registry entry (name, one-line summary,
//! knob table, serde field names and defaults, build function). `ftlab schemes` and `ftlab
//! mappers` print these tables and the defaults the config structs' serde defaults give, so
//! the listing and the validation cannot drift (`tests/knobs.rs` checks both ways).
//!
//! What this is not: it parses nothing (the config structs do, `policy::parse_config`), and it
//! does not hold bounds that depend on the device or the scenario (a die's blocks, the
//! physical streams, the tenants): those stay in each policy's build, and a knob names them in
//! `also` so that the listing says so.

use crate::policy::{parse_config, to_table, SchemeConfigError};
use serde::de::{self, Visitor};

/// An interval of reals: `[lo, hi]` with either end open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
    pub lo_open: bool,
    pub hi_open: bool,
}

impl Bounds {
    pub(crate) const fn closed(lo: f64, hi: f64) -> Bounds {
        Bounds { lo, hi, lo_open: false, hi_open: false }
    }
    /// `(lo, hi]`.
    pub(crate) const fn open_lo(lo: f64, hi: f64) -> Bounds {
        Bounds { lo, hi, lo_open: true, hi_open: false }
    }
    pub(crate) const fn open(lo: f64, hi: f64) -> Bounds {
        Bounds { lo, hi, lo_open: true, hi_open: true }
    }

    /// Whether `v` is inside (NaN never is).
    pub(crate) fn contains(&self, v: f64) -> bool {
        let above = if self.lo_open { v > self.lo } else { v >= self.lo };
        let below = if self.hi_open { v < self.hi } else { v <= self.hi };
        above && below
    }

    /// `[0.001, 86400]`, `(0, 1)`.
    pub(crate) fn text(&self) -> String {
        let (l, r) = (if self.lo_open { "(" } else { "[" }, if self.hi_open { ")" } else { "]" });
        format!("{l}{}, {}{r}", self.lo, self.hi)
    }
}

/// An inclusive range of integers; `None` = no bound beyond the type's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntBounds {
    pub lo: Option<i64>,
    pub hi: Option<i64>,
}

impl IntBounds {
    pub(crate) const fn new(lo: i64, hi: i64) -> IntBounds {
        IntBounds { lo: Some(lo), hi: Some(hi) }
    }
    pub(crate) const fn at_least(lo: i64) -> IntBounds {
        IntBounds { lo: Some(lo), hi: None }
    }
    /// Bounded by the type only (or by the device, in the policy's build).
    pub(crate) const ANY: IntBounds = IntBounds { lo: None, hi: None };

    pub(crate) fn contains(&self, v: i64) -> bool {
        self.lo.is_none_or(|lo| v >= lo) && self.hi.is_none_or(|hi| v <= hi)
    }

    /// `[1, 1024]`, `>= 1`, or "" for no bound.
    pub(crate) fn text(&self) -> String {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) => format!("[{lo}, {hi}]"),
            (Some(lo), None) => format!(">= {lo}"),
            (None, Some(hi)) => format!("<= {hi}"),
            (None, None) => String::new(),
        }
    }
}

/// What values a knob takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KnobKind {
    Float(Bounds),
    /// An array of reals, each in the bounds (key of an element: `key.<i>`).
    FloatList(Bounds),
    Int(IntBounds),
    /// An array of integers, each in the bounds.
    IntList(IntBounds),
    Bool,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// An array of tables, each described by these knobs (key of a field: `key.<i>.<field>`);
    /// a field absent from an element is not checked.
    Tables(&'static [Knob]),
}

/// One knob of a policy's config table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knob {
    /// The key in `[scheme.<name>]` / `[stream.<name>]` (the serde field name).
    pub key: &'static str,
    /// Unit of the value ("s", "pages", "" for unitless).
    pub(crate) unit: &'static str,
    pub kind: KnobKind,
    /// Bounds that depend on the device or scenario, checked in the policy's build ("" for
    /// none), e.g. "above ftl.gc_low_watermark_blocks".
    pub also: &'static str,
    /// For a knob whose serde default is absent (an `Option`): what absence means ("" for a
    /// knob that always has a value).
    pub absent: &'static str,
    /// One line: what it does.
    pub doc: &'static str,
}

impl Knob {
    pub(crate) const fn new(
        key: &'static str,
        unit: &'static str,
        kind: KnobKind,
        doc: &'static str,
    ) -> Knob {
        Knob { key, unit, kind, also: "", absent: "", doc }
    }

    /// With device- or scenario-dependent bounds, checked by the policy's build.
    pub(crate) const fn also(self, also: &'static str) -> Knob {
        Knob { also, ..self }
    }

    /// An optional knob: `absent` says what leaving it out means.
    pub(crate) const fn absent(self, absent: &'static str) -> Knob {
        Knob { absent, ..self }
    }

    /// The static range as text: `[0.001, 86400]`, `one of enforce, report`, `each in (0, 8]`.
    pub fn range_text(&self) -> String {
        let fixed = match self.kind {
            KnobKind::Float(b) => b.text(),
            KnobKind::FloatList(b) => format!("each in {}", b.text()),
            KnobKind::Int(b) => b.text(),
            KnobKind::IntList(b) if b == IntBounds::ANY => String::new(),
            KnobKind::IntList(b) => format!("each {}", b.text()),
            KnobKind::Bool => "true or false".to_string(),
            KnobKind::Choice(names) => format!("one of {}", names.join(", ")),
            KnobKind::Tables(_) => "array of tables".to_string(),
        };
        match (fixed.is_empty(), self.also.is_empty()) {
            (_, true) => fixed,
            (true, false) => self.also.to_string(),
            (false, false) => format!("{fixed}; {}", self.also),
        }
    }

    /// `value` (this knob's, at `key`) against the static range.
    fn check_value(&self, key: &str, value: &toml::Value) -> Result<(), SchemeConfigError> {
        match (self.kind, value) {
            (KnobKind::Float(b), v) => check_float(key, b, v),
            (KnobKind::Int(b), toml::Value::Integer(v)) => check_int(key, b, *v),
            (KnobKind::FloatList(b), toml::Value::Array(a)) => {
                a.iter().enumerate().try_for_each(|(i, v)| check_float(&format!("{key}.{i}"), b, v))
            }
            (KnobKind::IntList(b), toml::Value::Array(a)) => {
                a.iter().enumerate().try_for_each(|(i, v)| match v {
                    toml::Value::Integer(v) => check_int(&format!("{key}.{i}"), b, *v),
                    _ => Ok(()),
                })
            }
            (KnobKind::Tables(knobs), toml::Value::Array(a)) => {
                a.iter().enumerate().try_for_each(|(i, v)| match v {
                    toml::Value::Table(t) => check_fields(&format!("{key}.{i}."), knobs, t),
                    _ => Ok(()),
                })
            }
            _ => Ok(()),
        }
    }
}

fn check_float(key: &str, b: Bounds, v: &toml::Value) -> Result<(), SchemeConfigError> {
    let x = match v {
        toml::Value::Float(x) => *x,
        toml::Value::Integer(i) => *i as f64,
        _ => return Ok(()),
    };
    if b.contains(x) {
        Ok(())
    } else {
        Err(SchemeConfigError::new(key, format!("must be in {}, got {x}", b.text())))
    }
}

fn check_int(key: &str, b: IntBounds, v: i64) -> Result<(), SchemeConfigError> {
    if b.contains(v) {
        Ok(())
    } else {
        Err(SchemeConfigError::new(
            key,
            format!("must be {}{}, got {v}", if b.hi.is_some() { "in " } else { "" }, b.text()),
        ))
    }
}

fn check_fields(prefix: &str, knobs: &[Knob], table: &toml::Table) -> Result<(), SchemeConfigError> {
    for knob in knobs {
        if let Some(v) = table.get(knob.key) {
            knob.check_value(&format!("{prefix}{}", knob.key), v)?;
        }
    }
    Ok(())
}

/// Every knob of `knobs` present in `config` (serialised) against its static range, in the
/// table's order: the validation every policy runs after parsing its config. Errors name the
/// key ("epoch_s", "traffic_exponents.1", "tenants.0.burst") and say "must be in [lo, hi], got
/// x". Bounds that depend on the device are the policy's own checks after this one.
pub(crate) fn check_all<T: serde::Serialize>(knobs: &[Knob], config: &T) -> Result<(), SchemeConfigError> {
    check_fields("", knobs, &to_table(config))
}

/// The serde defaults of config struct `T`: the table an empty config parses to.
pub(crate) fn serde_defaults<T: serde::de::DeserializeOwned + serde::Serialize>() -> toml::Table {
    let config: T = parse_config(&toml::Table::new())
        .unwrap_or_else(|e| panic!("an empty config table parses ({}: {})", e.key, e.reason));
    to_table(&config)
}

/// The field names of config struct `T` as its `Deserialize` derive declares them (including
/// `Option` fields that serialise to nothing).
pub(crate) fn config_fields<'de, T: serde::Deserialize<'de>>() -> &'static [&'static str] {
    let mut probe = FieldProbe(None);
    let _ = T::deserialize(&mut probe);
    probe.0.unwrap_or(&[])
}

/// A deserializer that records the field list a derived struct asks for, then stops.
struct FieldProbe(Option<&'static [&'static str]>);

impl<'de> de::Deserializer<'de> for &mut FieldProbe {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = Some(fields);
        Err(de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// One registry entry of a policy (a scheme or a stream mapper): what `ftlab schemes` /
/// `ftlab mappers` list and what builds it. `B` is the registry's build function type, `C`
/// what else an entry of that registry carries (a scheme's `scheme::Capabilities`; nothing
/// for a stream mapper).
#[derive(Clone, Copy)]
pub struct PolicyInfo<B, C = ()> {
    pub name: &'static str,
    /// One line: what the policy is.
    pub(crate) summary: &'static str,
    pub knobs: &'static [Knob],
    /// The config struct's field names (`config_fields::<Config>`).
    pub fields: fn() -> &'static [&'static str],
    /// The config an empty table resolves to (`serde_defaults::<Config>`, or a preset's).
    pub defaults: fn() -> toml::Table,
    pub(crate) build: B,
    /// What the policy brings besides its build (`scheme::Capabilities`).
    pub caps: C,
}

impl<B, C> PolicyInfo<B, C> {
    /// The policy and its knobs as JSON: name, summary, and per knob key, unit, default (absent:
    /// null, with `absent` saying what that means), range text, doc.
    pub(crate) fn describe(&self) -> serde_json::Value {
        let defaults = (self.defaults)();
        let knobs: Vec<serde_json::Value> = self
            .knobs
            .iter()
            .map(|k| {
                let default = defaults
                    .get(k.key)
                    .map(|v| serde_json::to_value(v).expect("toml value to json"))
                    .unwrap_or(serde_json::Value::Null);
                let kind = match k.kind {
                    KnobKind::Float(_) => "float",
                    KnobKind::FloatList(_) => "float list",
                    KnobKind::Int(_) => "integer",
                    KnobKind::IntList(_) => "integer list",
                    KnobKind::Bool => "bool",
                    KnobKind::Choice(_) => "choice",
                    KnobKind::Tables(_) => "tables",
                };
                let field = |s: &Knob| {
                    serde_json::json!({"key": s.key, "unit": s.unit, "range": s.range_text(), "doc": s.doc})
                };
                let fields: Vec<serde_json::Value> = match k.kind {
                    KnobKind::Tables(sub) => sub.iter().map(field).collect(),
                    _ => Vec::new(),
                };
                serde_json::json!({
                    "key": k.key, "unit": k.unit, "kind": kind, "default": default, "absent": k.absent,
                    "range": k.range_text(), "doc": k.doc, "fields": fields,
                })
            })
            .collect();
        serde_json::json!({ "name": self.name, "summary": self.summary, "knobs": knobs })
    }
}

/// Names of a registry's policies, comma-separated (error messages).
pub(crate) fn names<B, C>(registry: &[PolicyInfo<B, C>]) -> String {
    registry.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}
