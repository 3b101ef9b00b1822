"""Tests of the HTML report without a browser (ftlab.report.html, ftlab.report.series,
ftlab.report.figdata): the registry of scheme-specific plots and its fallback, figures that do not
depend on scheme names, deterministic bytes, escaping, offline (inlined plotly.js, no remote
script), old runs without CDFs or wear, the deterministic data reduction, and the size bound
of a real run. The in-browser checks are in test_report_browser.py."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl
import pytest

import ftlab
from ftlab.report import Report, figdata
from ftlab.report import html as html_report
from ftlab.report import series as series_plots
from reports import default_scenario, synthetic_report, with_scheme_copy

UPI = {"alloc_set_dies": {"beta": 3.0}, "pages_outside_set": {"beta": 40.0}}


def figure_ids(page: str) -> list[str]:
    return re.findall(r'<div id="(fig-[^"]+)" class="plotly-graph-div"', page)


def built(report: Report, registry: Sequence[series_plots.SeriesPlot] | None = None) -> dict[str, int]:
    """Series figure id -> number of traces."""
    view = figdata.series_view(report)
    items = series_plots.figures(view, figdata.schemes(report), figdata.tenants(report), registry)
    return {f.div_id: len(f.figure.data) for f in items}


def test_registry_builds_upi_figure_only_for_the_scheme_with_the_columns() -> None:
    report = synthetic_report(schemes=("alpha", "beta"), tenants=("a", "b", "c"), extra=UPI)
    # beta is scheme 1; two panels (one per column) x three tenants.
    assert built(report) == {"fig-series-1-alloc-set": 2 * 3}


def test_unknown_extra_column_gets_a_fallback_plot() -> None:
    extra = {**UPI, "mystery_gauge": {"alpha": 1.0, "beta": 2.0}}
    report = synthetic_report(schemes=("alpha", "beta"), tenants=("a", "b"), extra=extra)
    assert built(report) == {
        "fig-series-0-col-mystery_gauge": 2,
        "fig-series-1-alloc-set": 4,
        "fig-series-1-col-mystery_gauge": 2,
    }


def test_partial_match_falls_back_per_column() -> None:
    # Only one of the two allocation-set columns: the entry does not apply, nothing is dropped.
    report = synthetic_report(schemes=("alpha",), tenants=("a",), extra={"pages_outside_set": {"alpha": 1.0}})
    assert built(report) == {"fig-series-0-col-pages_outside_set": 1}


def test_adding_a_builder_is_one_registry_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = series_plots.SeriesPlot(
        "deadline-misses",
        "deadline misses",
        ("deadline_misses",),
        series_plots.panels(("deadline_misses", "misses per window")),
    )
    monkeypatch.setattr(series_plots, "REGISTRY", [*series_plots.REGISTRY, entry])
    report = synthetic_report(
        schemes=("alpha",), tenants=("a", "b"), extra={"deadline_misses": {"alpha": 0.0}}
    )
    assert built(report) == {"fig-series-0-deadline-misses": 2}
    assert 'id="fig-series-0-deadline-misses"' in html_report.render(report)


def test_pattern_entry_claims_every_matching_column() -> None:
    entry = series_plots.SeriesPlot(
        "streams", "streams", ("stream_id_*",), series_plots.panels(("stream_id_*", "stream"))
    )
    extra = {"stream_id_0": {"alpha": 0.0}, "stream_id_1": {"alpha": 1.0}}
    report = synthetic_report(schemes=("alpha",), tenants=("a", "b", "c"), extra=extra)
    assert built(report, [entry]) == {"fig-series-0-streams": 2 * 3}


def test_figures_do_not_depend_on_scheme_names() -> None:
    """The same data under other scheme names (including the names of real schemes) gives
    the same charts: nothing switches on a scheme's name."""
    shapes = []
    for names in (("alpha", "beta"), ("upi", "unified"), ("partitioned", "upi")):
        extra = {c: {names[1]: v["beta"]} for c, v in UPI.items()}
        page = html_report.render(synthetic_report(schemes=names, extra=extra))
        shapes.append((figure_ids(page), built(synthetic_report(schemes=names, extra=extra))))
    assert shapes[0] == shapes[1] == shapes[2]


def test_render_is_deterministic_across_processes(tmp_path: Path) -> None:
    report = synthetic_report(extra=UPI)
    page = report.to_html()
    assert page == report.to_html()
    report.write(tmp_path, html=True)
    code = "import sys, ftlab; sys.stdout.write(ftlab.load(sys.argv[1]).to_html())"
    env = dict(os.environ, PYTHONHASHSEED="12345")
    other = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True, env=env
    )
    assert other.stdout == page
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == page


def test_names_and_scenario_are_escaped() -> None:
    evil = "<script>alert(1)</script>"
    report = synthetic_report(tenants=(evil, "b"), scenario="<b>bold</b>", resolved_toml=f'name = "{evil}"\n')
    page = report.to_html()
    assert evil not in page
    assert "<b>bold</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_offline_page_inlines_plotly_and_loads_nothing_remote() -> None:
    from plotly.offline import get_plotlyjs

    page = synthetic_report().to_html()
    assert get_plotlyjs() in page
    assert not re.search(r"<script[^>]*\ssrc\s*=", page, re.I)
    assert not re.search(r"<(link|img|iframe)[^>]*\s(href|src)\s*=\s*[\"']?(https?:)?//", page, re.I)
    assert page.startswith("<!DOCTYPE html>")


def test_old_run_without_cdf_and_wear_renders(tmp_path: Path) -> None:
    full = synthetic_report()
    old = Report(full.summary_json, full.resolved_toml, full.timeseries)
    page = old.to_html()
    ids = figure_ids(page)
    assert not any(i.startswith(("fig-cdf", "fig-wear")) for i in ids)
    assert "fig-ts-iops" in ids
    assert "no latency_cdf.parquet" in page and "no wear.parquet" in page


def test_cdf_thinning_keeps_shape_within_one_cell() -> None:
    """A 200,000-point CDF is cut to a few hundred points; between two kept points every
    dropped point lies within one grid cell of the earlier kept point (CDF and log tail)."""
    n = 200_000
    lat = [10.0 * 1.00005**k for k in range(n)]
    cdf = [(k + 1) / n for k in range(n)]
    frame = pl.DataFrame(
        {"scheme": ["s"] * n, "tenant": ["t"] * n, "op": ["read"] * n, "latency_us": lat, "cdf": cdf}
    )
    report = Report('{"schemes": {}}', "", pl.DataFrame({"scheme": [], "tenant": []}), frame, None)
    kept = figdata.cdf_points(report, "read")
    assert 10 < kept.height < 2000
    kept_lat = kept.get_column("latency_us").to_list()
    assert kept_lat[0] == pytest.approx(lat[0]) and kept_lat[-1] == pytest.approx(lat[-1], rel=1e-5)
    kept_cdf = kept.get_column("cdf").to_list()
    j = 0
    for x, c in zip(lat, cdf, strict=True):
        while j + 1 < len(kept_lat) and kept_lat[j + 1] <= x * (1 + 1e-5):  # latencies kept to 6 digits
            j += 1
        assert c - kept_cdf[j] <= 1 / figdata.CDF_CELLS + 1e-6
        tail, kept_tail = 1 - c, 1 - kept_cdf[j]
        if tail >= 1e-4:
            assert math.log10(kept_tail) - math.log10(tail) <= 1 / figdata.CDF_TAIL_CELLS_PER_DECADE + 1e-3


def test_time_series_merge_is_mean_and_p99_max() -> None:
    report = synthetic_report(schemes=("s",), tenants=("a",), windows=1000)
    view = figdata.series_view(report, max_windows=300)
    per = view.windows_per_point
    assert per == math.ceil(1000 / 300)
    assert view.frame.height == math.ceil(1000 / per)
    raw = report.timeseries
    first = raw.head(per)
    row = view.frame.row(0, named=True)
    assert row["read_mean_us"] == pytest.approx(first.get_column("read_mean_us").mean())
    assert row["read_p99_us"] == first.get_column("read_p99_us").max()
    assert row["window_start_s"] == first.get_column("window_start_s")[0]


def test_latency_is_masked_where_a_window_had_no_request() -> None:
    report = synthetic_report(schemes=("s",), tenants=("a",), windows=4)
    ts = report.timeseries.with_columns(
        pl.when(pl.int_range(pl.len()) == 1).then(0.0).otherwise(pl.col("write_iops")).alias("write_iops")
    )
    view = figdata.series_view(Report(report.summary_json, "", ts))
    assert view.frame.get_column("write_mean_us").to_list()[1] is None
    assert view.frame.get_column("read_mean_us").to_list()[1] is not None


def test_stream_map_is_one_step_line_per_virtual_stream_and_tenant() -> None:
    """The engine's `vs<i>_physical_stream` columns (docs/streams/README.md) are drawn by
    the `stream-map` entry: one panel per tenant, one line per virtual stream."""
    extra = {f"vs{i}_physical_stream": {"alpha": float(i % 4)} for i in range(3)}
    report = synthetic_report(schemes=("alpha",), tenants=("a", "b"), extra=extra)
    assert built(report) == {"fig-series-0-stream-map": 3 * 2}
    assert 'id="fig-series-0-stream-map"' in html_report.render(report)


def test_stream_ids_merge_by_most_frequent_not_mean() -> None:
    """A physical stream is an id: merged windows take the most frequent (lowest on ties);
    windows where the virtual stream wrote nothing (NaN) do not vote."""
    report = synthetic_report(
        schemes=("s",), tenants=("a",), windows=1000, extra={"vs0_physical_stream": {"s": 0.0}}
    )
    pattern = [1.0, 3.0, 3.0, math.nan]
    ts = report.timeseries.with_columns(
        pl.Series("vs0_physical_stream", [pattern[i % 4] for i in range(1000)])
    )
    view = figdata.series_view(Report(report.summary_json, "", ts), max_windows=250)
    assert view.windows_per_point == 4
    assert set(view.frame.get_column("vs0_physical_stream").to_list()) == {3.0}, "the mean would be 2.33"


@pytest.fixture(scope="module")
def real_run() -> Report:
    """A real run of the default scenario's three tenants under unified and partitioned, with
    short windows (6,000 per tenant) so that reduction matters."""
    return ftlab.run(default_scenario(duration_s=60.0, window_s=0.01), seed=3)


def test_html_size_bound_three_schemes_three_tenants(real_run: Report) -> None:
    """report.html stays under 10 MB for three schemes x three tenants. Only two schemes
    exist so far (upi is coming), so the real 2 x 3 run is measured, and a 3 x 3 Report
    made from it by adding unified's results again under a third name (the report never
    looks at names, so this is the size a third scheme of this run adds)."""
    assert len(real_run.schemes) * len(real_run.tenants) == 2 * 3
    assert real_run.timeseries.height >= 2 * 3 * 6000
    two = len(real_run.to_html().encode("utf-8"))
    three_report = with_scheme_copy(real_run, "unified", "unified-again")
    assert len(three_report.schemes) * len(three_report.tenants) == 3 * 3
    three = len(three_report.to_html().encode("utf-8"))
    print(f"report.html: 2x3 {two / 1e6:.2f} MB, 3x3 {three / 1e6:.2f} MB")
    assert two < three < 10_000_000


def test_array_run_has_the_host_layers_table() -> None:
    """An array run's report.html opens with the host layer's table (docs/array.md): one row per
    tenant and scheme, each cell's number the summary's `array` value (the p95 included), and
    a link to it; a run without an array has neither."""
    bundled = Path(ftlab.__file__).parent / "scenarios" / "array.toml"
    report = ftlab.run(bundled, set=["measure.duration_s=0.6", 'array.fail_fast="brt"'])
    page = html_report.render(report)
    assert '<a href="#array">' in page and 'id="array-table"' in page
    table = page[page.index('id="array-table"') : page.index("</table>", page.index('id="array-table"'))]
    schemes = report.summary["array"]["schemes"]
    rows = re.findall(r'<tr data-tenant="([^"]+)" data-scheme="([^"]+)">(.*?)</tr>', table)
    assert len(rows) == sum(len(v["tenants"]) for v in schemes.values())
    for tenant, scheme, cells in rows:
        typed = schemes[scheme]["tenants"][tenant]
        t: Mapping[str, object] = typed
        values = re.findall(r'data-value="([^"]*)"', cells)
        want: list[object] = []
        for _, op, key in html_report.ARRAY_COLUMNS:
            part = (t.get(op) or {}) if op else t
            assert isinstance(part, Mapping)
            want.append(part.get(key))
        for got, w, (_, op, key) in zip(values, want, html_report.ARRAY_COLUMNS, strict=True):
            if got:
                assert isinstance(w, (int, float)) and float(got) == float(w), (tenant, scheme, op, key)
        assert typed["read"]["count"] == 0 or values[2] == str(typed["read"]["p95_us"])
    plain = html_report.render(synthetic_report())
    assert 'id="array-table"' not in plain and '<a href="#array">' not in plain
