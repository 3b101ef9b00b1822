"""ftlab.reproduce.measures: the a/b measures a claim file declares, `[[reproduce.pairs]]`.

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

A missing or zero value makes the measure NaN and the sentence says so (`MISSING`). The paper's
code supplies the values (`Lookup`: subject, system, key -> the number or None); every other
measure name is the paper's own (`measure_all`'s `own`). This module computes ratios of given
numbers; it reads no summary and runs nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ftlab._errors import input_error
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import fmt_change, fmt_number, ratio
from ftlab.reproduce.decl import Fields, tables

#: The default end of a ratio's sentence and of a margin's.
RATIO_TAIL = "{factor:.3f}x."
MARGIN_TAIL = "margin {margin:+.3f} ({a} over {b} − 1)."
#: What a ratio's sentence adds when a value is missing or the base is zero.
MISSING = " (A value is missing from summary.json or zero.)"

#: A paper's metric lookup: (subject, system, key) -> the number, or None where it is missing.
Lookup = Callable[[str, str, str], "float | None"]


@dataclass(frozen=True)
class PairDecl:
    """One `[[reproduce.pairs]]` table (see the module docstring)."""

    key: str
    why: str
    unit: str = ""
    digits: int = 0
    ratio_tail: str = RATIO_TAIL
    margin_tail: str = MARGIN_TAIL

    def measure(self, subject: str, a: str, b: str, margin: bool, value: Lookup) -> Measured:
        """The pair's value and sentence for systems `a` and `b` on `subject`."""
        va, vb = value(subject, a, self.key), value(subject, b, self.key)
        factor = ratio(va, vb)
        names = {"subject": subject, "a": a, "b": b}
        head = self.why.format(
            **names,
            va=fmt_number(va, self.unit, self.digits),
            vb=fmt_number(vb, self.unit, self.digits),
        )
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


def measure_one(
    name: str, pairs: Sequence[PairDecl], value: Lookup, own: Callable[[str], Measured]
) -> Measured:
    """Measure `name`: a declared pair from `value`'s numbers, any other name by `own`."""
    pair = parse(name, pairs)
    if pair is None:
        return own(name)
    return pair.decl.measure(pair.subject, pair.a, pair.b, pair.margin, value)


def measure_all(
    names: Sequence[str], pairs: Sequence[PairDecl], value: Lookup, own: Callable[[str], Measured]
) -> dict[str, Measured]:
    """`measure_one` of every name, in order."""
    return {name: measure_one(name, pairs, value, own) for name in names}


def load_pairs(where: str, raw: object) -> tuple[PairDecl, ...]:
    """The `[[reproduce.pairs]]` tables of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    pairs = tables(where, "reproduce.pairs", raw, _pair)
    keys = [p.key for p in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise input_error(where, f"reproduce.pairs: duplicate keys {', '.join(dup)}")
    return pairs


def _pair(where: str, i: int, given: object) -> PairDecl:
    f = Fields.of(where, f"reproduce.pairs[{i}]", given, PairDecl)
    decl = PairDecl(
        f.text("key"),
        f.text("why"),
        f.text("unit", ""),
        f.integer("digits", 0, 0, 6),
        f.text("ratio_tail", RATIO_TAIL),
        f.text("margin_tail", MARGIN_TAIL, nonempty=True),
    )
    try:  # every template formats: a wrong placeholder is the file's error, not a run's
        decl.measure("subject", "a", "b", False, lambda _s, _x, _k: 1.0)
        decl.measure("subject", "a", "b", True, lambda _s, _x, _k: 1.0)
    except (KeyError, ValueError, IndexError) as e:
        f.bad(f"a template names an unknown placeholder or format ({e})")
    return decl
