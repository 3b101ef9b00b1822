"""ftlab.reproduce.figures_draw: draws a declared figure's rows (`ftlab.reproduce.figures`
reads the declaration into `ftlab.reproduce.figures_decl`'s types): its panels, as bars or
lines, with their marks, spans and reference lines, into a PNG.

It draws the rows it is given as their declaration says; it selects no row, writes no data
file, reads no declaration and knows no paper (`ftlab.reproduce.figures` does the rest).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab.report.plots import log_ticks, save, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ftlab.reproduce.figures_decl import FigureDecl, PanelDecl, Row

#: The hatches of series without a shade, in the palette's order.
HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++")


def number(value: object) -> float:
    """`value` as a float; NaN if it is not a number."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def draw(decl: FigureDecl, rows: Sequence[Row], png: Path, values: Mapping[str, float]) -> Path:
    """`decl`'s figure of `rows` (already selected) into `png`; `values`: the paper's named values."""
    from matplotlib.figure import Figure

    groups = list(dict.fromkeys(str(r.get(decl.x)) for r in rows))
    series = list(dict.fromkeys(str(r.get(decl.series)) for r in rows)) if decl.series else [""]
    series = list(decl.series_columns) or series
    panels = shown(decl, rows)
    stacked = decl.layout == "column"
    with styled():
        fig = Figure(figsize=decl.size, layout="constrained")
        shape = (len(panels), 1) if stacked else (1, len(panels))
        axes = fig.subplots(*shape, squeeze=False, sharex=stacked).ravel()
        for i, (ax, panel) in enumerate(zip(axes, panels, strict=True)):
            mine = [r for r in rows if panel.holds(r)]
            if decl.kind == "line":
                _lines(ax, decl, panel, mine, series)
                _marks(ax, decl, rows, values)
                _line_axes(ax, decl, panel, values, legend=i == 0, xlabel=not stacked or i == len(panels) - 1)
            else:
                _bars(ax, decl, panel, mine, groups, series)
            if panel.title:
                ax.set_title(panel.title)
        fig.suptitle(decl.text(decl.title, values))
    save(fig, png, "png")
    return png


def shown(decl: FigureDecl, rows: Sequence[Row]) -> list[PanelDecl]:
    """The panels drawn: every declared one (one per value of its `by` column) but those whose
    `where` matches no row (the first declared if none is left, drawn empty)."""
    declared = [q for p in decl.panel_list() for q in p.split(rows)]
    found = [p for p in declared if not p.where or any(p.holds(r) for r in rows)]
    return found or (declared or list(decl.panel_list()))[:1]


# --------------------------------------------------------------------------------------
# Bars


def _look(decl: FigureDecl, name: str, index: int) -> tuple[str, str | None]:
    """A bar's colour and hatch: its series' declared shade, else the scheme palette's."""
    if name in decl.shades or not decl.split:
        return decl.shades.get(name, "0.55"), None
    from ftlab.report.style import scheme_style

    return scheme_style(index).color, HATCHES[index % len(HATCHES)]


def _at(row: Row, decl: FigureDecl, group: str, name: str) -> bool:
    """Whether `row` is the bar of `group` (and of series `name`, with a series)."""
    same = not decl.series or str(row.get(decl.series)) == name
    return str(row.get(decl.x)) == group and same


def _bars(
    ax: Axes, decl: FigureDecl, panel: PanelDecl, rows: Sequence[Row], groups: list[str], series: list[str]
) -> None:
    width = 0.8 / len(series)
    labelled: set[str] = set()
    tops = [1.0 if panel.reference is not None else 0.0]
    for i, group in enumerate(groups):
        for j, name in enumerate(series):
            row = next((r for r in rows if _at(r, decl, group, name)), None)
            value = math.nan if row is None else number(row.get(decl.column(name, panel.y)))
            if not math.isfinite(value):
                continue
            x = i + (j - (len(series) - 1) / 2) * width
            label = decl.series_labels.get(name, name) if decl.split and name not in labelled else None
            color, hatch = _look(decl, name, j)
            ax.bar(x, value, width, color=color, hatch=hatch, edgecolor="black", linewidth=0.5, label=label)
            labelled.add(name)
            if not panel.log:
                ax.annotate(f"{value:.2f}", (x, value), ha="center", va="bottom", fontsize=7)
            tops.append(value)
            paper = number(row.get(decl.paper)) if decl.paper and row is not None else math.nan
            if math.isfinite(paper):
                marker_label = None if "paper" in labelled else "paper"
                ax.plot([x], [paper], marker="D", color="black", markersize=4, label=marker_label)
                labelled.add("paper")
                tops.append(paper)
    if panel.reference is not None:
        ax.axhline(panel.reference, color="black", linewidth=0.6, linestyle="--")
    if panel.log:
        ax.set_yscale("log")
        log_ticks(ax.yaxis, ax.get_ylim())
    else:
        ax.set_ylim(0.0, 1.15 * (max(tops) or 1.0))
    _group_ticks(ax, decl, groups)
    ax.set_ylabel(panel.ylabel)
    ax.grid(True, axis="y", linewidth=0.4, alpha=0.5)
    if decl.split or decl.paper:
        ax.legend(fontsize=7)


def _group_ticks(ax: Axes, decl: FigureDecl, groups: list[str]) -> None:
    ticks = [decl.x_labels.get(g, g) for g in groups]
    # Side-by-side series leave room for level labels; one bar per group, for slanted ones.
    rotation, align = (0.0, "center") if decl.split else (30.0, "right")
    if decl.x_rotation is not None:
        rotation, align = decl.x_rotation, "right" if decl.x_rotation else "center"
    ax.set_xticks(range(len(groups)), ticks, rotation=rotation, ha=align)


# --------------------------------------------------------------------------------------
# Lines


def mark_x(decl: FigureDecl, rows: Sequence[Row]) -> float | None:
    """The x of a line figure's mark: of the first row where a `mark_first` column is > 0."""
    mark = next((r for r in rows if any(number(r.get(c)) > 0 for c in decl.mark_first)), None)
    return None if mark is None else number(mark.get(decl.x))


def _lines(ax: Axes, decl: FigureDecl, panel: PanelDecl, rows: Sequence[Row], series: list[str]) -> None:
    from ftlab.report.style import scheme_style

    for i, name in enumerate(series):
        mine = [r for r in rows if not decl.series or str(r.get(decl.series)) == name]
        if decl.positive:
            mine = [r for r in mine if number(r.get(panel.y)) > 0]
        if not mine:
            continue
        style = scheme_style(i)
        x = [number(r.get(decl.x)) * decl.x_scale for r in mine]
        y = [number(r.get(panel.y)) * decl.y_scale for r in mine]
        label = decl.series_labels.get(name, name) if decl.series else decl.line_label or None
        look = {"color": style.color, "linestyle": style.mpl_linestyle, "linewidth": 0.9, "label": label}
        if panel.step:
            ax.step(x, y, where="post", **look)  # type: ignore[arg-type]
        else:
            marker = style.mpl_marker if decl.markers else None
            ax.plot(x, y, marker=marker, markersize=3, **look)  # type: ignore[arg-type]


def _marks(ax: Axes, decl: FigureDecl, rows: Sequence[Row], values: Mapping[str, float]) -> None:
    """The figure's vertical marks (`mark_first`, `mark_at`) and its shaded span (`span_from`)."""
    for mark in (mark_x(decl, rows), decl.value("mark_at", values)):
        if mark is not None:
            ax.axvline(
                mark * decl.x_scale, color="black", linewidth=0.6, linestyle=":", label=decl.mark_label
            )
    start = decl.value("span_from", values)
    xs = [x for x in (number(r.get(decl.x)) for r in rows) if math.isfinite(x)]
    if start is not None:
        end = max(xs, default=start)
        ax.axvspan(start * decl.x_scale, end * decl.x_scale, color="0.9", zorder=0, label=decl.span_label)


def _line_axes(
    ax: Axes, decl: FigureDecl, panel: PanelDecl, values: Mapping[str, float], legend: bool, xlabel: bool
) -> None:
    """A line panel's reference line, scales, labels and legend (in the first panel, and in
    one with a labelled reference line)."""
    if panel.reference is not None:
        ax.axhline(panel.reference, color="black", linewidth=0.6, linestyle="--", label=panel.reference_label)
    if panel.log:
        ax.set_yscale("log")
        log_ticks(ax.yaxis, ax.get_ylim())
    else:
        ax.set_ylim(bottom=0)
    if decl.x_log:
        ax.set_xscale("log")
        log_ticks(ax.xaxis, ax.get_xlim())
    if xlabel:
        ax.set_xlabel(decl.text(panel.xlabel, values))
    ax.set_ylabel(panel.ylabel)
    if (legend or panel.reference_label) and ax.get_legend_handles_labels()[1]:
        ax.legend(frameon=False, fontsize="small", ncols=decl.legend_columns)
