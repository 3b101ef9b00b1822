"""ftlab.reproduce.cases: a sensitivity study's knobs as data (`[[reproduce.knobs]]` of a
claim file), each turned into one-at-a-time cases (`sweep_study.StudyCase`) computed from the
resolved scenario.

A knob varies one key (or, with `keys`, several set together from a list per value) at its
places in the scenario, one case per value:

- the places: `at`, a dotted table path (`device.timing`); or `tenant` (a name, or "*" for
  every named tenant) with, optionally, `parts` (that tenant's synthetic parts: "all",
  "first", "readers" (read_ratio > 0), "writers" (read_ratio < 1), "latest_start" (the part
  with the latest `start_s`, the last of equals), "writers_but_latest_start"), without it the
  tenant tables; or `schemes`, the scheme tables (`scheme.NAME`) of those the scenario runs;
  then kept only where `where` (key -> value) holds and every key of `having` is present;
- the form: "values" (the key set to each value), "factors" (to each factor times the place's
  own number; no case unless every place has one) or "sizes" (each value a request size in
  bytes: `sizes` one size of weight 1);
- `need`: no case unless every place has the key(s); `default`: the base when the first place
  lacks the key; `also`: further keys set at every place, "NUMBER / KEY" of the place's KEY
  (no case unless every place has that number); `pin`: dotted paths whose list value in the
  scenario is set as it is (a `scheme.NAME.` path only if NAME runs), after the knob's own;
- the case's place in the study's tables: `parameter`, and `str.format` templates `name`,
  `value` (of the case) and `base` (of the first place's value before any change) over the
  fields `value`, `label` (the value as text: `:g` for a number, "n/a" for none), `factor`,
  `rates` (every place's number, `:g`, joined by "+"), `first`, `total` (of a `keys` value:
  its first number, its sum), `kib` (a size in KiB; none for a mix, which `label` names) and
  `of` (the value times the first place's tenant's key `of`, 1 when absent). `x` is the
  factor, the KiB, the first number or the number itself (`base_x`: 1, the base's);
  `numeric = false` leaves both out.

A knob whose places the scenario lacks (no such tenant, part, scheme or key) has no case. The
study's cases are the base case, then every knob's, in the claim file's order. This module
computes overrides; it runs nothing, and names no paper.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from ftlab import _toml
from ftlab._errors import input_error, usage_error
from ftlab.reproduce.decl import Fields, is_number, tables
from ftlab.reproduce.keypath import SCENARIO, matches, walk_one
from ftlab.reproduce.sweep_study import BASE, StudyCase, study_case

#: A table of the parsed scenario (TOML, untyped below its keys).
Table = Mapping[str, object]
#: A place a knob sets: its `--set` path, its table and its tenant's table ({} outside one).
Place = tuple[str, Table, Table]
FORMS = ("values", "factors", "sizes")
PARTS = ("", "all", "first", "readers", "writers", "latest_start", "writers_but_latest_start")
_ALSO = re.compile(r"^\s*([0-9.eE+-]+)\s*/\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


@dataclass(frozen=True)
class KnobDecl:
    """One `[[reproduce.knobs]]` table (see the module docstring)."""

    parameter: str
    name: str
    values: tuple[object, ...]
    value: str = "{label}"
    base: str = "{label}"
    key: str = ""
    keys: tuple[str, ...] = ()
    form: str = "values"
    at: str = ""
    tenant: str = ""
    parts: str = ""
    schemes: tuple[str, ...] = ()
    where: Mapping[str, object] | None = None
    having: tuple[str, ...] = ()
    need: bool = False
    default: float | None = None
    of: str = ""
    also: Mapping[str, str] | None = None
    pin: tuple[str, ...] = ()
    numeric: bool = True

    @property
    def set_keys(self) -> tuple[str, ...]:
        return self.keys or (self.key,)


def load_knobs(where: str, raw: object) -> tuple[KnobDecl, ...]:
    """The `[[reproduce.knobs]]` tables of the claim file `where`; a bad one is an
    `ftlab.InputError` naming the table and the key."""
    return tables(where, "reproduce.knobs", raw, _knob)


def _knob(where: str, i: int, raw: object) -> KnobDecl:
    name = raw.get("name", "?") if isinstance(raw, Mapping) else "?"
    f = Fields.of(where, f"reproduce.knobs[{i}] ({name})", raw, KnobDecl)
    places = [k for k in ("at", "tenant", "schemes") if k in f.raw]
    if len(places) != 1:
        f.bad("give exactly one of `at`, `tenant`, `schemes` (where the knob's key sits)")
    key, keys = f.text("key", ""), f.texts("keys")
    if bool(key) == bool(keys):
        f.bad("give exactly one of `key`, `keys`")
    values = f.raw.get("values")
    if not isinstance(values, list) or not values:
        f.bad("`values` must be a non-empty list")
    form = f.choice("form", FORMS)
    if form != "values" and (keys or not all(is_number(v) for v in values)):
        f.bad(f"with form {form!r}, give `key` and numbers as `values`")
    if keys and not all(_numbers(v) and len(v) == len(keys) for v in values):
        f.bad(f"with `keys`, each value must be a list of {len(keys)} numbers")
    parts = f.text("parts", "")
    if parts not in PARTS or (parts and "tenant" not in f.raw):
        f.bad(f"`parts` must be one of {', '.join(PARTS[1:])}, with `tenant`")
    where_, also = f.raw.get("where", {}), f.strings("also")
    if not isinstance(where_, Mapping):
        f.bad("`where` must be a table of key = value")
    if any(not _ALSO.match(v) for v in also.values()):
        f.bad("each `also` value must be NUMBER / KEY")
    decl = KnobDecl(
        parameter=f.text("parameter"),
        name=f.text("name"),
        values=tuple(values),
        value=f.text("value", "{label}"),
        base=f.text("base", "{label}"),
        key=key,
        keys=keys,
        form=form,
        at=f.text("at", ""),
        tenant=f.text("tenant", ""),
        parts=parts,
        schemes=f.texts("schemes"),
        where=dict(where_),
        having=f.texts("having"),
        need=f.flag("need"),
        default=f.number("default"),
        of=f.text("of", ""),
        also=also,
        pin=f.texts("pin"),
        numeric=f.flag("numeric", True),
    )
    try:  # the templates format: a wrong placeholder is the file's error, not a study's
        fields = _fields(decl, decl.values[0], 1.0, ["1"], 1.0)
        [t.format(**fields) for t in (decl.name, decl.value, decl.base)]
    except (KeyError, ValueError, IndexError, TypeError) as e:
        f.bad(f"a template names an unknown field or format ({e})")
    return decl


# --------------------------------------------------------------------------------------
# The cases


def study_cases(knobs: Sequence[KnobDecl], resolved_toml: str) -> list[StudyCase]:
    """The study of a resolved scenario: the base case, then every knob's cases in order."""
    scenario: Table = _toml.loads(resolved_toml)
    cases = [study_case("base", BASE, "base", {}, None, "base", None)]
    for knob in knobs:
        cases += knob_cases(knob, scenario)
    return cases


def knob_cases(decl: KnobDecl, scenario: Table) -> list[StudyCase]:
    """One knob's cases on a parsed scenario ([] where it lacks the knob's places)."""
    places = _places(decl, scenario)
    keys = decl.set_keys
    if not places or (decl.need and not all(k in t for _, t, _ in places for k in keys)):
        return []
    if decl.form == "factors" and numbers([(p, t.get(decl.key)) for p, t, _ in places]) is None:
        return []
    also = {k: _ALSO.match(v) for k, v in (decl.also or {}).items()}
    derived = [(k, float(m[1]), m[2]) for k, m in also.items() if m]
    if not all(is_number(t.get(d)) for _, t, _ in places for _, _, d in derived):
        return []
    first, tenant = places[0][1], places[0][2]
    base = tuple(first.get(k, decl.default) for k in keys) if decl.keys else first.get(decl.key, decl.default)
    ns = _float(tenant.get(decl.of), 1.0) if decl.of else 1.0
    rates = [f"{float(n):g}" for _, t, _ in places if is_number(n := t.get(decl.key))]
    base_fields = _fields(decl, base, 1.0, rates, ns, base=True)
    base_label = decl.base.format(**base_fields)
    pin = _pins(decl.pin, scenario)
    out = []
    for v in decl.values:
        sets: dict[str, object] = {}
        for path, table, _ in places:
            sets.update(_set_at(decl, path, table, v))
            sets.update({f"{path}.{k}": n / float(_number(table.get(d))) for k, n, d in derived})
        shown = _shown(decl, v, first)
        fields = _fields(decl, shown, v, rates, ns)
        out.append(
            study_case(
                decl.name.format(**fields),
                decl.parameter,
                decl.value.format(**fields),
                {**sets, **pin},
                _x(decl, fields) if decl.numeric else None,
                base_label,
                _x(decl, base_fields, base=True) if decl.numeric else None,
            )
        )
    return out


def _shown(decl: KnobDecl, v: object, first: Table) -> object:
    """The first place's value in the case: a factor's product, else the value itself."""
    return scale([("", first.get(decl.key))], _number(v))[0][1] if decl.form == "factors" else v


def _set_at(decl: KnobDecl, path: str, table: Table, v: object) -> dict[str, object]:
    """One place's overrides of one value."""
    if decl.form == "factors":
        return dict(scale([(f"{path}.{decl.key}", table.get(decl.key))], _number(v)))
    if decl.form == "sizes":
        return {f"{path}.{decl.key}": [{"bytes": v, "weight": 1.0}]}
    if decl.keys:
        assert isinstance(v, list), "a `keys` value is a list (checked on load)"
        return {f"{path}.{k}": n for k, n in zip(decl.keys, v, strict=True)}
    return {f"{path}.{decl.key}": v}


def _fields(
    decl: KnobDecl, value: object, factor: object, rates: Sequence[str], ns: object, base: bool = False
) -> dict[str, object]:
    """The template fields of a value (`base`: of the first place's value before a change)."""
    fields: dict[str, object] = {"value": value, "label": label(value), "factor": factor}
    fields["rates"] = "+".join(rates)
    if isinstance(value, (list, tuple)) and value and all(is_number(n) for n in value):
        fields["first"], fields["total"] = float(value[0]), sum(float(n) for n in value)
    if decl.form == "sizes":
        kib = value / 1024 if is_number(value) else _one_size_kib(value) if base else None
        fields["kib"], fields["label"] = kib, f"{kib:g} KiB" if kib is not None else "mix"
    if decl.of and is_number(value) and is_number(ns):
        fields["of"] = value * ns
    return fields


def _one_size_kib(sizes: object) -> float | None:
    """A `sizes` list of one size, in KiB (None for a mix)."""
    if isinstance(sizes, list) and len(sizes) == 1 and isinstance(sizes[0], Mapping):
        b = sizes[0].get("bytes")
        return b / 1024 if isinstance(b, int) and not isinstance(b, bool) else None
    return None


def _x(decl: KnobDecl, fields: Mapping[str, object], base: bool = False) -> float | None:
    """A value's number on its parameter's axis: the factor, the KiB, a `keys` value's first
    number, or the value itself when a number (as it is declared; a base's as a float)."""
    v = fields["factor" if decl.form == "factors" else "kib" if decl.form == "sizes" else "value"]
    if decl.keys:
        v = fields.get("first")
    return (float(v) if base else v) if is_number(v) else None


def label(value: object) -> str:
    """A value as a table shows it: a number `:g`, none "n/a", text as it is."""
    return f"{value:g}" if is_number(value) else "n/a" if value is None else str(value)


def _number(v: object) -> float | int:
    assert is_number(v), "a number (checked before the case is made)"
    return v


# --------------------------------------------------------------------------------------
# A scaled number: a knob's `factors` and a declared case's `scale` (`driver.CaseDecl`)


def numbers(found: Sequence[tuple[str, object]]) -> list[tuple[str, float | int]] | None:
    """`found`'s (key, value) pairs if every value is a number, else None."""
    good = [(k, v) for k, v in found if is_number(v)]
    return good if len(good) == len(found) else None


def scale(found: Sequence[tuple[str, object]], factor: float | int) -> list[tuple[str, float]]:
    """`factor` times each number found, by its `--set` key: the one rule by which a knob's
    `factors` and a declared case's `scale` set a place to a multiple of its own number.
    Every value must be a number (`numbers`; checked before, an invariant here)."""
    return [(k, float(_number(v)) * float(factor)) for k, v in found]


def scaled_at(scenario: object, path: str, factor: float | int, where: str) -> list[tuple[str, float]]:
    """`factor` times each number at dotted `path` in a scenario document, by its `--set` key
    (`keypath.SCENARIO`: `*` each key of a table or table of an array); one number unless the
    path has a `*`. A path that finds no number, or a value that is not one, is an
    `ftlab.InputError` of `where`."""
    found = matches(scenario, path, SCENARIO)
    if not found or ("*" not in path.split(".") and len(found) != 1):
        raise input_error(where, f"no number at {path}")
    if numbers(found) is None:
        raise input_error(where, f"{', '.join(k for k, v in found if not is_number(v))} is not a number")
    return scale(found, factor)


@dataclass(frozen=True)
class SplitDecl:
    """A declared case's `split` (`driver.CaseDecl`): at each match of `parts` (a dotted path,
    `keypath.SCENARIO`, each an array of two tables), the number `key` of both tables set so
    that the first carries the case's value (a share in [0, 1]) of the pair's total of `key`
    times the number at `weight` (a dotted path in each table) and the second the rest, the
    total kept."""

    parts: str
    key: str
    weight: str


def load_split(where: str, label: str, raw: object) -> SplitDecl:
    """A case's `split` table; a bad one is an `ftlab.InputError` naming the key."""
    f = Fields.of(where, f"{label}: split", raw, SplitDecl)
    return SplitDecl(f.text("parts"), f.text("key"), f.text("weight"))


def split_at(scenario: object, decl: SplitDecl, share: float | int, where: str) -> list[tuple[str, float]]:
    """The numbers of a `split` (`SplitDecl`) of `share`, by `--set` key, pair by pair: the
    first table's `key` share x total / its weight, the second's (1 - share) x total / its
    weight, total the pair's key x weight summed. A path that finds no pair, or a pair that is
    not two tables with a number at `key` and one at `weight`, is an `ftlab.InputError` of
    `where`.

    >>> parts = [{"r": 1024.0, "s": [{"b": 4096}]}, {"r": 16.0, "s": [{"b": 262144}]}]
    >>> split_at({"t": [{"p": parts}]}, SplitDecl("t.p", "r", "s.b"), 0.25, "here")
    [('t.0.p.0.r', 512.0), ('t.0.p.1.r', 24.0)]
    """
    out: list[tuple[str, float]] = []
    for at, pair in matches(scenario, decl.parts, SCENARIO):
        tables_ = [_table(p) for p in pair] if isinstance(pair, list) else []
        rates = [walk_one(t, decl.key) for t in tables_]
        weights = [walk_one(t, decl.weight, SCENARIO) for t in tables_]
        if len(tables_) != 2 or not all(is_number(n) for n in (*rates, *weights)):
            raise input_error(where, f"{at} is not two tables, each a number at {decl.key} and {decl.weight}")
        (r0, r1), (w0, w1) = map(_pair, (rates, weights))
        total = r0 * w0 + r1 * w1
        out += [
            (f"{at}.0.{decl.key}", share * total / w0),
            (f"{at}.1.{decl.key}", (1.0 - share) * total / w1),
        ]
    if not out:
        raise input_error(where, f"no pair of parts at {decl.parts}")
    return out


def _pair(v: Sequence[object]) -> tuple[float | int, float | int]:
    return _number(v[0]), _number(v[1])


@dataclass(frozen=True)
class EachDecl:
    """A declared case's `each` (`driver.CaseDecl`): a list with one entry per table of the
    array at `at` (a dotted scenario path), each `entry` (a `str.format` template of
    `{scaled}`) filled with the case's value times that table's number: the sum of `key` over
    its parts at `parts` (a table or an array of tables), `default` for a part without `key`.
    The entries, joined by ", ", are the `set` templates' `{entries}`."""

    at: str
    parts: str
    key: str
    entry: str
    default: float | None = None


def load_each(where: str, label: str, raw: object) -> EachDecl:
    """A case's `each` table; a bad one is an `ftlab.InputError` naming the key."""
    f = Fields.of(where, f"{label}: each", raw, EachDecl)
    decl = EachDecl(f.text("at"), f.text("parts"), f.text("key"), f.text("entry"), f.number("default"))
    try:  # the entry formats: a wrong placeholder is the file's error, not a case's
        decl.entry.format(scaled=1.0)
    except (KeyError, ValueError, IndexError, TypeError) as e:
        f.bad(f"`entry` names an unknown placeholder or format ({e})")
    return decl


def each_entries(scenario: object, decl: EachDecl, factor: float | int) -> str:
    """The `{entries}` of an `each` (`EachDecl`) of the case's value `factor`: `entry` per
    table at `decl.at`, its `{scaled}` `factor` x the table's summed `key`. A table without a
    part at `decl.parts`, or a part whose `key` is not a number (nor absent with a `default`),
    is an `ftlab.UsageError` naming the table (`at.N`): the case cannot size its entry.

    >>> doc = {"t": [{"s": {"r": 10.0}}, {"s": [{"r": 1.0}, {}]}]}
    >>> each_entries(doc, EachDecl("t", "s", "r", "{{x = {scaled:.1f}}}", 1000.0), 2.0)
    '{x = 20.0}, {x = 2002.0}'
    """
    found = walk_one(scenario, decl.at)
    entries = []
    for i, table in enumerate(found if isinstance(found, list) else []):
        parts = walk_one(table, decl.parts)
        parts = [parts] if isinstance(parts, Mapping) else parts
        rates = [p.get(decl.key, decl.default) for p in _list(parts) if isinstance(p, Mapping)]
        if not rates or not _numbers(rates):
            raise usage_error(
                f"{decl.at}.{i}",
                f"no {decl.parts} with a number at {decl.key} in each part, to size the case's entry",
            )
        entries.append(decl.entry.format(scaled=factor * sum(float(r) for r in rates)))
    return ", ".join(entries)


# --------------------------------------------------------------------------------------
# The places


def _places(decl: KnobDecl, scenario: Table) -> list[Place]:
    """The knob's places in the scenario, filtered by `where` and `having`."""
    if decl.at:
        node = walk_one(scenario, decl.at)
        found: list[Place] = [(decl.at, node, {})] if isinstance(node, Mapping) else []
    elif decl.schemes:
        run, tables_ = _list(scenario.get("schemes")), _table(scenario.get("scheme"))
        found = [(f"scheme.{s}", _table(tables_.get(s)), {}) for s in decl.schemes if s in run]
    else:
        named = [t for t in map(_table, _list(scenario.get("tenants"))) if isinstance(t.get("name"), str)]
        chosen = [t for t in named if decl.tenant in ("*", t["name"])]
        if decl.tenant != "*":
            chosen = chosen[:1]
        found = [p for t in chosen for p in _select(decl.parts, t)]
    want = decl.where or {}
    return [
        p for p in found if all(p[1].get(k) == v for k, v in want.items()) and set(decl.having) <= set(p[1])
    ]


def _select(parts: str, tenant: Table) -> list[Place]:
    """A tenant's table (no `parts`) or its synthetic parts of the selector `parts`."""
    name = str(tenant["name"])
    if not parts:
        return [(f"tenants.{name}", tenant, tenant)]
    synthetic = tenant.get("synthetic")
    if isinstance(synthetic, list):
        every = [(f"tenants.{name}.synthetic.{i}", _table(p), tenant) for i, p in enumerate(synthetic)]
    else:
        every = [(f"tenants.{name}.synthetic", synthetic, tenant)] if isinstance(synthetic, Mapping) else []
    ratio = [_float(p[1].get("read_ratio"), 0.0) for p in every]
    latest = max(range(len(every)), key=lambda i: (_float(every[i][1].get("start_s"), 0.0), i), default=-1)
    return [p for i, p in enumerate(every) if _keep(parts, i, ratio[i], latest)]


def _keep(parts: str, i: int, read_ratio: float, latest: int) -> bool:
    """Whether part `i` (of `read_ratio`; `latest`: the latest start's) is one of `parts`."""
    if parts == "first":
        return i == 0
    if parts == "latest_start":
        return i == latest
    reads, writes = read_ratio > 0.0, read_ratio < 1.0
    return {"readers": reads, "writers": writes, "writers_but_latest_start": writes and i != latest}.get(
        parts, True
    )


def _pins(paths: Sequence[str], scenario: Table) -> dict[str, object]:
    """The `pin` paths' list values in the scenario (a scheme's only if it runs)."""
    run, out = _list(scenario.get("schemes")), dict[str, object]()
    for path in paths:
        head = path.split(".")
        if head[0] == "scheme" and (len(head) < 2 or head[1] not in run):
            continue
        node = walk_one(scenario, path)
        if isinstance(node, list):
            out[path] = list(node)
    return out


def _has(table: Table, keys: Sequence[str]) -> bool:
    return all(k in table for k in keys)


def _numbers(v: object) -> TypeGuard[list[int | float]]:
    return isinstance(v, list) and all(is_number(n) for n in v)


def _table(v: object) -> Table:
    return v if isinstance(v, Mapping) else {}


def _list(v: object) -> list[object]:
    return v if isinstance(v, list) else []


def _float(v: object, default: float) -> float:
    return float(v) if is_number(v) else default
