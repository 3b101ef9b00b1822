"""Tests of `ftlab plot` / `ftlab.plot` (ftlab.report.plots) on a real small run: the CDF layout
(panels per tenant, log µs axis, tail down to 10^-4), labelled axes with units, styles that
stay apart in greyscale (lightness computed here from the colours), the cividis wear map,
PNG/SVG by suffix with deterministic bytes, and precise errors (exit 2, no traceback, the
argument or the directory and file named), plus `ftlab run` writing a byte-identical
report.html."""

from __future__ import annotations

import itertools
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import cast

import polars as pl
import pytest
from matplotlib.lines import Line2D
from matplotlib.typing import ColorType

import ftlab
from conftest import joined, run_cli
from ftlab.report import Report, lifetime, plots
from ftlab.results import LifetimeModel
from reports import default_scenario

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plots") / "run"
    ftlab.run(default_scenario(duration_s=4.0, window_s=0.25), seed=11, out=out)
    return out


@pytest.fixture(scope="module")
def report(run_dir: Path) -> Report:
    return ftlab.load(run_dir)


def label(line: Line2D) -> str:
    """A line's label (matplotlib types it as an object; ftlab's are strings)."""
    text = line.get_label()
    assert isinstance(text, str), text
    return text


def lightness(color: ColorType) -> float:
    """CIELAB L* of an sRGB colour (#rrggbb or a matplotlib RGBA tuple)."""
    from matplotlib.colors import to_rgb

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in to_rgb(color))
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return 116 * y ** (1 / 3) - 16 if y > 216 / 24389 else 24389 / 27 * y


def test_cdf_figure_layout(report: Report) -> None:
    fig = plots.figure(report, "cdf")
    assert report.latency_cdf is not None
    tenants = report.latency_cdf.get_column("tenant").n_unique()
    ops = report.latency_cdf.filter(pl.col("op").is_in(["read", "write"])).get_column("op").n_unique()
    axes = [ax for ax in fig.axes if ax.get_lines()]
    assert len(axes) == 2 * ops * tenants
    cdf_axes = [ax for ax in axes if ax.get_ylabel() == "CDF"]
    tail_axes = [ax for ax in axes if ax.get_ylabel() == "1 − CDF"]
    assert len(cdf_axes) == len(tail_axes) == ops * tenants
    for ax in axes:
        assert ax.get_xscale() == "log"
        assert "(µs)" in ax.get_xlabel()
    for ax in tail_axes:
        assert ax.get_yscale() == "log"
        assert ax.get_ylim()[0] == pytest.approx(1e-4)
    schemes = report.schemes
    for ax in axes:
        assert sorted(label(line) for line in ax.get_lines()) == sorted(schemes)


def test_scheme_styles_stay_apart_in_greyscale(report: Report) -> None:
    """In every panel, the schemes' lines differ in lightness (at least 10 L* apart), line
    style and marker; and a scheme looks the same in every panel."""
    fig = plots.figure(report, "cdf")
    looks: dict[object, tuple[object, str, object]] = {}
    for ax in fig.axes:
        lines = ax.get_lines()
        for line in lines:
            look = (line.get_color(), str(line.get_linestyle()), line.get_marker())
            assert looks.setdefault(line.get_label(), look) == look
        for a, b in itertools.combinations(lines, 2):
            assert abs(lightness(a.get_color()) - lightness(b.get_color())) >= 10
            assert a.get_linestyle() != b.get_linestyle()
            assert a.get_marker() != b.get_marker()
    assert len(looks) == len(report.schemes)


def test_style_table_is_greyscale_safe() -> None:
    from ftlab.report.style import STYLES

    levels = [lightness(s.color) for s in STYLES]
    assert all(b - a >= 12 for a, b in itertools.pairwise(levels)), levels
    assert len({str(s.mpl_linestyle) for s in STYLES}) == len({s.mpl_marker for s in STYLES}) == len(STYLES)
    assert len({s.plotly_dash for s in STYLES}) == len(STYLES)


def test_read_only_cdf_for_figure_4(report: Report) -> None:
    fig = plots.figure(report, "cdf", ops=["read"])
    assert report.latency_cdf is not None
    tenants = report.latency_cdf.filter(op="read").get_column("tenant").n_unique()
    axes = [ax for ax in fig.axes if ax.get_lines()]
    assert len(axes) == 2 * tenants
    assert all("read" in ax.get_title() for ax in axes)


def test_timeseries_axes_are_labelled(report: Report) -> None:
    fig = plots.figure(report, "timeseries")
    axes = [ax for ax in fig.axes if ax.get_lines()]
    assert axes
    for ax in axes:
        assert ax.get_ylabel(), ax.get_title()
    labels = {ax.get_ylabel() for ax in axes}
    assert {"read latency, p99 (µs)", "read IOPS", "device WAF"} <= labels
    assert any(ax.get_xlabel() == "time (s)" for ax in axes)


def test_wear_uses_cividis_and_labels_the_colour_bar(report: Report) -> None:
    fig = plots.figure(report, "wear")
    images = [im for ax in fig.axes for im in ax.get_images()]
    assert report.wear is not None
    assert len(images) == report.wear.get_column("scheme").n_unique()
    assert {im.get_cmap().name for im in images} == {"cividis"}
    assert any("erase count" in ax.get_ylabel() for ax in fig.axes)


def test_png_and_svg_by_suffix_deterministic(report: Report, tmp_path: Path) -> None:
    png = ftlab.plot(report, "cdf", tmp_path / "a.png")
    assert png.read_bytes().startswith(PNG_MAGIC)
    svg = ftlab.plot(report, "wear", tmp_path / "w.svg")
    again = ftlab.plot(report, "wear", tmp_path / "w2.svg")
    text = svg.read_text()
    assert "<svg" in text and svg.read_bytes() == again.read_bytes()


def test_plot_api_errors(report: Report, run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ftlab.UsageError) as info:
        ftlab.plot(report, "cdf", tmp_path / "x.jpg")
    assert info.value.arg == "path" and ".jpg" in str(info.value)
    with pytest.raises(ftlab.UsageError) as info:
        ftlab.plot(report, "cdf")
    assert info.value.arg == "path"
    with pytest.raises(ftlab.UsageError) as info:
        ftlab.plot(run_dir, "histogram")
    assert info.value.arg == "kind"
    with pytest.raises(ftlab.UsageError) as info:
        ftlab.plot(report, "cdf", tmp_path / "t.png", ops=["trim"])
    assert info.value.arg == "ops"
    with pytest.raises(ftlab.UsageError) as info:
        ftlab.plot(report, "wear", tmp_path / "w.png", ops=["read"])
    assert info.value.arg == "ops"
    assert not list(tmp_path.iterdir())


def test_cli_plot_default_output_and_kinds(run_dir: Path, tmp_path: Path) -> None:
    proc = run_cli(["plot", str(run_dir)])
    assert proc.returncode == 0, proc.stderr
    assert (run_dir / "cdf.png").read_bytes().startswith(PNG_MAGIC)
    proc = run_cli(["plot", str(run_dir), "--kind", "wear", "-o", str(tmp_path / "sub" / "wear.svg")])
    assert proc.returncode == 0, proc.stderr
    assert "<svg" in (tmp_path / "sub" / "wear.svg").read_text()


def assert_input_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in joined(proc.stderr), proc.stderr


def test_cli_plot_errors(run_dir: Path, tmp_path: Path) -> None:
    assert_input_error(run_cli(["plot", str(run_dir), "-o", str(tmp_path / "fig.jpg")]), "--out", ".jpg")
    assert_input_error(run_cli(["plot", str(run_dir), "--kind", "pie"]), "--kind")
    assert_input_error(run_cli(["plot", str(run_dir), "--op", "trim"]), "--op", "trim")
    missing = tmp_path / "nope"
    assert_input_error(run_cli(["plot", str(missing)]), str(missing))
    old = tmp_path / "old"
    old.mkdir()
    for name in ("summary.json", "timeseries.parquet", "scenario.resolved.toml"):
        shutil.copy(run_dir / name, old / name)
    assert_input_error(run_cli(["plot", str(old)]), str(old / "latency_cdf.parquet"))
    assert_input_error(run_cli(["plot", str(old), "-k", "wear"]), "wear.parquet")
    assert sorted(p.name for p in old.iterdir()) == [
        "scenario.resolved.toml",
        "summary.json",
        "timeseries.parquet",
    ]
    assert ftlab.plot(old, "timeseries").read_bytes().startswith(PNG_MAGIC)


def test_cli_run_writes_the_same_report_html(tmp_path: Path) -> None:
    args = ["run", "--seed", "4", "--set", "measure.duration_s=1.0"]
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        proc = run_cli([*args, "--out", str(out)])
        assert proc.returncode == 0, proc.stderr
        assert "report.html" in proc.stdout
    page = (first / "report.html").read_bytes()
    assert page.startswith(b"<!DOCTYPE html>") and page == (second / "report.html").read_bytes()


ODD = Path(__file__).parent / "data" / "odd-one-read.toml"


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run in which tenant `lonely` has one read and no write (issue 42)."""
    out = tmp_path_factory.mktemp("odd") / "run"
    report = ftlab.run(ODD, out=out)
    tenants = report.summary["schemes"]["unified"]["tenants"]
    assert tenants["lonely"]["read"]["count"] == 1 and tenants["lonely"]["write"]["count"] == 0
    return out


@pytest.mark.parametrize("kind", plots.KINDS)
def test_every_kind_plots_a_tenant_with_one_sample_or_none(odd_run: Path, kind: str, tmp_path: Path) -> None:
    """No traceback for a tenant with 0 or 1 samples of an operation: the CLI and the API both
    write the figure (a panel with nothing to draw says why)."""
    proc = run_cli(["plot", str(odd_run), "--kind", kind, "-o", str(tmp_path / f"{kind}.png")])
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and (tmp_path / f"{kind}.png").read_bytes().startswith(PNG_MAGIC)
    ftlab.plot(ftlab.load(odd_run), kind, tmp_path / f"{kind}-api.svg")
    assert (tmp_path / f"{kind}-api.svg").stat().st_size > 0


def test_an_empty_panel_says_why(odd_run: Path) -> None:
    fig = plots.figure(ftlab.load(odd_run), "cdf")
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "no write requests measured" in texts and "too few requests for a tail" in texts


def _odd_variant(tmp_path: Path, name: str, edits: dict[str, str]) -> Path:
    """The odd scenario with some lines replaced: a small, odd case for the CLI."""
    text = ODD.read_text()
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


ODD_CASES = {
    # the lonely tenant writes once and never reads
    "one-write": {"read_ratio = 1.0\n": "read_ratio = 0.0\n"},
    # the lonely tenant's rate is so low that it issues nothing in the run
    "no-request": {"rate_iops = 1.5\n": "rate_iops = 0.01\n"},
    # a run shorter than one window
    "short": {"duration_s = 1.0\n": "duration_s = 0.2\n"},
}


@pytest.mark.parametrize("case", sorted(ODD_CASES))
def test_the_cli_on_odd_scenarios_succeeds_or_says_why_in_one_line(case: str, tmp_path: Path) -> None:
    """Issue 42: every command a user reaches on a small, odd scenario either succeeds or exits
    2 with one error line, never a traceback: run, every plot kind, compare."""
    scenario = _odd_variant(tmp_path, case, ODD_CASES[case])
    out = tmp_path / "r"
    procs = [run_cli(["run", str(scenario), "--out", str(out)])]
    procs.append(run_cli(["compare", str(out), str(out)]))
    # every plot kind in this process (the CLI's plot path is the test above's)
    report = ftlab.load(out)
    for kind in plots.KINDS:
        ftlab.plot(report, kind, tmp_path / f"{kind}.png")
    for proc in procs:
        assert "Traceback" not in proc.stderr, (proc.args, proc.stderr)
        assert proc.returncode in (0, 2), (proc.args, proc.returncode, proc.stderr)
        if proc.returncode == 2:
            assert proc.stderr.startswith("error: "), proc.stderr


def _lifetime_model() -> LifetimeModel:
    """A hand-made lifetime model: two channels, three points per case."""
    series = [{"t_s": t * 86_400.0, "wear": [t * 10.0, t * 7.0]} for t in (0.0, 1.0, 2.0)]
    case = {"series": series, "n_swaps": 2}
    return cast(LifetimeModel, {"with_swaps": case, "without_swaps": case, "inputs": {"pe_cycles": 30}})


def test_figures_drawn_in_threads_are_the_serial_ones(report: Report, tmp_path: Path) -> None:
    """matplotlib's settings are one per process: a styled figure (ftlab's `RC_PARAMS`) and a
    figure with matplotlib's defaults (lifetime.png), drawn at once from two threads, as a
    reproduction's seeds do, give the bytes each gives alone (`plots.DRAWING`)."""
    model = _lifetime_model()

    def styled(path: Path) -> None:
        plots.plot(report, "cdf", path)

    def default(path: Path) -> None:
        lifetime.plot(model, path)

    styled(tmp_path / "styled.png")
    default(tmp_path / "default.png")
    with ThreadPoolExecutor(2) as pool:
        for i in range(4):
            list(
                pool.map(
                    lambda f: f[0](f[1]),
                    [(styled, tmp_path / f"s{i}.png"), (default, tmp_path / f"d{i}.png")],
                )
            )
    for i in range(4):
        assert (tmp_path / f"s{i}.png").read_bytes() == (tmp_path / "styled.png").read_bytes()
        assert (tmp_path / f"d{i}.png").read_bytes() == (tmp_path / "default.png").read_bytes()
