"""ftlab.reproduce.seeds: one reproduction over several seeds, in parallel, judged together.

`run_seeds` runs the paper's `Reproduction` once per seed offset (0 = the scenario's own
seed) into `out/` for seed 0 (its run, figures and files, as a one-seed reproduction writes
them) and `out/seed-k/` for the others, in one thread pool (`ftlab.run` releases the GIL), then judges every
claim of the claim file on the seeds' measurements (`claimfile.evaluate`: the median, the
spread, `invalid` if any seed's run is unhealthy) and writes `out/claims.json` over seed 0's. Every file it
writes depends on the scenario and seeds only, never on `jobs` or on the order the seeds finish.
It runs no simulation itself and prints nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ftlab import _core
from ftlab.report import html, plots  # noqa: F401  (before the seeds' threads race to import them)
from ftlab.reproduce import claimfile
from ftlab.reproduce.claims import CLAIMS_FILE, Health, ReproductionResult, write_claims_json
from ftlab.reproduce.protocol import Progress, Reproduction

# matplotlib, numpy, plotly and polars are imported inside the functions that use them, not here:
# heavy, and `ftlab --help` and `import ftlab` start without them.


def run_seeds(
    name: str,
    paper: Reproduction,
    *,
    quick: bool,
    out: Path,
    jobs: int | None,
    sensitivity: bool,
    progress: Progress | None,
    seeds: int,
) -> ReproductionResult:
    """Run `paper.reproduce` for seed offsets 0..seeds-1 (sensitivity on seed 0 only) and
    return the result judged over all of them (claims, merged health, files)."""
    start = time.perf_counter()
    # Every seed at once (unless --jobs is smaller), each with its share of the cores: a seed
    # left to run after the others would otherwise run its simulations on one core.
    cores = jobs or os.cpu_count() or 1
    workers = seeds if jobs is None else min(seeds, jobs)
    inner = max(1, cores // workers)
    preimport()
    done: list[int] = []

    def one(k: int) -> ReproductionResult:
        def on_progress(stage: str, d: int, t: int) -> None:
            if progress:
                progress(f"seed {k}: {stage} ({len(done)}/{seeds} seeds done)", d, t)

        result = paper.reproduce(
            quick=quick,
            out=seed_dir(out, k),
            jobs=inner,
            sensitivity=sensitivity and k == 0,
            progress=on_progress,
            seed=k,
        )
        done.append(k)
        return result

    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(one, range(seeds)))
    claims = claimfile.evaluate(claimfile.load(name), [r.extra["seed_result"] for r in results])
    checks = merged_health([r.health for r in results])
    path = write_claims_json(
        out / CLAIMS_FILE,
        claims,
        reproduction=name,
        paper=claimfile.load(name).citation,
        quick=quick,
        ftlab_version=_core.version(),
        seeds=[
            {"offset": k, "dir": str(seed_dir(Path("."), k)), "scenario": str(r.scenario)}
            for k, r in enumerate(results)
        ],
        health=checks,
    )
    first = results[0]
    files = [
        *(f for f in first.files if Path(f).name != CLAIMS_FILE),
        path,
        *(seed_dir(out, k) / CLAIMS_FILE for k in range(1, seeds)),
    ]
    extra = {"seeds": [r.extra for r in results], "per_seed": results}
    return ReproductionResult(
        name=name,
        out=out,
        scenario=first.scenario,
        quick=quick,
        claims=claims,
        health=checks,
        phases=first.phases,
        files=files,
        wall_s=time.perf_counter() - start,
        report=first.report,
        sensitivity=first.sensitivity,
        extra=extra,
        notes=[f"{line} (seed {k})" for k, r in enumerate(results) for line in r.notes],
    )


def seed_dir(out: Path, offset: int) -> Path:
    """Where seed `offset` is written: `out` for 0, `out/seed-<offset>` otherwise."""
    return out if offset == 0 else out / f"seed-{offset}"


def merged_health(checks: Sequence[Health]) -> Health:
    """The seeds' health in one `claims.health`-shaped dict: each run as "run [seed k]"."""
    schemes = {
        f"{run} [seed {k}]": h for k, c in enumerate(checks) for run, h in (c.get("schemes") or {}).items()
    }
    return {"ok": all(c.get("ok", False) for c in checks), "schemes": schemes}


def preimport() -> None:
    """Import what the modules import in their threads (writing a Report, its figures and
    tables) before the threads race to import it half-way (numpy's "partially initialized
    module"). Every reproduction that runs in threads calls it first."""
    import matplotlib.figure  # noqa: F401
    import numpy  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import polars  # noqa: F401
