"""The one schema of the results the core hands to Python as JSON text (schema/results.schema.json):
python/ftlab/results.py is generated from it and must be fresh, what the core writes (summary.json
of small runs, `ftlab rt`, `ftlab lifetime`, `ftlab capture`, `ftlab schemes`) must match it
exactly (no unknown key, no missing one, the types it names), every key the schema names must be
one the core writes in one of those outputs (so a key cannot be added to one side only), and the
checker itself must catch each kind of difference."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import cast

import pytest

from ftlab import _core, api
from ftlab.report import Report
from ftlab.reproduce.part_ftl import TABLE3_TASKS
from ftlab.results import LifetimeModel, Summary, summary_from_json
from reports import default_scenario

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import gen_results  # noqa: E402

SCHEMA = gen_results.load_schema()


def _errors(value: object, result: str) -> list[str]:
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
    measure = scenario["measure"]
    assert isinstance(measure, dict)
    measure["phases"] = [
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


def _bundled(name: str, extra: list[str] | None = None) -> Summary:
    path = REPO / "scenarios" / f"{name}.toml"
    short = ["measure.duration_s=1.0", "measure.warmup_s=0.0", "measure.phases=[]", *(extra or [])]
    return summary_from_json(_core.run(source_path=path, overrides=short, jobs=1)["summary_json"])


#: Each result the core wrote, as (result name, its parsed JSON).
Outputs = list[tuple[str, object]]


@pytest.fixture(scope="module")
def outputs(small_run: Report, tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    """Every result kind the core writes, as (result name, value): the small run, two bundled
    scenarios (fdp: a stream mapper's report; rtgc: periodic tasks' deadlines; rtgc again
    preconditioned by the closed form), `ftlab rt`'s
    three results for each real-time scheme, `ftlab lifetime`, `ftlab capture` and the policies."""
    found: Outputs = [("summary", json.loads(small_run.summary_json))]
    found += [("summary", _bundled(name)) for name in ("fdp", "rtgc")]
    # A closed-form fill (`precondition.overwrites`: its `closed_form_*` keys).
    found.append(("summary", _bundled("rtgc", ['precondition.overwrites="closed_form"'])))
    # An array (its host layer's `array`) in IODA's mode, with a rebuild device (the key as a
    # number; the bundled scenario writes null).
    ioda = ['schemes=["iod"]', "array.rebuild_device=1", 'array.fail_fast="brt"', "array.stagger=true"]
    found.append(("summary", _bundled("array", ioda)))
    found.append(("rt_bounds", json.loads(_core.rt_bounds())))
    for scheme in ("part-ftl", "rtgc", "wao-gc"):
        found.append(("rt_admit", json.loads(_core.rt_admit(TABLE3_TASKS, "Table III", scheme))))
    found.append(("rt_schedulability", json.loads(_core.rt_schedulability(2, 1, 0.5))))
    # flashblox as bundled (one swappable channel: no swap bound, no worst case), then with two
    # swappable channels (the bound's K and the slides' worst case are written).
    two = 'scheme.flashblox.tenants=[{kind="channel",channels=1},{kind="channel",channels=1}]'
    # Under `since_swap` the trigger fires at every check (docs/schemes/flashblox.md), so the
    # device-scale fast-forward, which has no floor, reaches its cap of 1,000,000 swaps.
    since_swap = 'scheme.flashblox.rate_window="since_swap"'
    for extra in ([], [two], [two, since_swap]):
        flashblox = REPO / "scenarios" / "flashblox.toml"
        report = api.run(flashblox, set=["measure.duration_s=0.5", *extra], jobs=1)
        model = _core.lifetime(report.summary_json, report.resolved_toml, "flashblox", 1e9)
        found.append(("lifetime", json.loads(model)))
    found.append(("capture", _capture(tmp_path_factory.mktemp("capture"))))
    found.append(("policies", json.loads(_core.policies())))
    return found


def _capture(tmp_path: Path) -> object:
    data = REPO / "data" / "rocksdb"
    shipped = json.loads((data / "trace.json").read_text(encoding="utf-8"))
    logs = []
    for name in ("strace.log", "LOG"):
        logs.append(tmp_path / name)
        logs[-1].write_bytes(gzip.decompress((data / f"{name}.gz").read_bytes()))
    device_bytes = shipped["capture"]["device_bytes"]
    return json.loads(_core.capture(logs[0], logs[1], tmp_path / "t.csv", shipped["root"], device_bytes))


def test_bundled_scenarios_show_their_optional_parts(outputs: Outputs) -> None:
    # Summaries (`_bundled`'s), whose shape test_what_the_core_writes_matches checks.
    fdp, rtgc = (cast(Summary, value) for result, value in outputs[1:3])
    assert any("mapper_report" in s for s in fdp["schemes"].values())
    assert any("deadlines" in t for s in rtgc["schemes"].values() for t in s["tenants"].values())


@pytest.mark.parametrize(
    "result", ["summary", "rt_bounds", "rt_admit", "rt_schedulability", "lifetime", "capture", "policies"]
)
def test_what_the_core_writes_matches(outputs: Outputs, result: str) -> None:
    values = [value for name, value in outputs if name == result]
    assert values, f"no {result} among the outputs"
    for value in values:
        assert _errors(value, result) == []


def test_a_capped_fast_forward_says_so(outputs: Outputs) -> None:
    # The fast-forward stops at 1,000,000 swaps (`lifetime_model::SWAPS_MAX`, docs/lifetime.md)
    # and says so beside each count; the two-channel tiny FlashBlox run under `since_swap`
    # reaches it on the device's own time scale (a swap at every check; the default trigger,
    # on deadlines, makes 3 there), so both answers are exercised.
    cases = []
    for result, value in outputs:
        if result == "lifetime":
            model = cast(LifetimeModel, value)  # its shape: test_what_the_core_writes_matches
            cases += [model["with_swaps"], model["without_swaps"], model["worst_case"], model["device_scale"]]
    capped = [(c["swaps_capped"], c["n_swaps"]) for c in cases if c is not None]
    assert all(flag == (n_swaps >= 1_000_000) for flag, n_swaps in capped)
    assert {flag for flag, _ in capped} == {True, False}


def test_every_key_the_schema_names_is_written(outputs: Outputs) -> None:
    # The other way round: a key kept in the schema that the core no longer writes (or writes
    # under no case above) is named here, so that a key cannot live on one side only.
    seen: set[tuple[str, str]] = set()
    for result, value in outputs:
        name = SCHEMA["results"][result]["$ref"].rsplit("/", 1)[1]
        assert gen_results.check(value, SCHEMA, name, seen) == []
    never = sorted(gen_results.properties(SCHEMA) - seen)
    assert never == [], "\n".join(f"{d}.{k}" for d, k in never)


def test_the_coverage_check_names_a_key_never_written() -> None:
    seen: set[tuple[str, str]] = set()
    assert gen_results.check(GOOD, SCHEMA, "SoloOpSummary", seen) == []
    assert {("SoloOpSummary", k) for k in GOOD} == seen
    assert ("SoloOpSummary", "count") in gen_results.properties(SCHEMA)


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
def test_the_checker_catches_each_difference(value: object, expected: list[str]) -> None:
    assert gen_results.check(value, SCHEMA, "SoloOpSummary") == expected


def test_the_checker_follows_nullable_maps_and_lists() -> None:
    stream = {"stream": "other", "units_written": 1, "units_dead": 0, "units_dead_unknown_age": 0}
    assert gen_results.check({**stream, "lifetime_s_mean": None}, SCHEMA, "VirtualStream") == []
    bad = gen_results.check({**stream, "stream": "x", "lifetime_s_mean": 1.0}, SCHEMA, "VirtualStream")
    assert len(bad) == 1 and bad[0].startswith('VirtualStream.stream: "x" matches none of')
    counts = {"physical": [], "virtual": {"t": [{**stream, "lifetime_s_mean": "1"}]}, "write_times_capped": 0}
    bad = gen_results.check(counts, SCHEMA, "StreamsSummary")
    assert len(bad) == 1 and bad[0].startswith("StreamsSummary.virtual.t[0].lifetime_s_mean:")
