"""Shared fixtures of the Python tests (tests/python): paths, the trace samples, and a
helper that runs the `ftlab` CLI in a subprocess. Not a test module itself."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


#: The project's copies of the real trace samples (data/traces/README.md: origin, licence).
TRACES_DIR = REPO_ROOT / "data" / "traces"


def traces_dir() -> Path:
    """The repository's trace samples, data/traces (part of the repository: never skipped)."""
    return TRACES_DIR


@pytest.fixture
def trace_file() -> Callable[[str], Path]:
    """trace_file(name) -> Path of a sample in data/traces; a missing one fails the test."""

    def get(name: str) -> Path:
        path = traces_dir() / name
        assert path.is_file(), f"trace sample {path} is missing from the repository"
        return path

    return get


def run_cli(
    args: Sequence[str], cwd: Path | None = None, timeout: float = 900, columns: int | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m ftlab ARGS` (the same entry point as the `ftlab` script), its output
    piped: 100 columns wide, or `columns` (`COLUMNS`) for a test that parses wide tables."""
    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env.pop("COLUMNS", None)
    env["NO_COLOR"] = "1"
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [sys.executable, "-m", "ftlab", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def joined(stderr: str) -> str:
    """An error message as one line: `ftlab` wraps it within the width (a continuation line
    starts with spaces, the break replaces one space), so a test looking for a phrase that
    may span the break looks in this."""
    return " ".join(line.strip() for line in stderr.splitlines())


@pytest.fixture(scope="session")
def ray_session() -> Iterator[ModuleType]:
    """One local Ray instance for the whole test session (Ray takes seconds to start), sized
    like `ftlab sweep`'s own; `ftlab.sweep` uses an initialised Ray as it is. Shut down at
    the end of the session."""
    import ray

    from ftlab.sweeps.exec import start_ray

    started = start_ray()
    yield ray
    if started:
        ray.shutdown()
