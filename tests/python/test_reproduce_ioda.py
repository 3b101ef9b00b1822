"""Tests of `ftlab reproduce ioda` (python/ftlab/reproduce/ioda.py, papers/ioda.toml): the
measures computed from hand-made host-layer rows (expected numbers from arithmetic written
here), the plan against docs/array.md's mapping of the artifact's modes, and, in one
module-scoped run of `ftlab.reproduce("ioda", quick=True)` (3 seeds), that claims.json holds
every claim of the claim file with a verdict and a reason, the claim resting on the artifact's
Ideal mode is measured against Ideal runs, and the verdicts are the committed ones
(tests/data/verdicts-quick.json). Determinism of array runs is tested in crates/ftlab/tests/array.rs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

import ftlab
from ftlab.report import Report
from ftlab.reproduce import REPRODUCTIONS, claimfile, verdicts
from ftlab.reproduce import claims as C
from ftlab.reproduce import ioda as I
from ftlab.reproduce.driver import Runs, load_plan

ROOT = Path(__file__).resolve().parents[2]


Cell = tuple[float, float, float, float]


def row(p95: float, p99: float, p999: float, p9999: float, multi_busy: int = 0) -> dict[str, float]:
    return {"p95_us": p95, "p99_us": p99, "p999_us": p999, "p9999_us": p9999, "reads_multi_busy": multi_busy}


def rows(base: Cell, ioda: Cell, **others: Cell) -> dict[str, dict[str, float]]:
    out = {}
    for load in I.LOADS:
        out[f"{load}/Base"], out[f"{load}/IODA"] = row(*base), row(*ioda, multi_busy=3)
        for mode, cell in others.items():
            out[f"{load}/{mode}"] = row(*cell)
    return out


def test_tail_factor_is_the_largest_cell() -> None:
    m = I.measure("tail_factor", rows((100.0, 1000.0, 3000.0, 4000.0), (90.0, 500.0, 200.0, 400.0)))
    assert m.value == pytest.approx(15.0)  # 3000 / 200 at p99.9, beating 1.1, 2 and 10
    assert "p99.9" in m.why


def test_tail_factor_counts_the_p95() -> None:
    m = I.measure("tail_factor", rows((2000.0, 10.0, 10.0, 10.0), (100.0, 10.0, 10.0, 10.0)))
    assert m.value == pytest.approx(20.0) and "p95" in m.why


def test_tail_factor_missing_run_is_not_a_number() -> None:
    table = rows((1.0, 1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0))
    del table[f"{I.LOADS[0]}/IODA"]
    assert I.measure("tail_factor", table).value is None


def test_multi_busy_and_unknown_measure() -> None:
    assert I.measure("multi_busy", rows((1.0, 1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0))).value == 3.0
    with pytest.raises(ftlab.UsageError):
        I.measure("nope", {})


def test_nearest_ideal_is_the_margin_over_the_nearest_other_mode() -> None:
    e = math.e
    # Distances |ln(mode / Ideal)| in every cell: Base 2, IOD_1 1.5, IOD_2 1, IOD_3 0.5, IODA 0.25.
    table = rows(
        (e**2,) * 4,
        (e**0.25,) * 4,
        Ideal=(1.0,) * 4,
        IOD_1=(e**-1.5,) * 4,
        IOD_2=(e,) * 4,
        IOD_3=(e**0.5,) * 4,
    )
    m = I.measure("nearest_ideal", table)
    assert m.value == pytest.approx(0.5 / 0.25 - 1) and "IOD_3" in m.why
    table = rows(
        (e**2,) * 4, (e**0.25,) * 4, Ideal=(1.0,) * 4, IOD_1=(e,) * 4, IOD_2=(e,) * 4, IOD_3=(e**0.1,) * 4
    )
    assert I.measure("nearest_ideal", table).value == pytest.approx(0.1 / 0.25 - 1)  # < 0: not nearest
    del table[f"{I.LOADS[0]}/Ideal"]
    assert I.measure("nearest_ideal", table).value is None


def test_the_declared_row_reads_the_array_section() -> None:
    """papers/ioda.toml's row: the read tenant's host-layer reads of the array's one scheme,
    the scheme's name first; a summary whose array holds two schemes is a usage error."""
    read = {"count": 9, "p50_us": 1.0, "p95_us": 2.0, "p99_us": 3.0, "p999_us": 4.0, "p9999_us": 5.0}
    kv = {"read": read, "reads_failed_fast": 6, "reads_multi_busy": 7, "chunks_rebuilt": 8}
    summary = {"array": {"schemes": {"iod": {"tenants": {"kv": kv}}}}}
    rows = load_plan("ioda").rows
    assert rows.read("r2k/IODA", summary) == {
        "scheme": "iod",
        "reads": 9,
        **{k: v for k, v in read.items() if k != "count"},
        "reads_failed_fast": 6,
        "reads_multi_busy": 7,
        "chunks_rebuilt": 8,
    }
    assert rows.row.csv == "reads.csv" and rows.row.label == ("run",)
    two: dict[str, object] = {"array": {"schemes": {"iod": {}, "partitioned": {}}}}
    with pytest.raises(ftlab.UsageError, match="one scheme"):
        rows.read("r2k/IODA", two)


def test_an_array_runs_health_merges_its_devices() -> None:
    """`health = "array"`: each device's record, its tenants as "dev<i>:<tenant>", the busiest
    die of the array under the limit; one starved device fails the run."""
    ok = {"unstable": False, "starved": False}
    starved = {"unstable": False, "starved": True, "max_wait_s": 2.0, "starvation_wait_s": 1.0}
    devs = {
        "iod/dev0": {"tenants": {"kv": ok}, "device": {"die_utilisation": [0.5]}},
        "iod/dev1": {"tenants": {"kv": starved}, "device": {"die_utilisation": [0.6]}},
    }
    report = cast(Report, SimpleNamespace(summary={"schemes": devs}))
    h = load_plan("ioda").health.run("r2k/IODA", report)
    assert set(h["tenants"]) == {"iod/dev0:kv", "iod/dev1:kv"} and h["busiest_die"] == 0.6
    assert h["ok"] is False and h["reasons"] == ["iod/dev1: kv starved: a request waited 2.0 s > 1 s"]


def test_sensitivity_cases_are_the_claim_files() -> None:
    """The declared cases (papers/ioda.toml's [[reproduce.cases]], expanded by the driver):
    distinct names, runs of the plan, overrides of the array scenario; the read rate is swept
    on the 2000 IOPS runs only, and the log tenant's rate is halved and doubled from 60 rows/s."""
    cases = I.PAPER.code.sensitivity_cases(Runs(load_plan("ioda"), True, 0, Path("."), {}, {}))
    labels = {r.label for r in load_plan("ioda").runs}
    assert cases and len({c.name for c in cases}) == len(cases)
    for c in cases:
        assert set(c.runs) <= labels and list(c.set) == ["array"] and c.set["array"], c.name
    kv = next(c for c in cases if c.name == "kv 1000 IOPS at r2k")
    assert kv.set["array"] == ["tenants.0.synthetic.rate_iops=1000"]
    assert kv.runs and all(r.startswith("r2k/") for r in kv.runs)
    logs = {c.name: c.set["array"] for c in cases if c.name.startswith("log x")}
    assert logs == {
        "log x0.5": ["tenants.1.synthetic.rate_iops=30"],
        "log x2": ["tenants.1.synthetic.rate_iops=120"],
    }


def test_plan_runs_the_modes_docs_array_names() -> None:
    """docs/array.md: Base, IOD_1, IOD_2 without windows under partitioned; IOD_3 (iod3) and
    IODA (brt) with staggered windows under iod; Ideal, Base with background work free."""
    want = {
        "Base": ('schemes=["partitioned"]', "array.fail_fast=off", "array.stagger=false"),
        "IOD_1": ('schemes=["partitioned"]', "array.fail_fast=random", "array.stagger=false"),
        "IOD_2": ('schemes=["partitioned"]', "array.fail_fast=brt", "array.stagger=false"),
        "IOD_3": ('schemes=["iod"]', "array.fail_fast=iod3", "array.stagger=true"),
        "IODA": ('schemes=["iod"]', "array.fail_fast=brt", "array.stagger=true"),
        "Ideal": (
            'schemes=["partitioned"]',
            "array.fail_fast=off",
            "array.stagger=false",
            "device.background_free=true",
        ),
    }
    plan = load_plan("ioda")
    assert len(plan.runs) == len(I.LOADS) * len(want)
    for r in plan.runs:
        load, mode = r.label.split("/")
        n = len(want[mode])
        assert r.set[:n] == want[mode] and r.set[n].startswith("tenants.0.synthetic.rate_iops="), r.label
    assert "ioda" in REPRODUCTIONS and "ioda" in verdicts.NAMES
    used = {x for s in claimfile.load("ioda").claims for x in s.runs}
    assert used <= {r.label for r in plan.runs}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> C.ReproductionResult:
    return ftlab.reproduce("ioda", quick=True, out=tmp_path_factory.mktemp("reproduce") / "ioda-quick")


def test_quick_claims_json(quick: C.ReproductionResult) -> None:
    doc = json.loads((quick.out / "claims.json").read_text())
    specs = claimfile.load("ioda").claims
    assert [c["id"] for c in doc["claims"]] == [s.id for s in specs]
    assert doc["quick"] is True
    for c in doc["claims"]:
        assert c["verdict"] in C.VERDICTS and c["why"], c["id"]
    by_id = {c["id"]: c for c in doc["claims"]}
    assert by_id["nearest_to_ideal"]["verdict"] != C.NOT_MEASURED
    assert "Ideal" in by_id["nearest_to_ideal"]["why"]
    factor = by_id["tail_factor_up_to_75x"]
    assert factor["verdict"] != C.NOT_MEASURED and math.isfinite(float(factor["ftlab_value"]))


def test_quick_verdicts_are_the_committed_ones(quick: C.ReproductionResult) -> None:
    found = verdicts.check("ioda", quick.claims, ROOT / verdicts.VERDICTS_FILE)
    assert not found, "\n".join(found)
