"""ftlab.reproduce.upi: the UPI reproduction ("utilitarian performance isolation" for shared
SSDs, §5; the paper copy carries no title line, author line or venue), run by `ftlab reproduce upi`.

Nearly all of it is data in papers/upi.toml, which the driver (`ftlab.reproduce.driver`) runs: the
one run of `scenarios/reproduce/upi.toml` (quick: `upi-quick.toml`) with the schemes
`partitioned`, `unified`, `upi` and `upi-guarded` and the tenants `das-as`, `dtrs` and `lm-tbe`;
the claims and their measures (`[[reproduce.pairs]]`, read at `value_path`, and the window
measures around the rise, `[[reproduce.windows]]`); Figures 3 and 5 (`[[reproduce.figures]]`) and
Figure 3's rows, a row per scheme and tenant (`[[reproduce.tables]]` with `within`,
`ftlab.reproduce.rows`); and the sensitivity study's knobs (`[[reproduce.knobs]]`,
`ftlab.reproduce.cases`), swept by the driver (`driver.knob_study`), each case's run judged by
this module's reading as the base run is. The study is a Ray sweep, not the driver's `run_cases`
loop of the other papers, because its outputs are the sweep's and stay as they were: run
directories named by the resolved scenario's hash and reused (resumable, a subset of cases, the
finished cases of a stopped sweep), sensitivity.json's per-case table place, run key, unstable
tenants and health reasons, sensitivity.csv's column per case and sensitivity.md; `run_cases`
writes none of these.

What stays here is what no declaration expresses:
- `Seen` and `Upi.read`: the run's reading, with `rise_s`, the time the window measures and
  Figure 5 are placed around (the latest `start_s` of LM-TBE's synthetic parts: a fact of the
  scenario, which no declaration names), and the per-phase table (`claims.phase_table`);
- `Upi.value` and `Upi.measure`: the declared pairs and windows bound to this reading (its
  summary.json, its time series and the rise);
- `figure_values`: Figure 5's window, the rise plus and minus AROUND_RISE_S;
- `figure4`: `ftlab plot`'s read-latency CDF figure, that command's own, which a declared line
  figure would copy;
- the values its declared claims.json sections name (`supplied`: the rise and the per-phase
  table; the run's directory is declared) and phases.csv (`_phase_columns`).

It computes no simulation and prints nothing (`ftlab.cli.reproduce` does); `Upi` is registered
as `PAPER`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab import _toml
from ftlab._errors import input_error, usage_error
from ftlab.report import plots, write_files_atomically
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import (
    PHASES_FILE,
    Health,
    PhaseRow,
    health,
    phase_table,
    write_csv,
)
from ftlab.reproduce.decl import is_number
from ftlab.reproduce.driver import Driven, PaperCode, Runs, load_plan, scenarios
from ftlab.reproduce.figures import Table, draw_all
from ftlab.reproduce.rows import read_tables, value_at
from ftlab.reproduce.series_measures import measure_window

if TYPE_CHECKING:
    from ftlab.report import Report

NAME = "upi"
TENANTS = ("das-as", "dtrs", "lm-tbe")
SCHEMES = ("partitioned", "unified", "upi", "upi-guarded")
#: The schemes that stand for the paper's UPI: each UPI claim is made for both.
UPI_VARIANTS = ("upi", "upi-guarded")
#: The tenant whose write bandwidth rises (Fig. 5).
RISE_TENANT = "lm-tbe"
#: Half the window of Figure 5 around the rise, in seconds (the `width_s` of the window
#: measures papers/upi.toml declares; a test holds them equal).
AROUND_RISE_S = 300.0


@dataclass(frozen=True)
class Seen:
    """The run as the paper reads it: its Report, the rise and the per-phase table."""

    report: Report
    rise: float
    phases: list[PhaseRow]


class Upi(PaperCode[Seen]):
    """UPI's own code under the driver (`ftlab.reproduce.driver`; the run, the measures, the
    figures and the sensitivity knobs are declared in papers/upi.toml): its reading of the
    run, the declared measures bound to it, Figure 4 and the phase table."""

    name = NAME

    def read(self, runs: Runs, base: Seen | None) -> Seen:
        report = runs.report("upi")
        phases = phase_table(report.summary, TENANTS)
        return Seen(report, rise_s(report.resolved_toml), phases)

    def value(self, seen: Seen, subject: str, system: str, key: str) -> float | None:
        """A declared pair's number: where the claim file's `value_path` says it sits in
        summary.json (`rows.value_at`), or None."""
        return value_at(seen.report.summary, load_plan(NAME).value_path, subject, system, key)

    def measure(self, seen: Seen, name: str) -> Measured:
        """The declared window measures (`[[reproduce.windows]]`, `series_measures`) on the
        run's time series, around the named time `rise_s` this module supplies. An unknown
        name is an `ftlab.UsageError`."""
        found = measure_window(name, load_plan(NAME).windows, seen.report.timeseries, {"rise_s": seen.rise})
        if found is None:
            raise usage_error("measure", f"unknown UPI computation {name!r}")
        return found

    def health(self, seen: Seen) -> Health:
        return health(seen.report.summary)

    def rows(self, seen: Seen) -> Sequence[Mapping[str, object]]:
        """Figure 3's rows (fig3-bars.csv): the declared table `figure3` of the run."""
        return read_tables(load_plan(NAME).tables, {"upi": seen.report.summary})["figure3"]

    def figures(self, seen: Seen, out: Path) -> list[Path]:
        """The declared figures (`[[reproduce.figures]]`: Figure 3 from the table `figure3`, Figure
        5 from the run's time series around the rise), Figure 4 and phases.csv."""
        tables: dict[str, Table] = {"timeseries": seen.report.timeseries}
        values = figure_values(seen.rise)
        declared = draw_all(load_plan(NAME).figures, self.rows(seen), out, tables, values)
        phases = seen.phases
        return [
            *declared,
            *figure4(seen.report, out),
            write_csv(out / PHASES_FILE, phases, _phase_columns(phases)),
        ]

    def supplied(self, seen: Seen) -> Mapping[str, object]:
        """The values papers/upi.toml's sections name: the rise and the per-phase table."""
        return {"rise_s": seen.rise, "phases": seen.phases}

    def phases(self, seen: Seen) -> list[PhaseRow]:
        return seen.phases

    def main_report(self, seen: Seen) -> Report | None:
        return seen.report

    def extra(self, seen: Seen) -> dict[str, object]:
        return {"rise_s": seen.rise}


#: What `ftlab reproduce upi` runs (the registry finds it by this name).
PAPER = Driven(Upi())


def scenario_path(quick: bool) -> Path:
    """The reproduction's scenario: scenarios/reproduce/upi(-quick).toml of the checkout."""
    return scenarios(load_plan(NAME), quick)["upi"]


def rise_s(resolved_toml: str) -> float:
    """When LM-TBE's write bandwidth rises, the paper's "when LM-TBE starts to increase its write
    bandwidth" (§5, Figure 5): the latest `start_s` of its synthetic parts in the (resolved)
    scenario, a part without one starting at 0; 0 if it has none. An `ftlab.InputError` if it
    has no LM-TBE. Not declared: a declared read (`ftlab.reproduce.reads`) reads a summary's
    numbers, with no default for a part that leaves `start_s` out, and a missing tenant would
    be its NaN, not the scenario's error."""
    parts = _parts(_toml.loads(resolved_toml), RISE_TENANT)
    return max((float(s) for p in parts if is_number(s := p.get("start_s", 0.0))), default=0.0)


def _parts(scenario: Mapping[str, object], tenant: str) -> list[Mapping[str, object]]:
    """A tenant's synthetic parts (one table or a list of them); an `ftlab.InputError` if the
    scenario has no such tenant."""
    tenants = scenario.get("tenants")
    for t in tenants if isinstance(tenants, list) else []:
        if isinstance(t, Mapping) and t.get("name") == tenant:
            synthetic = t.get("synthetic") or []
            parts = synthetic if isinstance(synthetic, list) else [synthetic]
            return [p for p in parts if isinstance(p, Mapping)]
    raise input_error(
        "scenario.resolved.toml",
        f"no tenant named {tenant!r}; the UPI reproduction needs {', '.join(TENANTS)}",
    )


def _phase_columns(rows: Sequence[PhaseRow]) -> list[str]:
    """phases.csv's columns: tenant, scheme, then every phase's metric in first-seen order.
    Not declared: the columns are the phases the run has, which no fixed column list names."""
    return list(dict.fromkeys(["tenant", "scheme", *(k for r in rows for k in r)]))


# --------------------------------------------------------------------------------------
# Figures


def figure4(report: Report, out: Path) -> list[Path]:
    """Figure 4, fig4-read-cdf: `ftlab plot`'s read-latency CDF figure (its CDF and tail panels
    per tenant, from figdata's reduced points) and the run's read CDF table as CSV. Not
    declared: it is that command's own figure, which a declared line figure would copy."""
    out.mkdir(parents=True, exist_ok=True)
    files = [plots.plot(report, "cdf", out / "fig4-read-cdf.png", ops=["read"])]
    if report.latency_cdf is not None:
        frame = report.latency_cdf.filter(op="read")
        path = out / "fig4-read-cdf.csv"
        write_files_atomically(out, {path.name: lambda p: frame.write_csv(p)})
        files.append(path)
    return files


def figure_values(rise: float) -> dict[str, float]:
    """The named values Figure 5 (declared) reads: the rise and the window around it."""
    return {"rise_s": rise, "window_from_s": rise - AROUND_RISE_S, "window_to_s": rise + AROUND_RISE_S}
