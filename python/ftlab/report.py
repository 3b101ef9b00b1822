"""ftlab.report: the `Report` of one run, and its files on disk.

A Report holds what the Rust core returned: the exact `summary.json` text, the resolved
scenario TOML and the time-series table (as a polars DataFrame). `Report.write(dir)` writes
summary.json (byte-identical to the core's string), timeseries.parquet and
scenario.resolved.toml atomically; `load(dir)` reads them back. No simulation logic here,
and no terminal output (that is `ftlab.cli`). polars is imported only when needed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import polars as pl

StrPath = Union[str, "os.PathLike[str]"]

SUMMARY_FILE = "summary.json"
TIMESERIES_FILE = "timeseries.parquet"
LATENCY_CDF_FILE = "latency_cdf.parquet"
WEAR_FILE = "wear.parquet"
RESOLVED_FILE = "scenario.resolved.toml"

# Column type names of `_core.run(...)["timeseries_types"]` -> polars dtype names.
_DTYPES = {"str": "String", "f64": "Float64", "u64": "UInt64"}


class Report:
    """The results of one `ftlab.run`: summary, time series, latency CDFs, wear and the
    resolved scenario."""

    def __init__(
        self,
        summary_json: str,
        resolved_toml: str,
        timeseries: pl.DataFrame,
        latency_cdf: pl.DataFrame | None = None,
        wear: pl.DataFrame | None = None,
    ) -> None:
        self.summary_json = summary_json
        self.resolved_toml = resolved_toml
        self.timeseries = timeseries
        #: Empirical latency CDFs: scheme, tenant, op, latency_us, cdf (None if not recorded).
        self.latency_cdf = latency_cdf
        #: Erase count per block at the end: scheme, channel, die, block, erase_count.
        self.wear = wear
        self._summary: dict[str, Any] | None = None

    @property
    def summary(self) -> dict[str, Any]:
        """summary.json, parsed (cached; the exact text is `summary_json`)."""
        if self._summary is None:
            self._summary = json.loads(self.summary_json)
        return self._summary

    @classmethod
    def from_core(cls, out: Mapping[str, Any]) -> Report:
        """Build a Report from the dict `ftlab._core.run` returns."""
        frames = {name: _frame(out[name], out.get(f"{name}_types", {})) for name in ("timeseries", "latency_cdf", "wear") if name in out}
        return cls(
            out["summary_json"],
            out["resolved_toml"],
            frames["timeseries"],
            frames.get("latency_cdf"),
            frames.get("wear"),
        )

    def write(self, out_dir: StrPath) -> Path:
        """Write summary.json, timeseries.parquet, latency_cdf.parquet, wear.parquet and
        scenario.resolved.toml into `out_dir`
        (created if missing). Each file is first written in full to a temporary file in
        `out_dir` and then renamed over its target, so an error leaves every earlier file
        of that name intact. Returns the directory."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        summary = self.summary_json.encode("utf-8")
        resolved = self.resolved_toml.encode("utf-8")
        files = {
            SUMMARY_FILE: lambda p: _write_bytes(p, summary),
            TIMESERIES_FILE: lambda p, f=self.timeseries: f.write_parquet(p),
            RESOLVED_FILE: lambda p: _write_bytes(p, resolved),
        }
        if self.latency_cdf is not None:
            files[LATENCY_CDF_FILE] = lambda p, f=self.latency_cdf: f.write_parquet(p)
        if self.wear is not None:
            files[WEAR_FILE] = lambda p, f=self.wear: f.write_parquet(p)
        write_files_atomically(out, files)
        return out

    def __repr__(self) -> str:
        schemes = list(self.summary.get("schemes", {}))
        return f"<ftlab.Report schemes={schemes} timeseries={self.timeseries.shape}>"


def load(run_dir: StrPath) -> Report:
    """Read a Report from a directory written by `Report.write` (or `ftlab run`)."""
    import polars as pl

    d = Path(run_dir)
    summary = (d / SUMMARY_FILE).read_bytes().decode("utf-8")
    resolved = (d / RESOLVED_FILE).read_bytes().decode("utf-8")
    timeseries = pl.read_parquet(d / TIMESERIES_FILE)
    optional = {name: pl.read_parquet(d / name) if (d / name).exists() else None for name in (LATENCY_CDF_FILE, WEAR_FILE)}
    return Report(summary, resolved, timeseries, optional[LATENCY_CDF_FILE], optional[WEAR_FILE])


def _frame(columns: Mapping[str, list[Any]], types: Mapping[str, str]) -> pl.DataFrame:
    """A DataFrame of core table columns with exact dtypes where the core gave them."""
    import polars as pl

    schema = {name: getattr(pl, _DTYPES[types[name]]) if name in types else None for name in columns}
    if all(dtype is not None for dtype in schema.values()):
        return pl.DataFrame(dict(columns), schema=schema)
    return pl.DataFrame(dict(columns))


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def write_files_atomically(out_dir: Path, writers: Mapping[str, Callable[[str], None]]) -> None:
    """Write several files of `out_dir` so that each is either its old or its new version.

    Every writer first writes its whole file to a fresh temporary path in `out_dir` (same
    file system, so the rename is atomic). Only when all temporaries are complete and
    flushed are they renamed over their targets. If any writer fails, the temporaries are
    removed and no target is touched.
    """
    staged: list[tuple[str, Path]] = []
    mode = 0o666 & ~_umask()
    try:
        for name, writer in writers.items():
            fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.", suffix=".tmp")
            os.close(fd)
            os.chmod(tmp, mode)  # mkstemp makes it 0600; give it a normal file's mode
            staged.append((tmp, out_dir / name))
            writer(tmp)
            _fsync_path(tmp)
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
    _fsync_dir(out_dir)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # not supported on this platform
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
