"""ftlab.report.headline: the headline of a run, computed from a parsed summary.json: per
tenant and key metric, each scheme's value, its change against a baseline scheme, the best
scheme(s), and which tenants were unstable under which scheme; and the bars of mean and p99
latency per tenant and scheme.

The terminal (`ftlab.cli.headline`), report.html (`ftlab.report.html`) and `ftlab plot --kind
bars` (`ftlab.report.plots`) all show these numbers, formatted by the same functions here, so
they agree. Pure functions: no I/O, no printing, no drawing. It selects, divides and ranks
values the core reported, for presentation only; it is not simulation logic and computes no
new measurement.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ftlab._errors import usage_error

#: The latency statistics of the bar figures: (summary.json key, label).
BAR_STATS = (("mean_us", "mean"), ("p99_us", "p99"))
#: The operations of the bar figures.
BAR_OPS = ("read", "write")

#: The marker of the best scheme(s) of a metric.
BEST_MARK = "★"
#: The flag of a tenant whose backlog grew through the run under a scheme.
UNSTABLE_FLAG = "⚠ unstable"
#: Shown instead of a relative change where there is none (the baseline's value is 0 or missing).
NO_CHANGE = "n/a"
#: One line explaining `UNSTABLE_FLAG`.
UNSTABLE_NOTE = (
    f"{UNSTABLE_FLAG}: the tenant's backlog grew through the run by more than its queue depth; "
    "its latencies depend on when the run stops (see its requests outstanding at the end)."
)
#: One line explaining `NO_CHANGE`.
NO_CHANGE_NOTE = f"{NO_CHANGE}: no relative change, because the baseline's value is 0 or missing."


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return float(value)


def _get(t: Mapping[str, Any], *path: str) -> Any:
    value: Any = t
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _op_count(t: Mapping[str, Any], op: str) -> float:
    return _num(_get(t, op, "count")) or 0.0


def _iops(t: Mapping[str, Any]) -> float | None:
    values = [_num(_get(t, op, "iops")) for op in ("read", "write", "trim")]
    present = [v for v in values if v is not None]
    return sum(present) if present else None


@dataclass(frozen=True)
class Metric:
    """One column of the headline: `key` (stable id, e.g. "read_p99"), `label`, `unit`
    ("µs", "days", "×", "" ...), `lower_is_better`, `get(tenant) -> value or None`, and
    `applies(tenant) -> bool` (whether the metric means something for a tenant's object of one
    scheme: write latency for a tenant that writes, deadline misses for one with periodic
    tasks)."""

    key: str
    label: str
    unit: str
    lower_is_better: bool
    get: Callable[[Mapping[str, Any]], float | None] = field(repr=False, compare=False)
    applies: Callable[[Mapping[str, Any]], bool] = field(repr=False, compare=False)
    integer: bool = False

    @property
    def direction(self) -> str:
        """"lower" or "higher" (is better)."""
        return "lower" if self.lower_is_better else "higher"

    @property
    def title(self) -> str:
        """The label with its unit, e.g. "read p99 (µs)"."""
        return f"{self.label} ({self.unit})" if self.unit and self.unit != "×" else self.label


def _latency(op: str, stat: str, label: str) -> Metric:
    return Metric(
        f"{op}_{stat.removesuffix('_us')}", label, "µs", True,
        lambda t: _num(_get(t, op, stat)), lambda t: _op_count(t, op) > 0,
    )


def _slowdown(key: str, label: str, op: str) -> Metric:
    return Metric(
        f"slowdown_{key}", label, "×", True,
        lambda t: _num(_get(t, "slowdown", key)), lambda t: isinstance(t.get("slowdown"), Mapping) and _op_count(t, op) > 0,
    )


#: Every headline metric, in column order; `metrics(summary)` keeps those that apply. A
#: slowdown is the tenant's latency shared / solo (`[measure] solo = true`); "lifetime" is the
#: tenant's projected lifetime (`wear.lifetime_days`); "IOPS" counts reads, writes and trims.
METRICS: tuple[Metric, ...] = (
    _latency("read", "p99_us", "read p99"),
    _latency("read", "mean_us", "read mean"),
    _latency("write", "p99_us", "write p99"),
    _slowdown("read_p99", "read p99 slowdown", "read"),
    _slowdown("write_p99", "write p99 slowdown", "write"),
    Metric("deadline_misses", "deadline misses", "", True, lambda t: _num(_get(t, "deadlines", "misses")),
           lambda t: isinstance(t.get("deadlines"), Mapping), integer=True),
    Metric("waf", "WAF", "", True, lambda t: _num(t.get("waf")), lambda t: True),
    Metric("lifetime", "lifetime", "days", False, lambda t: _num(_get(t, "wear", "lifetime_days")),
           lambda t: isinstance(t.get("wear"), Mapping)),
    Metric("iops", "IOPS", "", False, _iops, lambda t: True),
)


@dataclass(frozen=True)
class Cell:
    """One (tenant, metric, scheme) of the headline.

    `value` is None when the scheme has no value (null in summary.json, or the tenant is
    missing); `applies` is False where the metric means nothing for the tenant (no writes,
    no periodic tasks). `change_pct` is the relative change against the baseline's value in
    percent, None for the baseline itself (`change_note` "baseline") or where it cannot be
    computed (`change_note` "baseline 0", "no baseline value" or "no value"). A count
    (deadline misses) changes by an absolute number, not a percentage: `change_abs` is value -
    baseline and `change_note` "count" (0 misses against 3 is "+3", where a percentage of 0 has
    no meaning); `change_abs` is None for every other metric. `best` marks
    the best scheme(s) of the tenant and metric: ties all marked, a tie being values that
    show the same (`format_value`); schemes without a value take no part; none is marked
    with fewer than two values, nor when every scheme ties."""

    scheme: str
    value: float | None
    applies: bool
    change_pct: float | None
    change_note: str | None
    best: bool
    change_abs: float | None = None


@dataclass(frozen=True)
class TenantRow:
    """One tenant: its schemes (in the summary's order, those that have the tenant), the
    schemes under which it was unstable with their requests outstanding at the end, and its
    cells by metric key and scheme."""

    tenant: str
    schemes: tuple[str, ...]
    unstable: dict[str, Any]
    cells: dict[str, dict[str, Cell]]


@dataclass(frozen=True)
class Headline:
    """The headline of a summary: the baseline scheme, all schemes, the metrics that apply,
    one row per tenant."""

    baseline: str
    schemes: tuple[str, ...]
    metrics: tuple[Metric, ...]
    rows: tuple[TenantRow, ...]

    @property
    def unstable(self) -> list[tuple[str, str]]:
        """(tenant, scheme) of every unstable tenant, in table order."""
        return [(r.tenant, s) for r in self.rows for s in r.schemes if s in r.unstable]

    @property
    def has_no_change(self) -> bool:
        """Whether some cell shows `NO_CHANGE` (then `NO_CHANGE_NOTE` goes under the table)."""
        return any(change_text(c) == f"({NO_CHANGE})" for r in self.rows for by in r.cells.values() for c in by.values())


def schemes_of(summary: Mapping[str, Any]) -> list[str]:
    return list(summary.get("schemes") or {})


def tenants_of(summary: Mapping[str, Any]) -> list[str]:
    names: dict[str, None] = {}
    for data in (summary.get("schemes") or {}).values():
        names.update(dict.fromkeys((data or {}).get("tenants") or {}))
    return list(names)


def _tenant(summary: Mapping[str, Any], scheme: str, tenant: str) -> Mapping[str, Any] | None:
    t = _get(summary, "schemes", scheme, "tenants", tenant)
    return t if isinstance(t, Mapping) else None


def check_baseline(baseline: str | None, schemes: Sequence[str]) -> str:
    """The baseline scheme: `baseline`, or the first scheme when None. An unknown name is an
    `ftlab.UsageError` (`arg` "baseline") listing the schemes.

    >>> check_baseline(None, ["unified", "partitioned"])
    'unified'
    >>> check_baseline("upi", ["unified", "partitioned"])
    Traceback (most recent call last):
    ...
    ftlab._core.UsageError: baseline: unknown scheme 'upi'; the schemes of this run are: unified, partitioned
    """
    if not schemes:
        raise usage_error("baseline", "this run has no schemes")
    if baseline is None:
        return schemes[0]
    if baseline not in schemes:
        raise usage_error("baseline", f"unknown scheme {baseline!r}; the schemes of this run are: {', '.join(schemes)}")
    return baseline


def metrics(summary: Mapping[str, Any]) -> tuple[Metric, ...]:
    """The metrics that apply to at least one (tenant, scheme) of `summary`, in column order."""
    objects = [t for s in schemes_of(summary) for n in tenants_of(summary) if (t := _tenant(summary, s, n)) is not None]
    return tuple(m for m in METRICS if any(m.applies(t) for t in objects))


def build(summary: Mapping[str, Any], baseline: str | None = None) -> Headline:
    """The headline of a parsed summary.json against `baseline` (default: the first scheme;
    an unknown one is an `ftlab.UsageError`).

    >>> s = {"schemes": {"a": {"tenants": {"t": {"waf": 2.0}}}, "b": {"tenants": {"t": {"waf": 1.5}}}}}
    >>> cell = build(s).rows[0].cells["waf"]["b"]
    >>> cell.change_pct, cell.best
    (-25.0, True)
    """
    schemes = schemes_of(summary)
    if not schemes and baseline is None:
        return Headline("", (), (), ())  # an empty summary: an empty headline
    base = check_baseline(baseline, schemes)
    chosen = metrics(summary)
    rows = []
    for tenant in tenants_of(summary):
        objects = {s: t for s in schemes if (t := _tenant(summary, s, tenant)) is not None}
        unstable = {s: t.get("outstanding_at_end") for s, t in objects.items() if t.get("unstable") is True}
        cells = {m.key: _cells(m, objects, base) for m in chosen}
        rows.append(TenantRow(tenant, tuple(objects), unstable, cells))
    return Headline(base, tuple(schemes), chosen, tuple(rows))


def _cells(metric: Metric, objects: Mapping[str, Mapping[str, Any]], baseline: str) -> dict[str, Cell]:
    applies = any(metric.applies(t) for t in objects.values())
    values = {s: metric.get(t) if applies else None for s, t in objects.items()}
    present = {s: v for s, v in values.items() if v is not None}
    best: set[str] = set()
    if len(present) >= 2:
        target = min(present.values()) if metric.lower_is_better else max(present.values())
        # Judged at the precision shown: values that look the same are a tie.
        best = {s for s, v in present.items() if format_value(metric, v) == format_value(metric, target)}
        if len(best) == len(present):
            best = set()  # every scheme the same: no scheme did best (e.g. an open-loop tenant's IOPS)
    base = values.get(baseline)
    out = {}
    for s, v in values.items():
        if s != baseline and metric.integer and v is not None and base is not None:
            out[s] = Cell(s, v, applies, None, "count", s in best, v - base)
            continue
        pct, note = change(v, base) if s != baseline else (None, "baseline")
        out[s] = Cell(s, v, applies, pct, note, s in best)
    return out


def change(value: float | None, base: float | None) -> tuple[float | None, str | None]:
    """(relative change of `value` against `base` in percent, None) or (None, why not):
    "no value", "no baseline value" or "baseline 0" (never a division by zero).

    >>> change(110.0, 100.0)
    (10.0, None)
    >>> change(3.0, 0.0)
    (None, 'baseline 0')
    """
    if value is None:
        return None, "no value"
    if base is None:
        return None, "no baseline value"
    if base == 0:
        return None, "baseline 0"
    return (value - base) / abs(base) * 100.0, None


# --------------------------------------------------------------------------------------
# Formatting, shared by the terminal and report.html


def format_value(metric: Metric, value: float | None) -> str:
    """A value as the headline shows it: three significant digits at most below 100,
    thousands separators above; integers as integers; "×" after a slowdown; "–" for none.

    >>> format_value(METRICS[0], 1878.04), format_value(METRICS[0], 97.26), format_value(METRICS[0], 5.214)
    ('1,878', '97.3', '5.21')
    """
    if value is None:
        return "–"
    if metric.integer:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return text + "×" if metric.unit == "×" else text


def format_change(pct: float) -> str:
    """A relative change in percent, signed: integer percent from 10 % on, one decimal below.

    >>> format_change(12.4), format_change(-3.25), format_change(-0.01)
    ('+12%', '-3.2%', '+0.0%')
    """
    text = f"{pct:+.0f}%" if abs(pct) >= 9.95 else f"{pct:+.1f}%"
    return "+" + text[1:] if text.startswith("-") and float(text[1:-1]) == 0 else text


def change_text(cell: Cell) -> str:
    """The change part of a cell: "(+12%)", "(+3)" for a count, "(n/a)" where none can be
    computed, "" for the baseline itself, a scheme without a value or a metric that does not
    apply."""
    if not cell.applies or cell.value is None or cell.change_note == "baseline":
        return ""
    if cell.change_abs is not None:
        return f"({cell.change_abs:+,.0f})"
    if cell.change_pct is None:
        return f"({NO_CHANGE})"
    return f"({format_change(cell.change_pct)})"


def cell_text(metric: Metric, cell: Cell) -> str:
    """The whole cell as text: value, change, best mark, e.g. "★ 1,068 (-43%)"."""
    if not cell.applies:
        return "–"
    text = format_value(metric, cell.value)
    extra = change_text(cell)
    text = f"{text} {extra}" if extra else text
    return f"{BEST_MARK} {text}" if cell.best else text


def caption(headline: Headline) -> str:
    """The table's caption: what a cell holds, against which baseline."""
    return (
        f"Per tenant and scheme: value (change against the baseline scheme, {headline.baseline}); "
        f"{BEST_MARK} best scheme for the tenant (ties all marked; none when every scheme ties)."
    )


def directions(headline: Headline) -> str:
    """One line saying which metrics are better higher (the rest: lower), and what a
    slowdown is when there is one.

    >>> print(directions(Headline("a", ("a",), METRICS[-2:], ())))
    Higher is better for lifetime (projected, at the tenant's erase rate), IOPS; lower for the others.
    """
    higher = [m.label for m in headline.metrics if not m.lower_is_better]
    described = {"lifetime": "lifetime (projected, at the tenant's erase rate)"}
    text = ("Higher is better for " + ", ".join(described.get(h, h) for h in higher) + "; lower for the others.") if higher \
        else "Lower is better for every column."
    if any(m.key.startswith("slowdown_") for m in headline.metrics):
        text += " Slowdown: the tenant's latency sharing the device / running alone on it (solo run)."
    return text


# --------------------------------------------------------------------------------------
# Bars: mean and p99 latency per tenant and scheme


@dataclass(frozen=True)
class Bars:
    """The bars of one operation: `tenants` (x groups; those with requests of `op` under
    some scheme), `schemes` (one bar each), and `values[stat][scheme]`, one value per tenant
    (None where the scheme has no request of `op` for it), `stat` in `BAR_STATS`."""

    op: str
    tenants: tuple[str, ...]
    schemes: tuple[str, ...]
    values: dict[str, dict[str, list[float | None]]]


def bars(summary: Mapping[str, Any]) -> list[Bars]:
    """Mean and p99 latency per tenant and scheme, per operation in `BAR_OPS` that some
    tenant issued, straight from summary.json.

    >>> s = {"schemes": {"a": {"tenants": {"t": {"read": {"count": 2, "mean_us": 9.5, "p99_us": 20.0}}}}}}
    >>> bars(s)[0].values["p99_us"]
    {'a': [20.0]}
    """
    schemes = schemes_of(summary)
    out = []
    for op in BAR_OPS:
        tenants = tuple(
            n for n in tenants_of(summary)
            if any(_op_count(t, op) > 0 for s in schemes if (t := _tenant(summary, s, n)) is not None)
        )
        if not tenants:
            continue
        values: dict[str, dict[str, list[float | None]]] = {}
        for stat, _ in BAR_STATS:
            values[stat] = {}
            for s in schemes:
                row = []
                for n in tenants:
                    t = _tenant(summary, s, n)
                    row.append(_num(_get(t, op, stat)) if t is not None and _op_count(t, op) > 0 else None)
                values[stat][s] = row
        out.append(Bars(op, tenants, tuple(schemes), values))
    return out
