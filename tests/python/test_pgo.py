"""The profile-guided build path's cheap form (issue 44, item 5): scripts/pgo.sh's search for an
llvm-profdata of rustc's LLVM major version (`--locate`: no install, no build) and its fallback,
the exit status 3 that scripts/setup.sh turns into a build without PGO. The whole path (training,
the profile-guided build, results byte-identical to a build without it) is scripts/test-pgo.sh,
which `scripts/test.sh --pgo` runs; it takes minutes and is not run here."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _pgo(*args: str, major: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("FTLAB_PGO_LLVM_MAJOR", None)
    if major is not None:
        env["FTLAB_PGO_LLVM_MAJOR"] = major
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "pgo.sh"), *args], cwd=REPO, env=env, capture_output=True, text=True
    )


def _rustc_llvm_major() -> str:
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^LLVM version: (\d+)", out, re.M)
    assert m, out
    return m.group(1)


def test_locate_finds_a_tool_of_rustcs_llvm_or_says_why() -> None:
    # A fresh machine may have no llvm-profdata (then setup.sh builds without PGO): either
    # outcome is right, but a tool it names must be of rustc's LLVM major version.
    major = _rustc_llvm_major()
    done = _pgo("--locate")
    if done.returncode == 3:
        assert f"no llvm-profdata of LLVM {major}" in done.stderr and done.stdout == ""
        return
    assert done.returncode == 0, done.stderr
    tool = done.stdout.strip()
    version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
    assert re.search(rf"LLVM version {major}\.", version), (tool, version)


def test_the_fallback_when_no_tool_matches() -> None:
    # No LLVM has major version 1 today: the search finds nothing, exits 3 and says what to
    # install, and installs nothing in --locate mode.
    done = _pgo("--locate", major="1")
    assert done.returncode == 3
    assert done.stdout == ""
    assert "no llvm-profdata of LLVM 1" in done.stderr and "llvm-tools" in done.stderr


@pytest.mark.parametrize(
    ("args", "major", "message"),
    [
        (("--bogus",), None, "usage: scripts/pgo.sh [--locate]"),
        (("--locate",), "x1", "FTLAB_PGO_LLVM_MAJOR must be an LLVM major version, not 'x1'"),
    ],
)
def test_bad_arguments_exit_2(args: tuple[str, ...], major: str | None, message: str) -> None:
    done = _pgo(*args, major=major)
    assert done.returncode == 2 and message in done.stderr


def test_setup_turns_exit_3_into_a_build_without_pgo() -> None:
    # setup.sh's contract with pgo.sh: 0 and a path -> -Cprofile-use; 3 -> a plain build that
    # says so; anything else stops setup.
    text = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert "profdata=$(scripts/pgo.sh) || rc=$?" in text
    assert 'elif [ "$rc" -eq 3 ]; then' in text and "without profile-guided optimisation" in text
    test_sh = (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert "scripts/test-pgo.sh" in test_sh
