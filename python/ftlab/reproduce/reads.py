"""ftlab.reproduce.reads: named numbers a claim file declares to read from the JSON documents
of a paper's runs (`[[reproduce.reads]]`), for its table values (`measures.TableValueDecl`)
to compare.

A read is one named number:

- `name`: the number's name (a column of the row `read_all` returns);
- `source`: the document it reads: a run label (its summary.json) or a document the paper's
  code supplies under that name;
- `path`: a dotted key path in the document, each part a key or an `fnmatch` pattern over the
  keys of a table ("w*": every task named w...; "admission_eq[67]_total": two counters);
- `form`: "value" (the one number at `path`; None without one), "max", "min", "mean" and
  "sum" (of the finite numbers found; NaN without one, but the sum 0: a sum of nothing) or
  "count" (how many values the path finds: an int);
- `n`: with max, min, mean or sum, how many finite numbers the path must find, else the read
  is NaN (0: any number);
- `multiplier` and `divisor`: the number times the first over the second (1 by default;
  a divisor of 1000 turns µs into ms; 196608, a 24-page request's bytes, over 10^6 turns
  requests/s into MB/s);
- `integer`: with form "sum", the sum as an int (a count of misses; a sum that is not a whole
  number is an `ftlab.UsageError`; not with `divisor`, `multiplier` or `n`).

A read is a float (`count` and `integer` an int), never a silent zero: a missing value is None
or NaN as above.

A read table (`[[reproduce.read_tables]]`) is the same reads nested over levels: `name`, the
`source` its reads read, `levels` (each a placeholder `name` and its `values`, a list, or
`keys_of`, the keys of the table at that path of the source, in its order) and `reads`, each
a read whose `path` is a `str.format` template of the levels' placeholders ("{op[0]}": the
first letter of the op); `read_table` gives {first level's value: {...: {read: number}}}.
This module reads given documents; it runs nothing and judges nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ftlab._errors import usage_error
from ftlab.reproduce.decl import Fields, distinct, is_number, tables
from ftlab.reproduce.keypath import PATTERNS, walk
from ftlab.reproduce.keypath import reduce as _reduce

#: The forms of a declared read (see the module docstring).
FORMS = ("value", "max", "min", "mean", "sum", "count")
#: A paper's documents by source name: a run's summary.json or a document its code supplies.
Documents = Mapping[str, object]


@dataclass(frozen=True)
class ReadDecl:
    """One `[[reproduce.reads]]` table (see the module docstring)."""

    name: str
    source: str
    path: str
    form: str = "value"
    n: int = 0
    divisor: float = 1.0
    integer: bool = False
    multiplier: float = 1.0

    def read(self, docs: Documents) -> float | int | None:
        """The number in `docs` (an unsupplied source is an `ftlab.UsageError`)."""
        if self.source not in docs:
            raise usage_error("measure", f"read {self.name!r}: no document {self.source!r} is supplied")
        found = find(docs[self.source], self.path)
        if self.form == "count":
            return len(found)
        if self.form == "value":
            one = found[0] if len(found) == 1 else None
            return float(one) * self.multiplier / self.divisor if is_number(one) else None
        value = reduce(found, self.form, self.n) * self.multiplier / self.divisor
        if self.integer:
            if not value.is_integer():
                raise usage_error("measure", f"read {self.name!r}: the sum {value} is not a whole number")
            return int(value)
        return value


def reduce(found: Sequence[object], form: str, n: int = 0) -> float:
    """The max, min, mean or sum of the finite numbers in `found` (`keypath.reduce`, its
    "finite" rule; see the module docstring).

    >>> reduce([3, 1.5, None, "x"], "max"), reduce([], "mean"), reduce([], "sum")
    (3.0, nan, 0.0)
    """
    value = _reduce(found, form, "finite", n)
    assert value is not None, "the finite rule always gives a number"
    return float(value)


def find(node: object, path: str) -> list[object]:
    """The values at dotted `path` under `node`, each part a key or an `fnmatch` pattern over
    a table's keys, nulls skipped (`keypath.walk`, its `PATTERNS` rule).

    >>> find({"t": {"w0": {"m": 1}, "r0": {"m": 2}, "w1": {"m": None}}}, "t.w*.m")
    [1]
    """
    return walk(node, path, PATTERNS)


def read_all(decls: Sequence[ReadDecl], docs: Documents) -> dict[str, float | int | None]:
    """Every declared read of `docs`, by name, in order."""
    return {d.name: d.read(docs) for d in decls}


def _read(where: str, i: int, raw: object, label: str = "reproduce.reads") -> ReadDecl:
    f = Fields.of(where, f"{label}[{i}]", raw, ReadDecl)
    form = f.choice("form", FORMS)
    n = f.integer("n", 0, 0, 1000)
    if n and form in ("value", "count"):
        f.bad("`n` goes with form max, min, mean or sum")
    divisor, multiplier = f.number("divisor"), f.number("multiplier")
    for key, given in (("divisor", divisor), ("multiplier", multiplier)):
        if given is not None and (given <= 0 or form == "count"):
            f.bad(f"`{key}` is a positive number, not with form count")
    integer = f.flag("integer")
    if integer and (form != "sum" or divisor is not None or multiplier is not None or n):
        f.bad("`integer` goes with form sum, without `divisor`, `multiplier` and `n`")
    path = f.text("path")
    if "" in path.split("."):
        f.bad(f"path {path!r} has an empty part")
    scale = [1.0 if v is None else v for v in (divisor, multiplier)]
    return ReadDecl(f.text("name"), f.text("source"), path, form, n, scale[0], integer, scale[1])


def load_reads(where: str, raw: object) -> tuple[ReadDecl, ...]:
    """The `[[reproduce.reads]]` tables of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    reads = tables(where, "reproduce.reads", raw, _read)
    distinct(where, "reproduce.reads: duplicate names", [r.name for r in reads])
    return reads


# --------------------------------------------------------------------------------------
# Read tables: the same reads nested over levels


@dataclass(frozen=True)
class LevelDecl:
    """One level of a read table: its placeholder `name` and its `values`, or `keys_of`, a
    path whose table's keys are the values."""

    name: str
    values: tuple[str, ...] = ()
    keys_of: str = ""

    def of(self, doc: object) -> list[str]:
        """The level's values in the source document `doc`."""
        if not self.keys_of:
            return list(self.values)
        table_ = walk(doc, self.keys_of)
        return [str(k) for k in table_[0]] if len(table_) == 1 and isinstance(table_[0], Mapping) else []


@dataclass(frozen=True)
class ReadTableDecl:
    """One `[[reproduce.read_tables]]` table (see the module docstring)."""

    name: str
    source: str
    levels: tuple[LevelDecl, ...]
    reads: tuple[ReadDecl, ...]


#: A read table's value: nested by its levels' values, its reads' numbers at the leaves.
ReadTable = dict[str, object]


def read_table(decl: ReadTableDecl, docs: Documents) -> ReadTable:
    """The read table `decl` of `docs` (an unsupplied source is an `ftlab.UsageError`)."""
    if decl.source not in docs:
        raise usage_error("measure", f"read table {decl.name!r}: no document {decl.source!r} is supplied")
    return _nest(decl, docs, {})


def _nest(decl: ReadTableDecl, docs: Documents, at: Mapping[str, str]) -> ReadTable:
    """The read table's entries below the level values `at`."""
    if len(at) == len(decl.levels):
        return {d.name: replace(d, path=d.path.format_map(at)).read(docs) for d in decl.reads}
    level = decl.levels[len(at)]
    return {v: _nest(decl, docs, {**at, level.name: v}) for v in level.of(docs[decl.source])}


def _level(where: str, label: str, raw: object) -> LevelDecl:
    f = Fields.of(where, label, raw, LevelDecl)
    values, keys = f.texts("values"), f.text("keys_of", "")
    if bool(values) == bool(keys):
        f.bad("needs exactly one of `values` and `keys_of`")
    return LevelDecl(f.text("name"), values, keys)


def _read_table(where: str, i: int, raw: object) -> ReadTableDecl:
    f = Fields.of(where, f"reproduce.read_tables[{i}]", raw, ReadTableDecl)
    source = f.text("source")
    at_levels = f"reproduce.read_tables[{i}].levels"
    levels = tables(where, at_levels, f.raw.get("levels"), lambda w, j, t: _level(w, f"{at_levels}[{j}]", t))
    label = f"reproduce.read_tables[{i}].reads"
    raw_reads = f.raw.get("reads")
    if not levels or not isinstance(raw_reads, list) or not raw_reads:
        f.bad("needs `levels` and `reads`, each a non-empty array of tables")
    if not all(isinstance(r, Mapping) and "source" not in r for r in raw_reads):
        f.bad("a read of a read table reads the table's `source`: it names none")
    found = tuple(_read(where, j, {**r, "source": source}, label) for j, r in enumerate(raw_reads))
    distinct(where, f"{label}: duplicate names", [r.name for r in found])
    at = {lv.name: "x" for lv in levels}
    try:
        for r in found:
            r.path.format_map(at)
    except (KeyError, ValueError, IndexError) as e:
        f.bad(f"a read's path names an unknown placeholder or format ({e})")
    return ReadTableDecl(f.text("name"), source, levels, found)


def load_read_tables(where: str, raw: object) -> tuple[ReadTableDecl, ...]:
    """The `[[reproduce.read_tables]]` of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    found = tables(where, "reproduce.read_tables", raw, _read_table)
    distinct(where, "reproduce.read_tables: duplicate names", [t.name for t in found])
    return found
