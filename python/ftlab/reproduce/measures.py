"""ftlab.reproduce.measures: the generic measures a claim file declares: the a/b measures
(`[[reproduce.pairs]]`), a single run's value (`[[reproduce.values]]`) and a system's margin
over the best other one (`[[reproduce.bests]]`).

A pair measure is named "[margin:]<key>:<subject>:<a>/<b>": the value of metric <key> of system
<a> over system <b>'s on <subject> (a workload, a tenant, a case), minus 1 with "margin:". Its
declaration is data, one table per metric key:

- `key`: the metric (a key of the paper's metrics: "dlwa", "throughput_mb_s", "p99_us");
- `why`: the sentence's head, a `str.format` template of `{subject}`, `{a}`, `{b}` and `{va}`,
  `{vb}` (the two values, with thousands separators, `unit` and `digits` decimals, "n/a" if
  missing);
- `ratio_tail` and `margin_tail`: the sentence's end for a ratio and a margin, templates of
  `{factor}` (a/b), `{margin}` (a/b − 1), `{change}` (a/b − 1 as a signed percentage),
  `{subject}`, `{a}` and `{b}` (defaults `RATIO_TAIL`, `MARGIN_TAIL`).

A missing or zero value makes the measure NaN and the sentence says so (`MISSING`).

A value measure is named "<key>:<subject>/<system>": metric <key> of that one run, its
sentence `why`, a template of `{subject}`, `{system}` and `{v}` (the value with `unit` and
`digits`; "n/a" if missing, and the value None). A best measure is named
"<name>:<subject>": the declared `system`'s value of metric `key` over the highest of the
other systems' on the subject, minus 1 (a missing value counts as the lowest; NaN without a
runner-up); its sentence `why` is a template of `{subject}`, `{system}`, `{v}`, `{runner}`
(the best other system, "none" without one), `{vr}` and `{margin}`.

A value with `table` (a table value) is named by its `name`: column `key` of the one row of
the table the paper's code supplies under that name (`Tables`) whose columns equal `match`
(the table's only row without `match`), or that over column `base` minus 1 (with `factor`,
not minus 1: a factor); its sentence `why` is a template of the row's columns and `{v}` (a
column that is None prints "n/a" under a format spec); with `missing`, no matching row, or a
row whose `key` is None, leaves it not measured with that reason.

The paper's code supplies the values (`Lookup`: subject, system, key -> the number or None)
and, for a best, the systems run on a subject; every other measure name is the paper's own
(`measure_all`'s `own`). This module computes ratios of given numbers; it reads no summary
and runs nothing.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from ftlab._errors import input_error, usage_error
from ftlab._json import number
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import fmt_change, fmt_number, ratio, relative_change
from ftlab.reproduce.decl import Fields, distinct, tables

#: The default end of a ratio's sentence and of a margin's.
RATIO_TAIL = "{factor:.3f}x."
MARGIN_TAIL = "margin {margin:+.3f} ({a} over {b} − 1)."
#: What a ratio's sentence adds when a value is missing or the base is zero.
MISSING = " (A value is missing from summary.json or zero.)"

#: A paper's metric lookup: (subject, system, key) -> the number, or None where it is missing.
Lookup = Callable[[str, str, str], "float | None"]
#: The systems run on a subject, in the runs' order.
Systems = Callable[[str], Sequence[str]]


@dataclass(frozen=True)
class Sentence:
    """What every declared measure has: the metric `key`, the sentence `why` (a template) and
    how a value in it is printed, with `unit` and `digits` decimals."""

    key: str
    why: str
    unit: str = ""
    digits: int = 0

    def fmt(self, v: float | None) -> str:
        """A value as the sentence prints it ("n/a" if missing)."""
        return fmt_number(v, self.unit, self.digits)


@dataclass(frozen=True)
class PairDecl(Sentence):
    """One `[[reproduce.pairs]]` table (see the module docstring)."""

    ratio_tail: str = RATIO_TAIL
    margin_tail: str = MARGIN_TAIL

    def measure(self, subject: str, a: str, b: str, margin: bool, value: Lookup) -> Measured:
        """The pair's value and sentence for systems `a` and `b` on `subject`."""
        va, vb = value(subject, a, self.key), value(subject, b, self.key)
        factor = ratio(va, vb)
        names = {"subject": subject, "a": a, "b": b}
        head = self.why.format(**names, va=self.fmt(va), vb=self.fmt(vb))
        tail = (self.margin_tail if margin else self.ratio_tail).format(
            **names, factor=factor, margin=factor - 1.0, change=fmt_change(factor - 1.0)
        )
        why = head + tail + (MISSING if math.isnan(factor) else "")
        return Measured(factor - 1.0 if margin else factor, why)


@dataclass(frozen=True)
class PairName:
    """A parsed pair measure name: its declaration, subject, systems and whether a margin."""

    decl: PairDecl
    subject: str
    a: str
    b: str
    margin: bool


def parse(name: str, pairs: Sequence[PairDecl]) -> PairName | None:
    """The pair `name` stands for, or None when it is not "[margin:]<key>:<subject>:<a>/<b>"
    with a declared key.

    >>> p = parse("margin:dlwa:u50:fdp/nonfdp", [PairDecl("dlwa", "")])
    >>> (p.subject, p.a, p.b, p.margin) if p else None
    ('u50', 'fdp', 'nonfdp', True)
    >>> parse("dlwa:u50/fdp", [PairDecl("dlwa", "")]) is None
    True
    """
    margin = name.startswith("margin:")
    parts = name.removeprefix("margin:").split(":")
    if len(parts) != 3 or parts[2].count("/") != 1:
        return None
    decl = next((p for p in pairs if p.key == parts[0]), None)
    if decl is None:
        return None
    a, b = parts[2].split("/")
    return PairName(decl, parts[1], a, b, margin)


@dataclass(frozen=True)
class ValueDecl(Sentence):
    """One `[[reproduce.values]]` table (see the module docstring)."""

    def measure(self, subject: str, system: str, value: Lookup) -> Measured:
        """Run "<subject>/<system>"'s value and its sentence."""
        v = value(subject, system, self.key)
        return Measured(v, self.why.format(subject=subject, system=system, v=self.fmt(v)))


#: The tables a paper's code supplies to its table values: name -> rows (column -> value).
Tables = Mapping[str, Sequence[Mapping[str, object]]]


class _AnyField(dict[str, object]):
    """A row that has every column (1.0), to try a table value's template."""

    def __missing__(self, key: str) -> object:
        return 1.0


@dataclass(frozen=True, kw_only=True)
class TableValueDecl(Sentence):
    """One `[[reproduce.values]]` table with `table` (see the module docstring): the measure
    `name`, column `key` of the row of the supplied `table` whose columns equal `match` (the
    table's one row without `match`), over column `base` minus 1 with `base`; `missing`, when
    set, the reason it is not measured when no row matches."""

    name: str
    table: str
    match: Mapping[str, str]
    base: str = ""
    missing: str = ""
    factor: bool = False

    def measure(self, tables: Tables) -> Measured:
        """The value and its sentence from the supplied `tables`; a table the code does not
        supply, or a row it lacks without `missing`, is an `ftlab.UsageError`."""
        if self.table not in tables:
            raise usage_error("measure", f"{self.name!r} reads table {self.table!r}, which is not supplied")
        rows = [r for r in tables[self.table] if all(str(r.get(c)) == v for c, v in self.match.items())]
        if len(rows) != 1:
            if self.missing and not rows:
                return Measured(None, self.missing, self.missing)
            raise usage_error(
                "measure", f"{self.name!r}: {len(rows)} rows of {self.table!r} match {self.match}"
            )
        row = rows[0]
        v = number(row.get(self.key))
        if v is None and self.missing and row.get(self.key) is None:
            return Measured(None, self.missing, self.missing)
        value = v
        if self.base:
            value = (ratio if self.factor else relative_change)(v, number(row.get(self.base)))
        try:
            why = _NA_FORMAT.vformat(self.why, (), {**row, "v": self.fmt(v)})
        except KeyError as e:
            raise usage_error("measure", f"{self.name!r}: table {self.table!r} has no column {e}") from None
        return Measured(value, why)


class _NotAvailable(string.Formatter):
    """`str.format` that prints a None under a format spec as "n/a" (a value not measured)."""

    def format_field(self, value: object, format_spec: str) -> str:
        if value is None and format_spec:
            return "n/a"
        return str(super().format_field(value, format_spec))


_NA_FORMAT = _NotAvailable()


def table_values(decls: Sequence[TableValueDecl], tables: Tables) -> dict[str, Measured]:
    """Every declared table value measured on the supplied `tables`, by its name."""
    return {d.name: d.measure(tables) for d in decls}


@dataclass(frozen=True, kw_only=True)
class BestDecl(Sentence):
    """One `[[reproduce.bests]]` table (see the module docstring): the measure name's head
    `name` and the `system` measured against the others."""

    name: str
    system: str

    def measure(self, subject: str, systems: Sequence[str], value: Lookup) -> Measured:
        """The declared system's margin over the best of `systems` on `subject`."""
        values = {s: value(subject, s, self.key) for s in systems}
        own = values.get(self.system)
        others = {s: v for s, v in values.items() if s != self.system}
        runner = max(others, key=lambda s: others[s] or -math.inf) if others else "none"
        margin = ratio(own, others.get(runner)) - 1.0
        v, vr = self.fmt(own), self.fmt(others.get(runner))
        why = self.why.format(subject=subject, system=self.system, v=v, runner=runner, vr=vr, margin=margin)
        return Measured(margin, why)


@dataclass(frozen=True)
class Declared:
    """A paper's declared measures: its pairs, values and bests."""

    pairs: Sequence[PairDecl] = ()
    values: Sequence[ValueDecl] = ()
    bests: Sequence[BestDecl] = ()
    tables: Sequence[TableValueDecl] = ()


def measure_one(
    name: str,
    pairs: Sequence[PairDecl] | Declared,
    value: Lookup,
    own: Callable[[str], Measured],
    systems: Systems = lambda _subject: (),
) -> Measured:
    """Measure `name`: a declared pair, value or best from `value`'s numbers (`pairs`: the
    pairs alone, or every declared kind), any other name by `own`."""
    decls = pairs if isinstance(pairs, Declared) else Declared(pairs)
    pair = parse(name, decls.pairs)
    if pair is not None:
        return pair.decl.measure(pair.subject, pair.a, pair.b, pair.margin, value)
    head, _, rest = name.partition(":")
    if rest and ":" not in rest:
        best = next((b for b in decls.bests if b.name == head), None)
        if best is not None and "/" not in rest:
            return best.measure(rest, systems(rest), value)
        single = next((v for v in decls.values if v.key == head), None)
        if single is not None and rest.count("/") == 1:
            subject, system = rest.split("/")
            return single.measure(subject, system, value)
    return own(name)


def measure_all(
    names: Sequence[str],
    pairs: Sequence[PairDecl] | Declared,
    value: Lookup,
    own: Callable[[str], Measured],
    systems: Systems = lambda _subject: (),
) -> dict[str, Measured]:
    """`measure_one` of every name, in order."""
    return {name: measure_one(name, pairs, value, own, systems) for name in names}


def load_pairs(where: str, raw: object) -> tuple[PairDecl, ...]:
    """The `[[reproduce.pairs]]` tables of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    pairs = tables(where, "reproduce.pairs", raw, _pair)
    distinct(where, "reproduce.pairs: duplicate keys", [p.key for p in pairs])
    return pairs


class _SentenceFields(TypedDict):
    key: str
    why: str
    unit: str
    digits: int


def sentence_fields(f: Fields) -> _SentenceFields:
    """A declared measure's `Sentence` fields."""
    return {
        "key": f.text("key"),
        "why": f.text("why"),
        "unit": f.text("unit", ""),
        "digits": f.integer("digits", 0, 0, 6),
    }


def _one(_subject: str, _system: str, _key: str) -> float:
    """A lookup that finds 1 everywhere, to try a declaration's templates."""
    return 1.0


def try_templates(f: Fields, *tries: Callable[[], object]) -> None:
    """Every template formats: a wrong placeholder is the file's error, not a run's."""
    try:
        for one in tries:
            one()
    except (KeyError, ValueError, IndexError) as e:
        f.bad(f"a template names an unknown placeholder or format ({e})")


def _pair(where: str, i: int, given: object) -> PairDecl:
    f = Fields.of(where, f"reproduce.pairs[{i}]", given, PairDecl)
    tail = f.text("ratio_tail", RATIO_TAIL)
    decl = PairDecl(
        **sentence_fields(f), ratio_tail=tail, margin_tail=f.text("margin_tail", MARGIN_TAIL, nonempty=True)
    )
    try_templates(
        f,
        lambda: decl.measure("subject", "a", "b", False, _one),
        lambda: decl.measure("subject", "a", "b", True, _one),
    )
    return decl


def load_declared(where: str, pairs: object, values: object, bests: object) -> Declared:
    """`[[reproduce.pairs]]`, `[[reproduce.values]]` (with `table`: a table value) and
    `[[reproduce.bests]]` of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    read = tables(where, "reproduce.values", values, _value)
    plain = tuple(v for v in read if isinstance(v, ValueDecl))
    named = tuple(v for v in read if isinstance(v, TableValueDecl))
    found = Declared(load_pairs(where, pairs), plain, tables(where, "reproduce.bests", bests, _best), named)
    keys = [v.key for v in found.values] + [b.name for b in found.bests] + [t.name for t in named]
    clash = sorted(
        {k for k in keys if keys.count(k) > 1}
        | ({b.name for b in found.bests} & {p.key for p in found.pairs})
    )
    if clash:
        raise input_error(where, f"reproduce.values and bests: a name used twice: {', '.join(clash)}")
    return found


def _value(where: str, i: int, given: object) -> ValueDecl | TableValueDecl:
    if isinstance(given, Mapping) and "table" in given:
        return _table_value(where, i, given)
    f = Fields.of(where, f"reproduce.values[{i}]", given, ValueDecl)
    decl = ValueDecl(**sentence_fields(f))
    try_templates(f, lambda: decl.measure("subject", "system", _one))
    return decl


def _table_value(where: str, i: int, given: object) -> TableValueDecl:
    f = Fields.of(where, f"reproduce.values[{i}]", given, TableValueDecl)
    decl = TableValueDecl(
        **sentence_fields(f),
        name=f.text("name"),
        table=f.text("table"),
        match=f.strings("match"),
        base=f.text("base", ""),
        missing=f.text("missing", ""),
        factor=f.flag("factor"),
    )
    if decl.factor and not decl.base:
        f.bad("`factor` goes with `base`")
    try_templates(f, lambda: decl.why.format_map(_AnyField(v="1")))
    return decl


def _best(where: str, i: int, given: object) -> BestDecl:
    f = Fields.of(where, f"reproduce.bests[{i}]", given, BestDecl)
    decl = BestDecl(**sentence_fields(f), name=f.text("name"), system=f.text("system"))
    if ":" in decl.name:
        f.bad("`name` is a measure name's head: no ':'")
    try_templates(f, lambda: decl.measure("subject", ["system", decl.system], _one))
    return decl
