"""ftlab.sweeps: parameter sweeps, `ftlab.sweep(...) -> SweepResult` and `ftlab.load_sweep(dir)`.

A sweep runs a base scenario over a grid or list of overrides and seeds (the sweep file,
`ftlab.sweeps.spec`, documented in docs/sweep.md), one Ray task per run (`ftlab.sweeps.exec`),
and collects one tidy table (`ftlab.sweeps.table`) and a summary plot (`ftlab.sweeps.plot`).
The sweep directory holds `runs/<key>/` (one finished run each, `key` the sha256 of its
resolved scenario), `sweep.parquet`, `failures.json`, `sweep.json` and the plot. Runs already
in `runs/` are not run again, so an interrupted sweep resumes. This module orchestrates;
it prints nothing (the CLI does) and holds no simulation logic.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Union

from ftlab import _core
from ftlab._extras import require
from ftlab.report import load, write_files_atomically
from ftlab.sweeps.exec import DirLock, Job, TaskError, clean_stale, execute, is_done, start_ray
from ftlab.sweeps.plot import write_plot
from ftlab.sweeps.spec import (
    Failure,
    PlanEntry,
    PlotSpec,
    Point,
    RunMeta,
    SweepMeta,
    SweepSpec,
    load_spec,
    toml_inline,
)
from ftlab.sweeps.table import build_table

if TYPE_CHECKING:
    import polars as pl

    from ftlab.report import Report

# polars and ray are imported inside the functions that use them, not here: heavy, and `ftlab
# --help` and `import ftlab` start without them.

StrPath = Union[str, "os.PathLike[str]"]
TABLE_FILE = "sweep.parquet"
FAILURES_FILE = "failures.json"
META_FILE = "sweep.json"


class SweepInterrupted(KeyboardInterrupt):
    """The sweep was interrupted (Ctrl-C): runs in flight are lost, finished ones are kept
    in `dir/runs`; running the same sweep again resumes. `done` of `total` runs were kept."""

    def __init__(self, dir: Path, done: int, total: int) -> None:
        super().__init__(f"sweep interrupted: {done} of {total} runs done in {dir}")
        self.dir, self.done, self.total = dir, done, total


class SweepResult:
    """The results of a sweep: its directory, tidy table, planned runs, failures and plot.

    Example:
        >>> result = ftlab.load_sweep("results/op-by-scheme")  # doctest: +SKIP
        >>> unified = result.table.filter(pl.col("scheme") == "unified")  # doctest: +SKIP
        >>> unified.select("device.over_provisioning", "waf")  # doctest: +SKIP
        >>> one = result.report(result.table["run"][0])  # one run's Report  # doctest: +SKIP
        >>> one.write("results/one", html=True)  # doctest: +SKIP
    """

    def __init__(self, dir: Path, table: pl.DataFrame, meta: SweepMeta, failures: list[Failure]) -> None:
        #: The sweep directory.
        self.dir = dir
        #: One row per run, scheme and tenant (see docs/sweep.md for the columns).
        self.table = table
        #: The swept parameters, as table columns.
        self.parameters: list[str] = list(meta["parameters"])
        #: Every planned run: run (key, None if its scenario did not resolve), params, case, seed, overrides.
        self.runs: list[PlanEntry] = list(meta["runs"])
        #: Failed runs: run, params, case, seed, overrides, kind, error (the ftlab error message).
        self.failures = failures
        plot = meta["plot"]
        tenants = tuple(plot["tenants"]) if plot and plot["tenants"] else None
        #: The `[plot]` of the sweep file (None without one).
        self.plot_spec = (
            PlotSpec(plot["metric"], plot["x"], plot["error"], plot["file"], tenants) if plot else None
        )
        #: The summary plot (PNG), if the sweep has one and it was drawn.
        self.plot: Path | None = dir / plot["file"] if plot and (dir / plot["file"]).is_file() else None
        #: Runs this call executed, and runs found done before (None when loaded from disk).
        self.ran: int | None = None
        self.reused: int | None = None

    @property
    def ok(self) -> bool:
        """True if every planned run finished."""
        return not self.failures

    def report(self, run: str) -> Report:
        """The full Report of one run (a value of the `run` column), read from `runs/<run>/`.

        Example:
            >>> ftlab.load_sweep("results/op-by-scheme").report(key).timeseries  # doctest: +SKIP
        """
        return load(self.dir / "runs" / run)

    def __repr__(self) -> str:
        return (
            f"<ftlab.SweepResult {self.dir} runs={len(self.runs)} "
            f"failures={len(self.failures)} table={self.table.shape}>"
        )


def sweep(
    spec: StrPath | Mapping[str, object],
    *,
    out: StrPath | None = None,
    address: str | None = None,
    retries: int = 0,
    set: Iterable[str] = (),
    progress: Callable[[int, int], None] | None = None,
    on_failure: Callable[[Failure], None] | None = None,
) -> SweepResult:
    """Run a sweep (a sweep TOML file, or a dict of the same structure) on Ray; return its
    SweepResult. Failed runs do not stop the others: they are in `result.failures`.

    `out` overrides the sweep's output directory (default: its `out` key, else
    `results/<sweep file stem>`). `address` is a Ray cluster ("auto", "ray://host:10001");
    None starts a local Ray instance unless Ray is already initialised in this process.
    `retries` is how often Ray reruns a task whose worker died. `set` overrides apply to every
    run before the sweep's own. `progress(done, total)` follows finished runs;
    `on_failure(failure)` is called for each failed run as it fails.

    Raises `ftlab.FtlabError` for a bad sweep file or base scenario, and `SweepInterrupted`
    (a KeyboardInterrupt) on Ctrl-C; finished runs are kept and a rerun resumes.

    Example:
        >>> result = ftlab.sweep("scenarios/sweeps/op-by-scheme.toml", out="results/op")  # doctest: +SKIP
        >>> by_op = result.table.group_by("scheme", "device.over_provisioning")  # doctest: +SKIP
        >>> by_op.agg(pl.col("waf").mean())  # doctest: +SKIP

    Without Ray (the `sweep` extra, `pip install 'ftlab[sweep]'`) it raises
    `ModuleNotFoundError` saying so.
    """
    require("sweep", "ftlab.sweep")
    spec_ = load_spec(spec)
    out_dir = Path(os.fspath(out)) if out is not None else spec_.out or Path("results") / spec_.stem
    counter = _Counter(progress)
    try:
        return _sweep(
            spec_,
            out_dir,
            tuple([set] if isinstance(set, str) else set),
            address,
            retries,
            counter,
            on_failure or (lambda f: None),
        )
    except SweepInterrupted:
        raise
    except KeyboardInterrupt:
        raise SweepInterrupted(out_dir, counter.done, counter.total) from None


def _sweep(
    spec: SweepSpec,
    out_dir: Path,
    extra_set: tuple[str, ...],
    address: str | None,
    retries: int,
    counter: _Counter,
    on_failure: Callable[[Failure], None],
) -> SweepResult:
    points, resolved, failures = resolve_all(spec, spec.points(extra_set))
    for f in failures:
        on_failure(f)
    runs_dir = out_dir / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    with DirLock(out_dir):
        clean_stale(runs_dir)
        todo = {k: r for k, r in resolved.items() if not is_done(runs_dir, k)}
        counter.start(len(resolved) + len(failures) - len(todo), len(resolved) + len(failures))
        failures += _execute(spec, points, todo, runs_dir, address, retries, counter, on_failure)
        result = _collect(spec, points, out_dir, failures)
    result.ran, result.reused = len(todo), len(resolved) - len(todo)
    return result


def resolve_all(spec: SweepSpec, points: list[Point]) -> tuple[list[Point], dict[str, str], list[Failure]]:
    """Resolve every point's scenario: the points with their run keys, {run key: resolved
    TOML} (in plan order) and the failures of points whose overrides the core rejects. A
    base scenario that cannot be read or parsed, or an error every point shares, is raised."""
    keys: dict[str, str] = {}
    failures: list[Failure] = []
    out: list[Point] = []
    errors: list[_core.FtlabError] = []
    for point in points:
        try:
            resolved = _core.resolve(**_source(spec), seed=point.seed, overrides=list(point.overrides))
        except _core.FtlabError as e:
            if isinstance(e, _core.InputError) or e.line is not None:
                raise
            errors.append(e)
            failures.append(_failure(point, type(e).__name__, str(e)))
            out.append(point)
            continue
        key = hashlib.sha256(resolved.encode("utf-8")).hexdigest()
        out.append(dataclasses.replace(point, key=key))
        keys.setdefault(key, resolved)
    if errors and len(errors) == len(points) and len({str(e) for e in errors}) == 1:
        raise errors[0]
    return out, keys, failures


def _source(spec: SweepSpec) -> dict[str, str]:
    return {"text": spec.scenario_text, "base_dir": str(spec.scenario_dir), "name": spec.scenario_name}


def _execute(
    spec: SweepSpec,
    points: list[Point],
    todo: dict[str, str],
    runs_dir: Path,
    address: str | None,
    retries: int,
    counter: _Counter,
    on_failure: Callable[[Failure], None],
) -> list[Failure]:
    """Run the `todo` runs on Ray; the failures, one per point of each failed run."""
    by_key: dict[str, list[Point]] = {}
    for p in points:
        by_key.setdefault(p.key or "", []).append(p)
    jobs = [
        Job(k, toml, spec.scenario_name, str(spec.scenario_dir), _meta(spec, by_key[k][0]))
        for k, toml in todo.items()
    ]
    failures: list[Failure] = []

    def on_done(job: Job, error: TaskError | None) -> None:
        if error is None:
            return
        for p in by_key[job.key]:
            failures.append(_failure(p, error["kind"], error["message"]))
            on_failure(failures[-1])
        counter.step()

    if not jobs:
        return failures
    started = start_ray(address)
    try:
        execute(jobs, runs_dir, retries=retries, on_done=on_done)
    finally:
        if started:
            import ray

            ray.shutdown()
    return failures


def _collect(spec: SweepSpec, points: list[Point], out_dir: Path, failures: list[Failure]) -> SweepResult:
    """Build the table of the finished runs; write sweep.parquet, failures.json and
    sweep.json atomically, then the plot."""
    runs_dir = out_dir / "runs"
    done = [(p, p.key) for p in points if p.key and is_done(runs_dir, p.key)]
    table = build_table(spec.parameters, points, done, runs_dir)
    meta = SweepMeta(
        ftlab_version=_core.version(),
        sweep=spec.file,
        name=spec.name,
        scenario=spec.scenario_name,
        parameters=spec.parameters,
        plot=spec.plot_record(),
        runs=[_plan_entry(p) for p in points],
    )
    write_files_atomically(
        out_dir,
        {
            TABLE_FILE: lambda p: table.write_parquet(p),
            FAILURES_FILE: lambda p: _write_json(p, failures),
            META_FILE: lambda p: _write_json(p, meta),
        },
    )
    if spec.plot and table.height:
        write_plot(table, spec.plot, spec.parameters, spec.file, out_dir)
    return SweepResult(out_dir, table, meta, failures)


def load_sweep(sweep_dir: StrPath) -> SweepResult:
    """Read a sweep directory written by `ftlab.sweep` (or `ftlab sweep`).

    Example:
        >>> result = ftlab.load_sweep("results/op-by-scheme")  # doctest: +SKIP
        >>> result.table.columns[:6]   # parameters, then seed, run, scheme, tenant  # doctest: +SKIP
        ['device.over_provisioning', 'schemes', 'seed', 'run', 'scheme', 'tenant']
    """
    import polars as pl

    d = Path(os.fspath(sweep_dir))
    meta: SweepMeta = json.loads((d / META_FILE).read_text(encoding="utf-8"))
    failures: list[Failure] = json.loads((d / FAILURES_FILE).read_text(encoding="utf-8"))
    return SweepResult(d, pl.read_parquet(d / TABLE_FILE), meta, failures)


class _Counter:
    """Finished runs so far, reported to a progress callback."""

    def __init__(self, progress: Callable[[int, int], None] | None) -> None:
        self.done, self.total, self.progress = 0, 0, progress

    def start(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.progress:
            self.progress(done, total)

    def step(self) -> None:
        self.done += 1
        if self.progress:
            self.progress(self.done, self.total)


def _plan_entry(p: Point) -> PlanEntry:
    return PlanEntry(run=p.key, params=p.params, case=p.case, seed=p.seed, overrides=list(p.overrides))


def _meta(spec: SweepSpec, p: Point) -> RunMeta:
    return RunMeta(
        sweep=spec.file,
        ftlab_version=_core.version(),
        params=p.params,
        case=p.case,
        seed=p.seed,
        overrides=list(p.overrides),
    )


def _failure(p: Point, kind: str, message: str) -> Failure:
    return Failure(**_plan_entry(p), kind=kind, error=message)


def describe(failure: PlanEntry) -> str:
    """A failed run's parameters as one line: `key=value, ..., seed=N`.

    >>> describe({"params": {"device.over_provisioning": -1.0, "schemes": ["unified"]}, "seed": 2})
    'device.over_provisioning=-1.0, schemes=["unified"], seed=2'
    """
    parts = [f"{k}={v if k == 'case' else toml_inline(v)}" for k, v in failure["params"].items()]
    if failure.get("seed") is not None:
        parts.append(f"seed={failure['seed']}")
    return ", ".join(parts) or "(base scenario)"


def _write_json(path: str, value: object) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, default=str)
        f.write("\n")
