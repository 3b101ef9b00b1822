"""The shape of the `ftlab` package: the public surface `dir(ftlab)` shows, that every public
name resolves, that the subpackages group the code by role, and that importing `ftlab` stays
light. Not a test of what the functions compute (test_run, test_report_api and the others)."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import ftlab

#: The public API the issue asks to keep stable, beyond the exception classes and constants.
STABLE = ("run", "load", "plot", "compare", "sweep", "reproduce", "Report", "SweepResult", "load_sweep")

#: Subpackages by role (python/ftlab/): the command line, results and figures, sweeps, the
#: papers' reproductions and application capture.
ROLES = ("cli", "report", "sweeps", "reproduce", "capture")


def test_dir_shows_the_public_api_only() -> None:
    names = dir(ftlab)
    assert names == sorted(ftlab.__all__)
    for leaked in ("Any", "TYPE_CHECKING", "annotations", "_LAZY", "_core_version", "importlib"):
        assert leaked not in names
    for name in STABLE:
        assert name in names


def test_every_public_name_resolves() -> None:
    for name in ftlab.__all__:
        assert getattr(ftlab, name) is not None, name
    assert callable(ftlab.run) and callable(ftlab.reproduce) and callable(ftlab.plot)


def test_subpackages_by_role_and_every_module_imports() -> None:
    packages = {m.name for m in pkgutil.iter_modules(ftlab.__path__) if m.ispkg}
    assert set(ROLES) <= packages, packages
    # No flat leftovers of the old layout beside the role packages (`results`: the typed
    # results, generated from schema/results.schema.json).
    flat = {m.name for m in pkgutil.iter_modules(ftlab.__path__) if not m.ispkg}
    allowed = {"_core", "_bench", "_errors", "_extras", "_json", "_scenarios", "_toml", "api", "results"}
    allowed.add("__main__")
    assert flat <= allowed, flat
    for m in pkgutil.walk_packages(ftlab.__path__, "ftlab."):
        if m.name in ("ftlab._core", "ftlab.__main__"):
            continue
        importlib.import_module(m.name)


def test_import_ftlab_stays_light() -> None:
    code = (
        "import sys, ftlab; print(' '.join(sorted(m for m in ('polars', 'typer', 'rich', "
        "'ray', 'pyarrow') if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert out == ""


def _imports(path: Path) -> set[str]:
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_dependencies_point_one_way() -> None:
    """docs/ARCHITECTURE.md: `_core` <- `_errors`, `_toml`, `_json`, `results` <- `report` <-
    `api` <- `sweeps` <- `reproduce`; `capture` beside them; all <- `cli`. Nothing imports
    `cli`, `report` imports neither `api`, sweeps nor reproductions, and the results module and
    the JSON narrowing (`_json`) import nothing of the package."""
    from pathlib import Path

    root = Path(ftlab.__file__).parent
    forbidden = {
        "report": ("ftlab.cli", "ftlab.api", "ftlab.sweeps", "ftlab.reproduce", "ftlab.capture"),
        "sweeps": ("ftlab.cli", "ftlab.reproduce", "ftlab.capture"),
        "reproduce": ("ftlab.cli", "ftlab.capture"),
        "capture": ("ftlab.cli", "ftlab.report", "ftlab.sweeps", "ftlab.reproduce"),
        "api.py": ("ftlab.cli", "ftlab.sweeps", "ftlab.reproduce", "ftlab.capture"),
        "results.py": ("ftlab",),
        "_json.py": ("ftlab",),
    }
    checked = 0
    for role, banned in forbidden.items():
        files = [root / role] if role.endswith(".py") else sorted((root / role).rglob("*.py"))
        for f in files:
            checked += 1
            bad = sorted(m for m in _imports(f) if m.startswith(banned))
            assert not bad, f"{f.relative_to(root)} imports {bad}"
    assert checked >= 15


def test_every_python_file_is_in_the_code_map() -> None:
    """Each file of python/ftlab is named in docs/ARCHITECTURE.md's code map: by its path, or by
    its name in the row of its directory (`python/ftlab/report/` ... `html.py`)."""
    from pathlib import Path

    root = Path(ftlab.__file__).parent
    doc = (root.parents[1] / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    code_map = doc[doc.index("## Code map") : doc.index("Dependencies point one way")]
    rows = [line for line in code_map.splitlines() if line.startswith("| `")]
    files = sorted([*root.rglob("*.py"), *root.rglob("*.pyi")])
    assert len(files) > 40
    missing = []
    for f in files:
        rel, folder = f"python/{f.relative_to(root.parent)}", f"python/{f.parent.relative_to(root.parent)}"
        first = [row.split(" | ")[0] for row in rows]
        named = any(
            f"`{rel}`" in cell or (f"`{folder}/" in cell and f"`{f.name}`" in cell) for cell in first
        ) or any(row.startswith(f"| `{folder}/` |") and f"`{f.name}`" in row for row in rows)
        if not named:
            missing.append(rel)
    assert missing == []
