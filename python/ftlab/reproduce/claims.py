"""ftlab.reproduce.claims: the generic part of `ftlab reproduce`: a paper's claim beside
ftlab's number, the verdict rule of each claim kind, the adjective table, the health checks
of a run, and their files and tables.

The verdict rule, one per kind (also in docs/reproductions.md, generated from `KINDS`):

- `factor`: a ratio between two systems (the paper's "2.6x lower" is the factor 1/2.6, its
  "−38.5%" the factor 0.615, its "20% of" the factor 0.2). Compared on a log scale:
  `reproduced` when ftlab's factor is on the paper's side of 1 and within FACTOR_TOLERANCE
  (1.5x) of the paper's, either way; `same direction` when it is on the paper's side of 1
  otherwise; `differs` otherwise (the other side of 1, exactly 1, zero, negative, NaN or
  missing: a factor of 1.1 against the paper's 0.839 is within 1.5x but says the opposite).
- `value`: an absolute quantity (MB/s, days, minutes, %): `reproduced` within 1.5x either way,
  `differs` otherwise. There is no "same direction" for a positive quantity.
- `exact`: a number the paper computes from its own formulas: `reproduced` only when ftlab's
  value rounds to the paper's printed number at the printed rounding (`digits`), else
  `differs`. Where the printed formula does not give the printed number, the data file holds
  one claim per reading, each with its own verdict.
- `bound`: "≤ 1.1", "no deadline missed", or an adjective's declared reading (`ADJECTIVES`):
  `holds` or `violated`.
- `order`: "vStream best", "DAC above AutoStream": ftlab measures the margin per seed,
  oriented so that a positive margin means the order holds. By sign (DESIGN §12): `holds`
  when every seed's margin is positive, `violated` when none is, `within noise` only when the
  seeds disagree.

A `value` claim on a quantity with a floor (WAF and DLWA cannot go below 1) is compared above
its floor: ftlab's value − floor against the paper's − floor, so that a value at the floor
cannot reproduce one above it.

Over seeds, the value judged is the median over the seeds (the middle seed's value for an
odd count), and the spread (min, max) is reported beside it. Two verdicts override the rule:
`invalid` when a run the claim rests on is unhealthy in what the claim reads (`gate_reasons`:
a claim rests on `latency`, `throughput`, `wear` or `arithmetic`, DESIGN §12), and `not
measured` when ftlab cannot measure the claim (the data file's reason, the summary key that is
absent, or a value that is missing or not a number).

This module computes verdicts from numbers it is given; it runs no simulation and knows no
paper (`ftlab.reproduce.claimfile` reads the per-paper data files; `ftlab.reproduce.upi` and
the others compute the values).
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeGuard, Union

from rich.markup import escape
from rich.table import Table

from ftlab._errors import usage_error
from ftlab._json import JsonObject, flag, integer, number, table
from ftlab.report import write_files_atomically

if TYPE_CHECKING:
    from rich.console import Console

    from ftlab.report import Report

StrPath = Union[str, "os.PathLike[str]"]
PaperValue = float | str | None
FtlabValue = float | bool | None

REPRODUCED = "reproduced"
SAME_DIRECTION = "same direction"
DIFFERS = "differs"
HOLDS = "holds"
VIOLATED = "violated"
WITHIN_NOISE = "within noise"
INVALID = "invalid"
NOT_MEASURED = "not measured"
VERDICTS = (REPRODUCED, HOLDS, SAME_DIRECTION, WITHIN_NOISE, DIFFERS, VIOLATED, INVALID, NOT_MEASURED)
#: Verdict colours of the terminal tables.
VERDICT_STYLES = {
    REPRODUCED: "green",
    HOLDS: "green",
    SAME_DIRECTION: "yellow",
    WITHIN_NOISE: "yellow",
    DIFFERS: "bold red",
    VIOLATED: "bold red",
    INVALID: "bold magenta",
    NOT_MEASURED: "dim",
}

#: What a claim reads, and so which health checks gate it (DESIGN §12, `gate_reasons`).
LATENCY = "latency"
THROUGHPUT = "throughput"
WEAR = "wear"
ARITHMETIC = "arithmetic"
RESTS_ON: dict[str, str] = {
    LATENCY: "a mean, a percentile, a deadline: invalid when a tenant it reads starved or was "
    "unstable, or a run check failed",
    THROUGHPUT: "a closed loop's completions: invalid only when the run never reached steady "
    "state (a run check failed); a stall is part of what it measures",
    WEAR: "erases, WAF, imbalance, swaps: invalid only when host writes were left unserved at "
    "the end, or a run check failed; a transient backlog does not touch it",
    ARITHMETIC: "the paper's own formulas recomputed, no simulation: never gated, and counted "
    "apart from the experiments",
}
#: A tenant's writes outstanding at the end leave a wear claim's work undone when they exceed
#: both its queue depth (what is merely in flight) and this share of the writes that arrived.
UNSERVED_WRITES_SHARE_MAX = 0.01

FACTOR = "factor"
VALUE = "value"
EXACT = "exact"
BOUND = "bound"
ORDER = "order"
#: Each kind's rule in one line: (kind, example, reproduced / holds, otherwise).
KINDS: dict[str, tuple[str, str, str]] = {
    FACTOR: (
        '"2.6x lower p99", "−38.5%", "20% of"',
        "reproduced: on the paper's side of 1 and within 1.5x of its factor, either way (log scale)",
        "same direction: on the paper's side of 1; differs: otherwise",
    ),
    VALUE: (
        '"15 minutes", "27 MB/s", "DLWA 1.3" (above its floor 1)',
        "reproduced: within 1.5x of the paper's value, either way (above the floor, if any)",
        "differs",
    ),
    EXACT: (
        "Table IV's bandwidths",
        "reproduced: equal at the paper's printed rounding",
        "differs (one claim per reading where the print disagrees with itself)",
    ),
    BOUND: (
        '"≤ 1.1", "no deadline missed", an adjective',
        "holds: the value is inside the bound",
        "violated",
    ),
    ORDER: (
        '"vStream best", "DAC above AutoStream"',
        "holds: every seed's margin > 0",
        "violated: no seed's margin > 0; within noise: the seeds disagree",
    ),
}
#: A factor or value is reproduced within this factor of the paper's, either way.
FACTOR_TOLERANCE = 1.5
_SLACK = 1e-9
#: The busiest die's utilisation (busy fraction) must stay below this for a run to be healthy.
BUSIEST_DIE_LIMIT = 0.85

CLAIMS_FILE = "claims.json"
PHASES_FILE = "phases.csv"
MINUS = "\u2212"


@dataclass(frozen=True)
class Adjective:
    """One adjective's declared numeric reading: the value (a factor, a share, a fraction of
    ideal) lies in (`low`, `high`] (None: open), read from `words` of `source`."""

    words: str
    source: str
    meaning: str
    low: float | None
    high: float | None

    def holds(self, value: float) -> bool:
        """Whether `value` is inside the reading (`low` exclusive, `high` inclusive)."""
        return (self.low is None or value > self.low) and (self.high is None or value <= self.high)

    def describe(self) -> str:
        """The reading as an interval: "(1, 1.25]", "> 1.5"."""
        if self.low is not None and self.high is not None:
            return f"({self.low:g}, {self.high:g}]"
        return f"> {self.low:g}" if self.low is not None else f"≤ {self.high:g}"


#: The one table of adjective readings: every claim that rests on an adjective uses its entry
#: here, never a reading of its own (docs/reproductions.md, "Adjectives").
ADJECTIVES: dict[str, Adjective] = {
    "slightly worse": Adjective(
        "slightly worse", "UPI §5", "latency factor against the other scheme", 1.0, 1.25
    ),
    "much lower": Adjective(
        "much lower performance", "vStream §5.2", "throughput factor of the higher over the lower", 1.5, None
    ),
    "significantly higher": Adjective(
        "significantly higher throughput",
        "vStream §5.3",
        "throughput factor of the higher over the lower",
        1.2,
        None,
    ),
    "near-ideal": Adjective(
        "near-ideal SSD lifetime", "FlashBlox slides", "lifetime / ideal lifetime", 0.9, None
    ),
    "in general": Adjective(
        "lower schedulability than RTGC in general",
        "PaRT-FTL §VI-A",
        "share of the sizes where the order holds",
        0.5,
        None,
    ),
    "over two-fold": Adjective(
        "over a two-fold increase", "UPI §1", "latency factor, 1x2 over 4x4", 2.0, None
    ),
}


class ClaimDict(TypedDict):
    """A claim as claims.json keeps it (`Claim.to_dict`): JSON-ready, NaN as None."""

    id: str
    text: str
    where: str
    kind: str
    paper_value: PaperValue
    bound: str
    ftlab_value: FtlabValue
    spread: list[float] | None
    values: list[FtlabValue]
    ratio: float | None
    verdict: str
    reason: str
    runs: list[str]
    rests_on: str
    ours: bool
    why: str


@dataclass(frozen=True)
class Claim:
    """One claim of a paper beside ftlab's value (the median over seeds), with its verdict and
    the sentence `why`. `spread` is (min, max) of ftlab's value over the seeds (None with one
    seed or no value); `values` the value per seed; `reason` why a claim is invalid or not
    measured (empty otherwise); `paper_value` the paper's number in the kind's terms (a factor,
    a value, a bound, None for an order); `bound` the bound's text for a bound."""

    id: str
    text: str
    kind: str
    paper_value: PaperValue
    ftlab_value: FtlabValue
    verdict: str
    why: str
    spread: tuple[float, float] | None = None
    values: tuple[FtlabValue, ...] = ()
    reason: str = ""
    bound: str = ""
    where: str = ""
    runs: tuple[str, ...] = ()
    rests_on: str = ""
    ours: bool = False

    @property
    def ratio(self) -> float | None:
        """ftlab / paper for a factor, value or exact claim with both finite and non-zero; else None."""
        if (
            self.kind not in (FACTOR, VALUE, EXACT)
            or not finite(self.ftlab_value)
            or not finite(self.paper_value)
        ):
            return None
        return None if self.paper_value == 0 else float(self.ftlab_value) / float(self.paper_value)

    def to_dict(self) -> ClaimDict:
        """The claim as JSON-ready values (NaN becomes None)."""
        return {
            "id": self.id,
            "text": self.text,
            "where": self.where,
            "kind": self.kind,
            "paper_value": self.paper_value,
            "bound": self.bound,
            "ftlab_value": _json_value(self.ftlab_value),
            "spread": None if self.spread is None else [self.spread[0], self.spread[1]],
            "values": [_json_value(v) for v in self.values],
            "ratio": self.ratio,
            "verdict": self.verdict,
            "reason": self.reason,
            "runs": list(self.runs),
            "rests_on": self.rests_on,
            "ours": self.ours,
            "why": self.why,
        }


def _json_value(value: FtlabValue) -> FtlabValue:
    return None if isinstance(value, float) and math.isnan(value) else value


# --------------------------------------------------------------------------------------
# The rules


def judge(
    kind: str,
    paper: PaperValue,
    value: FtlabValue,
    *,
    op: str = "",
    digits: int | None = None,
    adjective: str = "",
    margins: Sequence[FtlabValue] | None = None,
    high: float | None = None,
    floor: float | None = None,
) -> str:
    """The verdict of ftlab's `value` against the paper's by `kind` (the module's rule).

    `op` is a bound's comparison ("<=", "<", ">=", ">"; `paper` the bound; "between": `paper`
    to `high`, both inclusive), or `adjective` a
    key of ADJECTIVES (then `paper` is unused); `digits` an exact claim's printed decimals;
    `margins` an order claim's margin per seed (default: `value` alone); `floor` a value
    claim's floor. Raises `ftlab.UsageError` for an unknown kind, op or adjective.

    >>> judge(FACTOR, 1 / 3.1, 1 / 1.82), judge(BOUND, 1.1, 1.26, op="<="), judge(EXACT, 7.3, 5.51, digits=1)
    ('same direction', 'violated', 'differs')
    """
    if kind == FACTOR:
        return factor_verdict(_number(paper, kind), value)
    if kind == VALUE:
        return value_verdict(_number(paper, kind), value, floor)
    if kind == EXACT:
        if digits is None:
            raise usage_error("digits", "an exact claim needs the paper's printed decimals")
        return exact_verdict(_number(paper, kind), value, digits)
    if kind == BOUND:
        return bound_verdict(paper, value, op, adjective, high)
    if kind == ORDER:
        return order_verdict(margins if margins is not None else (value,))
    raise usage_error("kind", f"unknown claim kind {kind!r}; valid kinds: {', '.join(KINDS)}")


def _number(paper: PaperValue, kind: str) -> float:
    if isinstance(paper, (bool, str)) or not finite(paper) or paper <= 0:
        raise usage_error(
            "paper", f"a {kind} claim's paper value must be a finite positive number, got {paper!r}"
        )
    return float(paper)


def _positive(value: FtlabValue) -> bool:
    return not isinstance(value, bool) and finite(value) and float(value) > 0


def factor_verdict(paper: float, value: FtlabValue) -> str:
    """`factor`: on the paper's side of 1 and within FACTOR_TOLERANCE of it on a log scale:
    reproduced; on the paper's side of 1 otherwise: same direction; else differs (a factor
    within 1.5x of the paper's but on the other side of 1, e.g. 1.1 against 0.839, says the
    opposite of the paper and differs). A factor of 0 (the quantity vanished, e.g. no GC copy
    at all) is on the side below 1: same direction as a paper factor below 1, never reproduced
    (it is infinitely far on the log scale); a negative factor differs.

    >>> factor_verdict(0.615, 0.5), factor_verdict(0.615, 0.3), factor_verdict(0.839, 1.1)
    ('reproduced', 'same direction', 'differs')
    >>> factor_verdict(0.49, 0.0), factor_verdict(3.0, 0.0), factor_verdict(0.49, -0.1)
    ('same direction', 'differs', 'differs')
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0.0:
        return SAME_DIRECTION if paper < 1.0 else DIFFERS
    if not _positive(value) or (float(value) - 1.0) * (paper - 1.0) <= 0:  # type: ignore[arg-type]
        return DIFFERS
    if abs(math.log(float(value) / paper)) <= math.log(FACTOR_TOLERANCE) + _SLACK:  # type: ignore[arg-type]
        return REPRODUCED
    return SAME_DIRECTION


def value_verdict(paper: float, value: FtlabValue, floor: float | None = None) -> str:
    """`value`: reproduced within FACTOR_TOLERANCE either way, differs otherwise. With a
    `floor` (WAF and DLWA: 1), both are compared above it (value − floor against paper −
    floor), so a value at the floor never reproduces one above it.

    >>> value_verdict(19.0, 13.0), value_verdict(19.0, 2.09), value_verdict(1.3, 1.0, floor=1.0)
    ('reproduced', 'differs', 'differs')
    """
    if value is None or isinstance(value, bool) or not finite(value):
        return DIFFERS
    if floor is not None:
        if paper <= floor:
            raise usage_error("floor", f"a paper value {paper:g} at or below its floor {floor:g}")
        paper, value = paper - floor, float(value) - floor
    if not _positive(value):
        return DIFFERS
    ratio = float(value) / paper
    return REPRODUCED if abs(math.log(ratio)) <= math.log(FACTOR_TOLERANCE) + _SLACK else DIFFERS


def exact_verdict(paper: float, value: FtlabValue, digits: int) -> str:
    """`exact`: reproduced when `value` rounded half up to `digits` decimals is the printed
    number, i.e. in [paper − u/2, paper + u/2) with u = 10^−digits (compared in decimal, from
    the value's shortest repr, so 7.35 rounds to 7.4).

    >>> (exact_verdict(7.3, 7.25, 1), exact_verdict(7.3, 7.35, 1), exact_verdict(7.3, 5.51, 1),
    ...  exact_verdict(76, 76.4, 0))
    ('reproduced', 'differs', 'differs', 'reproduced')
    """
    if isinstance(value, bool) or not finite(value):
        return DIFFERS
    v, p, half = Decimal(repr(float(value))), Decimal(repr(float(paper))), Decimal(5).scaleb(-digits - 1)
    return REPRODUCED if p - half <= v < p + half else DIFFERS


_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": lambda v, b: v <= b,
    "<": lambda v, b: v < b,
    ">=": lambda v, b: v >= b,
    ">": lambda v, b: v > b,
}


def bound_verdict(
    paper: PaperValue, value: FtlabValue, op: str = "", adjective: str = "", high: float | None = None
) -> str:
    """`bound`: holds when `value` `op` `paper` (for "between": in [paper, high]), or is inside
    ADJECTIVES[adjective]; violated otherwise (including NaN or missing). A boolean counts as 1 or 0.

    >>> (bound_verdict(1.1, 1.26, "<="), bound_verdict(0, 0, "<="),
    ...  bound_verdict(None, 1.3, adjective="slightly worse"))
    ('violated', 'holds', 'violated')
    """
    if adjective:
        if adjective not in ADJECTIVES:
            raise usage_error(
                "adjective", f"unknown adjective {adjective!r}; declared: {', '.join(ADJECTIVES)}"
            )
        test: Callable[[float], bool] = ADJECTIVES[adjective].holds
    elif op == "between":
        lo, hi = _finite_float(paper), _finite_float(high)
        if lo is None or hi is None:
            raise usage_error("high", f"a bound between two numbers needs both, got {paper!r} and {high!r}")
        test = lambda v: lo <= v <= hi  # noqa: E731
    elif op in _OPS:
        bound, compare = _finite_float(paper), _OPS[op]
        if bound is None:
            raise usage_error("paper", f"a bound needs a finite number, got {paper!r}")
        test = lambda v: compare(v, bound)  # noqa: E731
    else:
        raise usage_error(
            "op", f"a bound needs op (one of {', '.join(_OPS)}, between) or an adjective, got {op!r}"
        )
    if value is None or (not isinstance(value, bool) and not finite(value)):
        return VIOLATED
    return HOLDS if test(float(value)) else VIOLATED


def order_verdict(margins: Sequence[FtlabValue]) -> str:
    """`order`, by sign over the seeds (DESIGN §12): holds when every seed's margin is
    positive, violated when none is (a margin of 0, NaN or missing is not on the paper's side),
    within noise only when the seeds disagree. No margin at all is violated.

    >>> order_verdict([0.3, 0.01, 0.2]), order_verdict([0.2, -0.1]), order_verdict([-0.3, -0.2, 0.0])
    ('holds', 'within noise', 'violated')
    """
    sides = [_positive(m) for m in margins]
    if sides and all(sides):
        return HOLDS
    return WITHIN_NOISE if any(sides) else VIOLATED


def median(values: Sequence[float]) -> float:
    """The median (the middle value for an odd count, the mean of the middle two otherwise).

    >>> median([3.0, 1.0, 2.0]), median([1.0, 2.0])
    (2.0, 1.5)
    """
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def ratio(value: float | None, base: float | None) -> float:
    """value / base, or NaN when either is missing or not finite, or base is 0.

    >>> ratio(75.0, 100.0)
    0.75
    """
    if not finite(value) or not finite(base) or base == 0:
        return math.nan
    return float(value) / float(base)


def relative_change(value: float | None, base: float | None) -> float:
    """value / base − 1, or NaN when either is missing or not finite, or base is 0.

    >>> relative_change(75.0, 100.0)
    -0.25
    """
    return ratio(value, base) - 1.0


def finite(value: object) -> TypeGuard[float]:
    """Whether `value` is a finite int or float (not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _finite_float(value: object) -> float | None:
    """`value` as a float if it is a finite number (not a boolean), else None."""
    return float(value) if isinstance(value, (int, float)) and finite(value) else None


# --------------------------------------------------------------------------------------
# Formatting


def fmt_change(value: FtlabValue | str) -> str:
    """A relative change as a signed percentage with a true minus: −47.4%, +3.0%; "n/a" if missing.

    >>> fmt_change(-0.474), fmt_change(0.03), fmt_change(float("nan"))
    ('−47.4%', '+3.0%', 'n/a')
    """
    if isinstance(value, bool) or not finite(value):
        return "n/a"
    return f"{float(value):+.1%}".replace("-", MINUS)


def fmt_number(value: object, unit: str = "", digits: int = 0) -> str:
    """A number with thousands separators and a unit: 1,234 µs; "n/a" if missing.

    >>> fmt_number(1234.4, "µs"), fmt_number(None, "µs")
    ('1,234 µs', 'n/a')
    """
    if not finite(value):
        return "n/a"
    text = f"{float(value):,.{digits}f}".replace("-", MINUS)
    return f"{text} {unit}" if unit else text


def fmt_value(value: FtlabValue | str) -> str:
    """A number with 3 significant digits (thousands separated from 1,000 on) and a true minus;
    "n/a" if missing; true/false.

    >>> fmt_value(15.0), fmt_value(0.000412), fmt_value(1234.5), fmt_value(None), fmt_value(True)
    ('15', '0.000412', '1,230', 'n/a', 'true')
    """
    if isinstance(value, bool):
        return str(value).lower()
    if not finite(value):
        return "n/a"
    three = float(f"{float(value):.3g}")
    text = f"{three:,.0f}" if abs(three) >= 1000 else f"{float(value):.3g}"
    return text.replace("-", MINUS)


def fmt_paper(claim: Claim) -> str:
    """The paper's value as shown in the tables: a factor "0.615x", a value, a bound "≤ 1.1",
    an order "holds"."""
    if claim.kind == FACTOR:
        return f"{fmt_value(claim.paper_value)}x"
    if claim.kind == BOUND:
        return claim.bound
    if claim.kind == ORDER:
        return "> 0"
    return fmt_value(claim.paper_value)


def fmt_ftlab(claim: Claim) -> str:
    """ftlab's value as shown in the tables, with its spread over seeds: "0.52x [0.5, 0.61]";
    "-" for a claim not measured or invalid (its value proves nothing)."""
    if claim.verdict in (NOT_MEASURED, INVALID):
        return "-"
    text = fmt_value(claim.ftlab_value) + ("x" if claim.kind == FACTOR and finite(claim.ftlab_value) else "")
    if claim.spread is not None:
        text += f" [{fmt_value(claim.spread[0])}, {fmt_value(claim.spread[1])}]"
    return text


# --------------------------------------------------------------------------------------
# Health and phases


class TenantHealth(TypedDict, total=False):
    """A tenant's health numbers (`health` sets them all): its summary's values as they are
    (None where absent) and the writes that arrived (`_writes_arrived`)."""

    unstable: bool | None
    starved: bool | None
    outstanding_at_end: int | None
    writes_outstanding_at_end: int | None
    queue_depth: int | None
    backlog_max: float | None
    max_wait_s: float | None
    stall_s_max: float | None
    writes_arrived: int | None


class RunHealth(TypedDict, total=False):
    """One run's (or scheme's) health record, the unit a claim's `runs` name (DESIGN §12):
    `health`'s per-scheme keys, or `one_run_health`'s with a paper's own run `checks`
    ({name: (text, ok)}) and, for vstream's synthetic runs, `steady_change`. `ok` is last."""

    tenants: dict[str, TenantHealth]
    tenants_ok: bool
    busiest_die: float | None
    busiest_die_by_phase: dict[str, float | None]
    busiest_die_ok: bool
    busiest_die_limit: float | None
    checks: dict[str, tuple[str, bool]]
    steady_change: float | None
    reasons: list[str]
    ok: bool


class HealthHead(TypedDict, total=False):
    """The health's keys between `ok` and `schemes`: the die limit (`health`) or a paper's
    tolerance (vstream's `steady_tolerance`)."""

    busiest_die_limit: float
    steady_tolerance: float


class Health(HealthHead):
    """A reproduction's health (claims.json's `health`): `ok` (every run's), the head's keys
    and each run's record by run (or scheme) name."""

    ok: bool
    schemes: dict[str, RunHealth]


def health(summary: JsonObject) -> Health:
    """The health checks of a parsed summary.json, per scheme (DESIGN §12). Per tenant: its
    `unstable` (a backlog that grew through the run, or beyond `backlog_limit` requests, its
    `[measure] backlog_queue_depths_max` queue depths, at any time), `starved` (a request
    waited beyond `[measure] starvation_wait_s`), and the numbers behind them
    (`outstanding_at_end`, `backlog_max`, `max_wait_s`, `stall_s_max`). Per scheme:
    `tenants_ok` (no tenant starved or unstable), the busiest die's utilisation over the
    measured phase (`busiest_die`) and per measurement phase (`busiest_die_by_phase`, empty
    without phases), `busiest_die_ok` (all of those below BUSIEST_DIE_LIMIT), `reasons` (one
    short sentence per failed check, naming the tenant and the numbers; those of the busiest
    die start with "busiest die") and `ok` (both checks). A missing value is None and fails its
    check. Top-level `ok`: every scheme's.

    >>> t = {"unstable": False, "starved": True, "max_wait_s": 74.08, "starvation_wait_s": 1.0}
    >>> h = health({"schemes": {"u": {"tenants": {"dtrs": t}, "device": {"die_utilisation": [0.2, 0.9]}}}})
    >>> h["schemes"]["u"]["busiest_die"], h["ok"], h["schemes"]["u"]["reasons"]
    (0.9, False, ['dtrs starved: a request waited 74.1 s > 1 s', 'busiest die 90% ≥ 85%'])
    """
    schemes = {name: _scheme_health(table(data)) for name, data in table(summary.get("schemes")).items()}
    return {
        "busiest_die_limit": BUSIEST_DIE_LIMIT,
        "ok": all(s["ok"] for s in schemes.values()),
        "schemes": schemes,
    }


def drop_die_limit(checks: Health, scheme: str) -> None:
    """Report `scheme`'s busiest die in `checks` (a `health` result) without a limit, for a run
    that busies its dies on purpose (a swap, a closed loop): it is judged on its tenants alone.
    Its reasons lose the busiest die's, and the top-level `ok` is taken again.

    >>> h = health({"schemes": {"s": {"tenants": {}, "device": {"die_utilisation": [0.9]}}}})
    >>> h["schemes"]["s"]["reasons"]
    ['busiest die 90% ≥ 85%']
    >>> drop_die_limit(h, "s")
    >>> h["schemes"]["s"]["reasons"], h["schemes"]["s"]["busiest_die_limit"], h["ok"]
    ([], None, True)
    """
    s = checks["schemes"][scheme]
    s["busiest_die_limit"] = None
    s["ok"] = s["tenants_ok"]
    s["reasons"] = [r for r in s["reasons"] if not r.startswith("busiest die")]
    checks["ok"] = all(x["ok"] for x in checks["schemes"].values())


def one_run_health(scheme: JsonObject) -> tuple[RunHealth, bool]:
    """The health record of a one-scheme run that busies its dies on purpose (a closed loop,
    a cache filling its device), and whether its tenants pass: the tenants' checks of
    `health`, the busiest die reported without a limit, no phases, no run checks yet (`checks`)
    and the reasons but the busiest die's. The caller adds its own run checks and sets `ok`
    last (the key order is claims.json's).

    >>> device = {"die_utilisation": [0.9], "die_utilisation_max": 0.9}
    >>> h, ok = one_run_health({"tenants": {}, "device": device})
    >>> h["busiest_die"], h["busiest_die_limit"], h["reasons"], ok
    (0.9, None, [], True)
    """
    base = health({"schemes": {"run": scheme}})["schemes"]["run"]
    entry: RunHealth = {
        "tenants": base["tenants"],
        "busiest_die": number(table(scheme["device"]).get("die_utilisation_max")),
        "busiest_die_by_phase": {},
        "busiest_die_limit": None,
        "checks": {},
        "reasons": [r for r in base["reasons"] if not r.startswith("busiest die")],
    }
    return entry, bool(base["tenants_ok"])


def _scheme_health(data: JsonObject) -> RunHealth:
    def _g(x: object) -> str:
        return f"{x:g}" if finite(x) else "n/a"

    raw = {name: table(t) for name, t in table(data.get("tenants")).items()}
    tenants: dict[str, TenantHealth] = {
        name: {
            "unstable": flag(t.get("unstable")),
            "starved": flag(t.get("starved")),
            "outstanding_at_end": integer(t.get("outstanding_at_end")),
            "writes_outstanding_at_end": integer(t.get("writes_outstanding_at_end")),
            "queue_depth": integer(t.get("queue_depth")),
            "backlog_max": number(t.get("backlog_max")),
            "max_wait_s": number(t.get("max_wait_s")),
            "stall_s_max": number(t.get("stall_s_max")),
            "writes_arrived": _writes_arrived(t),
        }
        for name, t in raw.items()
    }
    reasons: list[str] = []
    for name, t in raw.items():
        wait, bound = t.get("max_wait_s"), t.get("starvation_wait_s")
        if t.get("starved") is True:
            reasons.append(f"{name} starved: a request waited {fmt_number(wait, 's', 1)} > {_g(bound)} s")
        elif t.get("starved") is not False:
            reasons.append(f"{name}: starved not reported")
        backlog, limit, qd = t.get("backlog_max"), t.get("backlog_limit"), t.get("queue_depth")
        if t.get("unstable") is not True:
            if t.get("unstable") is not False:
                reasons.append(f"{name}: unstable not reported")
        elif finite(backlog) and finite(limit) and backlog > limit:
            depths = f" ({_g(limit / qd)} queue depths of {_g(qd)})" if finite(qd) and qd > 0 else ""
            reasons.append(
                f"{name} unstable: {fmt_number(backlog)} requests outstanding > {_g(limit)}{depths}"
            )
        else:
            grew = fmt_number(t.get("backlog_growth"))
            reasons.append(
                f"{name} unstable: backlog grew by {grew}, "
                f"{fmt_number(t.get('outstanding_at_end'))} outstanding at the end"
            )
    busiest = busiest_die(table(data.get("device")))
    phases = table(data.get("phases"))
    by_phase = {name: busiest_die(table(table(p).get("device"))) for name, p in phases.items()}
    for where, u in (("", busiest), *((f" in phase {p}", u) for p, u in by_phase.items())):
        if u is None or u >= BUSIEST_DIE_LIMIT:
            reasons.append(
                f"busiest die{where} {'n/a' if u is None else f'{u:.0%}'} ≥ {BUSIEST_DIE_LIMIT:.0%}"
            )
    die_ok = all(u is not None and u < BUSIEST_DIE_LIMIT for u in (busiest, *by_phase.values()))
    tenants_ok = all(t["unstable"] is False and t["starved"] is False for t in tenants.values())
    return {
        "tenants": tenants,
        "tenants_ok": tenants_ok,
        "busiest_die": busiest,
        "busiest_die_by_phase": by_phase,
        "busiest_die_ok": die_ok,
        "reasons": reasons,
        # DESIGN §12: a busy die is not by itself unhealthy (sweeps go past saturation on purpose);
        # a saturated run shows as an unstable or starved tenant. The busiest die is reported.
        "ok": tenants_ok,
    }


def _writes_arrived(tenant: JsonObject) -> int | None:
    """The writes a tenant's summary saw arrive: those completed in the measured phase and
    those outstanding at the end (None when either is absent)."""
    done, left = table(tenant.get("write")).get("count"), tenant.get("writes_outstanding_at_end")
    return int(done) + int(left) if isinstance(done, int) and isinstance(left, int) else None


def gate_reasons(run: RunHealth, rests_on: str) -> list[str]:
    """Why a claim that rests on `rests_on` (RESTS_ON) cannot trust the run whose health
    record is `run` (`health`'s per-scheme shape, or a paper module's with `checks`): empty
    when it can (DESIGN §12).

    - `arithmetic`: never gated.
    - every other: a failed run check (`checks`: a steady state, a warm-up that converged, a
      GC that started before measuring; what makes the run mean anything at all).
    - `latency`: also a starved or unstable tenant (the record's `ok` and `reasons`).
    - `wear`: also host writes left unserved at the end: a tenant's writes outstanding beyond
      its queue depth and beyond UNSERVED_WRITES_SHARE_MAX of the writes that arrived.
    - `throughput`: nothing more; a stall is part of a closed loop's throughput.

    >>> run = {"ok": False, "reasons": ["a starved: a request waited 2 s > 1 s"], "checks": {},
    ...        "tenants": {"a": {"writes_outstanding_at_end": 64, "queue_depth": 64, "writes_arrived": 900}}}
    >>> gate_reasons(run, LATENCY), gate_reasons(run, WEAR), gate_reasons(run, THROUGHPUT)
    (['a starved: a request waited 2 s > 1 s'], [], [])
    """
    if rests_on not in RESTS_ON:
        raise usage_error("rests_on", f"unknown {rests_on!r}; one of {', '.join(RESTS_ON)}")
    if rests_on == ARITHMETIC:
        return []
    checks = [
        f"run check {name!r} failed ({check[0]})"
        for name, check in (run.get("checks") or {}).items()
        if not check[1]
    ]
    if rests_on == LATENCY:
        if run.get("ok", False):
            return []
        return [str(r) for r in run.get("reasons") or []] or checks or ["a health check failed"]
    if rests_on == WEAR:
        return checks + [r for name, t in (run.get("tenants") or {}).items() if (r := _unserved(name, t))]
    return checks


def _unserved(name: str, tenant: TenantHealth) -> str:
    left, qd, arrived = (
        _finite_float(tenant.get("writes_outstanding_at_end")),
        _finite_float(tenant.get("queue_depth")),
        _finite_float(tenant.get("writes_arrived")),
    )
    if left is None or qd is None or arrived is None:
        return f"{name}: writes outstanding at the end not reported"
    if left > qd and left > UNSERVED_WRITES_SHARE_MAX * arrived:
        return (
            f"{name} left {fmt_number(left)} of {fmt_number(arrived)} writes unserved at the end "
            f"(> queue depth {qd:g} and > {UNSERVED_WRITES_SHARE_MAX:.0%})"
        )
    return ""


def busiest_die(device: JsonObject) -> float | None:
    """The largest of a device object's `die_utilisation` (its `die_utilisation_max` if it has
    no list); None if it has neither."""
    dies = device.get("die_utilisation")
    if isinstance(dies, list) and dies and all(finite(u) for u in dies):
        return float(max(dies))
    return _finite_float(device.get("die_utilisation_max"))


#: The read metrics of the per-phase table.
PHASE_METRICS = ("mean_us", "p99_us")


#: A row of the per-phase table (`phase_table`): tenant, scheme, then a value per phase metric.
PhaseRow = dict[str, object]


def phase_table(summary: JsonObject, tenants: Sequence[str] | None = None) -> list[PhaseRow]:
    """One row per (tenant, scheme) with the read latency of every measurement phase:
    `tenant`, `scheme`, then `<phase>.read_mean_us` and `<phase>.read_p99_us` per phase (in the
    order of summary.json; None where a phase lacks the tenant). Empty without phases.

    >>> s = {"schemes": {"u": {"tenants": {"a": {}},
    ...                        "phases": {"p": {"tenants": {"a": {"read": {"mean_us": 5, "p99_us": 9}}}}}}}}
    >>> phase_table(s)
    [{'tenant': 'a', 'scheme': 'u', 'p.read_mean_us': 5, 'p.read_p99_us': 9}]
    """
    schemes = {name: table(data) for name, data in table(summary.get("schemes")).items()}
    names = list(dict.fromkeys(p for data in schemes.values() for p in table(data.get("phases"))))
    if not names:
        return []
    order = (
        list(tenants)
        if tenants is not None
        else list(dict.fromkeys(t for d in schemes.values() for t in table(d.get("tenants"))))
    )
    rows = []
    for tenant in order:
        for scheme, data in schemes.items():
            row: PhaseRow = {"tenant": tenant, "scheme": scheme}
            for phase in names:
                at = table(table(table(data.get("phases")).get(phase)).get("tenants"))
                read = table(table(at.get(tenant)).get("read"))
                row.update({f"{phase}.read_{m}": read.get(m) for m in PHASE_METRICS})
            rows.append(row)
    return rows


# --------------------------------------------------------------------------------------
# Files


def write_claims_json(path: StrPath, claims: Sequence[Claim], **sections: object) -> Path:
    """Write claims.json atomically: `sections` (metadata, health, phases, ...) first, then
    `verdict_rule`, `verdicts` (a count per verdict) and `claims` (each `Claim.to_dict`)."""
    doc = {
        **sections,
        "verdict_rule": verdict_rule(),
        "verdicts": {v: sum(c.verdict == v for c in claims) for v in VERDICTS},
        "tally": tally(claims),
        "claims": [c.to_dict() for c in claims],
    }
    return write_json(path, doc)


#: The tally's groups: the paper's experiments, the paper's arithmetic, our variants' rows.
TALLY_GROUPS = ("experiments", "arithmetic", "ours")


def tally(claims: Iterable[Claim]) -> dict[str, dict[str, int]]:
    """Per group (TALLY_GROUPS): the claims (`claims`), those judged (`measured`: neither
    invalid nor not measured), those reproduced or holding (`agree`), `invalid` and `not
    measured`. A claim about our variant (`ours`) counts in `ours` only; the paper's
    arithmetic never counts as an experiment (DESIGN §12).

    >>> c = lambda v, r="wear", o=False: Claim("x", "x", VALUE, 1.0, 1.0, v, "", rests_on=r, ours=o)
    >>> t = tally([c(REPRODUCED), c(INVALID), c(HOLDS, ARITHMETIC), c(DIFFERS, o=True)])
    >>> t["experiments"], t["arithmetic"]["agree"], t["ours"]["measured"]
    ({'claims': 2, 'measured': 1, 'agree': 1, 'invalid': 1, 'not measured': 0}, 1, 1)
    """
    groups = {g: {"claims": 0, "measured": 0, "agree": 0, INVALID: 0, NOT_MEASURED: 0} for g in TALLY_GROUPS}
    for c in claims:
        g = groups["ours" if c.ours else "arithmetic" if c.rests_on == ARITHMETIC else "experiments"]
        g["claims"] += 1
        if c.verdict in (INVALID, NOT_MEASURED):
            g[c.verdict] += 1
            continue
        g["measured"] += 1
        g["agree"] += c.verdict in (REPRODUCED, HOLDS)
    return groups


def tally_line(name: str, t: Mapping[str, Mapping[str, int]]) -> str:
    """The tally in one line: "upi: experiments 4 of 9 measured reproduce or hold (2 invalid,
    1 not measured); arithmetic 2 of 2; ours 1 of 5 measured".

    >>> tally_line("x", {"experiments": {"claims": 3, "measured": 2, "agree": 1, "invalid": 1,
    ...   "not measured": 0}, "arithmetic": {"claims": 0}, "ours": {"claims": 0}})
    'x: experiments 1 of 2 measured reproduce or hold (1 invalid)'
    """
    parts = []
    for group in TALLY_GROUPS:
        g = t.get(group) or {}
        if not g.get("claims"):
            continue
        text = f"{group} {g['agree']} of {g['measured']} measured"
        if group == "experiments":
            text += " reproduce or hold"
        aside = [f"{g[k]} {k}" for k in (INVALID, NOT_MEASURED) if g.get(k)]
        parts.append(text + (f" ({', '.join(aside)})" if aside else ""))
    return f"{name}: " + ("; ".join(parts) if parts else "no claims")


def verdict_rule() -> dict[str, str]:
    """The verdict rule, per kind (recorded in claims.json)."""
    rule = {kind: f"{yes}; otherwise {no}" for kind, (_, yes, no) in KINDS.items()}
    rule["seeds"] = "the value judged is the median over seeds; spread = (min, max) over seeds"
    rule[INVALID] = (
        "a run the claim rests on is unhealthy in what the claim reads (rests_on), whatever the value"
    )
    rule[NOT_MEASURED] = "ftlab cannot measure the claim, or gave no number (the reason says why)"
    rule.update({f"rests_on {k}": v for k, v in RESTS_ON.items()})
    return rule


def write_json(path: StrPath, value: object) -> Path:
    """Write `value` as indented JSON (NaN as null) atomically; returns the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_no_nan(value), indent=2, ensure_ascii=False) + "\n"
    write_files_atomically(out.parent, {out.name: lambda p: Path(p).write_text(text, encoding="utf-8")})
    return out


def write_csv(
    path: StrPath, rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None
) -> Path:
    """Write dict rows as CSV atomically (columns: `columns`, else every key in first-seen
    order; None and NaN are empty cells, lists are joined with ";"); returns the path. A named
    column that no row has is a bug (it would be written empty), not an empty column: raises
    AssertionError.

    >>> write_csv("/nonexistent/x.csv", [{"claim": "a"}], ["claim", "unit"])
    Traceback (most recent call last):
    AssertionError: /nonexistent/x.csv: no row has the column(s) ['unit']; the rows have ['claim']
    """
    out = Path(path)
    names = list(columns) if columns is not None else list(dict.fromkeys(k for row in rows for k in row))
    absent = [k for k in names if rows and not any(k in row for row in rows)]
    if absent:
        have = list(dict.fromkeys(k for row in rows for k in row))
        raise AssertionError(f"{path}: no row has the column(s) {absent}; the rows have {have}")
    out.parent.mkdir(parents=True, exist_ok=True)

    def write(p: str) -> None:
        with open(p, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(names)
            writer.writerows([_csv_cell(row.get(k)) for k in names] for row in rows)

    write_files_atomically(out.parent, {out.name: write})
    return out


def _csv_cell(value: object) -> object:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    return value


def _no_nan(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


# --------------------------------------------------------------------------------------
# Sensitivity


#: A reproduction's sensitivity files (`--sensitivity`), in its output directory.
SENSITIVITY_FILE = "sensitivity.json"
SENSITIVITY_CSV = "sensitivity.csv"
#: sensitivity.csv's columns before any per-case ones: keys of `sensitivity_summary`'s rows.
SENSITIVITY_COLUMNS = ("claim", "text", "kind", "paper_value", "min", "max", "n_cases", "reversed_in")


def sensitivity_files(out: Path) -> list[Path]:
    """The files `write_sensitivity` writes in `out`, for a reproduction's list of outputs.

    >>> [p.as_posix() for p in sensitivity_files(Path("r"))]
    ['r/sensitivity.json', 'r/sensitivity.csv']
    """
    return [out / SENSITIVITY_FILE, out / SENSITIVITY_CSV]


def write_sensitivity(
    out: Path,
    doc: Mapping[str, object],
    rows: Sequence[Mapping[str, object]],
    value_columns: Sequence[str] = (),
) -> None:
    """Write a sensitivity study: `doc` as out/sensitivity.json, and `rows` (those of
    `sensitivity_summary`, with any per-case `value_columns`) as out/sensitivity.csv."""
    write_json(out / SENSITIVITY_FILE, doc)
    write_csv(out / SENSITIVITY_CSV, rows, [*SENSITIVITY_COLUMNS, *value_columns])


class SensitivityRow(TypedDict):
    """One claim over a sensitivity study's cases (`sensitivity_summary`; sensitivity.json's
    `claims`, in this key order)."""

    claim: str
    text: str
    kind: str
    paper_value: PaperValue
    values: dict[str, FtlabValue]
    reversed_in: list[str]
    cases: list[str]
    n_cases: int
    min: float | None
    max: float | None


def sensitivity_summary(by_case: Mapping[str, Sequence[Claim]]) -> list[SensitivityRow]:
    """Per claim (in the order first seen): its paper value, the min and max of ftlab's value
    over the cases (NaN and missing values left out; booleans as 0/1; None if none is left),
    ftlab's value per case (`values`), the cases it was computed in (`cases`, `n_cases`), and
    `reversed_in`, the cases whose verdict is `differs` or `violated`.

    >>> c = lambda v: Claim("x", "x", FACTOR, 0.6, v, factor_verdict(0.6, v), "")
    >>> sensitivity_summary({"a": [c(0.7)], "b": [c(1.1)]})[0]["reversed_in"]
    ['b']
    """
    first: dict[str, Claim] = {}
    values: dict[str, dict[str, FtlabValue]] = {}
    reversed_in: dict[str, list[str]] = {}
    for case, claims in by_case.items():
        for claim in claims:
            first.setdefault(claim.id, claim)
            values.setdefault(claim.id, {})[case] = claim.ftlab_value
            if claim.verdict in (DIFFERS, VIOLATED):
                reversed_in.setdefault(claim.id, []).append(case)
    out: list[SensitivityRow] = []
    for id, claim in first.items():
        numbers = [
            float(v) for v in values[id].values() if v is not None and (isinstance(v, bool) or finite(v))
        ]
        out.append(
            {
                "claim": id,
                "text": claim.text,
                "kind": claim.kind,
                "paper_value": claim.paper_value,
                "values": values[id],
                "reversed_in": reversed_in.get(id, []),
                "cases": list(values[id]),
                "n_cases": len(values[id]),
                "min": min(numbers) if numbers else None,
                "max": max(numbers) if numbers else None,
            }
        )
    return out


# --------------------------------------------------------------------------------------
# Terminal tables


def claims_table(claims: Iterable[Claim], title: str = "claims") -> Table:
    """A rich table: claim, kind, paper, ftlab (with its spread over seeds), verdict (coloured)."""
    caption = (
        "factor/value: within 1.5x (WAF, DLWA above 1); exact: at the printed rounding; "
        "order: on the paper's side in every seed; -: invalid or not measured (below)"
    )
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("claim", overflow="fold")
    table.add_column("kind", no_wrap=True)
    for name in ("paper", "ftlab"):
        table.add_column(name, justify="right", overflow="fold")
    table.add_column("verdict", no_wrap=True)
    for c in claims:
        table.add_row(
            escape(c.text),
            c.kind,
            escape(fmt_paper(c)),
            escape(fmt_ftlab(c)),
            f"[{VERDICT_STYLES[c.verdict]}]{c.verdict}[/]",
        )
    return table


def health_table(checks: Health, title: str = "health") -> Table:
    """A rich table of `health`: per scheme, unstable tenants, requests outstanding at the
    end, the busiest die over the run and per phase, and whether the scheme is healthy."""
    schemes = checks.get("schemes") or {}
    phases = list(dict.fromkeys(p for s in schemes.values() for p in s["busiest_die_by_phase"]))
    # A scheme may carry its own `busiest_die_limit` (None: reported, no limit, as in a closed
    # loop that saturates the device on purpose) and extra `checks`: {name: (text, ok)}.
    extra = list(dict.fromkeys(c for s in schemes.values() for c in s.get("checks") or {}))
    limits = {s.get("busiest_die_limit", BUSIEST_DIE_LIMIT) for s in schemes.values()}
    limit_text = (
        f"limit {BUSIEST_DIE_LIMIT:.0%}"
        if limits <= {BUSIEST_DIE_LIMIT}
        else "no limit: a closed loop saturates the device"
        if limits == {None}
        else "limits differ per scheme"
    )
    table = Table(
        title=title,
        title_justify="left",
        caption=f"busiest die: utilisation of the busiest die ({limit_text})",
        caption_justify="left",
    )
    for name in ("scheme", "unstable tenants", "outstanding at end"):
        table.add_column(name)
    for name in ("busiest die", *(f"busiest die\n{p}" for p in phases), *extra, "ok"):
        table.add_column(escape(name), justify="right", no_wrap=True)
    for scheme, s in schemes.items():
        unstable = [t for t, v in s["tenants"].items() if v["unstable"] is not False]
        outstanding = ", ".join(f"{t} {fmt_number(v['outstanding_at_end'])}" for t, v in s["tenants"].items())
        limit = s.get("busiest_die_limit", BUSIEST_DIE_LIMIT)
        dies = [
            _pct(s["busiest_die"], limit),
            *(_pct(s["busiest_die_by_phase"].get(p), limit) for p in phases),
        ]
        checks_ = [_check_cell((s.get("checks") or {}).get(c)) for c in extra]
        ok = "[green]yes[/]" if s["ok"] else "[bold red]NO[/]"
        table.add_row(
            escape(scheme),
            f"[bold red]{escape(', '.join(unstable))}[/]" if unstable else "none",
            escape(outstanding),
            *dies,
            *checks_,
            ok,
        )
    return table


def _check_cell(check: Sequence[object] | None) -> str:
    if check is None:
        return "-"
    text, ok = check
    return escape(str(text)) if ok else f"[bold red]{escape(str(text))}[/]"


def _pct(value: float | None, limit: float | None = BUSIEST_DIE_LIMIT) -> str:
    if value is None:
        return "n/a"
    text = f"{value:.1%}"
    return f"[bold red]{text}[/]" if limit is not None and value >= limit else text


def sensitivity_table(rows: Sequence[SensitivityRow], title: str = "sensitivity") -> Table:
    """A compact rich table of `sensitivity_summary`: claim, paper, min, max, reversed in."""
    caption = (
        "min/max of ftlab's value over the cases; reversed in: cases where the verdict is "
        "`differs` or `violated`"
    )
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("claim", overflow="fold")
    for name in ("paper", "min", "max"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("reversed in", overflow="fold")
    for r in rows:
        reversed_in = ", ".join(r["reversed_in"])
        paper = "-" if r["paper_value"] is None else fmt_value(r["paper_value"])
        table.add_row(
            escape(r["text"]),
            paper,
            fmt_value(r["min"]),
            fmt_value(r["max"]),
            f"[bold red]{escape(reversed_in)}[/]" if reversed_in else "none",
        )
    return table


def print_claims(console: Console, claims: Sequence[Claim]) -> None:
    """Print the claims table, then one paragraph per claim, wrapped to the console's width:
    its id and verdict, then its `why` (the numbers it rests on), or for an `invalid` or `not
    measured` claim only its reason (a value from a run that proves nothing is not shown)."""
    console.print(claims_table(claims))
    for c in claims:
        text = c.reason if c.verdict in (INVALID, NOT_MEASURED) and c.reason else c.why
        console.print(
            f"[{VERDICT_STYLES[c.verdict]}]{c.verdict}[/] [bold]{escape(c.id)}[/]: {escape(text)}",
            highlight=False,
        )


@dataclass(kw_only=True)
class ReproductionResult:
    """What `ftlab.reproduce` returns: the claims with their verdicts, the health checks, the
    per-phase table, the files written, the run's Report and the sensitivity rows (None
    without `sensitivity=True`)."""

    name: str
    out: Path
    scenario: Path
    quick: bool
    claims: list[Claim]
    health: Health
    phases: list[PhaseRow]
    files: list[Path]
    wall_s: float
    report: Report | None = None
    sensitivity: list[SensitivityRow] | None = None
    #: A paper's own results beside `seed_result` (`Driven.extra`), read by its tests and the
    #: terminal; `Any` stays: each paper puts its own types in it and only its reader knows them.
    extra: dict[str, Any] = field(default_factory=dict)
    #: Lines a reproduction prints after its health table (checks of the model against the
    #: paper's analysis that are not claims, e.g. PaRT-FTL's GC copies beside Eq. 5).
    notes: list[str] = field(default_factory=list)

    @property
    def verdicts(self) -> dict[str, int]:
        """How many claims got each verdict."""
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def claim(self, id: str) -> Claim:
        """The claim with this id; an `ftlab.UsageError` naming the known ids otherwise."""
        for c in self.claims:
            if c.id == id:
                return c
        raise usage_error("id", f"no claim {id!r}; claims: {', '.join(c.id for c in self.claims)}")

    def __repr__(self) -> str:
        return f"<ftlab.ReproductionResult {self.name} out={self.out} verdicts={self.verdicts}>"
