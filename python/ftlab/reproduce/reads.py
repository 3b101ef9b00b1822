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
- `divisor`: the number divided by it (1 by default; 1000 turns µs into ms).

A read is a float (`count` an int), never a silent zero: a missing value is None or NaN as
above. This module reads given documents; it runs nothing and judges nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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

    def read(self, docs: Documents) -> float | int | None:
        """The number in `docs` (an unsupplied source is an `ftlab.UsageError`)."""
        if self.source not in docs:
            raise usage_error("measure", f"read {self.name!r}: no document {self.source!r} is supplied")
        found = find(docs[self.source], self.path)
        if self.form == "count":
            return len(found)
        if self.form == "value":
            one = found[0] if len(found) == 1 else None
            return float(one) / self.divisor if is_number(one) else None
        return reduce(found, self.form, self.n) / self.divisor


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


def _read(where: str, i: int, raw: object) -> ReadDecl:
    f = Fields.of(where, f"reproduce.reads[{i}]", raw, ReadDecl)
    form = f.choice("form", FORMS)
    n = f.integer("n", 0, 0, 1000)
    if n and form in ("value", "count"):
        f.bad("`n` goes with form max, min, mean or sum")
    divisor = f.number("divisor")
    if divisor is not None and (divisor <= 0 or form == "count"):
        f.bad("`divisor` is a positive number, not with form count")
    path = f.text("path")
    if "" in path.split("."):
        f.bad(f"path {path!r} has an empty part")
    return ReadDecl(f.text("name"), f.text("source"), path, form, n, 1.0 if divisor is None else divisor)


def load_reads(where: str, raw: object) -> tuple[ReadDecl, ...]:
    """The `[[reproduce.reads]]` tables of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    reads = tables(where, "reproduce.reads", raw, _read)
    distinct(where, "reproduce.reads: duplicate names", [r.name for r in reads])
    return reads
