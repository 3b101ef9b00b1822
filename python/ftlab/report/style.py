"""ftlab.report.style: how each scheme looks in every chart (the HTML report and `ftlab plot`).

The i-th scheme of a run gets the i-th style: a colour, a line style, a marker and a bar fill
pattern. The colours go from dark to light with clearly different lightness (CIELAB L* at
least 12 apart), and the line styles, markers and bar patterns differ too, so the curves and
bars stay apart when a figure is printed in greyscale. Beyond `len(STYLES)` schemes the
styles repeat. This module only names styles; it draws nothing and imports no plotting library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType


@dataclass(frozen=True)
class SchemeStyle:
    """One scheme's look, in matplotlib's and plotly's vocabularies."""

    color: str
    mpl_linestyle: LineStyleType
    plotly_dash: str
    mpl_marker: str
    plotly_symbol: str
    #: Bar fill patterns (bars have no line style): matplotlib hatch, plotly pattern shape.
    mpl_hatch: str = ""
    plotly_pattern: str = ""


#: Dark to light (CIELAB L* = 0, 29, 46, 59, 74, 88).
STYLES: tuple[SchemeStyle, ...] = (
    SchemeStyle("#000000", "-", "solid", "o", "circle", "", ""),
    SchemeStyle("#1f3f8f", "--", "dash", "s", "square", "//", "/"),
    SchemeStyle("#c0451a", ":", "dot", "^", "triangle-up", "..", "."),
    SchemeStyle("#2f9e8f", "-.", "dashdot", "D", "diamond", "xx", "x"),
    SchemeStyle("#f2a900", (0, (8, 2, 1, 2, 1, 2)), "longdashdot", "v", "triangle-down", "\\\\", "\\"),
    SchemeStyle("#c2e0f4", (0, (10, 3)), "longdash", "P", "cross", "++", "+"),
)

#: Sequential, perceptually uniform colour map of the wear heatmaps.
WEAR_COLORMAP = "cividis"


def scheme_style(index: int) -> SchemeStyle:
    """The style of the `index`-th scheme (0-based; repeats after `len(STYLES)`).

    >>> scheme_style(0).color
    '#000000'
    """
    return STYLES[index % len(STYLES)]
