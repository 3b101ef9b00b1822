"""Tests of ftlab.report without the simulator: Report write/load round trip (summary.json
byte for byte, the time series with its dtypes), atomic writes that leave earlier results
intact when a write fails, and Report.from_core's import of Arrow tables (pyarrow tables stand
in for the core's `ArrowTable`s; tests/python/test_core.py checks the real ones)."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

import ftlab
from ftlab import report as report_mod
from ftlab.report import Report

SUMMARY = (
    '{\n  "seed": 7,\n  "schemes": {"upi": {"tenants": {}, "device": {"waf": '
    '1.5}}},\n  "note": "µs ünïcode"\n}\n'
)


def make_report() -> Report:
    return Report.from_core(
        {
            "summary_json": SUMMARY,
            "resolved_toml": "seed = 7\n",
            "timeseries": pa.table(
                {
                    "scheme": pa.array(["upi", "upi"], pa.string()),
                    "tenant": pa.array(["a", "b"], pa.string()),
                    "t_s": pa.array([0.0, 1.0], pa.float64()),
                    "iops": pa.array([10, 2**64 - 1], pa.uint64()),
                }
            ),
        }
    )


def test_from_core_dtypes() -> None:
    r = make_report()
    assert r.timeseries.schema == pl.Schema(
        {"scheme": pl.String, "tenant": pl.String, "t_s": pl.Float64, "iops": pl.UInt64}
    )
    assert r.summary["seed"] == 7


def test_from_core_empty_table_keeps_types() -> None:
    r = Report.from_core(
        {"summary_json": "{}", "resolved_toml": "", "timeseries": pa.table({"x": pa.array([], pa.float64())})}
    )
    assert r.timeseries.schema == pl.Schema({"x": pl.Float64})
    assert r.timeseries.height == 0


def test_from_core_rejects_plain_columns() -> None:
    """The core hands over Arrow objects; a dict of lists is not one (no silent slow path)."""
    with pytest.raises(TypeError, match="Arrow PyCapsule"):
        Report.from_core({"summary_json": "{}", "resolved_toml": "", "timeseries": {"x": [1.0]}})


def test_write_load_round_trip(tmp_path: Path) -> None:
    r = make_report()
    out = r.write(tmp_path / "a" / "b")
    assert (out / "summary.json").read_bytes() == SUMMARY.encode("utf-8")
    assert (out / "scenario.resolved.toml").read_text() == "seed = 7\n"
    back = ftlab.load(out)
    assert back.summary_json == SUMMARY
    assert back.resolved_toml == r.resolved_toml
    assert back.timeseries.equals(r.timeseries)
    assert back.timeseries.schema == r.timeseries.schema
    # Writing a loaded report again gives the same bytes.
    back.write(tmp_path / "c")
    assert (tmp_path / "c" / "summary.json").read_bytes() == SUMMARY.encode("utf-8")
    assert sorted(p.name for p in out.iterdir()) == [
        "scenario.resolved.toml",
        "summary.json",
        "timeseries.parquet",
    ]


def test_written_files_have_normal_modes(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        make_report().write(tmp_path)
    finally:
        os.umask(old)
    assert (tmp_path / "summary.json").stat().st_mode & 0o777 == 0o644


def test_failed_write_leaves_old_results_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_report().write(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def boom(self: pl.DataFrame, path: str | Path, *args: object, **kwargs: object) -> None:
        with open(path, "wb") as f:
            f.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", boom)
    new = Report('{"new": true}', "seed = 8\n", pl.DataFrame({"x": [1]}))
    with pytest.raises(OSError, match="disk full"):
        new.write(tmp_path)
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after == before  # no target replaced, no temporary left behind


def test_atomic_writer_never_exposes_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    target.write_bytes(b"old")

    def half(path: str) -> None:
        with open(path, "wb") as f:
            f.write(b"ne")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        report_mod.write_files_atomically(tmp_path, {"summary.json": half})
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_load_missing_dir_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ftlab.load(tmp_path / "nope")
