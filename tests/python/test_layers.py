"""The Rust crate's layers point one way (docs/ARCHITECTURE.md, "Dependencies point one way";
issue 43, item 3): every `crate::MODULE` reference in `crates/ftlab/src` goes from a module to a
module of a strictly lower layer, so there is no upward import and no circle between layers.

What is read: the code of every non-test source (comments and a file's `#[cfg(test)]` tail are
left out; `*tests.rs` files are tests), and each `crate::NAME` path in it; the file's own top
module (`crates/ftlab/src/NAME.rs` or `crates/ftlab/src/NAME/...`) is its module. `lib.rs` sits
above everything (it declares the modules and re-exports). Not read: the order of the files
inside one module (simulation/'s own layering is checked with the engine).

`LAYERS` is the order the architecture document gives; `EXCEPTIONS` lists each known upward
reference with its reason, and the test fails if one no longer occurs (a stale exception), so
the list can only shrink."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "crates" / "ftlab" / "src"

#: The crate's layers, lowest first; a module may use modules of lower layers only.
LAYERS: list[set[str]] = [
    {"sim", "error"},
    {"flash", "workload"},
    {"capture", "rt"},
    {"ftl", "host"},
    {"policy"},
    {"knobs", "sched"},
    {"scheme"},
    {"stream"},
    {"metrics"},
    {"scenario"},
    {"simulation"},
    {"array"},
    {"api"},
    {"lib"},
]
RANK = {module: i for i, layer in enumerate(LAYERS) for module in layer}

#: (from module, to module) -> why the reference runs up (none today).
EXCEPTIONS: dict[tuple[str, str], str] = {}


def _code(text: str) -> str:
    cut = re.search(r"^#\[cfg\(test\)\]", text, re.M)
    text = text[: cut.start()] if cut else text
    return re.sub(r"//[^\n]*", "", text)


def references() -> dict[tuple[str, str], list[str]]:
    """(from module, to module) -> the files that make the reference."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.rs")):
        if path.name.endswith("tests.rs"):
            continue
        rel = path.relative_to(SRC)
        module = rel.parts[0].removesuffix(".rs")
        for target in set(re.findall(r"\bcrate::(\w+)", _code(path.read_text(encoding="utf-8")))):
            if target != module:
                found.setdefault((module, target), []).append(rel.as_posix())
    return found


def test_every_module_has_a_layer() -> None:
    modules = {p.name.removesuffix(".rs") for p in SRC.iterdir() if p.suffix == ".rs" or p.is_dir()}
    assert modules == set(RANK), (
        f"add to LAYERS: {sorted(modules - set(RANK))}; gone: {sorted(set(RANK) - modules)}"
    )


def test_references_point_down() -> None:
    up = {
        f"{a} -> {b} ({', '.join(files)})"
        for (a, b), files in references().items()
        if RANK[b] >= RANK[a] and (a, b) not in EXCEPTIONS
    }
    assert not up, "references that do not point to a lower layer:\n" + "\n".join(sorted(up))


def test_every_exception_still_occurs() -> None:
    stale = sorted(set(EXCEPTIONS) - set(references()))
    assert not stale, f"stale exceptions {stale}: remove them"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("use crate::sim::time::SimTime;", {"sim"}),
        ("// crate::api is prose\nlet x = 1;", set()),
        ("let a = 1;\n#[cfg(test)]\nmod tests { use crate::api; }", set()),
        ("fn f() -> crate::flash::Ppa { todo() }", {"flash"}),
    ],
)
def test_the_reader_finds_code_references_only(source: str, expected: set[str]) -> None:
    assert set(re.findall(r"\bcrate::(\w+)", _code(source))) == expected
