"""Tests of a claim file's declared claims.json sections (python/ftlab/reproduce/sections.py,
`[[reproduce.sections]]`): each source on hand-made runs, the order and the side of the health,
the files' errors, and the key order of every paper's claims.json head as its plan declares it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import polars as pl
import pytest

import ftlab
from ftlab.reproduce import reads, sections
from ftlab.reproduce.driver import load_plan

if TYPE_CHECKING:
    from ftlab.report import Report


@dataclass
class FakeRun:
    """What a section reads of a Report: its schemes, time series and resolved scenario."""

    schemes: list[str]
    timeseries: pl.DataFrame
    resolved_toml: str = "[measure]\nwarmup_s = 2.5\n"
    summary: Mapping[str, object] = field(default_factory=lambda: {"schemes": {"x": {"n": 3}, "y": {}}})


def run() -> Report:
    """A run whose scheme x first copies in the window at 1 s and whose scheme y never does."""
    rows = [
        {"scheme": s, "window_start_s": w, "gc_pages_copied": int(s == "x" and w >= 1.0), "erases": 0}
        for s in ("x", "y")
        for w in (0.0, 1.0, 2.0)
    ]
    return cast("Report", FakeRun(["x", "y"], pl.DataFrame(rows)))


DECLARED = [
    {"name": "factor", "value": 0.0},
    {"name": "dir", "path": "run"},
    {"name": "after", "of": "block", "after_health": True},
    {"name": "warm", "read": "warmup_s", "run": "a"},
    {"name": "gc", "read": "gc_start_s", "run": "a"},
    {"name": "rows", "of": "table"},
]


def test_each_source_in_order_on_its_side_of_the_health() -> None:
    decls = sections.load_sections("x.toml", DECLARED, ["a"])
    supplied = {"table": [{"k": 1}], "block": {"b": 2}}
    before = sections.write(decls, False, supplied, {"a": run()}, Path("out"))
    assert list(before) == ["factor", "dir", "warm", "gc", "rows"]
    assert before["factor"] == 0.0 and before["dir"] == str(Path("out") / "run")
    assert before["warm"] == 2.5 and before["gc"] == {"x": 1.0, "y": None}
    assert before["rows"] is supplied["table"]
    assert sections.write(decls, True, supplied, {"a": run()}, Path("out")) == {"after": {"b": 2}}


#: A read table of run "a"'s schemes and a supplied document's number per scheme.
READ_TABLE = {
    "name": "per_scheme",
    "source": "a",
    "levels": [{"name": "scheme", "keys_of": "schemes"}],
    "reads": [
        {"name": "n", "path": "schemes.{scheme}.n"},
        {"name": "count", "path": "schemes.{scheme}.*", "form": "count"},
    ],
}


def test_a_read_table_reads_the_runs_summaries() -> None:
    """`read_table` names a read table: read from run "a"'s summary.json, by its label, even where
    the code supplies a value of that name."""
    tables = reads.load_read_tables("x.toml", [READ_TABLE])
    decls = sections.load_sections("x.toml", [{"name": "s", "read_table": "per_scheme"}], ["a"], (), tables)
    got = sections.write(decls, False, {"a": {"schemes": {}}}, {"a": run()}, Path("out"))
    assert got == {"s": {"x": {"n": 3.0, "count": 1}, "y": {"n": None, "count": 0}}}


#: A declared read of run "a"'s scheme x.
N_OF_X = reads.load_reads("x.toml", [{"name": "n_x", "source": "a", "path": "schemes.x.n"}])

BLOCK = {
    "name": "b",
    "block": {
        "device": {
            "n": {"read": "n_x"},
            "raw": {"source": "a", "path": "schemes.x.n"},
            "mode": {"value": "report"},
        },
        "paper": {"Eq. 6": {"source": "doc", "path": "eq6"}, "absent": {"source": "doc", "path": "eq9"}},
    },
}


def test_a_block_composes_reads_values_as_they_are_and_literals_in_order() -> None:
    """A block's leaves: a declared read (a float), the value at a path as it is (the int 3;
    None where absent) and a literal; its tables nest, in their declared order."""
    decls = sections.load_sections("x.toml", [BLOCK], ["a"], N_OF_X)
    got = sections.write(decls, False, {"doc": {"eq6": 1.066}}, {"a": run()}, Path("out"))
    assert got == {
        "b": {"device": {"n": 3.0, "raw": 3, "mode": "report"}, "paper": {"Eq. 6": 1.066, "absent": None}}
    }
    block = got["b"]
    assert isinstance(block, dict) and list(block) == ["device", "paper"]
    assert list(block["device"]) == ["n", "raw", "mode"] and type(block["device"]["raw"]) is int


def test_a_block_may_be_one_leaf() -> None:
    one = {"name": "b", "block": {"source": "doc", "path": "bounds"}}
    decls = sections.load_sections("x.toml", [one], ["a"])
    bounds = [{"quantity": "q"}]
    assert sections.write(decls, False, {"doc": {"bounds": bounds}}, {}, Path("out")) == {"b": bounds}


def test_a_block_of_an_unsupplied_document_is_a_usage_error() -> None:
    decls = sections.load_sections("x.toml", [BLOCK], ["a"], N_OF_X)
    with pytest.raises(ftlab.UsageError, match="claims.json section b.*no document 'doc' is supplied"):
        sections.write(decls, False, {}, {"a": run()}, Path("out"))


def test_a_name_the_code_does_not_supply_is_a_usage_error() -> None:
    decls = sections.load_sections("x.toml", [{"name": "s", "of": "nothing"}], ["a"])
    with pytest.raises(ftlab.UsageError, match="supplies no 'nothing'"):
        sections.write(decls, False, {}, {}, Path("out"))


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ([{"name": "s"}], "needs exactly one of"),
        ([{"name": "s", "of": "t", "value": 1}], "needs exactly one of"),
        ([{"name": "s", "read": "warmup_s"}], "`run` goes with `read`"),
        ([{"name": "s", "of": "t", "run": "a"}], "`run` goes with `read`"),
        ([{"name": "s", "read": "p99", "run": "a"}], "read 'p99' is not one of warmup_s, gc_start_s"),
        ([{"name": "s", "read": "warmup_s", "run": "b"}], "run b is no run label"),
        ([{"name": "s", "of": "t"}, {"name": "s", "path": "run"}], "duplicate names s"),
        ([{"name": "s", "of": "t", "where": "x"}], "unknown keys where"),
        ([{"name": "s", "of": "t", "table": "x"}], "unknown keys table"),
        (
            [{"name": "s", "read_table": "nothing"}],
            "read_table 'nothing' is no \\[\\[reproduce.read_tables\\]\\] name",
        ),
        ([{"name": "s", "read_table": "t", "of": "t"}], "needs exactly one of"),
        ([{"name": "s", "block": {}, "of": "t"}], "needs exactly one of"),
        ([{"name": "s", "block": {}}], "block must be a leaf"),
        ([{"name": "s", "block": {"x": 1}}], "block.x must be a leaf"),
        ([{"name": "s", "block": {"x": {"read": "nothing"}}}], "block.x: read 'nothing' is no declared read"),
        ([{"name": "s", "block": {"x": {"source": "a"}}}], "block.x: a leaf is exactly"),
        ([{"name": "s", "block": {"value": 1, "y": {"value": 2}}}], "block: a leaf is exactly"),
        ([{"name": "s", "block": {"source": "a", "path": 3}}], "`source` and `path` must be non-empty"),
        ({"name": "s"}, "must be an array of tables"),
    ],
)
def test_a_bad_section_is_the_files_error(raw: object, error: str) -> None:
    with pytest.raises(ftlab.InputError, match=error):
        sections.load_sections("x.toml", raw, ["a"])


#: The papers whose claims.json sections are declared.
PAPERS = ("flashblox", "part-ftl", "vstream", "ioda")


@pytest.mark.parametrize("name", PAPERS)
def test_declared_sections_keep_claims_json_key_order(name: str) -> None:
    """Each paper's declared sections are the keys, in the order, its module wrote before
    they were declared (listed here from that code), all before the health: claims.json's key
    order stays the same."""
    before = {
        "flashblox": ["software_iops_factor", "lifetime_model"],
        "part-ftl": [
            "warmup_s",
            "gc_start_s",
            "tasks",
            "admission",
            "fig16",
            "gc_equations",
            "table4",
            "schedulability",
        ],
        "vstream": ["run_dir", "mappers", "metrics"],
        "ioda": ["reads"],
    }[name]
    decls = load_plan(name).sections
    assert [d.name for d in decls if not d.after_health] == before
    assert not [d for d in decls if d.after_health]
