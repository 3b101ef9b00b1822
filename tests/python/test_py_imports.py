"""The Python package's imports point one way (docs/ARCHITECTURE.md, "Dependencies point one
way"; issue 43): no circle of imports between the modules of `python/ftlab`, type-only
imports (under `if TYPE_CHECKING:`) included, since a circle of types is a circle a reader
walks too.

What is read: every `import ftlab...` and `from ftlab... import NAME` of every module (inside
functions too); `from PACKAGE import SUBMODULE` is an import of the submodule, any other
`from MODULE import NAME` an import of MODULE (a package's `__init__.py`); the native module
`ftlab._core` is not a file here. Not read: `importlib` calls (the registry's lookups of paper
modules by name).

`EXCEPTIONS` lists each known circle (its modules, sorted) with its reason; the test fails if
one no longer occurs (a stale exception), so the list can only shrink."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python"

#: A known circle (its modules, sorted) -> why it stays.
EXCEPTIONS: dict[tuple[str, ...], str] = {
    (
        "ftlab.report",
        "ftlab.report.figdata",
        "ftlab.report.html",
        "ftlab.report.series",
    ): "type-only: report.html and figdata annotate their argument as the package's `Report`, "
    "whose `html()` writes the page through report.html",
}


def modules() -> dict[str, Path]:
    """Module name -> its file, for every module of python/ftlab."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(source: str, known: set[str]) -> set[str]:
    """The modules of `known` that `source` imports (see the module docstring)."""

    def owner(name: str) -> str | None:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in known else None

    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {m for a in node.names if a.name.startswith("ftlab") and (m := owner(a.name))}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("ftlab"):
            module = str(node.module)
            for alias in node.names:
                full = f"{module}.{alias.name}"
                target = full if full in known else owner(module)
                if full != "ftlab._core" and target:
                    out.add(target)
    return out


def package_circles() -> list[tuple[str, ...]]:
    """The circles of python/ftlab's imports."""
    files = modules()
    return circles({m: imports(p.read_text(encoding="utf-8"), set(files)) - {m} for m, p in files.items()})


def circles(edges: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Each set of modules that import each other in a circle (a strongly connected component
    of more than one module), sorted; `edges`: module -> the modules it imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[tuple[str, ...]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(tuple(sorted(component)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_circle() -> None:
    new = [c for c in package_circles() if c not in EXCEPTIONS]
    assert not new, "modules that import each other in a circle:\n" + "\n".join(map(str, new))


def test_every_exception_still_occurs() -> None:
    stale = sorted(set(EXCEPTIONS) - set(package_circles()))
    assert not stale, f"stale exceptions {stale}: remove them"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "from ftlab.reproduce import claimfile, QUICK_SEEDS",
            {"ftlab.reproduce.claimfile", "ftlab.reproduce"},
        ),
        ("from ftlab import _core", set()),
        ("import ftlab.report.html as h", {"ftlab.report.html"}),
        ("def f():\n    from ftlab.results import Summary", {"ftlab.results"}),
        ("if TYPE_CHECKING:\n    from ftlab.report import Report", {"ftlab.report"}),
        ("import importlib\nimportlib.import_module('ftlab.reproduce.upi')", set()),
        ("from polars import col", set()),
    ],
)
def test_the_reader_finds_ftlab_imports(source: str, expected: set[str]) -> None:
    known = {"ftlab", "ftlab.reproduce", "ftlab.reproduce.claimfile", "ftlab.report", "ftlab.report.html"}
    known |= {"ftlab.results", "ftlab.reproduce.upi"}
    assert imports(source, known) == expected


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [("a", "b")]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [("a", "b", "c")]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [("a", "b"), ("c", "d")]),
    ],
)
def test_the_finder_finds_each_circle(edges: dict[str, set[str]], expected: list[tuple[str, ...]]) -> None:
    assert circles(edges) == expected
