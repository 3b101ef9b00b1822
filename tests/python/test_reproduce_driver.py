"""Tests of the reproductions' driver (python/ftlab/reproduce/driver.py) and registry
(`ftlab.reproduce.find`): every paper's `[reproduce]` table loads and names bundled scenarios,
every registered module's `PAPER` is a driven `Reproduction`, a bad table is a precise error
naming the file and the key, and the driver's run executor gives each run the overrides, the
directory and the cores its declaration says (checked with a recording stand-in for
`ftlab.run`, no simulation). The reproductions' own runs are tested in their test files.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import ftlab
import ftlab.api
from ftlab.reproduce import REPRODUCTIONS, Reproduction, claimfile, driver, find, measures
from ftlab.reproduce import claims as C
from ftlab.reproduce.measures import PairDecl


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_every_paper_is_run_by_the_driver_from_its_data(name: str) -> None:
    paper = find(name)
    assert isinstance(paper, Reproduction) and isinstance(paper, driver.Driven), name
    assert paper.code.name == name
    plan = driver.load_plan(name)
    for quick in (False, True):
        found = driver.scenarios(plan, quick)
        assert list(found) == [s.key for s in plan.scenarios]
        assert all(p.is_file() for p in found.values()), found
    assert [r.label for r in plan.runs] == list(dict.fromkeys(r.label for r in plan.runs))


def test_an_unknown_reproduction_is_a_usage_error() -> None:
    with pytest.raises(ftlab.UsageError, match="unknown reproduction 'nope'; known reproductions: "):
        find("nope")


#: A valid plan, to which a bad declaration is added.
_PLAN = (
    '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\nwhat = "w"\n'
    '[[reproduce.runs]]\nlabel = "r"\nscenario = "a"\ndir = "run"\n'
)
#: A case's `split` table (`cases.SplitDecl`).
_SPLIT = 'split = { parts = "t.p", key = "r", weight = "b" }\n'
#: (the [reproduce] table, what the error says)
BAD_PLANS = [
    ("", "no \\[reproduce\\] table"),
    ('[reproduce]\nschedule = "eager"\n', "reproduce.schedule 'eager' is not one of serial, pool"),
    ("[reproduce]\nspeed = 1\n", "reproduce: unknown keys speed"),
    ('[reproduce]\nschedule = "pool"\n', "needs at least one scenario and one run"),
    (
        '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\n',
        "reproduce.scenarios\\[0\\]: `what` must be a non-empty string",
    ),
    (
        '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\nwhat = "w"\n'
        'named = "yes"\n',
        "`named` must be true or false",
    ),
    (
        '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\nwhat = "w"\n'
        '[[reproduce.runs]]\nlabel = "r"\nscenario = "b"\ndir = "run"\n',
        "reproduce.runs\\[0\\] \\(r\\): scenario 'b' is not one of a",
    ),
    (
        '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\nwhat = "w"\n'
        '[[reproduce.runs]]\nlabel = "r"\nscenario = "a"\ndir = "run"\njobs = "two"\n',
        "jobs 'two' is not one of all, one",
    ),
    (
        '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\nwhat = "w"\n'
        '[[reproduce.runs]]\nlabel = "r"\nscenario = "a"\ndir = "run"\nset = "x=1"\n',
        "`set` must be a list of KEY=VALUE strings",
    ),
    (
        '[reproduce]\n[[reproduce.scenarios]]\nkey = "a"\nfull = "f"\nquick = "q"\nwhat = "w"\n'
        '[[reproduce.runs]]\nlabel = "r"\nscenario = "a"\ndir = "run"\n'
        '[[reproduce.runs]]\nlabel = "r"\nscenario = "a"\ndir = "run2"\n',
        "duplicate run labels: r",
    ),
    (
        _PLAN + '[[reproduce.pairs]]\nkey = "waf"\n',
        "reproduce.pairs\\[0\\]: `why` must be a non-empty string",
    ),
    (_PLAN + '[[reproduce.pairs]]\nkey = "waf"\nwhy = "{c}"\n', "reproduce.pairs\\[0\\]: a template names"),
    (
        _PLAN + '[[reproduce.pairs]]\nkey = "waf"\nwhy = "w"\n[[reproduce.pairs]]\nkey = "waf"\nwhy = "v"\n',
        "reproduce.pairs: duplicate keys waf",
    ),
    (
        _PLAN + '[[reproduce.pairs]]\nkey = "waf"\nwhy = "w"\ndigits = 9\n',
        "`digits` must be an integer in 0..=6",
    ),
    (
        _PLAN + '[[reproduce.cases]]\nname = "n"\nvalues = []\nset = ["x={value}"]\n',
        "`values` must be a non-empty",
    ),
    (
        _PLAN + '[[reproduce.cases]]\nname = "n"\nvalues = [1]\nset = ["x={scaled}"]\n',
        "reproduce.cases\\[0\\] \\(n\\): a `set` template names \\{scaled\\} without `scale`",
    ),
    (
        _PLAN + '[[reproduce.cases]]\nname = "n"\nvalues = ["a"]\nset = ["x={scaled}"]\nscale = "k"\n',
        "with `scale`, `values` must be numbers",
    ),
    (
        _PLAN + '[[reproduce.cases]]\nname = "n"\nvalues = [1.5]\nset = ["x={scaled}"]\n' + _SPLIT,
        "with `split`, `values` must be shares in \\[0, 1\\]",
    ),
    (
        _PLAN + '[[reproduce.cases]]\nname = "n"\nvalues = [0.5]\nset = ["x"]\nscale = "k"\n' + _SPLIT,
        "give at most one of `scale`, `split`",
    ),
    (
        _PLAN + '[[reproduce.cases]]\nname = "n"\nvalues = [0.5]\nset = ["x"]\nsplit = { parts = "t.p" }\n',
        "reproduce.cases\\[0\\] \\(n\\): split: ",
    ),
    (_PLAN + '[[reproduce.figures]]\nstem = "s"\ntitle = "t"\nx = "x"\n', "`y` must name columns"),
    (
        _PLAN + '[[reproduce.figures]]\nstem = "s"\ntitle = "t"\nx = "x"\ny = ["a"]\nsize = [0, 1]\n',
        "`size` must be \\[width, height\\]",
    ),
    (
        _PLAN + '[[reproduce.figures]]\nstem = "s"\ncolour = "red"\n',
        "reproduce.figures\\[0\\]: unknown keys colour",
    ),
    (
        _PLAN + '[[reproduce.figures]]\nstem = "s"\ntitle = "t"\nx = "x"\ny = ["a"]\nlog = 1\n',
        "reproduce.figures\\[0\\]: `log` must be true or false",
    ),
    (
        _PLAN + '[[reproduce.figures]]\nstem = "s"\ntitle = "t"\nx = "x"\ny = ["a"]\nreference = "1"\n',
        "reproduce.figures\\[0\\]: `reference` must be a number",
    ),
    (
        _PLAN + '[[reproduce.figures]]\nstem = "s"\ntitle = "t"\nx = "x"\ny = ["a"]\nshades = {a = 1}\n',
        "reproduce.figures\\[0\\]: `shades` must be a table of strings",
    ),
    (_PLAN + '[reproduce.figures]\nstem = "s"\n', "reproduce.figures must be an array of tables"),
    (
        _PLAN + '[[reproduce.figures]]\nstem = "s"\ntitle = "t"\nx = "x"\ny = ["a"]\nseries = "m"\n'
        'series_columns = ["hw"]\n',
        "reproduce.figures\\[0\\]: `series_columns` is for a bar figure without `series`",
    ),
    (
        _PLAN + '[[reproduce.figures]]\nkind = "pie"\nstem = "s"\ntitle = "t"\nx = "x"\ny = ["a"]\n',
        "reproduce.figures\\[0\\]: kind 'pie' is not one of bar, line",
    ),
    (
        _PLAN + '[[reproduce.pairs]]\nkey = "waf"\nwhy = "w"\nmargin_tail = ""\n',
        "reproduce.pairs\\[0\\]: `margin_tail` must be a non-empty string",
    ),
    (
        _PLAN.replace("[reproduce]\n", '[reproduce]\nsensitivity_keys = ["quick", "seed"]\n'),
        "reproduce.sensitivity_keys must list distinct keys of reproduction, scenario, quick, wall_s",
    ),
    (
        _PLAN.replace("[reproduce]\n", '[reproduce]\nsensitivity_keys = ["quick", "quick"]\n'),
        "reproduce.sensitivity_keys must list distinct keys",
    ),
    (
        _PLAN.replace("[reproduce]\n", '[reproduce]\nsensitivity_base = "yes"\n'),
        "reproduce.sensitivity_base must be true or false",
    ),
]


@pytest.mark.parametrize(("table", "message"), BAD_PLANS)
def test_a_bad_reproduce_table_is_a_precise_error(
    table: str, message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "upi.toml").write_text('[paper]\ncitation = "x"\n' + table, encoding="utf-8")
    monkeypatch.setattr(claimfile, "path_of", lambda name: tmp_path / f"{name}.toml")
    with pytest.raises(ftlab.InputError, match=message) as e:
        driver.load_plan("upi")
    assert "papers/upi.toml" in str(e.value)


class _Recorded:
    """What the stand-in for `ftlab.run` was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, list[str], int | None]] = []


@pytest.mark.parametrize("schedule", ["serial", "pool"])
def test_the_executor_runs_each_declaration(
    schedule: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each run gets its own overrides, then the seed's, then the case's, in its directory
    (under a case without its first part), with the reproduction's cores or one."""
    scenario = tmp_path / "s.toml"
    scenario.write_text("seed = 7\n", encoding="utf-8")
    plan = driver.Plan(
        "x",
        "serial" if schedule == "serial" else "pool",
        (driver.ScenarioDecl("s", "s.toml", "s.toml", "a scenario"),),
        (
            driver.RunDecl("a", "s", "run/a", ("k=1",)),
            driver.RunDecl("b", "s", "run/b", (), "one"),
        ),
    )
    recorded = _Recorded()

    def fake_run(source: object, *, out: Path, set: list[str], jobs: int | None, progress: object) -> str:
        recorded.calls.append((str(source), str(out), list(set), jobs))
        return f"report {out.name}"

    monkeypatch.setattr(ftlab.api, "run", fake_run)
    monkeypatch.setattr(driver, "seed_overrides", lambda path, seed: [f"seed={7 + seed}"] if seed else [])

    class Code(driver.PaperCode[None]):
        def read(self, runs: driver.Runs, base: None) -> None:
            return None

        def measurements(self, seen: None) -> dict[str, claimfile.Measured]:
            return {}

        def health(self, seen: None) -> C.Health:
            return {"ok": True, "schemes": {}}

    runs = driver.Runs(plan, True, 2, tmp_path / "out", {"s": scenario})
    driver.execute(Code(), runs, plan.runs, 4, None, 0, "simulating", runs.out)
    case = driver.Case("c d", set={"s": ["q=2"]})
    driver.execute(Code(), runs, plan.runs[1:], 4, None, 0, "x", tmp_path / "sens", case)
    assert sorted(recorded.calls) == [
        (str(scenario), str(tmp_path / "out" / "run" / "a"), ["k=1", "seed=9"], 4),
        (str(scenario), str(tmp_path / "out" / "run" / "b"), ["seed=9"], 1),
        (str(scenario), str(tmp_path / "sens" / "b"), ["seed=9", "q=2"], 1),
    ]
    assert list(runs.reports) == ["a", "b"]
    assert driver.slug("c d") == "c_d"
    # A case that replaces the run's overrides: neither the run's own nor the seed's.
    recorded.calls.clear()
    alone = driver.Case("e", runs=("a",), set={"s": ["r=3"]}, replace=True)
    driver.execute(Code(), runs, plan.runs[:1], 4, None, 0, "x", tmp_path / "sens", alone)
    assert recorded.calls == [(str(scenario), str(tmp_path / "sens" / "a"), ["r=3"], 4)]


def test_the_sensitivity_head_is_the_declared_keys_in_order(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`[reproduce] sensitivity_keys` chooses sensitivity.json's head and its order; the
    default is the reproduction and quick."""
    path = tmp_path / "upi.toml"
    monkeypatch.setattr(claimfile, "path_of", lambda name: tmp_path / f"{name}.toml")
    scenario = tmp_path / "s.toml"
    for keys, expected in (
        ("", {"reproduction": "upi", "quick": True}),
        (
            'sensitivity_keys = ["sweep_dir", "wall_s", "scenario"]\n',
            {"sweep_dir": str(tmp_path / "o" / "sensitivity"), "wall_s": 2.5, "scenario": str(scenario)},
        ),
    ):
        path.write_text('[paper]\ncitation = "x"\n' + _PLAN.replace("[reproduce]\n", "[reproduce]\n" + keys))
        plan = driver.load_plan("upi")
        runs = driver.Runs(plan, True, 0, tmp_path / "o", {"a": scenario})

        class Code(driver.PaperCode[None]):
            name = "upi"

            def read(self, runs: driver.Runs, base: None) -> None:
                return None

            def health(self, seen: None) -> C.Health:
                return {"ok": True, "schemes": {}}

        head = Code().sensitivity_head(runs, 2.5)
        assert head == expected and list(head) == list(expected)


def test_a_declared_pair_says_its_numbers() -> None:
    """A pair's value is a/b (a margin: a/b − 1); its sentence is the declared head with both
    values, then the tail; a missing value is NaN and the sentence says so."""
    pair = PairDecl("dlwa", "DLWA {subject}/{a} {va} vs {b} {vb}: ", digits=2)
    values = {"x": 3.0, "y": 1.5}

    def lookup(subject: str, system: str, key: str) -> float | None:
        return values.get(system) if (subject, key) == ("u", "dlwa") else None

    ratio = pair.measure("u", "x", "y", False, lookup)
    assert (ratio.value, ratio.why) == (2.0, "DLWA u/x 3.00 vs y 1.50: 2.000x.")
    margin = pair.measure("u", "x", "y", True, lookup)
    assert (margin.value, margin.why) == (1.0, "DLWA u/x 3.00 vs y 1.50: margin +1.000 (x over y − 1).")
    missing = pair.measure("u", "x", "z", False, lookup)
    assert isinstance(missing.value, float) and math.isnan(missing.value)
    assert missing.why == "DLWA u/x 3.00 vs z n/a: nanx." + measures.MISSING
    assert measures.parse("margin:dlwa:u:x/y", [pair]) == measures.PairName(pair, "u", "x", "y", True)
    assert measures.parse("p99:u:x/y", [pair]) is None and measures.parse("dlwa:u/x", [pair]) is None


_ROWS = [{"t": 0.0, "gc": 0, "er": 0}, {"t": 1.0, "gc": 0, "er": 2}, {"t": 2.0, "gc": 5, "er": 0}]
#: (rows of a line figure, its `mark_first`, the x its mark stands at, or None for no mark)
LINE_MARKS = [(_ROWS, ("gc", "er"), 1.0), (_ROWS, ("gc",), 2.0), (_ROWS[:1], ("gc", "er"), None)]


@pytest.mark.parametrize(("rows", "columns", "at"), LINE_MARKS)
def test_a_line_figure_marks_the_first_row_with_a_positive_column(
    rows: list[dict[str, float]], columns: tuple[str, ...], at: float | None, tmp_path: Path
) -> None:
    from ftlab.reproduce.figures import FigureDecl, draw_all, mark_x

    decl = FigureDecl("f", "t", "t", ("gc",), kind="line", mark_first=columns, mark_label="mark")
    assert mark_x(decl, rows) == at
    png, csv = draw_all([decl], rows, tmp_path)
    assert png.stat().st_size > 0
    assert csv.read_text(encoding="utf-8").splitlines()[0] == "t,gc,er"


#: (a bar figure's series_columns, the series, the y column, the column its value is read from)
WIDE = [((), "", "p99_us", "p99_us"), (("hardware", "software"), "software", "p99_us", "software_p99_us")]


@pytest.mark.parametrize(("wide", "series", "y", "column"), WIDE)
def test_a_wide_bar_figure_reads_a_series_value_from_its_prefixed_column(
    wide: tuple[str, ...], series: str, y: str, column: str, tmp_path: Path
) -> None:
    from ftlab.reproduce.figures import FigureDecl, draw_all

    decl = FigureDecl("f", "t", "x", (y,), series_columns=wide, csv="data", log=True)
    assert decl.column(series, y) == column
    assert decl.split == bool(wide)
    rows = [{"x": "a", "p99_us": 1.0, "hardware_p99_us": 2.0, "software_p99_us": 3.0}]
    png, csv = draw_all([decl], rows, tmp_path)
    assert (png.name, csv.name) == ("f.png", "data.csv")
