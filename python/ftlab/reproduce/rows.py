"""ftlab.reproduce.rows: a run's row of metrics as its claim file declares it, the rows
of the metrics CSV built from those rows, and tables of a row per tenant with their
geometric means.

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

A paper whose runs share their tenants (`ftlab.reproduce.flashblox`: the same tenants
isolated two ways) declares tables of a row per key of a summary's table, per tenant of a
scheme, or of a grid of a row per key of a table inside each (per scheme, per tenant: UPI's
Figure 3) (`[[reproduce.tables]]`, `TableDecl`: each column a run's value at the row's key or
a ratio of two columns), and geometric means over a table's column (`[[reproduce.geomeans]]`,
`GeomeanDecl`), which the driver measures by name (`PaperCode.measure_declared`).

A missing value is None, never a silent zero. This module reads values; what a value means
to a claim is the claim file's (`measures`) and the paper's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ftlab._errors import input_error, usage_error
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import relative_change
from ftlab.reproduce.decl import Fields, distinct, is_number, tables
from ftlab.reproduce.keypath import reduce, walk, walk_one

__all__ = ["walk", "walk_one"]  # the one reader (`keypath`), as the modules that read rows import it

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
            return reduce(found, self.form, "every")
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


# --------------------------------------------------------------------------------------
# A row per key of a table of the runs' summaries (per tenant), and reductions over the rows


#: The forms of a table's cell: the JSON value as it is, a positive finite number or a number
#: as a float (else None).
CELL_FORMS = ("value", "positive", "float")


@dataclass(frozen=True)
class CellDecl:
    """One column of a `[[reproduce.tables]]` table: `name`, then either `run` and `path` (the
    value at `path` in that run's entry of the row's key, by `form`) or `of` and `per` (column
    `of` over column `per`, both earlier ones: None unless both are non-zero numbers)."""

    name: str
    run: str = ""
    path: str = ""
    form: str = "value"
    of: str = ""
    per: str = ""

    def value(self, key: str, entries: Mapping[str, Mapping[str, object]], row: Row) -> object:
        """The cell of the row of `key`, its run's table being `entries[run]`."""
        return self.read(entries.get(self.run, {}).get(key), row)

    def read(self, entry: object, row: Row) -> object:
        """The cell of `row`, whose entry in the cell's run is `entry` (None where missing)."""
        if self.of:
            a, b = row.get(self.of), row.get(self.per)
            return float(a) / float(b) if is_number(a) and is_number(b) and a and b else None
        value = walk_one(entry, self.path)
        if self.form == "positive":
            ok = is_number(value) and math.isfinite(value) and value > 0
            return float(value) if ok else None  # type: ignore[arg-type]
        if self.form == "float":
            return float(value) if is_number(value) else None
        return value


@dataclass(frozen=True)
class TableDecl:
    """One `[[reproduce.tables]]` table: `name`, the rows' `run` (a row per key of the table at
    dotted `each` in its summary.json, in order: per tenant of a scheme,
    "schemes.<scheme>.tenants"; no rows where it is missing), `key`, the column of the row's
    key, and its `columns` (`CellDecl`), each read at the same key of its run's `each` table.
    With `within` (a dotted path in each entry of `each`) and `within_key`, a row per key of
    `each` and, inside it, per key of the entry's `within` table (a grid: per scheme, per
    tenant), the cells read at both keys."""

    name: str
    run: str
    each: str
    key: str
    columns: tuple[CellDecl, ...]
    within: str = ""
    within_key: str = ""

    def rows(self, summaries: Mapping[str, object]) -> list[Row]:
        """The table's rows from the runs' summary.json by run label."""
        if self.within:
            return self._grid(summaries)
        entries = {label: _table_at(summaries.get(label), self.each) for label in self.runs()}
        out: list[Row] = []
        for key in entries[self.run]:
            row: Row = {self.key: key}
            for cell in self.columns:
                row[cell.name] = cell.value(key, entries, row)
            out.append(row)
        return out

    def _grid(self, summaries: Mapping[str, object]) -> list[Row]:
        """The rows of a table with `within`: per key of `each`, per key of its `within`."""
        entries = {label: _table_at(summaries.get(label), self.each) for label in self.runs()}
        out: list[Row] = []
        for key, entry in entries[self.run].items():
            for inner in _table_at(entry, self.within):
                row: Row = {self.key: key, self.within_key: inner}
                for cell in self.columns:
                    at = _table_at(entries.get(cell.run, {}).get(key), self.within) if cell.run else {}
                    row[cell.name] = cell.read(at.get(inner), row)
                out.append(row)
        return out

    def runs(self) -> list[str]:
        """The run labels the table reads, the rows' first."""
        return list(dict.fromkeys([self.run, *(c.run for c in self.columns if c.run)]))


def _table_at(summary: object, path: str) -> dict[str, Mapping[str, object]]:
    """The table at dotted `path` under `summary`, its entries that are tables (none if missing)."""
    found = walk_one(summary, path)
    if not isinstance(found, Mapping):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, Mapping)}


def read_tables(decls: Sequence[TableDecl], summaries: Mapping[str, object]) -> dict[str, list[Row]]:
    """Every declared table's rows by its name, from the runs' summary.json by run label."""
    return {t.name: t.rows(summaries) for t in decls}


def geomean(values: Sequence[float | None]) -> float:
    """Geometric mean of the positive finite values; NaN if there is none.

    >>> round(geomean([1.0, 4.0, None]), 6)
    2.0
    """
    good = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in good) / len(good)) if good else math.nan


@dataclass(frozen=True)
class GeomeanDecl:
    """One `[[reproduce.geomeans]]` table: the measure `name`, the geometric mean over the rows
    of declared table `table` of column `column`'s positive values (`inverse`: of 1 / each
    non-zero value). Its sentence `why` is a template of `{v}`, `{inverse}` (1 / v), `{n}`
    (the rows) and `{max_key}`, `{max}` (the row key and value of the highest value). With
    `every`, a row without a number (or no row) leaves it not measured: None, `missing` as the
    sentence and `reason` as the reason; without, no positive value makes it NaN with `missing`
    as the sentence."""

    name: str
    table: str
    column: str
    why: str
    missing: str = ""
    inverse: bool = False
    every: bool = False
    reason: str = ""

    def measure(self, rows: Sequence[Mapping[str, object]], key: str) -> Measured:
        """The measure on the table's `rows`, whose key column is `key`."""
        cells = [(r.get(key), r.get(self.column)) for r in rows]
        numbers = [(k, float(v)) for k, v in cells if is_number(v)]
        if self.every and (not rows or len(numbers) < len(cells)):
            return Measured(None, self.missing, self.reason)
        if self.inverse:
            numbers = [(k, 1.0 / v) for k, v in numbers if v]
        v = geomean([x for _, x in numbers])
        if math.isnan(v) and not self.every:
            return Measured(v, self.missing)
        top = max(numbers, key=lambda kv: kv[1]) if numbers else ("", math.nan)
        return Measured(v, self.why.format(v=v, inverse=1.0 / v, n=len(rows), max_key=top[0], max=top[1]))


def load_tables(where: str, raw: object, labels: Sequence[str]) -> tuple[TableDecl, ...]:
    """`[[reproduce.tables]]` of the claim file `where` names, whose runs are `labels`; a bad
    table is an `ftlab.InputError` naming the key."""
    found = tables(where, "reproduce.tables", raw, lambda w, i, t: _table(w, i, t, labels))
    distinct(where, "reproduce.tables: duplicate names", [t.name for t in found])
    return found


def _table(where: str, i: int, raw: object, labels: Sequence[str]) -> TableDecl:
    f = Fields.of(where, f"reproduce.tables[{i}]", raw, TableDecl)
    run = f.text("run")
    cells = tables(where, f"reproduce.tables[{i}].columns", f.raw.get("columns", []), _cell)
    within, within_key = f.text("within", ""), f.text("within_key", "")
    if bool(within) != bool(within_key):
        f.bad("give both `within` and `within_key` (a row per key of a table inside each entry) or neither")
    names = [f.text("key"), *([within_key] if within else []), *(c.name for c in cells)]
    distinct(where, f"reproduce.tables[{i}]: duplicate columns", names)
    idle = sorted({r for r in [run, *(c.run for c in cells)] if r and r not in labels})
    if idle:
        f.bad(f"runs {', '.join(idle)} are not run labels")
    first = 2 if within else 1
    late = [c.name for j, c in enumerate(cells) if c.of and {c.of, c.per} - set(names[first : first + j])]
    if late:
        f.bad(f"columns {', '.join(late)}: `of` and `per` name earlier columns")
    return TableDecl(f.text("name"), run, f.text("each"), names[0], cells, within, within_key)


def _cell(where: str, i: int, raw: object) -> CellDecl:
    f = Fields.of(where, f"reproduce.tables columns[{i}]", raw, CellDecl)
    form, run, path, of, per = (
        f.choice("form", CELL_FORMS),
        *(f.text(k, "") for k in ("run", "path", "of", "per")),
    )
    if bool(run and path) == bool(of and per) or bool(run) != bool(path) or bool(of) != bool(per):
        f.bad("needs either `run` and `path` (a value) or `of` and `per` (a ratio of two columns)")
    return CellDecl(f.text("name"), run, path, form, of, per)


def load_geomeans(where: str, raw: object, declared: Sequence[TableDecl]) -> tuple[GeomeanDecl, ...]:
    """`[[reproduce.geomeans]]` of the claim file `where` names, over the `declared` tables;
    a bad table is an `ftlab.InputError` naming the key."""
    found = tables(where, "reproduce.geomeans", raw, _geomean)
    distinct(where, "reproduce.geomeans: duplicate names", [g.name for g in found])
    columns = {t.name: {t.key, *(c.name for c in t.columns)} for t in declared}
    for g in found:
        if g.column not in columns.get(g.table, set()):
            raise input_error(
                where, f"reproduce.geomeans ({g.name}): no column {g.column!r} in table {g.table!r}"
            )
    return found


def _geomean(where: str, i: int, raw: object) -> GeomeanDecl:
    f = Fields.of(where, f"reproduce.geomeans[{i}]", raw, GeomeanDecl)
    every, reason, missing = f.flag("every"), f.text("reason", ""), f.text("missing", "")
    if bool(reason) != every or (every and not missing):
        f.bad("`every = true` needs `reason` and `missing`, and `reason` needs `every = true`")
    decl = GeomeanDecl(
        f.text("name"),
        f.text("table"),
        f.text("column"),
        f.text("why"),
        missing,
        f.flag("inverse"),
        every,
        reason,
    )
    try:
        decl.why.format(v=1.0, inverse=1.0, n=1, max_key="k", max=1.0)
    except (KeyError, ValueError, IndexError) as e:
        f.bad(f"`why` names an unknown placeholder or format ({e})")
    return decl
