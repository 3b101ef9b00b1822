"""Every bundled scenario under scenarios/ runs end to end and writes its results; the trace
files they replay (data/traces, the parser fixtures) are part of the repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

import ftlab
from conftest import REPO_ROOT

SCENARIOS = sorted((REPO_ROOT / "scenarios").glob("*.toml"))


def _missing_traces(path: Path) -> list[Path]:
    data = tomllib.loads(path.read_text())
    wanted = [path.parent / t["trace"]["path"] for t in data.get("tenants", []) if "trace" in t]
    return [p for p in wanted if not p.is_file()]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_bundled_scenario_runs(scenario: Path, tmp_path: Path) -> None:
    assert not _missing_traces(scenario), "a bundled scenario's trace is missing from the repository"
    report = ftlab.run(scenario, out=tmp_path, set=["measure.duration_s=2.0", "measure.warmup_s=0"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary == report.summary
    data = tomllib.loads(scenario.read_text())
    declared = data["schemes"]
    if "array" in data:
        # An array (docs/array.md): each device's result is a scheme entry `<scheme>/dev<i>`,
        # and the host layer's is under `array`.
        assert list(summary["array"]["schemes"]) == declared
        declared = [f"{s}/dev{i}" for s in declared for i in range(data["array"]["devices"])]
    assert list(summary["schemes"]) == declared
    for scheme in declared:
        tenants = summary["schemes"][scheme]["tenants"]
        assert sum(t["read"]["count"] + t["write"]["count"] for t in tenants.values()) > 0
    for name in ("timeseries.parquet", "latency_cdf.parquet", "wear.parquet", "scenario.resolved.toml"):
        assert (tmp_path / name).is_file(), name
