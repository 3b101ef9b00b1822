"""Tests of a claim file's declared health for runs that each hold several schemes
(python/ftlab/reproduce/run_checks.py, `[reproduce] health = "schemes"`): one record per
scheme named by its run's template, the "gc_before_measure" and "busy" rules on hand-made
runs, and the files' errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import polars as pl
import pytest

import ftlab
from ftlab.reproduce import run_checks

if TYPE_CHECKING:
    from ftlab.report import Report


@dataclass
class FakeRun:
    """What the health reads of a Report: its schemes, summary, time series and scenario."""

    schemes: list[str]
    summary: dict[str, object]
    timeseries: pl.DataFrame
    resolved_toml: str = "[measure]\nwarmup_s = 2.0\n"


def scheme(die: float, starved: bool = False) -> dict[str, object]:
    tenant = {"starved": starved, "unstable": False, "max_wait_s": 0.1, "starvation_wait_s": 1.0}
    return {"tenants": {"t": tenant}, "device": {"die_utilisation": [die], "die_utilisation_max": die}}


def run(schemes: dict[str, dict[str, object]], gc: dict[str, float]) -> Report:
    """A run whose scheme s first copies in the window at gc[s] (never without one)."""
    rows = [
        {"scheme": s, "window_start_s": w, "gc_pages_copied": int(w >= gc.get(s, 99.0)), "erases": 0}
        for s in schemes
        for w in (0.0, 1.0, 2.0, 3.0)
    ]
    return cast("Report", FakeRun(list(schemes), {"schemes": schemes}, pl.DataFrame(rows)))


def decl(**given: object) -> run_checks.HealthDecl:
    checks = [
        {"name": "gc before measure", "rule": "gc_before_measure", "runs": ["a"]},
        {"name": "closed loop", "rule": "busy", "runs": ["b"]},
    ]
    return run_checks.load_health(
        "x.toml", given.get("base", "schemes"), given.get("checks", checks), ["a", "b"], given.get("names")
    )


def test_one_record_per_scheme_with_gc_and_busy_checks() -> None:
    """x's GC starts at 1 s, before the measured phase (2 s): passes; y's at 3 s: fails; z
    never collects: fails. Run b's busiest die, 95%, is over the 85% limit but reported
    without one; its scheme's starved tenant still fails it."""
    a = run({"x": scheme(0.5), "y": scheme(0.5), "z": scheme(0.5)}, {"x": 1.0, "y": 3.0})
    b = run({"x": scheme(0.95, starved=True)}, {"x": 0.0})
    h = decl(names={"b": "b {scheme}"}).schemes_health({"a": a, "b": b})
    s = h["schemes"]
    assert list(s) == ["x", "y", "z", "b x"]
    assert s["x"]["checks"] == {"gc before measure": ("GC at 1 s ≤ 2 s", True)} and s["x"]["ok"]
    assert s["y"]["checks"] == {"gc before measure": ("GC at 3 s, measure from 2 s", False)}
    assert s["z"]["checks"]["gc before measure"] == ("GC at never, measure from 2 s", False)
    assert not s["y"]["ok"] and not s["z"]["ok"]
    assert "checks" not in s["b x"] and s["b x"]["busiest_die_limit"] is None
    assert s["b x"]["reasons"] == ["t starved: a request waited 0.1 s > 1 s"] and not s["b x"]["ok"]
    assert h["ok"] is False
    healthy = run({"x": scheme(0.95)}, {"x": 0.0})
    again = decl(names={"b": "b {scheme}"}).schemes_health(
        {"a": run({"x": scheme(0.5)}, {"x": 1.0}), "b": healthy}
    )
    assert again["ok"] is True


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"base": "one_run"}, "rule busy, gc_before_measure does not go with health 'one_run'"),
        ({"checks": [{"name": "s", "rule": "steady", "tolerance": 0.1}]}, "rule steady does not go"),
        ({"base": "one_run", "checks": [], "names": {"a": "a {scheme}"}}, "health_names goes with"),
        ({"names": {"c": "c {scheme}"}}, "health_names: c is no run label"),
        ({"names": {"a": "a"}}, "health_names must be a table of {scheme} or {run} templates"),
        ({"names": {"a": "{run} {x}"}}, "not a template of {scheme}, {run}"),
        ({"checks": [{"name": "g", "rule": "busy", "path": "x"}]}, "`path` goes with rule true or zero"),
    ],
)
def test_a_bad_schemes_health_is_the_files_error(given: dict[str, object], error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error.replace("{", r"\{").replace("}", r"\}")):
        decl(**given)


def test_a_run_of_one_scheme_is_named_by_its_label() -> None:
    """`{run}` names a run's record by its label (a run of one scheme, as FlashBlox's three
    runs of scheme flashblox); a "busy" run's die limit is dropped under that name."""
    a, b = run({"x": scheme(0.95)}, {"x": 1.0}), run({"x": scheme(0.95)}, {"x": 1.0})
    h = decl(names={"a": "{run}", "b": "{run}"}).schemes_health({"a": a, "b": b})
    assert list(h["schemes"]) == ["a", "b"]
    assert h["schemes"]["a"]["reasons"] == ["busiest die 95% ≥ 85%"]
    assert h["schemes"]["b"]["busiest_die_limit"] is None and h["schemes"]["b"]["reasons"] == []
    two = run({"x": scheme(0.5), "y": scheme(0.5)}, {"x": 1.0, "y": 1.0})
    with pytest.raises(ftlab.UsageError, match="share a record name"):
        decl(names={"a": "{run}"}).schemes_health({"a": two, "b": b})


def test_two_runs_schemes_under_one_name_is_a_usage_error() -> None:
    """Without health_names, run a's and run b's scheme x would be one record: not silently."""
    a, b = run({"x": scheme(0.5)}, {"x": 1.0}), run({"x": scheme(0.5)}, {"x": 1.0})
    with pytest.raises(ftlab.UsageError, match="share a record name"):
        decl().schemes_health({"a": a, "b": b})
    with pytest.raises(ftlab.UsageError, match="judges all runs at once"):
        decl().run("a", a)
