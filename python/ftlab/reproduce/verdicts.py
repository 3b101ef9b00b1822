"""ftlab.reproduce.verdicts: the committed verdicts of the quick reproductions
(tests/data/verdicts-quick.json) and the generated claims tables of docs/reproductions.md.

CI records verdicts instead of exempting claims: every quick reproduction's claims, each with
its verdict and ftlab's value and spread rounded (`claimfile.row_of`), are committed; a test
(`check`) fails when a verdict differs, and the docs' claims tables are generated from the same
file (`docs_tables`, between `<!-- claims-table NAME -->` and `<!-- /claims-table NAME -->`).

Regenerate both, after a reviewed change, from the repository's root with one command:

    python -m ftlab.reproduce.verdicts --write

It runs the quick reproductions (`NAMES`) (each over `QUICK_SEEDS` seeds) into results/verdicts/,
writes tests/data/verdicts-quick.json and rewrites the tables of docs/reproductions.md. It prints
every verdict that changed and every value that moved beyond its spread (`differences`), and
records them in the file (`changes`); a test checks that each claim named there has a line in
the "Verdict changes" list of docs/reproductions.md saying why.
`--from-results` rewrites both from existing results/verdicts/NAME/claims.json without running.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict, cast

from ftlab.reproduce import QUICK_SEEDS, claimfile, reproduce
from ftlab.reproduce.claimfile import VerdictRow
from ftlab.reproduce.claims import Claim, finite

#: The reproductions whose quick forms CI runs, in the docs' order.
NAMES = ("upi", "vstream", "part-ftl", "flashblox", "fdp-cachelib", "ioda")
VERDICTS_FILE = Path("tests/data/verdicts-quick.json")
DOCS_FILE = Path("docs/reproductions.md")
RESULTS = Path("results/verdicts")
COMMAND = "python -m ftlab.reproduce.verdicts --write"


#: A reproduction's rows in the verdict file: claim id -> its row.
Rows = Mapping[str, VerdictRow]


class VerdictDoc(TypedDict, total=False):
    """The verdict file (`document`); `load` reads it."""

    about: str
    seeds: int
    changes: list[str]
    reproductions: dict[str, dict[str, VerdictRow]]


def rows(claims: Sequence[Claim]) -> dict[str, VerdictRow]:
    """The verdict file's rows of a reproduction's claims: id -> verdict, rounded value, spread."""
    return {c.id: claimfile.row_of(c.to_dict()) for c in claims}


def load(path: Path) -> VerdictDoc:
    """The committed verdict file (JSON written by `document`; its keys are not checked here)."""
    doc: object = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: a verdict file is a JSON object, not {type(doc).__name__}")
    return cast("VerdictDoc", doc)


def differences(name: str, committed: Rows, now: Rows) -> list[str]:
    """Each verdict of reproduction `name` that differs between the committed rows and `now`,
    each value that moved beyond its spread (`moved`) where the verdict stayed, and each claim
    present in one only, as a sentence.

    >>> differences("x", {"a": {"verdict": "reproduced", "ftlab_value": 1.0}},
    ...             {"a": {"verdict": "differs", "ftlab_value": 3.0}})
    ["x/a: committed 'reproduced' (ftlab 1.0), now 'differs' (ftlab 3.0)"]
    >>> differences("x", {"a": {"verdict": "differs", "ftlab_value": 1.0, "spread": [0.9, 1.1]}},
    ...             {"a": {"verdict": "differs", "ftlab_value": 1.5, "spread": [1.4, 1.6]}})
    ["x/a: 'differs' stays, the value moved beyond its spread: 1.0 [0.9, 1.1] -> 1.5 [1.4, 1.6]"]
    """
    out = []
    for cid in dict.fromkeys([*committed, *now]):
        old, new = committed.get(cid), now.get(cid)
        if old is None:
            assert new is not None, "each id comes from one of the two files"
            out.append(
                f"{name}/{cid}: new claim, now {new['verdict']!r} (ftlab "
                f"{new.get('ftlab_value')}); not in the committed file"
            )
        elif new is None:
            out.append(f"{name}/{cid}: committed {old['verdict']!r}, no longer a claim")
        elif old["verdict"] != new["verdict"]:
            out.append(
                f"{name}/{cid}: committed {old['verdict']!r} (ftlab {old.get('ftlab_value')}), now "
                f"{new['verdict']!r} (ftlab {new.get('ftlab_value')})"
            )
        elif moved(old, new):
            out.append(
                f"{name}/{cid}: {new['verdict']!r} stays, the value moved beyond its spread: "
                f"{_shown(old)} -> {_shown(new)}"
            )
    return out


def moved(old: VerdictRow, new: VerdictRow) -> bool:
    """Whether a claim's value moved beyond its spread: each value lies outside the other's
    [min, max] over seeds (a one-seed value: outside the other's value itself). Values are
    compared as the verdict file keeps them (3 significant digits); a value that appears or
    vanishes moved.

    >>> moved({"ftlab_value": 1.0, "spread": [0.9, 1.1]}, {"ftlab_value": 1.05, "spread": [1.0, 1.2]})
    False
    >>> moved({"ftlab_value": 1.0, "spread": None}, {"ftlab_value": None, "spread": None})
    True
    """
    a, b = old.get("ftlab_value"), new.get("ftlab_value")
    if a is None or b is None:
        return (a is None) != (b is None)

    def extent(row: VerdictRow, v: float) -> tuple[float, float]:
        spread = row.get("spread")
        if not spread:
            return float(v), float(v)
        lo, hi = spread
        assert finite(lo) and finite(hi), f"a spread is two numbers, not {spread}"
        return float(lo), float(hi)

    (alo, ahi), (blo, bhi) = extent(old, a), extent(new, b)
    return not (blo <= float(a) <= bhi) and not (alo <= float(b) <= ahi)


def _shown(row: VerdictRow) -> str:
    spread = row.get("spread")
    return f"{row.get('ftlab_value')}" + (f" [{spread[0]}, {spread[1]}]" if spread else "")


def check(name: str, claims: Sequence[Claim], path: Path) -> list[str]:
    """`differences` of a quick run's claims against the verdict file at `path`, each followed
    by what to do; empty when every verdict is as committed."""
    committed = (load(path).get("reproductions") or {}).get(name) or {}
    found = differences(name, committed, rows(claims))
    if not found:
        return []
    return [
        *found,
        f"If the change is intended: regenerate {VERDICTS_FILE} with `{COMMAND}` (from the "
        "repository's root) "
        f'and add a line to the "Verdict changes" list of {DOCS_FILE} saying why the verdict changed.',
    ]


def document(by_name: Mapping[str, Rows], seeds: int, changes: Sequence[str] = ()) -> VerdictDoc:
    """The verdict file's content; `changes` the `differences` of its last regeneration
    against the file before it (each claim named there needs a line under "Verdict changes")."""
    return {
        "about": f"Verdicts of the quick reproductions over {seeds} seeds, per claim: verdict, "
        "ftlab's value and spread (3 significant digits). "
        f"Checked by the quick tests; regenerate with `{COMMAND}` and say why in "
        "docs/reproductions.md, Verdict changes.",
        "seeds": seeds,
        "changes": list(changes),
        "reproductions": {n: dict(by_name[n]) for n in NAMES if n in by_name},
    }


def changed_ids(doc: VerdictDoc) -> list[str]:
    """The "name/claim" of every change the verdict file's last regeneration recorded.

    >>> changed_ids({"changes": ["upi/a: committed 'holds' (ftlab 1), now 'violated' (ftlab -1)"]})
    ['upi/a']
    """
    return [c.split(":", 1)[0] for c in doc.get("changes") or []]


def docs_tables(doc: VerdictDoc) -> dict[str, str]:
    """The Markdown claims table of each reproduction (NAMES) from a verdict file; a
    reproduction the file lacks gets its claims with "(no result)"."""
    found = doc.get("reproductions") or {}
    return {n: claimfile.markdown(claimfile.load(n), found.get(n) or {}) for n in NAMES}


def _marker(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- claims-table {re.escape(name)} -->\n)(.*?)(<!-- /claims-table {re.escape(name)} -->)", re.S
    )


def docs_blocks(text: str) -> dict[str, str]:
    """The claims tables found in the docs' text, by reproduction (between the markers)."""
    return {n: m.group(2) for n in NAMES if (m := _marker(n).search(text))}


def replace_tables(text: str, tables: Mapping[str, str]) -> str:
    """The docs' text with each marked table replaced by `tables[name]`; a missing marker is a
    ValueError naming it."""
    for name, table in tables.items():
        pattern = _marker(name)
        if not pattern.search(text):
            raise ValueError(
                f"{DOCS_FILE}: no <!-- claims-table {name} --> ... <!-- /claims-table {name} --> block"
            )
        text = pattern.sub(lambda m, t=table: m.group(1) + t + m.group(3), text)  # type: ignore[misc]
    return text


#: The docs whose run-derived numbers must be generated or stamped (DESIGN §12, issue 38).
STAMPED_DOCS = ("docs/reproductions.md", "docs/schemes/*.md", "docs/streams/*.md")
#: A stamp: "*From the run at <commit>, <date>.*" (or "*From runs at ...*"); it covers the text
#: after it up to the next heading or stamp.
STAMP = re.compile(r"\*From (?:the run|runs) at ([0-9a-f]{7,40}), (\d{4}-\d{2}-\d{2})[.:]\*")
_HEADING = re.compile(r"^#{1,6} ")
#: Marks a paragraph whose numbers come from no run (a rule's examples, a configuration).
NO_RUN = "<!-- no run -->"
#: A dated entry of a change log ("- 2026-11-26: ..."): a record of its day, not a description
#: of today's results.
_LOG_ENTRY = re.compile(r"^- \d{4}-\d{2}-\d{2}: ")
#: A number a run gives: a decimal, a percentage, a factor or a quantity with a unit.
_RUN_NUMBER = re.compile(
    r"(?<![\w.§-])[−+-]?\d[\d,]*(?:\.\d+)?(?:\s?%|x\b|\s?(?:µs|ms|MB/s|MiB|GB|s wall|days|dies|erases))"
    r"|(?<![\w.§-])\d+\.\d+(?![\w.])"
)
#: Words that say a paragraph reports a run.
_RUN_WORDS = re.compile(
    r"quick form|full form|\bmeasured\b|\bin ftlab\b|ftlab's|\bseeds?\b|\bwall\b|\bthe runs?\b|"
    r"\bftlab (?:is|gives|has|measures|finds)\b",
    re.I,
)


def unstamped(text: str) -> list[str]:
    r"""The paragraphs of a Markdown text that report numbers from a run (a number a run gives
    and a word that says so) and are neither generated (inside a claims-table block) nor
    stamped (after a `STAMP`, up to the next heading), nor marked `<!-- no run -->` (a rule's
    examples, a configuration), nor a dated change-log entry. Code blocks and HTML comments
    are skipped; each paragraph is returned as its first line.

    >>> doc = "# A\n\nThe quick form gives 3.5x.\n\n## B\n\n"
    >>> doc += "*From the run at abc1234, 2026-11-28.*\n\nThe quick form gives 2.1x.\n"
    >>> unstamped(doc)
    ['The quick form gives 3.5x.']
    """
    out, stamped, generated, fenced = [], False, False, False
    for block in re.split(r"\n\s*\n", text):
        first = block.strip().splitlines()[0] if block.strip() else ""
        if first.startswith("```"):
            fenced = not fenced if block.count("```") % 2 else fenced
            continue
        if fenced:
            fenced = not block.count("```") % 2
            continue
        if _HEADING.match(first):
            stamped = False
        if "<!-- claims-table" in block or "<!-- generated" in block:
            generated = not ("<!-- /claims-table" in block or "<!-- /generated" in block)
            continue
        if generated:
            generated = not ("<!-- /claims-table" in block or "<!-- /generated" in block)
            continue
        if STAMP.search(block):
            stamped = True
        if NO_RUN in block or _LOG_ENTRY.match(first):
            continue
        prose = re.sub(r"<!--.*?-->", "", block, flags=re.S)
        if not stamped and _RUN_NUMBER.search(prose) and _RUN_WORDS.search(prose):
            out.append(first)
    return out


def stamps(text: str) -> list[tuple[str, str]]:
    """Every stamp's (commit, date) in a text."""
    return [(m.group(1), m.group(2)) for m in STAMP.finditer(text)]


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ftlab.reproduce.verdicts --write [--from-results] [--root DIR]`."""
    parser = argparse.ArgumentParser(
        prog="python -m ftlab.reproduce.verdicts", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="run the quick reproductions and write the verdict file and the docs' tables",
    )
    parser.add_argument(
        "--from-results", action="store_true", help=f"do not run: read {RESULTS}/NAME/claims.json"
    )
    parser.add_argument(
        "--root", type=Path, default=Path.cwd(), help="the repository's root (default: the current directory)"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="simulations at once (the results do not depend on it)"
    )
    args = parser.parse_args(argv)
    if not args.write:
        parser.error("nothing to do: give --write")
    by_name = {}
    for name in NAMES:
        out = args.root / RESULTS / name
        if not args.from_results:
            reproduce(name, quick=True, out=out, jobs=args.jobs)
        path = out / "claims.json"
        if not path.is_file():
            print(
                f"warning: {path} is missing: {name} is left out of the verdict file (its tables "
                "say no result)"
            )
            continue
        doc = claimfile.parse_claims_json(path.read_text(encoding="utf-8"))
        if len(doc.get("seeds") or []) != QUICK_SEEDS or doc.get("quick") is not True:
            print(
                f"warning: {path} is not a quick run over {QUICK_SEEDS} seeds (unfinished?): "
                f"{name} is left out of the verdict file"
            )
            continue
        by_name[name] = {c["id"]: claimfile.row_of(c) for c in doc.get("claims") or []}
    before = load(args.root / VERDICTS_FILE) if (args.root / VERDICTS_FILE).is_file() else {}
    changes = [
        line
        for name in NAMES
        if name in by_name
        for line in differences(name, (before.get("reproductions") or {}).get(name) or {}, by_name[name])
    ]
    if not changes:  # a regeneration that changes nothing keeps the last one's record
        changes = list(before.get("changes") or [])
    else:
        print(f'{len(changes)} changes; each needs a line under "Verdict changes" in {DOCS_FILE}:')
        for line in changes:
            print(f"  {line}")
    verdicts = document(by_name, QUICK_SEEDS, changes)
    (args.root / VERDICTS_FILE).write_text(
        json.dumps(verdicts, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    docs = args.root / DOCS_FILE
    docs.write_text(replace_tables(docs.read_text(encoding="utf-8"), docs_tables(verdicts)), encoding="utf-8")
    print(f"wrote {args.root / VERDICTS_FILE} and the claims tables of {docs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
