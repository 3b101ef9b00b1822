"""Tests of the declared generic measures, rows and run checks of a claim file
(python/ftlab/reproduce/measures.py `ValueDecl` and `BestDecl`, series_measures.py's window
measures, rows.py, run_checks.py): their
values and sentences from hand-made numbers (expected values from arithmetic written here),
and the claim file's errors for a bad declaration, each naming the table and the key.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import pytest

import ftlab
from ftlab.reproduce import measures, rows, series_measures
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.measures import BestDecl, Declared, ValueDecl
from ftlab.reproduce.series_measures import WindowDecl

if TYPE_CHECKING:
    import polars as pl

THROUGHPUT = {"a": 10.0, "b": 25.0, "c": None, "v": 30.0}


def lookup(subject: str, system: str, key: str) -> float | None:
    return THROUGHPUT.get(system) if (subject, key) == ("s", "mb_s") else None


def own(name: str) -> Measured:
    raise ftlab.UsageError(f"unknown {name}")


def test_a_best_is_the_margin_over_the_highest_other() -> None:
    """v's 30 over b's 25 (c, missing, counts as the lowest): 30 / 25 − 1 = 0.2."""
    why = "{subject}: {system} {v}, {runner} {vr}: {margin:+.3f}."
    best = BestDecl("mb_s", why, "MB/s", 1, name="best", system="v")
    decls = Declared(bests=[best])
    m = measures.measure_one("best:s", decls, lookup, own, lambda _s: ["a", "b", "c", "v"])
    assert m.value == pytest.approx(0.2) and m.why == "s: v 30.0 MB/s, b 25.0 MB/s: +0.200."
    alone = measures.measure_one("best:s", decls, lookup, own, lambda _s: ["v"])
    assert isinstance(alone.value, float) and math.isnan(alone.value) and "none n/a" in alone.why


def test_a_value_is_one_runs_metric() -> None:
    decls = Declared(values=[ValueDecl("mb_s", "{subject}/{system}: {v}.", digits=2)])
    m = measures.measure_one("mb_s:s/b", decls, lookup, own)
    assert (m.value, m.why) == (25.0, "s/b: 25.00.")
    missing = measures.measure_one("mb_s:s/c", decls, lookup, own)
    assert (missing.value, missing.why) == (None, "s/c: n/a.")
    with pytest.raises(ftlab.UsageError):
        measures.measure_one("mb_s:s", decls, lookup, own)


@pytest.mark.parametrize(
    ("values", "bests", "error"),
    [
        ([{"key": "k", "why": "{nope}"}], None, "reproduce.values\\[0\\]: a template"),
        (None, [{"name": "b:x", "key": "k", "system": "v", "why": "w"}], "no ':'"),
        (None, [{"name": "b", "key": "k", "system": "v", "why": "{vr} {x}"}], "a template"),
        ([{"key": "b", "why": "w"}], [{"name": "b", "key": "k", "system": "v", "why": "w"}], "used twice"),
        (None, [{"name": "b", "key": "k", "why": "w"}], "`system` must be"),
    ],
)
def test_a_bad_measure_declaration_is_the_files_error(values: object, bests: object, error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        measures.load_declared("x.toml", None, values, bests)


@pytest.mark.parametrize(
    ("metrics", "columns", "error"),
    [
        ([{"name": "m", "path": "a.*.b"}], None, "`\\*` in `path` goes with form sum or max"),
        ([{"name": "m", "form": "sum", "path": "a.b"}], None, "`\\*` in `path`"),
        ([{"name": "m", "form": "key", "path": "a"}], None, "`path` is required, except with form key"),
        ([{"name": "m", "path": "a", "divisor": 2.0}], None, "`divisor` is a positive number, with `per`"),
        ([{"name": "m", "path": "a", "form": "mean"}], None, "form 'mean' is not one of"),
        ([{"name": "m", "path": "a"}, {"name": "m", "path": "b"}], None, "duplicate names m"),
        ([{"name": "m", "path": "a"}], [{"name": "n", "of": "x", "to": "y"}], "`of` names no metric: x"),
        ([{"name": "m", "path": "a"}], [{"name": "n", "of": "m"}], "either `of` and `to`"),
    ],
)
def test_a_bad_row_declaration_is_the_files_error(metrics: object, columns: object, error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        rows.load_rows("x.toml", None, metrics, columns)


def test_a_run_label_needs_a_part_per_label_column() -> None:
    with pytest.raises(ftlab.InputError, match="run labels solo are not w/m"):
        rows.load_rows("x.toml", {"label": ["w", "m"]}, None, None, ["a/b", "solo"])


def test_a_declared_row_reads_paths_sums_and_rates() -> None:
    decl = rows.load_rows(
        "x.toml",
        {"label": ["w", "m"]},
        [
            {"name": "total", "path": "tenants.*.bytes", "form": "sum"},
            {"name": "peak", "path": "tenants.*.bytes", "form": "max"},
            {"name": "rate", "path": "tenants.{subject}.bytes", "per": "secs", "divisor": 1e3},
            {"name": "n", "path": "list", "form": "count"},
            {"name": "name", "form": "key"},
        ],
        [{"name": "norm", "of": "rate", "to": "base"}],
    )
    scheme = {"tenants": {"t": {"bytes": 6000}, "u": {"bytes": 2000}}, "secs": 2.0, "list": [1, 2, 3]}
    row = decl.read("t/x", {"schemes": {"s": scheme}})
    assert row == {"total": 8000, "peak": 6000, "rate": 3.0, "n": 3, "name": "s"}
    base = decl.read("t/base", {"schemes": {"s": {**scheme, "secs": 4.0}}})
    csv = decl.csv_rows(["t/x", "t/base", "t/gone"], {"t/x": row, "t/base": base})
    assert [(r["w"], r["m"], r["norm"]) for r in csv] == [("t", "x", 2.0), ("t", "base", 1.0)]


TENANT_TABLE = {
    "name": "lat",
    "run": "a",
    "each": "schemes.s.tenants",
    "key": "tenant",
    "columns": [
        {"name": "a_us", "run": "a", "path": "read.us", "form": "positive"},
        {"name": "b_us", "run": "b", "path": "read.us", "form": "positive"},
        {"name": "b_over_a", "of": "b_us", "per": "a_us"},
        {"name": "raw", "run": "b", "path": "read.us"},
    ],
}


def tenants(reads: dict[str, object]) -> dict[str, object]:
    return {"schemes": {"s": {"tenants": {t: {"read": {"us": v}} for t, v in reads.items()}}}}


def test_a_declared_table_has_a_row_per_tenant_of_its_run() -> None:
    """Rows follow run a's tenants in order; b's values at the same tenant; a value that is not
    a positive number is None in form positive (kept as it is in form value), and so is a ratio
    with it; b's extra tenant makes no row."""
    (decl,) = rows.load_tables("x.toml", [TENANT_TABLE], ["a", "b"])
    summaries = {"a": tenants({"t": 2.0, "u": 4.0, "v": 1.0}), "b": tenants({"u": 0, "t": 5.0, "w": 9.0})}
    assert decl.rows(summaries) == [
        {"tenant": "t", "a_us": 2.0, "b_us": 5.0, "b_over_a": 2.5, "raw": 5.0},
        {"tenant": "u", "a_us": 4.0, "b_us": None, "b_over_a": None, "raw": 0},
        {"tenant": "v", "a_us": 1.0, "b_us": None, "b_over_a": None, "raw": None},
    ]
    assert decl.rows({"b": summaries["b"]}) == []  # no run a: no rows


_CELLS = cast("list[dict[str, object]]", TENANT_TABLE["columns"])
#: TENANT_TABLE as a grid: a row per scheme, then per tenant; its two values in form float.
GRID_TABLE = {
    **TENANT_TABLE,
    **{"name": "grid", "each": "schemes", "key": "scheme", "within": "tenants", "within_key": "tenant"},
    "columns": [*({**c, "form": "float"} for c in _CELLS[:2]), _CELLS[2]],
}


def test_a_grid_table_has_a_row_per_scheme_and_tenant() -> None:
    """A row per scheme of run a, then per tenant of that scheme, in order; b's value at the
    same scheme and tenant; form float turns an int into a float and what is not a number
    (or missing) into None."""
    (decl,) = rows.load_tables("x.toml", [GRID_TABLE], ["a", "b"])
    a = {"schemes": {"s": {"tenants": {"t": {"read": {"us": 2}}, "u": {"read": {"us": "x"}}}}, "r": {}}}
    b = {"schemes": {"s": {"tenants": {"u": {"read": {"us": 3.0}}, "t": {"read": {"us": 5}}}}}}
    assert decl.rows({"a": a, "b": b}) == [
        {"scheme": "s", "tenant": "t", "a_us": 2.0, "b_us": 5.0, "b_over_a": 2.5},
        {"scheme": "s", "tenant": "u", "a_us": None, "b_us": 3.0, "b_over_a": None},
    ]
    assert decl.rows({"b": b}) == []


GEOMEAN = {
    "name": "g",
    "table": "lat",
    "column": "b_over_a",
    "why": "{v:.2f} {inverse:.2f} {n} {max_key} {max:g}",
}


def test_a_geometric_mean_over_a_tables_rows() -> None:
    """sqrt(2 x 8) = 4 over the rows' numbers (None skipped); inverse: sqrt(1/2 x 1/8) = 1/4;
    with `every`, a row without a number leaves it not measured."""
    table = rows.load_tables("x.toml", [TENANT_TABLE], ["a", "b"])
    plain, inverse, every = rows.load_geomeans(
        "x.toml",
        [
            GEOMEAN,
            {**GEOMEAN, "name": "i", "inverse": True, "missing": "none"},
            {**GEOMEAN, "name": "e", "every": True, "missing": "gone", "reason": "r"},
        ],
        table,
    )
    got: list[dict[str, object]] = [
        {"tenant": "t", "b_over_a": 2.0},
        {"tenant": "u", "b_over_a": None},
        {"tenant": "v", "b_over_a": 8},
    ]
    m, i = plain.measure(got, "tenant"), inverse.measure(got, "tenant")
    assert m.value == pytest.approx(4.0) and m.why == "4.00 0.25 3 v 8"
    assert i.value == pytest.approx(0.25) and i.why == "0.25 4.00 3 t 0.5"
    assert every.measure(got, "tenant") == Measured(None, "gone", "r")
    assert every.measure(got[::2], "tenant").value == pytest.approx(4.0)
    nan = plain.measure([{"tenant": "t", "b_over_a": -1.0}], "tenant")
    assert nan.value is not None and math.isnan(nan.value) and nan.why == ""


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({**TENANT_TABLE, "run": "c"}, "runs c are not run labels"),
        ({**TENANT_TABLE, "columns": [{"name": "x", "of": "y", "per": "z"}]}, "name earlier columns"),
        ({**TENANT_TABLE, "columns": [{"name": "x", "run": "a"}]}, "either `run` and `path`"),
        ({**TENANT_TABLE, "columns": [{"name": "x", "run": "a", "path": "p", "form": "sum"}]}, "form 'sum'"),
        ({**TENANT_TABLE, "columns": [{"name": "tenant", "run": "a", "path": "p"}]}, "duplicate columns"),
        ({**TENANT_TABLE, "within": "tenants"}, "give both `within` and `within_key`"),
        ({**GRID_TABLE, "within_key": "a_us"}, "duplicate columns"),
        ({**GRID_TABLE, "columns": [{"name": "x", "of": "tenant", "per": "scheme"}]}, "name earlier columns"),
    ],
)
def test_a_bad_table_declaration_is_the_files_error(given: dict[str, object], error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        rows.load_tables("x.toml", [given], ["a", "b"])


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({**GEOMEAN, "column": "nope"}, "no column 'nope'"),
        ({**GEOMEAN, "reason": "r"}, "`reason` needs `every"),
        ({**GEOMEAN, "why": "{w}"}, "unknown placeholder"),
    ],
)
def test_a_bad_geometric_mean_is_the_files_error(given: dict[str, object], error: str) -> None:
    table = rows.load_tables("x.toml", [TENANT_TABLE], ["a", "b"])
    with pytest.raises(ftlab.InputError, match=error):
        rows.load_geomeans("x.toml", [given], table)


def test_a_paper_read_run_by_run_needs_only_its_name() -> None:
    """Everything else of a `PerRunPaper` has a declared default (docs/ARCHITECTURE.md, "A
    sixth paper"): no abstract method is left to write."""
    from ftlab.reproduce.per_run import PerRunPaper

    class Sixth(PerRunPaper[dict[str, object]]):
        name = "sixth"

    assert Sixth().name == "sixth" and not Sixth.__abstractmethods__


def window_table() -> pl.DataFrame:
    """Scheme x, tenant t: 2 then 4 (and a NaN) before time 10, 6 after; tenant u: 100 before
    and after, read at rates 1 and 3. Scheme y: tenant t 8 after 10, at rate 1."""
    import polars as pl

    rows = [
        ("x", "t", 0.0, 2.0, 1.0),
        ("x", "t", 5.0, 4.0, 1.0),
        ("x", "t", 6.0, float("nan"), 0.0),
        ("x", "t", 10.0, 6.0, 1.0),
        ("x", "u", 5.0, 100.0, 1.0),
        ("x", "u", 10.0, 100.0, 3.0),
        ("x", "u", 20.0, 1000.0, 5.0),
        ("y", "t", 10.0, 8.0, 1.0),
    ]
    cols = ["scheme", "tenant", "window_start_s", "v", "rate"]
    return pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])


def window(**given: object) -> WindowDecl:
    table = {
        "name": "w",
        "key": "v",
        "at": "t0",
        "width_s": 10.0,
        "why": "{before}/{after} {change}",
        **given,
    }
    return series_measures.load_windows("x.toml", [table])[0]


def test_a_window_growth_is_after_over_before() -> None:
    """Tenant t of x: mean(2, 4) = 3 before 10 (the NaN left out), 6 in [10, 20): 6 / 3 − 1 = +100%."""
    decl = window(tenant="t", unit="u", digits=1)
    m = series_measures.measure_window("w:x", [decl], window_table(), {"t0": 10.0})
    assert m is not None and m.value == pytest.approx(1.0) and m.why == "3.0 u/6.0 u +100.0%"
    assert series_measures.measure_window("other:x", [decl], window_table(), {"t0": 10.0}) is None
    with pytest.raises(ftlab.UsageError, match="named time 't0'"):
        series_measures.measure_window("w:x", [decl], window_table(), {"rise": 10.0})


def test_a_weighted_window_between_two_schemes() -> None:
    """After 10 (to 20): x's t 6 at rate 1 and u 100 at rate 3, (6 + 300) / 4 = 76.5; y's 8:
    8 / 76.5 − 1. The window at 20 is outside; without the weight column the mean is n/a."""
    why = "{a} {va}, {b} {vb}: {change} (at {at:g} s, {width:g} s)"
    decl = window(form="between", weight="rate", why=why, digits=1)
    m = series_measures.measure_window("w:x/y", [decl], window_table(), {"t0": 10.0})
    assert m is not None and m.value == pytest.approx(8 / 76.5 - 1)
    assert m.why == "x 76.5, y 8.0: −89.5% (at 10 s, 10 s)"
    none = series_measures.measure_window("w:x/y", [decl], window_table().drop("rate"), {"t0": 10.0})
    assert none is not None and isinstance(none.value, float) and math.isnan(none.value)
    assert none.why == "x n/a, y n/a: n/a (at 10 s, 10 s)"
    assert series_measures.measure_window("w:x", [decl], window_table(), {"t0": 10.0}) is None


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"form": "ratio"}, "form 'ratio' is not one of growth, between"),
        ({"width_s": 0.0}, "`width_s` must be a positive"),
        ({"name": "w:x"}, "no ':'"),
        ({"why": "{va}"}, "a template"),
        ({"weight": 3}, "`weight` must be a string"),
        ({"tenants": "t"}, "unknown keys tenants"),
    ],
)
def test_a_bad_window_declaration_is_the_files_error(given: dict[str, object], error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        window(**given)


def test_upis_windows_are_figure_5s() -> None:
    """papers/upi.toml's window measures are as wide as Figure 5's half window around the rise."""
    from ftlab.reproduce import upi
    from ftlab.reproduce.driver import load_plan

    widths = {w.width_s for w in load_plan("upi").windows}
    assert widths == {upi.AROUND_RISE_S}


def table_value(**given: object) -> measures.TableValueDecl:
    table = {"name": "n", "table": "t", "key": "mb", "why": "{what}: {mb:.1f} ({v})", **given}
    return measures.load_declared("x.toml", None, [table], None).tables[0]


T_ROWS = {"t": [{"what": "a", "mb": 10.0, "base": 4.0}, {"what": "b", "mb": 3.0, "base": None}]}


def test_a_table_value_is_a_supplied_rows_column() -> None:
    """Row a's 10 MB/s; over its base 4: 10 / 4 − 1 = 1.5; row b's missing base is NaN."""
    m = table_value(match={"what": "a"}, unit="MB/s").measure(T_ROWS)
    assert (m.value, m.why) == (10.0, "a: 10.0 (10 MB/s)")
    assert table_value(match={"what": "a"}, base="base").measure(T_ROWS).value == pytest.approx(1.5)
    nan = table_value(match={"what": "b"}, base="base").measure(T_ROWS).value
    assert isinstance(nan, float) and math.isnan(nan)
    gone = table_value(match={"what": "c"}, missing="no row c").measure(T_ROWS)
    assert (gone.value, gone.why, gone.missing) == (None, "no row c", "no row c")


def test_a_table_value_factor_and_a_missing_column() -> None:
    """With `factor`, row a's 10 over its base 4 is 2.5 (not minus 1); with `missing`, row b's
    base, None, as `key` is not measured; a None under a format spec prints "n/a"."""
    assert table_value(match={"what": "a"}, base="base", factor=True).measure(T_ROWS).value == 2.5
    gone = table_value(match={"what": "b"}, key="base", missing="no base").measure(T_ROWS)
    assert (gone.value, gone.missing) == (None, "no base")
    na = table_value(match={"what": "b"}, why="{base:.3f} and {base}").measure(T_ROWS)
    assert na.why == "n/a and None"


@pytest.mark.parametrize(
    ("given", "tables", "error"),
    [
        ({"match": {"what": "c"}}, T_ROWS, "0 rows of 't' match"),
        ({}, T_ROWS, "2 rows of 't' match"),
        ({"match": {"what": "a"}}, {"u": []}, "reads table 't', which is not supplied"),
        ({"match": {"what": "a"}, "why": "{nope}"}, T_ROWS, "has no column 'nope'"),
    ],
)
def test_a_table_value_the_code_does_not_fit_is_a_usage_error(
    given: dict[str, object], tables: measures.Tables, error: str
) -> None:
    with pytest.raises(ftlab.UsageError, match=error):
        table_value(**given).measure(tables)


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"match": "what"}, "`match` must be a table of strings"),
        ({"why": "{v:nope}"}, "a template"),
        ({"name": ""}, "`name` must be a non-empty string"),
        ({"row": "a"}, "unknown keys row"),
        ({"factor": True}, "`factor` goes with `base`"),
    ],
)
def test_a_bad_table_value_is_the_files_error(given: dict[str, object], error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        table_value(**given)


def test_a_declared_value_path_reads_a_number_or_none() -> None:
    summary = {"schemes": {"x": {"tenants": {"t": {"read": {"p99_us": 7, "ok": True, "n": None}}}}}}
    path = "schemes.{system}.tenants.{subject}.read.{key}"
    assert rows.value_at(summary, path, "t", "x", "p99_us") == 7.0
    assert [
        rows.value_at(summary, path, s, y, k)
        for s, y, k in (("t", "x", "ok"), ("t", "x", "n"), ("u", "x", "p99_us"))
    ] == [None] * 3


@pytest.mark.parametrize("path", ["schemes.{scheme}", 3])
def test_a_bad_value_path_is_the_files_error(path: object) -> None:
    from ftlab.reproduce import driver

    with pytest.raises(ftlab.InputError, match="value_path must be a key path"):
        driver._value_path("x.toml", path)
