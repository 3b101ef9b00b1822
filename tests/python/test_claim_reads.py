"""Tests of the declared reads of a claim file (`[[reproduce.reads]]`,
python/ftlab/reproduce/reads.py): key-path patterns, the forms and their missing values, `n`,
`divisor`, an unsupplied document, and the files' errors."""

from __future__ import annotations

import doctest
import math
from collections.abc import Sequence

import pytest

import ftlab
from ftlab.reproduce import reads
from ftlab.reproduce.driver import load_plan

#: Two write tasks and a read task; w1 has no response time, r0 a null one.
DOC = {
    "tasks": {
        "w0": {"response_max_us": 900, "misses": 2, "released": 10},
        "w1": {"misses": 1, "released": 10},
        "r0": {"response_max_us": None, "misses": 0, "released": 40},
    },
    "counters": {"eq6_total": 0.9, "eq7_total": 1.2, "flag": True},
}


def read(**given: object) -> float | int | None:
    (decl,) = reads.load_reads("x.toml", [{"name": "n", "source": "run", **given}])
    return decl.read({"run": DOC})


def test_doctests() -> None:
    assert doctest.testmod(reads).failed == 0


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"path": "tasks.w*.response_max_us", "form": "max"}, 900.0),
        ({"path": "tasks.w*.response_max_us", "form": "max", "divisor": 1000}, 0.9),
        (
            {"path": "tasks.*.released", "form": "sum", "multiplier": 196608, "divisor": 1e6},
            60 * 196608 / 1e6,
        ),
        ({"path": "counters.eq6_total", "multiplier": 10}, 9.0),
        ({"path": "tasks.*.misses", "form": "sum"}, 3.0),
        ({"path": "tasks.w*.released", "form": "mean"}, 10.0),
        ({"path": "tasks.*.misses", "form": "min"}, 0.0),
        ({"path": "tasks.w*", "form": "count"}, 2),
        ({"path": "tasks.[rw]0.misses", "form": "sum"}, 2.0),
        ({"path": "counters.eq[67]_total", "form": "max", "n": 2}, 1.2),
        ({"path": "counters.eq6_total"}, 0.9),
        # missing: a value that is not one number is None; a max or mean of none is NaN, a
        # sum of none 0, and a pattern that finds fewer numbers than `n` NaN
        ({"path": "counters.flag"}, None),
        ({"path": "tasks.*.misses"}, None),
        ({"path": "tasks.r*.response_max_us", "form": "max"}, math.nan),
        ({"path": "tasks.x*.misses", "form": "mean"}, math.nan),
        ({"path": "tasks.x*.misses", "form": "sum"}, 0.0),
        ({"path": "counters.eq[678]_total", "form": "max", "n": 3}, math.nan),
    ],
)
def test_a_read_is_a_number_at_a_pattern(given: dict[str, object], expected: float | None) -> None:
    got = read(**given)
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float) and math.isnan(got), got
    else:
        assert got == expected and type(got) is type(expected), got


def test_an_unsupplied_document_is_a_usage_error() -> None:
    (decl,) = reads.load_reads("x.toml", [{"name": "n", "source": "other", "path": "a"}])
    with pytest.raises(ftlab.UsageError, match="no document 'other' is supplied"):
        decl.read({"run": DOC})


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"name": "n", "source": "run", "path": "a", "form": "median"}, "form 'median' is not one of"),
        ({"name": "n", "source": "run", "path": "a", "n": 2}, "`n` goes with form max"),
        ({"name": "n", "source": "run", "path": "a", "divisor": 0}, "`divisor` is a positive number"),
        ({"name": "n", "source": "run", "path": "a", "form": "count", "divisor": 2}, "not with form count"),
        ({"name": "n", "source": "run", "path": "a", "multiplier": -1}, "`multiplier` is a positive number"),
        (
            {"name": "n", "source": "run", "path": "a", "form": "sum", "integer": True, "multiplier": 2},
            "`integer` goes with form sum, without",
        ),
        ({"name": "n", "source": "run", "path": "a..b"}, "has an empty part"),
        ({"name": "n", "source": "run"}, "`path` must be a non-empty string"),
        ({"name": "n", "source": "run", "path": "a", "at": "b"}, "unknown keys at"),
    ],
)
def test_a_bad_read_is_the_files_error(given: dict[str, object], error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        reads.load_reads("x.toml", [given])


def test_a_name_read_twice_is_the_files_error() -> None:
    one = {"name": "n", "source": "run", "path": "a"}
    with pytest.raises(ftlab.InputError, match="duplicate names n"):
        reads.load_reads("x.toml", [one, one])


def test_part_ftls_reads_are_declared() -> None:
    """PaRT-FTL's Table III and Figure 16 numbers are declared reads of its "table3" and
    "fig16" runs and its "admission" document (papers/part_ftl.toml)."""
    plan = load_plan("part-ftl")
    assert {r.source for r in plan.reads} == {"table3", "fig16", "admission"}
    assert {r.source for r in plan.reads} - {"admission"} <= {r.label for r in plan.runs}


#: Two schemes' tasks, as a Table III run's summary.json holds them (scheme b has no r* task).
SCHEMES = {
    "schemes": {
        "a": {
            "tasks": {"w0": {"misses": 1, "max": 5.0}, "w1": {"misses": 2, "max": 9.0}, "r0": {"misses": 0}}
        },
        "b": {"tasks": {"w0": {"misses": 0.5, "max": 3.0}}},
    }
}


def read_table(
    levels: Sequence[object], table_reads: Sequence[object], doc: object = SCHEMES
) -> reads.ReadTable:
    raw = {"name": "t", "source": "run", "levels": levels, "reads": table_reads}
    (decl,) = reads.load_read_tables("x.toml", [raw])
    return reads.read_table(decl, {"run": doc})


def at(table: object, *keys: str) -> object:
    """The entry of a read table at `keys`, level by level."""
    for k in keys:
        assert isinstance(table, dict), keys
        table = table[k]
    return table


def test_a_read_table_nests_its_reads_over_its_levels() -> None:
    """The first level's values are the keys of `schemes` in their order, the second the
    declared ops; each read's path is formatted with both ("{op[0]}": w or r)."""
    levels = [{"name": "scheme", "keys_of": "schemes"}, {"name": "op", "values": ["write", "read"]}]
    where = "schemes.{scheme}.tasks.{op[0]}*"
    table_reads = [
        {"name": "max", "path": f"{where}.max", "form": "max"},
        {"name": "n", "path": where, "form": "count"},
    ]
    got = read_table(levels, table_reads, {"schemes": {"b": SCHEMES["schemes"]["b"], "a": {}}})
    assert list(got) == ["b", "a"]
    for s in got:
        ops = at(got, s)
        assert isinstance(ops, dict) and list(ops) == ["write", "read"], s
    assert at(got, "b", "write") == {"max": 3.0, "n": 1}
    # no number found: the max is NaN and the count 0, as a declared read's
    for s, op in (("b", "read"), ("a", "write"), ("a", "read")):
        nan = at(got, s, op, "max")
        assert isinstance(nan, float) and math.isnan(nan) and at(got, s, op, "n") == 0, (s, op)


def test_an_integer_sum_is_an_int_and_a_fraction_refused() -> None:
    levels = [{"name": "scheme", "values": ["a"]}]
    misses = [{"name": "misses", "path": "schemes.{scheme}.tasks.*.misses", "form": "sum", "integer": True}]
    got = read_table(levels, misses)
    assert got == {"a": {"misses": 3}} and type(at(got, "a", "misses")) is int
    with pytest.raises(ftlab.UsageError, match="read 'misses': the sum 0.5 is not a whole number"):
        read_table([{"name": "scheme", "values": ["b"]}], misses)


def test_a_read_table_of_an_unsupplied_document_is_a_usage_error() -> None:
    raw = {"name": "t", "source": "other", "levels": [{"name": "x", "values": ["a"]}]}
    (decl,) = reads.load_read_tables("x.toml", [{**raw, "reads": [{"name": "n", "path": "a"}]}])
    with pytest.raises(ftlab.UsageError, match="read table 't': no document 'other' is supplied"):
        reads.read_table(decl, {"run": DOC})


ONE_LEVEL = [{"name": "x", "values": ["a"]}]


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"levels": ONE_LEVEL, "reads": []}, "needs `levels` and `reads`"),
        ({"levels": [], "reads": [{"name": "n", "path": "a"}]}, "needs `levels` and `reads`"),
        ({"levels": [{"name": "x"}], "reads": [{"name": "n", "path": "a"}]}, "exactly one of `values` and"),
        (
            {
                "levels": [{"name": "x", "values": ["a"], "keys_of": "k"}],
                "reads": [{"name": "n", "path": "a"}],
            },
            r"levels\[0\]: needs exactly one of",
        ),
        ({"levels": ONE_LEVEL, "reads": [{"name": "n", "path": "{y}"}]}, "unknown placeholder"),
        ({"levels": ONE_LEVEL, "reads": [{"name": "n", "source": "s", "path": "a"}]}, "it names none"),
        (
            {"levels": ONE_LEVEL, "reads": [{"name": "n", "path": "a", "form": "max", "integer": True}]},
            r"read_tables\[0\].reads\[0\]: `integer` goes with form sum",
        ),
        (
            {"levels": ONE_LEVEL, "reads": [{"name": "n", "path": "a"}, {"name": "n", "path": "b"}]},
            "duplicate names n",
        ),
    ],
)
def test_a_bad_read_table_is_the_files_error(given: dict[str, object], error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        reads.load_read_tables("x.toml", [{"name": "t", "source": "run", **given}])


def test_part_ftls_tasks_are_a_read_table_of_its_table3_run() -> None:
    (table,) = load_plan("part-ftl").read_tables
    assert (table.name, table.source, [lv.name for lv in table.levels]) == (
        "tasks",
        "table3",
        ["scheme", "op"],
    )
