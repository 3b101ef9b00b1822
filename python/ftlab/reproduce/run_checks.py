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

The record's `ok` is the base's and every check's.

A paper whose runs each hold several schemes declares `[reproduce] health = "schemes"`: one
record per scheme of every run (`HealthDecl.schemes_health`, `claims.health`'s), named by the
run's template in `[reproduce.health_names]` (run label -> a template of `{scheme}` and
`{run}`, the run label; default "{scheme}"), with the rules "true", "zero" and two of their
own: "gc_before_measure" (the scheme's first time-series window with GC copies or erases,
`gc_starts`, starts no later than the run's `measure.warmup_s`, so that the measured phase
runs under GC) and "busy" (the run busies its dies on purpose, a closed loop or FlashBlox's
swap migration: its busiest die reported without a limit, `claims.drop_die_limit`; listed in
no `checks`).

This module judges what the summary and time series say; it computes no claim and runs nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import TYPE_CHECKING

from ftlab import _toml
from ftlab._errors import input_error, usage_error
from ftlab._json import JsonObject
from ftlab.reproduce.claims import (
    BUSIEST_DIE_LIMIT,
    Health,
    HealthHead,
    RunHealth,
    drop_die_limit,
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
BASES = ("one_run", "array", "schemes")
RULES = ("steady", "true", "zero", "gc_before_measure", "busy")
#: The rules of the base "schemes" alone, and those it does not take.
SCHEMES_RULES, NOT_SCHEMES_RULES = ("gc_before_measure", "busy"), ("steady",)
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

    def judge(self, entry: RunHealth, scheme: Mapping[str, object], report: Report, name: str = "") -> bool:
        """Add this check to `entry` (a run's record; scheme `name`'s under the base "schemes")
        and say whether it passes."""
        checks = entry["checks"]
        if self.rule == "gc_before_measure":
            start, warm = gc_starts(report).get(name), warmup_s(report)
            ok = start is not None and start <= warm
            at = fmt_start(start)
            text = f"GC at {at} ≤ {warm:g} s" if ok else f"GC at {at}, measure from {warm:g} s"
            checks[self.name] = (text, ok)
        elif self.rule == "steady":
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
    #: Under the base "schemes": a run's records' names, a template of `{scheme}` and `{run}` by
    #: run label.
    names: Mapping[str, str] = field(default_factory=dict)

    def run(self, label: str, report: Report) -> RunHealth:
        """Run `label`'s health record (`ok` last)."""
        if self.base == "schemes":
            raise usage_error("health", 'health = "schemes" judges all runs at once (`schemes_health`)')
        if self.base == "array":
            return array_health(report.summary)
        scheme = next(iter(report.summary["schemes"].values()))
        entry, ok = one_run_health(scheme)
        for check in self.checks:
            if check.applies(label):
                ok = check.judge(entry, scheme, report) and ok
        entry["ok"] = ok
        return entry

    def schemes_health(self, reports: Mapping[str, Report]) -> Health:
        """Base "schemes": the health of the runs `reports` (by label, in order), one record
        per scheme of each, named by `names`; a "busy" run's without a die limit, then each
        other check of the run on its schemes' records (`checks` added when one applies)."""
        where = {
            self.names.get(label, "{scheme}").format(scheme=scheme, run=label): (label, scheme, report)
            for label, report in reports.items()
            for scheme in report.schemes
        }
        if len(where) < sum(len(r.schemes) for r in reports.values()):
            raise usage_error("health", "two schemes share a record name: declare reproduce.health_names")
        health = scheme_health({"schemes": {n: r.summary["schemes"][s] for n, (_, s, r) in where.items()}})
        for name, (label, scheme, report) in where.items():
            mine = [c for c in self.checks if c.applies(label)]
            if any(c.rule == "busy" for c in mine):
                drop_die_limit(health, name)
            mine = [c for c in mine if c.rule != "busy"]
            entry = health["schemes"][name]
            if mine:
                entry["checks"] = {}
            for check in mine:
                ok = check.judge(entry, report.summary["schemes"][scheme], report, scheme)
                entry["ok"] = entry["ok"] and ok
        health["ok"] = all(s["ok"] for s in health["schemes"].values())
        return health

    def head(self) -> HealthHead:
        """The health's keys between `ok` and `schemes`: the steady check's tolerance."""
        steady = [c.tolerance for c in self.checks if c.rule == "steady"]
        return {"steady_tolerance": steady[0]} if steady else {}


def fmt_start(start_s: float | None) -> str:
    """A start time as a sentence prints it: "never" (None) or "<seconds> s"."""
    return "never" if start_s is None else f"{start_s:g} s"


def warmup_s(report: Report) -> float:
    """The run's `measure.warmup_s` (0 if absent): where its measured phase starts."""
    return float(_toml.loads(report.resolved_toml).get("measure", {}).get("warmup_s", 0.0))


def gc_starts(report: Report) -> dict[str, float | None]:
    """Per scheme, the start of the first time-series window with GC copies or erases (None
    if GC never ran)."""
    import polars as pl

    frame = report.timeseries
    out: dict[str, float | None] = {}
    for scheme in report.schemes:
        rows = frame.filter(
            (pl.col("scheme") == scheme) & ((pl.col("gc_pages_copied") > 0) | (pl.col("erases") > 0))
        )
        out[scheme] = float(rows["window_start_s"].min()) if rows.height else None  # type: ignore[arg-type]
    return out


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


def array_health(summary: JsonObject) -> RunHealth:
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


def load_health(
    where: str, base: object, checks: object, labels: list[str], names: object = None
) -> HealthDecl:
    """`[reproduce] health`, `[[reproduce.checks]]` and `[reproduce.health_names]` of the
    claim file `where` names (run labels `labels`); a bad value is an `ftlab.InputError`
    naming the key."""
    base = "one_run" if base is None else base
    if base not in BASES:
        raise input_error(where, f"reproduce.health {base!r} is not one of {', '.join(BASES)}")
    found = tables(where, "reproduce.checks", checks, _check)
    decl = HealthDecl(str(base), found, _names(where, names, labels))
    if decl.names and decl.base != "schemes":
        raise input_error(where, 'reproduce.health_names goes with health = "schemes"')
    wrong = NOT_SCHEMES_RULES if decl.base == "schemes" else SCHEMES_RULES
    bad = sorted({c.rule for c in decl.checks if c.rule in wrong})
    if bad:
        raise input_error(where, f"reproduce.checks: rule {', '.join(bad)} does not go with health {base!r}")
    if decl.base == "array" and decl.checks:
        raise input_error(where, "reproduce.checks: an array run's health takes no run checks")
    if sum(c.rule == "steady" for c in decl.checks) > 1:
        raise input_error(where, "reproduce.checks: at most one steady check (the health's steady_tolerance)")
    for c in decl.checks:
        idle = [p for p in c.runs if not any(fnmatch(label, p) for label in labels)]
        if idle:
            raise input_error(where, f"reproduce.checks ({c.name}): runs {', '.join(idle)} match no run")
    return decl


def _names(where: str, raw: object, labels: list[str]) -> dict[str, str]:
    """`[reproduce.health_names]`: run label -> a template of `{scheme}` and `{run}` (the run
    label; `{run}` alone names a run of one scheme, two schemes under one name are refused
    when the health is judged)."""
    names = {} if raw is None else raw
    if not isinstance(names, Mapping) or not all(
        isinstance(t, str) and ("{scheme}" in t or "{run}" in t) for t in names.values()
    ):
        raise input_error(
            where, "reproduce.health_names must be a table of {scheme} or {run} templates by run label"
        )
    for label, template in names.items():
        try:
            template.format(scheme="s", run="r")
        except (KeyError, ValueError, IndexError) as e:
            bad = f"reproduce.health_names ({label}): not a template of {{scheme}}, {{run}}"
            raise input_error(where, bad) from e
    unknown = sorted(set(names) - set(labels))
    if unknown:
        raise input_error(where, f"reproduce.health_names: {', '.join(unknown)} is no run label")
    return {str(k): str(v) for k, v in names.items()}


def _check(where: str, i: int, raw: object) -> CheckDecl:
    f = Fields.of(where, f"reproduce.checks[{i}]", raw, CheckDecl)
    rule, path = f.text("rule"), f.text("path", "")
    if rule not in RULES:
        f.bad(f"rule {rule!r} is not one of {', '.join(RULES)}")
    if (rule in ("true", "zero")) != bool(path):
        f.bad("`path` goes with rule true or zero, and they with it")
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
