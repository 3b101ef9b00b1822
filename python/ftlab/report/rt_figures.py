"""ftlab.report.rt_figures: Figures 5-7 of the PaRT-FTL paper (§VI-A) as CSV and PNG files.

It takes the result of `_core.rt_schedulability` (parsed JSON; all arithmetic is in the Rust
core, `rt::schedulability`) and writes, into one directory: fig5.csv and fig5.png (fraction of
task sets schedulable against total utilisation, one curve per scheme), fig6.csv and fig6.png
(weighted schedulability against the read size), fig7.csv and fig7.png (against the write
size). The curves use the house styles of `ftlab.report.style`, legible in greyscale. It computes no
schedulability and prints nothing (that is `ftlab.cli.rt`).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ftlab import _core
from ftlab.report.plots import DRAWING, PANEL_IN, save
from ftlab.report.style import scheme_style
from ftlab.results import RtSchedulability

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# matplotlib is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

#: How each series is labelled in figures, tables and CSV files' `label` column: the labels
#: the schemes' registry entries give their series (`_core.SCHEMES`).
LABELS = {series["key"]: series["label"] for entry in _core.SCHEMES for series in entry["rt_series"]}

FIG5_COLUMNS = (
    "scheme",
    "label",
    "read_pages",
    "write_pages",
    "utilisation",
    "n_schedulable",
    "n_sets",
    "schedulable_fraction",
)
FIG6_COLUMNS = ("read_pages", "write_pages", "scheme", "label", "weighted_schedulability")
FIG7_COLUMNS = FIG6_COLUMNS


def weighted_by_size(result: RtSchedulability, figure: int) -> dict[str, list[tuple[int, float]]]:
    """Figure 6's (`figure` = 6, by read size) or 7's (by write size) weighted schedulability:
    scheme -> [(size in pages, weighted)], sizes ascending."""
    key: Literal["read_pages", "write_pages"] = "read_pages" if figure == 6 else "write_pages"
    out: dict[str, list[tuple[int, float]]] = {s: [] for s in result["schemes"]}
    for w in result["weighted"]:
        if w["figure"] == figure:
            out[w["scheme"]].append((w[key], w["weighted"]))
    return {s: sorted(v) for s, v in out.items()}


def _csv_rows(result: RtSchedulability, figure: int) -> tuple[Sequence[str], list[list[object]]]:
    if figure == 5:
        rows = [
            [
                r["scheme"],
                LABELS[r["scheme"]],
                r["read_pages"],
                r["write_pages"],
                f"{r['utilisation']:.2f}",
                r["n_schedulable"],
                r["n_sets"],
                repr(r["fraction"]),
            ]
            for r in result["rows"]
            if r["figure"] == 5
        ]
        return FIG5_COLUMNS, rows
    rows = [
        [w["read_pages"], w["write_pages"], w["scheme"], LABELS[w["scheme"]], repr(w["weighted"])]
        for w in result["weighted"]
        if w["figure"] == figure
    ]
    return FIG6_COLUMNS, rows


def _write_csv(path: Path, columns: Sequence[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerows(rows)


def _figure(result: RtSchedulability, figure: int) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(PANEL_IN[0] * 1.6, PANEL_IN[1] * 1.5), layout="constrained")
    ax = fig.add_subplot()
    if figure == 5:
        series = {
            s: [
                (r["utilisation"], r["fraction"])
                for r in result["rows"]
                if r["figure"] == 5 and r["scheme"] == s
            ]
            for s in result["schemes"]
        }
        p = result["parameters"]
        ax.set(
            xlabel="total utilisation U",
            ylabel="fraction of task sets schedulable",
            title=f"Fig. 5: admission control (r = {p['read_pages']}, w = {p['write_pages']} pages)",
        )
    else:
        series = {s: [(float(x), y) for x, y in v] for s, v in weighted_by_size(result, figure).items()}
        what = "read" if figure == 6 else "write"
        ax.set(
            xlabel=f"{what} request size (pages)",
            ylabel="weighted schedulability",
            title=f"Fig. {figure}: weighted schedulability vs {what} size",
        )
    for i, (scheme, points) in enumerate(series.items()):
        style = scheme_style(i)
        ax.plot(
            [x for x, _ in points],
            [y for _, y in points],
            label=LABELS[scheme],
            color=style.color,
            linestyle=style.mpl_linestyle,
            marker=style.mpl_marker,
            markerfacecolor="white",
            markeredgecolor=style.color,
        )
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, linewidth=0.3, color="#bbbbbb")
    ax.legend(frameon=False)
    return fig


def write(result: RtSchedulability, out_dir: Path) -> list[Path]:
    """Write fig5-7 .csv and .png into `out_dir` (created if missing); return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for figure in (5, 6, 7):
        columns, rows = _csv_rows(result, figure)
        csv_path = out_dir / f"fig{figure}.csv"
        _write_csv(csv_path, columns, rows)
        png_path = out_dir / f"fig{figure}.png"
        with DRAWING:  # built with matplotlib's defaults, no other thread's settings
            save(_figure(result, figure), png_path, "png")
        written += [csv_path, png_path]
    return written
