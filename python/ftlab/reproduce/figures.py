"""ftlab.reproduce.figures: the bar and line figures a claim file declares, `[[reproduce.figures]]`.

A declared figure draws rows of a table the paper's code supplies and writes those rows beside
it: `<stem>.png` and `<stem>.csv`. The table is the paper's rows (`PaperCode.rows`) or, with
`data`, a named table (`tables`: rows, or a polars frame, whose CSV is then the frame's own
`write_csv`). Its table says:

- `stem` and `title`; `csv`, the data file's stem where it is not `stem`; `size`, the
  figure's [width, height] in inches (default [7.0, 2.6]);
- which rows: `where`, those whose columns equal these values (every row if absent); `x_from`
  and `x_to`, named values (see below) bounding `x`: from <= x < to; then `columns`, the
  data file's columns (every column if absent), and `sort`, the columns it is sorted by;
- `x`: the column that names a bar group (its tick label; `x_labels` maps a value to a label;
  `x_rotation`, the labels' angle in degrees: by default 0 with series, 30 without);
- the panels: `y`, the columns drawn, one panel each, titled by `panels` (same length) if
  given, all labelled `ylabel` (and `xlabel`), `log`, `step` and `reference` alike; or
  `[[reproduce.figures.panel]]` tables, one a panel, each with its `y`, `title`, `where` (its
  rows among the figure's; a panel whose `where` matches no row is left out), and its own
  `ylabel`, `xlabel`, `log`, `step`, `reference`, `reference_label` (the figure's by default);
  a panel with `by` (a column of strings) stands for one panel per value of that column
  (`by_values`, in order, else every value in the rows' order), `{value}` in its title and
  labels replaced by the value;
  `layout`: "row" (side by side, the default) or "column" (stacked on a shared x);
- `series`: the column that splits a group into bars side by side, shaded by `shades` (a
  value -> a grey level; a series without one takes the scheme palette's colour and hatch,
  `ftlab.report.style`), with a legend; without it, one grey bar per row;
- `series_columns` instead of `series`, for wide rows: the series are these names and a bar's
  value of `y` is the column `<name>_<y>` of its group's row; `series_labels` maps a series to
  its legend's label;
- `paper`: the column holding the paper's value of the bar (a diamond marker, "paper");
- `reference`: a dashed horizontal line at this value (none if absent); `log`: a
  logarithmic y axis (bars then carry no value labels).

On a linear axis each bar is annotated with its value (2 decimals); a missing value draws no
bar.

With `kind = "line"` the rows are drawn as lines instead of bars: `x` is then a numeric column
(the horizontal axis, titled `xlabel`; `x_log`, a logarithmic one), each panel one line per
`series` value (the scheme palette's colour, line style and, unless `markers = false`, marker;
`series_labels` names a line; `line_label` names the line of a figure without series), drawn
as steps (`step`: a CDF table's) or lines, dropping the points whose y is not > 0 with
`positive`, the values times `x_scale` and `y_scale`; the y axis from 0 unless `log`.
`mark_first` names columns: a dotted vertical line, labelled `mark_label`, at the x of the
first row where any of them is > 0 (none if no row is); `mark_at` names a value: a dotted
vertical line there; `span_from` names a value: a shaded span from it to the last row's x,
labelled `span_label`. The legend (`legend_columns` wide) stands in the first panel.

A named value (`x_from`, `x_to`, `mark_at`, `span_from`, and `{name}` in `title` and the
x labels) is one the paper's code computes and supplies by name (`values`, e.g. the start of
a write rise); a name it does not supply is an `ftlab.InputError`. This module selects and
writes the rows and reads the declarations; `figures_draw` draws them. It reads no run and
knows no paper.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from ftlab._errors import input_error
from ftlab.report import write_files_atomically
from ftlab.reproduce.claims import write_csv
from ftlab.reproduce.decl import Fields, tables
from ftlab.reproduce.figures_decl import INHERITED, FigureDecl, PanelDecl, Row
from ftlab.reproduce.figures_draw import draw, mark_x, number

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FigureDecl", "PanelDecl", "Row", "Table", "draw_all", "load_figures", "mark_x", "select"]

#: A table the paper's code supplies: rows, or a polars frame.
Table: TypeAlias = "Sequence[Row] | pl.DataFrame"
D = TypeVar("D")


# --------------------------------------------------------------------------------------
# The rows and the files


def draw_all(
    decls: Sequence[FigureDecl],
    rows: Sequence[Row],
    out: Path,
    tables: Mapping[str, Table] | None = None,
    values: Mapping[str, float] | None = None,
) -> list[Path]:
    """Every declared figure into `out`, drawn from `rows` or the table its `data` names in
    `tables`, with the paper's named `values`: its PNG, then its CSV, in order."""
    out.mkdir(parents=True, exist_ok=True)
    named = values or {}
    files: list[Path] = []
    for decl in decls:
        mine = select(decl, _data(decl, rows, tables or {}), named)
        drawn = mine if isinstance(mine, list) else mine.to_dicts()
        files.append(draw(decl, drawn, out / f"{decl.stem}.png", named))
        files.append(_write(out / f"{decl.csv or decl.stem}.csv", mine, decl.columns))
    return files


def _data(decl: FigureDecl, rows: Sequence[Row], tables: Mapping[str, Table]) -> Table:
    if not decl.data:
        return rows
    if decl.data not in tables:
        supplied = ", ".join(sorted(tables)) or "none"
        raise input_error(
            f"reproduce.figures ({decl.stem})",
            f"`data` names {decl.data!r}, a table the paper's code does not supply (it supplies: {supplied})",
        )
    return tables[decl.data]


def select(decl: FigureDecl, data: Table, values: Mapping[str, float]) -> list[Row] | pl.DataFrame:
    """The rows `decl` draws and writes: its `where` and x window, `columns` and `sort` (a
    list for rows, a frame for a frame)."""
    lo, hi = decl.value("x_from", values), decl.value("x_to", values)

    def keep(row: Row) -> bool:
        x = number(row.get(decl.x))
        inside = (lo is None or x >= lo) and (hi is None or x < hi)
        return inside and all(row.get(k) == v for k, v in decl.where.items())

    if isinstance(data, Sequence):
        mine = [r for r in data if keep(r)]
        if decl.sort:
            mine.sort(key=lambda r: tuple(_order(r.get(c)) for c in decl.sort))
        return mine
    import polars as pl

    absent = sorted({*decl.columns, *decl.sort, *decl.where, decl.x} - set(data.columns))
    if absent:
        raise input_error(
            f"reproduce.figures ({decl.stem})", f"its table has no column(s) {', '.join(absent)}"
        )
    frame = data
    if decl.where or lo is not None or hi is not None:
        needed = list(dict.fromkeys([decl.x, *decl.where]))
        mask = [keep(r) for r in data.select(needed).iter_rows(named=True)]
        frame = data.filter(pl.Series(mask, dtype=pl.Boolean))
    if decl.columns:
        frame = frame.select(decl.columns)
    return frame.sort(*decl.sort) if decl.sort else frame


def _order(value: object) -> tuple[int, float, str]:
    """A sort key: numbers before strings, None last."""
    n = number(value)
    return (2, 0.0, "") if value is None else (0, n, "") if n == n else (1, 0.0, str(value))


def _write(path: Path, table: list[Row] | pl.DataFrame, columns: Sequence[str]) -> Path:
    """The figure's rows as CSV: `claims.write_csv`'s cells for rows, the frame's own for a frame."""
    if isinstance(table, list):
        return write_csv(path, table, list(columns) or None)
    write_files_atomically(path.parent, {path.name: lambda p: table.write_csv(p)})
    return path


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
    if (not y and "panel" not in f.raw) or (panels and len(panels) != len(y)):
        f.bad("`y` must name columns (or `panel` tables list panels), and `panels` (if any) one title each")
    if not isinstance(size, list) or len(size) != 2 or not all(_positive(v) for v in size):
        f.bad("`size` must be [width, height] in inches, both > 0")
    for key, allowed in (("kind", ("bar", "line")), ("layout", ("row", "column"))):
        if f.raw.get(key, allowed[0]) not in allowed:
            f.bad(f"{key} {f.raw.get(key)!r} is not one of {', '.join(allowed)}")
    if f.raw.get("series_columns") and (f.raw.get("series") or f.raw.get("kind") == "line"):
        f.bad("`series_columns` is for a bar figure without `series`")
    for key in ("x_scale", "y_scale"):
        if key in f.raw and not _positive(f.raw[key]):
            f.bad(f"`{key}` must be a number > 0")
    raw_panels = f.raw.get("panel", [])
    if not isinstance(raw_panels, list) or ("panel" in f.raw and (not raw_panels or y or panels)):
        f.bad("`panel` must be a non-empty array of tables, instead of `y` and `panels`")
    figure = _read(f, FigureDecl, {"size": (float(size[0]), float(size[1]))})
    inherited = {k: getattr(figure, k) for k in INHERITED}
    given = tuple(
        _read(Fields.of(where, f"{f.label}.panel[{j}]", p, PanelDecl), PanelDecl, inherited)
        for j, p in enumerate(raw_panels)
    )
    if any(p.by_values and not p.by for p in given):
        f.bad("a panel's `by_values` are values of its `by` column, which it does not name")
    return dataclasses.replace(figure, panel=given)


#: The fields a figure's table gives in a form of their own (read by `_figure`).
_OWN_FORM = ("size", "panel")


def _read(f: Fields, cls: Callable[..., D], done: Mapping[str, object]) -> D:
    """Dataclass `cls` from table `f`, each field read by its declared type; one `f` does not
    set takes its value in `done`, else the class's default (a required one: an error)."""
    out: dict[str, object] = {}
    for fd in dataclasses.fields(cls):  # type: ignore[arg-type]
        required = fd.default is dataclasses.MISSING and fd.default_factory is dataclasses.MISSING
        if fd.name in f.raw and fd.name not in _OWN_FORM:
            out[fd.name] = _typed(f, fd.name, str(fd.type), required)
        elif fd.name in done:
            out[fd.name] = done[fd.name]
        elif required:
            out[fd.name] = f.text(fd.name)
    return cls(**out)


def _typed(f: Fields, key: str, kind: str, required: bool) -> object:
    """The value of `key` in `f`, read as a field of type `kind` (a string, a list or table of
    strings, a flag, an integer in 1..=20 or a number)."""
    if kind == "str":
        return f.text(key, None if required else "")
    if kind == "tuple[str, ...]":
        return f.texts(key)
    if kind == "Mapping[str, str]":
        return f.strings(key)
    if kind == "bool":
        return f.flag(key)
    if kind == "int":
        return f.integer(key, 1, 1, 20)
    return f.number(key)
