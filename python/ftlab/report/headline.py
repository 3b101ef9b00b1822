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

from ftlab._errors import usage_error
from ftlab.results import Summary

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
#: The flag of a tenant the scheduler starved under a scheme (summary.json `starved`).
STARVED_FLAG = "⚠ starved"
#: One line explaining `STARVED_FLAG`.
STARVED_NOTE = (
    f"{STARVED_FLAG}: one of the tenant's requests waited longer than measure.starvation_wait_s "
    "(summary.json starved: max_wait_s > starvation_wait_s); like an unstable one, "
    "its latencies are not comparable."
)

#: The run's declared noise, in percent: a scheme is marked best (`BEST_MARK`) only where
#: some other scheme is worse than the best value by more than this (relative to the best),
#: and every scheme within it of the best value is marked with it. A run has one seed, so
#: there is no spread over seeds to measure the noise with; this is a declaration, stated in
#: the legend, not a measurement. For scale (docs/python.md, "The headline"): between seeds
#: 1, 2 and 3 of the bundled default scenario, its latencies' and WAFs' relative differences
#: have a median of 2.4-3.0 %, three quarters are under 8-9 %, the largest 39-72 % (p99s of
#: a few hundred requests). ★ thus marks a difference larger than a typical seed-to-seed one,
#: not a significant one; several seeds (`ftlab sweep`) measure the spread.
NOISE_PCT = 5.0
#: The fewest samples a metric is ranked from: a p99 from fewer than 100 requests is the
#: maximum or near it, and a WAF or a lifetime from a handful of writes is one GC event's
#: accident. Fewer: the value is shown with `FEW_MARK`, not ranked, and named in the notes.
SAMPLES_MIN = 100
#: The mark of a value from fewer than `SAMPLES_MIN` samples.
FEW_MARK = "†"
#: Days in a year, for a lifetime shown in years.
DAYS_PER_YEAR = 365.25


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return float(value)


def _get(t: Mapping[str, object], *path: str) -> object:
    value: object = t
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _table(value: object) -> Mapping[str, object]:
    """`value` if it is a table of summary.json, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def _op_count(t: Mapping[str, object], op: str) -> float:
    return _num(_get(t, op, "count")) or 0.0


def _iops(t: Mapping[str, object]) -> float | None:
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
    get: Callable[[Mapping[str, object]], float | None] = field(repr=False, compare=False)
    applies: Callable[[Mapping[str, object]], bool] = field(repr=False, compare=False)
    integer: bool = False
    #: The operation whose request count is the metric's sample count ("read", "write";
    #: "" for a metric that is not an estimate from samples: IOPS, deadline misses).
    sampled_op: str = ""

    @property
    def direction(self) -> str:
        """ "lower" or "higher" (is better)."""
        return "lower" if self.lower_is_better else "higher"

    def samples(self, t: Mapping[str, object]) -> int | None:
        """How many requests of `sampled_op` the value of tenant object `t` comes from (the
        smaller of shared and solo for a slowdown); None for a metric not from samples."""
        if not self.sampled_op:
            return None
        n = _op_count(t, self.sampled_op)
        if self.key.startswith("slowdown_"):
            solo = _num(_get(t, "solo", self.sampled_op, "count"))
            n = min(n, solo) if solo is not None else n
        return int(n)

    @property
    def title(self) -> str:
        """The label with its unit, e.g. "read p99 (µs)"."""
        return f"{self.label} ({self.unit})" if self.unit and self.unit != "×" else self.label


def _latency(op: str, stat: str, label: str) -> Metric:
    return Metric(
        f"{op}_{stat.removesuffix('_us')}",
        label,
        "µs",
        True,
        lambda t: _num(_get(t, op, stat)),
        lambda t: _op_count(t, op) > 0,
        sampled_op=op,
    )


def slowdown_shown(value: float | None) -> float | None:
    """A slowdown as the headline reports it: one below 1× by no more than the noise
    (`NOISE_PCT`) is 1.00× (running shared was not faster than alone: the solo run is another
    simulation whose GC falls at other times); summary.json keeps the measured ratio.

    >>> slowdown_shown(0.96), slowdown_shown(0.94), slowdown_shown(2.5)
    (1.0, 0.94, 2.5)
    """
    if value is not None and 1.0 - NOISE_PCT / 100.0 <= value < 1.0:
        return 1.0
    return value


def _slowdown(key: str, label: str, op: str) -> Metric:
    return Metric(
        f"slowdown_{key}",
        label,
        "×",
        True,
        lambda t: slowdown_shown(_num(_get(t, "slowdown", key))),
        lambda t: isinstance(t.get("slowdown"), Mapping) and _op_count(t, op) > 0,
        sampled_op=op,
    )


#: Every headline metric, in column order; `metrics(summary)` keeps those that apply. A
#: slowdown is the tenant's latency shared / solo (`[measure] solo = true`); "lifetime" is the
#: tenant's projected lifetime (`wear.lifetime_days`, shown in days or years); "IOPS" counts
#: reads, writes and trims.
METRICS: tuple[Metric, ...] = (
    _latency("read", "p99_us", "read p99"),
    _latency("read", "mean_us", "read mean"),
    _latency("write", "p99_us", "write p99"),
    _slowdown("read_p99", "read p99 slowdown", "read"),
    _slowdown("write_p99", "write p99 slowdown", "write"),
    Metric(
        "deadline_misses",
        "deadline misses",
        "",
        True,
        lambda t: _num(_get(t, "deadlines", "misses")),
        lambda t: isinstance(t.get("deadlines"), Mapping),
        integer=True,
    ),
    Metric("waf", "WAF", "", True, lambda t: _num(t.get("waf")), lambda t: True, sampled_op="write"),
    Metric(
        "lifetime",
        "lifetime",
        "",
        False,
        lambda t: _num(_get(t, "wear", "lifetime_days")),
        lambda t: isinstance(t.get("wear"), Mapping),
        sampled_op="write",
    ),
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
    the best scheme(s) of the tenant and metric, beyond the run's noise (`NOISE_PCT`): every
    scheme within the noise of the best value is marked, and none is unless some scheme is
    worse than the best by more than the noise; schemes without a value, or with one from
    fewer than `SAMPLES_MIN` samples (`few`), take no part; none is marked with fewer than two
    ranked values. `samples` is the number of requests the value comes from (None for a
    metric not from samples)."""

    scheme: str
    value: float | None
    applies: bool
    change_pct: float | None
    change_note: str | None
    best: bool
    change_abs: float | None = None
    samples: int | None = None

    @property
    def few(self) -> bool:
        """Whether the value comes from fewer than `SAMPLES_MIN` samples."""
        return self.value is not None and self.samples is not None and self.samples < SAMPLES_MIN


@dataclass(frozen=True)
class TenantRow:
    """One tenant: its schemes (in the summary's order, those that have the tenant), the
    schemes under which it was unstable with their requests outstanding at the end, and its
    cells by metric key and scheme."""

    tenant: str
    schemes: tuple[str, ...]
    unstable: dict[str, object]
    cells: dict[str, dict[str, Cell]]
    #: The schemes under which the tenant was starved (summary.json `starved`, when the core
    #: reports it), with its longest wait in seconds (`max_wait_s`, None when absent).
    starved: dict[str, object] = field(default_factory=dict)


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
    def starved(self) -> list[tuple[str, str]]:
        """(tenant, scheme) of every starved tenant, in table order."""
        return [(r.tenant, s) for r in self.rows for s in r.schemes if s in r.starved]

    @property
    def has_few(self) -> bool:
        """Whether some value comes from fewer than `SAMPLES_MIN` samples."""
        return any(c.few for r in self.rows for by in r.cells.values() for c in by.values())

    @property
    def has_no_change(self) -> bool:
        """Whether some cell shows `NO_CHANGE` (then `NO_CHANGE_NOTE` goes under the table)."""
        return any(
            change_text(c) == f"({NO_CHANGE})"
            for r in self.rows
            for by in r.cells.values()
            for c in by.values()
        )


def schemes_of(summary: Summary) -> list[str]:
    return list(summary.get("schemes") or {})


def tenants_of(summary: Summary) -> list[str]:
    names: dict[str, None] = {}
    for data in (summary.get("schemes") or {}).values():
        names.update(dict.fromkeys((data or {}).get("tenants") or {}))
    return list(names)


def _tenant(summary: Summary, scheme: str, tenant: str) -> Mapping[str, object] | None:
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
        raise usage_error(
            "baseline", f"unknown scheme {baseline!r}; the schemes of this run are: {', '.join(schemes)}"
        )
    return baseline


def metrics(summary: Summary) -> tuple[Metric, ...]:
    """The metrics that apply to at least one (tenant, scheme) of `summary`, in column order."""
    objects = [
        t
        for s in schemes_of(summary)
        for n in tenants_of(summary)
        if (t := _tenant(summary, s, n)) is not None
    ]
    return tuple(m for m in METRICS if any(m.applies(t) for t in objects))


def build(summary: Summary, baseline: str | None = None) -> Headline:
    """The headline of a parsed summary.json against `baseline` (default: the first scheme;
    an unknown one is an `ftlab.UsageError`).

    >>> w = {"count": 500}
    >>> s = {"schemes": {"a": {"tenants": {"t": {"waf": 2.0, "write": w}}},
    ...                  "b": {"tenants": {"t": {"waf": 1.5, "write": w}}}}}
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
        starved = {s: t.get("max_wait_s") for s, t in objects.items() if t.get("starved") is True}
        excluded = set(unstable) | set(starved)
        cells = {m.key: _cells(m, objects, base, excluded) for m in chosen}
        rows.append(TenantRow(tenant, tuple(objects), unstable, cells, starved))
    return Headline(base, tuple(schemes), chosen, tuple(rows))


def _cells(
    metric: Metric, objects: Mapping[str, Mapping[str, object]], baseline: str, excluded: set[str]
) -> dict[str, Cell]:
    """The cells of one tenant and metric; the schemes in `excluded` (the tenant unstable or
    starved under them: its numbers are not comparable) take no part in ★."""
    applies = any(metric.applies(t) for t in objects.values())
    values = {s: metric.get(t) if applies else None for s, t in objects.items()}
    samples = {s: metric.samples(t) if applies else None for s, t in objects.items()}
    ranked = {
        s: v
        for s, v in values.items()
        if v is not None and s not in excluded and not ((n := samples[s]) is not None and n < SAMPLES_MIN)
    }
    best = best_schemes(metric, ranked)
    base = values.get(baseline)
    out = {}
    for s, v in values.items():
        if s != baseline and metric.integer and v is not None and base is not None:
            out[s] = Cell(s, v, applies, None, "count", s in best, v - base, samples[s])
            continue
        pct, note = change(v, base) if s != baseline else (None, "baseline")
        out[s] = Cell(s, v, applies, pct, note, s in best, None, samples[s])
    return out


def best_schemes(metric: Metric, values: Mapping[str, float], noise_pct: float = NOISE_PCT) -> set[str]:
    """The schemes marked best among `values` (scheme -> value): those within the noise of the
    best value (`within_noise`), provided some scheme lies beyond it; none with fewer than two
    values.

    >>> m = METRICS[0]  # read p99, lower is better
    >>> sorted(best_schemes(m, {"a": 147.0, "b": 148.0}))  # +0.7 %: noise
    []
    >>> sorted(best_schemes(m, {"a": 100.0, "b": 104.0, "c": 150.0}))
    ['a', 'b']
    """
    if len(values) < 2:
        return set()
    target = min(values.values()) if metric.lower_is_better else max(values.values())
    best = {s for s, v in values.items() if within_noise(metric, v, target, noise_pct)}
    return best if len(best) < len(values) else set()


def within_noise(metric: Metric, value: float, best: float, noise_pct: float = NOISE_PCT) -> bool:
    """Whether `value` is indistinguishable from `best`: the same as shown (`format_value`), or,
    for a metric that is not a count and a nonzero best, within `noise_pct` percent of it.
    A count (deadline misses) has no noise: 0 misses against 1 is a difference.

    >>> within_noise(METRICS[0], 0.99, 1.0), within_noise(METRICS[0], 1.06, 1.0)
    (True, False)
    """
    if format_value(metric, value) == format_value(metric, best):
        return True
    if metric.integer or best == 0:
        return False
    return abs(value - best) / abs(best) * 100.0 <= noise_pct


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
    if metric.key == "lifetime":
        return format_days(value)
    if metric.integer:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return text + "×" if metric.unit == "×" else text


def format_days(days: float) -> str:
    """A duration in days as "N d", or "N y" from a year on (three significant digits).

    >>> format_days(1.239851), format_days(40.0), format_days(1200.0), format_days(1e6)
    ('1.24 d', '40.0 d', '3.29 y', '2,738 y')
    """
    value, unit = (days / DAYS_PER_YEAR, "y") if days >= DAYS_PER_YEAR else (days, "d")
    if abs(value) >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.1f} {unit}" if abs(value) >= 10 else f"{value:.2f} {unit}"


def format_change(pct: float) -> str:
    """A relative change in percent, signed: integer percent from 10 % on, one decimal below.

    >>> format_change(12.4), format_change(-3.25), format_change(-0.01), format_change(2225.8)
    ('+12%', '-3.2%', '+0.0%', '+2,226%')
    """
    text = f"{pct:+,.0f}%" if abs(pct) >= 9.95 else f"{pct:+.1f}%"
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
    """The whole cell as text: value (`FEW_MARK` after one from too few samples), change, best
    mark, e.g. "★ 1,068 (-43%)"."""
    if not cell.applies:
        return "–"
    text = format_value(metric, cell.value) + (FEW_MARK if cell.few else "")
    extra = change_text(cell)
    text = f"{text} {extra}" if extra else text
    return f"{BEST_MARK} {text}" if cell.best else text


def caption(headline: Headline) -> str:
    """The table's caption: what a cell holds, against which baseline, what ★ means."""
    return (
        f"Per tenant and scheme: value (change against the baseline scheme, {headline.baseline}); "
        f"{BEST_MARK} best scheme for the tenant, by more than the run's noise ({NOISE_PCT:g}%, declared; "
        "schemes within it of the best all marked, none when no scheme is beyond it; "
        "none on a scheme under which the tenant was unstable or starved)."
    )


def directions(headline: Headline) -> str:
    """One line saying which metrics are better higher (the rest: lower), what a slowdown is
    (and one under 1×) when there is one, and what `FEW_MARK` means when a value has it.

    >>> print(directions(Headline("a", ("a",), METRICS[-2:], ())))
    Higher is better for lifetime (projected wear-out, in days d or years y), IOPS; lower for the others.
    """
    higher = [m.label for m in headline.metrics if not m.lower_is_better]
    described = {"lifetime": "lifetime (projected wear-out, in days d or years y)"}
    text = (
        ("Higher is better for " + ", ".join(described.get(h, h) for h in higher) + "; lower for the others.")
        if higher
        else "Lower is better for every column."
    )
    if any(m.key.startswith("slowdown_") for m in headline.metrics):
        text += (
            " Slowdown: the tenant's latency sharing the device / running alone on it (solo "
            "run); under 1× it ran"
            " faster shared than alone: the solo run is a separate simulation whose GC and "
            "queueing fall at other"
            " times, so a value near 1× is no slowdown, within noise, not a gain from sharing"
            f" (one under 1× by at most {NOISE_PCT:g}% is shown as 1.00×)."
        )
    if headline.has_few:
        text += f" {FEW_MARK}: from fewer than {SAMPLES_MIN} requests (see the notes); shown, not ranked."
    return text


# --------------------------------------------------------------------------------------
# Verdicts and notes: one line per tenant above the table, notes below it

#: The metric a tenant's verdict ranks on: the first of these that ranks for it. It is what the
#: tenant gets (its deadline misses, read p99, or write p99 for a tenant that does not read),
#: never its slowdown against running alone, which is reported beside it.
VERDICT_METRICS = ("deadline_misses", "read_p99", "write_p99", "iops")
#: The slowdown reported beside a latency verdict: the same latency shared / alone.
_COMPANION = {"read_p99": "slowdown_read_p99", "write_p99": "slowdown_write_p99"}
#: The metrics a verdict names when a winner pays for its win in them (worse than the
#: baseline beyond the noise), each winner its own.
_COSTS = ("read_p99", "write_p99", "waf", "lifetime", "iops")


def verdicts(headline: Headline) -> list[str]:
    """One line per tenant, read off the table the user sees: the scheme(s) marked ★ on the
    tenant's key metric (`VERDICT_METRICS`), each with its value and slowdown and, against the
    baseline, its own change and costs; or that no scheme differs beyond the noise; then the
    schemes excluded from the ranking and why (unstable, starved, too few requests).

    >>> s = {"schemes": {"a": {"tenants": {"t": {"read": {"count": 500, "p99_us": 900.0}}}},
    ...                  "b": {"tenants": {"t": {"read": {"count": 500, "p99_us": 450.0}}}}}}
    >>> verdicts(build(s))
    ['t: b best on read p99 (450 µs), -50% read p99 against a']
    """
    metrics = {m.key: m for m in headline.metrics}
    return [_verdict(row, metrics, headline) for row in headline.rows]


def excluded_reason(row: TenantRow, metric: Metric, cell: Cell) -> str | None:
    """Why a cell with a value takes no part in ★: "unstable", "starved", "fewer than 100
    reads"; None when it is ranked (or has no value)."""
    if not cell.applies or cell.value is None:
        return None
    if cell.scheme in row.unstable:
        return "unstable"
    if cell.scheme in row.starved:
        return "starved"
    if cell.few:
        return f"fewer than {SAMPLES_MIN} {metric.sampled_op}s"
    return None


def _verdict(row: TenantRow, metrics: Mapping[str, Metric], headline: Headline) -> str:
    first: Metric | None = None
    for key in VERDICT_METRICS:
        if key not in metrics or not any(c.applies for c in row.cells[key].values()):
            continue
        metric = metrics[key]
        first = first or metric
        cells = row.cells[key]
        ranked = {
            s: c for s, c in cells.items() if c.value is not None and excluded_reason(row, metric, c) is None
        }
        if len(ranked) >= 2:
            text = _verdict_text(row, metric, ranked, metrics, headline)
            return f"{row.tenant}: {text}{_excluded_text(row, metric)}"
    if len(row.schemes) < 2:
        return f"{row.tenant}: one scheme only, nothing to compare"
    if first is not None and _excluded_text(row, first):
        alone = [
            s
            for s, c in row.cells[first.key].items()
            if c.value is not None and excluded_reason(row, first, c) is None
        ]
        head = (
            f"only {alone[0]} comparable on {first.label} ({_described(row, first, metrics, alone[0])})"
            if len(alone) == 1
            else f"no scheme comparable on {first.label}"
        )
        return f"{row.tenant}: {head}{_excluded_text(row, first)}"
    return f"{row.tenant}: too few requests to rank any scheme (fewer than {SAMPLES_MIN} per metric)"


def _excluded_text(row: TenantRow, metric: Metric) -> str:
    """ "; excluded: upi (unstable, 67,011 µs)" for the schemes of the tenant's row that have
    a value of `metric` but take no part in ★; "" when none."""
    items = []
    for scheme, cell in row.cells[metric.key].items():
        why = excluded_reason(row, metric, cell)
        if why:
            items.append(f"{scheme} ({why}, {format_value(metric, cell.value)}{_unit(metric)})")
    return "; excluded: " + ", ".join(items) if items else ""


def _described(row: TenantRow, metric: Metric, metrics: Mapping[str, Metric], scheme: str) -> str:
    """ "686 µs, slowdown 1.00×": the value of `scheme` and, when the run has it, the
    slowdown of the same latency beside it."""
    text = f"{format_value(metric, row.cells[metric.key][scheme].value)}{_unit(metric)}"
    companion = _COMPANION.get(metric.key)
    if companion in metrics and companion is not None:
        slow = row.cells[companion][scheme]
        if slow.applies and slow.value is not None:
            text += f", slowdown {format_value(metrics[companion], slow.value)}"
    return text


def _joined(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _verdict_text(
    row: TenantRow,
    metric: Metric,
    ranked: Mapping[str, Cell],
    metrics: Mapping[str, Metric],
    headline: Headline,
) -> str:
    best = [s for s, c in ranked.items() if c.best]
    if not best:
        values = sorted(c.value or 0.0 for c in ranked.values())
        text = (
            f"no scheme differs by more than the noise ({NOISE_PCT:g}%) on {metric.label} "
            f"({_span(metric, values)}{_unit(metric)}"
        )
        companion = _COMPANION.get(metric.key)
        if companion is not None and companion in metrics:
            slows = sorted(
                c.value for s in ranked if (c := row.cells[companion][s]).applies and c.value is not None
            )
            if slows:
                text += f", slowdown {_span(metrics[companion], slows)}"
        return text + ")"
    base = headline.baseline
    if len(best) == 1:
        top = best[0]
        text = f"{top} best on {metric.label} ({_described(row, metric, metrics, top)})"
        if top != base:
            parts = _gains_and_costs(row, metric, metrics, top, base)
            return text + (", " + ", ".join(parts) + f" against {base}" if parts else "")
        return text + _margin(metric, ranked, top)
    names = [f"{s} ({_described(row, metric, metrics, s)})" for s in best]
    text = f"{_joined(names)} best on {metric.label}"
    own = [
        f"{s} " + ", ".join(parts)
        for s in best
        if s != base and (parts := _gains_and_costs(row, metric, metrics, s, base))
    ]
    return text + (f"; against {base}: " + "; ".join(own) if own else "")


def _span(metric: Metric, values: Sequence[float]) -> str:
    lo, hi = format_value(metric, values[0]), format_value(metric, values[-1])
    return lo if lo == hi else f"{lo.removesuffix('×')}–{hi}"


def _gains_and_costs(
    row: TenantRow, metric: Metric, metrics: Mapping[str, Metric], scheme: str, base: str
) -> list[str]:
    """`scheme`'s own change on the key metric against the baseline ("-50% read p99"), then
    each of `_COSTS` where it is worse than the baseline beyond the noise ("+53% WAF")."""
    parts = []
    key = _against(metric, row.cells[metric.key][scheme])
    if key:
        parts.append(key)
    parts += [
        _against(metrics[k], row.cells[k][scheme])
        for k in _COSTS
        if k in metrics
        and k != metric.key
        and _worse(metrics[k], row.cells[k][scheme], row.cells[k].get(base))
    ]
    return [p for p in parts if p]


def _margin(metric: Metric, ranked: Mapping[str, Cell], top: str) -> str:
    """The baseline's margin when it wins alone: "; upi +5.9% to partitioned +21%", or
    "; b +50%" with one other scheme ranked."""
    value = ranked[top].value
    if not value:
        return ""
    others = sorted(
        (s for s in ranked if s != top),
        key=lambda s: (ranked[s].value or 0.0) * (1 if metric.lower_is_better else -1),
    )
    pct = {s: ((ranked[s].value or 0.0) - value) / abs(value) * 100 for s in others}
    if len(others) == 1:
        return f"; {others[0]} {format_change(pct[others[0]])}"
    return f"; {others[0]} {format_change(pct[others[0]])} to {others[-1]} {format_change(pct[others[-1]])}"


def _unit(metric: Metric) -> str:
    return f" {metric.unit}" if metric.unit and metric.unit != "×" else ""


def _against(metric: Metric, cell: Cell) -> str:
    """ "+12% read p99" (the cell's change against the baseline), "" without one."""
    change = change_text(cell)
    return f"{change[1:-1]} {metric.label}" if change and change != f"({NO_CHANGE})" else ""


def _worse(metric: Metric, cell: Cell, base: Cell | None) -> bool:
    """Whether `cell` is worse than the baseline's `base` beyond the noise (both ranked)."""
    if base is None or cell.value is None or base.value is None or cell.few or base.few or not cell.applies:
        return False
    worse = cell.value > base.value if metric.lower_is_better else cell.value < base.value
    return worse and not within_noise(metric, cell.value, base.value)


def notes(summary: Summary, headline: Headline) -> list[str]:
    """The lines under the table, each when it applies: the values from too few samples, the
    trace records a tenant did not replay (`records_not_replayed`), a warm-up by workload that
    did not converge (`precondition.warm_cap_hit`, `warm_writes_ended`), the tenants' health
    (`max_wait_s`, `stall_s_max`, `backlog_max`), and what the lifetime assumes."""
    out = []
    few = _few_note(headline)
    if few:
        out.append(few)
    out += _not_replayed_notes(summary, headline)
    warm = _warm_up_note(summary, headline)
    if warm:
        out.append(warm)
    out += _health_notes(summary, headline)
    life = lifetime_note(summary, headline)
    if life:
        out.append(life)
    return out


def _few_note(headline: Headline) -> str:
    items = []
    for row in headline.rows:
        for m in headline.metrics:
            few = [c for c in row.cells[m.key].values() if c.few]
            if few:
                counts = sorted({c.samples or 0 for c in few})
                n = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}-{counts[-1]:,}"
                items.append(f"{row.tenant} {m.label} from {n} {m.sampled_op}s")
    return (
        f"{FEW_MARK} fewer than {SAMPLES_MIN} samples, not ranked: " + "; ".join(items) + "." if items else ""
    )


def _per_tenant(summary: Summary, headline: Headline, key: str) -> dict[str, dict[str, object]]:
    """tenant -> scheme -> the tenant's `key` in summary.json, where present."""
    out: dict[str, dict[str, object]] = {}
    for row in headline.rows:
        for s in row.schemes:
            t = _tenant(summary, s, row.tenant) or {}
            if t.get(key) is not None:
                out.setdefault(row.tenant, {})[s] = t.get(key)
    return out


def _not_replayed_notes(summary: Summary, headline: Headline) -> list[str]:
    out = []
    for tenant, by in _per_tenant(summary, headline, "records_not_replayed").items():
        counts = {s: int(c) for s, v in by.items() if (c := _num(v))}
        if not counts:
            continue
        if len(set(counts.values())) == 1:
            n = f"{next(iter(counts.values())):,}"
        else:
            n = ", ".join(f"{v:,} under {s}" for s, v in counts.items())
        out.append(
            f"{tenant}: {n} trace records not replayed: the run (measure.duration_s), the "
            "tenant's duration_s or its "
            "trace.max_requests ended first."
        )
    return out


def _warm_up_note(summary: Summary, headline: Headline) -> str:
    """The schemes whose warm-up by workload stopped before the device WAF converged: at its
    cap, or when the workloads stopped writing; "" when every one converged (or ran `fill`)."""
    items = []
    for s in headline.schemes:
        p = _table(_get(summary, "schemes", s, "precondition"))
        windows = p.get("warm_waf_windows")
        wafs = [w for v in (windows if isinstance(windows, list) else []) if (w := _num(v)) is not None][-2:]
        last = " (last windows' WAF " + ", ".join(f"{w:.3f}" for w in wafs) + ")" if wafs else ""
        if p.get("warm_cap_hit"):
            items.append(f"{s} hit its cap (precondition.warm.max_capacity_multiple){last}")
        elif p.get("warm_out_of_space"):
            items.append(f"{s} found no room for {p['warm_out_of_space']}'s writes{last}")
        elif p.get("warm_writes_ended"):
            items.append(f"{s} ran out of writes{last}")
    if not items:
        return ""
    return "warm-up did not converge, the run starts before steady state: " + "; ".join(items) + "."


#: The health fields of a tenant (summary.json, when the core reports them): key, label, unit.
HEALTH_FIELDS = (
    ("max_wait_s", "longest wait", " s"),
    ("stall_s_max", "longest stall", " s"),
    ("backlog_max", "largest backlog", ""),
)


def _health_notes(summary: Summary, headline: Headline) -> list[str]:
    out = []
    for row in headline.rows:
        parts = []
        for key, label, unit in HEALTH_FIELDS:
            values = [
                v
                for s in row.schemes
                if (v := _num((_tenant(summary, s, row.tenant) or {}).get(key))) is not None
            ]
            if values:
                lo, hi = min(values), max(values)
                parts.append(
                    f"{label} {_short(lo)}{unit}" if lo == hi else f"{label} {_short(lo)}-{_short(hi)}{unit}"
                )
        if parts:
            flagged = [f"{STARVED_FLAG} under {s}" for s in row.schemes if s in row.starved]
            out.append(f"health, {row.tenant} (over the schemes): " + ", ".join(parts + flagged) + ".")
    return out


def _short(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:.3g}"


def lifetime_note(summary: Summary, headline: Headline) -> str:
    """What the lifetime column assumes: the device's P/E cycles and, under the baseline, each
    tenant's erase rate and write rate (host bytes written per second of the measured run),
    continued until the first block wears out; "" without a lifetime column."""
    if not any(m.key == "lifetime" for m in headline.metrics):
        return ""
    device = _table(_get(summary, "schemes", headline.baseline, "device"))
    pe = _num(device.get("pe_cycles"))
    measured_s = _num(device.get("measured_s"))
    rates = []
    for row in headline.rows:
        t = _tenant(summary, headline.baseline, row.tenant) or {}
        erases = _num(_get(t, "wear", "erase_rate_per_s"))
        written = _num(_get(t, "write", "bytes"))
        if erases is None:
            continue
        text = f"{row.tenant} {_short(erases)} erases/s"
        if written is not None and measured_s:
            text += f" at {_short(written / measured_s / 1e6)} MB/s written"
        rates.append(text)
    pe_text = f"the device's {pe:,.0f} P/E cycles" if pe is not None else "the device's P/E cycles"
    return (
        f"lifetime: until a block reaches {pe_text}, if the run's erase and write rates went on; "
        f"under {headline.baseline}: " + ("; ".join(rates) if rates else "no erase rates") + "."
    )


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


def bars(summary: Summary) -> list[Bars]:
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
            n
            for n in tenants_of(summary)
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
