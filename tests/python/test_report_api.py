"""Tests of the Report's Python API added for the report work: the tidy summary, device and
long metric frames (checked against the summary dict), `load` of an old directory (no CDFs,
wear or report.html), load errors naming the directory and the file, and report.html in the
atomic write (a failing render leaves earlier results untouched)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

import ftlab
from ftlab.report import Report
from ftlab.report import html as html_report
from reports import synthetic_report


def test_summary_frame_is_tidy(tmp_path: Path) -> None:
    report = synthetic_report(schemes=("s1", "s2"), tenants=("x", "y", "z"))
    frame = report.summary_frame
    assert frame.height == 2 * 3
    assert frame.select("scheme", "tenant").rows() == [(s, t) for s in ("s1", "s2") for t in ("x", "y", "z")]
    for row in frame.iter_rows(named=True):
        t = report.summary["schemes"][row["scheme"]]["tenants"][row["tenant"]]
        assert row["read_p99_us"] == t["read"]["p99_us"]
        assert row["write_count"] == t["write"]["count"]
        assert row["waf"] == t["waf"]


def test_device_and_metrics_frames() -> None:
    report = synthetic_report(schemes=("s1", "s2"), tenants=("x",))
    device = report.device_frame
    assert device.get_column("scheme").to_list() == ["s1", "s2"]
    assert device.get_column("waf").to_list() == [
        report.summary["schemes"][s]["device"]["waf"] for s in ("s1", "s2")
    ]
    metrics = report.metrics
    assert metrics.columns == ["scheme", "tenant", "metric", "value"]
    waf = metrics.filter(metric="waf", scheme="s2")
    assert waf.filter(tenant="x").get_column("value").to_list() == [
        report.summary["schemes"]["s2"]["tenants"]["x"]["waf"]
    ]
    device_waf = waf.filter(pl.col("tenant").is_null()).get_column("value").to_list()
    assert device_waf == [report.summary["schemes"]["s2"]["device"]["waf"]]
    # Lists (die_utilisation) are not scalar metrics.
    assert "die_utilisation" not in metrics.get_column("metric").to_list()


def test_load_old_directory(tmp_path: Path) -> None:
    report = synthetic_report()
    report.write(tmp_path / "new", html=True)
    old = tmp_path / "old"
    old.mkdir()
    for name in ("summary.json", "timeseries.parquet", "scenario.resolved.toml"):
        shutil.copy(tmp_path / "new" / name, old / name)
    back = ftlab.load(old)
    assert back.latency_cdf is None and back.wear is None
    assert back.summary == report.summary
    assert back.timeseries.equals(report.timeseries)
    assert "fig-ts-iops" in back.to_html()


def test_load_errors_name_directory_and_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        ftlab.load(tmp_path / "nope")
    assert isinstance(missing.value, ftlab.InputError)
    assert str(tmp_path / "nope") in str(missing.value)
    (tmp_path / "d").mkdir()
    with pytest.raises(ftlab.InputError) as no_summary:
        ftlab.load(tmp_path / "d")
    assert no_summary.value.path == str(tmp_path / "d" / "summary.json")
    assert str(no_summary.value).startswith(f"{tmp_path / 'd' / 'summary.json'}: ")
    synthetic_report().write(tmp_path / "e")
    (tmp_path / "e" / "wear.parquet").write_bytes(b"PAR1 broken")
    with pytest.raises(ftlab.InputError) as broken:
        ftlab.load(tmp_path / "e")
    assert broken.value.path == str(tmp_path / "e" / "wear.parquet") and broken.value.reason is not None
    assert "parquet" in broken.value.reason
    (tmp_path / "e" / "timeseries.parquet").unlink()
    with pytest.raises(FileNotFoundError, match="timeseries.parquet"):
        ftlab.load(tmp_path / "e")


def test_failed_render_leaves_earlier_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synthetic_report().write(tmp_path, html=True)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert "report.html" in before

    def boom(report: Report, **kwargs: object) -> None:
        raise RuntimeError("render failed")

    monkeypatch.setattr(html_report, "render", boom)
    with pytest.raises(RuntimeError, match="render failed"):
        synthetic_report(schemes=("other",)).write(tmp_path, html=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
