"""Every command of the README's shell blocks runs as written on a fresh clone, and its output
fits 100 columns.

Each line of each ```sh block of README.md is one case, run in order in one scratch directory
(so `ftlab plot results/default` finds what `ftlab run` wrote), with `.venv/bin/ftlab` as
this interpreter's `python -m ftlab` and `cp` as itself, `scenarios/` and `data/` linked from
the repository and nothing else: the README's own lines make `my.toml` (a copy of the default
scenario) and name the shipped trace sample (data/traces) and task file (data/rt). A command
must exit 0 (`ftlab rt admit`: 0 admitted or 1 rejected, its documented statuses) with no
error and no traceback, and its output piped (COLUMNS unset) has no line over 100 columns and
no number cut short with "…" (issue 42). `SKIPPED` lists, with the reason, the few that cannot
run here, and `SMALLER` the ones run with a smaller workload; a README line that is neither
run nor listed fails, so a new line is tested from the day it is added.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from rich.cells import cell_len

from conftest import REPO_ROOT

README = REPO_ROOT / "README.md"

#: The widest output line a command may print, piped with COLUMNS unset (README, issue 42).
WIDTH = 100
#: A number cut short by a table too narrow for it: "9.87464e+…", "1,6…", "…5".
CUT_NUMBER = re.compile(r"[0-9][0-9.,e+-]*…|…[0-9]")

#: Commands not run here, by their first words, with the reason.
SKIPPED = {
    "scripts/setup.sh": "builds the environment this test runs in (scripts/test.sh runs it first)",
    "scripts/test.sh": "the test command itself, which runs this test",
    "scripts/wheel.sh": (
        "minutes: trains the profile and builds the release extension again (scripts/test-wheel.sh "
        "builds and tests a wheel)"
    ),
    "ftlab sweep scenarios/sweeps/op-by-scheme.toml": (
        "tests/python/test_sweep.py runs this exact sweep on Ray"
    ),
    "ftlab reproduce upi --quick": (
        "minutes; tests/python/test_reproduce.py runs ftlab.reproduce('upi', quick=True)"
    ),
    "ftlab reproduce flashblox --quick": (
        "minutes; tests/python/test_reproduce_flashblox.py runs its quick form"
    ),
    "ftlab reproduce vstream --quick": "minutes; tests/python/test_reproduce_vstream.py runs its quick form",
    "ftlab reproduce ioda --quick": "tests/python/test_reproduce_ioda.py runs its quick form; CI time",
    "ftlab reproduce part-ftl --quick": (
        "tests/python/test_reproduce_part_ftl.py runs its quick form, and its CLI output in a "
        "100-column terminal (test_cli_output_fits_a_terminal); CI time"
    ),
    "ftlab bench --json": "minutes in full; tests/python/test_cli.py runs every case reduced (--requests "
    "2000)",
}
#: The test file that runs each skipped reproduction or sweep instead (checked to exist and to
#: run it, so the reason stays true).
COVERED_BY = {
    "ftlab sweep scenarios/sweeps/op-by-scheme.toml": ("test_sweep.py", '"sweep", str(SHIPPED)'),
    "ftlab reproduce upi --quick": ("test_reproduce.py", 'reproduce("upi", quick=True'),
    "ftlab reproduce flashblox --quick": ("test_reproduce_flashblox.py", 'reproduce("flashblox", quick=True'),
    "ftlab reproduce vstream --quick": ("test_reproduce_vstream.py", 'reproduce("vstream", quick=True'),
    "ftlab reproduce ioda --quick": ("test_reproduce_ioda.py", 'reproduce("ioda", quick=True'),
    "ftlab reproduce part-ftl --quick": ("test_reproduce_part_ftl.py", 'reproduce("part-ftl", quick=True'),
    "ftlab bench --json": ("test_cli.py", '["bench", "--json", "--requests", "2000", "--rows", "1000"]'),
}
#: Commands run with extra arguments that make them small, by their first words.
#: (None today: the bench, the one such line, is run reduced by test_cli.py instead.)
SMALLER: dict[str, list[str]] = {}


def readme_commands() -> list[str]:
    """Each command line of the README's ```sh blocks, without its trailing comment; a line
    `a && b` gives a and b."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            command = " ".join(words)
            commands += [part.strip() for part in command.split("&&")]
    return commands


COMMANDS = readme_commands()


def _key(command: str) -> str:
    return command.removeprefix(".venv/bin/")


def _matching(table: Mapping[str, object], command: str) -> str | None:
    key = _key(command)
    return next((k for k in table if key == k or key.startswith(k + " ")), None)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch directory standing for a fresh clone's root: scenarios/ and data/ linked,
    nothing else (the README's lines make what they use)."""
    root = tmp_path_factory.mktemp("readme")
    (root / "scenarios").symlink_to(REPO_ROOT / "scenarios")
    (root / "data").symlink_to(REPO_ROOT / "data")
    return root


def test_the_readme_has_commands_and_names_the_new_ones() -> None:
    assert len(COMMANDS) >= 15, COMMANDS
    for wanted in (
        "ftlab reproduce vstream --quick",
        "ftlab scenarios",
        "ftlab run scenarios/real-traces.toml",
    ):
        assert any(_key(c).startswith(wanted) for c in COMMANDS), wanted


def test_every_skip_has_a_reason_and_a_readme_line() -> None:
    """No README line is skipped without a reason, and no reason outlives its line."""
    for key, reason in SKIPPED.items():
        assert reason.strip(), key
        assert any(_matching({key: None}, c) for c in COMMANDS), f"{key}: no such README line"


@pytest.mark.parametrize("command", sorted(COVERED_BY))
def test_a_skipped_command_is_run_by_another_test(command: str) -> None:
    name, needle = COVERED_BY[command]
    assert needle in (Path(__file__).parent / name).read_text(encoding="utf-8"), (command, name)


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command(command: str, workdir: Path) -> None:
    skip = _matching(SKIPPED, command)
    if skip is not None:
        pytest.skip(f"{command}: {SKIPPED[skip]}")
    words = shlex.split(command)
    if words[0] == "cp":
        subprocess.run(words, cwd=workdir, check=True)
        return
    assert words[0] == ".venv/bin/ftlab", f"a README command this test does not know how to run: {command}"
    smaller = _matching(SMALLER, command)
    args = words[1:] + (SMALLER[smaller] if smaller else [])
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR")}
    proc = subprocess.run(
        [sys.executable, "-m", "ftlab", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=900,
        env={**env, "NO_COLOR": "1"},
    )
    allowed = (0, 1) if words[1:3] == ["rt", "admit"] else (0,)
    assert proc.returncode in allowed, (command, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and not proc.stderr.lstrip().startswith("error"), (
        command,
        proc.stderr,
    )
    assert_fits(command, proc.stdout + proc.stderr)


def assert_fits(command: str, output: str) -> None:
    """No line of `output` wider than `WIDTH` columns, no number in it cut short."""
    wide = [line for line in output.splitlines() if cell_len(line) > WIDTH]
    assert not wide, (command, f"{len(wide)} lines over {WIDTH} columns", wide[:3])
    cut = [line for line in output.splitlines() if CUT_NUMBER.search(line)]
    assert not cut, (command, f"{len(cut)} lines with a number cut short", cut[:3])


def test_assert_fits_can_fail() -> None:
    """The check above does fail on what the issue found (so the cases above test something)."""
    for bad in ("x" * 101, "│ 9.87464e+… │", "│ r… │ 1,6… │"):
        with pytest.raises(AssertionError):
            assert_fits("ftlab compare", bad)
    assert_fits("ftlab run", "│ ★ 1,683 │ a sentence cut …")
