"""ftlab.reproduce.keypath: the one reader of a dotted key path in a parsed JSON or TOML
document (a run's summary.json, a resolved scenario), and the one reduction of the numbers
it finds. Every declared reader of the reproductions reads through it: a run's row and
tables (`rows`), the declared reads (`reads`), a run's checks (`run_checks`), the knobs'
places (`cases`) and the declared cases' scaled keys (`driver`).

A path is dotted parts, "" none (the document itself). How a part meets a table, a null and
an array is the reader's `Rule`, said once here:

- `patterns`: each part is an `fnmatch` pattern over a table's keys ("w*", "eq[67]");
  without it a part is one key, or `*` for every key;
- `nulls`: a null that `*` or a pattern reaches is kept (a row's sum over `*` is then None,
  not a sum of fewer); a null at a plain key is always missing, as is a missing key;
- `arrays`: an array is stepped into as `--set` keys a scenario's arrays: `*` is each of its
  tables, keyed by its `name` (else its index), and a key met at an array is sought in each of
  its tables, keyed by index; without it an array ends the path (it yields nothing below it).

`SUMMARY` (keys and `*`, nulls kept at `*`), `PATTERNS` (patterns, nulls skipped) and
`SCENARIO` (keys and `*`, arrays as `--set` keys them) are the three rules the readers use.
`matches` gives each value found with its key path (the `--set` key of a scenario's value);
`walk` the values only, `walk_one` the one value.

The reduction (`reduce`): "max", "min", "mean" or "sum" of numbers, with the rule for what is
not a finite number explicit: `finite` skips it (a declared read: NaN for none, a sum of none
0.0), `every` refuses it (a row's metric: None unless every value is a number, the numbers'
own type kept).

This module reads given documents; it runs nothing, judges nothing and names no paper.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from ftlab.reproduce.decl import is_number

#: The reductions of the numbers a path finds.
REDUCTIONS = ("max", "min", "mean", "sum")


@dataclass(frozen=True)
class Rule:
    """How a key path's parts meet tables, nulls and arrays (see the module docstring)."""

    patterns: bool = False
    nulls: bool = True
    arrays: bool = False


#: A run's summary.json as rows read it: keys and `*`, nulls kept at `*`.
SUMMARY = Rule()
#: A document as declared reads read it: `fnmatch` patterns, nulls skipped.
PATTERNS = Rule(patterns=True, nulls=False)
#: A scenario document as `--set` keys it: keys and `*`, arrays by `name` or index.
SCENARIO = Rule(arrays=True)


def matches(node: object, path: str, rule: Rule = SUMMARY) -> list[tuple[str, object]]:
    """Every value at dotted `path` under `node` with its key path, in the document's order.

    >>> doc = {"t": [{"name": "a", "s": {"r": 1.0}}, {"name": "b", "s": [{"r": 2.0}, {}]}]}
    >>> matches(doc, "t.*.s.r", SCENARIO)
    [('t.a.s.r', 1.0), ('t.b.s.0.r', 2.0)]
    >>> matches({"x": {"a": None, "b": 2}}, "x.*"), matches({"x": {"a": None}}, "x.a")
    ([('x.a', None), ('x.b', 2)], [])
    """
    return _matches(node, path.split(".") if path else [], 0, "", rule)


def walk(node: object, path: str, rule: Rule = SUMMARY) -> list[object]:
    """The values at dotted `path` under `node` (`matches` without their key paths).

    >>> walk({"t": {"w0": {"m": 1}, "r0": {"m": 2}, "w1": {"m": None}}}, "t.w*.m", PATTERNS)
    [1]
    """
    return [v for _, v in matches(node, path, rule)]


def walk_one(node: object, path: str, rule: Rule = SUMMARY) -> object:
    """The one value at dotted `path` under `node` (`walk`); None if there is none or several."""
    found = walk(node, path, rule)
    return found[0] if len(found) == 1 else None


def _matches(node: object, parts: Sequence[str], i: int, at: str, rule: Rule) -> list[tuple[str, object]]:
    """The matches of `parts[i:]` under `node`, whose key path is `at`."""
    if i == len(parts):
        return [(at, node)]
    join = at + "." if at else ""
    part = parts[i]
    if rule.arrays and isinstance(node, list):
        star = part == "*"
        return [
            m
            for k, item in enumerate(node)
            for m in _matches(
                item, parts, i + 1 if star else i, join + str(_name_of(item, k) if star else k), rule
            )
        ]
    if not isinstance(node, Mapping):
        return []
    return [m for k, v in _step(node, part, rule) for m in _matches(v, parts, i + 1, join + k, rule)]


def _step(node: Mapping[str, object], part: str, rule: Rule) -> list[tuple[str, object]]:
    """A table's entries one part reaches, a null kept only where the rule keeps it."""
    if rule.patterns:
        wild = [(str(k), v) for k, v in node.items() if fnmatchcase(str(k), part)]
    elif part == "*":
        wild = [(str(k), v) for k, v in node.items()]
    else:
        return [(part, node[part])] if node.get(part) is not None else []
    return wild if rule.nulls else [(k, v) for k, v in wild if v is not None]


def _name_of(item: object, k: int) -> object:
    """An array's table's `--set` key: its `name`, else its index."""
    return item.get("name", k) if isinstance(item, Mapping) else k


def reduce(
    found: Sequence[object], form: str, rule: Literal["finite", "every"], n: int = 0
) -> float | int | None:
    """The max, min, mean or sum (`form`) of the numbers in `found`, by `rule`: "finite" skips
    what is not a finite number (NaN for none, or unless there are `n` when `n` is given, but
    a sum of none 0.0; a float); "every" is None unless every value is a number and there is
    one (the numbers' own type kept).

    >>> reduce([3, 1.5, None, "x"], "max", "finite"), reduce([], "sum", "finite")
    (3.0, 0.0)
    >>> reduce([2.0], "max", "finite", n=2)
    nan
    >>> reduce([3, 1], "sum", "every"), reduce([3, None], "sum", "every")
    (4, None)
    """
    assert form in REDUCTIONS, f"a reduction is one of {REDUCTIONS}"
    assert not n or rule == "finite", "a count of numbers goes with the finite rule"
    if rule == "every":
        numbers = [v for v in found if is_number(v)]
        return _fold(numbers, form) if numbers and len(numbers) == len(found) else None
    good = [float(v) for v in found if is_number(v) and math.isfinite(v)]
    if n and len(good) != n:
        return math.nan
    if not good:
        return 0.0 if form == "sum" else math.nan
    return float(_fold(good, form))


def _fold(numbers: Sequence[float | int], form: str) -> float | int:
    """The reduction `form` of a non-empty list of numbers."""
    if form == "max":
        return max(numbers)
    if form == "min":
        return min(numbers)
    total = sum(numbers)
    return total if form == "sum" else total / len(numbers)
