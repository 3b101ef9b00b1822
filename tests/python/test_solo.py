"""Tests of `ftlab run --solo` and `ftlab.run(..., solo=True)` (the scenario key
`measure.solo`): summary.json has `measure.solo` and, per scheme and tenant, `solo` and
`slowdown`, and has none of them without it. The numbers themselves are tested in Rust
(crates/ftlab/tests/solo.rs); this is not a test of the terminal table or the report."""

from __future__ import annotations

import json
from pathlib import Path

import tomli_w

import ftlab
from conftest import run_cli
from ftlab.results import Summary

SCHEMES = ["unified", "partitioned"]
SCENARIO = {
    "seed": 3,
    "schemes": SCHEMES,
    "device": {"preset": "tiny"},
    "measure": {"duration_s": 0.5},
    "tenants": [
        {
            "name": "reader",
            "namespace_fraction": 0.4,
            "synthetic": {"pattern": "uniform", "read_ratio": 1.0, "arrival": "poisson", "rate_iops": 2000.0},
        },
        {
            "name": "writer",
            "namespace_fraction": 0.4,
            "synthetic": {"pattern": "uniform", "read_ratio": 0.0, "arrival": "poisson", "rate_iops": 300.0},
        },
    ],
}
SLOWDOWN_KEYS = {"read_mean", "read_p99", "write_mean", "write_p99"}


def _check_solo(summary: Summary) -> None:
    assert summary["measure"] == {"solo": True}
    for scheme in SCHEMES:
        tenants = summary["schemes"][scheme]["tenants"]
        for name in ("reader", "writer"):
            t = tenants[name]
            assert set(t["slowdown"]) == SLOWDOWN_KEYS
            assert set(t["solo"]) == {
                "read",
                "write",
                "unstable",
                "backlog_max",
                "backlog_max_error",
                "max_wait_s",
                "stall_s_max",
                "starved",
            }
            assert set(t["solo"]["read"]) == {"mean_us", "p99_us", "count"}
        # The reader never writes, the writer never reads: those slowdowns are undefined.
        assert tenants["reader"]["slowdown"]["write_p99"] is None
        assert tenants["writer"]["slowdown"]["read_mean"] is None
        read_p99 = tenants["reader"]["slowdown"]["read_p99"]
        assert read_p99 is not None and read_p99 > 0


def test_api_solo_adds_slowdown() -> None:
    _check_solo(ftlab.run(SCENARIO, solo=True).summary)
    plain = ftlab.run(SCENARIO).summary
    assert "measure" not in plain
    assert "slowdown" not in plain["schemes"]["unified"]["tenants"]["reader"]


def test_cli_solo_writes_slowdown(tmp_path: Path) -> None:
    path = tmp_path / "solo.toml"
    path.write_bytes(tomli_w.dumps(SCENARIO).encode())
    out = tmp_path / "out"
    proc = run_cli(["run", str(path), "--solo", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    _check_solo(json.loads((out / "summary.json").read_text()))
    assert "solo = true" in (out / "scenario.resolved.toml").read_text()
