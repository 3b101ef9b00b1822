"""No scheme and no stream mapper is named outside its own files and the registry (issue 25,
item 1; mappers: issue 43, item 3).

A scheme brings everything through its registry entry (`scheme::Capabilities`, exposed to
Python as `_core.SCHEMES`): a module that needs to know which schemes have an admission
analysis, a lifetime model or a label asks the registry instead of naming them. This test reads
every Rust and Python source of the package and fails on any scheme name (the list comes from
the registry, `_core.SCHEMES`) outside the places where naming one is the point.

Stream mappers are held to the same rule through their registry (`stream::REGISTRY`, exposed
as `_core.policies()`'s `mappers`): a mapper is named in `crates/ftlab/src/stream/` only, and a
reproduction names the mappers its claim file runs (`runs = ["<workload>/<mapper>"]`) or its
scenarios set (`stream_mapper`). A mapper's identifier form counts only as a module path
(`stream::vstream`, `fdp::Config`): words such as `direct` are common in code.

What counts as naming a scheme:
- Rust: a string literal equal to a scheme's name (`"part-ftl"`), or its identifier form
  (`part_ftl`) as a word in code (a module path such as `scheme::part_ftl::Config`). Comments
  and doc comments are prose and are not read; nor is a file's `#[cfg(test)]` tail.
- Python: a string constant equal to a scheme's name, outside docstrings (doctests use scheme
  names as example data). Python reaches a scheme by its name only, so identifiers are not read.

Where a scheme may be named (docs/schemes/README.md, "Where a scheme is named"):
- `crates/ftlab/src/scheme/`: the schemes and the registry. A scheme's file may build on
  another scheme's mechanism (upi and flashblox use partitioned's die shares).
- `crates/ftlab/src/rt/NAME.rs`: the real-time analysis of scheme NAME, its own name only;
  `rt/mod.rs` declares them (`pub(crate) mod NAME;`).
- Tests (`crates/ftlab/tests/`, `*tests.rs`, `#[cfg(test)]` tails, `tests/python/`),
  scenarios (`scenarios/`, TOML) and docs (`docs/`, Markdown): not read.
- `python/ftlab/reproduce/NAME.py`, a reproduction of a paper: the schemes its paper's scenario
  files list (`scenarios/reproduce/NAME*.toml`, `schemes`), and for a reproduction of the
  paper's real-time analysis the schemes with one (`_core.RT_SCHEMES`). A reproduction is about
  its paper's schemes; the scenario says which, and this test holds the module to them.
- A reproduction's name (`ftlab reproduce NAME`, `REPRODUCTIONS`) and a device preset's name
  (`device.preset`) are a paper's name, not a scheme's, even where they are spelled alike: the
  places listed in `PAPER_NAMES` below.
- `EXCEPTIONS` below: each with its reason. The test fails if one of them no longer names the
  scheme (a stale exception), so the list can only shrink.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from ftlab import _core
from ftlab._toml import loads as toml_loads

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "crates" / "ftlab" / "src"
NAMES = [e["name"] for e in _core.SCHEMES]
MAPPERS = [m["name"] for m in json.loads(_core.policies())["mappers"]]

#: (file relative to the repository, scheme name) -> why naming it there is right.
EXCEPTIONS: dict[tuple[str, str], str] = {
    **{
        ("crates/ftlab/src/lib.rs", name): "`ftlab::internals` re-exports, under the path they have in "
        "the crate (`rt::NAME`, `scheme::NAME`), the formulas of each scheme and of its real-time "
        "analysis that the integration tests check (tests/flashblox.rs, part_ftl.rs, rt.rs, "
        "upi.rs, wao_gc.rs): a module list, as `rt/mod.rs` declares them"
        for name in ("flashblox", "part-ftl", "rtgc", "upi", "wao-gc")
    },
    **{
        ("crates/ftlab/src/lib.rs", name): "`ftlab::internals` re-exports the mappers' types that the "
        "integration tests drive (tests/fdp.rs, streams.rs, vstream.rs), under their crate path "
        "`stream::NAME`: a module list"
        for name in ("autostream", "dac", "direct", "fdp", "manual", "vstream")
    },
}

#: Files where a literal spelled like a scheme is a paper's name: a reproduction's name
#: (`ftlab reproduce NAME`) or a device preset named after a paper's device.
PAPER_NAMES: dict[str, str] = {
    "crates/ftlab/src/scenario/presets.rs": "device presets `upi`, `flashblox`, `vstream` and "
    "`fdp`: the papers' devices",
    "python/ftlab/reproduce/__init__.py": "`REPRODUCTIONS`: one reproduction per paper",
    "python/ftlab/reproduce/verdicts.py": "`NAMES`: the reproductions CI runs",
}


def _rust_code(text: str) -> tuple[str, list[str]]:
    """The code of a Rust file with comments blanked and string literals taken out (returned
    apart), up to its `#[cfg(test)]` tail."""
    cut = re.search(r"^#\[cfg\(test\)\]", text, re.M)
    text = text[: cut.start()] if cut else text
    code, strings, i = [], [], 0
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif m := re.match(r'r(#*)"', text[i:]):
            end = text.index('"' + m.group(1), i + len(m.group(0)))
            strings.append(text[i + len(m.group(0)) : end])
            code.append(" ")
            i = end + 1 + len(m.group(1))
        elif text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            strings.append(text[i + 1 : j])
            code.append(" ")
            i = j + 1
        elif m := re.match(r"'(\\.|[^\\'])'", text[i:]):
            code.append(" ")
            i += len(m.group(0))
        else:
            code.append(text[i])
            i += 1
    return "".join(code), strings


def rust_hits(path: Path) -> set[str]:
    code, strings = _rust_code(path.read_text())
    hits = {s for s in strings if s in NAMES or s in MAPPERS}
    for name in NAMES:
        if re.search(rf"\b{name.replace('-', '_')}\b", code):
            hits.add(name)
    for name in MAPPERS:
        if re.search(rf"(::\s*{name}\b)|(\b{name}\s*::)", code):
            hits.add(name)
    return hits


def python_hits(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in docstrings
        and (n.value in NAMES or n.value in MAPPERS)
    }


def _own_rt_name(rel: str) -> str | None:
    """The scheme whose analysis `rel` is (`crates/ftlab/src/rt/NAME.rs`)."""
    m = re.fullmatch(r"crates/ftlab/src/rt/(\w+)\.rs", rel)
    return next((n for n in NAMES if m and n.replace("-", "_") == m.group(1)), None)


def reproduction_schemes(module: Path) -> set[str]:
    """The schemes and mappers reproduction `module` (`reproduce/NAME.py`) may name: its
    scenarios' (`schemes`, `stream_mapper`) and its claim file's runs' mappers."""
    stem = module.stem.replace("_", "-")
    names: set[str] = set()
    for toml in (ROOT / "scenarios" / "reproduce").glob(f"{stem}*.toml"):
        data = toml_loads(toml.read_text())
        names.update(data.get("schemes", []))
        names.update([data["stream_mapper"]] if "stream_mapper" in data else [])
    claims = module.parent / "papers" / f"{module.stem}.toml"
    if claims.is_file():
        runs = [r for c in toml_loads(claims.read_text()).get("claims", []) for r in c.get("runs", [])]
        names.update(m for r in runs for m in MAPPERS if r.split("/")[-1].split("-")[0] == m)
    if module.read_text().find("_core.rt_schedulability") >= 0:
        names.update(_core.RT_SCHEMES)
    return names


def allowed(rel: str) -> set[str]:
    if rel.startswith("crates/ftlab/src/scheme/"):
        return set(NAMES)
    if rel.startswith("crates/ftlab/src/stream/"):
        return set(MAPPERS)
    if rel == "crates/ftlab/src/rt/mod.rs":
        return set()
    own = _own_rt_name(rel)
    if own:
        return {own}
    if rel.startswith("python/ftlab/reproduce/") and rel.count("/") == 3:
        return reproduction_schemes(ROOT / rel)
    # A reproduction's native example (`examples/<reproduction>_<what>.rs`, e.g.
    # flashblox_lifetime.rs) may name what that reproduction's scenarios run.
    m = re.fullmatch(r"crates/ftlab/examples/([a-z]+(?:_ftl)?)_\w+\.rs", rel)
    module = ROOT / "python" / "ftlab" / "reproduce" / f"{m.group(1)}.py" if m else None
    if module is not None and module.is_file():
        return reproduction_schemes(module)
    return set()


def sources() -> list[Path]:
    rust = [
        p
        for d in (SRC, ROOT / "crates" / "ftlab-py" / "src", ROOT / "crates" / "ftlab" / "examples")
        for p in d.rglob("*.rs")
        if not p.name.endswith("tests.rs")
    ]
    python = [p for p in (ROOT / "python" / "ftlab").rglob("*.py*") if p.suffix in (".py", ".pyi")]
    return sorted(rust + python)


def hits(path: Path) -> set[str]:
    rel = path.relative_to(ROOT).as_posix()
    if rel in PAPER_NAMES:
        return set()
    found = rust_hits(path) if path.suffix == ".rs" else python_hits(path)
    if rel == "crates/ftlab/src/rt/mod.rs":
        # `pub(crate) mod NAME;` declares each analysis: the module list, as a registry.
        code, _ = _rust_code(path.read_text())
        decl = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod (\w+);", code, re.M))
        found = {n for n in found if n.replace("-", "_") not in decl}
    return found - allowed(rel)


def test_the_registry_lists_the_schemes() -> None:
    assert len(NAMES) >= 8 and len(set(NAMES)) == len(NAMES)
    assert set(_core.RT_SCHEMES) <= set(NAMES)
    assert len(MAPPERS) >= 7 and not set(MAPPERS) & set(NAMES)


def test_no_scheme_is_named_outside_its_files_and_the_registry() -> None:
    found = {}
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        names = {n for n in hits(path) if (rel, n) not in EXCEPTIONS}
        if names:
            found[rel] = sorted(names)
    assert not found, (
        "schemes named outside their files and the registry (ask the registry, `scheme::info`, "
        f"`scheme::analyses`, `_core.SCHEMES`, or see this test's docstring): {found}"
    )


@pytest.mark.parametrize("rel,name", sorted(EXCEPTIONS))
def test_every_exception_still_names_its_scheme(rel: str, name: str) -> None:
    assert name in hits(ROOT / rel), f"stale exception: {rel} no longer names {name}; remove it"


@pytest.mark.parametrize(
    "source,expected",
    [
        ('let x = "part-ftl";', {"part-ftl"}),
        ("use crate::scheme::flashblox::Vssd;", {"flashblox"}),
        ('// the "rtgc" scheme\nlet y = 1;', set()),
        ('let z = "scheme.upi.epoch_s";', set()),
        ('let a = 1;\n#[cfg(test)]\nmod tests { const N: &str = "unified"; }', set()),
        ("let c = 'u'; let w = wao_gc::Config::paper();", {"wao-gc"}),
        ('let r = r#"rtgc"#;', {"rtgc"}),
    ],
)
def test_the_rust_reader_finds_names_in_code_only(tmp_path: Path, source: str, expected: set[str]) -> None:
    f = tmp_path / "x.rs"
    f.write_text(source)
    assert rust_hits(f) == expected


def test_the_python_reader_skips_docstrings(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text('"""Uses "upi".\n\n>>> f("unified")\n"""\nX = "part-ftl"\nY = f"{X} and rtgc"\n')
    assert python_hits(f) == {"part-ftl"}
