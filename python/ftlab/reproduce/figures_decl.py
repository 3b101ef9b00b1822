"""ftlab.reproduce.figures_decl: what a declared figure is, once read (`FigureDecl`, its panels
`PanelDecl`) and the rows it draws (`Row`).

The keys and their meaning are `ftlab.reproduce.figures`' docstring's; that module reads and
checks a claim file's `[[reproduce.figures]]` into these, selects the rows and writes the files;
`ftlab.reproduce.figures_draw` draws them. This module reads no file and draws nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ftlab._errors import input_error

__all__ = ["INHERITED", "FigureDecl", "PanelDecl", "Row"]

#: A row of the paper's metrics, as drawn (its values: numbers, strings, None).
Row = Mapping[str, object]


@dataclass(frozen=True)
class PanelDecl:
    """One panel: a `[[reproduce.figures.panel]]` table, or one `y` of its figure."""

    y: str
    title: str = ""
    where: Mapping[str, str] = field(default_factory=dict)
    ylabel: str = ""
    xlabel: str = ""
    log: bool = False
    step: bool = False
    reference: float | None = None
    reference_label: str = ""
    by: str = ""
    by_values: tuple[str, ...] = ()

    def holds(self, row: Row) -> bool:
        """Whether `row` is one of this panel's (its `where`)."""
        return all(row.get(k) == v for k, v in self.where.items())

    def split(self, rows: Sequence[Row]) -> list[PanelDecl]:
        """This panel, or with `by` one per value of that column: `by_values` in order, else
        every value of its rows in their order; each with `{value}` in its labels filled in."""
        if not self.by:
            return [self]
        found = self.by_values or dict.fromkeys(str(r.get(self.by)) for r in rows if self.holds(r))
        return [
            dataclasses.replace(
                self,
                where={**self.where, self.by: v},
                title=self.title.replace("{value}", v),
                ylabel=self.ylabel.replace("{value}", v),
                xlabel=self.xlabel.replace("{value}", v),
                by="",
                by_values=(),
            )
            for v in found
        ]


#: The keys a panel takes from its figure when it does not set them.
INHERITED = ("ylabel", "xlabel", "log", "step", "reference", "reference_label")


@dataclass(frozen=True)
class FigureDecl:
    """One `[[reproduce.figures]]` table (see the module docstring)."""

    stem: str
    title: str
    x: str
    y: tuple[str, ...] = ()
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
    data: str = ""
    columns: tuple[str, ...] = ()
    sort: tuple[str, ...] = ()
    x_from: str = ""
    x_to: str = ""
    mark_at: str = ""
    span_from: str = ""
    span_label: str = ""
    step: bool = False
    positive: bool = False
    markers: bool = True
    x_scale: float = 1.0
    y_scale: float = 1.0
    x_log: bool = False
    layout: str = "row"
    legend_columns: int = 1
    reference_label: str = ""
    panel: tuple[PanelDecl, ...] = ()

    @property
    def split(self) -> bool:
        """Whether a group's bars are side by side, one per series."""
        return bool(self.series or self.series_columns)

    def column(self, name: str, y: str) -> str:
        """The column holding series `name`'s value of `y`: `<name>_<y>` with `series_columns`."""
        return f"{name}_{y}" if self.series_columns else y

    def panel_list(self) -> tuple[PanelDecl, ...]:
        """Its panels: the declared ones, else one per `y` column."""
        if self.panel:
            return self.panel
        titles = self.panels or ("",) * len(self.y)
        inherited = {k: getattr(self, k) for k in INHERITED}
        return tuple(PanelDecl(y, title, **inherited) for y, title in zip(self.y, titles, strict=True))

    def value(self, key: str, values: Mapping[str, float]) -> float | None:
        """The named value the field `key` names (None if it names none)."""
        name = str(getattr(self, key))
        if not name:
            return None
        if name not in values:
            supplied = ", ".join(sorted(values)) or "none"
            raise input_error(
                f"reproduce.figures ({self.stem})",
                f"`{key}` names {name!r}, a value the paper's code does not supply (it supplies: {supplied})",
            )
        return values[name]

    def text(self, template: str, values: Mapping[str, float]) -> str:
        """A title or label with its `{name}`s of named values filled in."""
        try:
            return template.format_map(values) if "{" in template else template
        except (KeyError, ValueError) as err:
            raise input_error(f"reproduce.figures ({self.stem})", f"{template!r}: no value {err}") from None
