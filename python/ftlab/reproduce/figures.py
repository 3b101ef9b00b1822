"""ftlab.reproduce.figures: the bar and line figures a claim file declares, `[[reproduce.figures]]`.

A declared figure draws rows of the paper's metrics (`PaperCode.rows`: metrics.csv's rows) as
bars and writes those rows beside it: `<stem>.png` and `<stem>.csv`. Its table says:

- `stem` and `title`; `csv`, the data file's stem where it is not `stem`; `size`, the
  figure's [width, height] in inches (default [7.0, 2.6]);
- `where`: the rows it draws, those whose columns equal these values (every row if absent);
- `x`: the column that names a bar group (its tick label; `x_labels` maps a value to a label;
  `x_rotation`, the labels' angle in degrees: by default 0 with series, 30 without);
- `y`: the columns drawn, one panel each, titled by `panels` (same length) if given;
- `series`: the column that splits a group into bars side by side, shaded by `shades` (a
  value -> a grey level; a series without one takes the scheme palette's colour and hatch,
  `ftlab.report.style`), with a legend; without it, one grey bar per row;
- `series_columns` instead of `series`, for wide rows: the series are these names and a bar's
  value of `y` is the column `<name>_<y>` of its group's row; `series_labels` maps a series to
  its legend's label;
- `paper`: the column holding the paper's value of the bar (a diamond marker, "paper");
- `ylabel`; `reference`: a dashed horizontal line at this value (none if absent); `log`: a
  logarithmic y axis (bars then carry no value labels).

On a linear axis each bar is annotated with its value (2 decimals); a missing value draws no
bar.

With `kind = "line"` the rows are drawn as lines instead of bars: `x` is then a numeric column
(the horizontal axis, titled `xlabel`), each `y` column a panel with one line per `series`
value (the scheme palette's colour, line style and marker; `line_label` names the line of a
figure without series), the y axis from 0 unless `log`; `mark_first` names columns: a dotted
vertical line, labelled `mark_label`, at the x of the first row where any of them is > 0 (none
if no row is). This module draws given rows; it reads no run and knows no paper.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab.report.plots import RC_PARAMS, log_ticks, save
from ftlab.reproduce.claims import write_csv
from ftlab.reproduce.decl import Fields, tables

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: A row of the paper's metrics, as drawn (its values: numbers, strings, None).
Row = Mapping[str, object]

#: The hatches of series without a shade, in the palette's order.
HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++")


@dataclass(frozen=True)
class FigureDecl:
    """One `[[reproduce.figures]]` table (see the module docstring)."""

    stem: str
    title: str
    x: str
    y: tuple[str, ...]
    size: tuple[float, float] = (7.0, 2.6)
    where: Mapping[str, str] = field(default_factory=dict)
    x_labels: Mapping[str, str] = field(default_factory=dict)
    panels: tuple[str, ...] = ()
    series: str = ""
    shades: Mapping[str, str] = field(default_factory=dict)
    paper: str = ""
    ylabel: str = ""
    reference: float | None = None
    log: bool = False
    kind: str = "bar"
    xlabel: str = ""
    line_label: str = ""
    mark_first: tuple[str, ...] = ()
    mark_label: str = ""
    series_columns: tuple[str, ...] = ()
    csv: str = ""
    x_rotation: float | None = None
    series_labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def split(self) -> bool:
        """Whether a group's bars are side by side, one per series."""
        return bool(self.series or self.series_columns)

    def column(self, name: str, y: str) -> str:
        """The column holding series `name`'s value of `y`: `<name>_<y>` with `series_columns`."""
        return f"{name}_{y}" if self.series_columns else y

    def rows(self, rows: Sequence[Row]) -> list[Row]:
        """The rows this figure draws."""
        return [r for r in rows if all(r.get(k) == v for k, v in self.where.items())]


def draw_all(decls: Sequence[FigureDecl], rows: Sequence[Row], out: Path) -> list[Path]:
    """Every declared figure of `rows` into `out`: its PNG, then its CSV, in order."""
    out.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for decl in decls:
        mine = decl.rows(rows)
        files.append(_draw(decl, mine, out / f"{decl.stem}.png"))
        files.append(write_csv(out / f"{decl.csv or decl.stem}.csv", mine))
    return files


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


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def _draw(decl: FigureDecl, rows: Sequence[Row], png: Path) -> Path:
    import matplotlib
    from matplotlib.figure import Figure

    groups = list(dict.fromkeys(str(r.get(decl.x)) for r in rows))
    series = list(dict.fromkeys(str(r.get(decl.series)) for r in rows)) if decl.series else [""]
    series = list(decl.series_columns) or series
    with matplotlib.rc_context(RC_PARAMS):
        fig = Figure(figsize=decl.size, layout="constrained")
        axes = fig.subplots(1, len(decl.y), squeeze=False)[0]
        for i, (ax, column) in enumerate(zip(axes, decl.y, strict=True)):
            if decl.kind == "line":
                _lines(ax, decl, rows, column, series)
            else:
                _panel(ax, decl, rows, column, groups, series)
            if decl.panels:
                ax.set_title(decl.panels[i])
        fig.suptitle(decl.title)
    save(fig, png, "png")
    return png


def _panel(
    ax: Axes, decl: FigureDecl, rows: Sequence[Row], column: str, groups: list[str], series: list[str]
) -> None:
    width = 0.8 / len(series)
    labelled: set[str] = set()
    tops = [1.0 if decl.reference is not None else 0.0]
    for i, group in enumerate(groups):
        for j, name in enumerate(series):
            row = next((r for r in rows if _at(r, decl, group, name)), None)
            value = math.nan if row is None else _number(row.get(decl.column(name, column)))
            if not math.isfinite(value):
                continue
            x = i + (j - (len(series) - 1) / 2) * width
            label = decl.series_labels.get(name, name) if decl.split and name not in labelled else None
            color, hatch = _look(decl, name, j)
            ax.bar(x, value, width, color=color, hatch=hatch, edgecolor="black", linewidth=0.5, label=label)
            labelled.add(name)
            if not decl.log:
                ax.annotate(f"{value:.2f}", (x, value), ha="center", va="bottom", fontsize=7)
            tops.append(value)
            paper = _number(row.get(decl.paper)) if decl.paper and row is not None else math.nan
            if math.isfinite(paper):
                marker_label = None if "paper" in labelled else "paper"
                ax.plot([x], [paper], marker="D", color="black", markersize=4, label=marker_label)
                labelled.add("paper")
                tops.append(paper)
    if decl.reference is not None:
        ax.axhline(decl.reference, color="black", linewidth=0.6, linestyle="--")
    if decl.log:
        ax.set_yscale("log")
        log_ticks(ax.yaxis, ax.get_ylim())
    else:
        ax.set_ylim(0.0, 1.15 * (max(tops) or 1.0))
    ticks = [decl.x_labels.get(g, g) for g in groups]
    # Side-by-side series leave room for level labels; one bar per group, for slanted ones.
    rotation, align = (0.0, "center") if decl.split else (30.0, "right")
    if decl.x_rotation is not None:
        rotation, align = decl.x_rotation, "right" if decl.x_rotation else "center"
    ax.set_xticks(range(len(groups)), ticks, rotation=rotation, ha=align)
    ax.set_ylabel(decl.ylabel)
    ax.grid(True, axis="y", linewidth=0.4, alpha=0.5)
    if decl.split or decl.paper:
        ax.legend(fontsize=7)


def mark_x(decl: FigureDecl, rows: Sequence[Row]) -> float | None:
    """The x of a line figure's mark: of the first row where a `mark_first` column is > 0."""
    mark = next((r for r in rows if any(_number(r.get(c)) > 0 for c in decl.mark_first)), None)
    return None if mark is None else _number(mark.get(decl.x))


def _lines(ax: Axes, decl: FigureDecl, rows: Sequence[Row], column: str, series: list[str]) -> None:
    from ftlab.report.style import scheme_style

    for i, name in enumerate(series):
        mine = [r for r in rows if not decl.series or str(r.get(decl.series)) == name]
        style = scheme_style(i)
        ax.plot(
            [_number(r.get(decl.x)) for r in mine],
            [_number(r.get(column)) for r in mine],
            color=style.color,
            linestyle=style.mpl_linestyle,
            marker=style.mpl_marker,
            markersize=3,
            linewidth=0.9,
            label=name if decl.series else decl.line_label or None,
        )
    mark = mark_x(decl, rows)
    if mark is not None:
        ax.axvline(mark, color="black", linewidth=0.6, linestyle=":", label=decl.mark_label)
    if decl.reference is not None:
        ax.axhline(decl.reference, color="black", linewidth=0.6, linestyle="--")
    if decl.log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(decl.xlabel)
    ax.set_ylabel(decl.ylabel)
    if decl.series or decl.line_label or mark is not None:
        ax.legend(frameon=False, fontsize="small")


# --------------------------------------------------------------------------------------
# The declarations


def load_figures(where: str, raw: object) -> tuple[FigureDecl, ...]:
    """The `[[reproduce.figures]]` tables of the claim file `where` names; a bad table is an
    `ftlab.InputError` naming the key."""
    return tables(where, "reproduce.figures", raw, _figure)


def _positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _figure(where: str, i: int, given: object) -> FigureDecl:
    f = Fields.of(where, f"reproduce.figures[{i}]", given, FigureDecl)
    y, panels, size = f.texts("y"), f.texts("panels"), f.raw.get("size", [7.0, 2.6])
    if not y or (panels and len(panels) != len(y)):
        f.bad("`y` must name columns, and `panels` (if any) one title each")
    if not isinstance(size, list) or len(size) != 2 or not all(_positive(v) for v in size):
        f.bad("`size` must be [width, height] in inches, both > 0")
    kind = f.text("kind", "bar")
    if kind not in ("bar", "line"):
        f.bad(f"kind {kind!r} is not one of bar, line")
    if f.raw.get("series_columns") and (f.raw.get("series") or kind == "line"):
        f.bad("`series_columns` is for a bar figure without `series`")
    return FigureDecl(
        stem=f.text("stem"),
        title=f.text("title"),
        x=f.text("x"),
        y=y,
        size=(float(size[0]), float(size[1])),
        where=f.strings("where"),
        x_labels=f.strings("x_labels"),
        panels=panels,
        series=f.text("series", ""),
        shades=f.strings("shades"),
        paper=f.text("paper", ""),
        ylabel=f.text("ylabel", ""),
        reference=f.number("reference"),
        log=f.flag("log"),
        kind=kind,
        xlabel=f.text("xlabel", ""),
        line_label=f.text("line_label", ""),
        mark_first=f.texts("mark_first"),
        mark_label=f.text("mark_label", ""),
        series_columns=f.texts("series_columns"),
        csv=f.text("csv", ""),
        x_rotation=f.number("x_rotation"),
        series_labels=f.strings("series_labels"),
    )
