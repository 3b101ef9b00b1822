"""Tests of `ftlab.reproduce.keypath`, the one reader of a key path and the one reduction:
each rule (`SUMMARY`, `PATTERNS`, `SCENARIO`) on one hand-written document, the values and
key paths worked out by hand here, the names other modules import (`rows.walk`,
`rows.walk_one`, `reads.find`, `reads.reduce`) reading through it,
both reduction rules, and the scaled numbers a knob's `factors` and a declared case's
`scale` share (`cases.scaled_at`), with their errors.
"""

from __future__ import annotations

import math

import pytest

from ftlab import InputError
from ftlab.reproduce import cases, reads, rows
from ftlab.reproduce.keypath import PATTERNS, SCENARIO, SUMMARY, Rule, matches, reduce, walk, walk_one

DOC: dict[str, object] = {
    "t": {"w0": {"m": 1}, "r0": {"m": 2}, "w1": {"m": None}, "eq7": 3},
    "a": [{"name": "x", "r": 1.0}, {"r": 2}],
    "n": None,
}


@pytest.mark.parametrize(
    ("path", "rule", "want"),
    [
        ("", SUMMARY, [("", DOC)]),
        ("t.w0.m", SUMMARY, [("t.w0.m", 1)]),
        ("t.*.m", SUMMARY, [("t.w0.m", 1), ("t.r0.m", 2)]),  # the null is at the plain key "m"
        ("t.w1.*", SUMMARY, [("t.w1.m", None)]),  # `*` keeps a null
        ("t.w1.m", SUMMARY, []),  # a null at a plain key is missing
        ("n", SUMMARY, []),
        ("a.*.r", SUMMARY, []),  # an array ends the path
        ("t.w*.m", SUMMARY, []),  # not a pattern: no such key
        ("t.w*.m", PATTERNS, [("t.w0.m", 1)]),  # a pattern skips the null
        ("t.eq[67]", PATTERNS, [("t.eq7", 3)]),
        ("t.w1.*", PATTERNS, []),
        ("t.w1.*", Rule(patterns=True, nulls=True), [("t.w1.m", None)]),
        ("a.*.r", SCENARIO, [("a.x.r", 1.0), ("a.1.r", 2)]),  # by `name`, else by index
        ("a.r", SCENARIO, [("a.0.r", 1.0), ("a.1.r", 2)]),  # a key met at an array: each table
        ("t.nope", SCENARIO, []),
    ],
)
def test_a_rule_reads_its_parts_nulls_and_arrays(
    path: str, rule: Rule, want: list[tuple[str, object]]
) -> None:
    assert matches(DOC, path, rule) == want
    assert walk(DOC, path, rule) == [v for _, v in want]
    assert walk_one(DOC, path, rule) == (want[0][1] if len(want) == 1 else None)


def test_the_imported_names_read_through_the_one_reader() -> None:
    assert rows.walk is walk and rows.walk_one is walk_one
    assert reads.find(DOC, "t.w*.m") == walk(DOC, "t.w*.m", PATTERNS) == [1]


@pytest.mark.parametrize(
    ("found", "form", "finite", "every"),
    [
        ([3, 1.5], "max", 3.0, 3),
        ([3, 1], "sum", 4.0, 4),  # `every` keeps the ints' type
        ([1, 2, 6], "mean", 3.0, 3.0),
        ([3, 1.5], "min", 1.5, 1.5),
        ([3, None], "sum", 3.0, None),  # `finite` skips the null, `every` refuses it
        ([3, math.inf], "max", 3.0, math.inf),
        ([], "sum", 0.0, None),
        ([], "max", math.nan, None),
    ],
)
def test_a_reduction_says_its_rule(found: list[object], form: str, finite: float, every: object) -> None:
    got = reduce(found, form, "finite")
    assert got == finite or (math.isnan(finite) and isinstance(got, float) and math.isnan(got))
    assert type(reduce(found, form, "every")) is type(every) and reduce(found, form, "every") == every
    assert reads.reduce(found, form) == got or math.isnan(finite)


def test_finite_with_a_count_is_nan_unless_it_finds_that_many() -> None:
    assert math.isnan(reads.reduce([2.0, None], "max", n=2))
    assert reads.reduce([2.0, 1.0], "max", n=2) == 2.0


SCENARIO_DOC = {
    "tenants": [{"name": "a", "synthetic": {"rate": 10}}, {"synthetic": [{"rate": 4}, {"rate": "x"}]}]
}


@pytest.mark.parametrize(
    ("path", "factor", "want"),
    [
        ("tenants.*.synthetic.rate", 0.5, "tenants.1.synthetic.1.rate is not a number"),
        ("tenants.a.synthetic.rate", 0.5, "no number at"),  # no `*`: an array by index only
        ("tenants.*.synthetic.nope", 2, "no number at tenants.*.synthetic.nope"),
        ("tenants.*.name", 2, "tenants.a.name is not a number"),
    ],
)
def test_a_scaled_path_needs_numbers(path: str, factor: float, want: str) -> None:
    with pytest.raises(InputError, match=want):
        cases.scaled_at(SCENARIO_DOC, path, factor, "here")


def test_a_scaled_path_and_a_knobs_factors_are_one_rule() -> None:
    doc = {"tenants": [{"name": "a", "synthetic": {"rate": 10}}, {"name": "b", "synthetic": [{"rate": 4}]}]}
    by_path = cases.scaled_at(doc, "tenants.*.synthetic.rate", 1.5, "here")
    assert by_path == [("tenants.a.synthetic.rate", 15.0), ("tenants.b.synthetic.0.rate", 6.0)]
    knob = cases.KnobDecl("load", "x{factor:g}", (1.5,), key="rate", form="factors", tenant="*", parts="all")
    (case,) = cases.knob_cases(knob, doc)
    assert case["set"] == dict(by_path)
