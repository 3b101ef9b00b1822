"""Tests of the `ftlab` command line that do not need the simulator: argument errors (exit
status 2, a red one-line message on stderr, no traceback), help and version, the bench
subprocess, and that `ftlab --help` does not import the heavy modules."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from ftlab import _core


def assert_input_error(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr


def test_help_lists_commands() -> None:
    proc = run_cli(["--help"])
    assert proc.returncode == 0
    for cmd in ("run", "trace", "bench"):
        assert cmd in proc.stdout


def test_version() -> None:
    proc = run_cli(["--version"])
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"ftlab {_core.version()}"


def test_help_is_light() -> None:
    code = (
        "import sys\n"
        "from ftlab.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('HEAVY', sorted({m.split('.')[0] for m in sys.modules} & {'polars', 'tomli_w', 'pyarrow'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stdout


def test_unknown_command() -> None:
    assert_input_error(run_cli(["frobnicate"]))


def test_run_bad_seed() -> None:
    assert_input_error(run_cli(["run", "--seed", "abc"]))
    assert_input_error(run_cli(["run", "--seed", "-1"]))


def test_run_unknown_option() -> None:
    assert_input_error(run_cli(["run", "--no-such-option"]))


def test_trace_stats_needs_format(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("")
    proc = run_cli(["trace", "stats", str(f)])
    assert_input_error(proc)
    assert "--format" in proc.stderr


def test_trace_stats_unknown_format_lists_valid_names(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("")
    proc = run_cli(["trace", "stats", str(f), "--format", "bogus"])
    assert_input_error(proc)
    assert "bogus" in proc.stderr
    for name in _core.TRACE_FORMATS:  # their list is checked in test_core.py
        assert name in proc.stderr
    lines = proc.stderr.splitlines()
    # The message on its line, the list of known names on the following, wrapped ones (issue 42).
    assert lines[0] == 'error: --format: unknown trace format "bogus"', lines
    assert lines[1].startswith("  valid formats: msr, mqsim,"), lines
    assert all(len(line) <= 100 for line in lines), lines


#: Errors that list the known keys or name a Rust type (issue 42 item 4): the arguments, the
#: first line, what the message says (its lines joined), and how the line after the message
#: starts (None: no list follows).
ERRORS = {
    "unknown device key": (
        ["run", "--set", "device.bogus=1"],
        "error: --set device.bogus=1: device.bogus: unknown field `bogus`",
        "expected one of: `preset`, `channels`,",
        "  expected one of: `preset`, `channels`,",
    ),
    "unknown scheme knob": (
        ["run", "--set", "scheme.upi.bogus=1"],
        "error: --set scheme.upi.bogus=1: scheme.upi.bogus: unknown field `bogus`",
        "expected one of: `epoch_s`,",
        "  expected one of: `epoch_s`,",
    ),
    "a u32 said as a range": (
        ["run", "--set", "device.pe_cycles=1.5"],
        "error: --set device.pe_cycles=1.5: device.pe_cycles: invalid type: floating point `1.5`,",
        "floating point `1.5`, expected an integer in [0, 4294967295]",
        None,
    ),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_fit_100_columns_and_say_ranges(name: str, tmp_path: Path) -> None:
    args, first, says, then = ERRORS[name]
    proc = run_cli([*args, "--out", str(tmp_path / "out")], cwd=tmp_path)
    assert_input_error(proc)
    lines = proc.stderr.splitlines()
    assert all(len(line) <= 100 for line in lines), lines
    assert lines[0].startswith(first), lines
    assert says in " ".join(line.strip() for line in lines), lines
    if then is not None:
        assert lines[1].startswith(then), lines
    assert not re.search(r"expected [ui](8|16|32|64|size)\b|expected f(32|64)\b", proc.stderr), lines


def test_bench_unknown_case() -> None:
    proc = run_cli(["bench", "--case", "nope"])
    assert_input_error(proc)
    for case in (*_core.BENCH_CASES, "run-default", "load-1e6"):
        assert case in proc.stderr


def test_bench_subprocess_usage() -> None:
    proc = subprocess.run([sys.executable, "-m", "ftlab._bench"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "usage" in proc.stderr


@pytest.mark.parametrize(
    ("args", "key"),
    [
        # Reaches the case's scenario: its validation names the key and its range.
        (["--case", "random-write", "--set", "device.channels=0"], "device.channels"),
        (["--case", "run-default", "--set", "device.channels=0"], "device.channels"),
        # load-1e6 runs no scenario: refused before any case runs, also when every case runs.
        (["--case", "load-1e6", "--set", "seed=2"], "--set"),
        (["--set", "seed=2"], "--set"),
    ],
)
def test_bench_set_errors(args: list[str], key: str) -> None:
    proc = run_cli(["bench", "--requests", "10", *args])
    assert_input_error(proc)
    assert key in proc.stderr and "Traceback" not in proc.stderr


def test_bench_set_runs_the_case_with_it() -> None:
    """`--set` after the case's own settings: the closed-form fill, a valid key, runs."""
    args = ["--case", "random-write", "--requests", "1000", "--set", "precondition.overwrites=closed_form"]
    proc = run_cli(["bench", "--json", *args])
    assert proc.returncode == 0, proc.stderr
    [result] = json.loads(proc.stdout)
    assert result["case"] == "random-write" and result["requests"] == 1000 and result["cpu_s"] > 0


def test_bench_table_fits_a_terminal() -> None:
    """The table at 100 columns, nothing cut: the longest case name and every column whole."""
    args = ["--case", "precondition-closed-form", "--case", "memory-1tb", "--case", "load-1e6"]
    proc = run_cli(["bench", *args, "--rows", "1000"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines) and "…" not in proc.stdout, lines
    for text in ("precondition-closed-form", "memory-1tb", "1,000", "cpu s", "B/unit", "peak MB"):
        assert text in proc.stdout, text


def test_bench_reduced_run_reports_every_case() -> None:
    """A reduced `ftlab bench` (the standard device and preconditioning, few requests; a
    1000-row time series for load-1e6) prints one JSON object per case with the documented
    keys: the timed core cases with their requests/s, the two `precondition` cases and the Python cases with
    their wall time only, `memory-1tb` with its bytes per mapping unit. No time bound is
    asserted (docs/PERFORMANCE.md records the measured ones)."""
    proc = run_cli(["bench", "--json", "--requests", "2000", "--rows", "1000"])
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert [r["case"] for r in results] == [
        "random-write",
        "mixed-70r30w",
        "upi-mixed-70r30w",
        "precondition",
        "precondition-closed-form",
        "memory-1tb",
        "run-default",
        "load-1e6",
    ]
    keys = {
        "case",
        "kind",
        "requests",
        "rows",
        "wall_s",
        "cpu_s",
        "requests_per_s",
        "bytes_per_mapping_unit",
        "peak_rss_bytes",
    }
    for r in results:
        assert set(r) == keys
        assert r["wall_s"] > 0 and r["peak_rss_bytes"] > 0
        # The thread CPU of what a core case times (Linux has the thread clock); none where
        # nothing runs on the core's thread (memory-1tb builds only; the Python cases).
        if r["case"] in (*_core.BENCH_TIMED_CASES, "precondition", "precondition-closed-form"):
            assert isinstance(r["cpu_s"], float) and r["cpu_s"] > 0
        else:
            assert r["cpu_s"] is None
        if r["case"] in _core.BENCH_TIMED_CASES:
            assert r["kind"] == "core" and r["rows"] is None and r["bytes_per_mapping_unit"] is None
            assert r["requests"] == 2000 and r["requests_per_s"] > 0
            # Issue 23's bound, peak RSS <= 80 MiB on the bench (interpreter and ftlab._core
            # included). 2,000 requests check only the part that does not grow with the
            # requests (the mapping tables, the interpreter, the imports); what grows with them
            # (the health's completion times, at most 1 MiB) is measured by the full bench
            # (docs/PERFORMANCE.md, "Issue 23: peak RSS of the bench").
            assert r["peak_rss_bytes"] <= 80 * 2**20, "peak RSS bound of the issue"
        elif r["case"] in ("precondition", "precondition-closed-form"):
            assert r["kind"] == "precondition" and r["requests"] is None and r["requests_per_s"] is None
            assert r["bytes_per_mapping_unit"] is None and r["peak_rss_bytes"] <= 150 * 2**20
        elif r["case"] == "memory-1tb":
            assert r["kind"] == "memory" and r["requests"] is None and r["requests_per_s"] is None
            # At least the two mapping tables: 4 B of P2L per physical unit and 4 B of L2P per
            # logical unit, (1 - 0.07) of them at the mqsim preset's 7% over-provisioning.
            assert r["bytes_per_mapping_unit"] >= 4 + 4 * (1 - 0.07) - 0.01
            # Issue 23, item 5: at most 8 bytes per mapping unit on a 1 TiB device.
            assert r["bytes_per_mapping_unit"] <= 8, "bytes per mapping unit bound of the issue"
        else:
            assert r["kind"] == "python" and r["requests"] is None and r["requests_per_s"] is None
    assert results[-1]["rows"] == 1000 and results[-2]["rows"] is None
