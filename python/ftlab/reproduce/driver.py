"""ftlab.reproduce.driver: the one driver that runs a paper's reproduction from its data.

A paper's claim file (papers/NAME.toml) declares, beside its claims, a `[reproduce]` table:
its description and expected wall time (for the registry, `ftlab.reproduce`), its scenarios
(`[[reproduce.scenarios]]`: a key, the full and the quick file under scenarios/, what it is,
and whether claims.json names it) and its runs (`[[reproduce.runs]]`: a label, the scenario
key, the directory under the output, its `--set` overrides and whether it takes the run's
`jobs` or one core), run one after another (`schedule = "serial"`) or all at once
(`"pool"`), its generic measures (`ftlab.reproduce.measures`: `[[reproduce.pairs]]`, a
metric's ratio or margin between two systems with its sentence; `[[reproduce.values]]`, one
run's metric; `[[reproduce.bests]]`, a system's margin over the best other one) and its
sensitivity cases
(`[[reproduce.cases]]`: a knob's values as `--set` templates, optionally scaling the resolved
scenario's value, splitting pairs of its parts' totals by a share or sizing a list's entry
per table (`cases.scaled_at`, `cases.split_at`, `cases.each_entries`), and the runs each
reruns: `CaseDecl`), sensitivity.json's head
(`sensitivity_keys`, of SENSITIVITY_KEYS) and whether its cases start with the base runs'
record (`sensitivity_base`), and its bar and line figures (`[[reproduce.figures]]`,
`ftlab.reproduce.figures`) and, for a paper read run by run, each run's row of metrics
(`[reproduce.row]`, `[[reproduce.metrics]]`, `[[reproduce.columns]]`: `ftlab.reproduce.rows`),
tables of a row per tenant and geometric means over them (`[[reproduce.tables]]`,
`[[reproduce.geomeans]]`, also `ftlab.reproduce.rows`, measured by `PaperCode.measure_declared`),
health (`[reproduce] health`, `[[reproduce.checks]]`: `ftlab.reproduce.run_checks`), named
numbers read from its runs' documents (`[[reproduce.reads]]`: `ftlab.reproduce.reads`) and
claims.json's sections (`[[reproduce.sections]]`: `ftlab.reproduce.sections`, filled from
`PaperCode.supplied`).
The claims name their measures and the runs and health they rest on (DESIGN §12,
`ftlab.reproduce.claimfile`). The driver
does, for every paper, what the five modules used to repeat: resolve the scenarios, run the
runs with the seed's overrides, hand them to the paper's code (`PaperCode`), judge the claims
(`claimfile.evaluate`), write claims.json, the figures and, with `sensitivity`, rerun the
paper's sensitivity cases and write sensitivity.json and .csv.

A paper's own code is a `PaperCode` subclass: `read` turns the runs into what the paper
measures (a value of its own type), then `value` (the numbers the declared pairs read) and
`measure` (its own measures; `measurements` joins both), `health`, `figures`, `supplied`
(the values its declared sections name), `sections` (claims.json sections of its own
composing, undeclared), `extra`, `notes` and the sensitivity cases. `Driven(code)` is what the
registry (`ftlab.reproduce.REPRODUCTIONS`) finds as the module's `PAPER`: an
`ftlab.reproduce.Reproduction`.

This module runs simulations only through `ftlab.run`, holds no paper's measure and prints
nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

from ftlab import _core, _toml, api
from ftlab._errors import input_error, usage_error
from ftlab.reproduce import Progress, claimfile, scenario_file, seed_overrides
from ftlab.reproduce.cases import (
    EachDecl,
    KnobDecl,
    SplitDecl,
    each_entries,
    load_each,
    load_knobs,
    load_split,
    scaled_at,
    split_at,
    study_cases,
)
from ftlab.reproduce.claimfile import Measured, SeedResult, evaluate
from ftlab.reproduce.claims import (
    CLAIMS_FILE,
    Claim,
    Health,
    PhaseRow,
    ReproductionResult,
    SensitivityRow,
    sensitivity_files,
    sensitivity_summary,
    write_claims_json,
    write_sensitivity,
)
from ftlab.reproduce.decl import Fields, keys_of, table
from ftlab.reproduce.figures import FigureDecl, draw_all, load_figures
from ftlab.reproduce.measures import (
    BestDecl,
    Declared,
    PairDecl,
    TableValueDecl,
    ValueDecl,
    load_declared,
    measure_all,
)
from ftlab.reproduce.reads import ReadDecl, ReadTableDecl, load_read_tables, load_reads
from ftlab.reproduce.rows import GeomeanDecl, RowsDecl, TableDecl, load_geomeans, load_rows, load_tables
from ftlab.reproduce.run_checks import HealthDecl, load_health
from ftlab.reproduce.sections import SectionDecl, load_sections
from ftlab.reproduce.sections import write as write_sections
from ftlab.reproduce.seeds import preimport
from ftlab.reproduce.series_measures import WindowDecl, load_windows
from ftlab.reproduce.sweep_study import finished_cases, run_study

if TYPE_CHECKING:
    from ftlab.report import Report

#: A claims.json or sensitivity.json section: JSON values.
Sections = dict[str, object]


# --------------------------------------------------------------------------------------
# The paper's data: [reproduce] of its claim file


@dataclass(frozen=True)
class ScenarioDecl:
    """One scenario: `key`, the bundled `full` and `quick` files, `what` it is (for a missing
    file's error) and `named`: claims.json names it `<key>_scenario` (the first is `scenario`)."""

    key: str
    full: str
    quick: str
    what: str
    named: bool = False

    def relative(self, quick: bool) -> str:
        return self.quick if quick else self.full


@dataclass(frozen=True)
class RunDecl:
    """One run: `label`, its `scenario` key, its directory `dir` under the output, its `set`
    overrides (before the seed's), `jobs`: "all" (the reproduction's jobs) or "one", and
    `title`, how the progress names it (default: the label)."""

    label: str
    scenario: str
    dir: str
    set: tuple[str, ...] = ()
    jobs: Literal["all", "one"] = "all"
    title: str = ""


@dataclass(frozen=True)
class CaseDecl:
    """One `[[reproduce.cases]]` table: a knob varied over `values`, one sensitivity case each.
    `name` is a `str.format` template of `{value}`; each of `set`, of `{value}` and, with
    `scale` (a dotted scenario key), `{scaled}`: `value` times that key's value in the resolved scenario
    of the base run the case reruns (a `*` in `scale` matches several keys: each template is then
    repeated per match, `{at}` its key, `cases.scaled_at`). Instead of `scale`, `split`
    (`cases.SplitDecl`): each template repeated per number of a pair of parts whose weighted
    total the value, a share, divides (`{at}` its key, `{scaled}` the number). Or `each`
    (`cases.EachDecl`): `{entries}`, a list's entries, one per table of an array, each sized by
    the value times that table's summed number. `runs`: the run labels it reruns (`fnmatch`
    patterns; every run if empty); the overrides go to the scenarios of those runs, after the
    run's and the seed's or, with `replace`, instead of them (`Case.replace`)."""

    name: str
    values: tuple[float | int | str, ...]
    set: tuple[str, ...]
    scale: str = ""
    runs: tuple[str, ...] = ()
    split: SplitDecl | None = None
    each: EachDecl | None = None
    replace: bool = False

    def expand(self, value: float | int | str, scaled: float | None = None) -> tuple[str, list[str]]:
        """The case of one value: its name and its `--set` (`scaled`: see the class; None
        is only for a declaration without `scale`)."""
        return self.name.format(value=value), [t.format(value=value, scaled=scaled) for t in self.set]


@dataclass(frozen=True)
class Plan:
    """A paper's `[reproduce]` table: its scenarios and runs, how the runs are scheduled, its
    declared a/b measures (`measures.PairDecl`) and its declared sensitivity cases."""

    name: str
    schedule: Literal["serial", "pool"]
    scenarios: tuple[ScenarioDecl, ...]
    runs: tuple[RunDecl, ...]
    pairs: tuple[PairDecl, ...] = ()
    cases: tuple[CaseDecl, ...] = ()
    figures: tuple[FigureDecl, ...] = ()
    #: sensitivity.json's keys before `claims` and `cases`, in order (`SENSITIVITY_KEYS`).
    sensitivity_keys: tuple[str, ...] = ("reproduction", "quick")
    #: Whether sensitivity.json's `cases` starts with the base runs' record.
    sensitivity_base: bool = False
    #: A run's declared row of metrics and the metrics CSV's columns (`rows.RowsDecl`).
    rows: RowsDecl = RowsDecl()
    #: A run's declared health: its base record and run checks (`run_checks.HealthDecl`).
    health: HealthDecl = HealthDecl()
    #: Its single-run values and best-other margins (`measures.ValueDecl`, `BestDecl`).
    values: tuple[ValueDecl, ...] = ()
    bests: tuple[BestDecl, ...] = ()
    #: Its time-series window measures (`series_measures.WindowDecl`), which the paper's code
    #: computes with its table and named times (`series_measures.measure_window`).
    windows: tuple[WindowDecl, ...] = ()
    #: Its values read from a table its code supplies (`measures.TableValueDecl`).
    table_values: tuple[TableValueDecl, ...] = ()
    #: Where a declared pair's number sits in a summary.json (`rows.value_at`), if declared.
    value_path: str = ""
    #: Its sensitivity study's knobs (`cases.KnobDecl`), run as one sweep of its one run.
    knobs: tuple[KnobDecl, ...] = ()
    #: Its tables of a row per key (per tenant) and the geometric means over them (`rows`).
    tables: tuple[TableDecl, ...] = ()
    geomeans: tuple[GeomeanDecl, ...] = ()
    #: Its named numbers read from its runs' and code's documents (`reads.ReadDecl`).
    reads: tuple[ReadDecl, ...] = ()
    #: Its claims.json sections, in order (`sections.SectionDecl`).
    sections: tuple[SectionDecl, ...] = ()
    #: Its reads nested over levels (`reads.ReadTableDecl`), by name in sections.
    read_tables: tuple[ReadTableDecl, ...] = ()

    @property
    def measures(self) -> Declared:
        """Every declared measure kind: the pairs, values and bests."""
        return Declared(self.pairs, self.values, self.bests)

    def run(self, label: str) -> RunDecl:
        return next(r for r in self.runs if r.label == label)


_PLAN_KEYS = {"description", "expected_wall_s", "schedule", "scenarios", "runs", "pairs", "cases", "figures"}
_PLAN_KEYS |= {"sensitivity_keys", "sensitivity_base", "row", "metrics", "columns", "health", "checks"}
_PLAN_KEYS |= {"values", "bests", "windows", "value_path"}
_PLAN_KEYS |= {"knobs", "tables", "geomeans", "reads", "health_names", "sections", "read_tables"}
#: The keys `[reproduce] sensitivity_keys` may name: the reproduction's name, its first
#: scenario's file, quick, the study's wall time and its directory (out/sensitivity).
SENSITIVITY_KEYS = ("reproduction", "scenario", "quick", "wall_s", "sweep_dir")


def load_plan(name: str) -> Plan:
    """The `[reproduce]` table of reproduction `name`'s claim file. A bad table is an
    `ftlab.InputError` naming the file and the key."""
    path = claimfile.path_of(name)
    where = f"ftlab/reproduce/papers/{path.name}"
    raw = _toml.loads(path.read_text(encoding="utf-8")).get("reproduce")
    if not isinstance(raw, dict):
        raise input_error(where, "no [reproduce] table (the scenarios and runs of the reproduction)")
    table(where, "reproduce", raw, _PLAN_KEYS)
    scenarios = tuple(_scenario(where, i, s) for i, s in enumerate(raw.get("scenarios") or []))
    keys = [s.key for s in scenarios]
    runs = tuple(_run(where, i, r, keys) for i, r in enumerate(raw.get("runs") or []))
    schedule = raw.get("schedule", "serial")
    if schedule not in ("serial", "pool"):
        raise input_error(where, f"reproduce.schedule {schedule!r} is not one of serial, pool")
    if not scenarios or not runs:
        raise input_error(where, "[reproduce] needs at least one scenario and one run")
    for what, names in (("scenario keys", keys), ("run labels", [r.label for r in runs])):
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise input_error(where, f"reproduce: duplicate {what}: {', '.join(dup)}")
    cases = tuple(_case(where, i, c) for i, c in enumerate(raw.get("cases") or []))
    figures = load_figures(where, raw.get("figures"))
    keys_, base = raw.get("sensitivity_keys", ["reproduction", "quick"]), raw.get("sensitivity_base", False)
    if (
        not isinstance(keys_, list)
        or not all(k in SENSITIVITY_KEYS for k in keys_)
        or len(set(keys_)) < len(keys_)
    ):
        known = ", ".join(SENSITIVITY_KEYS)
        raise input_error(where, f"reproduce.sensitivity_keys must list distinct keys of {known}")
    if not isinstance(base, bool):
        raise input_error(where, "reproduce.sensitivity_base must be true or false")
    declared = load_declared(where, raw.get("pairs"), raw.get("values"), raw.get("bests"))
    rows = load_rows(where, raw.get("row"), raw.get("metrics"), raw.get("columns"), [r.label for r in runs])
    health = load_health(
        where, raw.get("health"), raw.get("checks"), [r.label for r in runs], raw.get("health_names")
    )
    plan = Plan(
        name,
        schedule,
        scenarios,
        runs,
        tuple(declared.pairs),
        cases,
        figures,
        tuple(keys_),
        base,
        rows,
        health,
        tuple(declared.values),
        tuple(declared.bests),
        load_windows(where, raw.get("windows")),
        tuple(declared.tables),
        _value_path(where, raw.get("value_path", "")),
        knobs=_knobs(where, raw.get("knobs"), runs),
        reads=load_reads(where, raw.get("reads")),
    )
    return _with_sections(where, raw, _with_read_tables(where, raw, _with_tables(where, raw, plan)))


def _with_sections(where: str, raw: Mapping[str, object], plan: Plan) -> Plan:
    """`plan` with `[[reproduce.sections]]` (`sections.load_sections`), which may name its
    reads and read tables."""
    labels = [r.label for r in plan.runs]
    found = load_sections(where, raw.get("sections"), labels, plan.reads, plan.read_tables)
    return replace(plan, sections=found)


def _with_read_tables(where: str, raw: Mapping[str, object], plan: Plan) -> Plan:
    """`plan` with `[[reproduce.read_tables]]` (`reads.load_read_tables`)."""
    return replace(plan, read_tables=load_read_tables(where, raw.get("read_tables")))


def _with_tables(where: str, raw: Mapping[str, object], plan: Plan) -> Plan:
    """`plan` with `[[reproduce.tables]]` and `[[reproduce.geomeans]]` (`rows.load_tables`)."""
    found = load_tables(where, raw.get("tables"), [r.label for r in plan.runs])
    return replace(plan, tables=found, geomeans=load_geomeans(where, raw.get("geomeans"), found))


def _knobs(where: str, raw: object, runs: Sequence[RunDecl]) -> tuple[KnobDecl, ...]:
    """`[[reproduce.knobs]]` (`cases.load_knobs`): the study sweeps the plan's one run."""
    knobs = load_knobs(where, raw)
    if knobs and len(runs) != 1:
        raise input_error(
            where, "[[reproduce.knobs]] needs exactly one [[reproduce.runs]] (the run it sweeps)"
        )
    return knobs


def _value_path(where: str, path: object) -> str:
    """`[reproduce] value_path`: a dotted key path, a template of subject, system and key."""
    try:
        ok = isinstance(path, str) and bool(path.format(subject="s", system="s", key="k")) or path == ""
    except (KeyError, ValueError, IndexError):
        ok = False
    if not ok:
        raise input_error(where, "reproduce.value_path must be a key path of {subject}, {system} and {key}")
    return str(path)


def _scenario(where: str, i: int, raw: Mapping[str, object]) -> ScenarioDecl:
    f = Fields.of(where, f"reproduce.scenarios[{i}]", raw, ScenarioDecl)
    return ScenarioDecl(f.text("key"), f.text("full"), f.text("quick"), f.text("what"), f.flag("named"))


def _run(where: str, i: int, raw: Mapping[str, object], scenarios: Sequence[str]) -> RunDecl:
    f = Fields.of(where, f"reproduce.runs[{i}] ({raw.get('label', '?')})", raw, RunDecl)
    label, scenario, dir_ = f.text("label"), f.text("scenario"), f.text("dir")
    if scenario not in scenarios:
        f.bad(f"scenario {scenario!r} is not one of {', '.join(scenarios)}")
    sets = raw.get("set", [])
    if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
        f.bad("`set` must be a list of KEY=VALUE strings")
    jobs = raw.get("jobs", "all")
    if jobs not in ("all", "one"):
        f.bad(f"jobs {jobs!r} is not one of all, one")
    return RunDecl(label, scenario, dir_, tuple(sets), jobs, f.text("title", ""))


def _case(where: str, i: int, raw: Mapping[str, object]) -> CaseDecl:
    label = f"reproduce.cases[{i}] ({raw.get('name', '?')})"
    table(where, label, raw, keys_of(CaseDecl))
    name, values, sets = raw.get("name"), raw.get("values"), raw.get("set")
    if not isinstance(name, str) or not name:
        raise input_error(where, f"{label}: `name` must be a non-empty string")
    if (
        not isinstance(values, list)
        or not values
        or not all(isinstance(v, (int, float, str)) for v in values)
    ):
        raise input_error(where, f"{label}: `values` must be a non-empty list of numbers or strings")
    if not isinstance(sets, list) or not sets or not all(isinstance(s, str) for s in sets):
        raise input_error(where, f"{label}: `set` must be a non-empty list of KEY=VALUE templates")
    scale, runs = raw.get("scale", ""), raw.get("runs", [])
    if not isinstance(scale, str):
        raise input_error(where, f"{label}: `scale` must be a dotted scenario key")
    split = load_split(where, label, raw["split"]) if "split" in raw else None
    each = load_each(where, label, raw["each"]) if "each" in raw else None
    if sum(map(bool, (scale, split, each))) > 1:
        raise input_error(where, f"{label}: give at most one of `scale`, `split`, `each`")
    replace = raw.get("replace", False)
    if not isinstance(replace, bool):
        raise input_error(where, f"{label}: `replace` must be true or false")
    if not scale and not split and any("{scaled" in t for t in sets):
        raise input_error(where, f"{label}: a `set` template names {{scaled}} without `scale`")
    if scale and not all(isinstance(v, (int, float)) for v in values):
        raise input_error(where, f"{label}: with `scale`, `values` must be numbers (factors)")
    if split and not all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in values):
        raise input_error(where, f"{label}: with `split`, `values` must be shares in [0, 1]")
    if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
        raise input_error(where, f"{label}: `runs` must be a list of run-label patterns")
    if each and not all(isinstance(v, (int, float)) for v in values):
        raise input_error(where, f"{label}: with `each`, `values` must be numbers (factors)")
    decl = CaseDecl(name, tuple(values), tuple(sets), scale, tuple(runs), split, each, replace)
    try:  # the templates format: a wrong placeholder is the file's error, not a run's
        name.format(value=values[0])
        at = {"at": "k"} if "*" in scale.split(".") or split else {}
        entries = {"entries": ""} if each else {}
        [t.format(value=values[0], scaled=1.0 if scale or split else None, **at, **entries) for t in sets]
    except (KeyError, ValueError, IndexError, TypeError) as e:
        raise input_error(where, f"{label}: a template names an unknown placeholder or format ({e})") from e
    if each and not any("{entries" in t for t in sets):
        raise input_error(where, f"{label}: with `each`, a `set` template must name {{entries}}")
    return decl


# --------------------------------------------------------------------------------------
# One seed's runs


@dataclass
class Runs:
    """One seed's runs as the paper's code sees them: the scenarios by key, the Reports by run
    label, and `stage(label)` to report a stage of its own (counted in `PaperCode.stages`)."""

    plan: Plan
    quick: bool
    seed: int
    out: Path
    scenarios: dict[str, Path]
    reports: dict[str, Report] = field(default_factory=dict)
    stage: Callable[[str], None] = lambda _label: None

    def report(self, label: str) -> Report:
        return self.reports[label]


@dataclass(frozen=True)
class Case:
    """A sensitivity case: its `name`, the `title` shown while it runs, the runs it reruns
    (`runs`, every run if empty), its `set` overrides per scenario key (after the run's and the
    seed's; with `replace`, instead of them: `PaperCode.run_set` is not asked) and, per
    scenario key, a replacement scenario document (`documents`)."""

    name: str
    title: str = ""
    runs: tuple[str, ...] = ()
    set: Mapping[str, Sequence[str]] = field(default_factory=dict)
    documents: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    replace: bool = False


Seen = TypeVar("Seen")


class PaperCode(ABC, Generic[Seen]):
    """What is a paper's own: how it reads its runs (`read`, into a value of its own type) and
    what it computes from that reading. `stages` counts the `runs.stage` calls `read` makes."""

    name: str = ""
    stages: int = 0

    def check(self, scenarios: Mapping[str, Path]) -> None:
        """Raise a precise error, before any run starts, for what the scenarios need and lack."""

    def head(self, runs: Runs) -> Sections:
        """claims.json's scenario keys: `scenario` (the first declared) and `<key>_scenario`
        for each other one declared `named`."""
        first, *others = runs.plan.scenarios
        named = {f"{s.key}_scenario": str(runs.scenarios[s.key]) for s in others if s.named}
        return {"scenario": str(runs.scenarios[first.key]), **named}

    def run_set(self, runs: Runs, decl: RunDecl, seed: Sequence[str], case: Sequence[str]) -> list[str]:
        """The `--set` of one run: its own overrides, the seed's, then the case's. A paper
        whose overrides depend on the scenario's contents computes them here."""
        return [*decl.set, *seed, *case]

    @abstractmethod
    def read(self, runs: Runs, base: Seen | None) -> Seen:
        """The paper's reading of one seed's runs (its intermediate values); under a
        sensitivity case, `base` is the base runs' reading, whose parts the case does not
        rerun it may keep."""

    def measurements(self, seen: Seen) -> dict[str, Measured]:
        """ftlab's value of every `measure` name of the claim file (`measured`)."""
        names = list(dict.fromkeys(s.measure for s in claimfile.load(self.name).claims if s.measure))
        return self.measured(seen, names)

    def measured(self, seen: Seen, names: Sequence[str]) -> dict[str, Measured]:
        """ftlab's value of each of `names`: the declared pairs, values and bests
        (`measures`) from `value` and `systems`, every other name by `measure`."""
        return measure_all(
            names,
            load_plan(self.name).measures,
            lambda subject, system, key: self.value(seen, subject, system, key),
            lambda name: self.measure_declared(seen, name),
            lambda subject: self.systems(seen, subject),
        )

    def systems(self, seen: Seen, subject: str) -> list[str]:
        """The systems run on `subject`, in the runs' order, for a declared best (none by
        default)."""
        return []

    def value(self, seen: Seen, subject: str, system: str, key: str) -> float | None:
        """The number a declared pair reads: metric `key` of `system` on `subject` (none by
        default: a paper that declares pairs defines it)."""
        return None

    def measure_declared(self, seen: Seen, name: str) -> Measured:
        """A declared measure over the tables `tables` supplies: a geometric mean
        (`[[reproduce.geomeans]]`) or a table value (`[[reproduce.values]]` with `table`) whose
        table it supplies; every other name by `measure`."""
        plan, supplied = load_plan(self.name), self.tables(seen)
        mean = next((g for g in plan.geomeans if g.name == name), None)
        if mean is not None:
            key = next(t.key for t in plan.tables if t.name == mean.table)
            return mean.measure(supplied.get(mean.table, ()), key)
        value = next((v for v in plan.table_values if v.name == name and v.table in supplied), None)
        return self.measure(seen, name) if value is None else value.measure(supplied)

    def tables(self, seen: Seen) -> Mapping[str, Sequence[Mapping[str, object]]]:
        """The tables the declared geometric means and table values read, by name: the
        declared ones (`[[reproduce.tables]]`, `rows.read_tables` of the runs) and the
        paper's own (none by default)."""
        return {}

    def measure(self, seen: Seen, name: str) -> Measured:
        """A measure of the paper's own (not a declared pair); an unknown name is an
        `ftlab.UsageError`."""
        raise usage_error("measure", f"unknown {self.name} computation {name!r}")

    @abstractmethod
    def health(self, seen: Seen) -> Health:
        """The runs' health (`claims.health`'s shape), which gates the claims."""

    def figures(self, seen: Seen, out: Path) -> list[Path]:
        """The paper's figures and their data files, written in `out`: by default the claim
        file's (`[[reproduce.figures]]`, drawn from `rows`)."""
        return draw_all(load_plan(self.name).figures, self.rows(seen), out)

    def rows(self, seen: Seen) -> Sequence[Mapping[str, object]]:
        """The rows of metrics the declared figures draw (none by default)."""
        return []

    def sections(self, seen: Seen) -> Sections:
        """claims.json's sections of this paper's own composing, after `ftlab_version` and
        before `health` (none by default: a paper declares its sections, `supplied`)."""
        return {}

    def supplied(self, seen: Seen) -> Mapping[str, object]:
        """The values the paper's code supplies by name to its declared claims.json sections
        (`[[reproduce.sections]]` with `of`): by default the tables its declared values read
        (`tables`)."""
        return self.tables(seen)

    def sections_after_health(self, seen: Seen) -> Sections:
        """claims.json's sections of this paper after `health`."""
        return {}

    def phases(self, seen: Seen) -> list[PhaseRow]:
        """`ReproductionResult.phases`: the per-phase table (`claims.phase_table`), if any."""
        return []

    def main_report(self, seen: Seen) -> Report | None:
        """`ReproductionResult.report`: the run the terminal summarises (none by default)."""
        return None

    def extra(self, seen: Seen) -> Sections:
        """`ReproductionResult.extra` beside `seed_result` (for tests and the terminal)."""
        return {}

    def notes(self, seen: Seen) -> list[str]:
        """Lines for the terminal after the claims."""
        return []

    def sensitivity_cases(self, runs: Runs) -> list[Case]:
        """The sensitivity cases: the claim file's (`declared_cases`); a paper with cases no
        declaration expresses adds its own."""
        return declared_cases(runs)

    def sensitivity_detail(self, case: Case, seen: Seen, claims: Sequence[Claim]) -> Sections:
        """sensitivity.json's record of one case (`Case("base")` for the base runs)."""
        return {"case": case.name, "claims": claim_values(claims)}

    def sensitivity_head(self, runs: Runs, wall_s: float) -> Sections:
        """sensitivity.json's keys before `claims` and `cases`: those the plan declares
        (`[reproduce] sensitivity_keys`, of SENSITIVITY_KEYS), in its order."""
        values: dict[str, object] = {
            "reproduction": self.name,
            "scenario": str(runs.scenarios[runs.plan.scenarios[0].key]),
            "quick": runs.quick,
            "wall_s": wall_s,
            "sweep_dir": str(runs.out / "sensitivity"),
        }
        return {key: values[key] for key in runs.plan.sensitivity_keys}

    def run_sensitivity(self, study: Study[Seen]) -> list[SensitivityRow]:
        """The sensitivity study: by default the driver's (`run_cases` over
        `sensitivity_cases`), or, for a plan that declares knobs, the sweep of its one run
        (`knob_study`); a paper with a sweep of its own overrides it. Returns
        `claims.sensitivity_summary`'s rows and writes the study's files in `study.runs.out`."""
        if study.runs.plan.knobs:
            return run_knobs(self, study)
        return run_cases(self, study)


@dataclass(frozen=True)
class Study(Generic[Seen]):
    """What a sensitivity study starts from: the base runs and their reading, the claims
    judged on them, the jobs and the progress."""

    runs: Runs
    seen: Seen
    claims: Sequence[Claim]
    jobs: int | None
    progress: Progress | None


def declared_cases(runs: Runs) -> list[Case]:
    """The `[[reproduce.cases]]` of the plan as `Case`s, in order: one per value of each."""
    cases = []
    for decl in runs.plan.cases:
        rerun = [r for r in runs.plan.runs if not decl.runs or any(fnmatch(r.label, p) for p in decl.runs)]
        keys = [s.key for s in runs.plan.scenarios if any(r.scenario == s.key for r in rerun)]
        for value in decl.values:
            sets = {key: _case_sets(runs, decl, key, rerun, value) for key in keys}
            only = tuple(r.label for r in rerun) if decl.runs else ()
            cases.append(Case(decl.name.format(value=value), runs=only, set=sets, replace=decl.replace))
    return cases


def _case_sets(
    runs: Runs, decl: CaseDecl, key: str, rerun: Sequence[RunDecl], value: float | int | str
) -> list[str]:
    """The case's `--set` for scenario `key`: `decl.expand`, or, with `scale`, each template
    once per number at `scale` (one without a `*`) in the resolved scenario of the first run of
    `key` the case reruns (`cases.scaled_at`, the rule a knob's `factors` shares), `{at}` its
    `--set` key and `{scaled}` `value` times it; with `split`, once per number of the split
    of that scenario (`cases.split_at`)."""
    if not decl.scale and not decl.split and not decl.each:
        return decl.expand(value)[1]
    first = next(r for r in rerun if r.scenario == key)
    where = f"the resolved scenario of run {first.label}"
    assert not isinstance(value, str), "a scaled, split or each case's values are numbers (checked on load)"
    doc = _toml.loads(runs.reports[first.label].resolved_toml)
    if decl.each:
        return [t.format(value=value, entries=each_entries(doc, decl.each, value)) for t in decl.set]
    if decl.split:
        found = split_at(doc, decl.split, value, where)
    else:
        found = scaled_at(doc, decl.scale, value, where)
    return [t.format(value=value, scaled=scaled, at=at) for at, scaled in found for t in decl.set]


def claim_values(claims: Sequence[Claim]) -> dict[str, dict[str, object]]:
    """Each claim's value and verdict by id (sensitivity.json's per-case record)."""
    return {c.id: {"value": c.ftlab_value, "verdict": c.verdict} for c in claims}


def slug(name: str) -> str:
    """A case name as a directory name.

    >>> slug("soc_share=0.75"), slug("load x1.5")
    ('soc_share_0.75', 'load_x1.5')
    """
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


# --------------------------------------------------------------------------------------
# The driver


@dataclass(frozen=True)
class Driven(Generic[Seen]):
    """A paper run by the driver: its `PaperCode` and its plan (read from its claim file)."""

    code: PaperCode[Seen]

    def reproduce(
        self,
        *,
        quick: bool,
        out: Path,
        jobs: int | None,
        sensitivity: bool,
        progress: Progress | None = None,
        seed: int = 0,
    ) -> ReproductionResult:
        """One seed of the reproduction into `out` (see the module docstring)."""
        start = time.perf_counter()
        code, plan = self.code, load_plan(self.code.name)
        runs = Runs(plan, quick, seed, out, scenarios(plan, quick))
        code.check(runs.scenarios)
        preimport()
        execute(code, runs, plan.runs, jobs, progress, code.stages, "simulating", out)
        seen = code.read(runs, None)
        checks = code.health(seen)
        result = SeedResult(seed, code.measurements(seen), checks, quick=quick)
        paper = claimfile.load(code.name)
        claims = evaluate(paper, [result])
        files = code.figures(seen, out)
        files.append(write_claims(code, runs, claims, seen, checks, paper.citation))
        sens = None
        if sensitivity:
            sens = code.run_sensitivity(Study(runs, seen, claims, jobs, progress))
            files += sensitivity_files(out)
        return ReproductionResult(
            name=code.name,
            out=out,
            scenario=runs.scenarios[plan.scenarios[0].key],
            quick=quick,
            claims=claims,
            health=checks,
            phases=code.phases(seen),
            files=files,
            wall_s=time.perf_counter() - start,
            report=code.main_report(seen),
            sensitivity=sens,
            extra={**code.extra(seen), "seed_result": result},
            notes=code.notes(seen),
        )


def scenarios(plan: Plan, quick: bool) -> dict[str, Path]:
    """Each declared scenario's bundled file (full or quick), by key."""
    return {s.key: scenario_file(s.relative(quick), s.what) for s in plan.scenarios}


def execute(
    code: PaperCode[Seen],
    runs: Runs,
    todo: Sequence[RunDecl],
    jobs: int | None,
    progress: Progress | None,
    stages: int,
    stage: str,
    root: Path,
    case: Case | None = None,
) -> None:
    """Run `todo` into `root` (each in its `dir`; under a case, `dir` without its first part),
    with `code.run_set`'s overrides, into `runs.reports`. "serial": one
    after another, the progress naming each scenario file, `stages` more stages to follow (a
    single run with no stage to follow reports its own progress);
    "pool": at once, `jobs` at a time. A run declared `jobs = "one"` takes one core, the others
    `jobs`."""
    seeds = {k: seed_overrides(p, runs.seed) for k, p in runs.scenarios.items()}

    def one(decl: RunDecl, on_progress: Callable[[int, int], None] | None = None) -> Report:
        cores = jobs if decl.jobs == "all" else 1
        case_sets = case.set.get(decl.scenario, ()) if case else ()
        if case is not None and case.replace:
            sets = list(case_sets)
        else:
            sets = code.run_set(runs, decl, seeds[decl.scenario], case_sets)
        source: api.Scenario = runs.scenarios[decl.scenario]
        if case is not None and decl.scenario in case.documents:
            source = case.documents[decl.scenario]
        where = root / decl.dir if case is None else root.joinpath(*Path(decl.dir).parts[1:])
        return api.run(source, out=where, set=sets, jobs=cores, progress=on_progress)

    if runs.plan.schedule == "serial":
        total = len(todo) + stages
        for i, decl in enumerate(todo):
            label = f"{stage} {runs.scenarios[decl.scenario].name}"
            if progress and total == 1:  # one stage: the run's own progress
                runs.reports[decl.label] = one(decl, _forward(progress, label))
                continue
            if progress and case is None:
                progress(label, i, total)
            runs.reports[decl.label] = one(decl)
        done = len(todo)

        def next_stage(label: str) -> None:
            nonlocal done
            if progress:
                progress(label, done, total)
            done += 1

        runs.stage = next_stage
        return
    if progress:
        progress(f"{stage} {len(todo)} runs", 0, len(todo))
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        for n, (decl, report) in enumerate(zip(todo, pool.map(one, todo), strict=True), 1):
            runs.reports[decl.label] = report
            if progress:
                progress(f"{stage}: {decl.title or decl.label}", n, len(todo))


def _forward(progress: Progress, label: str) -> Callable[[int, int], None]:
    """A run's progress(done, total) as the reproduction's progress under `label`."""
    return lambda done, total: progress(label, done, total)


def write_claims(
    code: PaperCode[Seen], runs: Runs, claims: Sequence[Claim], seen: Seen, checks: Health, citation: str
) -> Path:
    """claims.json: the reproduction, the paper, its scenarios (`PaperCode.head`), quick,
    ftlab's version, the paper's sections, the health and the paper's sections after it,
    then the claims (`claims.write_claims_json`). The declared sections (`declared_sections`)
    follow the paper's own on each side of the health."""
    return write_claims_json(
        runs.out / CLAIMS_FILE,
        claims,
        reproduction=code.name,
        paper=citation,
        **code.head(runs),
        quick=runs.quick,
        ftlab_version=_core.version(),
        **code.sections(seen),
        **declared_sections(code, runs, seen, False),
        health=checks,
        **code.sections_after_health(seen),
        **declared_sections(code, runs, seen, True),
    )


def declared_sections(code: PaperCode[Seen], runs: Runs, seen: Seen, after_health: bool) -> Sections:
    """The plan's declared claims.json sections before (or after) the health
    (`sections.write`, from `PaperCode.supplied`)."""
    decls = runs.plan.sections
    if not decls:
        return {}
    return write_sections(decls, after_health, code.supplied(seen), runs.reports, runs.out)


def run_cases(code: PaperCode[Seen], study: Study[Seen]) -> list[SensitivityRow]:
    """Rerun each of the paper's cases into out/sensitivity/<case>/ (its runs; the others kept
    from `base`), judge the claims on each, and write sensitivity.json and .csv; returns
    `sensitivity_summary`'s rows over `base` and the cases."""
    base, seen, claims, jobs, progress = study.runs, study.seen, study.claims, study.jobs, study.progress
    start = time.perf_counter()
    cases = code.sensitivity_cases(base)
    by_case: dict[str, list[Claim]] = {"base": list(claims)}
    details = [code.sensitivity_detail(Case("base"), seen, claims)] if base.plan.sensitivity_base else []
    paper = claimfile.load(code.name)
    for i, case in enumerate(cases):
        # Seed 0, the scenario's own seed, as every case has always run.
        runs = Runs(base.plan, base.quick, 0, base.out, base.scenarios, dict(base.reports))
        todo = [r for r in base.plan.runs if not case.runs or r.label in case.runs]
        if progress and base.plan.schedule == "serial":
            progress(f"sensitivity: {case.title or case.name}", i, len(cases))
        root = base.out / "sensitivity" / slug(case.name)
        execute(code, runs, todo, jobs, progress, 0, f"sensitivity {case.name}", root, case)
        case_seen = code.read(runs, None)
        checks = code.health(case_seen)
        measured = code.measurements(case_seen)
        by_case[case.name] = evaluate(paper, [SeedResult(0, measured, checks, quick=base.quick)])
        details.append(code.sensitivity_detail(case, case_seen, by_case[case.name]))
    rows = sensitivity_summary(by_case)
    head = code.sensitivity_head(base, round(time.perf_counter() - start, 3))
    write_sensitivity(base.out, {**head, "claims": rows, "cases": details}, rows)
    return rows


# --------------------------------------------------------------------------------------
# The knob study: a plan's `[[reproduce.knobs]]` as one sweep of its one run


def run_knobs(code: PaperCode[Seen], study: Study[Seen]) -> list[SensitivityRow]:
    """The knob study of the base runs `study.runs` (`knob_study` of the one run's scenario
    and its resolved text)."""
    runs = study.runs
    decl = _knob_run(runs.plan)
    report = runs.report(decl.label)
    scenario = runs.scenarios[decl.scenario]
    return knob_study(code, scenario, report.resolved_toml, runs.out, runs.quick, study.progress)


def knob_study(
    code: PaperCode[Seen],
    scenario: Path,
    resolved_toml: str,
    out: Path,
    quick: bool,
    progress: Progress | None = None,
    only: Sequence[str] | None = None,
) -> list[SensitivityRow]:
    """The sensitivity study of a plan that declares knobs: the cases
    (`cases.study_cases`) of `scenario`, whose resolved text is `resolved_toml`, as one Ray sweep
    (`sweep_study.run_study`, resumable; `only` runs those cases), each case's run read,
    measured and judged as the paper's one run (`PaperCode.read`, `health`, `measurements`);
    writes sensitivity.json, .csv and .md in `out`."""
    plan = load_plan(code.name)
    decl = _knob_run(plan)
    paper = claimfile.load(code.name)

    def judge(report: Report) -> tuple[list[Claim], Health]:
        runs = Runs(plan, quick, 0, out, {decl.scenario: scenario}, {decl.label: report})
        seen = code.read(runs, None)
        checks = code.health(seen)
        return evaluate(paper, [SeedResult(0, code.measurements(seen), checks, quick=quick)]), checks

    every = study_cases(plan.knobs, resolved_toml)
    return run_study(code.name, scenario, every, judge, out, quick, progress, only)


def finished_knob_cases(code: PaperCode[Seen], scenario: Path, resolved_toml: str, out: Path) -> list[str]:
    """The knob study's cases whose runs are finished in out/sensitivity
    (`sweep_study.finished_cases`), for `knob_study(..., only=...)` after a stopped sweep."""
    every = study_cases(load_plan(code.name).knobs, resolved_toml)
    return finished_cases(code.name, scenario, every, out)


def _knob_run(plan: Plan) -> RunDecl:
    """The one run a knob study sweeps (`load_plan` refuses knobs with several)."""
    assert len(plan.runs) == 1, "a plan with knobs has one run"
    return plan.runs[0]
