"""The one schema of the results the core hands to Python as JSON text (schema/results.schema.json):
python/ftlab/results.py is generated from it and must be fresh, what the core writes (summary.json
of small runs, `ftlab rt`, `ftlab lifetime`, `ftlab capture`, `ftlab schemes`) must match it
exactly (no unknown key, no missing one, the types it names), and the checker itself must catch
each kind of difference."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ftlab import _core, api
from ftlab.report import Report
from ftlab.reproduce.part_ftl import TABLE3_TASKS
from reports import default_scenario

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import gen_results  # noqa: E402

SCHEMA = gen_results.load_schema()


def _errors(value: Any, result: str) -> list[str]:
    name = SCHEMA["results"][result]["$ref"].rsplit("/", 1)[1]
    return gen_results.check(value, SCHEMA, name)


def test_generated_module_is_fresh() -> None:
    committed = (REPO / "python" / "ftlab" / "results.py").read_text(encoding="utf-8")
    assert committed == gen_results.render(SCHEMA), "run scripts/gen_results.py"


@pytest.fixture(scope="module")
def small_run() -> Report:
    """The default scenario, small and short, with solo runs and two phases (the summary's
    optional parts)."""
    scenario = default_scenario(duration_s=0.4, warmup_s=0.1)
    scenario["measure"]["phases"] = [
        {"name": "early", "start_s": 0.1, "end_s": 0.25},
        {"name": "late", "start_s": 0.25},
    ]
    return api.run(scenario, solo=True)


def test_summary_of_a_small_run_matches(small_run: Report) -> None:
    summary = json.loads(small_run.summary_json)
    scheme = next(iter(summary["schemes"].values()))
    assert "phases" in scheme and "solo" in next(iter(scheme["tenants"].values()))
    assert _errors(summary, "summary") == []


def test_timeseries_columns_are_the_cores(small_run: Report) -> None:
    # The fixed columns in order, a scheme's extra columns (partitioned has none) between the
    # metrics and backlog.
    base = _core.TIMESERIES_COLUMNS
    assert base[:3] == ["scheme", "tenant", "window_start_s"] and base[-1] == "backlog"
    columns = small_run.timeseries.columns
    assert columns[: len(base) - 1] == base[:-1] and columns[-1] == "backlog"
    assert set(_core.TIMESERIES_DEVICE_COLUMNS) < set(base)


@pytest.mark.parametrize("name", ["fdp", "rtgc"])
def test_summary_of_a_bundled_scenario_matches(name: str) -> None:
    # fdp: a stream mapper's report; rtgc: periodic tasks (deadlines).
    path = REPO / "scenarios" / f"{name}.toml"
    short = ["measure.duration_s=1.0", "measure.warmup_s=0.0", "measure.phases=[]"]
    text = _core.run(source_path=path, overrides=short, jobs=1)["summary_json"]
    summary = json.loads(text)
    schemes = summary["schemes"].values()
    if name == "fdp":
        assert any("mapper_report" in s for s in schemes)
    else:
        assert any("deadlines" in t for s in schemes for t in s["tenants"].values())
    assert _errors(summary, "summary") == []


def test_rt_results_match() -> None:
    assert _errors(json.loads(_core.rt_bounds()), "rt_bounds") == []
    for scheme in ("part-ftl", "rtgc", "wao-gc"):
        assert _errors(json.loads(_core.rt_admit(TABLE3_TASKS, "Table III", scheme)), "rt_admit") == []
    assert _errors(json.loads(_core.rt_schedulability(2, 1, 0.5)), "rt_schedulability") == []


def test_lifetime_matches() -> None:
    report = api.run(REPO / "scenarios" / "flashblox.toml", set=["measure.duration_s=0.5"], jobs=1)
    model = json.loads(_core.lifetime(report.summary_json, report.resolved_toml, "flashblox", 1e9))
    assert _errors(model, "lifetime") == []


def test_capture_matches(tmp_path: Path) -> None:
    data = REPO / "data" / "rocksdb"
    shipped = json.loads((data / "trace.json").read_text(encoding="utf-8"))
    logs = []
    for name in ("strace.log", "LOG"):
        logs.append(tmp_path / name)
        logs[-1].write_bytes(gzip.decompress((data / f"{name}.gz").read_bytes()))
    device_bytes = shipped["capture"]["device_bytes"]
    text = _core.capture(logs[0], logs[1], tmp_path / "t.csv", shipped["root"], device_bytes)
    assert _errors(json.loads(text), "capture") == []


def test_policies_match() -> None:
    assert _errors(json.loads(_core.policies()), "policies") == []


GOOD = {"mean_us": 1.5, "p99_us": 2.0, "count": 3}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (GOOD, []),
        ({**GOOD, "extra": 1}, ["SoloOpSummary: unknown key 'extra'"]),
        ({"mean_us": 1.5, "p99_us": 2.0}, ["SoloOpSummary: missing key 'count'"]),
        ({**GOOD, "count": 3.0}, ["SoloOpSummary.count: expected integer, got 3.0"]),
        ({**GOOD, "count": True}, ["SoloOpSummary.count: expected integer, got true"]),
        ({**GOOD, "mean_us": 1}, ["SoloOpSummary.mean_us: expected number, got 1"]),
        ({**GOOD, "mean_us": None}, ["SoloOpSummary.mean_us: expected number, got null"]),
        ([GOOD], ['SoloOpSummary: expected object, got [{"mean_us": 1.5, "p99_us": 2.0, "count": 3}]']),
    ],
)
def test_the_checker_catches_each_difference(value: Any, expected: list[str]) -> None:
    assert gen_results.check(value, SCHEMA, "SoloOpSummary") == expected


def test_the_checker_follows_nullable_maps_and_lists() -> None:
    stream = {"stream": "other", "units_written": 1, "units_dead": 0, "units_dead_unknown_age": 0}
    assert gen_results.check({**stream, "lifetime_s_mean": None}, SCHEMA, "VirtualStream") == []
    bad = gen_results.check({**stream, "stream": "x", "lifetime_s_mean": 1.0}, SCHEMA, "VirtualStream")
    assert len(bad) == 1 and bad[0].startswith('VirtualStream.stream: "x" matches none of')
    counts = {"physical": [], "virtual": {"t": [{**stream, "lifetime_s_mean": "1"}]}, "write_times_capped": 0}
    bad = gen_results.check(counts, SCHEMA, "StreamsSummary")
    assert len(bad) == 1 and bad[0].startswith("StreamsSummary.virtual.t[0].lifetime_s_mean:")
