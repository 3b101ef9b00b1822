"""Tests of what the engine's measurements look like from the command line and in the report:
schemes run in parallel (`--jobs`) give the same results as one by one, a bad `--jobs` is a
usage error, and an overloaded tenant is flagged UNSTABLE (with its outstanding requests) in
summary.json, on the terminal and in report.html, while a light one is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

# `tiny` has 4 dies, tPROG 200 us: at most 20,000 page programs per second for the device, so
# 60,000 write IOPS is three times what it can do; 500 reads/s is light.
OVERLOAD = """\
name = "overload"
schemes = ["unified", "partitioned"]
[device]
preset = "tiny"
[measure]
duration_s = 0.3
[[tenants]]
name = "heavy"
namespace_fraction = 0.5
[tenants.synthetic]
pattern = "uniform"
read_ratio = 0.0
arrival = "poisson"
rate_iops = 60000.0
[[tenants]]
name = "light"
namespace_fraction = 0.4
[tenants.synthetic]
pattern = "uniform"
read_ratio = 1.0
arrival = "poisson"
rate_iops = 500.0
"""


@pytest.fixture(scope="module")
def overload(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """The overload scenario run with --jobs 1 and --jobs 2: {jobs: (results dir, stdout)}."""
    base = tmp_path_factory.mktemp("overload")
    scenario = base / "overload.toml"
    scenario.write_text(OVERLOAD)
    runs = {}
    for jobs in ("1", "2"):
        out = base / f"jobs{jobs}"
        proc = run_cli(["run", str(scenario), "--jobs", jobs, "--out", str(out)])
        assert proc.returncode == 0, proc.stderr
        runs[jobs] = (out, proc.stdout)
    return runs


def test_parallel_schemes_write_the_same_summary(overload):
    one = (overload["1"][0] / "summary.json").read_bytes()
    two = (overload["2"][0] / "summary.json").read_bytes()
    assert one == two


def test_jobs_zero_is_a_usage_error(tmp_path):
    scenario = tmp_path / "o.toml"
    scenario.write_text(OVERLOAD)
    proc = run_cli(["run", str(scenario), "--jobs", "0", "--out", str(tmp_path / "r")])
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "--jobs" in proc.stderr and "at least 1" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("scheme", ["unified", "partitioned"])
def test_overloaded_tenant_is_unstable_in_the_summary(overload, scheme):
    summary = json.loads((overload["2"][0] / "summary.json").read_text())
    tenants = summary["schemes"][scheme]["tenants"]
    heavy, light = tenants["heavy"], tenants["light"]
    assert heavy["unstable"] is True
    # About 60,000/s arrive and at most 20,000/s can be programmed: thousands wait at the end.
    assert heavy["outstanding_at_end"] > 1000
    assert heavy["backlog_growth"] > heavy["queue_depth"]
    assert light["unstable"] is False
    assert light["outstanding_at_end"] <= light["queue_depth"]


def test_unstable_tenant_is_flagged_on_the_terminal(overload):
    stdout = overload["2"][1]
    heavy_rows = [line for line in stdout.splitlines() if "heavy" in line and "│" in line]
    light_rows = [line for line in stdout.splitlines() if "light" in line and "│" in line]
    assert len(heavy_rows) == 2 and all("UNSTABLE" in row for row in heavy_rows), stdout
    assert light_rows and not any("UNSTABLE" in row for row in light_rows), stdout
    assert "outstanding" in stdout


def test_unstable_tenant_is_flagged_in_the_report(overload):
    page = (overload["2"][0] / "report.html").read_text()
    assert page.count('class="unstable"') == 2, "one warning per scheme for the heavy tenant"
    assert "heavy under unified" in page and "heavy under partitioned" in page
    assert "light under" not in page
    assert "fig-ts-backlog" in page
