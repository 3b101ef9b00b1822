"""Tests of `ftlab trace stats` on the repository's real trace samples (data/traces). These
need the core's trace parsers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import run_cli

KEYS = {
    "requests",
    "reads",
    "writes",
    "trims",
    "bytes",
    "duration_s",
    "footprint_pages",
    "lba_min_bytes",
    "lba_max_bytes",
    "skipped",
}

SAMPLES = [
    ("msr-hm0-sample.csv", "msr", 1000),
    ("systor17-sample.csv", "systor", 999),
    ("tpcc-small.trace", "mqsim", 6999),
]


@pytest.mark.parametrize(("name", "fmt", "requests"), SAMPLES)
def test_trace_stats_json(trace_file: Callable[[str], Path], name: str, fmt: str, requests: int) -> None:
    path = trace_file(name)
    proc = run_cli(["trace", "stats", str(path), "--format", fmt, "--json"])
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout)
    assert set(stats) == KEYS
    assert stats["requests"] == requests
    assert stats["reads"] + stats["writes"] + stats["trims"] == requests
    assert stats["bytes"] > 0
    assert stats["duration_s"] > 0
    assert 0 < stats["footprint_pages"]
    assert stats["lba_min_bytes"] <= stats["lba_max_bytes"]


def test_trace_stats_table(trace_file: Callable[[str], Path]) -> None:
    path = trace_file("msr-hm0-sample.csv")
    proc = run_cli(["trace", "stats", str(path), "--format", "msr"])
    assert proc.returncode == 0, proc.stderr
    for key in KEYS:
        assert key in proc.stdout


def test_trace_stats_python(trace_file: Callable[[str], Path]) -> None:
    import ftlab

    stats = ftlab.trace_stats(str(trace_file("systor17-sample.csv")), "systor")
    assert set(stats) == KEYS


FIXTURES = Path(__file__).resolve().parents[2] / "crates" / "ftlab" / "tests" / "fixtures" / "traces"


@pytest.mark.parametrize(
    ("name", "fmt", "requests", "skipped"), [("fiu.trace", "fiu", 12, 0), ("vscsi.csv", "vscsi", 10, 3)]
)
def test_trace_stats_fiu_and_vscsi_fixtures(name: str, fmt: str, requests: int, skipped: int) -> None:
    # The hand-written fixtures of the Rust parser tests: vscsi's 3 skipped SCSI commands
    # (TEST UNIT READY, SYNCHRONIZE CACHE, a zero-length WRITE) are reported, not dropped.
    proc = run_cli(["trace", "stats", str(FIXTURES / name), "--format", fmt, "--json"])
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout)
    assert set(stats) == KEYS
    assert (stats["requests"], stats["skipped"]) == (requests, skipped)
