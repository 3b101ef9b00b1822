"""Tests of ftlab's optional parts (issue 42 item 5): Ray and the test-only packages are extras
of pyproject.toml (`ftlab[sweep]`, `ftlab[test]`), the dev extra (what requirements.lock pins)
still takes them all, and `ftlab sweep` / `ftlab.sweep` without Ray say in one line which extra
to install. Ray's absence is simulated in a subprocess (`sys.modules["ray"] = None`); these
tests do not run a sweep (test_sweep.py does)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import tomllib

from conftest import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: Run the CLI, or the API, in a Python where `import ray` fails as if Ray were not installed.
WITHOUT_RAY = "import sys\nsys.modules['ray'] = None\n"


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=;!~]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_ray_and_the_test_packages_are_extras_and_dev_takes_them() -> None:
    project = PYPROJECT["project"]
    core = {_name(r) for r in project["dependencies"]}
    extras = project["optional-dependencies"]
    assert "ray" not in core and {_name(r) for r in extras["sweep"]} == {"ray"}
    assert {"pytest", "selenium"} <= {_name(r) for r in extras["test"]}
    assert not {"pytest", "selenium", "pytest-xdist"} & core
    # report.html (written by every `ftlab run`) embeds plotly.js: plotly is not optional.
    assert "plotly" in core
    assert "ftlab[sweep,test]" in extras["dev"]


def test_the_lock_pins_every_dependency_of_every_extra() -> None:
    """requirements.lock (what the dev venv installs) still pins all of them."""
    lock = (REPO_ROOT / "requirements.lock").read_text(encoding="utf-8")
    pinned = {m.group(1).lower() for m in re.finditer(r"^([A-Za-z0-9_.-]+)==", lock, flags=re.M)}
    project = PYPROJECT["project"]
    wanted = {_name(r) for r in project["dependencies"] if "python_version" not in r}
    for reqs in project["optional-dependencies"].values():
        wanted |= {_name(r) for r in reqs if not r.startswith("ftlab[")}
    assert wanted <= pinned, wanted - pinned


def test_ftlab_sweep_without_ray_names_the_extra(tmp_path: Path) -> None:
    code = WITHOUT_RAY + (
        "from ftlab.cli import main\n"
        f"sys.argv = ['ftlab', 'sweep', {str(REPO_ROOT / 'scenarios/sweeps/op-by-scheme.toml')!r}]\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr == "ftlab sweep needs Ray: pip install 'ftlab[sweep]'\n"
    assert not (tmp_path / "results").exists()


def test_ftlab_sweep_api_without_ray_raises_naming_the_extra(tmp_path: Path) -> None:
    code = WITHOUT_RAY + (
        "import ftlab\n"
        "try:\n"
        f"    ftlab.sweep({str(REPO_ROOT / 'scenarios/sweeps/op-by-scheme.toml')!r})\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout == "ftlab.sweep needs Ray: pip install 'ftlab[sweep]'\n", proc.stderr
