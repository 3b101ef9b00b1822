"""ftlab.reproduce: `ftlab reproduce NAME`, one command per paper's experiment.

It holds the registry of reproductions (`REPRODUCTIONS`: name -> the module whose `PAPER`, a
`Reproduction`, runs it) and `reproduce(name, ...)`, which runs one over one or more seeds:
its scenarios through `ftlab.run`, the paper's claims (its claim file,
`ftlab.reproduce.claimfile`) beside ftlab's numbers with a verdict each
(`ftlab.reproduce.claims`), the health checks, the paper's figures and, on request, a
sensitivity sweep. A paper is run from its data (`ftlab.reproduce.driver`): a new one adds a
scenario, one claim file papers/NAME.toml with its `[reproduce]` table (its description,
expected wall time, scenarios and runs: the registry lists it from there) and one module NAME.py
with its `PaperCode` as `PAPER = Driven(...)`. This package is orchestration: no simulation
logic (the Rust core), no terminal output (`ftlab.cli.reproduce`). Importing it imports
nothing heavy.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from importlib import resources
from pathlib import Path
from typing import Union

from ftlab import _core, _toml
from ftlab._errors import MissingResultError, input_error, usage_error
from ftlab._scenarios import SCENARIOS_DIR
from ftlab.reproduce.claims import ReproductionResult
from ftlab.reproduce.protocol import Progress, Reproduction
from ftlab.reproduce.seeds import run_seeds

StrPath = Union[str, "os.PathLike[str]"]


def _registry() -> dict[str, tuple[str, str, tuple[float, float]]]:
    """Every claim file with a `[reproduce]` table (papers/NAME.toml, package data): NAME with
    "-" for "_" -> (the module of its own code, `ftlab.reproduce.NAME`, its description, its
    expected wall time quick and full). A table without them is an `ftlab.InputError`."""
    found = {}
    for path in sorted(resources.files(__name__).joinpath("papers").iterdir(), key=lambda p: p.name):
        if not path.name.endswith(".toml"):
            continue
        table = _toml.loads(path.read_text(encoding="utf-8")).get("reproduce")
        if table is None:
            continue
        stem = path.name.removesuffix(".toml")
        wall = table.get("expected_wall_s")
        if not isinstance(table.get("description"), str) or not (
            isinstance(wall, list) and len(wall) == 2 and all(isinstance(w, (int, float)) for w in wall)
        ):
            raise input_error(
                f"ftlab/reproduce/papers/{path.name}",
                "[reproduce] needs `description` (a string) and `expected_wall_s` ([quick, full] seconds)",
            )
        found[stem.replace("_", "-")] = (
            f"{__name__}.{stem}",
            table["description"],
            (float(wall[0]), float(wall[1])),
        )
    return found


_REGISTRY = _registry()
#: Reproductions by name -> (module, one-line description): one per claim file with a
#: `[reproduce]` table.
REPRODUCTIONS: dict[str, tuple[str, str]] = {n: (m, d) for n, (m, d, _) in _REGISTRY.items()}

#: Seeds of the quick forms (the scenario's seed, +1, +2): each claim reports its spread over them.
QUICK_SEEDS = 3

#: Wall time of each reproduction on a 2-core machine, in seconds: (quick form over QUICK_SEEDS
#: seeds, full form over one seed), from `expected_wall_s` of its claim file's [reproduce],
#: printed before a run starts. A guide, not a bound.
EXPECTED_WALL_S: dict[str, tuple[float, float]] = {n: w for n, (_, _, w) in _REGISTRY.items()}


def expected_wall_text(name: str, quick: bool, seeds: int | None) -> str:
    """What a run of `name` will take, for the terminal before it starts.

    >>> expected_wall_text("upi", True, None)
    'upi (quick, 3 seeds): expect about 5 minutes on 2 cores'
    >>> expected_wall_text("part-ftl", False, 2)
    'part-ftl (full, 2 seeds): expect about 2 minutes on 2 cores'
    """
    n = seeds if seeds is not None else (QUICK_SEEDS if quick else 1)
    quick_s, full_s = EXPECTED_WALL_S[name]
    per_seed = quick_s / QUICK_SEEDS if quick else full_s
    wall = per_seed * n
    amount = f"{wall:.0f} seconds" if wall < 90 else f"{wall / 60:.0f} minutes"
    form = f"{'quick' if quick else 'full'}, {n} seed{'s' if n > 1 else ''}"
    return f"{name} ({form}): expect about {amount} on 2 cores"


__all__ = [
    "QUICK_SEEDS",
    "REPRODUCTIONS",
    "Progress",
    "Reproduction",
    "ReproductionResult",
    "default_out",
    "find",
    "expected_wall_text",
    "reproduce",
    "scenario_file",
    "seed_overrides",
]


def reproduce(
    name: str,
    *,
    quick: bool = False,
    out: StrPath | None = None,
    jobs: int | None = None,
    sensitivity: bool = False,
    progress: Progress | None = None,
    seeds: int | None = None,
) -> ReproductionResult:
    """Run the reproduction `name` (one of `REPRODUCTIONS`) over `seeds` seeds and return its
    result. `seeds` (default: QUICK_SEEDS quick, 1 full) runs the scenario with its own seed
    and the next seeds - 1, in parallel; each claim is judged on the median over the seeds,
    with its spread (`ftlab.reproduce.claims`); seed 0 is written to `out/` as a one-seed
    reproduction would be, seed k > 0 to `out/seed-k/`, and the claims over all of them to
    `out/claims.json`.

    `quick` runs its reduced scenario (minutes; the claims' directions, not their
    magnitudes, are meant to hold). `out` is where everything is written (default:
    `default_out(name, quick)`, i.e. results/reproduce-NAME or results/reproduce-NAME-quick):
    the run in `out/run/`, claims.json, the figures with their CSV data, phases.csv and, with
    `sensitivity`, the sweep in `out/sensitivity/` with sensitivity.json, .csv and .md. `jobs`
    is how many schemes are simulated at once (default: the machine's cores).

    Raises `ftlab.UsageError` for an unknown name or a bad `jobs`, `ftlab.InputError` if
    the reproduction's scenario is missing, and any error of `ftlab.run`.

    >>> result = ftlab.reproduce("upi", quick=True)  # doctest: +SKIP
    >>> [(c.id, c.verdict) for c in result.claims]  # doctest: +SKIP
    """
    paper = find(name)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise usage_error("jobs", f"must be a whole number of schemes at least 1, got {jobs!r}")
    n = (QUICK_SEEDS if quick else 1) if seeds is None else seeds
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise usage_error("seeds", f"must be a whole number of seeds at least 1, got {seeds!r}")
    out_dir = Path(os.fspath(out)) if out is not None else default_out(name, quick)
    if n == 1:
        return paper.reproduce(
            quick=quick, out=out_dir, jobs=jobs, sensitivity=sensitivity, progress=progress, seed=0
        )
    return run_seeds(
        name, paper, quick=quick, out=out_dir, jobs=jobs, sensitivity=sensitivity, progress=progress, seeds=n
    )


def find(name: str) -> Reproduction:
    """The `Reproduction` of `name`: its module's `PAPER` (a `driver.Driven`). An unknown
    name is an `ftlab.UsageError`."""
    if name not in REPRODUCTIONS:
        known = ", ".join(sorted(REPRODUCTIONS))
        raise usage_error("name", f"unknown reproduction {name!r}; known reproductions: {known}")
    module = importlib.import_module(REPRODUCTIONS[name][0])
    paper: object = getattr(module, "PAPER", None)
    if not isinstance(paper, Reproduction):
        raise TypeError(f"{module.__name__}: its PAPER is not a Reproduction (reproduce(...))")
    return paper


def default_out(name: str, quick: bool) -> Path:
    """results/reproduce-NAME, or results/reproduce-NAME-quick.

    >>> default_out("upi", True)
    PosixPath('results/reproduce-upi-quick')
    """
    return Path("results") / f"reproduce-{name}{'-quick' if quick else ''}"


def scenario_file(relative: str, what: str) -> Path:
    """The bundled scenario `scenarios/<relative>` (`ftlab._scenarios.SCENARIOS_DIR`: package
    data, installed with the wheel; the repository's scenarios/ in a checkout).

    A missing file raises an `ftlab.InputError` (also a FileNotFoundError) naming the path and
    `what` it is.
    """
    path = SCENARIOS_DIR / relative
    if not path.is_file():
        raise input_error(
            path,
            f"no such file: {what}; `ftlab reproduce` reads its scenarios from the bundled "
            f"scenarios ({SCENARIOS_DIR}), and this installation lacks it",
            MissingResultError,
        )
    return path


def seed_overrides(path: StrPath, offset: int) -> list[str]:
    """The `--set` that runs scenario `path` with its own seed plus `offset` ([] for 0).

    The scenario's seed is read from its resolved form (default 1).
    """
    if offset == 0:
        return []
    base = int(_toml.loads(_core.resolve(source_path=os.fspath(path))).get("seed", 1))
    return [f"seed={base + offset}"]


class _CallableModule(types.ModuleType):
    """This package, callable as `reproduce`: importing a submodule (`ftlab.cli.reproduce`)
    makes `ftlab.reproduce` the package rather than the function, and both must work as
    `ftlab.reproduce("upi", ...)`."""

    def __call__(self, name: str, **kwargs: object) -> ReproductionResult:
        return reproduce(name, **kwargs)  # type: ignore[arg-type]


sys.modules[__name__].__class__ = _CallableModule
