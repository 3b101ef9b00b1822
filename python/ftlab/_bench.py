"""ftlab._bench: `python -m ftlab._bench CASE [N] [--set K=V]...`, one `ftlab bench` case in a
fresh process.

Two kinds of case. The core cases (`ftlab._core.BENCH_CASES`: the simulator's throughput on
the standard workload, N = host requests) import only `ftlab._core` and four light standard
modules (json, resource, sys, time), not polars, typer or rich, nor subprocess, tempfile or
pathlib (imported by the Python cases that use them): about 3 MiB of a core case's peak
RSS. The Python cases (`PYTHON_CASES`) time what a user of the Python API waits for:
`run-default` is `ftlab.run(out=DIR)` of the bundled default scenario (simulation, the
tables handed to Python, summary.json, parquet files and report.html written); `load-1e6` is
`ftlab.load(DIR)` plus `report.timeseries.height` on a results directory whose
timeseries.parquet has N rows (default 10^6). That directory is made first by a separate
process (`python -m ftlab._bench --make-results DIR ROWS`: a tiny run, then a synthetic time
series with the run's schema), so neither its time nor its memory counts; the timed part
includes polars' import, as a fresh `ftlab.load` pays it.

Three core cases time no run: `precondition` (kind "precondition": the preconditioning of the
`random-write` device alone, `wall_s` its wall time), `precondition-closed-form` (the same
with `[precondition] overwrites = "closed_form"`) and `memory-1tb` (kind "memory": the
simulation of a 1 TiB device built, `bytes_per_mapping_unit` the heap bytes it holds per
physical mapping unit; its peak RSS is that of the 1 TiB tables).

`--set KEY.PATH=VALUE` (repeatable, after CASE and N) overrides a value of the case's scenario
after the case's own settings: the core cases' standard scenario and `run-default`'s default
scenario; `load-1e6`, which times a load and runs no scenario of its own, refuses it.

Each case prints one JSON object on stdout: `case`, `kind` ("core", "precondition", "memory"
or "python"), `requests` (timed core cases), `rows` (`load-1e6`), `wall_s`, `cpu_s` (the thread
CPU seconds of what a core case times; null for `memory-1tb` and the Python cases), `requests_per_s`
(timed core cases; the others are null), `bytes_per_mapping_unit` (`memory-1tb`; the others
are null) and `peak_rss_bytes`, this process's peak resident set size, so the peak RSS
measured is that of the case alone. `ftlab bench` starts one of these per case (as
`python -c LAUNCH CASE [N]`, lighter than `-m`); this is not the user-facing command, and it
asserts no time bound (the bounds are in docs/PERFORMANCE.md, not in tests).
"""

from __future__ import annotations

import resource
import sys
import time

from ftlab import _core

#: How `ftlab bench` starts a case: `python -c LAUNCH CASE [N]`, the same as `python -m
#: ftlab._bench CASE [N]` without runpy and the modules it imports (0.6 MiB of peak RSS).
LAUNCH = "import sys; from ftlab._bench import main; sys.exit(main(sys.argv[1:]))"
#: The cases measured in Python, after the core's `BENCH_CASES`.
PYTHON_CASES = ("run-default", "load-1e6")
#: Rows of `load-1e6`'s synthetic time series unless N is given.
LOAD_ROWS = 1_000_000
#: The tiny run whose results directory `load-1e6` starts from.
_TINY_RUN = ("measure.duration_s=0.5",)


def peak_rss_bytes() -> int:
    """Peak RSS of this process in bytes (ru_maxrss is KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss) if sys.platform == "darwin" else int(rss) * 1024


def _result(
    case: str,
    kind: str,
    wall_s: float,
    requests: int | None = None,
    rows: int | None = None,
    requests_per_s: float | None = None,
    bytes_per_mapping_unit: float | None = None,
    cpu_s: float | None = None,
) -> dict[str, object]:
    return {
        "case": case,
        "kind": kind,
        "requests": requests,
        "rows": rows,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "requests_per_s": requests_per_s,
        "bytes_per_mapping_unit": bytes_per_mapping_unit,
        "peak_rss_bytes": peak_rss_bytes(),
    }


#: `kind` of the core cases that time no run.
_UNTIMED_KINDS = {
    "precondition": "precondition",
    "precondition-closed-form": "precondition",
    "memory-1tb": "memory",
}


def run_default(overrides: list[str]) -> dict[str, object]:
    """`ftlab.run(out=DIR)` of the bundled default scenario with `overrides` (`--set`), wall
    seconds."""
    # Imported here: the core cases' processes import `ftlab._core` only (their peak RSS).
    import tempfile
    from pathlib import Path

    from ftlab.api import run

    with tempfile.TemporaryDirectory(prefix="ftlab-bench-") as d:
        start = time.perf_counter()
        run(set=overrides, out=Path(d) / "default")
        wall = time.perf_counter() - start
    return _result("run-default", "python", wall)


def load_rows(rows: int) -> dict[str, object]:
    """`ftlab.load(DIR)` and `report.timeseries.height` on a directory with a `rows`-row
    time series (made by another process), wall seconds."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ftlab-bench-") as d:
        subprocess.run([sys.executable, "-m", "ftlab._bench", "--make-results", d, str(rows)], check=True)
        # Imported here: the core cases' processes import `ftlab._core` only (their peak RSS).
        from ftlab.report import load

        start = time.perf_counter()
        report = load(d)
        height = report.timeseries.height
        wall = time.perf_counter() - start
    assert height == rows, (height, rows)
    return _result("load-1e6", "python", wall, rows=rows)


def make_results(out_dir: str, rows: int) -> None:
    """A results directory at `out_dir`: a tiny run of the default scenario, its
    timeseries.parquet replaced by `rows` rows with the same schema (the run's scheme and
    tenant keys in turn, consecutive windows, seeded random values)."""
    # Imported here: the core cases' processes import `ftlab._core` only (their peak RSS).
    from pathlib import Path

    import numpy as np
    import polars as pl

    from ftlab.api import run

    report = run(set=list(_TINY_RUN))
    report.write(out_dir)
    ts = report.timeseries
    keys = ts.select("scheme", "tenant").unique(maintain_order=True)
    index = np.arange(rows)
    rng = np.random.default_rng(0)
    columns: dict[str, object] = {}
    for name, dtype in ts.schema.items():
        if name in ("scheme", "tenant"):
            columns[name] = keys.get_column(name).gather(index % keys.height)
        elif name == "window_start_s":
            columns[name] = (index // keys.height) * 0.5
        elif dtype == pl.String:
            columns[name] = np.full(rows, "x")
        elif dtype.is_integer():
            columns[name] = rng.integers(0, 1 << 20, rows)
        else:
            columns[name] = rng.gamma(2.0, 1000.0, rows)
    frame = pl.DataFrame(columns).select(pl.col(name).cast(dtype) for name, dtype in ts.schema.items())
    assert frame.schema == ts.schema
    frame.write_parquet(Path(out_dir) / "timeseries.parquet")


#: What `main` takes: a case, its size, then each override as `--set KEY.PATH=VALUE`.
USAGE = "usage: python -m ftlab._bench CASE [N] [--set KEY.PATH=VALUE]..."


def parse(argv: list[str]) -> tuple[str, int | None, list[str]] | None:
    """`CASE [N] [--set KEY.PATH=VALUE]...` as (case, N, overrides), or None if malformed.

    >>> parse(["random-write", "2000", "--set", "seed=3"])
    ('random-write', 2000, ['seed=3'])
    >>> parse(["random-write", "--set"]) is None
    True
    """
    head = argv[: argv.index("--set")] if "--set" in argv else argv
    tail = argv[len(head) :]
    if len(head) not in (1, 2) or (len(head) == 2 and not head[1].isdigit()):
        return None
    if len(tail) % 2 or any(flag != "--set" for flag in tail[::2]):
        return None
    return head[0], (int(head[1]) if len(head) == 2 else None), tail[1::2]


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "--make-results" and argv[2].isdigit():
        make_results(argv[1], int(argv[2]))
        return 0
    parsed = parse(argv)
    if parsed is None:
        print(USAGE, file=sys.stderr)
        return 2
    case, n, overrides = parsed
    if case == "load-1e6" and overrides:
        print("error: --set: load-1e6 runs no scenario to set; drop --set or the case", file=sys.stderr)
        return 2
    if case == "load-1e6":
        result = load_rows(n or LOAD_ROWS)
    else:
        try:
            result = run_default(overrides) if case == "run-default" else _core_case(case, n, overrides)
        except _core.FtlabError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    # Imported after the run: json (with re) is 1.1 MiB that the peak RSS need not hold.
    import json

    print(json.dumps(result))
    return 0


def _core_case(case: str, n: int | None, overrides: list[str]) -> dict[str, object]:
    """A core case (`_core.bench_case`) as `main` prints it."""
    core = _core.bench_case(case, n, overrides)
    if case in _UNTIMED_KINDS:
        return _result(
            core["case"],
            _UNTIMED_KINDS[case],
            core["wall_s"],
            bytes_per_mapping_unit=core["bytes_per_mapping_unit"],
            cpu_s=core["cpu_s"],
        )
    return _result(
        core["case"],
        "core",
        core["wall_s"],
        requests=core["requests"],
        requests_per_s=core["requests_per_s"],
        cpu_s=core["cpu_s"],
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
