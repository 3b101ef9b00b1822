"""Tests of `ftlab reproduce flashblox` (python/ftlab/reproduce/flashblox.py): the claims from
hand-made summaries and model outputs (expected numbers worked out here from the slides' values),
the helpers (software vSSDs, swap rounds, capacity scale, the model's summary), the module's
doctests, and, in one module-scoped run of `ftlab.reproduce("flashblox", quick=True)`: every
file and key is written, every claim has a verdict and a reason, the runs' health (the swap
run's backlog makes it unhealthy, nobody starves), the directions the quick form measured (docs/reproductions.md) hold, and a second
run gives byte-identical summary.json files.

The quick run's magnitudes are not checked: its device is reduced and its loads are assumed.
"""

from __future__ import annotations

import doctest
import json
import math
from pathlib import Path
from typing import Any

import pytest

import ftlab
from ftlab.reproduce import claims as C
from ftlab.reproduce import flashblox as F

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).parents[2]


def test_doctests() -> None:
    assert doctest.testmod(F).failed == 0
    assert doctest.testmod(C).failed == 0


# --------------------------------------------------------------------------------------
# Hand-made inputs


def summary(reads: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """A flashblox summary.json with each tenant's read (mean_us, p99_us)."""
    return {"schemes": {"flashblox": {"tenants": {t: {"read": {"mean_us": m, "p99_us": p}} for t, (m, p) in reads.items()}}}}


def test_latency_claims_from_hand_made_summaries() -> None:
    # Tenant a: software p99 4x hardware's, mean 2x; tenant b: p99 1x, mean 1x.
    hw = summary({"a": (100.0, 1000.0), "b": (200.0, 2000.0)})
    sw = summary({"a": (200.0, 4000.0), "b": (200.0, 2000.0)})
    claims = {c.id: c for c in F.latency_claims(F.latency_rows(hw, sw))}
    p99 = claims["p99_hardware_vs_software"]
    assert p99.paper_value == pytest.approx(1 / 2.6 - 1)
    assert p99.ftlab_value == pytest.approx(1 / 2.0 - 1)  # geometric mean of 4 and 1 = 2
    assert p99.verdict == C.REPRODUCED  # −50% / −61.5% = 0.81
    best = claims["p99_hardware_vs_software_max"]
    assert best.ftlab_value == pytest.approx(1 / 4 - 1) and "(a)" in best.text
    mean = claims["mean_hardware_vs_software"]
    assert mean.ftlab_value == pytest.approx(1 / math.sqrt(2) - 1)  # −29.3% vs −28.6%
    assert mean.verdict == C.REPRODUCED


def test_latency_claims_turn_when_software_is_faster() -> None:
    hw = summary({"a": (200.0, 4000.0)})
    sw = summary({"a": (100.0, 1000.0)})
    for claim in F.latency_claims(F.latency_rows(hw, sw)):
        assert claim.verdict == C.DIFFERS and claim.ftlab_value > 0, claim.id


def test_missing_latency_makes_claims_differ() -> None:
    rows = F.latency_rows(summary({"a": (100.0, 1000.0)}), {"schemes": {}})
    assert all(c.verdict == C.DIFFERS and c.why for c in F.latency_claims(rows))


def hand_model(imb: float, imb_no: float, life: float, life_no: float, swap_s: float | None, interval: float | None) -> dict[str, Any]:
    ideal = 1000.0
    return {
        "scale": 10.0,
        "ideal_s": ideal,
        "swap_time_s": swap_s,
        "interval_min_s": 5.0,
        "n_channels": 16,
        "swap_rounds": 10,
        "n_swaps_detailed": 1.0,
        "with_swaps": {"imbalance": imb, "first_wear_out_s": life * ideal, "mean_interval_s": interval, "swap_times_s": [1.0, 2.0]},
        "without_swaps": {"imbalance": imb_no, "first_wear_out_s": life_no * ideal, "mean_interval_s": None, "swap_times_s": []},
    }


def test_lifetime_claims_from_a_hand_made_model() -> None:
    # Imbalance 1.1 with swaps, 3 without; 0.95 of ideal; a swap of 9 s every 2,052 s at
    # scale 10: 1.5 min every 0.2375 days, 0.4386% of the time.
    claims = {c.id: c for c in F.lifetime_claims(hand_model(1.1, 3.0, 0.95, 0.3, 9.0, 2052.0))}
    assert claims["wear_imbalance_with_swaps"].ftlab_value == pytest.approx(0.1)
    assert claims["wear_imbalance_with_swaps"].verdict == C.REPRODUCED
    assert claims["wear_imbalance_without_swaps_higher"].ftlab_value == pytest.approx(3.0 / 1.1 - 1)
    assert claims["wear_imbalance_without_swaps_higher"].verdict == C.REPRODUCED
    assert claims["lifetime_vs_ideal"].ftlab_value == pytest.approx(0.95)
    assert claims["lifetime_vs_ideal"].verdict == C.REPRODUCED
    assert claims["swap_minutes"].ftlab_value == pytest.approx(1.5)
    assert claims["swap_minutes"].verdict == C.SAME_DIRECTION  # 1.5 / 15 = 0.1
    assert claims["swap_interval_days"].ftlab_value == pytest.approx(0.2375)
    assert claims["swap_time_fraction"].ftlab_value == pytest.approx(9.0 / 2052.0)
    for c in claims.values():
        assert c.why, c.id


def test_lifetime_claims_fail_without_swaps() -> None:
    # No swap measured, none in the model, no balancing: the swap claims differ.
    claims = {c.id: c for c in F.lifetime_claims(hand_model(2.0, 2.0, 0.4, 0.4, None, None))}
    assert claims["wear_imbalance_without_swaps_higher"].verdict == C.DIFFERS
    for id in ("swap_minutes", "swap_interval_days", "swap_time_fraction"):  # noqa: A001
        assert claims[id].verdict == C.DIFFERS, id


def test_value_claims_use_the_ratio_rule() -> None:
    assert C.verdict(15.0, 12.0, C.VALUE) == C.REPRODUCED
    assert C.verdict(15.0, 25.6, C.VALUE) == C.SAME_DIRECTION
    assert C.verdict(15.0, -1.0, C.VALUE) == C.DIFFERS
    assert C.make_claim("x", "x", 15.0, 30.0, C.VALUE, "").ratio == pytest.approx(2.0)
    with pytest.raises(ftlab.UsageError, match="paper_value"):
        C.verdict(0.0, 1.0, C.VALUE)


# --------------------------------------------------------------------------------------
# Helpers and scenarios


def test_swap_rounds_is_the_slides_bound_rounded_up() -> None:
    # (16 − 1 − 0.1) / 1.6 = 9.3125 -> 10; N = 4: 2.9 / 0.4 = 7.25 -> 8.
    assert F.swap_rounds(16) == 10 and F.swap_rounds(4) == 8


def test_software_overrides_follow_the_rates() -> None:
    text = (ROOT / "scenarios" / F.QUICK_SCENARIO).read_text()
    (override,) = F.software_overrides(text, 2.0)
    parts = [t["synthetic"] if isinstance(t["synthetic"], list) else [t["synthetic"]] for t in tomllib.loads(text)["tenants"]]
    rates = [sum(float(p["rate_iops"]) for p in ps) for ps in parts]
    parsed = tomllib.loads(override.replace("scheme.flashblox.tenants=", "x = "))["x"]
    assert [v["kind"] for v in parsed] == ["software"] * len(rates)
    assert [v["iops_max"] for v in parsed] == pytest.approx([2.0 * r for r in rates])
    # By default no token bucket: the fair-share scheduler isolates them.
    (default,) = F.software_overrides(text)
    assert F.SOFTWARE_IOPS_FACTOR == 0.0 and "iops_max" not in default and default.count('kind = "software"') == len(rates)


@pytest.mark.parametrize("scenario", [F.QUICK_SCENARIO, F.SCENARIO])
def test_scenarios_use_the_flashblox_device_and_channel_vssds(scenario: str) -> None:
    doc = tomllib.loads((ROOT / "scenarios" / scenario).read_text())
    assert doc["device"]["preset"] == "flashblox" and set(doc["device"]) <= {"preset", "blocks_per_plane", "pages_per_block"}
    # The software run's vSSDs are isolated by the fair-share scheduler (flashblox requires it).
    assert doc["ftl"]["scheduler"] == "fair"
    vssds = doc["scheme"]["flashblox"]["tenants"]
    assert len(vssds) == len(doc["tenants"]) and all(v["kind"] == "channel" for v in vssds)
    assert sum(v["channels"] for v in vssds) == 16
    ycsb = {t["name"]: t["synthetic"] for t in doc["tenants"] if t["name"].startswith("ycsb")}
    # Cooper et al., SoCC 2010: A 50/50, B 95/5, C 100/0, F 50% reads + 50% read-modify-writes.
    assert ycsb["ycsb-a"]["read_ratio"] == 0.5 and ycsb["ycsb-b"]["read_ratio"] == 0.95 and ycsb["ycsb-c"]["read_ratio"] == 1.0
    assert ycsb["ycsb-f"]["read_ratio"] == pytest.approx(2 / 3)
    assert all(w["pattern"] == "zipf" and w["zipf_theta"] == 0.99 for v in ycsb.values() for w in (v if isinstance(v, list) else [v]))
    # The talk's named workloads, one tenant each (WORKLOADS), in the allocation's order.
    assert [t["name"] for t in doc["tenants"]] == list(F.WORKLOADS)
    # D: 95% reads / 5% inserts (appended); E: 95% scans of 1-100 records of 1,000 bytes
    # (uniform; 4-100 KiB reads) / 5% inserts, both zipfian (YCSB's workloadd and workloade).
    assert ycsb["ycsb-d"]["read_ratio"] == 0.95 and ycsb["ycsb-d"]["write_sequential_fraction"] == 1.0
    scans, inserts = ycsb["ycsb-e"]
    assert scans["rate_iops"] / (scans["rate_iops"] + inserts["rate_iops"]) == pytest.approx(0.95)
    assert scans["read_ratio"] == 1.0 and inserts["read_ratio"] == 0.0
    assert [s["bytes"] for s in scans["sizes"]] == [4096 * math.ceil(n * 1000 / 4096) for n in range(4, 101, 4)]
    assert len({s.get("weight", 1.0) for s in scans["sizes"]}) == 1
    # Namespaces follow the channels a vSSD holds.
    assert [t["namespace_fraction"] for t in doc["tenants"]] == pytest.approx([v["channels"] / 16 for v in vssds])


def test_sensitivity_cases_scale_every_synthetic_part() -> None:
    text = (ROOT / "scenarios" / F.QUICK_SCENARIO).read_text()
    cases = dict(F.sensitivity_cases(text))
    assert "tenants.ycsb-e.synthetic.1.rate_iops=11.25" in cases["load x1.5"]
    assert "tenants.ycsb-a.synthetic.rate_iops=1500" in cases["load x0.5"]
    assert {"azure-storage read_ratio=0.2", "azure-storage read_ratio=0.8", "ycsb-d pattern=uniform"} <= set(cases)
    # The software vSSDs' rates follow a part's scaled rate.
    (override,) = F.software_overrides(F._with_overrides(text, cases["load x1.5"]), 2.0)
    assert "iops_max = 450.0" in override  # ycsb-e: 2 x 1.5 x (142.5 + 7.5)


def test_flashblox_preset_is_the_talks_geometry() -> None:
    text = ftlab.run({"device": {"preset": "flashblox", "blocks_per_plane": 8, "pages_per_block": 16}, "measure": {"duration_s": 0.001},
                      "tenants": [{"name": "a", "namespace_fraction": 1.0, "synthetic": {"rate_iops": 10.0}}]}).resolved_toml
    device = tomllib.loads(text)["device"]
    assert (device["channels"], device["chips_per_channel"], device["planes_per_die"], device["page_bytes"]) == (16, 4, 4, 16384)


# --------------------------------------------------------------------------------------
# The quick reproduction


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> ftlab.ReproductionResult:
    return ftlab.reproduce("flashblox", quick=True, out=tmp_path_factory.mktemp("flashblox-quick"))


def test_quick_writes_every_file(quick: ftlab.ReproductionResult) -> None:
    for name in ("claims.json", "fig1-latency.png", "latency.csv", "fig2-wear.png", "lifetime.csv", "fig3-swap.png", "swap-timeline.csv"):
        assert (quick.out / name).stat().st_size > 0, name
    for run in F.RUNS:
        assert (quick.out / "run" / run / "summary.json").is_file(), run
    doc = json.loads((quick.out / "claims.json").read_text())
    for key in ("reproduction", "paper", "scenario", "quick", "ftlab_version", "lifetime_model", "health", "verdict_rule", "verdicts", "claims"):
        assert key in doc, key
    assert len(doc["lifetime_model"]["interval_sweep"]) == len(F.INTERVAL_DIVISORS)


def test_quick_every_claim_has_a_verdict_and_a_reason(quick: ftlab.ReproductionResult) -> None:
    doc = json.loads((quick.out / "claims.json").read_text())
    ids = [c["id"] for c in doc["claims"]]
    assert len(ids) == 9 and len(set(ids)) == 9
    for c in doc["claims"]:
        assert c["verdict"] in C.VERDICTS and len(c["why"]) > 20, c["id"]


def test_quick_health(quick: ftlab.ReproductionResult) -> None:
    """The hardware and software runs are healthy. The swap run is not (issue 21's rule: a
    backlog beyond 4 queue depths at any time): a tenant's requests pile up while its channel
    migrates, then drain. No tenant of any run is starved (no wait beyond 1 s)."""
    for run, checks in quick.health["schemes"].items():
        assert not [t for t, v in checks["tenants"].items() if v["starved"] is not False], run
        if run != "swap":
            assert checks["ok"] and checks["tenants_ok"], (run, checks["reasons"])
    swap = quick.health["schemes"]["swap"]
    assert not swap["ok"] and swap["reasons"] and all(" unstable: " in r for r in swap["reasons"]), swap["reasons"]


def test_quick_directions(quick: ftlab.ReproductionResult) -> None:
    """The directions the quick form measured (docs/reproductions.md): hardware isolation lowers
    p99 and mean read latency; swaps lower the wear imbalance and lengthen the lifetime; a swap
    completes in the detailed run."""
    c = {claim.id: claim for claim in quick.claims}
    assert c["p99_hardware_vs_software"].verdict == C.REPRODUCED
    assert c["p99_hardware_vs_software_max"].ftlab_value < c["p99_hardware_vs_software"].ftlab_value < 0
    assert c["mean_hardware_vs_software"].ftlab_value < 0
    assert c["wear_imbalance_without_swaps_higher"].verdict == C.REPRODUCED
    model = quick.extra["model"]
    assert model["with_swaps"]["first_wear_out_s"] > model["without_swaps"]["first_wear_out_s"]
    assert model["n_swaps_detailed"] >= 1 and model["swap_time_s"] > 0
    assert 0 < c["swap_time_fraction"].ftlab_value < 1


def test_quick_is_deterministic(quick: ftlab.ReproductionResult, tmp_path: Path) -> None:
    again = ftlab.reproduce("flashblox", quick=True, out=tmp_path)
    for run in F.RUNS:
        a = (quick.out / "run" / run / "summary.json").read_bytes()
        assert a == (again.out / "run" / run / "summary.json").read_bytes(), run
    assert [c.to_dict() for c in quick.claims] == [c.to_dict() for c in again.claims]
