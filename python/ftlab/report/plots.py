"""ftlab.report.plots: publication figures of a run as PNG or SVG (`ftlab plot`, `ftlab.plot`),
drawn with matplotlib's Agg/SVG canvases (no pyplot, no display, no global state).

Four kinds: `cdf` (per tenant, a latency CDF panel on a log µs axis and a tail panel
1 - CDF on a log axis down to 10^-4, for reads and, if present, writes), `timeseries` (per
tenant, mean and p99 latency and IOPS over time; then device WAF, GC copies and erases),
`wear` (erase count per die and block, one heatmap per scheme, cividis colour map) and `bars`
(mean and p99 latency per tenant and scheme as grouped bars, read and write, from
summary.json via `ftlab.report.headline.bars`, the numbers of report.html's bars). Each
scheme keeps one colour, line style and marker (`ftlab.report.style`) so the figures read in
greyscale. The data are reduced as for the HTML report (`ftlab.report.figdata`). Files are written
atomically; the same run gives the same bytes. No simulation logic, no terminal output.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Union, cast

from ftlab._errors import MissingResultError, input_error, usage_error
from ftlab.report import Report, figdata, headline, load, write_files_atomically
from ftlab.report.style import WEAR_COLORMAP, scheme_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure, SubFigure
    from matplotlib.typing import RcKeyType

# matplotlib is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

StrPath = Union[str, "os.PathLike[str]"]

#: Plot kinds, the first is the default.
KINDS = ("cdf", "timeseries", "wear", "bars")
#: The results file each kind draws from.
KIND_FILES = {
    "cdf": "latency_cdf.parquet",
    "timeseries": "timeseries.parquet",
    "wear": "wear.parquet",
    "bars": "summary.json",
}
#: Output formats by file suffix.
FORMATS = {".png": "png", ".svg": "svg"}
#: Resolution of PNG output.
DPI = 300
#: Size of one panel, in inches.
PANEL_IN = (3.0, 2.3)
#: matplotlib rc parameters of every ftlab figure (the reproductions' figures too).
RC_PARAMS: dict[RcKeyType, object] = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.2,
    "lines.markersize": 3.5,
    "svg.hashsalt": "ftlab",
    "svg.fonttype": "path",
}


def plot(
    source: Report | StrPath,
    kind: str = "cdf",
    path: StrPath | None = None,
    *,
    ops: Sequence[str] | None = None,
) -> Path:
    """Draw `kind` ("cdf", "timeseries", "wear" or "bars") of a Report or a results directory into
    `path` (.png or .svg; default: DIR/<kind>.png for a directory). `ops` picks the CDF
    operations (default: read, and write if present). Returns the path written.

    Raises `ftlab.UsageError` naming the argument (`kind`, `path`, `ops`) and
    `ftlab.InputError` naming the directory and missing file.

    >>> import ftlab
    >>> ftlab.plot("results/default", "cdf", "fig4.png", ops=["read"])  # doctest: +SKIP
    PosixPath('fig4.png')
    """
    if kind not in KINDS:
        raise usage_error("kind", f"unknown plot kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    if ops is not None and kind != "cdf":
        raise usage_error("ops", f"operations apply to the cdf plot only, not to {kind!r}")
    if path is None and isinstance(source, Report):
        raise usage_error("path", "an output path is needed when plotting a Report (not a results directory)")
    out = Path(path) if path is not None else Path(source) / f"{kind}.png"  # type: ignore[arg-type]
    fmt = output_format(out, "path")
    if not isinstance(source, Report):
        _check_results(Path(source), kind)
    report = source if isinstance(source, Report) else load(source)
    fig = figure(report, kind, ops=ops)
    save(fig, out, fmt)
    return out


def _check_results(run_dir: Path, kind: str) -> None:
    """A precise error if `run_dir` lacks the file `kind` draws (before loading it all)."""
    needed = run_dir / KIND_FILES[kind]
    if run_dir.is_dir() and not needed.exists():
        raise input_error(
            needed,
            f"no such file; the {kind} plot needs it (is {run_dir} written by an older ftlab?)",
            MissingResultError,
        )


def output_format(path: StrPath, arg: str) -> str:
    """The format ("png" or "svg") of an output path, from its suffix; otherwise an
    `ftlab.UsageError` naming `arg`.

    >>> output_format("fig.svg", "-o")
    'svg'
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise usage_error(arg, f"{os.fspath(path)!r} has the suffix {suffix or '(none)'!r}; use .png or .svg")
    return FORMATS[suffix]


#: matplotlib's settings (rcParams) are one per process, and a reproduction's seeds draw in
#: threads: every ftlab figure is built and saved holding this lock (`styled`, or the lock
#: alone for a figure drawn with matplotlib's own defaults), so that no figure is drawn under
#: another thread's settings and a figure's bytes depend on its data only. Re-entrant: `save`
#: inside a `styled` block takes it again.
DRAWING = threading.RLock()


@contextmanager
def styled() -> Iterator[None]:
    """Build or save a figure with ftlab's settings (`RC_PARAMS`), holding `DRAWING`."""
    import matplotlib

    with DRAWING, matplotlib.rc_context(RC_PARAMS):
        yield


def save(fig: Figure, path: StrPath, fmt: str) -> None:
    """Write `fig` to `path` atomically (parent directories are created)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"Date": None} if fmt == "svg" else {}
    with styled():
        write_files_atomically(
            out.parent, {out.name: lambda p: fig.savefig(p, format=fmt, dpi=DPI, metadata=metadata)}
        )


def figure(report: Report, kind: str, *, ops: Sequence[str] | None = None) -> Figure:
    """The matplotlib Figure of `kind` (see `plot`), for further editing.

    >>> fig = figure(report, "cdf", ops=["read"])  # doctest: +SKIP
    >>> fig.axes[0].get_xscale()  # doctest: +SKIP
    'log'
    """
    with styled():
        if kind == "cdf":
            return _cdf_figure(report, ops)
        if kind == "timeseries":
            return _timeseries_figure(report)
        if kind == "wear":
            return _wear_figure(report)
        if kind == "bars":
            return _bars_figure(report)
    raise usage_error("kind", f"unknown plot kind {kind!r}; valid kinds: {', '.join(KINDS)}")


def _new_figure(cols: int, rows: int) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(PANEL_IN[0] * cols + 0.4, PANEL_IN[1] * rows + 0.5), layout="constrained")


def _styled_line(
    ax: Axes,
    x: Sequence[float],
    y: Sequence[float | None],
    index: int,
    label: str,
    *,
    log: bool = False,
    drawstyle: str = "default",
) -> bool:
    """Plot one scheme's series (`drawstyle` matplotlib's: "steps-post" for a CDF); False
    (nothing drawn) when no point can be shown: none is a number, or, on a log axis (`log`),
    none is positive. A series of one point is drawn as its marker alone."""
    values = [float("nan") if v is None else float(v) for v in y]
    shown = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not shown:
        return False
    style = scheme_style(index)
    ax.plot(
        x,
        values,
        label=label,
        color=style.color,
        linestyle=style.mpl_linestyle,
        marker=style.mpl_marker,
        markevery=0.1 if len(shown) > 1 else None,
        markerfacecolor="white",
        markeredgecolor=style.color,
        drawstyle=drawstyle,
    )
    return True


def _empty_panel(ax: Axes, title: str, note: str) -> None:
    """A panel with nothing to draw: its title and a note saying why, on linear axes."""
    ax.set_title(title)
    ax.text(0.5, 0.5, note, ha="center", va="center", transform=ax.transAxes, fontsize=8, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def _legend(fig: Figure | SubFigure, schemes: Sequence[str]) -> None:
    from matplotlib.lines import Line2D

    handles = []
    for i, scheme in enumerate(schemes):
        style = scheme_style(i)
        handles.append(
            Line2D(
                [],
                [],
                color=style.color,
                linestyle=style.mpl_linestyle,
                marker=style.mpl_marker,
                markerfacecolor="white",
                markeredgecolor=style.color,
                label=scheme,
            )
        )
    fig.legend(handles=handles, loc="outside upper center", ncols=min(len(schemes), 6), frameon=False)


def _cdf_figure(report: Report, ops: Sequence[str] | None) -> Figure:
    available = figdata.cdf_ops(report)
    if not available:
        raise usage_error(
            "kind", "this run has no latency CDFs (latency_cdf.parquet); the cdf plot needs them"
        )
    wanted = [op for op in available if op in ("read", "write")] if ops is None else list(ops)
    missing = [op for op in wanted if op not in available]
    if missing or not wanted:
        raise usage_error(
            "ops",
            f"no latency CDF for {', '.join(missing) or 'no operation'}; this run has {', '.join(available)}",
        )
    points = {op: figdata.cdf_points(report, op) for op in wanted}
    schemes = figdata.schemes(report)
    present = {t for p in points.values() for t in p.get_column("tenant").to_list()}
    tenants = [t for t in figdata.tenants(report) if t in present]
    fig = _new_figure(len(tenants), 2 * len(wanted))
    axes = fig.subplots(2 * len(wanted), len(tenants), squeeze=False)
    for k, op in enumerate(wanted):
        for c, tenant in enumerate(tenants):
            cdf_ax, tail_ax = axes[2 * k][c], axes[2 * k + 1][c]
            drawn = tail_drawn = False
            for s, scheme in enumerate(schemes):
                curve = points[op].filter(scheme=scheme, tenant=tenant)
                x = curve.get_column("latency_us").to_list()
                if not any(v > 0 for v in x):
                    continue  # no latency to place on a log axis (no request of this op)
                drawn |= _styled_line(
                    cdf_ax, x, curve.get_column("cdf").to_list(), s, scheme, drawstyle="steps-post"
                )
                tail_drawn |= _styled_line(
                    tail_ax,
                    x,
                    curve.get_column("tail").to_list(),
                    s,
                    scheme,
                    log=True,
                    drawstyle="steps-post",
                )
            if drawn:
                _cdf_axes(cdf_ax, tail_ax, tenant, op)
                if not tail_drawn:
                    note = "too few requests for a tail"
                    tail_ax.text(
                        0.5, 0.5, note, ha="center", va="center", transform=tail_ax.transAxes, fontsize=8
                    )
            else:
                _empty_panel(cdf_ax, f"{tenant}: {op} latency", f"no {op} requests measured")
                _empty_panel(tail_ax, f"{tenant}: {op} latency tail", f"no {op} requests measured")
    _legend(fig, schemes)
    return fig


def _cdf_axes(cdf_ax: Axes, tail_ax: Axes, tenant: str, op: str) -> None:
    cdf_ax.set_title(f"{tenant}: {op} latency")
    cdf_ax.set_ylim(0.0, 1.02)
    cdf_ax.set_ylabel("CDF")
    tail_ax.set_title(f"{tenant}: {op} latency tail")
    tail_ax.set_yscale("log")
    tail_ax.set_ylim(1e-4, 1.0)
    tail_ax.set_ylabel("1 − CDF")
    log_ticks(tail_ax.yaxis, tail_ax.get_ylim(), powers=True)
    for ax in (cdf_ax, tail_ax):
        ax.set_xscale("log")
        ax.set_xlabel("latency (µs)")
        log_ticks(ax.xaxis, ax.get_xlim())
        ax.grid(True, which="major", linewidth=0.4, alpha=0.5)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _tick_label(value: float, powers: bool = False) -> str:
    """A log-axis tick label without mathtext: 0.5, 20, 3000; 10⁻⁴ and 10⁶ beyond (or for
    every power of ten with `powers`)."""
    if value <= 0:
        return ""
    if 1e-3 <= value < 1e5 and not (powers and value != 1):
        return f"{value:g}"
    exponent = math.log10(value)
    if abs(exponent - round(exponent)) < 1e-9:
        return "10" + str(round(exponent)).translate(_SUPERSCRIPT)
    return f"{value:.0e}"


def log_ticks(axis: Axis, limits: tuple[float, float], powers: bool = False) -> None:
    """Plain tick labels on a log axis (fast, no mathtext); 2x and 5x minor ticks are
    labelled only when the axis spans less than a decade and a half."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    low, high = (max(v, 1e-12) for v in limits)
    axis.set_major_locator(LogLocator(base=10, numticks=8))
    axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0), numticks=12))
    axis.set_major_formatter(FuncFormatter(lambda v, _: _tick_label(v, powers)))
    if abs(math.log10(high) - math.log10(low)) < 1.5:
        axis.set_minor_formatter(
            FuncFormatter(lambda v, _: _tick_label(v) if _leading_digit(v) in (2, 5) else "")
        )
    else:
        axis.set_minor_formatter(NullFormatter())


def _leading_digit(value: float) -> int:
    return round(value / 10 ** math.floor(math.log10(value))) if value > 0 else 0


_TENANT_ROWS = (
    ("read_mean_us", "read latency, mean (µs)", "log"),
    ("read_p99_us", "read latency, p99 (µs)", "log"),
    ("write_mean_us", "write latency, mean (µs)", "log"),
    ("write_p99_us", "write latency, p99 (µs)", "log"),
    ("read_iops", "read IOPS", "linear"),
    ("write_iops", "write IOPS", "linear"),
)
_DEVICE_PANELS = (
    ("device_waf", "device WAF"),
    ("gc_pages_copied", "GC pages copied per window"),
    ("erases", "erases per window"),
)


def _timeseries_figure(report: Report) -> Figure:
    view = figdata.series_view(report)
    frame = view.frame
    schemes, tenants = figdata.schemes(report), figdata.tenants(report)
    rows = [r for r in _TENANT_ROWS if r[0] in frame.columns and frame.get_column(r[0]).drop_nulls().len()]
    device = figdata.device_series(view)
    panels = [p for p in _DEVICE_PANELS if p[0] in device.columns]
    cols = max(len(tenants), len(panels), 1)
    fig = _new_figure(cols, len(rows) + (1 if panels else 0))
    # Two rows of subfigures come back as an array (matplotlib types it as one SubFigure or an array).
    top, bottom = cast(
        "Sequence[SubFigure]", fig.subfigures(2, 1, height_ratios=[max(len(rows), 1), 1 if panels else 0.01])
    )
    axes = top.subplots(max(len(rows), 1), max(len(tenants), 1), squeeze=False, sharex=True)
    for r, (column, label, scale) in enumerate(rows):
        for c, tenant in enumerate(tenants):
            ax = axes[r][c]
            drawn = False
            for s, scheme in enumerate(schemes):
                part = frame.filter(scheme=scheme, tenant=tenant)
                drawn |= _styled_line(
                    ax,
                    part.get_column("window_start_s").to_list(),
                    part.get_column(column).to_list(),
                    s,
                    scheme,
                    log=scale == "log",
                )
            if not drawn:
                _empty_panel(ax, tenant if r == 0 else "", f"no {label.split(' ')[0]}s measured")
                ax.set_ylabel(label)
                continue
            ax.set_yscale(scale)
            if scale == "log":
                log_ticks(ax.yaxis, ax.get_ylim())
            ax.set_title(tenant if r == 0 else "")
            ax.set_ylabel(label)
            ax.set_xlabel("time (s)" if r == len(rows) - 1 else "")
    if panels:
        _device_panels(bottom, device, panels, schemes)
    _legend(top, schemes)
    if view.windows_per_point > 1:
        fig.suptitle(f"{view.windows_per_point} windows per point (mean; p99: max)", fontsize=7)
    return fig


def _device_panels(
    sub: SubFigure, device: object, panels: Sequence[tuple[str, str]], schemes: Sequence[str]
) -> None:
    axes = sub.subplots(1, len(panels), squeeze=False)[0]
    for ax, (column, label) in zip(axes, panels, strict=True):
        for s, scheme in enumerate(schemes):
            part = device.filter(scheme=scheme)  # type: ignore[attr-defined]
            _styled_line(
                ax, part.get_column("window_start_s").to_list(), part.get_column(column).to_list(), s, scheme
            )
        ax.set_title(label)
        ax.set_ylabel(label)
        ax.set_xlabel("time (s)")


def _wear_figure(report: Report) -> Figure:
    from matplotlib.colors import Normalize

    if report.wear is None or not report.wear.height:
        raise usage_error("kind", "this run has no wear table (wear.parquet); the wear plot needs it")
    schemes = [s for s in figdata.schemes(report) if report.wear.filter(scheme=s).height]
    matrices = [figdata.wear_matrix(report, s) for s in schemes]
    counts = report.wear.get_column("erase_count")
    lo, hi = counts.min(), counts.max()
    assert isinstance(lo, int) and isinstance(hi, int), "erase_count is a non-empty UInt64 column"
    norm = Normalize(vmin=float(lo), vmax=float(max(hi, lo + 1)))
    fig = _new_figure(1, len(schemes))
    fig.set_size_inches(PANEL_IN[0] * 2.2, PANEL_IN[1] * len(schemes) + 0.5)
    axes = fig.subplots(len(schemes), 1, squeeze=False)[:, 0]
    image = None
    for ax, scheme, m in zip(axes, schemes, matrices, strict=True):
        width = m.z.shape[1] * m.blocks_per_column
        image = ax.imshow(
            m.z,
            aspect="auto",
            cmap=WEAR_COLORMAP,
            norm=norm,
            interpolation="nearest",
            extent=(0, width, len(m.dies) - 0.5, -0.5),
        )
        ax.set_title(f"{scheme}: erase count per block")
        ax.set_ylabel("die")
        ax.set_xlabel(
            "block" if m.blocks_per_column == 1 else f"block ({m.blocks_per_column} per cell, mean)"
        )
    assert image is not None, "one panel per scheme, and there is at least one scheme"
    fig.colorbar(image, ax=list(axes), label="erase count (erases)")
    return fig


def _bars_figure(report: Report) -> Figure:
    """Per operation with requests (rows: read, write) and statistic (columns: mean, p99):
    grouped bars, x = tenants, one bar per scheme (its colour and hatch)."""
    groups = headline.bars(report.summary)
    if not groups:
        raise usage_error(
            "kind", "no tenant of this run issued reads or writes; the bars plot has nothing to draw"
        )
    stats = headline.BAR_STATS
    width_in = max(PANEL_IN[0], 0.35 * max(len(g.tenants) for g in groups) * len(report.schemes) + 1.0)
    fig = _new_figure(len(stats), len(groups))
    fig.set_size_inches(width_in * len(stats) + 0.4, PANEL_IN[1] * len(groups) + 0.5)
    axes = fig.subplots(len(groups), len(stats), squeeze=False)
    for r, group in enumerate(groups):
        n = max(len(group.schemes), 1)
        width = 0.8 / n
        for c, (stat, label) in enumerate(stats):
            ax = axes[r][c]
            for s, scheme in enumerate(group.schemes):
                style = scheme_style(s)
                xs = [i - 0.4 + width * (s + 0.5) for i in range(len(group.tenants))]
                ys = [float("nan") if v is None else v for v in group.values[stat][scheme]]
                ax.bar(
                    xs,
                    ys,
                    width,
                    label=scheme,
                    color=style.color,
                    hatch=style.mpl_hatch,
                    edgecolor="black",
                    linewidth=0.5,
                )
            ax.set_xticks(range(len(group.tenants)), list(group.tenants))
            ax.set_title(f"{group.op} latency, {label}")
            ax.set_ylabel(f"{label} latency (µs)")
            ax.set_ylim(bottom=0)
            ax.grid(True, axis="y", linewidth=0.4, alpha=0.5)
            ax.set_axisbelow(True)
    _bar_legend(fig, report.schemes)
    return fig


def _bar_legend(fig: Figure, schemes: Sequence[str]) -> None:
    from matplotlib.patches import Patch

    handles = [
        Patch(
            facecolor=scheme_style(i).color,
            hatch=scheme_style(i).mpl_hatch,
            edgecolor="black",
            linewidth=0.5,
            label=scheme,
        )
        for i, scheme in enumerate(schemes)
    ]
    fig.legend(handles=handles, loc="outside upper center", ncols=min(len(schemes), 6), frameon=False)
