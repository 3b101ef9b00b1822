"""ftlab.reproduce.ioda: the IODA reproduction (Li et al., "IODA: A Host/Device Co-Design for
Strong Predictability Contract on Modern Flash Storage", SOSP 2021), run by `ftlab reproduce
ioda`. The paper's full text was not reached; the claims are its abstract's sentences and the
runs follow its artifact (huaicheng/IODA-SOSP21-AE), both as papers/ioda.toml declares them.

One scenario (`scenarios/reproduce/ioda(-quick).toml`: four devices behind RAID-5 with 4 KiB
chunks, FEMU's NAND timings, IODA's 100 ms windows) is run per (load, mode) by `--set`: the
modes Base, IOD_1, IOD_2, IOD_3, IODA and Ideal as docs/array.md maps them to `[array]` and
`[device]` keys, at two rates of the read tenant. Each run is read by itself
(`ftlab.reproduce.per_run`): its row of the read tenant's host-layer reads (summary.json's
`array` section) and reads.csv are the claim file's (`[reproduce.row]`,
`[[reproduce.metrics]]`), and so are its health (`[reproduce] health = "array"`: each
device's, merged, `ftlab.reproduce.run_checks`) and the sensitivity cases
(`[[reproduce.cases]]`, which the driver expands). This module is what is the paper's own: its
measures by name and what sensitivity.json records of a case (`Ioda`, registered as `PAPER`);
claims.json's `reads`, the runs' rows, is declared too (`[[reproduce.sections]]`).
It is not the driver (`ftlab.reproduce.driver` runs the runs) and not the array (the
simulator is), and it prints nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ftlab._errors import usage_error
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import Claim, fmt_number, ratio
from ftlab.reproduce.decl import is_number
from ftlab.reproduce.driver import Case, Driven, claim_values, load_plan
from ftlab.reproduce.per_run import PerRun, PerRunPaper

NAME = "ioda"
#: The host layer's read percentiles in summary.json, and their labels: the abstract's "95–99.99th".
PERCENTILES = (("p95_us", "p95"), ("p99_us", "p99"), ("p999_us", "p99.9"), ("p9999_us", "p99.99"))
#: The artifact's modes compared with Ideal ("nearest_ideal"), IODA last.
MODES = ("Base", "IOD_1", "IOD_2", "IOD_3", "IODA")
#: Every run label "<load>/<mode>", in the plan's order, and the loads.
LABELS = tuple(r.label for r in load_plan(NAME).runs)
LOADS = tuple(dict.fromkeys(label.split("/")[0] for label in LABELS))


#: A run's row: the host layer's reads of the read tenant (`[[reproduce.metrics]]` of
#: papers/ioda.toml), JSON values.
ReadRow = dict[str, object]
#: The runs' rows by run label.
Rows = Mapping[str, Mapping[str, object]]


def _num(row: Mapping[str, object], key: str) -> float:
    """The number at `key` of a row; NaN if it is missing or not a number."""
    value = row.get(key)
    return float(value) if is_number(value) else math.nan


class Ioda(PerRunPaper[ReadRow]):
    """IODA's own code under the driver: the host-layer rows' measures (the rows, reads.csv,
    claims.json's `reads` and the runs' health are declared in papers/ioda.toml)."""

    name = NAME

    def measure(self, seen: PerRun[ReadRow], name: str) -> Measured:
        return measure(name, seen.metrics)

    def sensitivity_detail(
        self, case: Case, seen: PerRun[ReadRow], claims: Sequence[Claim]
    ) -> dict[str, object]:
        return {
            "case": case.name,
            "set": list(case.set.get("array", ())),
            "reads": seen.metrics,
            "claims": claim_values(claims),
        }


#: What `ftlab reproduce ioda` runs (the registry finds it by this name).
PAPER = Driven(Ioda())


def measure(name: str, rows: Rows) -> Measured:
    """One computation by name: "tail_factor" (the largest Base / IODA read-latency factor over
    LOADS and PERCENTILES), "nearest_ideal" (IODA's margin over the other modes in distance to
    Ideal) or "multi_busy" (the most `reads_multi_busy` of an IODA run). An unknown name is an
    `ftlab.UsageError`."""
    if name == "tail_factor":
        return tail_factor(rows)
    if name == "nearest_ideal":
        return nearest_ideal(rows)
    if name == "multi_busy":
        found = {load: rows.get(f"{load}/IODA", {}).get("reads_multi_busy") for load in LOADS}
        counts = [int(v) for v in found.values() if isinstance(v, int)]
        if len(counts) != len(found):
            return Measured(None, "an IODA run is missing.", f"reads_multi_busy per load: {found}")
        text = ", ".join(f"{load} {v}" for load, v in found.items())
        return Measured(float(max(counts)), f"IODA runs' reads with a second busy chunk: {text}.")
    raise usage_error("measure", f"unknown IODA computation {name!r}")


def tail_factor(rows: Rows) -> Measured:
    """The largest Base / IODA factor of a read percentile, over LOADS × PERCENTILES, with
    every cell in the explanation."""
    cells = []
    for load in LOADS:
        base, ioda = rows.get(f"{load}/Base"), rows.get(f"{load}/IODA")
        if base is None or ioda is None:
            missing = f"no {load}/Base or {load}/IODA"
            return Measured(None, f"{load}: the Base or IODA run is missing.", missing)
        for key, label in PERCENTILES:
            cells.append(
                (ratio(_num(base, key), _num(ioda, key)), load, label, _num(base, key), _num(ioda, key))
            )
    good = [c for c in cells if math.isfinite(c[0])]
    if not good:
        return Measured(math.nan, "no finite Base / IODA factor (a percentile is zero or missing).")
    best = max(good)
    text = "; ".join(f"{load} {label} {f:.2f}x" for f, load, label, _, _ in cells)
    why = (
        f"largest at {best[1]} {best[2]}: Base {fmt_number(best[3], 'µs', 0)} / IODA "
        f"{fmt_number(best[4], 'µs', 0)} = {best[0]:.2f}x (all cells: {text})."
    )
    return Measured(best[0], why)


def nearest_ideal(rows: Rows) -> Measured:
    """The margin by which IODA is nearest to Ideal: each mode's distance is the mean over LOADS
    and PERCENTILES of |ln(mode / Ideal)|; the margin is the smallest other mode's distance
    over IODA's, less 1 (> 0: IODA nearest). Every mode's distance is in the explanation."""
    dist: dict[str, float] = {}
    for mode in MODES:
        logs = []
        for load in LOADS:
            run, ideal = rows.get(f"{load}/{mode}"), rows.get(f"{load}/Ideal")
            if run is None or ideal is None:
                return Measured(None, f"{load}: the {mode} or Ideal run is missing.", f"no {load}/{mode}")
            for key, _ in PERCENTILES:
                a, b = _num(run, key), _num(ideal, key)
                if not (a > 0 and b > 0):
                    return Measured(
                        math.nan, f"{load}/{mode} {key}: a zero or missing percentile, no distance."
                    )
                logs.append(abs(math.log(a / b)))
        dist[mode] = sum(logs) / len(logs)
    others = min((d, m) for m, d in dist.items() if m != "IODA")
    text = ", ".join(f"{m} {d:.3f}" for m, d in dist.items())
    if dist["IODA"] == 0:
        return Measured(math.inf, f"IODA equals Ideal at every cell (distances: {text}).")
    margin = others[0] / dist["IODA"] - 1
    why = (
        f"mean |ln(mode / Ideal)| over the loads and p95-p99.99: {text}; nearest other mode "
        f"{others[1]}: margin {others[0]:.3f} / {dist['IODA']:.3f} - 1 = {margin:.3f}."
    )
    return Measured(margin, why)
