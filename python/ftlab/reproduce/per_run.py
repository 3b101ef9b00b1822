"""ftlab.reproduce.per_run: the shared reading of a paper whose runs each stand alone.

A paper such as CacheLib FDP or vStream runs one scheme per run and reads every run by itself:
a row of metrics per run label ("<subject>/<system>": "u100/fdp", "rocksdb/vstream"), a health
record per run, metrics.csv beside its declared figures (`ftlab.reproduce.figures`, drawn
from metrics.csv's rows), and its declared a/b measures (`ftlab.reproduce.measures`) read
from those rows. `PerRunPaper` is that reading under the driver
(`ftlab.reproduce.driver.PaperCode`); the paper defines what a run's row and health are,
metrics.csv's rows and its own measures.

It is not a paper's code and runs nothing (the driver does).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from ftlab.reproduce.claims import Health, HealthHead, RunHealth, write_csv
from ftlab.reproduce.driver import PaperCode, Runs

if TYPE_CHECKING:
    from ftlab.report import Report

#: A run's row of metrics (a TypedDict of the paper's).
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

    @abstractmethod
    def run_metrics(self, label: str, report: Report) -> Row:
        """Run `label`'s row of metrics."""

    @abstractmethod
    def run_health(self, label: str, report: Report) -> RunHealth:
        """Run `label`'s health record (`claims.one_run_health`'s shape, `ok` last)."""

    @abstractmethod
    def rows(self, seen: PerRun[Row]) -> Sequence[Mapping[str, object]]:
        """metrics.csv's rows, which the declared figures draw."""

    def health_head(self) -> HealthHead:
        """The health's keys between `ok` and `schemes` (none by default)."""
        return {}

    def read(self, runs: Runs, base: PerRun[Row] | None) -> PerRun[Row]:
        reports = dict(runs.reports)
        metrics = {label: self.run_metrics(label, report) for label, report in reports.items()}
        return PerRun(reports, metrics, runs.scenarios, runs.out)

    def value(self, seen: PerRun[Row], subject: str, system: str, key: str) -> float | None:
        """Metric `key` of run "<subject>/<system>", None where it is missing or not a number."""
        row = seen.metrics.get(f"{subject}/{system}")
        v = None if row is None else row.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def health(self, seen: PerRun[Row]) -> Health:
        """Per run its `run_health`; top-level `ok`: every run's."""
        runs = {label: self.run_health(label, report) for label, report in seen.reports.items()}
        return {
            "ok": all(r["ok"] for r in runs.values()) and bool(runs),
            **self.health_head(),
            "schemes": runs,
        }

    def figures(self, seen: PerRun[Row], out: Path) -> list[Path]:
        """The declared figures, then metrics.csv."""
        return [*super().figures(seen, out), write_csv(out / "metrics.csv", self.rows(seen))]
