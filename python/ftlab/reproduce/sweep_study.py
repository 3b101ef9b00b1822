"""ftlab.reproduce.sweep_study: a sensitivity study of one scenario run as a Ray sweep
(`ftlab.sweep`), and its tables as Markdown.

A paper whose reproduction is one scenario (all its systems in one run) can hand its cases
(`StudyCase`: a sweep case's `name` and `set`, and its place in the study's tables: the swept
`parameter`, this `value` as a label, numeric `x`, the parameter's `base` label and `base_x`)
and a `Judge` (a case's Report -> its claims and health) to `run_study`. The sweep is
resumable (a run's directory is named by the hash of its resolved scenario; finished runs are
reused), `only` runs a subset of the cases, and `finished_cases` names those whose runs are
done. It writes sensitivity.json (every claim's row, every case's place, overrides, run key,
unstable tenants, unhealthy runs and claim values, the cases not run), sensitivity.csv (a row
per claim, a `value: CASE` column per case run) and sensitivity.md (`sensitivity_markdown`,
from sensitivity.json alone: each claim over every case, then a table per swept parameter).

Nothing here names a paper: the cases, the judge and the claim file (by the study's
`reproduction` name) are the paper's; the driver hands them over for a plan that declares
knobs (`ftlab.reproduce.driver.knob_study`: the cases from `ftlab.reproduce.cases`, the judge
the paper's reading of its one run). It is not the driver's loop over a paper's runs
(`ftlab.reproduce.driver.run_cases`, which reruns a paper's several runs per case), and it
prints nothing.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeGuard

from ftlab import _core, sweeps
from ftlab._errors import input_error
from ftlab.report import write_files_atomically
from ftlab.reproduce import Progress, claimfile
from ftlab.reproduce.claimfile import Spec
from ftlab.reproduce.claims import (
    BOUND,
    DIFFERS,
    FACTOR,
    HOLDS,
    INVALID,
    ORDER,
    REPRODUCED,
    SAME_DIRECTION,
    SENSITIVITY_FILE,
    VIOLATED,
    WITHIN_NOISE,
    Claim,
    FtlabValue,
    Health,
    SensitivityRow,
    fmt_change,
    fmt_value,
    sensitivity_summary,
    write_sensitivity,
)
from ftlab.sweeps import resolve_all
from ftlab.sweeps.exec import is_done
from ftlab.sweeps.spec import PlanEntry, load_spec

if TYPE_CHECKING:
    from ftlab.report import Report

SENSITIVITY_MD = "sensitivity.md"
#: The sweep directory of the study, under the reproduction's output directory.
SENSITIVITY_DIR = "sensitivity"
#: The `parameter` of the base case (it belongs to no swept parameter's table).
BASE = "base"
#: A table of a parsed sensitivity.json (untyped JSON, read as `json.loads` gives it: the
#: study's head, a case, a claim's row; the hand-made ones of the tests included).
JsonTable = Mapping[str, Any]
#: The keys of a case that place it in the study's tables.
CASE_META = ("parameter", "value", "x", "base", "base_x")


class StudyCase(TypedDict):
    """One case: its sweep `name` and overrides (`set`, dotted key -> TOML value), the swept
    `parameter` it varies with this `value` (a label, numeric `x` or None), and the
    parameter's base value (`base` label, `base_x`); the tables order a parameter's values by
    x, the base among them (first when either has no x)."""

    name: str
    set: dict[str, object]
    parameter: str
    value: str
    x: float | None
    base: str
    base_x: float | None


def study_case(
    name: str,
    parameter: str,
    value: str,
    sets: Mapping[str, object],
    x: float | None,
    base: str,
    base_x: float | None,
) -> StudyCase:
    """A `StudyCase` from its fields in order."""
    return {
        "name": name,
        "set": dict(sets),
        "parameter": parameter,
        "value": value,
        "x": x,
        "base": base,
        "base_x": base_x,
    }


#: A case's Report -> the claims judged on it and its health (`claims.Health`).
Judge = Callable[["Report"], tuple[Sequence[Claim], Health]]


def run_study(
    name: str,
    scenario: Path,
    every: Sequence[StudyCase],
    judge: Judge,
    out: Path,
    quick: bool,
    progress: Progress | None,
    only: Sequence[str] | None = None,
) -> list[SensitivityRow]:
    """Run reproduction `name`'s cases `every` of `scenario` as a sweep into out/sensitivity
    (resumable: finished runs are kept and reused), judge each case's run (`judge`) and write
    sensitivity.json, sensitivity.csv and sensitivity.md; returns the per-claim rows
    (`sensitivity_summary`). `only` runs just the cases of those names (a subset, for a
    machine too slow for all of them; `finished_cases` names those already run);
    sensitivity.json lists the others under `cases_not_run` and sensitivity.md shows them as
    not run. An unknown name is an `ftlab.InputError` naming the known ones."""
    start = time.perf_counter()
    cases = _chosen_cases(every, only)
    spec = sweep_spec(name, scenario, cases)
    on_progress: Callable[[int, int], None] | None = (
        (lambda d, t: progress("sensitivity runs", d, t)) if progress else None
    )
    result = sweeps.sweep(spec, out=out / SENSITIVITY_DIR, progress=on_progress)
    by_case: dict[str, Sequence[Claim]] = {}
    details: list[dict[str, object]] = []
    for run in result.runs:
        name_ = run["case"]
        assert name_ is not None, "every run of a study is one of its cases"
        case = _case(cases, name_)
        failed = next((f for f in result.failures if f["case"] == name_), None)
        if run["run"] is None or failed is not None:
            error = failed["error"] if failed else "did not resolve"
            details.append({**_meta(case), "case": name_, "set": _set(case), "error": error})
            continue
        report = result.report(run["run"])
        claims, checks = judge(report)
        by_case[name_] = claims
        details.append(_case_detail(run, case, claims, report, checks))
    rows = sensitivity_summary(by_case)
    not_run = [c for c in every if c not in cases]
    doc = {
        "reproduction": name,
        "scenario": str(scenario),
        "quick": quick,
        "ftlab_version": _core.version(),
        "wall_s": round(time.perf_counter() - start, 3),
        "sweep_dir": str(out / SENSITIVITY_DIR),
        "claims": rows,
        "cases": details,
        "cases_not_run": [c["name"] for c in not_run],
        "plan_not_run": [{"case": c["name"], **_meta(c)} for c in not_run],
    }
    _write(out, doc, rows, [str(d["case"]) for d in details])
    return rows


def finished_cases(name: str, scenario: Path, every: Sequence[StudyCase], out: Path) -> list[str]:
    """The names of the cases `every` of `scenario` whose runs are finished in
    out/sensitivity: those whose run key (the hash of the case's resolved scenario, as the
    sweep computes it) has a complete run directory. Stale runs (of another scenario or
    engine's defaults) do not count. For `run_study(..., only=...)` after a sweep that was
    stopped: it then reports those cases and runs none."""
    spec = load_spec(sweep_spec(name, scenario, every))
    points, _, _ = resolve_all(spec, spec.points())
    runs = out / SENSITIVITY_DIR / "runs"
    return [p.case for p in points if p.key and p.case and is_done(runs, p.key)]


def sweep_spec(name: str, scenario: Path, cases: Sequence[StudyCase]) -> dict[str, object]:
    """The sweep (`ftlab.sweep`'s dict form) of these cases: each case's name and overrides."""
    return {
        "name": f"{name} sensitivity",
        "scenario": str(scenario.resolve()),
        "cases": [{"name": c["name"], "set": c["set"]} for c in cases],
    }


def _chosen_cases(every: Sequence[StudyCase], only: Sequence[str] | None) -> list[StudyCase]:
    if only is None:
        return list(every)
    names = [c["name"] for c in every]
    unknown = [n for n in only if n not in names]
    if unknown:
        raise input_error(
            "sensitivity cases", f"unknown case(s) {unknown}; the cases are: {', '.join(names)}"
        )
    return [c for c in every if c["name"] in only]


def _case(cases: Sequence[StudyCase], name: str) -> StudyCase | None:
    return next((c for c in cases if c["name"] == name), None)


def _set(case: StudyCase | None) -> dict[str, object]:
    return dict(case["set"]) if case else {}


def _meta(case: StudyCase | None) -> dict[str, object]:
    return {k: case.get(k) if case else None for k in CASE_META}


def _case_detail(
    run: PlanEntry, case: StudyCase | None, claims: Sequence[Claim], report: Report, checks: Health
) -> dict[str, object]:
    """A case run: its place, overrides and run key, the health of each scheme (`unhealthy`:
    scheme -> its health reasons, for the schemes whose checks fail), the unstable tenants,
    and each claim's value and verdict (`invalid` where a run it rests on is unhealthy)."""
    unstable = sorted(
        {
            f"{s}/{t}"
            for s, d in report.summary["schemes"].items()
            for t, v in d["tenants"].items()
            if v.get("unstable") is not False
        }
    )
    return {
        **_meta(case),
        "case": run["case"],
        "set": _set(case),
        "run": run["run"],
        "unstable": unstable,
        "unhealthy": {s: list(h.get("reasons", [])) for s, h in checks["schemes"].items() if not h["ok"]},
        "claims": {c.id: {"value": c.ftlab_value, "verdict": c.verdict} for c in claims},
    }


def _write(out: Path, doc: Mapping[str, object], rows: list[SensitivityRow], run: Sequence[str]) -> None:
    """sensitivity.json (`doc`), sensitivity.csv (one row per claim: its min, max and
    reversals, then ftlab's value in every case run, one column per case, `value: CASE`) and
    sensitivity.md (`sensitivity_markdown`)."""
    table = [{**row, **{f"value: {c}": _csv_value(row["values"].get(c)) for c in run}} for row in rows]
    write_sensitivity(out, doc, table, [f"value: {c}" for c in run])
    write_sensitivity_markdown(out)


def _csv_value(value: object) -> object:
    """A claim's value as a CSV cell: booleans (the qualitative claims) as 1/0."""
    return int(value) if isinstance(value, bool) else value


# --------------------------------------------------------------------------------------
# The study as Markdown (sensitivity.md), from sensitivity.json alone

#: The verdicts that take the paper's side (its value, its direction, its order or bound).
AGREES = (REPRODUCED, SAME_DIRECTION, HOLDS, WITHIN_NOISE)


def write_sensitivity_markdown(out: Path) -> Path:
    """Write out/sensitivity.md (`sensitivity_markdown` of out/sensitivity.json); returns its
    path. It reads only sensitivity.json, so the tables can be redrawn without running."""
    doc = json.loads((out / SENSITIVITY_FILE).read_text(encoding="utf-8"))
    text = sensitivity_markdown(doc)
    write_files_atomically(out, {SENSITIVITY_MD: lambda p: Path(p).write_text(text, encoding="utf-8")})
    return out / SENSITIVITY_MD


def sensitivity_markdown(doc: JsonTable, level: int = 3) -> str:
    """The sensitivity study (a parsed sensitivity.json: untyped JSON) as Markdown: each measured claim over
    every case (`_overview`), then one table per swept parameter (`_parameter_table`): its
    values in order, the base among them, each claim's value and verdict in each, and each
    value's health. Cells: **bold** where the verdict is `differs` or `violated`, *italic*
    where it is `invalid` (a run it rests on is unhealthy, so the value proves nothing).
    `level` is the tables' heading level (3: `###`)."""
    name = str(doc["reproduction"])
    specs = {s.id: s for s in claimfile.load(name).claims if not s.not_measured}
    rows = [r for r in doc["claims"] if r["claim"] in specs]
    cases = list(doc.get("cases") or [])
    planned = cases + [{**c, "not_run": True} for c in doc.get("plan_not_run") or []]
    base = next((c for c in cases if c.get("case") == "base"), None)
    n_run = sum(1 for c in cases if "claims" in c)
    head = [
        "Sensitivity study of `ftlab reproduce "
        f"{name}{' --quick' if doc.get('quick') else ''}` (ftlab {doc.get('ftlab_version')}):",
        f"{n_run} of {len(planned)} cases run, {len(planned) - len(cases)} not run"
        + (f", {len(cases) - n_run} failed" if len(cases) > n_run else "")
        + ". Values are ftlab's relative change (the claim's ratio − 1, or its margin); "
        "**bold**: `differs` or"
        " `violated`; *italic*: `invalid` (a run the claim rests on is unhealthy: the value proves nothing).",
        "",
    ]
    parts = ["\n".join(head), _overview(rows, specs, cases, level)]
    groups: dict[str, list[JsonTable]] = {}
    for c in planned:
        if c.get("parameter") and c.get("parameter") != BASE:
            groups.setdefault(str(c["parameter"]), []).append(c)
    parts += [_parameter_table(p, entries, base, rows, specs, level) for p, entries in groups.items()]
    return "\n".join(parts)


def _overview(
    rows: Sequence[JsonTable],
    specs: Mapping[str, Spec],
    cases: Sequence[JsonTable],
    level: int,
) -> str:
    """Per claim: the paper, the base case, how many cases run take the paper's side, differ,
    or are invalid, and ftlab's range over the valid ones (with the cases at its ends)."""
    lines = [
        f"{'#' * level} Each claim over every case run",
        "",
        "| claim | paper | base | paper's side | differs | invalid | valid range (case) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        spec, verdicts = (
            specs[r["claim"]],
            [c["claims"][r["claim"]] for c in cases if r["claim"] in (c.get("claims") or {})],
        )
        base = next((c for c in cases if c.get("case") == "base"), None)
        valid = [
            (float(v["value"]), c["case"])
            for c in cases
            for v in [(c.get("claims") or {}).get(r["claim"])]
            if v and v["verdict"] != INVALID and _finite_number(v["value"])
        ]
        span = "n/a"
        if valid:
            lo, hi = min(valid), max(valid)
            span = f"{_fmt_claim(lo[0], spec.kind)} ({lo[1]})" + (
                f" to {_fmt_claim(hi[0], spec.kind)} ({hi[1]})" if hi != lo else ""
            )
        counts = [
            sum(1 for v in verdicts if v["verdict"] in group)
            for group in (AGREES, (DIFFERS, VIOLATED), (INVALID,))
        ]
        lines.append(
            f"| `{r['claim']}` | {spec.paper_text} | {_cell(base, r['claim'], spec.kind)} | "
            f"{counts[0]} | {counts[1]} | {counts[2]} | {span} |"
        )
    return "\n".join([*lines, ""])


def _parameter_table(
    parameter: str,
    entries: Sequence[JsonTable],
    base: JsonTable | None,
    rows: Sequence[JsonTable],
    specs: Mapping[str, Spec],
    level: int,
) -> str:
    """One swept parameter: a column per value (ordered by `x`, the base among them, marked),
    a row per claim (value and verdict), then the health row and each unhealthy scheme's
    reasons."""
    first = entries[0]
    columns: list[tuple[str, JsonTable | None, float | None]] = [
        (f"**{first.get('base')} (base)**", base, first.get("base_x"))
    ]
    columns += [(str(e.get("value")), e, e.get("x")) for e in entries]
    if all(_finite_number(x) for _, _, x in columns):
        columns.sort(key=lambda col: float(col[2]))  # type: ignore[arg-type]
    lines = [
        f"{'#' * level} {parameter}",
        "",
        "| claim | paper | " + " | ".join(label for label, _, _ in columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for r in rows:
        spec = specs[r["claim"]]
        lines.append(
            f"| `{r['claim']}` | {spec.paper_text} | "
            + " | ".join(_cell(case, r["claim"], spec.kind) for _, case, _ in columns)
            + " |"
        )
    lines.append("| health | | " + " | ".join(_health_cell(case) for _, case, _ in columns) + " |")
    notes = [
        f"- {label.strip('*')}: {scheme}: {'; '.join(reasons)}"
        for label, case, _ in columns
        for scheme, reasons in ((case or {}).get("unhealthy") or {}).items()
    ]
    return "\n".join([*lines, "", *notes, *([""] if notes else [])])


def _cell(case: JsonTable | None, claim: str, kind: str) -> str:
    if case is None or case.get("not_run"):
        return "not run"
    if "error" in case:
        return "run failed"
    entry = (case.get("claims") or {}).get(claim)
    if entry is None:
        return "n/a"
    text = f"{_fmt_claim(entry['value'], kind)} {entry['verdict']}"
    if entry["verdict"] in (DIFFERS, VIOLATED):
        return f"**{text}**"
    return f"*{text}*" if entry["verdict"] == INVALID else text


def _health_cell(case: JsonTable | None) -> str:
    if case is None or case.get("not_run") or "error" in case:
        return ""
    bad = sorted((case.get("unhealthy") or {}).keys())
    return f"*unhealthy: {', '.join(bad)}*" if bad else "ok"


def _fmt_claim(value: FtlabValue, kind: str) -> str:
    """A claim's value as the tables show it: a ratio (factor, bound) as its relative change,
    a margin (order) as it is, a boolean as true/false."""
    if isinstance(value, bool) or not _finite_number(value):
        return fmt_value(value)
    return (
        fmt_change(float(value) - 1.0)
        if kind in (FACTOR, BOUND)
        else fmt_change(float(value))
        if kind == ORDER
        else fmt_value(value)
    )


def _finite_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
