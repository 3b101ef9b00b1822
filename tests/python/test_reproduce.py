"""Tests of `ftlab reproduce` (python/ftlab/reproduce/): the UPI claims, health checks,
per-phase table and sensitivity cases computed from hand-made summaries, time series and
scenarios (expected numbers from arithmetic written here), the registry and its errors,
`Report.phases_frame`, and, in one module-scoped run of `ftlab.reproduce("upi", quick=True)`
(3 seeds), that every claim's verdict is the committed one (tests/data/verdicts-quick.json), no
tenant is unstable and every file is written. The verdict rule itself is tested in
test_reproduce_verdicts.py. It needs scenarios/reproduce/upi-quick.toml.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import polars as pl
import pytest

import ftlab
from conftest import run_cli
from ftlab.report import Report, scheme_counters
from ftlab.reproduce import claimfile, sweep_study, upi, verdicts
from ftlab.reproduce import claims as C
from ftlab.reproduce.cases import study_cases
from ftlab.reproduce.claimfile import SeedResult, evaluate
from ftlab.reproduce.driver import finished_knob_cases, load_plan
from ftlab.results import Summary

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

NAN = float("nan")
ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------
# (b) claims, health and phases from hand-made summaries

# Read latencies (µs) of the hand-made summary: DAS-AS p99, LM-TBE mean, DAS-AS mean.
P99 = {"partitioned": 500.0, "unified": 1000.0, "upi": 600.0, "upi-guarded": 700.0}
LM_MEAN = {"partitioned": 2000.0, "unified": 1900.0, "upi": 1700.0, "upi-guarded": 2200.0}
DAS_MEAN = {"partitioned": 100.0, "unified": 150.0, "upi": 110.0, "upi-guarded": 90.0}
RISE = 600.0


def tenant(mean_us: float, p99_us: float, unstable: bool = False, outstanding: int = 0) -> dict[str, object]:
    return {
        "read": {"mean_us": mean_us, "p99_us": p99_us},
        "unstable": unstable,
        "starved": False,
        "outstanding_at_end": outstanding,
    }


def hand_summary(schemes: tuple[str, ...] = upi.SCHEMES) -> Summary:
    """A partial summary (the keys the claims, health and phase table read), typed as a
    `Summary` by a cast (`upi_claims` takes one)."""
    out: dict[str, object] = {}
    for s in schemes:
        out[s] = {
            "tenants": {
                "das-as": tenant(DAS_MEAN[s], P99[s]),
                "dtrs": tenant(300.0, 900.0),
                "lm-tbe": tenant(LM_MEAN[s], 5000.0),
            },
            "device": {"die_utilisation": [0.2, 0.5, 0.4]},
            "jobs": {"gc_started": 3},
        }
    return cast(Summary, {"schemes": out})


def hand_timeseries() -> pl.DataFrame:
    """LM-TBE's allocation set: upi 4, 4 dies before the rise and 6, 8 after; upi-guarded
    5 throughout; windows outside [rise − 300, rise + 300) hold 100 and must not count."""
    rows = []
    for t, upi_dies, guarded_dies in (
        (200.0, 100.0, 100.0),
        (300.0, 4.0, 5.0),
        (595.0, 4.0, 5.0),
        (600.0, 6.0, 5.0),
        (895.0, 8.0, 5.0),
        (900.0, 100.0, 100.0),
    ):
        rows.append({"scheme": "upi", "tenant": "lm-tbe", "window_start_s": t, "alloc_set_dies": upi_dies})
        rows.append(
            {"scheme": "upi-guarded", "tenant": "lm-tbe", "window_start_s": t, "alloc_set_dies": guarded_dies}
        )
        rows.append({"scheme": "upi", "tenant": "das-as", "window_start_s": t, "alloc_set_dies": 1.0})
        rows.append({"scheme": "partitioned", "tenant": "lm-tbe", "window_start_s": t, "alloc_set_dies": NAN})
    return pl.DataFrame(rows)


def upi_claims(
    summary: Summary, timeseries: pl.DataFrame | None, rise: float, checks: C.Health | None = None
) -> list[C.Claim]:
    """Every claim of papers/upi.toml judged on one hand-made run as the driver judges the real
    one: UPI's code (`value`, `measure`) on a stand-in Report holding `summary` and
    `timeseries`, with the rise; `checks` the health (default: `C.health(summary)`)."""
    report = cast(Report, SimpleNamespace(summary=summary, timeseries=timeseries))
    seen = upi.Seen(report, rise, [])
    health = checks if checks is not None else C.health(summary)
    return evaluate(claimfile.load("upi"), [SeedResult(0, upi.PAPER.code.measurements(seen), health)])


def by_id(claims: list[C.Claim]) -> dict[str, C.Claim]:
    return {c.id: c for c in claims}


def claim_ids() -> list[str]:
    return [s.id for s in claimfile.load("upi").claims]


#: Every scheme healthy: the hand-made tests judge values, not health (test_reproduce_verdicts.py
#: tests the gating).
HEALTHY: C.Health = {"ok": True, "schemes": {s: {"ok": True} for s in upi.SCHEMES}}


def test_upi_claims_from_a_hand_made_summary() -> None:
    claims = by_id(upi_claims(hand_summary(), hand_timeseries(), RISE, HEALTHY))
    assert list(claims) == claim_ids()
    expected = {
        "das_as_p99_upi_vs_unified": (600 / 1000, C.REPRODUCED),  # 0.6 vs the factor 0.615
        "das_as_p99_upi-guarded_vs_unified": (700 / 1000, C.REPRODUCED),  # 0.7 / 0.615 = 1.14
        "das_as_p99_partitioned_vs_unified": (500 / 1000, C.REPRODUCED),
        "lm_tbe_mean_upi_vs_partitioned": (1700 / 2000, C.REPRODUCED),  # 0.85 vs 0.839
        "lm_tbe_mean_upi-guarded_vs_partitioned": (2200 / 2000, C.DIFFERS),  # 1.1: the other side of 1
        "lm_tbe_mean_unified_vs_partitioned": (1900 / 2000, C.REPRODUCED),  # 0.95 / 0.862 = 1.10
        "das_as_mean_upi_vs_partitioned": (110 / 100, C.HOLDS),  # "slightly worse": (1, 1.25]
        "das_as_mean_upi-guarded_vs_partitioned": (90 / 100, C.VIOLATED),  # better
        "lm_tbe_p99_partitioned_above_unified": (5000 / 5000 - 1, C.VIOLATED),  # equal: no margin
        "lm_tbe_set_grows_upi": ((6 + 8) / 2 / 4 - 1, C.HOLDS),
        "lm_tbe_set_grows_upi-guarded": (5 / 5 - 1, C.VIOLATED),  # no growth
    }
    for cid, (value, verdict) in expected.items():
        c = claims[cid]
        assert c.verdict == verdict, (cid, c)
        assert c.ftlab_value == pytest.approx(value), cid
    for cid in ("fig1_lm_tbe_1x2_vs_4x4", "fig1_dap_ps_rad_be_1x2_vs_4x4"):
        assert claims[cid].verdict == C.NOT_MEASURED and claims[cid].reason, cid


def test_claim_reasons_state_their_numbers() -> None:
    claims = by_id(upi_claims(hand_summary(), hand_timeseries(), RISE, HEALTHY))
    why = claims["das_as_p99_upi_vs_unified"].why
    assert "600 µs" in why and "1,000 µs" in why and "0.600x" in why and "\u221240.0%" in why
    why = claims["lm_tbe_set_grows_upi"].why
    assert "4.00 dies" in why and "7.00 dies" in why and "+75.0%" in why


def test_claims_of_a_missing_scheme_or_column_are_not_measured() -> None:
    """DESIGN §12: a claim ftlab cannot compute is `not measured` (the old rule: differs)."""
    summary = hand_summary(("partitioned", "unified", "upi"))
    claims = by_id(upi_claims(summary, hand_timeseries().drop("alloc_set_dies"), RISE, HEALTHY))
    assert list(claims) == claim_ids()
    for cid in ("das_as_p99_upi-guarded_vs_unified", "lm_tbe_mean_upi-guarded_vs_partitioned"):
        assert claims[cid].verdict == C.NOT_MEASURED and claims[cid].ftlab_value is None, cid
    assert claims["lm_tbe_set_grows_upi"].verdict == C.NOT_MEASURED
    assert "missing" in claims["das_as_p99_upi-guarded_vs_unified"].why
    assert claims["das_as_p99_upi_vs_unified"].verdict == C.REPRODUCED


def test_claims_on_an_unhealthy_scheme_are_invalid() -> None:
    """A tenant unstable under `upi` (health's own check, not a hand-made `ok`): every claim
    resting on upi is invalid, the others keep their verdicts."""
    summary = hand_summary()
    summary["schemes"]["upi"]["tenants"]["dtrs"]["unstable"] = True
    claims = by_id(upi_claims(summary, hand_timeseries(), RISE))
    assert claims["das_as_p99_upi_vs_unified"].verdict == C.INVALID
    assert "run upi unhealthy" in claims["das_as_p99_upi_vs_unified"].reason
    assert claims["lm_tbe_set_grows_upi"].verdict == C.INVALID
    others = C.health(summary)["schemes"]
    if others["partitioned"]["ok"] and others["unified"]["ok"]:
        assert claims["das_as_p99_partitioned_vs_unified"].verdict == C.REPRODUCED


def test_rise_is_the_latest_start_of_lm_tbe_parts() -> None:
    toml = (
        '[[tenants]]\nname = "lm-tbe"\n[[tenants.synthetic]]\nrate_iops = '
        "1.0\n[[tenants.synthetic]]\nstart_s = 750.0\n[[tenants.synthetic]]\nstart_s = "
        "20.0\n"
    )
    assert upi.rise_s(toml) == 750.0
    with pytest.raises(ftlab.InputError, match="lm-tbe"):
        upi.rise_s('[[tenants]]\nname = "other"\n')


def phased(summary: Summary) -> Summary:
    """Add two phases to every scheme: before-rise (das-as read mean 10 × the scheme index + 1)
    and after-rise; upi's after-rise busiest die at 0.9. The phases are partial (the keys the
    health and the phase table read), so the schemes are written as plain JSON objects."""
    schemes = cast(dict[str, dict[str, object]], summary["schemes"])
    for i, (name, data) in enumerate(schemes.items()):
        data["phases"] = {
            phase: {
                "start_s": start,
                "end_s": start + 300.0,
                "tenants": {
                    "das-as": {
                        "read": {"count": 7, "mean_us": 10.0 * i + k, "p99_us": 100.0 * i + k},
                        "waf": 2.0,
                    }
                },
                "device": {
                    "waf": 1.5,
                    "die_utilisation": [0.1, 0.9 if (name == "upi" and k == 2) else 0.3],
                    "die_utilisation_max": 0.5,
                },
            }
            for k, (phase, start) in enumerate((("before-rise", 300.0), ("after-rise", 600.0)), start=1)
        }
    return summary


def test_health_flags_unstable_tenants_and_busy_dies() -> None:
    summary = phased(hand_summary())
    summary["schemes"]["unified"]["tenants"]["dtrs"]["unstable"] = True
    summary["schemes"]["unified"]["tenants"]["dtrs"]["outstanding_at_end"] = 99
    h = C.health(summary)
    assert not h["ok"]
    assert h["schemes"]["partitioned"]["ok"] and h["schemes"]["partitioned"]["busiest_die"] == 0.5
    assert h["schemes"]["partitioned"]["busiest_die_by_phase"] == {"before-rise": 0.3, "after-rise": 0.3}
    assert not h["schemes"]["unified"]["ok"] and h["schemes"]["unified"]["busiest_die_ok"]
    assert {k: h["schemes"]["unified"]["tenants"]["dtrs"][k] for k in ("unstable", "outstanding_at_end")} == {
        "unstable": True,
        "outstanding_at_end": 99,
    }
    assert (
        h["schemes"]["upi"]["busiest_die_by_phase"]["after-rise"] == 0.9
        and not h["schemes"]["upi"]["busiest_die_ok"]
    )
    no_phases = C.health(hand_summary())
    assert no_phases["ok"] and no_phases["schemes"]["upi"]["busiest_die_by_phase"] == {}


def test_busiest_die_limit() -> None:
    def util(u: float) -> dict[str, object]:
        return {
            "schemes": {
                "s": {
                    "tenants": {"a": {"unstable": False, "starved": False}},
                    "device": {"die_utilisation": [0.1, u]},
                }
            }
        }

    # DESIGN §12: a busy die is not by itself unhealthy; it is reported, with a reason.
    for u in (0.849, 0.85, 1.0):
        h = C.health(util(u))["schemes"]["s"]
        assert h["ok"] and h["busiest_die_ok"] == (u < 0.85), u
        assert any(r.startswith("busiest die") for r in h["reasons"]) == (u >= 0.85), u
    assert not C.health({"schemes": {"s": {"tenants": {}, "device": {}}}})["schemes"]["s"]["busiest_die_ok"]


def test_phase_table() -> None:
    rows = C.phase_table(phased(hand_summary()), upi.TENANTS)
    assert len(rows) == len(upi.TENANTS) * len(upi.SCHEMES)
    row = next(r for r in rows if r["tenant"] == "das-as" and r["scheme"] == "unified")  # scheme index 1
    assert row["before-rise.read_mean_us"] == 10.0 * 1 + 1 and row["after-rise.read_p99_us"] == 100.0 * 1 + 2
    assert next(r for r in rows if r["tenant"] == "dtrs")["after-rise.read_mean_us"] is None
    assert C.phase_table(hand_summary()) == []


def test_report_phases_frame_and_counters() -> None:
    summary = phased(hand_summary())
    report = Report(json.dumps(summary), "", pl.DataFrame())
    frame = report.phases_frame
    assert frame.height == len(upi.SCHEMES) * 2  # one tenant per phase
    row = frame.filter(scheme="upi-guarded", phase="after-rise").row(0, named=True)  # scheme index 3
    assert row["tenant"] == "das-as" and row["start_s"] == 600.0 and row["end_s"] == 900.0
    assert row["read_mean_us"] == 10.0 * 3 + 2 and row["read_count"] == 7 and row["waf"] == 2.0
    assert row["device_waf"] == 1.5 and "device_die_utilisation" not in frame.columns
    assert scheme_counters(summary["schemes"]["upi"]) == {"jobs": {"gc_started": 3}}
    assert not any(c.startswith("phases") for c in report.counters_frame.columns)
    assert not any("phases" in m for m in report.metrics["metric"].to_list())
    empty = Report(json.dumps(hand_summary()), "", pl.DataFrame()).phases_frame
    assert empty.height == 0 and empty.columns == ["scheme", "phase", "tenant"]


def test_claims_json_round_trip(tmp_path: Path) -> None:
    claims = upi_claims(hand_summary(), hand_timeseries(), RISE, HEALTHY)
    path = C.write_claims_json(
        tmp_path / "claims.json", claims, scenario="x.toml", quick=True, health=C.health(hand_summary())
    )
    doc = json.loads(path.read_text())
    assert doc["quick"] is True and doc["scenario"] == "x.toml" and doc["health"]["ok"]
    assert [c["id"] for c in doc["claims"]] == [c.id for c in claims]
    assert sum(doc["verdicts"].values()) == len(claims)
    assert doc["verdicts"]["differs"] == sum(c.verdict == C.DIFFERS for c in claims)


# --------------------------------------------------------------------------------------
# Sensitivity cases and summary


def upi_cases(resolved_toml: str) -> list[sweep_study.StudyCase]:
    """UPI's sensitivity cases: the knobs of papers/upi.toml on a resolved scenario."""
    return study_cases(load_plan("upi").knobs, resolved_toml)


SCENARIO_TOML = """
schemes = ["partitioned", "upi"]
[device.timing]
erase_us = 5000.0
[[tenants]]
name = "das-as"
[[tenants.synthetic]]
pattern = "zipf"
zipf_theta = 0.8
[[tenants]]
name = "lm-tbe"
[[tenants.synthetic]]
rate_iops = 600.0
[[tenants.synthetic]]
rate_iops = 150.0
start_s = 600.0
end_s = 900.0
[[tenants.synthetic]]
rate_iops = 40.0
"""


def test_sensitivity_cases() -> None:
    cases = {c["name"]: c["set"] for c in upi_cases(SCENARIO_TOML)}
    assert cases["base"] == {}
    erase_us = 5000.0  # SCENARIO_TOML's
    assert [s["device.timing.erase_us"] for n, s in cases.items() if n.startswith("erase_us")] == [
        0.3 * erase_us,
        0.6 * erase_us,
        2 * erase_us,
    ]
    assert cases["das-as zipf_theta=0.6"] == {"tenants.das-as.synthetic.0.zipf_theta": 0.6}
    assert cases["das-as footprint_fraction=0.25"] == {"tenants.das-as.synthetic.0.footprint_fraction": 0.25}
    # The rise is the part with the latest start (index 1 here, not the last one).
    assert cases["lm-tbe rise x0.5"] == {"tenants.lm-tbe.synthetic.1.rate_iops": 150.0 * 0.5}
    assert cases["lm-tbe rise x1.5"] == {"tenants.lm-tbe.synthetic.1.rate_iops": 150.0 * 1.5}
    assert cases["epoch_s=2"] == {"scheme.upi.epoch_s": 2.0}  # upi-guarded does not run here
    assert cases["relocation_weight=4"] == {"scheme.upi.relocation_weight": 4.0}
    both = {c["name"]: c["set"] for c in upi_cases(SCENARIO_TOML.replace('"upi"]', '"upi", "upi-guarded"]'))}
    assert both["epoch_s=30"] == {"scheme.upi.epoch_s": 30.0, "scheme.upi-guarded.epoch_s": 30.0}
    assert both["donor_traffic_max=0.7"] == {"scheme.upi-guarded.donor_traffic_max": 0.7}
    assert "donor_traffic_max=0.7" not in cases


def test_sensitivity_cases_skip_missing_knobs() -> None:
    toml = SCENARIO_TOML.replace('pattern = "zipf"', 'pattern = "uniform"').replace(
        "[[tenants.synthetic]]\npattern", "[tenants.synthetic]\npattern"
    )
    cases = {c["name"]: c["set"] for c in upi_cases(toml)}
    assert not any("zipf" in n for n in cases)
    assert cases["das-as footprint_fraction=0.5"] == {"tenants.das-as.synthetic.footprint_fraction": 0.5}


def test_sensitivity_summary() -> None:
    def c(value: float) -> C.Claim:
        return C.Claim("x", "x falls", C.FACTOR, 0.6, value, C.factor_verdict(0.6, value), "")

    rows = C.sensitivity_summary({"base": [c(0.7)], "a": [c(1.1)], "b": [c(0.1)], "nan": [c(NAN)]})
    assert len(rows) == 1
    assert rows[0]["min"] == 0.1 and rows[0]["max"] == 1.1
    assert rows[0]["reversed_in"] == ["a", "nan"] and rows[0]["cases"] == ["base", "a", "b", "nan"]


def test_sensitivity_files_carry_every_column(tmp_path: Path) -> None:
    """sensitivity.csv's columns are the summary rows' own (its `kind` column once was named
    `unit`, which no row has, and came out empty for flashblox and UPI), plus the per-case
    ones; a column no row has is refused, not written empty."""

    def c(value: float) -> C.Claim:
        return C.Claim("x", "x falls", C.FACTOR, 0.6, value, C.factor_verdict(0.6, value), "")

    rows = C.sensitivity_summary({"base": [c(0.7)], "a": [c(1.1)]})
    per_case = [{**row, "value: a": row["values"]["a"]} for row in rows]
    C.write_sensitivity(tmp_path, {"claims": rows}, per_case, ["value: a"])
    table = pl.read_csv(tmp_path / C.SENSITIVITY_CSV)
    assert table.columns == [*C.SENSITIVITY_COLUMNS, "value: a"]
    assert table["kind"].to_list() == [C.FACTOR] and table["n_cases"].to_list() == [2]
    assert table["value: a"].to_list() == [1.1]
    assert json.loads((tmp_path / C.SENSITIVITY_FILE).read_text())["claims"][0]["max"] == 1.1
    with pytest.raises(AssertionError, match=r"no row has the column\(s\) \['unit'\]"):
        C.write_csv(tmp_path / "bad.csv", rows, ["claim", "unit"])
    assert not (tmp_path / "bad.csv").exists()


def test_sensitivity_cases_carry_their_table_place() -> None:
    """Each case names its swept parameter, its value and the base value (sensitivity.md's
    tables); the names are the sweep's (run keys do not depend on them)."""
    cases = {c["name"]: c for c in upi_cases(SCENARIO_TOML)}
    rise = cases["lm-tbe rise x1.5"]
    assert (rise["parameter"], rise["value"], rise["x"], rise["base"], rise["base_x"]) == (
        "lm-tbe rise",
        "x1.5 (225/s)",
        1.5,
        "x1 (150/s)",
        1.0,
    )
    erase = cases["erase_us=10000"]
    assert (erase["parameter"], erase["value"], erase["base"]) == ("erase_us", "10000 (x2)", "5000 (x1)")
    assert cases["base"]["parameter"] == sweep_study.BASE
    assert all(c["parameter"] and c["value"] for c in cases.values())


def test_finished_cases_are_those_with_a_run_directory(tmp_path: Path) -> None:
    """A stopped sweep: a case is finished when out/sensitivity/runs/KEY exists, KEY the sha256
    of the case's resolved scenario (docs/sweep.md); a directory of another key is stale."""
    import hashlib

    path = upi.scenario_path(quick=True)
    resolved = ftlab._core.resolve(source_path=str(path))
    runs = tmp_path / "sensitivity" / "runs"
    (runs / hashlib.sha256(resolved.encode("utf-8")).hexdigest()).mkdir(parents=True)
    (runs / ("0" * 64)).mkdir()
    assert finished_knob_cases(upi.PAPER.code, path, resolved, tmp_path) == ["base"]


def _sens_doc() -> dict[str, object]:
    """A hand-made sensitivity.json: one claim (a factor, paper 0.615) in the base and in
    three rise cases (one differs on an unhealthy partitioned, one invalid, one not run)."""
    meta = {"parameter": "lm-tbe rise", "base": "x1", "base_x": 1.0}
    claim = "das_as_p99_upi_vs_unified"
    return {
        "reproduction": "upi",
        "quick": True,
        "ftlab_version": "0",
        "claims": [{"claim": claim}],
        "cases": [
            {
                "case": "base",
                "parameter": sweep_study.BASE,
                "claims": {claim: {"value": 0.615, "verdict": C.REPRODUCED}},
                "unhealthy": {},
            },
            {
                "case": "r2",
                **meta,
                "value": "x2",
                "x": 2.0,
                "claims": {claim: {"value": 1.5, "verdict": C.DIFFERS}},
                "unhealthy": {"partitioned": ["lm-tbe unstable"]},
            },
            {
                "case": "r05",
                **meta,
                "value": "x0.5",
                "x": 0.5,
                "claims": {claim: {"value": 0.8, "verdict": C.INVALID}},
                "unhealthy": {"upi": ["dtrs starved"]},
            },
        ],
        "plan_not_run": [{"case": "r15", **meta, "value": "x1.5", "x": 1.5}],
    }


def test_sensitivity_markdown_tables() -> None:
    text = sweep_study.sensitivity_markdown(_sens_doc())
    assert "3 of 4 cases run, 1 not run" in text
    # Overview: base −38.5% (0.615 − 1); one case on the paper's side (the base), one differs,
    # one invalid; the valid range is over the base and x2 only (the invalid 0.8 is left out).
    row = (
        "| `das_as_p99_upi_vs_unified` | −38.5% | −38.5% reproduced | 1 | 1 | 1 | −38.5% "
        "(base) to +50.0% (r2) |"
    )
    assert row in text
    # The rise's table: values in order of x, the base among them and marked.
    assert "| claim | paper | x0.5 | **x1 (base)** | x1.5 | x2 |" in text
    cells = (
        "| `das_as_p99_upi_vs_unified` | −38.5% | *−20.0% invalid* | −38.5% reproduced | "
        "not run | **+50.0% differs** |"
    )
    assert cells in text
    assert "| health | | *unhealthy: upi* | ok |  | *unhealthy: partitioned* |" in text
    assert "- x2: partitioned: lm-tbe unstable" in text and "- x0.5: upi: dtrs starved" in text


# --------------------------------------------------------------------------------------
# Registry and errors


def test_unknown_reproduction_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ftlab.UsageError) as e:
        ftlab.reproduce("nope", out=tmp_path)
    assert e.value.arg == "name" and "upi" in str(e.value)
    with pytest.raises(ftlab.UsageError) as e:
        ftlab.reproduce("upi", jobs=0, out=tmp_path)
    assert e.value.arg == "jobs"
    assert not any(tmp_path.iterdir())


def test_cli_unknown_reproduction() -> None:
    proc = run_cli(["reproduce", "nope"])
    assert proc.returncode == 2, proc.stderr
    assert (
        "NAME: unknown reproduction 'nope'" in proc.stderr
        and "upi" in proc.stderr
        and "Traceback" not in proc.stderr
    )
    assert "--sensitivity" in run_cli(["reproduce", "--help"]).stdout


def test_reproduce_is_callable_whichever_is_imported_first() -> None:
    # `import ftlab.reproduce.X` makes ftlab.reproduce the package; ftlab's lazy export makes
    # it the function. Both must call the reproduction.
    call = (
        "try:\n    ftlab.reproduce('nope')\nexcept ftlab.UsageError as e:\n    "
        "print(type(ftlab.reproduce).__name__, e.arg)\n"
    )
    package_first = (
        "import sys, ftlab\nassert 'ftlab.reproduce' not in sys.modules\nimport ftlab.reproduce.claims\n"
        + call
    )
    function_first = "import ftlab\nf = ftlab.reproduce\nimport ftlab.reproduce.claims\n" + call
    outs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
        for code in (package_first, function_first)
    ]
    assert outs == [["_CallableModule", "name"], ["function", "name"]]


def test_missing_scenario_is_a_precise_error() -> None:
    from ftlab.reproduce import scenario_file

    with pytest.raises(ftlab.InputError) as e:
        scenario_file("reproduce/no-such.toml", "the test's scenario")
    assert isinstance(e.value, FileNotFoundError)
    assert (
        e.value.path is not None
        and e.value.path.endswith("scenarios/reproduce/no-such.toml")
        and "the test's scenario" in str(e.value)
    )


@pytest.mark.parametrize(
    "name",
    [
        "ftlab.reproduce",
        "ftlab.reproduce.claims",
        "ftlab.reproduce.upi",
        "ftlab.reproduce.claimfile",
        "ftlab.reproduce.verdicts",
    ],
)
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(
        importlib.import_module(name), extraglobs={"ftlab": ftlab}, optionflags=doctest.ELLIPSIS
    )
    assert result.failed == 0


# --------------------------------------------------------------------------------------
# (c) the quick UPI reproduction, run once


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> C.ReproductionResult:
    return ftlab.reproduce("upi", quick=True, out=tmp_path_factory.mktemp("reproduce") / "upi-quick")


def test_quick_verdicts_are_the_committed_ones(quick: C.ReproductionResult) -> None:
    """Every claim's verdict over the quick form's 3 seeds is the one in
    tests/data/verdicts-quick.json; no claim is exempt (docs/reproductions.md, Verdict changes)."""
    found = verdicts.check("upi", quick.claims, ROOT / verdicts.VERDICTS_FILE)
    assert not found, "\n".join(found)


def test_quick_long_horizon_no_tenant_starves_under_upi_guarded(quick: C.ReproductionResult) -> None:
    """Hours of the three models (the quick form's five, on its reduced device): under
    `upi-guarded` no tenant's set shrinks until its mean read exceeds 10x its unified value.
    Paper-literal `upi` is not held to this: without the guard it starves DTRS
    (docs/reproductions.md), which is the finding the guard answers."""
    summary = json.loads((quick.out / "run" / "summary.json").read_text())
    tenants = summary["schemes"]["unified"]["tenants"]
    for name, unified in tenants.items():
        guarded = summary["schemes"]["upi-guarded"]["tenants"][name]["read"]["mean_us"]
        assert guarded <= 10 * unified["read"]["mean_us"], (name, guarded, unified["read"]["mean_us"])


def test_quick_health(quick: C.ReproductionResult) -> None:
    """The baselines are healthy: no tenant starved or unstable. Paper-literal `upi` is not:
    it starves DTRS (issue 21: a read of more than a minute, a backlog of thousands of
    requests at queue depth 64), and health says so (DESIGN §12)."""
    summary = json.loads((quick.out / "run" / "summary.json").read_text())
    assert set(summary["schemes"]) == set(upi.SCHEMES)
    checks = C.health(summary)["schemes"]
    for baseline in ("unified", "partitioned"):
        assert checks[baseline]["tenants_ok"], (baseline, checks[baseline]["reasons"])
    dtrs = summary["schemes"]["upi"]["tenants"]["dtrs"]
    assert dtrs["starved"] and dtrs["unstable"] and dtrs["max_wait_s"] > 60, dtrs
    assert not checks["upi"]["ok"] and any(r.startswith("dtrs starved") for r in checks["upi"]["reasons"])


def test_quick_files_are_written(quick: C.ReproductionResult) -> None:
    for name in ("fig3-bars.png", "fig4-read-cdf.png", "fig5-window.png"):
        data = (quick.out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, name
    bars = pl.read_csv(quick.out / "fig3-bars.csv")
    assert set(bars["scheme"]) == set(upi.SCHEMES) and set(bars["tenant"]) == set(upi.TENANTS)
    cdf = pl.read_csv(quick.out / "fig4-read-cdf.csv")
    assert set(cdf["scheme"]) == set(upi.SCHEMES) and set(cdf["op"]) == {"read"}
    window = pl.read_csv(quick.out / "fig5-window.csv")
    rise = quick.extra["per_seed"][0].extra["rise_s"]
    assert window["window_start_s"].min() >= rise - 300 and window["window_start_s"].max() < rise + 300
    assert {"upi", "upi-guarded"} <= set(window.filter(pl.col("alloc_set_dies").is_not_nan())["scheme"])
    assert (quick.out / "phases.csv").is_file()


def test_quick_claims_json_has_every_claim(quick: C.ReproductionResult) -> None:
    doc = json.loads((quick.out / "claims.json").read_text())
    assert [c["id"] for c in doc["claims"]] == claim_ids()
    assert doc["quick"] is True and doc["ftlab_version"] == ftlab.__version__ and "wall_s" not in doc
    assert [s["offset"] for s in doc["seeds"]] == [0, 1, 2] and doc["seeds"][0]["scenario"].endswith(
        "upi-quick.toml"
    )
    assert set(doc["health"]["schemes"]) == {f"{s} [seed {k}]" for s in upi.SCHEMES for k in range(3)}
    for c in doc["claims"]:
        assert c["verdict"] in C.VERDICTS and c["why"], c
        if c["verdict"] != C.NOT_MEASURED:
            assert len(c["values"]) == 3, c
    for k in (1, 2):
        assert (quick.out / f"seed-{k}" / "run" / "summary.json").is_file()


def test_reproduction_scenarios_resolve_and_the_quick_form_is_the_documented_reduction() -> None:
    """Both UPI scenarios validate (the full one is not run in CI), and the quick form is the
    full one reduced as its header says: 1/16 of the blocks, every flash time x4 and channel
    rate /4, every request rate /4, the same tenants, schemes and knobs."""
    from ftlab import _core

    full = tomllib.loads(_core.resolve(upi.scenario_path(False)))
    quick = tomllib.loads(_core.resolve(upi.scenario_path(True)))
    assert full["schemes"] == quick["schemes"] == list(upi.SCHEMES)
    assert quick["device"]["blocks_per_plane"] == round(full["device"]["blocks_per_plane"] / 16)
    for key in ("read_us", "program_us", "erase_us"):
        assert quick["device"]["timing"][key] == 4 * full["device"]["timing"][key], key
    assert quick["device"]["timing"]["channel_mts"] * 4 == full["device"]["timing"]["channel_mts"]
    assert quick["scheme"] == full["scheme"]
    for tf, tq in zip(full["tenants"], quick["tenants"], strict=True):
        assert tf["name"] == tq["name"]
        parts_f, parts_q = tf["synthetic"], tq["synthetic"]
        assert len(parts_f) == len(parts_q), tf["name"]
        for pf, pq in zip(parts_f, parts_q, strict=True):
            assert pq["rate_iops"] * 4 == pf["rate_iops"], (tf["name"], pf, pq)
            same = {k: v for k, v in pf.items() if k not in ("rate_iops", "start_s", "end_s")}
            assert same == {k: v for k, v in pq.items() if k not in ("rate_iops", "start_s", "end_s")}, tf[
                "name"
            ]
