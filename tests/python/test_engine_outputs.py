"""Tests of what the engine's measurements look like from the command line and in the report:
schemes run in parallel (`--jobs`) give the same results as one by one, a bad `--jobs` is a
usage error, an overloaded tenant is flagged UNSTABLE (with its outstanding requests) in
summary.json, on the terminal (the headline and the --full tables) and in report.html, while a light one is
not, and a tenant of
periodic tasks shows its deadline misses. Hand-made summaries: test_summary_keys.py."""

from __future__ import annotations

from pathlib import Path
from typing import TypeAlias

import polars as pl
import pytest

from conftest import run_cli
from ftlab.results import Deadlines, summary_from_json

# `tiny` has 4 dies, tPROG 200 us: at most 20,000 page programs per second for the device, so
# 60,000 write IOPS is three times what it can do; 500 reads/s is light; `realtime` reads 4
# pages every 10 ms and writes one every 20 ms, due within 1 ms (some miss behind `heavy`).
OVERLOAD = """\
name = "overload"
schemes = ["unified", "partitioned"]
[device]
preset = "tiny"
[scheme.partitioned]
by = "die"
[measure]
duration_s = 0.3
[[tenants]]
name = "heavy"
namespace_fraction = 0.4
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
arrival = "poisson"
rate_iops = 60000.0
[[tenants]]
name = "light"
namespace_fraction = 0.2
[tenants.synthetic]
pattern = "uniform"
read_ratio = 1.0
arrival = "poisson"
rate_iops = 500.0
[[tenants]]
name = "realtime"
namespace_fraction = 0.05
[tenants.periodic]
tasks = [
    { name = "scan", op = "read", pages = 4, period_ms = 10.0 },
    { name = "log", op = "write", pages = 1, period_ms = 20.0, deadline_ms = 1.0 },
]
"""
#: Files of a results directory compared across --jobs: bytes, or the parquet tables' rows.
SAME_BYTES = ("summary.json", "scenario.resolved.toml", "report.html")
SAME_TABLES = ("timeseries.parquet", "latency_cdf.parquet", "wear.parquet")


#: The overload scenario's runs by `--jobs` value: (results directory, stdout).
Runs: TypeAlias = dict[str, tuple[Path, str]]


@pytest.fixture(scope="module")
def overload(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """The overload scenario run with --jobs 1 --full and --jobs 2: {jobs: (results dir, stdout)}."""
    base = tmp_path_factory.mktemp("overload")
    scenario = base / "overload.toml"
    scenario.write_text(OVERLOAD)
    runs: Runs = {}
    for jobs in ("1", "2"):
        out = base / f"jobs{jobs}"
        # 250 columns: the tests below parse the tables' rows one per line; that the output
        # fits 100 columns when piped is test_full_output_fits_100_columns_when_piped's.
        proc = run_cli(
            ["run", str(scenario), "--jobs", jobs, "--out", str(out), *(["--full"] if jobs == "1" else [])],
            columns=250,
        )
        assert proc.returncode == 0, proc.stderr
        runs[jobs] = (out, proc.stdout)
    return runs


@pytest.mark.parametrize("name", SAME_BYTES)
def test_parallel_schemes_write_the_same_files(overload: Runs, name: str) -> None:
    one = (overload["1"][0] / name).read_bytes()
    two = (overload["2"][0] / name).read_bytes()
    assert one == two


@pytest.mark.parametrize("name", SAME_TABLES)
def test_parallel_schemes_write_the_same_tables(overload: Runs, name: str) -> None:
    one = pl.read_parquet(overload["1"][0] / name)
    two = pl.read_parquet(overload["2"][0] / name)
    assert one.height > 0 and one.equals(two)


def test_full_output_fits_100_columns_when_piped(tmp_path: Path) -> None:
    """The README's promise: terminal output fits 100 columns. Piped without `COLUMNS`, the
    headline and the per-scheme tables of `--full` wrap their cells to 100 columns, and keep
    every tenant's name and flag."""
    scenario = tmp_path / "o.toml"
    scenario.write_text(OVERLOAD)
    proc = run_cli(["run", str(scenario), "--jobs", "2", "--full", "--out", str(tmp_path / "r")])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    words = " ".join(proc.stdout.split())
    for name in ("heavy", "light", "realtime", "scheme: unified", "scheme: partitioned", "UNSTABLE"):
        assert name in words, name


def test_jobs_zero_is_a_usage_error(tmp_path: Path) -> None:
    scenario = tmp_path / "o.toml"
    scenario.write_text(OVERLOAD)
    proc = run_cli(["run", str(scenario), "--jobs", "0", "--out", str(tmp_path / "r")])
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "--jobs" in proc.stderr and "at least 1" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("scheme", ["unified", "partitioned"])
def test_overloaded_tenant_is_unstable_in_the_summary(overload: Runs, scheme: str) -> None:
    summary = summary_from_json((overload["2"][0] / "summary.json").read_text())
    tenants = summary["schemes"][scheme]["tenants"]
    heavy, light = tenants["heavy"], tenants["light"]
    assert heavy["unstable"] is True
    # About 60,000/s arrive and at most 20,000/s can be programmed: thousands wait at the end.
    assert heavy["outstanding_at_end"] > 1000
    assert heavy["backlog_growth"] > heavy["queue_depth"]
    assert light["unstable"] is False
    assert light["outstanding_at_end"] <= light["queue_depth"]
    # writes_outstanding_at_end (the wear gate's count, DESIGN §12): heavy only writes, light
    # only reads, so the writes left are all of heavy's outstanding and none of light's.
    assert heavy["writes_outstanding_at_end"] == heavy["outstanding_at_end"]
    assert light["writes_outstanding_at_end"] == 0


def headline_rows(stdout: str) -> dict[str | None, list[str]]:
    """The headline's table rows by tenant (one per scheme; the tenant is named in the first)."""
    rows: dict[str | None, list[str]] = {}
    tenant: str | None = None
    for line in stdout[: stdout.find("scheme: ") if "scheme: " in stdout else len(stdout)].splitlines():
        if not line.startswith("│ "):
            continue
        name = line.split("│")[1].strip()
        tenant = name or tenant
        rows.setdefault(tenant, []).append(line)
    return rows


def full_tables(stdout: str) -> str:
    """The per-scheme tables of `ftlab run --full` (after the headline)."""
    assert "scheme: unified" in stdout, stdout
    return stdout[stdout.index("scheme: unified") :]


def test_unstable_tenant_is_flagged_in_the_headline(overload: Runs) -> None:
    stdout = overload["2"][1]
    rows = headline_rows(stdout)
    assert set(rows) == {"heavy", "light", "realtime"}, stdout
    assert len(rows["heavy"]) == 2 and all("⚠ unstable" in row for row in rows["heavy"]), stdout
    assert not any("unstable" in row for row in rows["light"] + rows["realtime"]), stdout
    # The note under the table names them (it wraps at the output's width).
    assert "heavy under unified, heavy under partitioned" in " ".join(stdout.split())
    assert "scheme: unified" not in stdout, "the full tables only with --full"


def test_unstable_tenant_is_flagged_on_the_terminal(overload: Runs) -> None:
    stdout = full_tables(overload["1"][1])
    heavy_rows = [line for line in stdout.splitlines() if "heavy" in line and "│" in line]
    light_rows = [line for line in stdout.splitlines() if "light" in line and "│" in line]
    assert len(heavy_rows) == 2 and all("UNSTABLE" in row for row in heavy_rows), stdout
    assert light_rows and not any("UNSTABLE" in row for row in light_rows), stdout
    assert "outstanding" in stdout


def test_unstable_tenant_is_flagged_in_the_report(overload: Runs) -> None:
    page = (overload["2"][0] / "report.html").read_text()
    assert page.count('class="unstable"') == 2, "one warning per scheme for the heavy tenant"
    assert "heavy under unified" in page and "heavy under partitioned" in page
    assert "light under" not in page
    assert "fig-ts-backlog" in page


def _deadlines(run_dir: Path) -> dict[str, Deadlines]:
    summary = summary_from_json((run_dir / "summary.json").read_text())
    return {scheme: data["tenants"]["realtime"]["deadlines"] for scheme, data in summary["schemes"].items()}


def test_periodic_tenant_has_deadlines_and_others_do_not(overload: Runs) -> None:
    summary = summary_from_json((overload["2"][0] / "summary.json").read_text())
    for data in summary["schemes"].values():
        tenants = data["tenants"]
        assert "deadlines" not in tenants["heavy"] and "deadlines" not in tenants["light"]
        d = tenants["realtime"]["deadlines"]
        assert set(d["tasks"]) == {"scan", "log"}
        assert d["released"] == sum(t["released"] for t in d["tasks"].values()) > 0
        assert d["misses"] == sum(t["misses"] for t in d["tasks"].values())


def test_deadline_misses_on_the_terminal(overload: Runs) -> None:
    run_dir, stdout = overload["1"]
    misses = [d["misses"] for d in _deadlines(run_dir).values()]
    header = next(line for line in stdout.splitlines() if line.startswith("┃ tenant"))
    index = [h.strip() for h in header.split("┃")[1:-1]].index("deadline misses")
    column = [line.split("│")[1:-1][index].strip() for line in headline_rows(stdout)["realtime"]]
    assert [c.removeprefix("★ ").split(" (")[0] for c in column] == [f"{m:,}" for m in misses], stdout
    assert "deadline misses" in stdout[: stdout.index("scheme: unified")]
    stdout = full_tables(stdout)
    rows = [line for line in stdout.splitlines() if line.startswith("│ realtime")]
    expected = [f"{d['misses']:,} / {d['released']:,}" for d in _deadlines(run_dir).values()]
    assert len(rows) == 2 and all(
        row.rstrip(" │").endswith(cell) for row, cell in zip(rows, expected, strict=True)
    ), stdout
    assert "deadline misses" in stdout


def test_deadline_misses_in_the_report(overload: Runs) -> None:
    run_dir = overload["2"][0]
    page = (run_dir / "report.html").read_text()
    assert 'id="summary-deadlines"' in page
    by_scheme = _deadlines(run_dir)
    for task in ("scan", "log"):
        cells = "".join(
            f'<td class="num">{d["tasks"][task]["misses"]:,} / {d["tasks"][task]["released"]:,}</td>'
            for d in by_scheme.values()
        )
        assert f"<tr><th>realtime / {task}</th>{cells}</tr>" in page


def test_unstable_tenant_is_flagged_in_the_report_table(overload: Runs) -> None:
    run_dir = overload["2"][0]
    page = (run_dir / "report.html").read_text()
    summary = summary_from_json((run_dir / "summary.json").read_text())
    for scheme, data in summary["schemes"].items():
        outstanding = data["tenants"]["heavy"]["outstanding_at_end"]
        assert f'{scheme}<br><span class="flag">UNSTABLE</span> ({outstanding:,} outstanding)</th>' in page
    assert page.count('<span class="flag">UNSTABLE</span>') == 2
    assert 'id="summary-counters"' in page
