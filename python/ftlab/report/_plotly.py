"""ftlab.report._plotly: small plotly helpers shared by the HTML report (`ftlab.report.html`) and
its registry of scheme-specific plots (`ftlab.report.series`): a grid of panels, one look for
every figure, per-tenant line traces, and the deterministic `<div>` of a figure.

It is not a chart catalogue (the figures are built in those two modules), and it does not
load plotly.js (the report inlines it once). plotly is imported by the callers' first use.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

# plotly is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

#: Height of one panel row, in pixels.
ROW_PX = 300
#: Panels per row of a per-tenant grid.
MAX_COLUMNS = 3
#: plotly.js options of every figure: no logo, no cloud link, SVG export from the modebar.
CONFIG: dict[str, object] = {
    "displaylogo": False,
    "responsive": True,
    "toImageButtonOptions": {"format": "svg"},
}


def text(value: object) -> str:
    """`value` as plotly text: plotly renders a subset of HTML in titles, legends and
    annotations, so names are escaped to show literally.

    >>> text("a<b>")
    'a&lt;b&gt;'
    """
    return html.escape(str(value), quote=False)


def grid(n_panels: int, columns: int = MAX_COLUMNS) -> tuple[int, int]:
    """(rows, columns) of a grid holding `n_panels` panels, at most `columns` wide.

    >>> grid(5)
    (2, 3)
    """
    cols = max(1, min(columns, n_panels))
    return max(1, math.ceil(n_panels / cols)), cols


def subplots(rows: int, cols: int, titles: Sequence[str], **kwargs: object) -> go.Figure:
    """A figure of `rows` x `cols` panels titled `titles` (row-major), spaced in pixels."""
    from plotly.subplots import make_subplots

    height = rows * ROW_PX
    return make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[text(t) for t in titles],
        vertical_spacing=min(0.3, 90 / height) if rows > 1 else 0.0,
        horizontal_spacing=0.08 if cols > 1 else 0.0,
        **kwargs,
    )


def finish(fig: go.Figure, title: str, rows: int) -> go.Figure:
    """Give `fig` the report's look: title, then legend, above the panels; white template;
    height for `rows` panel rows."""
    height = rows * ROW_PX + 140
    fig.update_layout(
        title={
            "text": text(title),
            "x": 0.0,
            "xanchor": "left",
            "yref": "container",
            "y": 1 - 12 / height,
            "yanchor": "top",
        },
        template="plotly_white",
        height=height,
        margin={"l": 70, "r": 30, "t": 120, "b": 50},
        legend={"orientation": "h", "yref": "container", "y": 1 - 48 / height, "yanchor": "top", "x": 0.0},
        hovermode="closest",
        font={"family": "DejaVu Sans, Arial, sans-serif", "size": 12},
    )
    fig.update_annotations(font_size=13)
    return fig


def line(
    x: Sequence[object] | pl.Series,
    y: Sequence[object] | pl.Series,
    name: str,
    group: str,
    color: str,
    show: bool,
    **kwargs: object,
) -> go.Scatter:
    """One line trace; traces of one `group` share one legend entry (shown when `show`)."""
    import plotly.graph_objects as go

    dash = kwargs.pop("dash", "solid")
    shape = kwargs.pop("shape", "linear")
    return go.Scatter(
        x=list(x),
        y=list(y),
        mode="lines",
        name=text(name),
        legendgroup=group,
        showlegend=show,
        line={"color": color, "dash": dash, "width": 1.8, "shape": shape},
        connectgaps=False,
        **kwargs,
    )


def div(fig: go.Figure, div_id: str) -> str:
    """The `<div>` and `<script>` that draw `fig` (plotly.js loaded elsewhere); the element
    id is `div_id`, so the same figure always gives the same bytes."""
    import plotly.io as pio

    page: str = pio.to_html(
        fig,
        config=CONFIG,
        include_plotlyjs=False,
        include_mathjax=False,
        full_html=False,
        div_id=div_id,
        default_height=f"{fig.layout.height or ROW_PX}px",
        validate=True,
    )
    return page
