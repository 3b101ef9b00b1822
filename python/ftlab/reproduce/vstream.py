"""ftlab.reproduce.vstream: the vStream reproduction (Yong, Jeong, Lee and Kim, "vStream:
Virtual Stream Management for Multi-streamed SSDs", §4-§5; the copy names no venue), run by
`ftlab reproduce vstream`.

The driver (`ftlab.reproduce.driver`) runs two workloads, each once per stream mapper, by
overriding the scenario's top-level `stream_mapper` (and `stream.autostream.variant`): the runs
are data, `[reproduce]` of `papers/vstream.toml`:

- synthetic (§5.2, Figure 3): `scenarios/reproduce/vstream-synthetic(-quick).toml` under
  `legacy`, `dac`, `autostream-mq`, `autostream-sfr` and `vstream`;
- RocksDB (§5.3, Figure 4): `scenarios/reproduce/vstream-rocksdb(-quick).toml` under the same
  and `manual` (its `[stream.manual]` is Table 1).

Throughput is the tenant's host write bytes per measured second (MB/s) of the closed loop; the
cost of GC is `device.gc_pages_copied` (§5.2: "the number of valid pages copied during GC").
The claims are data (`papers/vstream.toml`), and so are a run's metrics
(`[[reproduce.metrics]]`, `ftlab.reproduce.rows`), its health (`[[reproduce.checks]]`,
`ftlab.reproduce.run_checks`: the tenant neither unstable nor starved, the synthetic runs in
steady state, no unattributed stamp-group death; the busiest die reported without a limit, as
a closed loop saturates the device on purpose), its ratios and margins between mappers
(`[[reproduce.pairs]]`, `ftlab.reproduce.measures`) and vStream's margin over the best other
mapper (`[[reproduce.bests]]`), Figures 3-4 and the sensitivity cases,
the queue depth and vStream's epoch varied one at a time (`[[reproduce.cases]]`, by direct
runs, no Ray) and claims.json's sections (`[[reproduce.sections]]`). Runs are read one by one
(`ftlab.reproduce.per_run`). This module computes the rest by name (`measure`): §4.2's
write-stamp arithmetic, with the stamp sharing of the RocksDB vstream run
(`mapper_counters.units_per_stamp`) beside it; and it supplies claims.json's `mappers`.

Only ratios of the simulator's outputs are computed here (`Vstream`, registered as `PAPER`);
it is not the simulator nor the driver (it runs nothing itself), and it prints nothing
(`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ftlab import _toml
from ftlab._errors import MissingResultError, input_error, usage_error
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import Claim
from ftlab.reproduce.driver import Case, Driven, Runs, Sections, claim_values, load_plan, scenarios
from ftlab.reproduce.per_run import PerRun, PerRunPaper, by_subject

NAME = "vstream"
#: workload (a scenario key of the plan) -> its tenant's name (the same: the declared
#: throughput reads the tenant named by the run label's subject)
WORKLOADS: dict[str, str] = {"synthetic": "synthetic", "rocksdb": "rocksdb"}


@dataclass(frozen=True)
class Mapper:
    """One of the paper's SSDs: a label, the `--set` overrides that select it, the workloads it runs."""

    label: str
    overrides: tuple[str, ...]
    workloads: tuple[str, ...] = ("synthetic", "rocksdb")


#: The paper's Legacy-, DAC-, Auto- (both AutoStream variants), Manual- and vStream-SSD, in
#: §5.1's order (claims.json's `mappers`).
MAPPER_ORDER = ("legacy", "dac", "autostream-mq", "autostream-sfr", "manual", "vstream")


def runs() -> list[tuple[str, Mapper]]:
    """Every (workload, mapper) pair the reproduction runs, in order (`[reproduce.runs]`)."""
    decls = load_plan(NAME).runs
    by_label: dict[str, Mapper] = {}
    for r in decls:
        m = r.label.split("/")[1]
        workloads = tuple(d.scenario for d in decls if d.label.split("/")[1] == m)
        by_label.setdefault(m, Mapper(m, r.set, workloads))
    return [(r.scenario, by_label[r.label.split("/")[1]]) for r in decls]


def mappers() -> list[Mapper]:
    """The mappers of the runs in §5.1's order (MAPPER_ORDER)."""
    found = {m.label: m for _, m in runs()}
    return sorted(found.values(), key=lambda m: MAPPER_ORDER.index(m.label))


def scenario_path(workload: str, quick: bool) -> Path:
    """The scenario of `workload` (synthetic or rocksdb): scenarios/reproduce/vstream-*.toml."""
    return scenarios(load_plan(NAME), quick)[workload]


class RunMetrics(TypedDict):
    """One run's metrics, as `[[reproduce.metrics]]` of papers/vstream.toml declares and
    `ftlab.reproduce.rows` reads them; None where summary.json lacks the value."""

    throughput_mb_s: float | None
    gc_pages_copied: float | None
    waf: float | None
    measured_s: float | None
    units_per_stamp: float | None


class Vstream(PerRunPaper[RunMetrics]):
    """vStream's own code under the driver: its measures and claims.json's `mappers` (a run's
    metrics and health, the pairs, figures, cases and claims.json's sections are declared in
    papers/vstream.toml)."""

    name = NAME

    def check(self, scenarios: Mapping[str, Path]) -> None:
        for path in scenarios.values():
            check_trace(path)

    def head(self, runs: Runs) -> Sections:
        return {"scenarios": {w: str(p) for w, p in runs.scenarios.items()}}

    def measure(self, seen: PerRun[RunMetrics], name: str) -> Measured:
        return _own(name, self.value(seen, "rocksdb", "vstream", "units_per_stamp"))

    def supplied(self, seen: PerRun[RunMetrics]) -> Mapping[str, object]:
        """The rows (`PerRunPaper.supplied`) and claims.json's `mappers`: each mapper's
        overrides and workloads in §5.1's order, a table of the runs regrouped by mapper that
        no declared source expresses."""
        table = {m.label: {"overrides": list(m.overrides), "workloads": list(m.workloads)} for m in mappers()}
        return {**super().supplied(seen), "mappers": table}

    def extra(self, seen: PerRun[RunMetrics]) -> Sections:
        return {
            "scenarios": {w: str(p) for w, p in seen.scenarios.items()},
            "metrics": by_subject(seen.metrics),
            "reports": {_pair(label): r for label, r in seen.reports.items()},
        }

    def sensitivity_detail(self, case: Case, seen: PerRun[RunMetrics], claims: Sequence[Claim]) -> Sections:
        rerun = list(dict.fromkeys(_pair(r)[1] for r in case.runs))
        return {
            "case": case.name,
            "set": {w: list(v) for w, v in case.set.items()},
            "rerun": rerun or "all",
            "claims": claim_values(claims),
        }


#: What `ftlab reproduce vstream` runs (the registry finds it by this name).
PAPER = Driven(Vstream())


def _pair(label: str) -> tuple[str, str]:
    """A run label "workload/mapper" as (workload, mapper)."""
    w, _, m = label.partition("/")
    return w, m


#: How to make the full RocksDB scenario's trace (docs/capture.md; the logical capacity of the
#: `vstream` device in GiB).
CAPTURE_COMMAND = "ftlab capture rocksdb --device-gib 119.68 --out results/rocksdb-vstream/trace.csv"


def check_trace(path: Path) -> None:
    """An `ftlab.InputError` naming the trace file, before any run starts, when a trace
    tenant of the scenario at `path` names a file that does not exist (the full RocksDB
    scenario's paper-scale capture is not shipped: the message gives CAPTURE_COMMAND)."""
    scenario = _toml.loads(path.read_text(encoding="utf-8"))
    for i, tenant in enumerate(scenario.get("tenants") or []):
        trace = (tenant.get("trace") or {}).get("path")
        if trace is not None and not (path.parent / trace).is_file():
            raise input_error(
                (path.parent / trace).resolve(),
                f"no such file: the trace of {path.name} (tenants.{i}.trace.path); the paper-scale "
                "RocksDB capture is not shipped with ftlab: "
                f"make it from the repository's root with `{CAPTURE_COMMAND}` (hours; "
                "docs/capture.md), or run `ftlab reproduce vstream --quick`",
                MissingResultError,
            )


# --------------------------------------------------------------------------------------
# The paper's own measures


def _own(name: str, units: float | None) -> Measured:
    """ "paper_stamp_factor", "paper_stamp_mib" and "paper_stamp_mb": §4.2's arithmetic, with
    `units`, the write-stamp sharing of the RocksDB vstream run, beside it. An unknown name is
    an `ftlab.UsageError`."""
    if name in ("paper_stamp_factor", "paper_stamp_mib", "paper_stamp_mb"):
        return _stamps(units, name)
    raise usage_error("measure", f"unknown vStream computation {name!r}")


#: §4.2's SSD: "the number of channels is four ($c = 4$) and a channel is composed of 4 chips
#: ($w = 4$). Each chip internally has two dies ($d = 2$) and flash blocks in each die are
#: organized as two planes ($b = 2$). [...] each wordline holds the data for LSB, CSB, and MSB
#: pages ($p = 3$). Finally, the flash page size is 16KB that can contain the data of four 4KB
#: logical pages ($l = 4$)."; and "a 1TB SSD based on the full 4KB page-mapping has 256M logical
#: pages. If we use a 4-byte timestamp per logical page".
PAPER_SSD = {"c": 4, "w": 4, "d": 2, "b": 2, "p": 3, "l": 4}
PAPER_LOGICAL_PAGES, STAMP_BYTES = 256 * 2**20, 4


def _stamps(units: float | None, name: str) -> Measured:
    """§4.2's arithmetic (an `exact` claim), with ftlab's own choice beside it: its vstream
    shares one stamp among `units` units (a design parameter, not a measurement)."""
    factor = math.prod(PAPER_SSD.values())
    ours = (
        "the RocksDB vstream run reports no units_per_stamp"
        if units is None
        else f"ftlab's vstream shares one stamp among {units:g} units, a table of "
        f"{STAMP_BYTES * PAPER_LOGICAL_PAGES / units / 2**20:.3g} MiB at 256 Mi pages"
    )
    if name == "paper_stamp_factor":
        terms = " x ".join(f"{k} = {v}" for k, v in PAPER_SSD.items())
        return Measured(float(factor), f"{terms}: {factor} logical pages per stamp ({ours}).")
    size = STAMP_BYTES * PAPER_LOGICAL_PAGES / factor
    unit, div = ("MiB", 2**20) if name == "paper_stamp_mib" else ("MB", 1e6)
    return Measured(
        size / div,
        f"4 B x 256 Mi logical pages / {factor} = {size / div:.4g} {unit} ({ours}).",
    )
