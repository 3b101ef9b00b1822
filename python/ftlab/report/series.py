"""ftlab.report.series: the one registry of plots of scheme-specific time-series columns.

A scheme may add columns to the time series (its `series_names` in the Rust core), e.g.
UPI's `alloc_set_dies` and `pages_outside_set`. `REGISTRY` lists `SeriesPlot` builders; each
declares the columns it needs (exact names or `fnmatch` patterns such as `stream_id_*`) and
builds a figure for every scheme whose rows have all of them (non-null). Any other extra
numeric column a scheme fills gets a default per-tenant line plot (`fallback`), so nothing
is silently dropped. Supporting a new column is one entry in `REGISTRY`:

    SeriesPlot("deadline-misses", "deadline misses", ("deadline_misses",),
               panels(("deadline_misses", "deadline misses per window"))),

This module never looks at scheme names and computes nothing about the simulation; it only
draws columns (plotly figures, placed in the page by `ftlab.report.html`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ftlab.report import _plotly, figdata
from ftlab.report.style import scheme_style

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

# polars is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.


@dataclass(frozen=True)
class SeriesData:
    """What a builder draws from: one scheme's rows of the (merged) time series."""

    scheme: str
    #: Position of the scheme in the run (selects its colour).
    scheme_index: int
    #: This scheme's rows: tenant, window_start_s and every extra column.
    frame: pl.DataFrame
    #: The columns the builder matched, in table order.
    columns: list[str]
    #: Tenant names, in the scenario's order.
    tenants: list[str]
    #: Consecutive windows merged into one point (1: none).
    windows_per_point: int


Builder = Callable[[SeriesData], "go.Figure"]


@dataclass(frozen=True)
class SeriesPlot:
    """A registry entry: `build` draws `columns` (names or fnmatch patterns) for one scheme.

    `key` is unique in the registry and becomes part of the figure's element id.
    """

    key: str
    title: str
    columns: tuple[str, ...]
    build: Builder

    def match(self, available: Sequence[str]) -> list[str] | None:
        """The available columns this entry draws, or None unless every one of its patterns
        matches at least one.

        >>> SeriesPlot("s", "streams", ("stream_id_*",), panels()).match(["x", "stream_id_0"])
        ['stream_id_0']
        """
        hits = [[c for c in available if fnmatch.fnmatchcase(c, p)] for p in self.columns]
        if not all(hits):
            return None
        matched = {c for h in hits for c in h}
        return [c for c in available if c in matched]


def panels(*specs: tuple[str, str], shape: str = "linear") -> Builder:
    """A builder of stacked panels, one per matched column of each `(pattern, y-axis title)`
    spec (in spec order), each with one line per tenant. `shape="hv"` draws steps.

    >>> build = panels(("alloc_set_dies", "dies in the allocation set"), shape="hv")
    """

    def build(data: SeriesData) -> go.Figure:
        rows = [
            (c, y_title)
            for pattern, y_title in specs
            for c in data.columns
            if fnmatch.fnmatchcase(c, pattern)
        ]
        if not specs:
            rows = [(c, c) for c in data.columns]
        fig = _plotly.subplots(len(rows), 1, [c for c, _ in rows], shared_xaxes=True)
        for r, (column, y_title) in enumerate(rows, start=1):
            for t, tenant in enumerate(data.tenants):
                tf = data.frame.filter(tenant=tenant)
                fig.add_trace(
                    _plotly.line(
                        tf.get_column("window_start_s"),
                        tf.get_column(column),
                        tenant,
                        tenant,
                        _tenant_color(t),
                        r == 1,
                        shape=shape,
                        hovertemplate=f"{_plotly.text(tenant)}<br>t = %{{x}} s<br>%{{y}}<extra></extra>",
                    ),
                    row=r,
                    col=1,
                )
            fig.update_yaxes(title_text=_plotly.text(y_title), row=r, col=1)
        fig.update_xaxes(title_text="time (s)", row=len(rows), col=1)
        return _plotly.finish(fig, _title(data, ", ".join(c for c, _ in rows)), len(rows))

    return build


def stream_map() -> Builder:
    """A builder of the mapping over time: one panel per tenant, one step line per virtual
    stream (`vs<i>_physical_stream`) giving the physical stream that took most of its writes
    in each window; gaps where it wrote nothing."""

    def build(data: SeriesData) -> go.Figure:
        fig = _plotly.subplots(
            len(data.tenants),
            1,
            [f"{t}: physical stream of each virtual stream" for t in data.tenants],
            shared_xaxes=True,
        )
        for r, tenant in enumerate(data.tenants, start=1):
            tf = data.frame.filter(tenant=tenant)
            for i, column in enumerate(data.columns):
                values = tf.get_column(column)
                if values.null_count() == len(values):
                    continue
                vs = column.removesuffix("_physical_stream")
                fig.add_trace(
                    _plotly.line(
                        tf.get_column("window_start_s"),
                        values,
                        vs,
                        vs,
                        _tenant_color(i),
                        r == 1,
                        shape="hv",
                        hovertemplate=f"{_plotly.text(tenant)} {vs}<br>t = %{{x}} s<br>physical stream "
                        "%{y}<extra></extra>",
                    ),
                    row=r,
                    col=1,
                )
            fig.update_yaxes(title_text="physical stream", dtick=1, row=r, col=1)
        fig.update_xaxes(title_text="time (s)", row=len(data.tenants), col=1)
        return _plotly.finish(fig, _title(data, "virtual → physical stream"), len(data.tenants))

    return build


def _tenant_color(index: int) -> str:
    return scheme_style(index).color


def _title(data: SeriesData, what: str) -> str:
    merged = f" (mean over {data.windows_per_point} windows per point)" if data.windows_per_point > 1 else ""
    return f"{data.scheme}: {what}{merged}"


#: The registry: one entry per known group of extra columns (first match claims a column).
REGISTRY: list[SeriesPlot] = [
    SeriesPlot(
        "alloc-set",
        "allocation sets",
        ("alloc_set_dies", "pages_outside_set"),
        panels(
            ("alloc_set_dies", "dies in the tenant's allocation set"),
            ("pages_outside_set", "valid pages outside the set (pages)"),
            shape="hv",
        ),
    ),
    SeriesPlot("stream-map", "stream mapping over time", ("vs*_physical_stream",), stream_map()),
]


def fallback(column: str) -> SeriesPlot:
    """The default plot of an extra column no registry entry claims: a line per tenant."""
    return SeriesPlot(f"col-{_slug(column)}", column, (column,), panels((column, column)))


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name)


@dataclass(frozen=True)
class SeriesFigure:
    """A built figure and where it goes: element id, heading, figure."""

    div_id: str
    heading: str
    figure: go.Figure


def figures(
    view: figdata.SeriesView,
    schemes: Sequence[str],
    tenants: Sequence[str],
    registry: Sequence[SeriesPlot] | None = None,
) -> Iterator[SeriesFigure]:
    """Every scheme-specific figure of a time series: for each scheme (in order), the
    registry's entries whose columns it fills, then a `fallback` per unclaimed column."""
    import polars as pl

    entries = REGISTRY if registry is None else registry
    frame = view.frame
    extra = figdata.extra_columns(frame)
    for index, scheme in enumerate(schemes):
        available = figdata.present_columns(frame, scheme, extra)
        if not available:
            continue
        rows = frame.filter(pl.col("scheme") == scheme).select("tenant", "window_start_s", *available)
        claimed: set[str] = set()
        plans = []
        for entry in entries:
            matched = entry.match([c for c in available if c not in claimed])
            if matched:
                claimed.update(matched)
                plans.append((entry, matched))
        plans += [(fallback(c), [c]) for c in available if c not in claimed]
        for entry, matched in plans:
            data = SeriesData(scheme, index, rows, matched, list(tenants), view.windows_per_point)
            yield SeriesFigure(
                f"fig-series-{index}-{entry.key}", f"{scheme}: {entry.title}", entry.build(data)
            )
