"""Tests of `ftlab.reproduce.cases` (a sensitivity study's `[[reproduce.knobs]]`): each place
selector and form on a hand-written scenario, the overrides and labels worked by hand here
(rates, factors, KiB, the sums), a knob the scenario lacks left out, each malformed
declaration refused with the knob and the key named, a plan's knobs read by the driver
(`load_plan`, which refuses knobs over more than one run), and UPI's `--sensitivity` sent to
the driver's knob study of its one run, and a declared case's `split` and `each` (a list with an
entry per table, each sized by its summed number, worked by hand). UPI's declared knobs on its
scenarios are tested in test_reproduce.py and test_upi_grounding.py.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from ftlab import InputError, UsageError
from ftlab.report import Report
from ftlab.reproduce import cases, claimfile, driver
from ftlab.reproduce.sweep_study import BASE

SCENARIO = """
schemes = ["a", "b"]
[device.timing]
erase_us = 4000
[scheme.a]
shares = [2, 6]
epoch_s = 10.0
[scheme.c]
shares = [1, 7]
[[tenants]]
name = "t1"
queue_depth = 32
namespace_fraction = 0.5
[[tenants.synthetic]]
rate_iops = 100.0
read_ratio = 1.0
arrival = "poisson"
sizes = [{ bytes = 8192, weight = 1.0 }]
[[tenants.synthetic]]
rate_iops = 40
read_ratio = 0.0
start_s = 50.0
on_s = 5.0
off_s = 45.0
sizes = [{ bytes = 4096, weight = 0.5 }, { bytes = 65536, weight = 0.5 }]
[[tenants.synthetic]]
rate_iops = 20.0
read_ratio = 0.5
arrival = "poisson"
[[tenants]]
name = "t2"
queue_depth = 8
[tenants.synthetic]
rate_iops = 10.0
footprint_fraction = 0.2
"""


def knob(**raw: object) -> cases.KnobDecl:
    return cases.load_knobs("test.toml", [raw])[0]


def one(**raw: object) -> list[tuple[str, dict[str, object], str, object, str, object]]:
    """The cases of one knob on SCENARIO: name, overrides, value, x, base, base_x."""
    found = cases.study_cases([knob(**raw)], SCENARIO)
    assert found[0]["parameter"] == BASE and found[0]["set"] == {}
    return [(c["name"], c["set"], c["value"], c["x"], c["base"], c["base_x"]) for c in found[1:]]


def test_factors_at_a_table_path() -> None:
    got = one(
        parameter="erase", at="device.timing", key="erase_us", form="factors", values=[0.5, 2.0],
        name="erase_us={value:g}", value="{value:g} (x{factor:g})", base="{value:g} (x1)",
    )  # fmt: skip
    assert got == [
        ("erase_us=2000", {"device.timing.erase_us": 2000.0}, "2000 (x0.5)", 0.5, "4000 (x1)", 1.0),
        ("erase_us=8000", {"device.timing.erase_us": 8000.0}, "8000 (x2)", 2.0, "4000 (x1)", 1.0),
    ]


@pytest.mark.parametrize(
    ("parts", "indexes"),
    [
        ("all", [0, 1, 2]),
        ("first", [0]),
        ("readers", [0, 2]),  # read_ratio > 0
        ("writers", [1, 2]),  # read_ratio < 1
        ("latest_start", [1]),  # start_s 50 (the others 0)
        ("writers_but_latest_start", [2]),
    ],
)
def test_part_selectors_and_the_rates_of_every_part(parts: str, indexes: list[int]) -> None:
    rates = [100.0, 40.0, 20.0]
    got = one(
        parameter="r", tenant="t1", parts=parts, key="rate_iops", form="factors", values=[1.5],
        name="r x{factor:g}", value="x{factor:g}", base="x1 ({rates}/s)",
    )  # fmt: skip
    sets = {f"tenants.t1.synthetic.{i}.rate_iops": rates[i] * 1.5 for i in indexes}
    base = "x1 (" + "+".join(f"{rates[i]:g}" for i in indexes) + "/s)"
    assert got == [("r x1.5", sets, "x1.5", 1.5, base, 1.0)]


def test_values_on_every_tenant_and_on_the_schemes_that_run() -> None:
    got = one(parameter="qd", tenant="*", key="queue_depth", need=True, values=[16], name="qd={value}")
    assert got == [
        ("qd=16", {"tenants.t1.queue_depth": 16, "tenants.t2.queue_depth": 16}, "16", 16, "32", 32.0)
    ]
    # c does not run; b runs without a table: its base is n/a only if it comes first.
    got = one(parameter="e", schemes=["c", "b", "a"], key="epoch_s", values=[2.0], name="e={value:g}")
    assert got == [("e=2", {"scheme.b.epoch_s": 2.0, "scheme.a.epoch_s": 2.0}, "2", 2.0, "n/a", None)]


def test_one_table_part_filters_default_and_of() -> None:
    got = one(
        parameter="fp", tenant="t2", parts="first", key="footprint_fraction", of="queue_depth",
        values=[0.5], value="{value:g} ({of:g})", base="{value:g} ({of:g})", name="fp={label}",
    )  # fmt: skip
    # t2's synthetic is one table: its path has no index; of = value x t2's queue_depth 8.
    assert got == [
        ("fp=0.5", {"tenants.t2.synthetic.footprint_fraction": 0.5}, "0.5 (4)", 0.5, "0.2 (1.6)", 0.2)
    ]
    got = one(parameter="z", tenant="t1", parts="all", key="zipf_theta", default=0.9, values=[0.6], name="z")
    assert got[0][4:] == ("0.9", 0.9)
    assert (
        one(parameter="z", tenant="t1", parts="all", where={"pattern": "zipf"}, key="k", values=[1], name="z")
        == []
    )
    assert (
        one(parameter="s", tenant="t1", parts="all", key="start_s", need=True, values=[1.0], name="s") == []
    )


def test_keys_sizes_also_and_pin() -> None:
    got = one(
        parameter="b", tenant="t1", parts="all", having=["on_s", "off_s"], keys=["on_s", "off_s"],
        values=[[10.0, 90.0]], name="b {first:g}/{total:g}", value="{first:g} of {total:g}",
        base="{first:g} of {total:g}",
    )  # fmt: skip
    assert got == [
        (
            "b 10/100",
            {"tenants.t1.synthetic.1.on_s": 10.0, "tenants.t1.synthetic.1.off_s": 90.0},
            "10 of 100",
            10.0,
        )
        + ("5 of 50", 5.0)
    ]
    sizes = one(
        parameter="sz", tenant="t1", parts="all", key="sizes", form="sizes", values=[16384], name="{kib:g}"
    )
    one_size = [{"bytes": 16384, "weight": 1.0}]
    assert sizes == [
        ("16", {f"tenants.t1.synthetic.{i}.sizes": one_size for i in range(3)}, "16 KiB", 16.0, "8 KiB", 8.0)
    ]
    mix = one(
        parameter="sz", tenant="t1", parts="writers", key="sizes", form="sizes", values=[4096], name="x"
    )
    assert mix[0][4:] == ("mix", None)  # the base of the writers' first part: two sizes
    fixed = one(
        parameter="arr", tenant="*", parts="all", where={"arrival": "poisson"}, key="arrival",
        values=["fixed"], also={"interval_us": "1e6 / rate_iops"}, name="arrival={value}",
    )  # fmt: skip
    assert fixed == [
        (
            "arrival=fixed",
            {
                "tenants.t1.synthetic.0.arrival": "fixed",
                "tenants.t1.synthetic.0.interval_us": 10000.0,
                "tenants.t1.synthetic.2.arrival": "fixed",
                "tenants.t1.synthetic.2.interval_us": 50000.0,
            },
            "fixed",
            None,
            "poisson",
            None,
        )
    ]
    pinned = one(
        parameter="ns", tenant="t1", key="namespace_fraction", values=[0.25], name="ns",
        pin=["scheme.a.shares", "scheme.c.shares", "scheme.a.epoch_s"],
    )  # fmt: skip
    # c does not run and a's epoch_s is no list: only a's shares are pinned, after the knob's key.
    assert pinned[0][1] == {"tenants.t1.namespace_fraction": 0.25, "scheme.a.shares": [2, 6]}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"parameter": "p", "name": "n", "values": [1], "key": "k"},
            "exactly one of `at`, `tenant`, `schemes`",
        ),
        (
            {"parameter": "p", "name": "n", "values": [1], "at": "x", "tenant": "t", "key": "k"},
            "exactly one of",
        ),
        ({"parameter": "p", "name": "n", "values": [1], "at": "x"}, "exactly one of `key`, `keys`"),
        (
            {"parameter": "p", "name": "n", "values": [], "at": "x", "key": "k"},
            "`values` must be a non-empty",
        ),
        (
            {"parameter": "p", "name": "n", "values": ["a"], "at": "x", "key": "k", "form": "factors"},
            "numbers",
        ),
        (
            {"parameter": "p", "name": "n", "values": [1], "at": "x", "key": "k", "form": "double"},
            "form 'double'",
        ),
        (
            {"parameter": "p", "name": "n", "values": [[1]], "at": "x", "keys": ["a", "b"]},
            "a list of 2 numbers",
        ),
        (
            {"parameter": "p", "name": "n", "values": [1], "at": "x", "key": "k", "parts": "all"},
            "with `tenant`",
        ),
        (
            {"parameter": "p", "name": "n", "values": [1], "tenant": "t", "key": "k", "parts": "odd"},
            "`parts`",
        ),
        (
            {"parameter": "p", "name": "n", "values": [1], "at": "x", "key": "k", "also": {"a": "b"}},
            "NUMBER / KEY",
        ),
        ({"parameter": "p", "name": "n{nope}", "values": [1], "at": "x", "key": "k"}, "unknown field"),
        (
            {"parameter": "p", "name": "n", "values": [1], "at": "x", "key": "k", "colour": 1},
            "unknown keys colour",
        ),
    ],
)
def test_a_bad_knob_is_refused_by_name(raw: Mapping[str, object], message: str) -> None:
    with pytest.raises(InputError, match=rf"test.toml: reproduce.knobs\[0\] .*{message}"):
        cases.load_knobs("test.toml", [raw])


_PLAN = (
    '[paper]\ncitation = "x"\n[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\n'
    'what = "w"\n[[reproduce.runs]]\nlabel = "r"\nscenario = "a"\ndir = "run"\n'
    '[[reproduce.knobs]]\nparameter = "p"\nname = "n{value}"\nvalues = [1]\nat = "x"\nkey = "k"\n'
)


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (
            _PLAN.replace('key = "k"', 'key = "k"\nform = "double"'),
            r"reproduce.knobs\[0\] \(n\{value\}\): form",
        ),
        (
            _PLAN + '[[reproduce.runs]]\nlabel = "s"\nscenario = "a"\ndir = "s"\n',
            r"\[\[reproduce.knobs\]\] needs exactly one \[\[reproduce.runs\]\]",
        ),
    ],
)
def test_the_plan_refuses_a_bad_knob_or_knobs_over_several_runs(
    plan: str, message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "p.toml").write_text(plan, encoding="utf-8")
    monkeypatch.setattr(claimfile, "path_of", lambda name: tmp_path / f"{name}.toml")
    with pytest.raises(InputError, match=message):
        driver.load_plan("p")


def test_a_plan_reads_its_knobs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(_PLAN, encoding="utf-8")
    monkeypatch.setattr(claimfile, "path_of", lambda name: tmp_path / f"{name}.toml")
    (decl,) = driver.load_plan("p").knobs
    assert (decl.parameter, decl.name, decl.values, decl.at, decl.key) == ("p", "n{value}", (1,), "x", "k")


def test_a_plan_with_knobs_is_studied_by_the_knob_sweep_of_its_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """UPI's `--sensitivity` goes to `driver.knob_study` with its one run's scenario and
    resolved text (not the `run_cases` loop)."""
    from ftlab.reproduce import upi

    seen: list[tuple[object, ...]] = []

    def study(*args: object, **kwargs: object) -> list[object]:
        seen.append(args)
        return []

    def no_loop(*args: object) -> None:
        raise AssertionError("run_cases ran")

    monkeypatch.setattr(driver, "knob_study", study)
    monkeypatch.setattr(driver, "run_cases", no_loop)
    plan = driver.load_plan("upi")
    report = cast(Report, SimpleNamespace(resolved_toml="resolved"))
    runs = driver.Runs(plan, True, 0, tmp_path, {"upi": tmp_path / "s.toml"}, {"upi": report})
    upi.PAPER.code.run_sensitivity(driver.Study(runs, cast(upi.Seen, None), [], None, None))
    assert seen == [(upi.PAPER.code, tmp_path / "s.toml", "resolved", tmp_path, True, None)]


# --------------------------------------------------------------------------------------
# A declared case's `split` (`cases.SplitDecl`, `cases.split_at`)

_PAIRS = {
    "t": [
        {"p": [{"r": 1024.0, "s": [{"b": 4096}]}, {"r": 16.0, "s": [{"b": 262144}]}]},
        {"p": [{"r": 10, "s": [{"b": 2}]}, {"r": 10, "s": [{"b": 8}]}]},
    ]
}


@pytest.mark.parametrize(
    ("share", "want"),
    [
        # 8 MiB: a quarter is 512 x 4 KiB, the rest 24 x 256 KiB; 100 bytes: 25 at 2, 75 at 8
        (0.25, [512.0, 24.0, 12.5, 9.375]),
        # 10 x 2 + 10 x 8 = 100 bytes: all of it at 2 bytes is 50, none at 8 is 0
        (1.0, [2048.0, 0.0, 50.0, 0.0]),
    ],
)
def test_a_split_keeps_each_pairs_total(share: float, want: list[float]) -> None:
    split = cases.SplitDecl("t.p", "r", "s.b")
    found = cases.split_at(_PAIRS, split, share, "here")
    assert [k for k, _ in found] == ["t.0.p.0.r", "t.0.p.1.r", "t.1.p.0.r", "t.1.p.1.r"]
    assert [v for _, v in found] == want


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        ({"t": [{"p": [{"r": 1, "s": [{"b": 2}]}]}]}, "t.0.p is not two tables"),
        ({"t": [{"p": [{"r": 1, "s": [{"b": 2}]}, {"r": "x", "s": [{"b": 2}]}]}]}, "t.0.p is not two tables"),
        (
            {"t": [{"p": [{"r": 1, "s": [{"b": 2}, {"b": 4}]}, {"r": 1, "s": [{"b": 2}]}]}]},
            "is not two tables",
        ),
        ({"t": [{"q": 1}]}, "no pair of parts at t.p"),
    ],
)
def test_a_split_needs_pairs_of_numbers(doc: Mapping[str, object], error: str) -> None:
    with pytest.raises(InputError, match=error):
        cases.split_at(doc, cases.SplitDecl("t.p", "r", "s.b"), 0.5, "here")


# --------------------------------------------------------------------------------------
# A declared case's `each` (`cases.EachDecl`, `cases.each_entries`, `driver.declared_cases`)

_EACH = cases.EachDecl("t", "s", "r", '{{kind = "k", x = {scaled:.1f}}}', 1000.0)


@pytest.mark.parametrize(
    ("doc", "factor", "want"),
    [
        # one part 100; two parts 1 + 2.5; a part without `r` takes the default 1000
        ({"t": [{"s": {"r": 100.0}}, {"s": [{"r": 1}, {"r": 2.5}]}]}, 1.2, ["120.0", "4.2"]),
        ({"t": [{"s": [{"r": 5.0}, {}]}]}, 0.5, ["502.5"]),
        ({"t": [{"s": {"r": 0.04}}]}, 1.0, ["0.0"]),  # `.1f` of 0.04
    ],
)
def test_each_sizes_one_entry_per_table_by_its_summed_number(
    doc: Mapping[str, object], factor: float, want: list[str]
) -> None:
    entries = cases.each_entries(doc, _EACH, factor)
    assert entries == ", ".join(f'{{kind = "k", x = {w}}}' for w in want)


@pytest.mark.parametrize(
    ("doc", "at"),
    [
        ({"t": [{"s": {"r": 1.0}}, {"name": "b"}]}, "t.1"),  # no part
        ({"t": [{"s": []}]}, "t.0"),  # an empty list of parts
        ({"t": [{"s": {"r": 1.0}}, {"s": [{"r": "x"}]}]}, "t.1"),  # not a number
    ],
)
def test_each_refuses_a_table_it_cannot_size_by_its_index(doc: Mapping[str, object], at: str) -> None:
    with pytest.raises(UsageError, match=re.escape(f"{at}: no s with a number at r in each part")):
        cases.each_entries(doc, _EACH, 2.0)


def test_each_without_a_default_needs_the_key_in_every_part() -> None:
    with pytest.raises(UsageError, match="t.0: no s"):
        cases.each_entries({"t": [{"s": [{"r": 1.0}, {}]}]}, dataclasses.replace(_EACH, default=None), 1.0)


_CASES = _PLAN.split("[[reproduce.knobs]]")[0] + (
    '[[reproduce.runs]]\nlabel = "s"\nscenario = "a"\ndir = "s"\n'
    '[[reproduce.cases]]\nname = "c{value:g}"\nvalues = [2.0, 0.5]\nruns = ["s"]\nreplace = true\n'
    'set = ["k=[{entries}]"]\n'
    'each = { at = "t", parts = "s", key = "r", entry = \'{{x = {scaled:g}}}\' }\n'
)


def test_a_declared_each_case_reruns_its_runs_with_its_list_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The case's list from the resolved scenario of the run it reruns (`s`), `replace` kept."""
    (tmp_path / "p.toml").write_text(_CASES, encoding="utf-8")
    monkeypatch.setattr(claimfile, "path_of", lambda name: tmp_path / f"{name}.toml")
    plan = driver.load_plan("p")
    resolved = "[[t]]\n[t.s]\nr = 3.0\n[[t]]\n[[t.s]]\nr = 1.0\n[[t.s]]\nr = 4.0\n"
    report = cast(Report, SimpleNamespace(resolved_toml=resolved))
    runs = driver.Runs(plan, True, 0, tmp_path, {"a": tmp_path / "a.toml"}, {"s": report})
    found = [(c.name, c.runs, c.replace, c.set) for c in driver.declared_cases(runs)]
    assert found == [
        ("c2", ("s",), True, {"a": ["k=[{x = 6}, {x = 10}]"]}),
        ("c0.5", ("s",), True, {"a": ["k=[{x = 1.5}, {x = 2.5}]"]}),
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("values = [2.0, 0.5]", 'values = ["a"]'), "with `each`, `values` must be numbers"),
        (("replace = true", 'replace = "yes"'), "`replace` must be true or false"),
        (('set = ["k=[{entries}]"]', 'scale = "t"\nset = ["k=[{entries}]"]'), "at most one of"),
        (("{scaled:g}", "{rate:g}"), "each: `entry` names an unknown placeholder"),
        (('key = "r", ', ""), r"each: `key` must be a non-empty string"),
        (('set = ["k=[{entries}]"]', 'set = ["k=[{entry}]"]'), "a template names an unknown placeholder"),
        (('set = ["k=[{entries}]"]', 'set = ["k=1"]'), "with `each`, a `set` template must name"),
    ],
)
def test_the_plan_refuses_a_bad_each_case(
    change: tuple[str, str], message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert change[0] in _CASES
    (tmp_path / "p.toml").write_text(_CASES.replace(*change), encoding="utf-8")
    monkeypatch.setattr(claimfile, "path_of", lambda name: tmp_path / f"{name}.toml")
    with pytest.raises(InputError, match=r"reproduce.cases\[0\] \(c\{value:g\}\).*" + message):
        driver.load_plan("p")
