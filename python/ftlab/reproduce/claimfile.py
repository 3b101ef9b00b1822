"""ftlab.reproduce.claimfile: the per-paper claim files (python/ftlab/reproduce/papers/NAME.toml,
package data, so a wheel carries them), their evaluation over seeds into `Claim`s, the
`--list-claims` text and the `--markdown` claims table.

A claim file holds `[paper]` (the citation exactly as the paper copy gives it, and the copy's
file name, for the quote test only) and one `[[claims]]` table per claim: `id`, `text` (a
short label), `quote` (the paper's words, verbatim), `where` (section, figure, table), `kind`
(`ftlab.reproduce.claims.KINDS`), `paper` (the paper's number in the kind's terms: a factor, a
value, a bound; none for an order or an adjective), `paper_text` (the number as the paper
prints it), `op` (a bound's comparison), `adjective` (a key of `claims.ADJECTIVES`), `digits`
(an exact claim's printed decimals), `measure` (the name of the computation that gives ftlab's
value: the reproduction module's `measurements` returns one `Measured` per name), `measures`
(what that computation reads, in words), `runs` (the runs or schemes the value rests on: each
must be healthy) and, instead of `measure`, `not_measured` (why ftlab cannot measure it).

This module judges numbers it is given; it runs no simulation (the paper modules do) and
prints nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import functools
import json
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ftlab import _toml
from ftlab._errors import MissingResultError, input_error, usage_error
from ftlab.reproduce.claims import (
    ADJECTIVES,
    BOUND,
    EXACT,
    FACTOR,
    INVALID,
    KINDS,
    NOT_MEASURED,
    ORDER,
    Claim,
    FtlabValue,
    finite,
    fmt_value,
    judge,
    median,
)

_KEYS = {
    "id",
    "text",
    "quote",
    "where",
    "kind",
    "paper",
    "high",
    "paper_text",
    "op",
    "adjective",
    "digits",
    "measure",
    "measures",
    "runs",
    "not_measured",
}


@dataclass(frozen=True)
class Spec:
    """One claim of a claim file (see the module docstring for the fields)."""

    id: str
    text: str
    quote: str
    where: str
    kind: str
    paper: float | None = None
    high: float | None = None
    paper_text: str = ""
    op: str = ""
    adjective: str = ""
    digits: int | None = None
    measure: str = ""
    measures: str = ""
    runs: tuple[str, ...] = ()
    not_measured: str = ""

    @property
    def bound_text(self) -> str:
        """A bound as text: "≤ 1.1", or the adjective's reading "(1, 1.25]"."""
        if self.kind != BOUND:
            return ""
        if self.adjective:
            return f"{self.adjective}: {ADJECTIVES[self.adjective].describe()}"
        if self.op == "between":
            return f"[{fmt_value(self.paper)}, {fmt_value(self.high)}]"
        return f"{self.op.replace('<=', '≤').replace('>=', '≥')} {fmt_value(self.paper)}"


@dataclass(frozen=True)
class PaperClaims:
    """A claim file: the citation, the paper copy's file name and the claims in order."""

    name: str
    citation: str
    paper_file: str
    claims: tuple[Spec, ...]

    def spec(self, id: str) -> Spec:
        """The claim with this id (a KeyError naming the known ids otherwise)."""
        for s in self.claims:
            if s.id == id:
                return s
        raise KeyError(f"{self.name}: no claim {id!r}; claims: {', '.join(s.id for s in self.claims)}")


@dataclass(frozen=True)
class Measured:
    """One computation's result: ftlab's value and the sentence `why` with the numbers it rests
    on; `missing`, when set, says why the value could not be measured (a summary key absent)."""

    value: FtlabValue
    why: str
    missing: str = ""


@dataclass(frozen=True)
class SeedResult:
    """One seed's measurements (name -> Measured) and health (`claims.health`'s shape)."""

    seed: int
    measured: Mapping[str, Measured]
    health: Mapping[str, Any] = field(default_factory=dict)


def path_of(name: str) -> Any:
    """The claim file of reproduction `name` (a Traversable inside the package)."""
    return resources.files("ftlab.reproduce") / "papers" / f"{name.replace('-', '_')}.toml"


def load(name: str) -> PaperClaims:
    """Read and check the claim file of reproduction `name`. A bad file is an
    `ftlab.InputError` naming the file and the claim."""
    path = path_of(name)
    where = f"ftlab/reproduce/papers/{path.name}"
    doc = _toml.loads(path.read_text(encoding="utf-8"))
    paper = doc.get("paper") or {}
    specs = tuple(_spec(where, i, c) for i, c in enumerate(doc.get("claims") or []))
    ids = [s.id for s in specs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise input_error(where, f"duplicate claim ids: {', '.join(dup)}")
    return PaperClaims(name, str(paper.get("citation", "")), str(paper.get("file", "")), specs)


def _spec(where: str, index: int, raw: Mapping[str, Any]) -> Spec:
    label = f"claims[{index}] ({raw.get('id', '?')})"
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise input_error(
            where, f"{label}: unknown keys {', '.join(unknown)}; valid keys: {', '.join(sorted(_KEYS))}"
        )
    for key in ("id", "text", "quote", "where", "kind"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise input_error(where, f"{label}: `{key}` must be a non-empty string")
    spec = Spec(**{**raw, "runs": tuple(raw.get("runs") or ())})
    _check(where, label, spec)
    return spec


def _check(where: str, label: str, s: Spec) -> None:
    def bad(reason: str) -> None:
        raise input_error(where, f"{label}: {reason}")

    if s.kind not in KINDS:
        bad(f"kind {s.kind!r} is not one of {', '.join(KINDS)}")
    if bool(s.measure) == bool(s.not_measured):
        bad("needs exactly one of `measure` (a computation name) and `not_measured` (a reason)")
    if s.kind in (FACTOR, EXACT, "value") and not (finite(s.paper) and s.paper > 0):  # type: ignore[operator]
        bad(f"a {s.kind} claim needs `paper`, a positive number")
    if s.kind == EXACT and not isinstance(s.digits, int):
        bad("an exact claim needs `digits`, the paper's printed decimals")
    if (
        s.kind == BOUND
        and not s.adjective
        and (s.op not in ("<=", "<", ">=", ">", "between") or not finite(s.paper))
    ):
        bad("a bound needs `op` (<=, <, >=, >, between) and `paper`, or an `adjective`")
    if s.op == "between" and not (finite(s.high) and s.high >= s.paper):  # type: ignore[operator]
        bad("a bound `between` needs `high`, at least `paper`")
    if s.adjective and s.adjective not in ADJECTIVES:
        bad(
            f"adjective {s.adjective!r} is not declared in ftlab.reproduce.claims.ADJECTIVES "
            f"({', '.join(ADJECTIVES)})"
        )


# --------------------------------------------------------------------------------------
# Evaluation


def evaluate(paper: PaperClaims, seeds: Sequence[SeedResult]) -> list[Claim]:
    """Every claim of `paper`, judged over `seeds` (claims.py's rule): `not measured` with the
    file's reason or a measurement's `missing`; `invalid` when a run it rests on is unhealthy
    in any seed; otherwise the kind's verdict of the median over seeds, with the spread.
    A `measure` no seed computes is a bug of the paper module: a KeyError naming it."""
    return [evaluate_one(spec, seeds) for spec in paper.claims]


def evaluate_one(spec: Spec, seeds: Sequence[SeedResult]) -> Claim:
    """One claim over the seeds (see `evaluate`)."""
    base = functools.partial(
        Claim,
        id=spec.id,
        text=spec.text,
        kind=spec.kind,
        paper_value=spec.paper,
        bound=spec.bound_text,
        where=spec.where,
        runs=spec.runs,
    )
    if spec.not_measured:
        return base(ftlab_value=None, verdict=NOT_MEASURED, why=spec.not_measured, reason=spec.not_measured)
    results = []
    for s in seeds:
        if spec.measure not in s.measured:
            raise KeyError(
                f"claim {spec.id}: no computation {spec.measure!r} (seed {s.seed}); computed: "
                f"{', '.join(s.measured)}"
            )
        results.append(s.measured[spec.measure])
    missing = next((m.missing for m in results if m.missing), "")
    if missing:
        return base(ftlab_value=None, verdict=NOT_MEASURED, why=results[0].why, reason=missing)
    values = tuple(m.value for m in results)
    numbers = [
        float(v) for v in values if isinstance(v, (bool, int, float)) and (isinstance(v, bool) or finite(v))
    ]
    value: FtlabValue = (median(numbers) if len(numbers) == len(values) else math.nan) if values else None
    if len(values) == 1:
        value = values[0]
    spread = (min(numbers), max(numbers)) if len(numbers) > 1 else None
    why = _median_why(results, values, value)
    if spread is not None and spread[0] != spread[1]:
        why += f" Over {len(seeds)} seeds: {fmt_value(spread[0])} to {fmt_value(spread[1])}."
    reason = unhealthy(spec.runs, seeds)
    if reason:
        return base(ftlab_value=value, verdict=INVALID, why=why, spread=spread, values=values, reason=reason)
    verdict = judge(
        spec.kind,
        spec.paper,
        value,
        op=spec.op,
        digits=spec.digits,
        adjective=spec.adjective,
        spread=spread if spec.kind == ORDER else None,
        high=spec.high,
    )
    return base(ftlab_value=value, verdict=verdict, why=why, spread=spread, values=values)


def _median_why(results: Sequence[Measured], values: Sequence[FtlabValue], value: FtlabValue) -> str:
    """The `why` of the seed whose value is the median (the first seed's otherwise)."""
    for m, v in zip(results, values, strict=True):
        if v == value:
            return m.why
    return results[0].why


def unhealthy(runs: Sequence[str], seeds: Sequence[SeedResult]) -> str:
    """Why a claim resting on `runs` is invalid: each unhealthy run (per seed, with the health
    check's `reasons` when it gives them), or a run without a health record; "" if all are ok."""
    problems = []
    for s in seeds:
        schemes = (s.health or {}).get("schemes") or {}
        for run in runs:
            h = schemes.get(run)
            if h is None:
                problems.append(f"no health record for run {run!r} (seed {s.seed})")
            elif not h.get("ok", False):
                reasons = h.get("reasons")
                detail = "; ".join(str(r) for r in reasons) if reasons else "a health check failed"
                problems.append(f"run {run} unhealthy (seed {s.seed}): {detail}")
    return "; ".join(problems)


# --------------------------------------------------------------------------------------
# Listing and Markdown


def list_text(paper: PaperClaims, width: int = 100) -> str:
    """The claims of `paper` as plain text within `width` columns (`--list-claims`)."""
    wrap = textwrap.TextWrapper(width=width, subsequent_indent="    ", break_long_words=True)
    lines = [*wrap.wrap(f"{paper.name}: {paper.citation}"), f"{len(paper.claims)} claims", ""]
    for s in paper.claims:
        lines += wrap.wrap(f"{s.id} ({s.kind}; {s.where})")
        lines += wrap.wrap(f'  "{s.quote}"')
        lines += wrap.wrap(f"  paper: {_paper_cell(s)}")
        lines += wrap.wrap(
            f"  ftlab: {'not measured: ' + s.not_measured if s.not_measured else s.measures or s.measure}"
        )
        if s.runs:
            lines += wrap.wrap(f"  rests on: {', '.join(s.runs)}")
        lines.append("")
    return "\n".join(lines)


def _paper_cell(s: Spec) -> str:
    if s.kind == BOUND:
        return f"{s.paper_text} ({s.bound_text})" if s.paper_text else s.bound_text
    if s.kind == ORDER:
        return s.paper_text or "the order holds"
    if s.kind == FACTOR:
        return (
            f"{s.paper_text} (factor {fmt_value(s.paper)})"
            if s.paper_text
            else f"factor {fmt_value(s.paper)}"
        )
    return s.paper_text or fmt_value(s.paper)


def rounded(value: Any) -> Any:
    """A value as the verdict file and the tables keep it: 3 significant digits (booleans and
    None unchanged, NaN as None).

    >>> rounded(0.61549), rounded(1234.5), rounded(True), rounded(float("nan"))
    (0.615, 1230.0, True, None)
    """
    if isinstance(value, bool) or value is None:
        return value
    if not finite(value):
        return None
    return float(f"{float(value):.3g}")


def row_of(claim: Mapping[str, Any]) -> dict[str, Any]:
    """A claim (claims.json's dict) as the verdict file keeps it: verdict, rounded value and spread."""
    spread = claim.get("spread")
    return {
        "verdict": claim["verdict"],
        "ftlab_value": rounded(claim.get("ftlab_value")),
        "spread": None if spread is None else [rounded(spread[0]), rounded(spread[1])],
    }


def markdown(paper: PaperClaims, rows: Mapping[str, Mapping[str, Any]]) -> str:
    """The claims table of `paper` in Markdown, ftlab's columns from `rows` (id -> `row_of`);
    the same text from a run's claims.json and from the committed verdict file."""
    out = [
        "| id | claim | where | kind | paper | ftlab [min, max over seeds] | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in paper.claims:
        r = rows.get(s.id)
        if r is None:
            ftlab, verdict = "(no result)", "(missing)"
        else:
            ftlab = "-" if r["verdict"] == NOT_MEASURED else _cell_value(s, r)
            verdict = r["verdict"]
        cells = [f"`{s.id}`", s.text, s.where, s.kind, _paper_cell(s), ftlab, verdict]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"


def _cell_value(s: Spec, r: Mapping[str, Any]) -> str:
    v = r.get("ftlab_value")
    text = fmt_value(v) + ("x" if s.kind == FACTOR and finite(v) else "")
    spread = r.get("spread")
    if spread is not None:
        text += f" [{fmt_value(spread[0])}, {fmt_value(spread[1])}]"
    return text


def markdown_from_file(name: str, path: Any) -> str:
    """The Markdown claims table of reproduction `name` from a claims.json file. A missing or
    foreign file is an `ftlab.InputError` naming it."""
    file = Path(path)
    if not file.is_file():
        raise input_error(
            file,
            "no such file: a reproduction's claims.json (run `ftlab reproduce NAME` first, or "
            "give --from its output directory)",
            MissingResultError,
        )
    doc = json.loads(file.read_text(encoding="utf-8"))
    if doc.get("reproduction") != name:
        raise input_error(file, f"is the claims of {doc.get('reproduction')!r}, not of {name!r}")
    return markdown(load(name), {c["id"]: row_of(c) for c in doc.get("claims") or []})


def pair_measure(name: str, keys: Sequence[str], paper: str) -> tuple[bool, str, str, str, str]:
    """Parse a two-system computation name "[margin:]<key>:<subject>:<a>/<b>" (key one of
    `keys`) into (margin, key, subject, a, b); anything else is an `ftlab.UsageError` naming
    `paper`'s computations. The papers' modules share it; each computes its own values.

    >>> pair_measure("margin:p99_us:dtrs:upi/unified", ("p99_us",), "UPI")
    (True, 'p99_us', 'dtrs', 'upi', 'unified')
    """
    kind, _, rest = name.partition(":")
    margin = kind == "margin"
    parts = (rest if margin else name).split(":")
    if len(parts) != 3 or parts[2].count("/") != 1 or parts[0] not in keys:
        raise usage_error("measure", f"unknown {paper} computation {name!r}")
    key, subject, pair = parts
    a, b = pair.split("/")
    return margin, key, subject, a, b
