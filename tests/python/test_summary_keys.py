"""Tests of the summary.json keys the engine added (per tenant: queue_depth,
outstanding_at_end, backlog_growth, unstable, the health keys backlog_max, backlog_limit,
max_wait_s, starvation_wait_s, stall_s_max and starved, reordered_arrivals, each op's saturated, and
deadlines for periodic tasks, wear; per scheme: jobs, scheme_counters, mapper_counters,
channels; per device: the lifetime keys) as the
Python side shows them, on hand-made summaries without the simulator: the tidy frames
(booleans stay Boolean), `metrics` and `ftlab compare`, the terminal table of `ftlab run`,
report.html, and summaries of older runs without any of these keys. `--jobs` in sweeps:
each Ray task runs its schemes one at a time. Real runs are in test_engine_outputs.py."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import TypeAlias, cast

import polars as pl
import pytest
from rich.console import Console

import ftlab
from ftlab import _core
from ftlab.cli import print_full_tables, print_summary
from ftlab.report import Report
from ftlab.results import Summary
from ftlab.sweeps import exec as sweep_exec
from reports import Parsed, synthetic_report

#: A hand-made summary.json document, or an object inside one: JSON built here to be dumped,
#: some deliberately partial or of an older run (so not a `ftlab.results.Summary`), and as
#: untyped as `json.loads`'s result (OLD is one).
JsonObject: TypeAlias = Parsed


def as_summary(summary: JsonObject) -> Summary:
    """A hand-made summary as the `Summary` the code under test reads (a cast: partial and old
    summaries are what these tests give it)."""
    return cast(Summary, summary)


def _op(count: int, saturated: int = 0) -> dict[str, float]:
    return {
        "count": count,
        "iops": float(count),
        "mean_us": 100.0,
        "p99_us": 900.0,
        "max_us": 1000.0,
        "saturated": saturated,
    }


def _task(released: int, misses: int) -> dict[str, float]:
    return {
        "released": released,
        "completed": released - 1,
        "misses": misses,
        "missed_outstanding": 0,
        "pending_at_end": 1,
        "response_mean_us": 250.5,
        "response_max_us": 1300.25,
    }


def _tenant(outstanding: int, unstable: bool, deadlines: JsonObject | None = None) -> JsonObject:
    t: JsonObject = {
        "read": _op(10),
        "write": _op(20, saturated=3),
        "trim": _op(0),
        "waf": 1.25,
        "queue_depth": 32,
        "outstanding_at_end": outstanding,
        "backlog_growth": float(outstanding),
        "unstable": unstable,
        "backlog_max": outstanding + 32,
        "backlog_limit": 128.0,
        "max_wait_s": 2.5 if unstable else 0.125,
        "starvation_wait_s": 1.0,
        "stall_s_max": 0.0625,
        "starved": unstable,
        "reordered_arrivals": 2,
        "skipped_records": 3,
    }
    if deadlines is not None:
        t["deadlines"] = deadlines
    t["wear"] = _wear(lifetime_days=120.5 if deadlines is None else None)
    return t


def _wear(lifetime_days: float | None, erases: int = 40) -> dict[str, float | None]:
    return {
        "blocks": 128,
        "erases": erases,
        "erase_rate_per_s": erases / 4.0,
        "erase_count_min": 1,
        "erase_count_max": 9,
        "erase_count_mean": 4.5,
        "wear_imbalance": 2.0,
        "lifetime_days": lifetime_days,
    }


def _scheme(heavy_outstanding: int, rt_misses: int) -> JsonObject:
    deadlines = {
        "released": 47,
        "misses": rt_misses,
        "tasks": {"scan": _task(31, 1), "flush": _task(16, rt_misses - 1)},
    }
    return {
        "tenants": {"heavy": _tenant(heavy_outstanding, True), "rt": _tenant(2, False, deadlines)},
        "device": {
            "waf": 1.3,
            "erases": 51,
            "precondition_erases": 256,
            "write_buffer_bytes": 0,
            "timeseries_latency_saturated": 0,
            "die_utilisation": [0.9, 0.8],
            "pe_cycles": 3000,
            "erase_rate_per_s": 12.75,
            "erase_rate_imbalance": 1.5,
            "lifetime_days": 120.5,
            "lifetime_days_balanced": 180.25,
        },
        "channels": [{"channel": 0, **_wear(120.5, 40)}, {"channel": 1, **_wear(None, 0)}],
        "jobs": {
            "gc": {"started": 55, "page_reads": 1255, "erases": 51},
            "gc_steps": 0,
            "parity_deferred": 0,
        },
        "scheme_counters": {"epochs": 4.0, "transfers": 1.0},
        "mapper_counters": {},
    }


#: A summary with every new key: `heavy` unstable in both schemes, `rt` with periodic tasks.
NEW: JsonObject = {
    "ftlab_version": "x",
    "seed": 1,
    "scenario": "new",
    "schemes": {"unified": _scheme(14310, 13), "partitioned": _scheme(16291, 1)},
}
#: A summary of an older run: none of the new keys (the synthetic report's).
OLD: JsonObject = json.loads(
    synthetic_report(schemes=("unified", "partitioned"), tenants=("heavy", "rt")).summary_json
)


def _partial() -> JsonObject:
    """NEW with keys missing inside the new objects (an unstable tenant without its count, a
    deadlines object without its totals): shown as unknown, not an error."""
    s = copy.deepcopy(NEW)
    del s["schemes"]["unified"]["tenants"]["heavy"]["outstanding_at_end"]
    s["schemes"]["unified"]["tenants"]["rt"]["deadlines"] = {"tasks": {}}
    return s


def report_of(summary: JsonObject, backlog: bool = True) -> Report:
    """A synthetic Report (time series of both tenants) with `summary` as its summary.json,
    and a `backlog` time-series column unless `backlog` is False (an older run)."""
    base = synthetic_report(schemes=tuple(summary["schemes"]), tenants=("heavy", "rt"))
    ts = base.timeseries
    if backlog:
        ts = ts.with_columns((pl.int_range(pl.len()) % 7).cast(pl.UInt64).alias("backlog"))
    return Report(json.dumps(summary, indent=2), base.resolved_toml, ts, base.latency_cdf, base.wear)


# --------------------------------------------------------------------------------------
# Tidy frames


@pytest.mark.parametrize(
    "column, dtype, heavy, rt",
    [
        ("queue_depth", pl.Int64, 32, 32),
        ("outstanding_at_end", pl.Int64, 14310, 2),
        ("backlog_growth", pl.Float64, 14310.0, 2.0),
        ("unstable", pl.Boolean, True, False),
        ("backlog_max", pl.Int64, 14342, 34),
        ("backlog_limit", pl.Float64, 128.0, 128.0),
        ("max_wait_s", pl.Float64, 2.5, 0.125),
        ("starvation_wait_s", pl.Float64, 1.0, 1.0),
        ("stall_s_max", pl.Float64, 0.0625, 0.0625),
        ("starved", pl.Boolean, True, False),
        ("reordered_arrivals", pl.Int64, 2, 2),
        ("skipped_records", pl.Int64, 3, 3),
        ("write_saturated", pl.Int64, 3, 3),
        ("deadlines_released", pl.Int64, None, 47),
        ("deadlines_misses", pl.Int64, None, 13),
        ("deadlines_tasks_scan_misses", pl.Int64, None, 1),
        ("deadlines_tasks_flush_response_max_us", pl.Float64, None, 1300.25),
    ],
)
def test_summary_frame_carries_the_new_tenant_keys(
    column: str, dtype: type[pl.DataType], heavy: object, rt: object
) -> None:
    frame = report_of(NEW).summary_frame.filter(scheme="unified")
    assert frame.schema[column] == dtype
    assert frame.select("tenant", column).rows() == [("heavy", heavy), ("rt", rt)]


def test_unstable_filter_on_the_summary_frame() -> None:
    frame = report_of(NEW).summary_frame.filter(pl.col("unstable"))
    assert frame.select("scheme", "tenant", "outstanding_at_end").rows() == [
        ("unified", "heavy", 14310),
        ("partitioned", "heavy", 16291),
    ]


def test_old_summary_keeps_its_columns_and_has_none_of_the_new_ones() -> None:
    old = report_of(OLD, backlog=False)
    frame = old.summary_frame
    assert frame.columns[:4] == ["scheme", "tenant", "read_count", "read_iops"]
    assert not {
        "unstable",
        "outstanding_at_end",
        "deadlines_misses",
        "write_saturated",
        "starved",
        "max_wait_s",
    } & set(frame.columns)
    assert old.counters_frame.columns == ["scheme"]
    assert old.counters_frame.get_column("scheme").to_list() == ["unified", "partitioned"]
    assert not old.metrics.filter(pl.col("metric").str.starts_with("jobs_")).height


def test_new_columns_do_not_change_the_existing_ones() -> None:
    new, old = report_of(NEW).summary_frame, report_of(OLD).summary_frame
    for column in ("scheme", "tenant", "read_iops", "write_p99_us", "waf"):
        assert new.schema[column] == old.schema[column], column


def test_counters_frame_and_metrics_carry_the_scheme_counters() -> None:
    report = report_of(NEW)
    counters = report.counters_frame
    assert counters.columns == [
        "scheme",
        "jobs_gc_started",
        "jobs_gc_page_reads",
        "jobs_gc_erases",
        "jobs_gc_steps",
        "jobs_parity_deferred",
        "scheme_counters_epochs",
        "scheme_counters_transfers",
    ]
    metrics = report.metrics
    rows = metrics.filter(
        pl.col("tenant").is_null(), pl.col("metric").is_in(["jobs_gc_started", "scheme_counters_epochs"])
    )
    assert rows.select("scheme", "metric", "value").rows() == [
        ("unified", "jobs_gc_started", 55.0),
        ("unified", "scheme_counters_epochs", 4.0),
        ("partitioned", "jobs_gc_started", 55.0),
        ("partitioned", "scheme_counters_epochs", 4.0),
    ]
    # Booleans are not numbers: `unstable` is in summary_frame only.
    assert "unstable" not in metrics.get_column("metric").to_list()
    assert metrics.filter(metric="outstanding_at_end", tenant="heavy").get_column("value").to_list() == [
        14310.0,
        16291.0,
    ]


def test_lifetime_keys_in_the_frames() -> None:
    report = report_of(NEW)
    device = report.device_frame.filter(scheme="partitioned")
    assert device.select("pe_cycles", "erase_rate_per_s", "lifetime_days", "lifetime_days_balanced").row(
        0
    ) == (3000, 12.75, 120.5, 180.25)
    channels = report.channels_frame
    assert channels.select("scheme", "channel", "erases", "lifetime_days").rows() == [
        ("unified", 0, 40, 120.5),
        ("unified", 1, 0, None),
        ("partitioned", 0, 40, 120.5),
        ("partitioned", 1, 0, None),
    ]
    tenants = report.summary_frame.filter(scheme="unified")
    assert tenants.select("tenant", "wear_erase_rate_per_s", "wear_lifetime_days").rows() == [
        ("heavy", 10.0, 120.5),
        ("rt", 10.0, None),
    ]
    # Channels have their own frame: they are not counters.
    assert not [c for c in report.counters_frame.columns if c.startswith("channels")]
    assert report.metrics.filter(pl.col("tenant").is_null(), metric="lifetime_days").get_column(
        "value"
    ).to_list() == [120.5, 120.5]
    assert report_of(OLD, backlog=False).channels_frame.height == 0


def test_compare_an_old_and_a_new_run(tmp_path: Path) -> None:
    report_of(OLD, backlog=False).write(tmp_path / "old")
    report_of(NEW).write(tmp_path / "new")
    table = ftlab.compare([tmp_path / "old", tmp_path / "new"], metrics=["outstanding_at_end", "waf"])
    row = table.filter(metric="outstanding_at_end", scheme="unified", tenant="heavy").row(0, named=True)
    assert row[str(tmp_path / "old")] is None and row[str(tmp_path / "new")] == 14310.0


# --------------------------------------------------------------------------------------
# The terminal table of `ftlab run`


def terminal(summary: JsonObject) -> str:
    """The per-scheme tables of `ftlab run --full`."""
    out = io.StringIO()
    print_full_tables(Console(file=out, width=320, color_system=None), as_summary(summary))
    return out.getvalue()


def run_output(summary: JsonObject, full: bool = False) -> str:
    """What `ftlab run` prints (the headline, then a pointer or, with full=True, the tables)."""
    out = io.StringIO()
    print_summary(Console(file=out, width=320, color_system=None), as_summary(summary), full=full)
    return out.getvalue()


def test_run_output_is_the_headline_then_a_pointer_or_the_full_tables() -> None:
    short, full = run_output(NEW), run_output(NEW, full=True)
    assert short.startswith(full[: full.index("scheme: unified")]), "the same headline opens both"
    assert "which scheme did best for whom" in short.splitlines()[0]
    assert "scheme: unified" not in short and "report.html" in short and "--full" in short
    assert (
        full.index("which scheme did best")
        < full.index("scheme: unified")
        < full.index("scheme: partitioned")
    )
    assert terminal(NEW) in full


def cells_of(text: str, tenant: str) -> list[list[str]]:
    """The cells of `tenant`'s rows (one per scheme): tenant, IOPS x 2, latencies x 10,
    WAF, outstanding at end, then deadline misses / released if the table has them."""
    rows = [line for line in text.splitlines() if line.startswith(f"│ {tenant} ")]
    return [[cell.strip() for cell in row.split("│")[1:-1]] for row in rows]


@pytest.mark.parametrize(
    "name, summary, heavy, rt",
    [
        # (tenant label, outstanding at end[, deadline misses / released]) of the first scheme
        ("new", NEW, ["heavy UNSTABLE", "14,310", "-"], ["rt", "2", "13 / 47"]),
        ("old", OLD, ["heavy", "-"], ["rt", "-"]),
        ("partial", _partial(), ["heavy UNSTABLE", "-", "-"], ["rt", "2", "- / -"]),
    ],
)
def test_terminal_table(name: str, summary: JsonObject, heavy: list[str], rt: list[str]) -> None:
    text = terminal(summary)
    heavy_rows, rt_rows = cells_of(text, "heavy"), cells_of(text, "rt")
    assert len(heavy_rows) == len(rt_rows) == 2, text
    for rows, expected in ((heavy_rows, heavy), (rt_rows, rt)):
        assert len(rows[0]) == 14 + len(expected) - 1, (name, rows[0])
        assert [rows[0][0], *rows[0][14:]] == expected, (name, rows[0])
    assert "outstanding" in text
    assert ("deadline misses" in text) == (len(heavy) == 3)
    assert ("UNSTABLE" in text) == (name != "old")


def test_terminal_warns_once_per_scheme_with_an_unstable_tenant() -> None:
    lines = [line for line in terminal(NEW).splitlines() if line.startswith("UNSTABLE: ")]
    assert len(lines) == 2 and all(line.startswith("UNSTABLE: heavy:") for line in lines)


def test_terminal_names_are_not_markup() -> None:
    summary = copy.deepcopy(NEW)
    summary["schemes"]["unified"]["tenants"] = {"[bold]x[/]": _tenant(5, True)}
    assert "[bold]x[/] UNSTABLE" in terminal(summary)
    assert "│ [bold]x[/] │ unified (baseline) ⚠ unstable" in run_output(summary)


# --------------------------------------------------------------------------------------
# report.html


@pytest.mark.parametrize(
    "name, summary, flags, present, absent",
    [
        (
            "new",
            NEW,
            2,
            [
                'unified<br><span class="flag">UNSTABLE</span> (14,310 outstanding)',
                'partitioned<br><span class="flag">UNSTABLE</span> (16,291 outstanding)',
                "<strong>UNSTABLE</strong>: heavy under unified",
                'id="summary-deadlines"',
                "<th>rt (all tasks)</th>",
                '<td class="num">13 / 47</td>',
                "<th>rt / scan</th>",
                '<td class="num">1 / 31</td>',
                'id="summary-counters"',
                "<th>scheme_counters_epochs</th>",
                'id="fig-ts-backlog"',
            ],
            ["rt under", "</span> (2 outstanding)"],
        ),
        (
            "old",
            OLD,
            0,
            ['id="summary-tenants"', 'id="summary-device"', 'id="fig-ts-iops"'],
            ["UNSTABLE", "summary-deadlines", "summary-counters", "fig-ts-backlog"],
        ),
        (
            "partial",
            _partial(),
            2,
            ["UNSTABLE</span> (– outstanding)", "– requests were outstanding", '<td class="num">– / –</td>'],
            [],
        ),
    ],
)
def test_report_html(
    name: str, summary: JsonObject, flags: int, present: list[str], absent: list[str]
) -> None:
    page = report_of(summary, backlog=name != "old").to_html()
    # One flag per unstable (tenant, scheme) column of the comparison table.
    assert page.count('<span class="flag">UNSTABLE</span>') == flags
    for text in present:
        assert text in page, (name, text)
    for text in absent:
        assert text not in page, (name, text)


def test_report_html_of_an_old_results_directory(tmp_path: Path) -> None:
    report_of(OLD, backlog=False).write(tmp_path, html=True)
    loaded = ftlab.load(tmp_path)
    assert loaded.summary_frame.height == 4
    assert "UNSTABLE" not in loaded.to_html()


def test_backlog_is_a_base_column_not_a_scheme_series() -> None:
    view_page = report_of(NEW).to_html()
    assert view_page.count('id="fig-ts-backlog"') == 1
    assert "fig-series-0-col-backlog" not in view_page


# --------------------------------------------------------------------------------------
# --jobs


def test_sweep_tasks_run_one_scheme_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep task runs one scheme at a time and returns the core's result with its Arrow
    tables (pyarrow tables stand in for `ArrowTable`s here) as polars frames, which pickle."""
    import pickle

    import pyarrow as pa

    calls: list[dict[str, object]] = []
    tables = {name: pa.table({"x": pa.array([1.5], pa.float64())}) for name in sweep_exec.CORE_TABLES}

    def fake_run(**kwargs: object) -> dict[str, object]:
        calls.append(kwargs)
        return {"summary_json": "{}", **tables}

    monkeypatch.setattr(_core, "run", fake_run)
    out = sweep_exec.run_task('name = "s"\n', "s.toml", "/tmp", _core.version())
    assert set(out) == {"result"} and out["result"]["summary_json"] == "{}"
    for name in sweep_exec.CORE_TABLES:
        frame = out["result"][name]
        assert isinstance(frame, pl.DataFrame)
        assert frame.equals(pl.DataFrame({"x": [1.5]}))
    pickle.dumps(out)
    assert calls == [{"text": 'name = "s"\n', "name": "s.toml", "base_dir": "/tmp", "jobs": 1}]


def test_api_jobs_zero_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(ftlab.UsageError, match="jobs") as caught:
        ftlab.run(jobs=0, out=tmp_path / "r")
    assert "jobs" in (caught.value.arg or "")
    assert not (tmp_path / "r").exists()


# --------------------------------------------------------------------------------------
# The health keys of a real run


HEALTH_KEYS = [
    "queue_depth",
    "outstanding_at_end",
    "writes_outstanding_at_end",
    "backlog_growth",
    "unstable",
    "backlog_max",
    "backlog_max_error",
    "backlog_limit",
    "max_wait_s",
    "starvation_wait_s",
    "stall_s_max",
    "starved",
    "reordered_arrivals",
]


def test_a_real_run_has_the_health_keys_in_order(tmp_path: Path) -> None:
    """The health keys follow `unstable` in a fixed order, with the knobs' values; a solo
    run's health is under `solo`; a changed knob reaches the summary."""
    scenario = tmp_path / "h.toml"
    scenario.write_text(
        'seed = 3\nschemes = ["unified"]\n[device]\npreset = "tiny"\n[measure]\nduration_s = 0.05\n'
        '[[tenants]]\nname = "t"\nnamespace_fraction = 0.5\nqueue_depth = 8\n'
        '[tenants.synthetic]\narrival = "closed"\n'
    )
    summary = ftlab.run(scenario, solo=True, set=["measure.starvation_wait_s=0.5"]).summary
    t = summary["schemes"]["unified"]["tenants"]["t"]
    keys = list(t)
    assert keys[keys.index("queue_depth") : keys.index("reordered_arrivals") + 1] == HEALTH_KEYS
    assert t["starvation_wait_s"] == 0.5 and t["backlog_limit"] == 32.0
    assert t["backlog_max"] == 8 and t["starved"] is False and t["unstable"] is False
    # A closed loop of queue depth 8 never has more than 8 outstanding: far below the 65,536
    # completion times kept exactly, so the maximum is exact.
    assert t["backlog_max_error"] == 0 and t["solo"]["backlog_max_error"] == 0
    assert [k for k in t["solo"] if k not in ("read", "write")] == [
        "unstable",
        "backlog_max",
        "backlog_max_error",
        "max_wait_s",
        "stall_s_max",
        "starved",
    ]
    frame = Report(json.dumps(summary), "", pl.DataFrame()).summary_frame
    assert frame.schema["starved"] == pl.Boolean and frame.get_column("max_wait_s").to_list() == [
        t["max_wait_s"]
    ]
