"""Tests of `ftlab reproduce fdp-cachelib` (python/ftlab/reproduce/fdp_cachelib.py): the claims
computed from hand-made metrics (expected numbers from arithmetic written here and from the
paper's text, arXiv 2503.11665 §6), the sensitivity overrides, the scenarios' parameters
against the paper (§6.1, §6.2, App. A), and, in one module-scoped run of
`ftlab.reproduce("fdp-cachelib", quick=True)` (3 seeds), that every claim's verdict is the
committed one (tests/data/verdicts-quick.json; none exempt), every run is healthy and warmed to
steady state, the FDP counters are there, every file is written, and a run is deterministic.
It needs scenarios/reproduce/fdp-cachelib*.toml.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import polars as pl
import pytest

import ftlab
from ftlab.report import Report
from ftlab.reproduce import REPRODUCTIONS, claimfile, driver, verdicts
from ftlab.reproduce import claims as C
from ftlab.reproduce import fdp_cachelib as F
from ftlab.reproduce.per_run import PerRun
from ftlab.results import Summary
from reports import Parsed

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------------------
# (a) claims from hand-made metrics


def metrics(
    dlwa: dict[str, float],
    events: tuple[float, float] = (100.0, 360.0),
    p99: tuple[float, float] = (300.0, 3000.0),
) -> dict[str, F.RunMetrics]:
    """Every run with the DLWA given; Media Reallocated events of u100/fdp and u100/fdp-one-ruh
    per 2^30 host bytes as given; p99 write latency (µs) of u100/fdp and u100/nonfdp as given."""
    out: dict[str, F.RunMetrics] = {}
    for run in F.RUNS:
        ev = {"u100/fdp": events[0], "u100/fdp-one-ruh": events[1]}.get(run.label)
        out[run.label] = F.RunMetrics(
            dlwa=dlwa.get(run.label),
            host_bytes=2**30,
            write_p99_us={"u100/fdp": p99[0], "u100/nonfdp": p99[1]}.get(run.label),
            erases=None,
            gc_pages_copied=None,
            blocks_multi_tenant=None,
            hbmw=2.0**30 if run.mapper != "nonfdp" else None,
            mbmw=None,
            media_reallocated=ev if run.mapper != "nonfdp" else None,
            warm_converged=True,
            warm_windows=2,
        )
    return out


#: The paper's numbers: u50 1.03 / 1.3 (§6.2), u100 1.03 / 3.5 (§6.3; 80%, between 50% and
#: 90%, "similar to 50%"),
#: SOC 64% 2.5 / above 3, SOC 90% and 96% no benefit (FDP at or above Non-FDP, §6.5), two
#: tenants ~1 / ~3.5 (§6.7).
PAPER = {
    "u50/fdp": 1.03,
    "u50/nonfdp": 1.3,
    "u80/fdp": 1.03,
    "u80/nonfdp": 1.3,
    "u100/fdp": 1.03,
    "u100/nonfdp": 3.5,
    "u100/fdp-one-ruh": 3.5,
    "soc64/fdp": 2.5,
    "soc64/nonfdp": 3.2,
    "soc90/fdp": 3.4,
    "soc90/nonfdp": 3.3,
    "soc96/fdp": 3.5,
    "soc96/nonfdp": 3.3,
    "mt/fdp": 1.0,
    "mt/nonfdp": 3.5,
}
#: The claims ftlab cannot measure (no reads, no DRAM cache, no traces, the paper's own model).
NOT_MEASURED = (
    "twitter_dlwa_fdp",
    "u100_p99_read_fdp_vs_nonfdp",
    "wo_u100_p99_read_fdp_vs_nonfdp",
    "u100_throughput_fdp_vs_nonfdp",
    "u100_hit_ratio_fdp_vs_nonfdp",
    "dram_4gb_throughput_and_carbon",
    "model_error_high_soc",
)


def healthy() -> C.Health:
    return {"ok": True, "schemes": {r.label: {"ok": True} for r in F.RUNS}}


def claims_of(m: F.Metrics) -> dict[str, C.Claim]:
    return {c.id: c for c in F.FdpCachelib().claims_on(m, healthy())}


def test_the_papers_own_numbers_reproduce_every_measured_claim() -> None:
    claims = claims_of(metrics(PAPER, events=(100.0, 360.0)))
    expected = {
        "u50_dlwa_fdp": (1.03, C.REPRODUCED),
        "u50_dlwa_nonfdp": (1.3, C.REPRODUCED),
        "u50_fdp_vs_nonfdp": (1.03 / 1.3, C.REPRODUCED),
        "u100_dlwa_fdp": (1.03, C.REPRODUCED),
        "u100_dlwa_nonfdp": (3.5, C.REPRODUCED),
        "u100_gc_events_fdp_vs_one_ruh": (100 / 360, C.REPRODUCED),  # "~3.6x fewer"
        "soc64_dlwa_fdp": (2.5, C.REPRODUCED),
        "soc64_dlwa_nonfdp": (3.2, C.HOLDS),  # "above 3"
        "soc64_fdp_vs_nonfdp": (3.2 / 2.5 - 1, C.HOLDS),
        "u80_dlwa_nonfdp": (1.3, C.REPRODUCED),  # "similar to 50%"
        "u80_dlwa_fdp": (1.03, C.REPRODUCED),
        "u100_p99_write_fdp_vs_nonfdp": (0.1, C.REPRODUCED),  # "10X"
        "wo_u100_p99_write_fdp_vs_nonfdp": (0.1, C.REPRODUCED),  # "9.5x"
        "soc90_no_benefit": (3.4 / 3.3 - 1, C.HOLDS),
        "soc96_no_benefit": (3.5 / 3.3 - 1, C.HOLDS),
        "u100_co2e_fdp_vs_nonfdp": (1.03 / 3.5, C.REPRODUCED),  # Table 2: 409.6 / 1143.6
        "wo_u100_fdp_vs_nonfdp": (1.03 / 3.5, C.REPRODUCED),  # "3.5x gains in DLWA"
        "multi_tenant_dlwa_fdp": (1.0, C.REPRODUCED),
        "multi_tenant_nonfdp": (3.5, C.REPRODUCED),
        "multi_tenant_fdp_vs_nonfdp": (1.0 / 3.5, C.REPRODUCED),
    }
    for cid, (value, verdict) in expected.items():
        assert claims[cid].ftlab_value == pytest.approx(value), cid
        assert claims[cid].verdict == verdict, (cid, claims[cid].why)
    for cid in NOT_MEASURED:
        assert claims[cid].verdict == C.NOT_MEASURED and claims[cid].reason, cid
    assert set(claims) == set(expected) | set(NOT_MEASURED)


def test_claims_turn_with_the_numbers() -> None:
    """No segregation benefit (FDP as high as Non-FDP) and Non-FDP below 3 at SOC 64%: the
    claims fail. DLWA is compared above its floor 1 (DESIGN §12): 0.03 x 1.5 = 0.045 is the edge
    of a value claim on 1.03, so 1.0 (no amplification at all) does not reproduce it."""
    flat = {label: 2.0 for label in PAPER}
    claims = claims_of(metrics(flat, events=(360.0, 360.0)))
    assert claims["u50_fdp_vs_nonfdp"].verdict == C.DIFFERS  # factor 1: not on the paper's side
    assert claims["u50_dlwa_fdp"].verdict == C.DIFFERS  # 2.0 > 1.545
    assert claims["soc64_dlwa_nonfdp"].verdict == C.VIOLATED
    assert claims["soc64_fdp_vs_nonfdp"].verdict == C.VIOLATED  # margin 0
    assert claims["u100_gc_events_fdp_vs_one_ruh"].verdict == C.DIFFERS
    # segregation helping at SOC 90% and 96% (FDP below Non-FDP) violates "no benefit"
    helps = claims_of(metrics({**PAPER, "soc90/fdp": 2.0, "soc96/fdp": 2.0}))
    assert helps["soc90_no_benefit"].verdict == C.VIOLATED
    assert helps["soc96_no_benefit"].verdict == C.VIOLATED
    # p99 write latency no better with FDP: not on the paper's side
    same = claims_of(metrics(PAPER, p99=(3000.0, 3000.0)))
    assert same["u100_p99_write_fdp_vs_nonfdp"].verdict == C.DIFFERS
    mixed = claims_of(metrics({**PAPER, "mt/nonfdp": 1.0}))
    assert mixed["multi_tenant_nonfdp"].verdict == C.DIFFERS  # no amplification: not ~3.5
    edge = claims_of(metrics({**PAPER, "u50/fdp": 1 + 0.03 * 1.5 * 1.001}))
    assert edge["u50_dlwa_fdp"].verdict == C.DIFFERS
    inside = claims_of(metrics({**PAPER, "u50/fdp": 1 + 0.03 * 1.5 * 0.999}))
    assert inside["u50_dlwa_fdp"].verdict == C.REPRODUCED
    floor = claims_of(metrics({**PAPER, "u50/nonfdp": 1.0}))
    assert floor["u50_dlwa_nonfdp"].verdict == C.DIFFERS  # the old rule: reproduced


def test_missing_runs_and_counters_say_so() -> None:
    m = metrics(PAPER)
    del m["soc64/fdp"]
    m["u100/fdp-one-ruh"]["media_reallocated"] = None
    claims = claims_of(m)
    # DESIGN §12: a value ftlab cannot compute is not measured, never differs (the old rule)
    missing = claims["soc64_dlwa_fdp"]
    assert missing.verdict == C.NOT_MEASURED and missing.ftlab_value is None and "no number" in missing.reason
    events = claims["u100_gc_events_fdp_vs_one_ruh"]
    assert events.verdict == C.NOT_MEASURED and "events_media_reallocated" in events.reason


def test_an_unknown_computation_is_a_usage_error() -> None:
    for bad in (
        "dlwa:u50",
        "dlwa:u50:fdp",
        "ratio:u50/fdp/u100",
        "waf:u50/fdp",
        "margin:a/b",
        "margin:waf:u50:fdp/nonfdp",
        "p99w:u50/fdp",
        "events:u100/fdp",
    ):
        with pytest.raises(ftlab.UsageError, match="CacheLib FDP computation"):
            F.FdpCachelib().measured(PerRun({}, metrics(PAPER), {}, Path()), [bad])


def test_run_metrics_reads_the_summary() -> None:
    summary = {
        "schemes": {
            "unified": {
                "device": {"waf": 1.25, "erases": 7, "gc_pages_copied": 3, "blocks_multi_tenant": 2},
                "tenants": {
                    "kv0": {"write": {"bytes": 4096, "p99_us": 250.0}},
                    "kv1": {"write": {"bytes": 8192, "p99_us": 900.0}},
                },
                "mapper_counters": {"hbmw": 8192.0, "mbmw": 9000.0, "events_media_reallocated": 3.0},
                "precondition": {"warm_converged": True, "warm_waf_windows": [1.2, 1.21]},
            }
        }
    }
    rows = driver.load_plan(F.NAME).rows
    m = rows.read("u50/fdp", cast(Summary, summary))
    assert (m["dlwa"], m["hbmw"], m["media_reallocated"], m["warm_converged"], m["warm_windows"]) == (
        1.25,
        8192.0,
        3.0,
        True,
        2,
    )
    # host bytes summed over the tenants, the highest p99
    assert (m["host_bytes"], m["write_p99_us"]) == (4096 + 8192, 900.0)
    assert (m["erases"], m["gc_pages_copied"], m["blocks_multi_tenant"]) == (7, 3, 2)
    empty = rows.read("u50/fdp", cast(Summary, {"schemes": {}}))
    assert empty["dlwa"] is None and empty["host_bytes"] is None and empty["write_p99_us"] is None
    assert empty["warm_windows"] == 0
    two = {"schemes": {"a": summary["schemes"]["unified"], "b": summary["schemes"]["unified"]}}
    with pytest.raises(ftlab.UsageError, match="one scheme"):
        rows.read("u50/fdp", cast(Summary, two))


def test_declared_health_needs_a_converged_warm_up() -> None:
    """papers/fdp_cachelib.toml's check: a warm-up that did not converge fails the run and
    says why, with the cap and the windows from summary.json."""
    tenant = {"unstable": False, "starved": False, "write": {"bytes": 1}}
    warm = {"warm_converged": False, "warm_cap_hit": True, "warm_waf_windows": [1.2, 1.5]}
    scheme = {"tenants": {"kv0": tenant}, "device": {"die_utilisation_max": 0.9}, "precondition": warm}
    report = cast(Report, SimpleNamespace(summary={"schemes": {"unified": scheme}}))
    h = driver.load_plan(F.NAME).health.run("u50/fdp", report)
    assert h["checks"] == {"warm-up converged": ("False", False)} and h["ok"] is False
    assert h["reasons"] == ["the warm-up did not converge (cap hit True, windows [1.2, 1.5])"]
    warm["warm_converged"] = True
    assert driver.load_plan(F.NAME).health.run("u50/fdp", report)["ok"] is True


def test_the_row_type_is_the_declared_row() -> None:
    names = [m.name for m in driver.load_plan(F.NAME).rows.metrics]
    assert names == list(F.RunMetrics.__annotations__)


def test_metrics_csv_has_the_papers_dlwa_where_it_prints_one() -> None:
    """§6.2: 1.3 without segregation at 50%, 1.03 with; §6.5 prints no Non-FDP value at SOC 64%."""
    plan = driver.load_plan(F.NAME)
    csv = plan.rows.csv_rows([r.label for r in plan.runs], metrics(PAPER))
    by = {(r["case"], r["mapper"]): r for r in csv}
    assert (by[("u50", "nonfdp")]["paper_dlwa"], by[("u50", "fdp")]["paper_dlwa"]) == (1.3, 1.03)
    assert by[("soc64", "nonfdp")]["paper_dlwa"] is None
    assert list(by[("u50", "fdp")])[:3] == ["case", "mapper", "dlwa"]


def test_sensitivity_keeps_the_host_bytes() -> None:
    """SOC share s of 4 MiB/s: s x 1024 IOPS of 4 KiB and (1 - s) x 16 IOPS of 256 KiB (the
    declared `split` of the resolved scenario of each scenario's first run); the
    over-provisioning cases are declared too (`[[reproduce.cases]]`), every case sets both
    scenarios."""
    paths = {"one_tenant": F.scenario_path(True), "two_tenants": F.scenario_path(True, "two_tenants")}
    plan = driver.load_plan(F.NAME)
    resolved = {k: ftlab._core.resolve(source_path=str(p)) for k, p in paths.items()}
    reports = {
        r.label: cast("Report", SimpleNamespace(resolved_toml=resolved[r.scenario])) for r in plan.runs
    }
    runs = driver.Runs(plan, True, 0, Path("."), paths, reports)
    cases = {c.name: c.set for c in F.FdpCachelib().sensitivity_cases(runs)}
    assert cases["soc_share=0.75"]["one_tenant"] == [
        "tenants.0.synthetic.0.rate_iops=768",
        "tenants.0.synthetic.1.rate_iops=4",
    ]
    assert cases["over_provisioning=0.2"] == {
        "one_tenant": ["device.over_provisioning=0.2"],
        "two_tenants": ["device.over_provisioning=0.2"],
    }
    assert list(cases) == [
        "over_provisioning=0.135",
        "over_provisioning=0.2",
        "soc_share=0.25",
        "soc_share=0.75",
        "soc_share=0.9",
    ]
    # the two-tenant scenario: each tenant's SOC gets the share of its own bytes
    assert cases["soc_share=0.75"]["two_tenants"] == [
        "tenants.0.synthetic.0.rate_iops=384",
        "tenants.0.synthetic.1.rate_iops=2",
        "tenants.1.synthetic.0.rate_iops=384",
        "tenants.1.synthetic.1.rate_iops=2",
    ]


def test_the_two_tenant_runs_run_the_two_tenant_scenario() -> None:
    """§6.7's case `mt` runs the two-tenant sibling of the scenario, unchanged but for the
    mapper; every other case runs the one-tenant scenario (`[reproduce]` of the claim file)."""
    assert F.scenario_path(True, "two_tenants").name == "fdp-cachelib-two-tenants-quick.toml"
    assert F.scenario_path(False, "two_tenants").name == "fdp-cachelib-two-tenants.toml"
    assert F.scenario_path(False).name == "fdp-cachelib.toml"
    for r in F.RUNS:
        assert (r.scenario == "two_tenants") == (r.case == "mt"), r.label
        if r.case == "mt":
            assert all(s.startswith("stream") for s in r.overrides), r.overrides


def resolved(quick: bool) -> Parsed:
    from ftlab import _core

    return tomllib.loads(_core.resolve(F.scenario_path(quick)))


@pytest.mark.parametrize("quick", [False, True])
def test_the_workload_is_the_papers(quick: bool) -> None:
    """App. A.1: SOC uniform 4 KiB bucket writes, LOC a sequential FIFO log; §6.2: SOC 4% of the
    cache; the authors' config: 256 KiB device writes; §6.1: 1 RG, 8 initially isolated RUHs;
    App. A.2 greedy GC; the SOC's share of host bytes 0.5 (swept)."""
    s = resolved(quick)
    soc, loc = s["tenants"][0]["synthetic"]
    assert (soc["pattern"], soc["sizes"][0]["bytes"], soc["footprint_fraction"], soc["stream"]) == (
        "uniform",
        4096,
        0.04,
        0,
    )
    assert (loc["pattern"], loc["sizes"][0]["bytes"], loc["stream"]) == ("sequential", 262144, 1)
    assert loc["footprint_offset_fraction"] == 0.04 and loc["footprint_fraction"] == 0.96
    soc_bytes = soc["rate_iops"] * 4096
    assert soc_bytes / (soc_bytes + loc["rate_iops"] * 262144) == 0.5
    fdp = s["device"]["fdp"]
    assert fdp["reclaim_groups"] == 1 and fdp["handles"] == ["initially-isolated"] * 8
    assert s["ftl"]["gc_policy"] == "greedy" and s["ftl"]["background_gc"] is False
    assert s["device"]["over_provisioning"] == 0.07
    assert s["precondition"]["mode"] == "workload"


def _kept(part: Parsed) -> Parsed:
    """A synthetic part (a table of the resolved TOML) without its rate and footprint."""
    skip = {"rate_iops", "footprint_fraction", "footprint_offset_fraction"}
    return {k: v for k, v in part.items() if k not in skip}


@pytest.mark.parametrize("quick", [False, True])
def test_the_two_tenant_scenario_is_the_papers(quick: bool) -> None:
    """§6.7: two tenants, each on half the device ("two equal parts"), SOC 4% and LOC 96% of
    each, their SOC and LOC on handles of their own; everything else is the one-tenant
    scenario's, and the two together write what the one tenant writes."""
    one = resolved(quick)
    from ftlab import _core

    two = tomllib.loads(_core.resolve(F.scenario_path(quick, "two_tenants")))
    assert [t["namespace_fraction"] for t in two["tenants"]] == [0.5, 0.5]
    for t in two["tenants"]:
        soc, loc = t["synthetic"]
        assert (soc["footprint_fraction"], loc["footprint_offset_fraction"], loc["footprint_fraction"]) == (
            0.04,
            0.04,
            0.96,
        )
        for a, b in zip(t["synthetic"], one["tenants"][0]["synthetic"], strict=True):
            assert a["rate_iops"] * 2 == b["rate_iops"]
            assert _kept(a) == _kept(b)
    assert two["stream"]["fdp"]["namespaces"] == [{"handles": [0, 1]}, {"handles": [2, 3]}]
    for key in ("device", "ftl", "precondition", "measure", "seed", "schemes"):
        assert two[key] == one[key], key


def test_quick_is_the_full_one_reduced() -> None:
    full, quick = resolved(False), resolved(True)

    def dies(d: Parsed) -> int:
        n: int = d["channels"] * d["chips_per_channel"] * d["dies_per_chip"]
        return n

    def blocks(d: Parsed) -> int:
        n: int = dies(d) * d["blocks_per_plane"] * d["planes_per_die"]
        return n

    assert blocks(full["device"]) == 4 * blocks(quick["device"])

    # the same host rate per die: half the rate on half the dies
    def rate(s: Parsed) -> float:
        total: float = sum(p["rate_iops"] * p["sizes"][0]["bytes"] for p in s["tenants"][0]["synthetic"])
        return total

    assert rate(full) / dies(full["device"]) == rate(quick) / dies(quick["device"])
    for key in ("device", "ftl", "precondition"):
        a, b = dict(full[key]), dict(quick[key])
        for k in ("channels", "chips_per_channel", "blocks_per_plane", "timing", "fdp", "warm"):
            a.pop(k, None), b.pop(k, None)
        assert a == b, key
    assert full["stream"] == quick["stream"]


def test_runs_are_the_papers_cases() -> None:
    labels = [r.label for r in F.RUNS]
    assert labels == [
        "u50/fdp",
        "u50/nonfdp",
        "u80/fdp",
        "u80/nonfdp",
        "u100/fdp",
        "u100/nonfdp",
        "u100/fdp-one-ruh",
        "soc64/fdp",
        "soc64/nonfdp",
        "soc90/fdp",
        "soc90/nonfdp",
        "soc96/fdp",
        "soc96/nonfdp",
        "mt/fdp",
        "mt/nonfdp",
    ]
    # §6.5's SOC sizes: the SOC and the LOC split the whole device
    for run in F.RUNS:
        if not run.case.startswith("soc"):
            continue
        fraction = int(run.case.removeprefix("soc")) / 100
        sets = dict(s.split("=") for s in run.overrides)
        assert sets["tenants.0.namespace_fraction"] == "1.0"
        assert float(sets["tenants.0.synthetic.0.footprint_fraction"]) == fraction
        assert float(sets["tenants.0.synthetic.1.footprint_offset_fraction"]) == fraction
        assert float(sets["tenants.0.synthetic.1.footprint_fraction"]) == pytest.approx(1 - fraction)
    assert "fdp-cachelib" in REPRODUCTIONS and "fdp-cachelib" in verdicts.NAMES
    used = {r for s in claimfile.load("fdp-cachelib").claims for r in s.runs}
    assert used <= set(labels)


# --------------------------------------------------------------------------------------
# (c) the quick reproduction, run once


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> C.ReproductionResult:
    return ftlab.reproduce("fdp-cachelib", quick=True, out=tmp_path_factory.mktemp("reproduce") / "fdp-quick")


def test_quick_verdicts_are_the_committed_ones(quick: C.ReproductionResult) -> None:
    found = verdicts.check("fdp-cachelib", quick.claims, ROOT / verdicts.VERDICTS_FILE)
    assert not found, "\n".join(found)


def test_quick_runs_are_healthy_and_warm(quick: C.ReproductionResult) -> None:
    schemes = quick.health["schemes"]
    assert set(schemes) == {f"{r.label} [seed {k}]" for r in F.RUNS for k in range(3)}
    for name, h in schemes.items():
        assert h["ok"], (name, h["reasons"])
        assert h["checks"]["warm-up converged"][1], name


def test_quick_fdp_counters(quick: C.ReproductionResult) -> None:
    """The fdp runs report Media Reallocated events (GC moves initially isolated data), more per
    host byte with SOC and LOC on one handle; the legacy runs have no FDP counters."""
    m = quick.extra["per_seed"][0].extra["metrics"]
    assert m["u100/fdp"]["media_reallocated"] > 0

    def per(r: str) -> float:
        events_per_byte: float = m[r]["media_reallocated"] / m[r]["hbmw"]
        return events_per_byte

    assert per("u100/fdp-one-ruh") > per("u100/fdp")
    assert m["u100/nonfdp"]["media_reallocated"] is None
    # two tenants without FDP share the host write point: their data mix in erased blocks
    assert m["mt/nonfdp"]["blocks_multi_tenant"] > 0 and m["u100/nonfdp"]["blocks_multi_tenant"] == 0


def test_quick_files_are_written(quick: C.ReproductionResult) -> None:
    data = (quick.out / "dlwa.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    rows = pl.read_csv(quick.out / "dlwa.csv")
    assert rows.height == len(F.RUNS)
    assert rows.filter(pl.col("case") == "u100")["paper_dlwa"].to_list() == [1.03, 3.5, None]
    for r in F.RUNS:
        assert (quick.out / "run" / r.case / r.mapper / "summary.json").is_file(), r.label
    doc = json.loads((quick.out / "claims.json").read_text())
    assert [c["id"] for c in doc["claims"]] == [s.id for s in claimfile.load("fdp-cachelib").claims]
    assert doc["quick"] is True and all(c["verdict"] in C.VERDICTS and c["why"] for c in doc["claims"])


def test_quick_runs_are_deterministic(quick: C.ReproductionResult, tmp_path: Path) -> None:
    """The same scenario and seed give a byte-identical summary.json (u100/fdp again)."""
    run = next(r for r in F.RUNS if r.label == "u100/fdp")
    ftlab.run(F.scenario_path(True), out=tmp_path / "again", set=list(run.overrides), jobs=1)
    again = (tmp_path / "again" / "summary.json").read_bytes()
    assert again == (quick.out / "run" / "u100" / "fdp" / "summary.json").read_bytes()
