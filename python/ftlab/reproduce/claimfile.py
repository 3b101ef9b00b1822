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
must be healthy in what the claim reads), `rests_on` (what the claim reads: `latency`,
`throughput`, `wear` or `arithmetic`, `claims.RESTS_ON`; it decides which health checks gate
it, DESIGN §12), `ours` (true for a claim about a scheme of ftlab's that is not in the paper:
shown beside the paper's claims, never in its tally), `floor` (a value claim's floor: 1 for
WAF and DLWA), `formula` (how `paper` follows from the numbers the quote prints, where it is
not one of them: "1/3.1", "1 - 38.5/100"), `device_time` (true for a claim stated in wall-clock
units of the device's life, days between swaps or minutes per migration: judged only on the
full time scale, never on a quick form, DESIGN §12) and, instead of `measure`, `not_measured` (why ftlab
cannot measure it).

This module judges numbers it is given; it runs no simulation (the paper modules do) and
prints nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import ast
import functools
import json
import math
import os
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypedDict, cast

from ftlab import _toml
from ftlab._errors import MissingResultError, input_error
from ftlab.reproduce.claims import (
    ADJECTIVES,
    ARITHMETIC,
    BOUND,
    EXACT,
    FACTOR,
    INVALID,
    KINDS,
    NOT_MEASURED,
    ORDER,
    RESTS_ON,
    Claim,
    ClaimDict,
    FtlabValue,
    Health,
    finite,
    fmt_value,
    gate_reasons,
    judge,
    median,
    tally,
    tally_line,
)
from ftlab.reproduce.decl import keys_of, table


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
    rests_on: str = ""
    ours: bool = False
    floor: float | None = None
    formula: str = ""
    device_time: bool = False

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
    health: Health | None = None
    quick: bool = False


def path_of(name: str) -> Traversable:
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


def _spec(where: str, index: int, raw: object) -> Spec:
    label = f"claims[{index}] ({raw.get('id', '?') if isinstance(raw, Mapping) else '?'})"
    fields = table(where, label, raw, keys_of(Spec))
    for key in ("id", "text", "quote", "where", "kind", "rests_on"):
        if not isinstance(fields.get(key), str) or not fields[key]:
            raise input_error(where, f"{label}: `{key}` must be a non-empty string")
    # The TOML boundary: the raw table fills `Spec` as it is (`Any`), and `_check` then checks
    # each field's type and value.
    values: dict[str, Any] = dict(fields)
    values["runs"] = tuple(values.get("runs") or ())
    spec = Spec(**values)
    _check(where, label, spec)
    return spec


def _check(where: str, label: str, s: Spec) -> None:
    def bad(reason: str) -> None:
        raise input_error(where, f"{label}: {reason}")

    if s.kind not in KINDS:
        bad(f"kind {s.kind!r} is not one of {', '.join(KINDS)}")
    if s.rests_on not in RESTS_ON:
        bad(f"rests_on {s.rests_on!r} is not one of {', '.join(RESTS_ON)}")
    if s.rests_on == ARITHMETIC and s.runs:
        bad("an arithmetic claim rests on no run (it recomputes the paper's formulas)")
    if s.rests_on != ARITHMETIC and s.measure and not s.runs:
        bad(f"a claim resting on {s.rests_on} names the `runs` it reads")
    if s.floor is not None and not (s.kind == "value" and s.paper is not None and s.paper > s.floor):
        bad("`floor` is for a value claim whose `paper` is above it")
    if not isinstance(s.device_time, bool):
        bad("`device_time` must be true or false")
    if not isinstance(s.ours, bool):
        bad("`ours` must be true or false")
    if bool(s.measure) == bool(s.not_measured):
        bad("needs exactly one of `measure` (a computation name) and `not_measured` (a reason)")
    if s.kind in (FACTOR, EXACT, "value") and not (finite(s.paper) and s.paper > 0):
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


#: Numbers a `formula` may use beside those the quote prints: units and percentages.
FORMULA_CONSTANTS = frozenset({0.0, 1.0, 2.0, 10.0, 100.0, 1000.0, 1024.0, 1e6, 60.0, 24.0, 3600.0})
_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?")


def printed_numbers(text: str) -> set[float]:
    """The numbers a text prints ("1,234.5" is 1234.5; "3.1x" is 3.1; "4KB" is 4).

    >>> sorted(printed_numbers("lower DLWA from 1.3 to 1.03, 2.6x lower, 1,024 blocks, 4KB"))
    [1.03, 1.3, 2.6, 4.0, 1024.0]
    """
    return {float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)}


def formula_problem(s: Spec) -> str:
    """Why `s`'s paper value is not a number its quote prints, nor computed from those by its
    `formula` (DESIGN §12: only what the paper prints counts); "" when it is. A formula is
    arithmetic (+ − * / and parentheses) on numbers the quote prints and FORMULA_CONSTANTS.

    >>> spec = lambda **kw: Spec(id="x", text="", quote="p99 −38.5%", where="", kind="factor", **kw)
    >>> formula_problem(spec(paper=0.615, formula="1 - 38.5/100")), formula_problem(spec(paper=0.5))
    ('', 'paper value 0.5 is not printed in the quote and has no `formula`')
    """
    if s.paper is None:
        return ""
    printed = printed_numbers(s.quote)
    if not s.formula:
        if any(math.isclose(s.paper, n, rel_tol=1e-12, abs_tol=1e-12) for n in printed):
            return ""
        return f"paper value {s.paper:g} is not printed in the quote and has no `formula`"
    try:
        value, used = _arith(ast.parse(s.formula, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError) as e:
        return f"formula {s.formula!r} is not arithmetic on numbers: {e}"
    foreign = sorted(n for n in used if n not in printed and n not in FORMULA_CONSTANTS)
    if foreign:
        return f"formula {s.formula!r} uses {', '.join(f'{n:g}' for n in foreign)}, not printed in the quote"
    if not math.isclose(value, s.paper, rel_tol=1e-3):
        return f"formula {s.formula!r} gives {value:.6g}, not the paper value {s.paper:g}"
    return ""


def _arith(node: ast.expr) -> tuple[float, list[float]]:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value), [float(node.value)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v, used = _arith(node.operand)
        return -v, used
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        (a, ua), (b, ub) = _arith(node.left), _arith(node.right)
        ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
        value = ops[type(node.op)] if not isinstance(node.op, ast.Div) else a / b
        return value, ua + ub
    raise ValueError(f"unexpected {ast.dump(node)}")


# --------------------------------------------------------------------------------------
# Evaluation


def evaluate(paper: PaperClaims, seeds: Sequence[SeedResult]) -> list[Claim]:
    """Every claim of `paper`, judged over `seeds` (claims.py's rule): `not measured` with the
    file's reason, a measurement's `missing`, or a seed without a number; `invalid` when a run
    it rests on is unhealthy, in any seed, in what the claim reads (`claims.gate_reasons`);
    otherwise the kind's verdict of the median over seeds (an order: of every seed's sign),
    with the spread. A `measure` no seed computes is a bug of the paper module: a KeyError
    naming it."""
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
        rests_on=spec.rests_on,
        ours=spec.ours,
    )
    if spec.not_measured:
        return base(ftlab_value=None, verdict=NOT_MEASURED, why=spec.not_measured, reason=spec.not_measured)
    if spec.device_time and any(s.quick for s in seeds):
        reason = (
            "a quick form compresses the device's time: a claim in days or minutes of its life is "
            "judged on the full form only (DESIGN §12)"
        )
        return base(ftlab_value=None, verdict=NOT_MEASURED, why=reason, reason=reason)
    results = [_measured(spec, s) for s in seeds]
    missing = next((m.missing for m in results if m.missing), "")
    if missing:
        return base(ftlab_value=None, verdict=NOT_MEASURED, why=results[0].why, reason=missing)
    values = tuple(m.value for m in results)
    no_number = [s.seed for s, v in zip(seeds, values, strict=True) if not _is_number(v)]
    if no_number or not values:
        reason = f"{spec.measure} gave no number (seeds {', '.join(map(str, no_number))})"
        return base(
            ftlab_value=None,
            verdict=NOT_MEASURED,
            why=results[0].why if results else reason,
            values=values,
            reason=reason,
        )
    numbers = [float(v) for v in values]  # type: ignore[arg-type]
    value: FtlabValue = values[0] if len(values) == 1 else median(numbers)
    spread = (min(numbers), max(numbers)) if len(numbers) > 1 else None
    why = _median_why(results, values, value)
    if spread is not None and spread[0] != spread[1]:
        why += f" Over {len(seeds)} seeds: {fmt_value(spread[0])} to {fmt_value(spread[1])}."
    elif spread is not None and spec.kind == ORDER:
        why += f" Every one of the {len(seeds)} seeds gives this margin: its spread is 0."
    reason = unhealthy(spec.runs, seeds, spec.rests_on)
    if reason:
        return base(ftlab_value=value, verdict=INVALID, why=why, spread=spread, values=values, reason=reason)
    verdict = judge(
        spec.kind,
        spec.paper,
        value,
        op=spec.op,
        digits=spec.digits,
        adjective=spec.adjective,
        margins=values if spec.kind == ORDER else None,
        high=spec.high,
        floor=spec.floor,
    )
    return base(ftlab_value=value, verdict=verdict, why=why, spread=spread, values=values)


def _measured(spec: Spec, s: SeedResult) -> Measured:
    if spec.measure not in s.measured:
        raise KeyError(
            f"claim {spec.id}: no computation {spec.measure!r} (seed {s.seed}); computed: "
            f"{', '.join(s.measured)}"
        )
    return s.measured[spec.measure]


def _is_number(v: FtlabValue) -> bool:
    return isinstance(v, bool) or finite(v)


def _median_why(results: Sequence[Measured], values: Sequence[FtlabValue], value: FtlabValue) -> str:
    """The `why` of the seed whose value is the median (the first seed's otherwise)."""
    for m, v in zip(results, values, strict=True):
        if v == value:
            return m.why
    return results[0].why


def unhealthy(runs: Sequence[str], seeds: Sequence[SeedResult], rests_on: str = "latency") -> str:
    """Why a claim resting on `runs` and reading `rests_on` is invalid: each run unhealthy in
    what the claim reads (per seed, `claims.gate_reasons`), or a run without a health record;
    "" if all are ok."""
    problems = []
    for s in seeds:
        schemes = s.health["schemes"] if s.health else {}
        for run in runs:
            h = schemes.get(run)
            if h is None:
                problems.append(f"no health record for run {run!r} (seed {s.seed})")
                continue
            reasons = gate_reasons(h, rests_on)
            if reasons:
                problems.append(f"run {run} unhealthy for {rests_on} (seed {s.seed}): {'; '.join(reasons)}")
    return "; ".join(problems)


# --------------------------------------------------------------------------------------
# Listing and Markdown


def list_text(paper: PaperClaims, width: int = 100) -> str:
    """The claims of `paper` as plain text within `width` columns (`--list-claims`)."""
    wrap = textwrap.TextWrapper(width=width, subsequent_indent="    ", break_long_words=True)
    lines = [*wrap.wrap(f"{paper.name}: {paper.citation}"), f"{len(paper.claims)} claims", ""]
    for s in paper.claims:
        ours = "; ours, not the paper's scheme" if s.ours else ""
        lines += wrap.wrap(f"{s.id} ({s.kind}, rests on {s.rests_on}{ours}; {s.where})")
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


class VerdictRow(TypedDict):
    """A claim as the verdict file keeps it (`row_of`)."""

    verdict: str
    ftlab_value: FtlabValue
    spread: list[FtlabValue] | None


class ClaimsJson(TypedDict, total=False):
    """The keys of a reproduction's claims.json that its readers use (`parse_claims_json`)."""

    reproduction: str
    seeds: list[int]
    quick: bool
    claims: list[ClaimDict]


def parse_claims_json(text: str) -> ClaimsJson:
    """A claims.json's text as the claims file `claims.write_claims` writes: an object (its
    keys are the writer's, not checked further here; a foreign file is told apart by its
    `reproduction`). Not an object: ValueError."""
    doc: object = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError(f"expected a JSON object, found {type(doc).__name__}")
    return cast("ClaimsJson", doc)


def rounded(value: FtlabValue) -> FtlabValue:
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


def row_of(claim: ClaimDict) -> VerdictRow:
    """A claim (claims.json's dict) as the verdict file keeps it: verdict, rounded value and spread."""
    spread = claim.get("spread")
    return {
        "verdict": claim["verdict"],
        "ftlab_value": rounded(claim.get("ftlab_value")),
        "spread": None if spread is None else [rounded(spread[0]), rounded(spread[1])],
    }


def markdown(paper: PaperClaims, rows: Mapping[str, VerdictRow]) -> str:
    """The claims table of `paper` in Markdown, ftlab's columns from `rows` (id -> `row_of`),
    then the tally line (`claims.tally_line`); the same text from a run's claims.json and from
    the committed verdict file. A claim about our variant says "(ours)"."""
    out = [
        "| id | claim | where | kind | rests on | paper | ftlab [min, max over seeds] | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    judged = []
    for s in paper.claims:
        r = rows.get(s.id)
        if r is None:
            ftlab, verdict = "(no result)", "(missing)"
        else:
            ftlab = "-" if r["verdict"] == NOT_MEASURED else _cell_value(s, r)
            verdict = r["verdict"]
            judged.append(
                Claim(s.id, s.text, s.kind, s.paper, None, verdict, "", rests_on=s.rests_on, ours=s.ours)
            )
        text = s.text + (" (ours)" if s.ours else "")
        cells = [f"`{s.id}`", text, s.where, s.kind, s.rests_on, _paper_cell(s), ftlab, verdict]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    out += ["", f"Tally: {tally_line(paper.name, tally(judged))}."]
    return "\n".join(out) + "\n"


def _cell_value(s: Spec, r: VerdictRow) -> str:
    v = r.get("ftlab_value")
    text = fmt_value(v) + ("x" if s.kind == FACTOR and finite(v) else "")
    spread = r.get("spread")
    if spread is not None:
        text += f" [{fmt_value(spread[0])}, {fmt_value(spread[1])}]"
    return text


def markdown_from_file(name: str, path: str | os.PathLike[str]) -> str:
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
    try:
        doc = parse_claims_json(file.read_text(encoding="utf-8"))
    except ValueError as e:  # json.JSONDecodeError among them
        raise input_error(file, f"is not a reproduction's claims.json: {e}") from e
    if doc.get("reproduction") != name:
        raise input_error(file, f"is the claims of {doc.get('reproduction')!r}, not of {name!r}")
    return markdown(load(name), {c["id"]: row_of(c) for c in doc.get("claims") or []})
