"""ftlab.reproduce.claims: the generic part of `ftlab reproduce`: a paper's claim beside
ftlab's number, the verdict rule, the health checks of a run, and their files and tables.

The verdict rule (also in docs/reproductions.md):

- A claim in **relative change** (the paper's −38.5% is −0.385) compares ftlab's relative
  change with the paper's through `ratio = ftlab / paper`. It is `reproduced` if both have the
  same sign and the ratio is in [2/3, 3/2] (inclusive, to a relative 1e-9 for rounding);
  `same direction` if they have the same sign otherwise; `differs` if the signs are opposite,
  or ftlab's value is zero, NaN or missing.
- A claim in **value** (an absolute quantity: 15 minutes, a ratio of 1.1) compares ftlab's value
  with the paper's by the same rule as a relative change: `reproduced` if both have the same
  sign and ftlab / paper is in [2/3, 3/2], `same direction` if the same sign otherwise,
  `differs` otherwise (opposite sign, zero, NaN or missing). The claim's text names the unit.
- A **qualitative** (or boolean) claim gives a direction only: the paper's value is "+", "-"
  (or "−"), True or False. It is `reproduced` if ftlab's value points the same way (a positive
  number or True for "+" and True; a negative number or False for "-" and False) and
  `differs` otherwise, including a zero, NaN or missing value.

Every claim carries `why`, one generated sentence with the numbers it rests on. The health
checks (`health`) say whether a run can be trusted: no tenant unstable, requests outstanding
at the end, and the busiest die below `BUSIEST_DIE_LIMIT` over the whole measured phase and in
every measurement phase. `phase_table` lays out the per-phase read latencies.

This module computes verdicts, ratios and tables from numbers it is given (from summary.json);
it runs no simulation and knows no paper (`ftlab.reproduce.upi` does).
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from ftlab._errors import usage_error

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ftlab.report import Report

StrPath = Union[str, "os.PathLike[str]"]
PaperValue = Union[float, str, bool]
FtlabValue = Union[float, bool, None]

REPRODUCED = "reproduced"
SAME_DIRECTION = "same direction"
DIFFERS = "differs"
VERDICTS = (REPRODUCED, SAME_DIRECTION, DIFFERS)
#: Verdict colours of the terminal tables.
VERDICT_STYLES = {REPRODUCED: "green", SAME_DIRECTION: "yellow", DIFFERS: "bold red"}

RELATIVE = "relative change"
VALUE = "value"
QUALITATIVE = "qualitative"
BOOLEAN = "boolean"
UNITS = (RELATIVE, VALUE, QUALITATIVE, BOOLEAN)

#: A relative change is reproduced when ftlab / paper is in [RATIO_LOW, RATIO_HIGH].
RATIO_LOW = 2.0 / 3.0
RATIO_HIGH = 3.0 / 2.0
_RATIO_SLACK = 1e-9
#: The busiest die's utilisation (busy fraction) must stay below this for a run to be healthy.
BUSIEST_DIE_LIMIT = 0.85

CLAIMS_FILE = "claims.json"
PHASES_FILE = "phases.csv"
MINUS = "\u2212"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper beside ftlab's value, with its verdict and the sentence `why`."""

    id: str
    text: str
    paper_value: PaperValue
    ftlab_value: FtlabValue
    unit: str
    verdict: str
    why: str

    @property
    def ratio(self) -> float | None:
        """ftlab / paper for a relative change or a value with both finite and non-zero; else None."""
        if self.unit not in (RELATIVE, VALUE) or not _finite(self.ftlab_value) or not _finite(self.paper_value):
            return None
        return None if self.paper_value == 0 else float(self.ftlab_value) / float(self.paper_value)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """The claim as JSON-ready values (NaN becomes None)."""
        value = self.ftlab_value
        return {
            "id": self.id,
            "text": self.text,
            "paper_value": self.paper_value,
            "ftlab_value": None if isinstance(value, float) and math.isnan(value) else value,
            "unit": self.unit,
            "ratio": self.ratio,
            "verdict": self.verdict,
            "why": self.why,
        }


def make_claim(id: str, text: str, paper_value: PaperValue, ftlab_value: FtlabValue, unit: str, why: str) -> Claim:  # noqa: A002
    """A Claim with its verdict computed by `verdict`.

    >>> make_claim("x", "x falls", -0.4, -0.3, RELATIVE, "...").verdict
    'reproduced'
    """
    return Claim(id, text, paper_value, ftlab_value, unit, verdict(paper_value, ftlab_value, unit), why)


def verdict(paper_value: PaperValue, ftlab_value: FtlabValue, unit: str) -> str:
    """The verdict of ftlab's value against the paper's (the rule in this module's docstring).

    Raises `ftlab.UsageError` for an unknown unit or a paper value the unit cannot take.

    >>> verdict(-0.385, -0.2, RELATIVE), verdict("+", 0.02, QUALITATIVE), verdict(True, False, BOOLEAN)
    ('same direction', 'reproduced', 'differs')
    """
    if unit in (RELATIVE, VALUE):
        if isinstance(paper_value, (bool, str)) or not _finite(paper_value) or paper_value == 0:
            raise usage_error("paper_value", f"a {unit} must be a finite non-zero number, got {paper_value!r}")
        return relative_verdict(float(paper_value), ftlab_value)
    if unit in (QUALITATIVE, BOOLEAN):
        return qualitative_verdict(paper_value, ftlab_value)
    raise usage_error("unit", f"unknown claim unit {unit!r}; valid units: {', '.join(UNITS)}")


def relative_verdict(paper: float, ftlab: FtlabValue) -> str:
    """`reproduced`, `same direction` or `differs` for a relative change (see the module)."""
    if isinstance(ftlab, bool) or not _finite(ftlab) or ftlab == 0:
        return DIFFERS
    ratio = float(ftlab) / paper  # type: ignore[arg-type]
    if ratio < 0:
        return DIFFERS
    if RATIO_LOW * (1 - _RATIO_SLACK) <= ratio <= RATIO_HIGH * (1 + _RATIO_SLACK):
        return REPRODUCED
    return SAME_DIRECTION


def qualitative_verdict(paper: PaperValue, ftlab: FtlabValue) -> str:
    """`reproduced` if ftlab's value points the paper's way, else `differs` (see the module)."""
    want = paper_direction(paper)
    if isinstance(ftlab, bool):
        got = 1 if ftlab else -1
    elif _finite(ftlab) and ftlab != 0:
        got = 1 if float(ftlab) > 0 else -1  # type: ignore[arg-type]
    else:
        return DIFFERS
    return REPRODUCED if got == want else DIFFERS


def paper_direction(paper: PaperValue) -> int:
    """+1 or -1: the direction a qualitative claim's paper value states ("+", "-", "−",
    True, False); an `ftlab.UsageError` for anything else."""
    if isinstance(paper, bool):
        return 1 if paper else -1
    if paper == "+":
        return 1
    if paper in ("-", MINUS):
        return -1
    raise usage_error("paper_value", f'a qualitative claim takes "+", "-", True or False, got {paper!r}')


def relative_change(value: float | None, base: float | None) -> float:
    """value / base − 1, or NaN when either is missing or not finite, or base is 0.

    >>> relative_change(75.0, 100.0)
    -0.25
    """
    if not _finite(value) or not _finite(base) or base == 0:
        return math.nan
    return float(value) / float(base) - 1.0  # type: ignore[arg-type]


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# --------------------------------------------------------------------------------------
# Formatting


def fmt_change(value: FtlabValue | str) -> str:
    """A relative change as a signed percentage with a true minus: −47.4%, +3.0%; "n/a" if missing.

    >>> fmt_change(-0.474), fmt_change(0.03), fmt_change(float("nan"))
    ('−47.4%', '+3.0%', 'n/a')
    """
    if isinstance(value, bool) or not _finite(value):
        return "n/a"
    return f"{float(value):+.1%}".replace("-", MINUS)  # type: ignore[arg-type]


def fmt_number(value: float | None, unit: str = "", digits: int = 0) -> str:
    """A number with thousands separators and a unit: 1,234 µs; "n/a" if missing.

    >>> fmt_number(1234.4, "µs"), fmt_number(None, "µs")
    ('1,234 µs', 'n/a')
    """
    if not _finite(value):
        return "n/a"
    text = f"{float(value):,.{digits}f}".replace("-", MINUS)  # type: ignore[arg-type]
    return f"{text} {unit}" if unit else text


def fmt_paper(claim: Claim) -> str:
    """The paper's value as shown in the tables: −38.5%, or a direction (+, −, true)."""
    if claim.unit == RELATIVE:
        return fmt_change(claim.paper_value)  # type: ignore[arg-type]
    if claim.unit == VALUE:
        return fmt_value(claim.paper_value)  # type: ignore[arg-type]
    if isinstance(claim.paper_value, bool):
        return str(claim.paper_value).lower()
    return "+" if paper_direction(claim.paper_value) > 0 else MINUS


def fmt_ftlab(claim: Claim) -> str:
    """ftlab's value as shown in the tables."""
    if isinstance(claim.ftlab_value, bool):
        return str(claim.ftlab_value).lower()
    if claim.unit == VALUE:
        return fmt_value(claim.ftlab_value)
    return fmt_change(claim.ftlab_value)


def fmt_value(value: FtlabValue | str) -> str:
    """A claim's value (unit VALUE) with 3 significant digits and a true minus; "n/a" if missing.

    >>> fmt_value(15.0), fmt_value(0.000412), fmt_value(None)
    ('15', '0.000412', 'n/a')
    """
    if isinstance(value, bool) or not _finite(value):
        return "n/a"
    return f"{float(value):.3g}".replace("-", MINUS)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Health and phases


def health(summary: Mapping[str, Any]) -> dict[str, Any]:
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
    schemes = {name: _scheme_health(data) for name, data in (summary.get("schemes") or {}).items()}
    return {"busiest_die_limit": BUSIEST_DIE_LIMIT, "ok": all(s["ok"] for s in schemes.values()), "schemes": schemes}


def _scheme_health(data: Mapping[str, Any]) -> dict[str, Any]:
    def _g(x: Any) -> str:
        return f"{x:g}" if _finite(x) else "n/a"

    keys = ("unstable", "starved", "outstanding_at_end", "backlog_max", "max_wait_s", "stall_s_max")
    tenants = {name: {k: t.get(k) for k in keys} for name, t in (data.get("tenants") or {}).items()}
    reasons: list[str] = []
    for name, t in (data.get("tenants") or {}).items():
        wait, bound = t.get("max_wait_s"), t.get("starvation_wait_s")
        if t.get("starved") is True:
            reasons.append(f"{name} starved: a request waited {fmt_number(wait, 's', 1)} > {_g(bound)} s")
        elif t.get("starved") is not False:
            reasons.append(f"{name}: starved not reported")
        backlog, limit, qd = t.get("backlog_max"), t.get("backlog_limit"), t.get("queue_depth")
        if t.get("unstable") is not True:
            if t.get("unstable") is not False:
                reasons.append(f"{name}: unstable not reported")
        elif _finite(backlog) and _finite(limit) and backlog > limit:
            depths = f" ({_g(limit / qd)} queue depths of {_g(qd)})" if _finite(qd) and qd > 0 else ""
            reasons.append(f"{name} unstable: {fmt_number(backlog)} requests outstanding > {_g(limit)}{depths}")
        else:
            grew = fmt_number(t.get("backlog_growth"))
            reasons.append(f"{name} unstable: backlog grew by {grew}, {fmt_number(t.get('outstanding_at_end'))} outstanding at the end")
    busiest = busiest_die(data.get("device") or {})
    by_phase = {name: busiest_die(p.get("device") or {}) for name, p in (data.get("phases") or {}).items()}
    for where, u in (("", busiest), *((f" in phase {p}", u) for p, u in by_phase.items())):
        if u is None or u >= BUSIEST_DIE_LIMIT:
            reasons.append(f"busiest die{where} {'n/a' if u is None else f'{u:.0%}'} ≥ {BUSIEST_DIE_LIMIT:.0%}")
    die_ok = all(u is not None and u < BUSIEST_DIE_LIMIT for u in (busiest, *by_phase.values()))
    tenants_ok = all(t["unstable"] is False and t["starved"] is False for t in tenants.values())
    return {
        "tenants": tenants,
        "tenants_ok": tenants_ok,
        "busiest_die": busiest,
        "busiest_die_by_phase": by_phase,
        "busiest_die_ok": die_ok,
        "reasons": reasons,
        "ok": die_ok and tenants_ok,
    }


def busiest_die(device: Mapping[str, Any]) -> float | None:
    """The largest of a device object's `die_utilisation` (its `die_utilisation_max` if it has
    no list); None if it has neither."""
    dies = device.get("die_utilisation")
    if isinstance(dies, list) and dies and all(_finite(u) for u in dies):
        return float(max(dies))
    top = device.get("die_utilisation_max")
    return float(top) if _finite(top) else None


#: The read metrics of the per-phase table.
PHASE_METRICS = ("mean_us", "p99_us")


def phase_table(summary: Mapping[str, Any], tenants: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per (tenant, scheme) with the read latency of every measurement phase:
    `tenant`, `scheme`, then `<phase>.read_mean_us` and `<phase>.read_p99_us` per phase (in the
    order of summary.json; None where a phase lacks the tenant). Empty without phases.

    >>> s = {"schemes": {"u": {"tenants": {"a": {}}, "phases": {"p": {"tenants": {"a": {"read": {"mean_us": 5, "p99_us": 9}}}}}}}}
    >>> phase_table(s)
    [{'tenant': 'a', 'scheme': 'u', 'p.read_mean_us': 5, 'p.read_p99_us': 9}]
    """
    schemes = summary.get("schemes") or {}
    names = list(dict.fromkeys(p for data in schemes.values() for p in (data.get("phases") or {})))
    if not names:
        return []
    order = list(tenants) if tenants is not None else list(dict.fromkeys(t for d in schemes.values() for t in (d.get("tenants") or {})))
    rows = []
    for tenant in order:
        for scheme, data in schemes.items():
            row: dict[str, Any] = {"tenant": tenant, "scheme": scheme}
            for phase in names:
                read = (((data.get("phases") or {}).get(phase) or {}).get("tenants") or {}).get(tenant, {}).get("read") or {}
                row.update({f"{phase}.read_{m}": read.get(m) for m in PHASE_METRICS})
            rows.append(row)
    return rows


# --------------------------------------------------------------------------------------
# Files


def write_claims_json(path: StrPath, claims: Sequence[Claim], **sections: Any) -> Path:
    """Write claims.json atomically: `sections` (metadata, health, phases, ...) first, then
    `verdict_rule`, `verdicts` (a count per verdict) and `claims` (each `Claim.to_dict`)."""
    doc = {
        **sections,
        "verdict_rule": verdict_rule(),
        "verdicts": {v: sum(c.verdict == v for c in claims) for v in VERDICTS},
        "claims": [c.to_dict() for c in claims],
    }
    return write_json(path, doc)


def verdict_rule() -> str:
    """The verdict rule in one paragraph (recorded in claims.json)."""
    return (
        "relative change and value: ratio = ftlab / paper; reproduced if same sign and ratio in [2/3, 3/2]; "
        "same direction if same sign otherwise; differs if opposite sign or ftlab is zero, NaN or missing. "
        "qualitative/boolean: reproduced if ftlab's direction matches the paper's (+ or −, true or false), else differs."
    )


def write_json(path: StrPath, value: Any) -> Path:
    """Write `value` as indented JSON (NaN as null) atomically; returns the path."""
    from ftlab.report import write_files_atomically

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_no_nan(value), indent=2, ensure_ascii=False) + "\n"
    write_files_atomically(out.parent, {out.name: lambda p: Path(p).write_text(text, encoding="utf-8")})
    return out


def write_csv(path: StrPath, rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> Path:
    """Write dict rows as CSV atomically (columns: `columns`, else every key in first-seen
    order; None and NaN are empty cells, lists are joined with ";"); returns the path."""
    from ftlab.report import write_files_atomically

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    names = list(columns) if columns is not None else list(dict.fromkeys(k for row in rows for k in row))

    def write(p: str) -> None:
        with open(p, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(names)
            writer.writerows([_csv_cell(row.get(k)) for k in names] for row in rows)

    write_files_atomically(out.parent, {out.name: write})
    return out


def _csv_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    return value


def _no_nan(value: Any) -> Any:
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


def sensitivity_summary(by_case: Mapping[str, Sequence[Claim]]) -> list[dict[str, Any]]:
    """Per claim (in the order first seen): its paper value, the min and max of ftlab's value
    over the cases (NaN and missing values left out; booleans as 0/1; None if none is left),
    ftlab's value per case (`values`), the cases it was computed in (`cases`, `n_cases`), and
    `reversed_in`, the cases whose verdict is `differs`.

    >>> c = lambda v: make_claim("x", "x", -0.4, v, RELATIVE, "")
    >>> sensitivity_summary({"a": [c(-0.3)], "b": [c(0.1)]})[0]["reversed_in"]
    ['b']
    """
    rows: dict[str, dict[str, Any]] = {}
    for case, claims in by_case.items():
        for claim in claims:
            row = rows.setdefault(claim.id, {"claim": claim.id, "text": claim.text, "unit": claim.unit, "paper_value": claim.paper_value, "values": {}, "reversed_in": []})
            row["values"][case] = claim.ftlab_value
            if claim.verdict == DIFFERS:
                row["reversed_in"].append(case)
    out = []
    for row in rows.values():
        numbers = [float(v) for v in row["values"].values() if isinstance(v, bool) or _finite(v)]
        extent = {"min": min(numbers) if numbers else None, "max": max(numbers) if numbers else None}
        out.append({**row, "cases": list(row["values"]), "n_cases": len(row["values"]), **extent})
    return out


# --------------------------------------------------------------------------------------
# Terminal tables


def claims_table(claims: Iterable[Claim], title: str = "claims") -> Table:
    """A rich table: claim, paper, ftlab, ratio, verdict (coloured)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, title_justify="left", caption="reproduced: same sign, ftlab/paper in [2/3, 3/2]", caption_justify="left")
    table.add_column("claim", overflow="fold")
    for name in ("paper", "ftlab", "ratio"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for c in claims:
        ratio = "-" if c.ratio is None else f"{c.ratio:.2f}"
        table.add_row(escape(c.text), fmt_paper(c), fmt_ftlab(c), ratio, f"[{VERDICT_STYLES[c.verdict]}]{c.verdict}[/]")
    return table


def health_table(checks: Mapping[str, Any], title: str = "health") -> Table:
    """A rich table of `health`: per scheme, unstable tenants, requests outstanding at the
    end, the busiest die over the run and per phase, and whether the scheme is healthy."""
    from rich.markup import escape
    from rich.table import Table

    schemes = checks.get("schemes") or {}
    phases = list(dict.fromkeys(p for s in schemes.values() for p in s["busiest_die_by_phase"]))
    # A scheme may carry its own `busiest_die_limit` (None: reported, no limit, as in a closed
    # loop that saturates the device on purpose) and extra `checks`: {name: (text, ok)}.
    extra = list(dict.fromkeys(c for s in schemes.values() for c in s.get("checks") or {}))
    limits = {s.get("busiest_die_limit", BUSIEST_DIE_LIMIT) for s in schemes.values()}
    limit_text = f"limit {BUSIEST_DIE_LIMIT:.0%}" if limits <= {BUSIEST_DIE_LIMIT} else "no limit: a closed loop saturates the device" if limits == {None} else "limits differ per scheme"
    table = Table(title=title, title_justify="left", caption=f"busiest die: utilisation of the busiest die ({limit_text})", caption_justify="left")
    for name in ("scheme", "unstable tenants", "outstanding at end"):
        table.add_column(name)
    for name in ("busiest die", *(f"busiest die\n{p}" for p in phases), *extra, "ok"):
        table.add_column(escape(name), justify="right", no_wrap=True)
    for scheme, s in schemes.items():
        unstable = [t for t, v in s["tenants"].items() if v["unstable"] is not False]
        outstanding = ", ".join(f"{t} {fmt_number(v['outstanding_at_end'])}" for t, v in s["tenants"].items())
        limit = s.get("busiest_die_limit", BUSIEST_DIE_LIMIT)
        dies = [_pct(s["busiest_die"], limit), *(_pct(s["busiest_die_by_phase"].get(p), limit) for p in phases)]
        checks_ = [_check_cell((s.get("checks") or {}).get(c)) for c in extra]
        ok = "[green]yes[/]" if s["ok"] else "[bold red]NO[/]"
        table.add_row(escape(scheme), f"[bold red]{escape(', '.join(unstable))}[/]" if unstable else "none", escape(outstanding), *dies, *checks_, ok)
    return table


def _check_cell(check: Sequence[Any] | None) -> str:
    from rich.markup import escape

    if check is None:
        return "-"
    text, ok = check
    return escape(str(text)) if ok else f"[bold red]{escape(str(text))}[/]"


def _pct(value: float | None, limit: float | None = BUSIEST_DIE_LIMIT) -> str:
    if value is None:
        return "n/a"
    text = f"{value:.1%}"
    return f"[bold red]{text}[/]" if limit is not None and value >= limit else text


def sensitivity_table(rows: Sequence[Mapping[str, Any]], title: str = "sensitivity") -> Table:
    """A compact rich table of `sensitivity_summary`: claim, paper, min, max, reversed in."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, title_justify="left", caption="min/max of ftlab's value over the cases; reversed in: cases where the verdict is `differs`", caption_justify="left")
    table.add_column("claim", overflow="fold")
    for name in ("paper", "min", "max"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("reversed in", overflow="fold")
    for r in rows:
        fmt = fmt_value if r["unit"] == VALUE else fmt_change
        paper = fmt(r["paper_value"]) if r["unit"] in (RELATIVE, VALUE) else str(r["paper_value"]).replace("-", MINUS)
        reversed_in = ", ".join(r["reversed_in"])
        table.add_row(escape(r["text"]), paper, fmt(r["min"]), fmt(r["max"]), f"[bold red]{escape(reversed_in)}[/]" if reversed_in else "none")
    return table


def print_claims(console: Console, claims: Sequence[Claim]) -> None:
    """Print the claims table, then each claim's `why` sentence."""
    console.print(claims_table(claims))
    for c in claims:
        console.print(f"[{VERDICT_STYLES[c.verdict]}]{c.verdict}[/]: {c.why}", highlight=False, soft_wrap=True)


@dataclass
class ReproductionResult:
    """What `ftlab.reproduce` returns: the claims with their verdicts, the health checks, the
    per-phase table, the files written, the run's Report and the sensitivity rows (None
    without `sensitivity=True`)."""

    name: str
    out: Path
    scenario: Path
    quick: bool
    claims: list[Claim]
    health: dict[str, Any]
    phases: list[dict[str, Any]]
    files: list[Path]
    wall_s: float
    report: Report | None = None
    sensitivity: list[dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def verdicts(self) -> dict[str, int]:
        """How many claims got each verdict."""
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def claim(self, id: str) -> Claim:  # noqa: A002
        """The claim with this id; an `ftlab.UsageError` naming the known ids otherwise."""
        for c in self.claims:
            if c.id == id:
                return c
        raise usage_error("id", f"no claim {id!r}; claims: {', '.join(c.id for c in self.claims)}")

    def __repr__(self) -> str:
        return f"<ftlab.ReproductionResult {self.name} out={self.out} verdicts={self.verdicts}>"
