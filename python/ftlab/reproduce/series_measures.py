"""ftlab.reproduce.series_measures: the time-series window measures a claim file declares
(`[[reproduce.windows]]`): the mean of a column of the run's time series (timeseries.parquet)
over the windows starting in [t0, t1), placed around a named time the paper's code supplies
(e.g. UPI's `rise_s`, the start of a tenant's write rise).

A window measure is named "<name>:<scheme>" (form "growth": the scheme's mean in the
`width_s` after the named time over its mean in the `width_s` before, minus 1) or
"<name>:<a>/<b>" (form "between": b's mean in the `width_s` after the named time over a's,
minus 1; positive when a's is lower). Its declaration is data:

- `name`: the measure name's head; `key`: the time-series column averaged;
- `weight`: a column weighting each window's value (e.g. "read_iops": a mean over requests;
  windows whose weight is not positive are left out; no weight at all makes the mean None),
  or "" for the plain mean of the windows with a value (null and NaN left out);
- `tenant`: the one tenant whose rows count, or "" for every tenant's;
- `at`: the named time (seconds) the paper's code supplies; `width_s`: the window's width;
- `why`, `unit`, `digits`: the sentence (`measures.Sentence`), a `str.format` template of
  `{at}` and `{width}` (numbers, seconds), `{change}` (the signed percentage), `{tenant}`,
  and for a growth `{scheme}`, `{before}`, `{after}`, for a between `{a}`, `{b}`, `{va}`,
  `{vb}` (the means with `unit` and `digits`, "n/a" if missing).

This module averages given columns; it runs nothing and reads no file (the paper's code
passes the table and the named times).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ftlab._errors import usage_error
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import fmt_change, relative_change
from ftlab.reproduce.decl import Fields, distinct, tables
from ftlab.reproduce.measures import Sentence, sentence_fields, try_templates

if TYPE_CHECKING:
    import polars as pl

FORMS = ("growth", "between")


@dataclass(frozen=True, kw_only=True)
class WindowDecl(Sentence):
    """One `[[reproduce.windows]]` table (see the module docstring)."""

    name: str
    at: str
    width_s: float
    form: Literal["growth", "between"] = "growth"
    weight: str = ""
    tenant: str = ""

    def mean(self, table: pl.DataFrame | None, scheme: str, lo: float, hi: float) -> float | None:
        """The mean of `key` of `scheme` (and `tenant`) over the windows starting in [lo, hi);
        None without such windows or without the columns."""
        import polars as pl

        need = {self.key, self.weight} - {""}
        if table is None or not need <= set(table.columns):
            return None
        rows = table.filter(
            (pl.col("scheme") == scheme) & (pl.col("window_start_s") >= lo) & (pl.col("window_start_s") < hi)
        )
        if self.tenant:
            rows = rows.filter(pl.col("tenant") == self.tenant)
        if self.weight:
            rows = rows.filter(pl.col(self.weight) > 0)
            total = float(rows[self.weight].sum())
            if total <= 0:
                return None
            return float((rows[self.key] * rows[self.weight]).sum()) / total
        rows = rows.filter(pl.col(self.key).is_not_null())
        if rows[self.key].dtype.is_float():
            rows = rows.filter(pl.col(self.key).is_not_nan())
        part = rows[self.key]
        return float(part.mean()) if part.len() else None  # type: ignore[arg-type]

    def measure(self, systems: str, table: pl.DataFrame | None, at: float) -> Measured:
        """The measure of "<name>:<systems>" (a scheme, or "<a>/<b>") around time `at`."""
        w = self.width_s
        names = {"at": at, "width": w, "tenant": self.tenant}
        if self.form == "growth":
            before, after = self.mean(table, systems, at - w, at), self.mean(table, systems, at, at + w)
            change = relative_change(after, before)
            both = {"before": self.fmt(before), "after": self.fmt(after)}
            return Measured(
                change, self.why.format(**names, **both, scheme=systems, change=fmt_change(change))
            )
        a, _, b = systems.partition("/")
        va, vb = self.mean(table, a, at, at + w), self.mean(table, b, at, at + w)
        change = relative_change(vb, va)
        both = {"va": self.fmt(va), "vb": self.fmt(vb)}
        return Measured(change, self.why.format(**names, **both, a=a, b=b, change=fmt_change(change)))


def measure_window(
    name: str, windows: Sequence[WindowDecl], table: pl.DataFrame | None, times: Mapping[str, float]
) -> Measured | None:
    """The declared window measure `name` stands for, on `table` with the named `times`; None
    when no declaration has its head (or its systems do not fit the form). A named time the
    code does not supply is an `ftlab.UsageError`."""
    head, _, systems = name.partition(":")
    decl = next((w for w in windows if w.name == head), None)
    if decl is None or not systems or (systems.count("/") == 1) != (decl.form == "between"):
        return None
    if decl.at not in times:
        raise usage_error(
            "measure", f"{name!r} needs the named time {decl.at!r}; the paper supplies {sorted(times)}"
        )
    return decl.measure(systems, table, times[decl.at])


def load_windows(where: str, raw: object) -> tuple[WindowDecl, ...]:
    """The `[[reproduce.windows]]` tables of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    found = tables(where, "reproduce.windows", raw, _window)
    distinct(where, "reproduce.windows: duplicate names", [w.name for w in found])
    return found


def _window(where: str, i: int, given: object) -> WindowDecl:
    f = Fields.of(where, f"reproduce.windows[{i}]", given, WindowDecl)
    form = f.choice("form", FORMS)
    width = f.number("width_s")
    if width is None or not width > 0:
        f.bad("`width_s` must be a positive number of seconds")
    decl = WindowDecl(
        **sentence_fields(f),
        name=f.text("name"),
        at=f.text("at"),
        width_s=width,
        form="growth" if form == "growth" else "between",
        weight=f.text("weight", ""),
        tenant=f.text("tenant", ""),
    )
    if ":" in decl.name:
        f.bad("`name` is a measure name's head: no ':'")
    try_templates(f, lambda: decl.measure("a/b" if decl.form == "between" else "s", None, 1.0))
    return decl
