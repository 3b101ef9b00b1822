"""Tests of `ftlab compare` / `ftlab.compare` (ftlab.report.comparison) on results directories
written from synthetic summaries: values and relative changes against the first directory
(computed here from the summaries), rows found in only some directories, device rows,
metric filters, CSV/parquet/JSON output by suffix, and precise errors naming the directory
and file (exit 2, no traceback, nothing written)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import polars as pl
import pytest

import ftlab
from conftest import joined, run_cli
from ftlab.report import Report


def summary(read_p99: float, waf: float, extra: Mapping[str, object] | None = None) -> dict[str, object]:
    """A partial summary: the keys `ftlab compare` reads, not a full `ftlab.results.Summary`."""
    tenant: dict[str, object] = {"read": {"p99_us": read_p99, "iops": 1000}, "waf": waf, **(extra or {})}
    return {
        "seed": 1,
        "scenario": "s",
        "schemes": {"unified": {"tenants": {"a": tenant}, "device": {"waf": waf * 2, "erases": 0}}},
    }


def write_dir(path: Path, data: dict[str, object]) -> Path:
    Report(
        json.dumps(data, indent=2), "seed = 1\n", pl.DataFrame({"scheme": ["unified"], "tenant": ["a"]})
    ).write(path)
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    a = write_dir(tmp_path / "a", summary(100.0, 2.0))
    b = write_dir(tmp_path / "b", summary(150.0, 1.0, {"buffer_reads": 7}))
    b_data = json.loads((b / "summary.json").read_text())
    b_data["schemes"]["unified"]["device"]["erases"] = 5
    (b / "summary.json").write_text(json.dumps(b_data))
    return a, b


def cell(table: pl.DataFrame, tenant: str | None, metric: str, column: str) -> object:
    rows = table.filter(pl.col("metric") == metric, pl.col("tenant").eq_missing(tenant))
    assert rows.height == 1, (tenant, metric)
    return rows.get_column(column)[0]


def test_values_and_relative_change(dirs: tuple[Path, Path]) -> None:
    a, b = dirs
    table = ftlab.compare([a, b])
    ra, rb = str(a), str(b)
    assert table.columns == ["scheme", "tenant", "metric", ra, rb, f"rel_change:{rb}"]
    assert cell(table, "a", "read_p99_us", ra) == 100.0
    assert cell(table, "a", "read_p99_us", rb) == 150.0
    assert cell(table, "a", "read_p99_us", f"rel_change:{rb}") == pytest.approx((150.0 - 100.0) / 100.0)
    assert cell(table, "a", "waf", f"rel_change:{rb}") == pytest.approx((1.0 - 2.0) / 2.0)
    # Device rows have no tenant.
    assert cell(table, None, "waf", rb) == 2.0
    # First value 0: no relative change. Only in b: null in a, no relative change.
    assert cell(table, None, "erases", rb) == 5.0 and cell(table, None, "erases", f"rel_change:{rb}") is None
    assert (
        cell(table, "a", "buffer_reads", ra) is None
        and cell(table, "a", "buffer_reads", f"rel_change:{rb}") is None
    )


def test_metric_filter(dirs: tuple[Path, Path]) -> None:
    table = ftlab.compare(dirs, metrics=["read_*"])
    assert sorted(table.get_column("metric").to_list()) == ["read_iops", "read_p99_us"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
def test_cli_writes_table_by_suffix(dirs: tuple[Path, Path], tmp_path: Path, suffix: str) -> None:
    a, b = dirs
    out = tmp_path / f"cmp{suffix}"
    proc = run_cli(["compare", str(a), str(b), "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    for text in ("Δ b", "read_p99_us", "+50.0%", "(device)"):
        assert text in proc.stdout
    table = ftlab.compare([a, b])
    if suffix == ".csv":
        back = pl.read_csv(out, schema=table.schema)
    elif suffix == ".parquet":
        back = pl.read_parquet(out)
    else:
        back = pl.DataFrame(json.loads(out.read_text()), schema=table.schema)
    assert back.equals(table)


def assert_input_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in joined(proc.stderr), proc.stderr


def test_cli_errors_name_directory_and_file(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = dirs
    missing = tmp_path / "missing"
    assert_input_error(run_cli(["compare", str(a), str(missing)]), str(missing), "does not exist")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_input_error(run_cli(["compare", str(a), str(empty)]), str(empty / "summary.json"))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "summary.json").write_text("{ not json")
    assert_input_error(run_cli(["compare", str(a), str(bad)]), str(bad / "summary.json"), "not valid JSON")
    out = tmp_path / "cmp.txt"
    assert_input_error(run_cli(["compare", str(a), str(a), "-o", str(tmp_path / "x.csv")]), "more than once")
    assert_input_error(run_cli(["compare", str(a), "--out", str(out)]), "--out", ".txt")
    assert not out.exists() and not (tmp_path / "x.csv").exists()
    assert_input_error(run_cli(["compare"]))


def test_cli_fits_100_columns_side_by_side_or_long(tmp_path: Path) -> None:
    """Piped, `ftlab compare` fits 100 columns without cutting a number (issue 42: 533 lines of
    1,335 had cut cells): a table per (scheme, tenant) while the directories fit side by side,
    a long table (a row per metric and directory) for six with long names; a large integer is
    whole, with separators."""
    big = {"read": {"p99_us": 100.0, "iops": 1000, "bytes": 98_746_368}}
    paths = [
        write_dir(tmp_path / f"results-of-a-long-name-{i}", summary(100.0 + i, 2.0, big)) for i in range(6)
    ]
    for given, layout in ((paths[:2], "Δ results-of-a-long-name-1"), (paths, "directory")):
        proc = run_cli(["compare", *map(str, given)])
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert all(len(line) <= 100 for line in lines), max(lines, key=len)
        assert "…" not in proc.stdout
        assert layout in proc.stdout and "98,746,368" in proc.stdout


def array_summary(host_p99: float, dev_p99: float) -> dict[str, object]:
    """A partial summary of an array run: the host layer's `array` and two devices' results
    named `<scheme>/dev<i>` (the keys `ftlab compare` reads)."""
    device = {"tenants": {"a": {"read": {"p99_us": dev_p99}}}, "device": {"waf": 1.5}}
    host: dict[str, object] = {
        "tenants": {"a": {"read": {"p99_us": host_p99}, "chunks_rebuilt": 4}},
        "devices": ["iod/dev0", "iod/dev1"],
        "device_requests": 10,
    }
    return {
        "seed": 1,
        "scenario": "s",
        "schemes": {"iod/dev0": device, "iod/dev1": device},
        "array": {"devices": 2, "schemes": {"iod": host}},
    }


def test_an_arrays_devices_are_devices_not_schemes(tmp_path: Path) -> None:
    """`<scheme>/dev<i>` entries are an array's devices: one scheme (the array's), the host
    layer's metrics under their own names, each device's as `dev<i>/<metric>`."""
    a = write_dir(tmp_path / "a", array_summary(300.0, 100.0))
    b = write_dir(tmp_path / "b", array_summary(600.0, 100.0))
    table = ftlab.compare([a, b])
    assert set(table.get_column("scheme").to_list()) == {"iod"}
    ra, rb = str(a), str(b)
    assert cell(table, "a", "read_p99_us", ra) == 300.0
    assert cell(table, "a", "read_p99_us", f"rel_change:{rb}") == pytest.approx(1.0)
    assert cell(table, "a", "chunks_rebuilt", rb) == 4.0
    assert cell(table, None, "device_requests", ra) == 10.0
    for dev in ("dev0", "dev1"):
        assert cell(table, "a", f"{dev}/read_p99_us", ra) == 100.0
        assert cell(table, None, f"{dev}/waf", rb) == 1.5
