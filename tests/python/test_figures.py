"""Tests of the declared figures' panels, tables and named values (python/ftlab/reproduce/
figures.py and figures_draw.py): a bad `[[reproduce.figures]]` table is a precise error naming
the key; panels split the rows by a column's value and inherit the figure's labels; a figure of
a polars frame selects its rows by `where` and an x window from named values and writes the
frame's own CSV; a name the paper's code does not supply is an error. The bar figures' and
the first-row mark's tests are in test_reproduce_driver.py; each paper's figures, in its own
test file.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import ftlab
from ftlab.reproduce.figures import FigureDecl, PanelDecl, draw_all, load_figures, select
from ftlab.reproduce.figures_draw import shown

_HEAD = {"stem": "s", "title": "t", "x": "x"}

#: (a figure table's keys beyond stem, title and x; what its error says)
BAD = [
    ({"y": ["a"], "layout": "grid"}, "layout 'grid' is not one of row, column"),
    ({"y": ["a"], "x_scale": 0}, "`x_scale` must be a number > 0"),
    ({"y": ["a"], "panel": [{"y": "b"}]}, "`panel` must be a non-empty array of tables"),
    ({"panel": []}, "`panel` must be a non-empty array of tables"),
    ({"panel": [{"title": "no y"}]}, "panel\\[0\\]: `y` must be a non-empty string"),
    ({"panel": [{"y": "a", "colour": "red"}]}, "panel\\[0\\]: unknown keys colour"),
    ({"panel": [{"y": "a", "log": "yes"}]}, "panel\\[0\\]: `log` must be true or false"),
    ({"y": ["a"], "legend_columns": 0}, "`legend_columns` must be an integer in 1..=20"),
    ({"y": ["a"], "sort": "x"}, "`sort` must be a list of non-empty strings"),
    ({"panel": [{"y": "a", "by_values": ["p"]}]}, "a panel's `by_values` are values of its `by` column"),
]


@pytest.mark.parametrize(("keys", "says"), BAD)
def test_a_bad_figure_table_is_a_precise_error(keys: dict[str, object], says: str) -> None:
    with pytest.raises(ftlab.InputError, match=f"f.toml: reproduce.figures\\[0\\].*{says}"):
        load_figures("f.toml", [{**_HEAD, **keys}])


def test_a_panel_by_a_column_fills_each_value_into_its_labels() -> None:
    panel = PanelDecl("v", title="{value}: reads", xlabel="{value} latency", where={"op": "r"}, by="scheme")
    split = panel.split([{"op": "r", "scheme": "p"}, {"op": "w", "scheme": "u"}, {"op": "r", "scheme": "q"}])
    assert [(p.title, p.xlabel, dict(p.where), p.by) for p in split] == [
        ("p: reads", "p latency", {"op": "r", "scheme": "p"}, ""),
        ("q: reads", "q latency", {"op": "r", "scheme": "q"}, ""),
    ]


def test_a_panel_takes_the_figures_labels_unless_it_sets_its_own() -> None:
    (decl,) = load_figures(
        "f.toml",
        [
            {
                **_HEAD,
                "ylabel": "µs",
                "log": True,
                "panel": [{"y": "a"}, {"y": "b", "log": False, "ylabel": "n"}],
            }
        ],
    )
    assert decl.panel_list() == (PanelDecl("a", ylabel="µs", log=True), PanelDecl("b", ylabel="n"))
    (short,) = load_figures("f.toml", [{**_HEAD, "y": ["a", "b"], "panels": ["A", "B"], "step": True}])
    assert [(p.y, p.title, p.step) for p in short.panel_list()] == [("a", "A", True), ("b", "B", True)]


_ROWS = [
    {"scheme": "p", "x": 0.0, "v": 1.0},
    {"scheme": "p", "x": 5.0, "v": 2.0},
    {"scheme": "u", "x": 5.0, "v": 3.0},
    {"scheme": "u", "x": 10.0, "v": 0.0},
]
_BY_SCHEME = (PanelDecl("v", where={"scheme": "p"}), PanelDecl("v", where={"scheme": "u"}))
#: (the panels' `where`, the rows drawn, the panels shown: their `where`'s scheme)
PANELS = [
    (_BY_SCHEME, _ROWS, ["p", "u"]),
    (_BY_SCHEME, _ROWS[:2], ["p"]),
    (_BY_SCHEME, [], ["p"]),
    ((*_BY_SCHEME, PanelDecl("v", where={"scheme": "g"})), _ROWS, ["p", "u"]),
    ((PanelDecl("v", by="scheme"),), _ROWS, ["p", "u"]),
    ((PanelDecl("v", by="scheme", by_values=("u", "g", "p")),), _ROWS, ["u", "p"]),
    ((PanelDecl("v", by="scheme", by_values=("g",)),), _ROWS, ["g"]),
    ((PanelDecl("v", by="scheme"),), [], []),
]


@pytest.mark.parametrize(("panels", "rows", "schemes"), PANELS)
def test_panels_split_the_rows_by_a_columns_value_and_absent_ones_are_left_out(
    panels: tuple[PanelDecl, ...], rows: list[dict[str, object]], schemes: list[str], tmp_path: Path
) -> None:
    decl = FigureDecl("f", "t", "x", kind="line", series="scheme", panel=panels, layout="column")
    assert [p.where.get("scheme") for p in shown(decl, rows) if p.where] == schemes
    png, _ = draw_all([decl], rows, tmp_path)
    assert png.stat().st_size > 0


#: (the window's named bounds, the where, the values supplied, the x values kept)
WINDOWS = [
    ("lo", "hi", {}, {"lo": 0.0, "hi": 10.0}, [0.0, 5.0, 5.0]),
    ("lo", "", {}, {"lo": 5.0}, [5.0, 5.0, 10.0]),
    ("", "hi", {"scheme": "u"}, {"hi": 10.0}, [5.0]),
    ("", "", {"scheme": "p"}, {}, [0.0, 5.0]),
]


@pytest.mark.parametrize(("lo", "hi", "where", "values", "kept"), WINDOWS)
def test_a_window_from_named_values_selects_rows_and_frames_alike(
    lo: str, hi: str, where: dict[str, str], values: dict[str, float], kept: list[float]
) -> None:
    decl = FigureDecl("f", "t", "x", ("v",), where=where, x_from=lo, x_to=hi, kind="line", sort=("x",))
    rows = select(decl, _ROWS, values)
    assert isinstance(rows, list) and [r["x"] for r in rows] == kept
    frame = pl.DataFrame(_ROWS)
    selected = select(decl, frame, values)
    assert isinstance(selected, pl.DataFrame) and selected["x"].to_list() == kept


def test_a_frame_figure_writes_the_frames_own_csv(tmp_path: Path) -> None:
    frame = pl.DataFrame(_ROWS)
    decl = FigureDecl(
        "f",
        "t",
        "x",
        ("v",),
        data="ts",
        x_from="lo",
        columns=("scheme", "x"),
        sort=("scheme", "x"),
        kind="line",
    )
    png, csv = draw_all([decl], [], tmp_path, {"ts": frame}, {"lo": 5.0})
    expected = frame.filter(pl.col("x") >= 5.0).select("scheme", "x").sort("scheme", "x").write_csv()
    assert (png.name, csv.read_text(encoding="utf-8")) == ("f.png", expected)


#: (the figure's fields naming a table or a value, what the error says)
UNSUPPLIED = [
    ({"data": "nope"}, "`data` names 'nope', a table the paper's code does not supply \\(it supplies: ts\\)"),
    ({"x_from": "rise_s"}, "`x_from` names 'rise_s', a value the paper's code does not supply"),
    ({"mark_at": "rise_s", "kind": "line"}, "`mark_at` names 'rise_s'"),
    ({"span_from": "start_s", "kind": "line"}, "`span_from` names 'start_s'"),
    ({"title": "from {warm_s:g} s"}, "'from {warm_s:g} s': no value 'warm_s'"),
]


@pytest.mark.parametrize(("fields", "says"), UNSUPPLIED)
def test_a_table_or_value_the_paper_does_not_supply_is_a_precise_error(
    fields: dict[str, str], says: str, tmp_path: Path
) -> None:
    (decl,) = load_figures("f.toml", [{"stem": "f", "title": "t", "x": "x", "y": ["v"], **fields}])
    with pytest.raises(ftlab.InputError, match=f"reproduce.figures \\(f\\): {says}"):
        draw_all([decl], _ROWS, tmp_path, {"ts": _ROWS}, {"hi": 1.0})
