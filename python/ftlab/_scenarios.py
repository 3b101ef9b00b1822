"""The scenarios bundled with ftlab: where they are, their names and one-line descriptions.

The scenarios (`scenarios/`) and the data they replay (`data/`: the trace samples and the
RocksDB capture) are package data: `ftlab/scenarios` and `ftlab/data` in an installed wheel,
and links to the repository's `scenarios/` and `data/` in a checkout, so relative trace paths
(`../data/traces/...`) resolve the same way in both. `ftlab scenarios` lists them, `ftlab run
NAME` runs one by name, and `ftlab reproduce` reads its scenarios from here. Not here: running
a scenario (`ftlab.api`) or its validation (the core).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ftlab import _toml

#: The bundled scenarios: the package's `scenarios` directory, resolved (in a checkout the
#: link resolves to the repository's scenarios/).
SCENARIOS_DIR = (Path(__file__).parent / "scenarios").resolve()


@dataclass(frozen=True)
class BundledScenario:
    """One bundled scenario: its name (the path under `SCENARIOS_DIR` without `.toml`), its
    file, the first line of its leading comment, and the trace files it names that are not
    there (a scenario whose trace must first be made, e.g. by `ftlab capture`)."""

    name: str
    path: Path
    description: str
    missing_traces: tuple[Path, ...]


def bundled_scenarios() -> list[BundledScenario]:
    """Every bundled scenario, sorted by name (sweep files under sweeps/ are not scenarios)."""
    found = []
    for path in sorted(SCENARIOS_DIR.rglob("*.toml")):
        relative = path.relative_to(SCENARIOS_DIR)
        if relative.parts[0] == "sweeps":
            continue
        name = relative.with_suffix("").as_posix()
        found.append(
            BundledScenario(
                name, path, first_comment_line(path.read_text(encoding="utf-8")), missing_traces(path)
            )
        )
    return found


def bundled_scenario(name: str) -> Path | None:
    """The file of the bundled scenario `name` (`real-traces`, `reproduce/upi-quick`), or None."""
    if not name or name.endswith(".toml") or name.startswith(("/", ".")) or "\\" in name:
        return None
    path = SCENARIOS_DIR / f"{name}.toml"
    return path if path.is_file() and SCENARIOS_DIR in path.resolve().parents else None


#: The longest description `ftlab scenarios` shows (two lines of a 100-column terminal).
DESCRIPTION_CHARS_MAX = 150


def first_comment_line(text: str) -> str:
    r"""The first sentence of the leading `#` comment, without its name prefix (`x.toml: `),
    cut between words with " …" past `DESCRIPTION_CHARS_MAX` characters (never inside a
    word); "" without a leading comment.

    >>> first_comment_line("# default.toml: three tenants. Each\n# more\nseed = 1\n")
    'three tenants.'
    >>> first_comment_line("# a scenario that\n# spans lines.\nseed = 1\n")
    'a scenario that spans lines.'
    >>> first_comment_line("seed = 1\n")
    ''
    >>> first_comment_line("# " + "word " * 40)[-11:]
    'word word …'
    """
    lines: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        body = stripped.lstrip("#").strip()
        if not body and lines:
            break
        if body:
            lines.append(body)
    comment = " ".join(lines)
    head, sep, rest = comment.partition(": ")
    if sep and " " not in head:
        comment = rest
    end = comment.find(". ")
    sentence = comment if end < 0 else comment[: end + 1]
    if len(sentence) > DESCRIPTION_CHARS_MAX:
        cut = sentence[: DESCRIPTION_CHARS_MAX - 1]
        if not sentence[DESCRIPTION_CHARS_MAX - 1].isspace() and " " in cut:
            cut = cut.rsplit(" ", 1)[0]  # a word cut in two: drop it whole
        sentence = cut.rstrip(" ,;:") + " …"
    return sentence.strip()


def missing_traces(path: Path) -> tuple[Path, ...]:
    """The trace files `path` names (relative to its directory) that do not exist."""
    data = _toml.loads(path.read_text(encoding="utf-8"))
    traces = [
        t["trace"]
        for t in data.get("tenants", [])
        if isinstance(t, dict) and isinstance(t.get("trace"), dict)
    ]
    wanted = [path.parent / str(trace["path"]) for trace in traces if "path" in trace]
    return tuple(p for p in wanted if not p.is_file())
