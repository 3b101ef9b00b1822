"""ftlab.sweeps.exec: runs of a sweep on Ray, and their result directories on disk.

Each run is one Ray task that receives the run's resolved scenario (TOML text with absolute
trace paths) and calls `ftlab._core.run`, which releases the GIL; the task returns the core's
result (its Arrow tables imported as polars frames, which Ray can pickle), or the ftlab error
as a value. The driver writes each finished run to
`runs/<key>/` (a temporary directory renamed into place, so a run directory is complete or
absent) as soon as it arrives. Without an address, a local Ray instance sized to the machine
is started (and shut down afterwards); `address="auto"` or `"ray://host:port"` uses an
existing cluster. If Ray is already initialised in this process, it is used as it is.
This module holds no simulation logic, no terminal output and no sweep-file parsing.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import tempfile
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ftlab import _core
from ftlab.report import Report, fsync_dir
from ftlab.sweeps.spec import RunMeta

if TYPE_CHECKING:
    import ray

# polars and ray are imported inside the functions that use them, not here: heavy, and `ftlab
# --help` and `import ftlab` start without them.

RUNS_DIR = "runs"
RUN_META_FILE = "run.json"
TMP_PREFIX = ".tmp-"
#: Error kind of a run whose Ray worker died or whose task Ray could not complete.
RAY_ERROR = "RayError"


@dataclass(frozen=True)
class Job:
    """One run to execute: its key (sha256 of `resolved_toml`), resolved scenario, the name
    errors give its scenario and its directory (trace paths in a resolved scenario are
    absolute already), and the metadata written beside its results."""

    key: str
    resolved_toml: str
    name: str
    base_dir: str
    meta: RunMeta


class TaskError(TypedDict):
    """Why a run failed: the error's kind (the ftlab error class, `RayError`,
    `VersionMismatch`) and its message."""

    kind: str
    message: str


class TaskOut(TypedDict, total=False):
    """What a Ray task hands back: the core's output with its tables as polars frames, or the
    error (exactly one of the two)."""

    result: dict[str, object]
    error: TaskError


def start_ray(address: str | None = None) -> bool:
    """Connect to Ray unless this process already is: a new local instance sized to the
    machine (no dashboard, quiet logs) when `address` is None, else the cluster at
    `address` ("auto", "ray://host:port", ...). Returns True if it connected (so the caller
    shuts Ray down when done), False if Ray was already initialised."""
    import ray

    if ray.is_initialized():
        return False
    if address is None:
        ray.init(
            num_cpus=os.cpu_count() or 1,
            include_dashboard=False,
            logging_level=logging.ERROR,
            log_to_driver=False,
        )
        return True
    try:
        _check_reachable(address)
        with warnings.catch_warnings():  # a failure is reported below, once
            warnings.simplefilter("ignore")
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except (OSError, RuntimeError, ValueError) as e:  # ConnectionError, TimeoutError are OSErrors
        reason = (
            f"cannot connect to Ray at {address!r}: "
            f"{str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}"
        )
        err = _core.UsageError(f"--address: {reason}")
        err.arg, err.reason = "--address", reason
        raise err from None
    return True


def _check_reachable(address: str, timeout_s: float = 10.0) -> None:
    """Fail fast on a `host:port` or `ray://host:port` nobody listens on (Ray itself would
    retry for minutes, deaf to Ctrl-C). Other addresses ("auto") are left to Ray."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
        pass


#: The tables of `_core.run`'s result (`ftlab._core.ArrowTable`s).
CORE_TABLES = ("timeseries", "latency_cdf", "wear")


def run_task(resolved_toml: str, name: str, base_dir: str, driver_version: str) -> TaskOut:
    """The body of one Ray task: run a resolved scenario. Returns {"result": core output,
    its tables as polars DataFrames} or {"error": {"kind", "message"}}; never raises for a
    failed run."""
    import polars as pl

    if _core.version() != driver_version:
        message = (
            f"this worker has ftlab {_core.version()}, the driver {driver_version}; install "
            "the same version on every node"
        )
        return {"error": {"kind": "VersionMismatch", "message": message}}
    try:
        # One scheme at a time inside a run: Ray already runs many runs in parallel, and
        # more threads per task would oversubscribe the cores (the results are the same).
        result = _core.run(text=resolved_toml, name=name, base_dir=base_dir, jobs=1)
        # An ArrowTable lives in this worker's memory and does not pickle; a polars frame
        # (imported from it without copying) does.
        tables = {
            t: pl.DataFrame(
                result["timeseries"]
                if t == "timeseries"
                else result["latency_cdf"]
                if t == "latency_cdf"
                else result["wear"]
            )
            for t in CORE_TABLES
        }
        return {"result": {**result, **tables}}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        return {"error": {"kind": type(e).__name__, "message": str(e)}}


def execute(
    jobs: Iterable[Job],
    runs_dir: Path,
    *,
    retries: int,
    on_done: Callable[[Job, TaskError | None], None],
) -> None:
    """Run `jobs` as Ray tasks (at most twice the cluster's CPUs in flight), writing each
    finished run under `runs_dir`; `on_done(job, error)` follows each (error None on
    success). On any exception (KeyboardInterrupt included) the tasks in flight are
    cancelled and their runs lost; every finished run is already on disk."""
    import ray

    task = ray.remote(num_cpus=1, max_retries=retries)(run_task)
    queue = deque(jobs)
    limit = max(4, 2 * int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]  # ray's own
    pending: dict[ray.ObjectRef[TaskOut], Job] = {}
    try:
        while queue or pending:
            while queue and len(pending) < limit:
                job = queue.popleft()
                pending[task.remote(job.resolved_toml, job.name, job.base_dir, _core.version())] = job
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                job = pending.pop(ref)
                on_done(job, _finish(ref, job, runs_dir))
    finally:
        for ref in pending:
            _cancel(ref)


def _finish(ref: ray.ObjectRef[TaskOut], job: Job, runs_dir: Path) -> TaskError | None:
    import ray

    try:
        out: TaskOut = ray.get(ref)
    except ray.exceptions.RayError as e:
        lines = str(e).strip().splitlines()
        return {"kind": RAY_ERROR, "message": f"{type(e).__name__}: {lines[0] if lines else 'no message'}"}
    if "error" in out:
        return out["error"]
    write_run(runs_dir, job, out["result"])
    return None


def _cancel(ref: ray.ObjectRef[TaskOut]) -> None:
    import ray

    try:
        ray.cancel(ref, force=True)
    except Exception:
        pass


def write_run(runs_dir: Path, job: Job, result: Mapping[str, object]) -> Path:
    """Write one run's results to `runs_dir/<key>/`: every file into a fresh temporary
    directory beside it, then one rename. An interruption leaves only the temporary
    directory (removed here, or by `clean_stale` on the next sweep), never a partial run."""
    target = runs_dir / job.key
    tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{job.key[:16]}-", dir=runs_dir))
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        Report.from_core(result).write(tmp)
        meta = json.dumps({**job.meta, "run": job.key}, indent=2)
        (tmp / RUN_META_FILE).write_text(meta + "\n", encoding="utf-8")
        if target.exists():  # finished meanwhile by another sweep of the same run
            shutil.rmtree(tmp)
            return target
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(runs_dir)
    return target


def is_done(runs_dir: Path, key: str) -> bool:
    """Whether the run `key` has a complete result directory (they appear by rename)."""
    return (runs_dir / key).is_dir()


def clean_stale(runs_dir: Path) -> None:
    """Remove temporary run directories left by a sweep that was killed while writing."""
    for p in runs_dir.glob(f"{TMP_PREFIX}*"):
        shutil.rmtree(p, ignore_errors=True)


class DirLock:
    """An exclusive lock on a sweep directory (`.lock`), so two sweeps never write the
    same directory at once. Released when the process ends, however it ends."""

    def __init__(self, sweep_dir: Path) -> None:
        self.path = sweep_dir / ".lock"
        self.fd: int | None = None

    def __enter__(self) -> DirLock:
        try:
            import fcntl  # POSIX only: imported where it is used, so other platforms run
        except ModuleNotFoundError:  # not POSIX: no lock
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            err = _core.UsageError(
                f"--out: another ftlab sweep is writing {self.path.parent}; wait for it or use "
                "another directory"
            )
            err.arg, err.reason = "--out", "another ftlab sweep is writing this directory"
            raise err from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
