"""ftlab.reproduce.per_run: the shared reading of a paper whose runs each stand alone.

A paper such as CacheLib FDP, vStream or IODA runs one scheme per run and reads every run by
itself: a row of metrics per run label ("<subject>/<system>": "u100/fdp", "rocksdb/vstream"),
as its claim file declares it (`[[reproduce.metrics]]`, read by `ftlab.reproduce.rows`), a
health record per run (`[reproduce] health` and `[[reproduce.checks]]`, judged by
`ftlab.reproduce.run_checks`), the metrics CSV (`[reproduce.row] csv`, its rows the runs' rows and
the declared `[[reproduce.columns]]`) beside its declared figures (`ftlab.reproduce.figures`,
drawn from the CSV's rows), and its declared a/b measures (`ftlab.reproduce.measures`) read
from those rows. `PerRunPaper` is that reading under the driver
(`ftlab.reproduce.driver.PaperCode`); it supplies the rows, by run label and by subject, to
the claims.json sections the paper declares (`[[reproduce.sections]]`, `supplied`), and the
paper defines its own measures.

It is not a paper's code and runs nothing (the driver does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from ftlab.reproduce import claimfile
from ftlab.reproduce.claimfile import SeedResult, evaluate
from ftlab.reproduce.claims import Claim, Health, RunHealth, write_csv
from ftlab.reproduce.driver import PaperCode, Plan, Runs, load_plan

if TYPE_CHECKING:
    from ftlab.report import Report

#: A run's row of metrics (a TypedDict of the paper's whose keys are the declared metrics, in
#: order: the paper's tests check them against the claim file).
Row = TypeVar("Row", bound=Mapping[str, object])


@dataclass(frozen=True)
class PerRun(Generic[Row]):
    """One seed's runs as such a paper reads them: the Reports and each one's row of metrics
    by run label, in the runs' order, the scenarios by key and the output directory."""

    reports: dict[str, Report]
    metrics: dict[str, Row]
    scenarios: dict[str, Path]
    out: Path


class PerRunPaper(PaperCode[PerRun[Row]]):
    """A paper read run by run (see the module docstring)."""

    def run_metrics(self, plan: Plan, label: str, report: Report) -> Row:
        """Run `label`'s row of metrics: the declared ones (`rows.RowsDecl.read`)."""
        return cast(Row, plan.rows.read(label, report.summary))

    def run_health(self, plan: Plan, label: str, report: Report) -> RunHealth:
        """Run `label`'s health record: the declared one (`run_checks.HealthDecl.run`)."""
        return plan.health.run(label, report)

    def rows(self, seen: PerRun[Row]) -> Sequence[Mapping[str, object]]:
        """The metrics CSV's rows, which the declared figures draw: one per run, in the plan's
        order (`rows.RowsDecl.csv_rows`)."""
        plan = load_plan(self.name)
        return plan.rows.csv_rows([r.label for r in plan.runs], seen.metrics)

    def read(self, runs: Runs, base: PerRun[Row] | None) -> PerRun[Row]:
        reports = dict(runs.reports)
        metrics = {label: self.run_metrics(runs.plan, label, report) for label, report in reports.items()}
        return PerRun(reports, metrics, runs.scenarios, runs.out)

    def systems(self, seen: PerRun[Row], subject: str) -> list[str]:
        """The systems of the runs "<subject>/<system>" read, in the runs' order."""
        return [label.split("/", 1)[1] for label in seen.metrics if label.split("/", 1)[0] == subject]

    def claims_on(self, metrics: Mapping[str, Row], checks: Health) -> list[Claim]:
        """Every claim of the claim file judged on one seed's rows `metrics` (by run label) and
        health `checks`, with no Report: the measures read the rows alone."""
        seen = PerRun({}, dict(metrics), {}, Path())
        return evaluate(claimfile.load(self.name), [SeedResult(0, self.measurements(seen), checks)])

    def value(self, seen: PerRun[Row], subject: str, system: str, key: str) -> float | None:
        """Metric `key` of run "<subject>/<system>", None where it is missing or not a number."""
        row = seen.metrics.get(f"{subject}/{system}")
        v = None if row is None else row.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def supplied(self, seen: PerRun[Row]) -> Mapping[str, object]:
        """The values its declared claims.json sections read (`[[reproduce.sections]]`): the
        runs' rows by run label (`metrics`) and by subject, then system (`metrics_by_subject`)."""
        return {"metrics": seen.metrics, "metrics_by_subject": by_subject(seen.metrics)}

    def health(self, seen: PerRun[Row]) -> Health:
        """Per run its `run_health`; top-level `ok`: every run's; between them the declared
        health's head (`run_checks.HealthDecl.head`)."""
        plan = load_plan(self.name)
        runs = {label: self.run_health(plan, label, report) for label, report in seen.reports.items()}
        return {
            "ok": all(r["ok"] for r in runs.values()) and bool(runs),
            **plan.health.head(),
            "schemes": runs,
        }

    def figures(self, seen: PerRun[Row], out: Path) -> list[Path]:
        """The declared figures, then the metrics CSV."""
        csv = load_plan(self.name).rows.row.csv
        return [*super().figures(seen, out), write_csv(out / csv, self.rows(seen))]


def by_subject(metrics: Mapping[str, Row]) -> dict[str, dict[str, Row]]:
    """The runs' rows by run label "<subject>/<system>", in order, as rows[subject][system].

    >>> by_subject({"a/x": {"v": 1}, "b/x": {"v": 2}, "a/y": {"v": 3}})
    {'a': {'x': {'v': 1}, 'y': {'v': 3}}, 'b': {'x': {'v': 2}}}
    """
    out: dict[str, dict[str, Row]] = {}
    for label, row in metrics.items():
        subject, _, system = label.partition("/")
        out.setdefault(subject, {})[system] = row
    return out
