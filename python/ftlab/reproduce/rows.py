"""ftlab.reproduce.rows: a run's row of metrics as its claim file declares it, and the rows
of the metrics CSV built from those rows.

A paper whose runs each stand alone (`ftlab.reproduce.per_run`) reads one row of named values
per run from the run's summary.json. The claim file declares them, in the row's order:

- `[reproduce.row]`: `root`, the dotted key of the table that holds the run's one scheme
  ("schemes", or "array.schemes" for a host layer; a run with no entry there reads every
  value as None, a run with more than one is an `ftlab.UsageError`), `label`, the CSV columns
  the run label "<subject>/<system>" is split into (["workload", "mapper"], or one column,
  ["run"], for the whole label), and `csv`, the CSV's file name (default "metrics.csv");
- `[[reproduce.metrics]]`: `name` (the row's key), `path` (a dotted key path in the scheme's
  entry; `{subject}` stands for the run label's subject, `*` for every key of a table) and
  `form`: "value" (the JSON value as it is), "float", "count" (the length of a list, 0 when
  absent), "sum" and "max" (over the `*`, None when there is none) or "key" (the entry's
  name, without `path`); with `per`, a second path, the value is value / per / `divisor`
  (default 1), None unless per > 0;
- `[[reproduce.columns]]`: the CSV's columns after the row's: `name` and either `of` and
  `to` (metric `of` normalised to system `to`'s on the same subject: None where either is
  missing) or `paper` (the paper's value by run label, None where it prints none).

A paper whose runs share one summary.json may instead declare where a pair's number sits,
`[reproduce] value_path` (`value_at`: "schemes.{system}.tenants.{subject}.read.{key}").

A missing value is None, never a silent zero. This module reads values; what a value means
to a claim is the claim file's (`measures`) and the paper's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ftlab._errors import input_error, usage_error
from ftlab.reproduce.claims import relative_change
from ftlab.reproduce.decl import Fields, distinct, is_number, tables

#: The forms of a declared metric (see the module docstring).
FORMS = ("value", "float", "count", "sum", "max", "key")
#: A run's row: metric name -> its JSON value (None where missing).
Row = dict[str, object]


@dataclass(frozen=True)
class RowDecl:
    """`[reproduce.row]`: where the run's one scheme sits, the label's CSV columns, the CSV."""

    root: str = "schemes"
    label: tuple[str, ...] = ("run",)
    csv: str = "metrics.csv"


@dataclass(frozen=True)
class MetricDecl:
    """One `[[reproduce.metrics]]` table (see the module docstring)."""

    name: str
    path: str = ""
    form: str = "value"
    per: str = ""
    divisor: float = 1.0

    def read(self, entry: Mapping[str, object], key: str, subject: str) -> object:
        """The value in scheme `key`'s `entry` of a run whose label's subject is `subject`."""
        if self.form == "key":
            return key
        found = walk(entry, self.path.replace("{subject}", subject))
        if self.form in ("sum", "max"):
            if not found or any(not is_number(v) for v in found):
                return None
            return sum(found) if self.form == "sum" else max(found)  # type: ignore[type-var,arg-type]
        value = found[0] if len(found) == 1 else None
        if self.form == "count":
            return len(value) if isinstance(value, list) else 0
        if self.per:
            base = walk_one(entry, self.per.replace("{subject}", subject))
            if not is_number(value) or not is_number(base):
                return None
            per = float(base)
            return float(value) / per / self.divisor if per > 0 else None
        if self.form == "float":
            return float(value) if is_number(value) else None
        return value


@dataclass(frozen=True)
class ColumnDecl:
    """One `[[reproduce.columns]]` table (see the module docstring)."""

    name: str
    of: str = ""
    to: str = ""
    paper: Mapping[str, float] = field(default_factory=dict)

    def value(self, label: str, rows: Mapping[str, Mapping[str, object]]) -> float | None:
        """The column's value in run `label`'s CSV row."""
        if not self.of:
            return self.paper.get(label)
        subject = label.split("/", 1)[0]
        base = rows.get(f"{subject}/{self.to}")
        a = rows[label].get(self.of)
        b = None if base is None else base.get(self.of)
        change = relative_change(
            float(a) if is_number(a) else None,
            float(b) if is_number(b) else None,
        )
        return None if math.isnan(change) else change + 1.0


@dataclass(frozen=True)
class RowsDecl:
    """A paper's declared row: where it is read, its metrics and its CSV's added columns."""

    row: RowDecl = RowDecl()
    metrics: tuple[MetricDecl, ...] = ()
    columns: tuple[ColumnDecl, ...] = ()

    def read(self, label: str, summary: Mapping[str, object]) -> Row:
        """Run `label`'s row from its summary.json, in the declared order."""
        found = walk(summary, self.row.root)
        schemes = found[0] if len(found) == 1 and isinstance(found[0], Mapping) else {}
        if len(schemes) > 1:
            raise usage_error(
                "summary",
                f"run {label}: a run read by itself has one scheme in {self.row.root}, not {sorted(schemes)}",
            )
        subject = label.split("/", 1)[0]
        key, entry = next(iter(schemes.items()), ("", None))
        if not isinstance(entry, Mapping):
            return {m.name: 0 if m.form == "count" else None for m in self.metrics}
        return {m.name: m.read(entry, key, subject) for m in self.metrics}

    def csv_rows(self, labels: Sequence[str], rows: Mapping[str, Mapping[str, object]]) -> list[Row]:
        """The CSV's rows of the runs `labels` that have a row, in that order: the label's
        columns, the row's values, then the declared columns."""
        out = []
        for label in labels:
            if label not in rows:
                continue
            parts = label.split("/", len(self.row.label) - 1)
            head = dict(zip(self.row.label, parts, strict=True))
            out.append({**head, **rows[label], **{c.name: c.value(label, rows) for c in self.columns}})
        return out


def value_at(node: object, path: str, subject: str, system: str, key: str) -> float | None:
    """The number at the declared `path` (`[reproduce] value_path`: a dotted key path, a
    template of `{subject}`, `{system}` and `{key}`) under `node`, a parsed summary.json: a
    declared pair's lookup; None where it is missing or not a number."""
    value = walk_one(node, path.format(subject=subject, system=system, key=key))
    return float(value) if is_number(value) else None


def walk_one(node: object, path: str) -> object:
    """The one value at dotted `path` under `node` (`walk`); None if there is none or several."""
    found = walk(node, path)
    return found[0] if len(found) == 1 else None


def walk(node: object, path: str) -> list[object]:
    """The values at dotted `path` under `node` ("*": every key of a table); a missing key or
    a null on the way yields none."""
    found = [node]
    for part in path.split(".") if path else []:
        step: list[object] = []
        for n in found:
            if not isinstance(n, Mapping):
                continue
            if part == "*":
                step += list(n.values())
            elif n.get(part) is not None:
                step.append(n[part])
        found = step
    return found


def load_rows(
    where: str, row: object, metrics: object, columns: object, labels: Sequence[str] = ()
) -> RowsDecl:
    """`[reproduce.row]`, `[[reproduce.metrics]]` and `[[reproduce.columns]]` of the claim
    file `where` names, whose runs are `labels`; a bad table, or a run label without a part
    for each of the row's label columns, is an `ftlab.InputError` naming the key."""
    decl = RowDecl()
    if row is not None:
        f = Fields.of(where, "reproduce.row", row, RowDecl)
        label = f.texts("label") or decl.label
        decl = RowDecl(
            f.text("root", decl.root, nonempty=True), label, f.text("csv", decl.csv, nonempty=True)
        )
    found = RowsDecl(
        decl,
        tables(where, "reproduce.metrics", metrics, _metric),
        tables(where, "reproduce.columns", columns, _column),
    )
    names = [m.name for m in found.metrics] + [c.name for c in found.columns] + list(decl.label)
    distinct(where, "reproduce.metrics and columns: duplicate names", names)
    unknown = sorted({c.of for c in found.columns if c.of and c.of not in names})
    if unknown:
        raise input_error(where, f"reproduce.columns: `of` names no metric: {', '.join(unknown)}")
    short = [x for x in labels if len(x.split("/", len(decl.label) - 1)) != len(decl.label)]
    if short:
        columns_ = "/".join(decl.label)
        raise input_error(where, f"reproduce.row: run labels {', '.join(short)} are not {columns_}")
    return found


def _metric(where: str, i: int, raw: object) -> MetricDecl:
    f = Fields.of(where, f"reproduce.metrics[{i}]", raw, MetricDecl)
    form = f.choice("form", FORMS)
    path, per = f.text("path", ""), f.text("per", "")
    if (form == "key") == bool(path):
        f.bad("`path` is required, except with form key")
    if ("*" in path.split(".")) != (form in ("sum", "max")):
        f.bad("a `*` in `path` goes with form sum or max, and they with it")
    if per and form not in ("value", "float"):
        f.bad("`per` goes with form value or float")
    divisor = f.number("divisor")
    if divisor is not None and (not per or divisor <= 0):
        f.bad("`divisor` is a positive number, with `per`")
    return MetricDecl(f.text("name"), path, form, per, 1.0 if divisor is None else divisor)


def _column(where: str, i: int, raw: object) -> ColumnDecl:
    f = Fields.of(where, f"reproduce.columns[{i}]", raw, ColumnDecl)
    of, to = f.text("of", ""), f.text("to", "")
    paper = f.raw.get("paper", {})
    if not isinstance(paper, Mapping) or not all(is_number(v) for v in paper.values()):
        f.bad("`paper` must be a table of numbers by run label")
    if bool(of) == bool(paper) or bool(of) != bool(to):
        f.bad("needs either `of` and `to` (a normalised metric) or `paper` (values by run label)")
    return ColumnDecl(f.text("name"), of, to, {str(k): float(v) for k, v in paper.items()})
