"""Tests of the bundled scenarios as package data (ftlab._scenarios, `ftlab scenarios`, `ftlab
run NAME`, `ftlab reproduce`'s lookup) and of the command line's help and error text for a
newcomer: flags show no value placeholder, `--solo true` says why it fails, no stray `()` in
the help, no blank line before an error. The installed wheel itself is tested by
scripts/test-wheel.sh (a clean venv), not here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_cli
from ftlab import _scenarios


def test_the_package_links_resolve_to_the_repository() -> None:
    # pyproject's maturin include copies python/ftlab/scenarios and data into the wheel.
    assert (REPO_ROOT / "python" / "ftlab" / "scenarios").resolve() == (REPO_ROOT / "scenarios").resolve()
    assert (REPO_ROOT / "python" / "ftlab" / "data").resolve() == (REPO_ROOT / "data").resolve()
    assert _scenarios.SCENARIOS_DIR == (REPO_ROOT / "scenarios").resolve()
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert '"ftlab/scenarios/**/*"' in pyproject and '"ftlab/data/**/*"' in pyproject


def test_bundled_scenarios_are_every_scenario_file_but_the_sweeps() -> None:
    found = {s.name: s for s in _scenarios.bundled_scenarios()}
    files = {
        p.relative_to(REPO_ROOT / "scenarios").with_suffix("").as_posix()
        for p in (REPO_ROOT / "scenarios").rglob("*.toml")
        if "sweeps" not in p.parts
    }
    assert set(found) == files
    assert {"default", "real-traces", "reproduce/part-ftl-quick"} <= set(found)
    assert all(s.description for s in found.values()), [n for n, s in found.items() if not s.description]
    # The trace samples and the RocksDB capture are bundled; only the captures a user must
    # first make (ftlab capture) are missing.
    missing = {n for n, s in found.items() if s.missing_traces}
    assert missing == {"reproduce/vstream-rocksdb", "reproduce/vstream-rocksdb-1g"}, missing


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("real-traces", True),
        ("reproduce/upi-quick", True),
        ("real-traces.toml", False),
        ("../README", False),
        ("sweeps/op-by-scheme", True),
        ("nope", False),
        ("", False),
    ],
)
def test_bundled_scenario_by_name(name: str, found: bool) -> None:
    path = _scenarios.bundled_scenario(name)
    assert (path is not None) == found
    if found:
        assert path == _scenarios.SCENARIOS_DIR / f"{name}.toml"


def test_reproduce_finds_its_scenarios_in_the_package() -> None:
    from ftlab.reproduce import scenario_file

    assert (
        scenario_file("reproduce/part-ftl-quick.toml", "x")
        == _scenarios.SCENARIOS_DIR / "reproduce" / "part-ftl-quick.toml"
    )


def test_ftlab_scenarios_lists_names_and_comments() -> None:
    proc = run_cli(["scenarios"])
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for name in ("default", "real-traces", "reproduce/upi-quick"):
        assert any(line.startswith(name + " ") for line in out.splitlines()), name
    assert "Three real block-trace samples" in out
    assert "ftlab run NAME" in " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 100


def test_ftlab_run_by_name_is_the_file(tmp_path: Path) -> None:
    by_name = run_cli(
        ["run", "real-traces", "--out", str(tmp_path / "a"), "--set", "measure.duration_s=0.5"], cwd=tmp_path
    )
    assert by_name.returncode == 0, by_name.stderr
    by_path = run_cli(
        [
            "run",
            str(REPO_ROOT / "scenarios" / "real-traces.toml"),
            "--out",
            str(tmp_path / "b"),
            "--set",
            "measure.duration_s=0.5",
        ],
        cwd=tmp_path,
    )
    assert by_path.returncode == 0, by_path.stderr
    a, b = (json.loads((tmp_path / d / "summary.json").read_text()) for d in ("a", "b"))
    assert a["schemes"] == b["schemes"]
    assert "msr-hm0" in by_name.stdout


def test_a_missing_file_that_is_no_bundled_name_stays_an_error(tmp_path: Path) -> None:
    proc = run_cli(["run", "no-such-scenario.toml", "--out", str(tmp_path / "r")], cwd=tmp_path)
    assert proc.returncode == 2 and "no-such-scenario.toml" in proc.stderr
    # No blank line before the error (the progress bar is off when stderr is not a terminal).
    assert proc.stderr.startswith("error: "), repr(proc.stderr[:80])


@pytest.mark.parametrize(
    "args", [["--help"], ["run", "--help"], ["reproduce", "--help"], ["schemes", "--help"]]
)
def test_help_shows_no_value_after_a_flag_and_no_stray_parentheses(args: list[str]) -> None:
    proc = run_cli(args)
    assert proc.returncode == 0, proc.stderr
    assert "<bool>" not in proc.stdout
    assert "()" not in proc.stdout


def test_solo_true_says_solo_is_a_flag(tmp_path: Path) -> None:
    proc = run_cli(["run", "--solo", "true", "--out", str(tmp_path / "r")], cwd=tmp_path)
    assert proc.returncode == 2
    assert (
        proc.stderr.startswith("error: SCENARIO: no such file 'true'")
        and "flags and take no value" in proc.stderr
    )
    assert not (tmp_path / "r").exists()
