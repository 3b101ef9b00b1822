"""ftlab.reproduce.fdp_cachelib: the CacheLib FDP reproduction (Allison et al., "Towards
Efficient Flash Caches with Emerging NVMe Flexible Data Placement SSDs", EuroSys 2025, arXiv
2503.11665, §6), run by `ftlab reproduce fdp-cachelib`.

One scenario (`scenarios/reproduce/fdp-cachelib(-quick).toml`: CacheLib's small-object cache,
SOC, as uniform 4 KiB bucket rewrites over 4% of the cache, and its large-object cache, LOC, as
a sequential log of 256 KiB writes over the other 96%, on an SSD with 8 initially isolated
reclaim unit handles) is run once per (case, mapper), by `--set` overrides; the runs are data
(`[reproduce]` of `papers/fdp_cachelib.toml`), run by the driver (`ftlab.reproduce.driver`):

- cases: `u50` (the cache is 50% of the device, §6.2), `u80` and `u100` (80%, one of the
  utilisations "between 50% and 90%" §6.3 calls similar to 50%, and 100%, §6.3), `soc64`,
  `soc90` and `soc96` (100%, the SOC 64%, 90% and 96% of the cache, §6.5) and `mt` (two
  tenants, each a cache on half the device, §6.7: the scenario's two-tenant sibling,
  `fdp-cachelib-two-tenants(-quick).toml`);
- mappers: `fdp` (SOC on PID 0 -> RUH 0, LOC on PID 1 -> RUH 1: the paper's "FDP"),
  `nonfdp` (`legacy`, no placement: its "Non-FDP") and, at u100, `fdp-one-ruh` (FDP enabled,
  both PIDs on RUH 0: §6.6's stand-in for Non-FDP when counting GC events).

The DLWA of a run is its device WAF over the measured phase (summary.json `device.waf`: flash
units programmed / host units), after the warm-up by workload has converged (health); its p99
write latency is its tenants' highest `write.p99_us`. The claims are data
(`papers/fdp_cachelib.toml`), and so are a run's metrics (`[[reproduce.metrics]]`, with the
paper's DLWA per run as a column of metrics.csv, `ftlab.reproduce.rows`), its health
(`[[reproduce.checks]]`, `ftlab.reproduce.run_checks`: the tenants' checks and the warm-up's
convergence), its measures (`ftlab.reproduce.measures`: `[[reproduce.pairs]]`, DLWA and p99
ratios and margins between mappers; `[[reproduce.values]]`, a single run's DLWA), the DLWA
figure and its sensitivity cases (`[[reproduce.cases]]`: the over-provisioning, and the SOC's
share of host bytes, a `split` of each tenant's two parts). This module is what is the paper's
own, read run by run (`ftlab.reproduce.per_run`): the Media Reallocated events per host byte
(`measure`). Neither knob is published for the paper's device and traces.

Only ratios of the simulator's outputs are computed here; it is not the simulator nor the
driver (it runs nothing itself), and it prints nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ftlab._errors import usage_error
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import Claim, ratio
from ftlab.reproduce.driver import Case, Driven, Sections, claim_values, load_plan, scenarios
from ftlab.reproduce.per_run import PerRun, PerRunPaper

NAME = "fdp-cachelib"


@dataclass(frozen=True)
class Run:
    """One (case, mapper) run of the plan: its label "case/mapper" and its overrides."""

    case: str
    mapper: str
    overrides: tuple[str, ...]
    scenario: str

    @property
    def label(self) -> str:
        return f"{self.case}/{self.mapper}"


#: Every run, in order (`[reproduce.runs]` of the claim file).
RUNS: tuple[Run, ...] = tuple(
    Run(r.label.split("/")[0], r.label.split("/")[1], r.set, r.scenario) for r in load_plan(NAME).runs
)


class RunMetrics(TypedDict):
    """One run's metrics, as `[[reproduce.metrics]]` of papers/fdp_cachelib.toml declares and
    `ftlab.reproduce.rows` reads them (a row of metrics.csv); None where summary.json lacks
    the value."""

    dlwa: float | None
    host_bytes: int | None
    write_p99_us: float | None
    erases: int | None
    gc_pages_copied: int | None
    blocks_multi_tenant: int | None
    hbmw: float | None
    mbmw: float | None
    media_reallocated: float | None
    warm_converged: bool | None
    warm_windows: int


#: The metrics of every run by label.
Metrics = Mapping[str, RunMetrics]


class FdpCachelib(PerRunPaper[RunMetrics]):
    """CacheLib FDP's own code under the driver: its measures, claims.json's sections and the
    SOC-share cases (a run's metrics and health, the pairs, the figure and the
    over-provisioning cases are declared in papers/fdp_cachelib.toml)."""

    name = NAME

    def measure(self, seen: PerRun[RunMetrics], name: str) -> Measured:
        return _own(name, lambda run, key: self.value(seen, *_split(run), key))

    def sections(self, seen: PerRun[RunMetrics]) -> Sections:
        return {
            "run_dir": str(seen.out / "run"),
            "two_tenant_scenario": str(seen.scenarios["two_tenants"]),
            "runs": {r.label: list(r.overrides) for r in RUNS},
            "two_tenant_runs": [r.label for r in RUNS if r.scenario == "two_tenants"],
            "metrics": seen.metrics,
        }

    def extra(self, seen: PerRun[RunMetrics]) -> Sections:
        return {"metrics": seen.metrics, "reports": seen.reports}

    def sensitivity_detail(self, case: Case, seen: PerRun[RunMetrics], claims: Sequence[Claim]) -> Sections:
        return {
            "case": case.name,
            "set": list(case.set["one_tenant"]),
            "dlwa": {label: m["dlwa"] for label, m in seen.metrics.items()},
            "claims": claim_values(claims),
        }


#: What `ftlab reproduce fdp-cachelib` runs (the registry finds it by this name).
PAPER = Driven(FdpCachelib())


def scenario_path(quick: bool, key: str = "one_tenant") -> Path:
    """The bundled scenario `key` of the plan (`one_tenant` or `two_tenants`), full or quick."""
    return scenarios(load_plan(NAME), quick)[key]


# --------------------------------------------------------------------------------------
# The paper's own measure

#: A run's metric: (run label, key) -> the number, or None where it is missing.
Num = Callable[[str, str], "float | None"]


def _split(run: str) -> tuple[str, str]:
    """A run label "<case>/<mapper>" as (case, mapper)."""
    case, _, mapper = run.partition("/")
    return case, mapper


def _own(name: str, num: Num) -> Measured:
    """ "events:<case>:<a>/<b>": run a's Media Reallocated events per host byte (hbmw) over run
    b's. It is this paper's own, not a declared pair: a rate of two counters per run, and a
    run without the FDP counters makes the claim not measured (`Measured.missing`), where a
    pair's missing value is NaN. An unknown name is an `ftlab.UsageError`."""
    kind, _, rest = name.partition(":")
    subject, _, pair = rest.partition(":")
    if kind != "events" or pair.count("/") != 1 or ":" in pair:
        raise usage_error("measure", f"unknown CacheLib FDP computation {name!r}")
    a, b = (f"{subject}/{m}" for m in pair.split("/"))
    return _events(num, a, b)


def _events(num: Num, a: str, b: str) -> Measured:
    per = {}
    for run in (a, b):
        events, host = num(run, "media_reallocated"), num(run, "hbmw")
        if events is None or host is None:
            return Measured(
                None,
                f"{run} has no FDP counters.",
                f"summary.json mapper_counters events_media_reallocated or hbmw of run {run} is absent",
            )
        per[run] = (events, events / host * 2**30 if host > 0 else math.nan)
    factor = ratio(per[a][1], per[b][1])
    why = (
        f"Media Reallocated events per GiB written by the host: {a} {per[a][1]:.3g} "
        f"({per[a][0]:.0f} events), "
        f"{b} {per[b][1]:.3g} ({per[b][0]:.0f}): {factor:.3f}x."
    )
    return Measured(factor, why)
