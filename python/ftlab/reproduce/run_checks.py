"""ftlab.reproduce.run_checks: a run's health as its claim file declares it (DESIGN §12: a
run's health gates a claim only through what the claim reads, `claims.gate_reasons`).

A paper whose runs each stand alone (`ftlab.reproduce.per_run`) judges every run by one base
record and its declared run checks:

- `[reproduce] health`: the base record. "one_run" (default): a run that busies its dies on
  purpose (a closed loop, a cache filling its device): its tenants' checks (unstable,
  starved) and the busiest die reported without a limit (`claims.one_run_health`). "array":
  a host layer over several devices: each device's `claims.health` merged, tenants as
  "dev<i>:<tenant>", the array's busiest die under `claims.BUSIEST_DIE_LIMIT`, no run checks;
- `[[reproduce.checks]]`: the run checks added to `checks` ({name: (text, ok)}), in order,
  each on the runs its `runs` patterns match (every run if empty), by `rule`:
  "steady" (the mean of time-series column `column`, default write_iops, in the second half
  of the measured phase within `tolerance` of the first half's; the change is the record's
  `steady_change`, and the tolerance the health's `steady_tolerance`), "true" (the value at
  `path` in the run's scheme is true; always listed) or "zero" (the value at `path` is 0 where
  the summary reports it; listed only when not). `reason`, when a check fails, is added to the
  record's reasons: a template whose "{a.b}" are the scheme's values at those paths.

The record's `ok` is the base's and every check's. This module judges what the summary and
time series say; it computes no claim and runs nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import TYPE_CHECKING, Any

from ftlab._errors import input_error
from ftlab.reproduce.claims import (
    BUSIEST_DIE_LIMIT,
    HealthHead,
    RunHealth,
    fmt_change,
    one_run_health,
    relative_change,
)
from ftlab.reproduce.claims import health as scheme_health
from ftlab.reproduce.decl import Fields, tables
from ftlab.reproduce.rows import walk_one

if TYPE_CHECKING:
    from ftlab.report import Report

#: The base records and the check rules (see the module docstring).
BASES = ("one_run", "array")
RULES = ("steady", "true", "zero")
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)\}")


@dataclass(frozen=True)
class CheckDecl:
    """One `[[reproduce.checks]]` table (see the module docstring)."""

    name: str
    rule: str
    path: str = ""
    column: str = "write_iops"
    tolerance: float = 0.0
    runs: tuple[str, ...] = ()
    reason: str = ""

    def applies(self, label: str) -> bool:
        return not self.runs or any(fnmatch(label, p) for p in self.runs)

    def judge(self, entry: RunHealth, scheme: Mapping[str, object], report: Report) -> bool:
        """Add this check to `entry` (a run's record) and say whether it passes."""
        checks = entry["checks"]
        if self.rule == "steady":
            change = steady_change(report, self.column)
            ok = not math.isnan(change) and abs(change) <= self.tolerance
            entry["steady_change"] = None if math.isnan(change) else change
            checks[self.name] = (f"{fmt_change(change)} (2nd half vs 1st)", ok)
        else:
            value = walk_one(scheme, self.path)
            if self.rule == "true":
                ok = value is True
                checks[self.name] = (str(ok), ok)
            else:
                ok = value is None or value == 0
                if not ok:
                    checks[self.name] = (f"{value:.0f}", False)
        if not ok and self.reason:
            entry["reasons"].append(
                _PLACEHOLDER.sub(lambda m: str(walk_one(scheme, m.group(1))), self.reason)
            )
        return ok


@dataclass(frozen=True)
class HealthDecl:
    """A paper's declared run health: its base record and its run checks."""

    base: str = "one_run"
    checks: tuple[CheckDecl, ...] = ()

    def run(self, label: str, report: Report) -> RunHealth:
        """Run `label`'s health record (`ok` last)."""
        if self.base == "array":
            return array_health(report.summary)
        scheme = next(iter(report.summary["schemes"].values()))
        entry, ok = one_run_health(scheme)
        for check in self.checks:
            if check.applies(label):
                ok = check.judge(entry, scheme, report) and ok
        entry["ok"] = ok
        return entry

    def head(self) -> HealthHead:
        """The health's keys between `ok` and `schemes`: the steady check's tolerance."""
        steady = [c.tolerance for c in self.checks if c.rule == "steady"]
        return {"steady_tolerance": steady[0]} if steady else {}


def steady_change(report: Report, column: str = "write_iops") -> float:
    """The mean of time-series `column` over the windows in the second half of the measured
    phase relative to the first half's (NaN without a time series or the column). Windows cut
    by the end of the run are left out."""
    import polars as pl

    ts = report.timeseries
    if ts is None or column not in ts.columns:
        return math.nan
    scheme = next(iter(report.summary["schemes"].values()))
    device = scheme["device"]
    end_s = device["sim_time_ns"] / 1e9
    start_s = end_s - float(device["measured_s"])
    step = ts["window_start_s"].sort().diff().drop_nulls().min() if ts.height > 1 else None
    assert step is None or isinstance(step, (int, float)), "window_start_s is a Float64 column"
    window_s = float(step or 0.0)
    mid = (start_s + end_s) / 2
    rows = ts.filter((pl.col("window_start_s") >= start_s) & (pl.col("window_start_s") + window_s <= end_s))

    def mean(lo: float, hi: float) -> float | None:
        part = rows.filter((pl.col("window_start_s") >= lo) & (pl.col("window_start_s") < hi))[column]
        return float(part.mean()) if part.len() else None  # type: ignore[arg-type]

    return relative_change(mean(mid, end_s), mean(start_s, mid))


def array_health(summary: Mapping[str, Any]) -> RunHealth:
    """An array run's health: each device's (`claims.health` of its scheme entries
    `<scheme>/dev<i>`: its tenants, the device requests the host layer sent it; its busiest
    die), merged in `claims.health`'s per-scheme shape: tenants as "dev<i>:<tenant>", the
    busiest die of the array, `ok` when every device passes both, `reasons` prefixed by the
    device. No run checks."""
    per = scheme_health(summary)["schemes"]
    dies = [d for h in per.values() if isinstance(d := h.get("busiest_die"), (int, float))]
    return {
        "tenants": {f"{dev}:{t}": v for dev, h in per.items() for t, v in (h.get("tenants") or {}).items()},
        "busiest_die": max(dies) if len(dies) == len(per) and dies else None,
        "busiest_die_by_phase": {},
        "busiest_die_limit": BUSIEST_DIE_LIMIT,
        "checks": {},
        "reasons": [f"{dev}: {r}" for dev, h in per.items() for r in h.get("reasons") or []],
        "ok": bool(per) and all(h.get("ok", False) for h in per.values()),
    }


def load_health(where: str, base: object, checks: object, labels: list[str]) -> HealthDecl:
    """`[reproduce] health` and `[[reproduce.checks]]` of the claim file `where` names (run
    labels `labels`); a bad value is an `ftlab.InputError` naming the key."""
    base = "one_run" if base is None else base
    if base not in BASES:
        raise input_error(where, f"reproduce.health {base!r} is not one of {', '.join(BASES)}")
    decl = HealthDecl(str(base), tables(where, "reproduce.checks", checks, _check))
    if decl.base == "array" and decl.checks:
        raise input_error(where, "reproduce.checks: an array run's health takes no run checks")
    if sum(c.rule == "steady" for c in decl.checks) > 1:
        raise input_error(where, "reproduce.checks: at most one steady check (the health's steady_tolerance)")
    for c in decl.checks:
        idle = [p for p in c.runs if not any(fnmatch(label, p) for label in labels)]
        if idle:
            raise input_error(where, f"reproduce.checks ({c.name}): runs {', '.join(idle)} match no run")
    return decl


def _check(where: str, i: int, raw: object) -> CheckDecl:
    f = Fields.of(where, f"reproduce.checks[{i}]", raw, CheckDecl)
    rule, path = f.text("rule"), f.text("path", "")
    if rule not in RULES:
        f.bad(f"rule {rule!r} is not one of {', '.join(RULES)}")
    if (rule == "steady") == bool(path):
        f.bad("`path` is required, except with rule steady")
    tolerance = f.number("tolerance")
    if (rule == "steady") != (tolerance is not None) or (tolerance is not None and tolerance <= 0):
        f.bad("`tolerance`, a positive number, goes with rule steady, and it with it")
    return CheckDecl(
        f.text("name"),
        rule,
        path,
        f.text("column", "write_iops", nonempty=True),
        tolerance or 0.0,
        f.texts("runs"),
        f.text("reason", ""),
    )
