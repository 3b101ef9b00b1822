"""The build scripts' own checks: what scripts/setup.sh refuses before it builds anything, and
that scripts/pgo.sh (the profile-guided release build, not run by CI: CI builds the test-release
profile) is valid bash. Not the build itself (CI runs scripts/setup.sh) nor the README's
commands (test_readme.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_setup_refuses_an_ftlab_pgo_other_than_0_or_1() -> None:
    env = {**os.environ, "FTLAB_PGO": "yes"}
    done = subprocess.run(["scripts/setup.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert done.stderr.strip() == "setup: FTLAB_PGO must be 0 or 1, not 'yes'"
    # Refused before anything ran: no step of the setup printed a line.
    assert done.stdout == ""


def test_the_pgo_script_is_valid_bash() -> None:
    done = subprocess.run(["bash", "-n", "scripts/pgo.sh"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
