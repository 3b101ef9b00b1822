"""ftlab.report: the `Report` of one run, and its files on disk.

A Report holds what the Rust core returned: the exact `summary.json` text, the resolved
scenario TOML and the time-series, latency-CDF and wear tables (polars DataFrames), with tidy
DataFrame views of the summary. `Report.write(dir)` writes summary.json (byte-identical to the
core's string), the parquet tables, scenario.resolved.toml and (with `html=True`, as `ftlab
run` does) report.html atomically; `load(dir)` reads them back, also from directories written
before some of those files existed. No simulation logic here, no drawing (`ftlab.report.html`,
`ftlab.report.plots`) and no terminal output (`ftlab.cli`). polars is imported only when needed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard, Union

from ftlab._errors import MissingResultError, input_error
from ftlab.report import html as html_page
from ftlab.results import ArraySummary, Summary, summary_from_json

if TYPE_CHECKING:
    import polars as pl

# polars is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

StrPath = Union[str, "os.PathLike[str]"]

SUMMARY_FILE = "summary.json"
TIMESERIES_FILE = "timeseries.parquet"
LATENCY_CDF_FILE = "latency_cdf.parquet"
WEAR_FILE = "wear.parquet"
RESOLVED_FILE = "scenario.resolved.toml"
HTML_FILE = "report.html"


class Report:
    """The results of one `ftlab.run`: summary, time series, latency CDFs, wear and the
    resolved scenario.

    >>> import ftlab
    >>> report = ftlab.run(set=["measure.duration_s=1.0"])
    >>> list(report.summary["schemes"])
    ['unified', 'partitioned', 'flashblox', 'upi']
    >>> report.summary_frame.select("scheme", "tenant", "read_p99_us").height
    12
    """

    def __init__(
        self,
        summary_json: str,
        resolved_toml: str,
        timeseries: pl.DataFrame,
        latency_cdf: pl.DataFrame | None = None,
        wear: pl.DataFrame | None = None,
    ) -> None:
        #: summary.json, its exact text.
        self.summary_json = summary_json
        #: scenario.resolved.toml, its exact text.
        self.resolved_toml = resolved_toml
        #: One row per scheme, tenant and window: scheme, tenant, window_start_s, read_iops,
        #: ..., then the columns a scheme adds (NaN in other schemes' rows).
        self.timeseries = timeseries
        #: Empirical latency CDFs: scheme, tenant, op, latency_us, cdf (None if not recorded).
        self.latency_cdf = latency_cdf
        #: Erase count per block at the end: scheme, channel, die, block, erase_count
        #: (None if not recorded).
        self.wear = wear
        self._summary: Summary | None = None

    @property
    def summary(self) -> Summary:
        """summary.json, parsed (cached; the exact text is `summary_json`).

        >>> report.summary["schemes"]["unified"]["device"]["waf"]  # doctest: +SKIP
        3.79
        """
        if self._summary is None:
            self._summary = summary_from_json(self.summary_json)
        return self._summary

    @property
    def schemes(self) -> list[str]:
        """Scheme names in the scenario's order.

        >>> report.schemes  # doctest: +SKIP
        ['unified', 'partitioned']
        """
        return list(self.summary.get("schemes") or {})

    @property
    def tenants(self) -> list[str]:
        """Tenant names in the scenario's order (over all schemes).

        >>> report.tenants  # doctest: +SKIP
        ['oltp', 'web', 'ingest']
        """
        names: dict[str, None] = {}
        for data in (self.summary.get("schemes") or {}).values():
            names.update(dict.fromkeys(data.get("tenants") or {}))
        return list(names)

    @property
    def summary_frame(self) -> pl.DataFrame:
        """The per-tenant metrics of summary.json, tidy: one row per (scheme, tenant), one
        column per metric; nested keys are joined with "_" (`read.p99_us` -> `read_p99_us`,
        `deadlines.tasks.scan.misses` -> `deadlines_tasks_scan_misses`). Booleans stay
        Boolean (`unstable`); a key some rows lack (`deadlines_*` of a tenant without periodic
        tasks) is null there, and one no row has (an older summary) is not a column.

        >>> unstable = report.summary_frame.filter(unstable=True)  # doctest: +SKIP
        >>> unstable.select("scheme", "tenant", "outstanding_at_end")  # doctest: +SKIP
        """
        rows = [
            {"scheme": scheme, "tenant": tenant, **_flat(metrics)}
            for scheme, data in (self.summary.get("schemes") or {}).items()
            for tenant, metrics in (data.get("tenants") or {}).items()
        ]
        return _rows_frame(rows, ("scheme", "tenant"))

    @property
    def device_frame(self) -> pl.DataFrame:
        """The device metrics of summary.json: one row per scheme, one column per metric
        (`die_utilisation` is a list column).

        >>> report.device_frame.select("scheme", "waf", "erases")  # doctest: +SKIP
        """
        rows = [
            {"scheme": scheme, **_flat(data.get("device") or {})}
            for scheme, data in (self.summary.get("schemes") or {}).items()
        ]
        return _rows_frame(rows, ("scheme",))

    @property
    def channels_frame(self) -> pl.DataFrame:
        """Wear and projected lifetime per scheme and channel (`schemes.<s>.channels`,
        docs/lifetime.md): `blocks`, `erases` and `erase_rate_per_s` of the measured phase,
        `erase_count_min`/`_max`/`_mean` (the device's wear, preconditioning included),
        `wear_imbalance` (max / mean) and `lifetime_days` at `device.pe_cycles` (null if the
        channel was never erased). No rows for older runs.

        >>> report.channels_frame.select("scheme", "channel", "lifetime_days")  # doctest: +SKIP
        """
        rows = [
            {"scheme": scheme, **row}
            for scheme, data in (self.summary.get("schemes") or {}).items()
            for row in (data.get("channels") or [])
        ]
        return _rows_frame(rows, ("scheme", "channel"))

    @property
    def counters_frame(self) -> pl.DataFrame:
        """The per-scheme counters of summary.json besides tenants, device and phases (`jobs`,
        `scheme_counters`, `mapper_counters`): one row per scheme, one column per counter,
        named with its object (`jobs_gc_started`, `scheme_counters_epochs`). Only `scheme`
        for a summary without them (older runs).

        >>> report.counters_frame.select("scheme", "jobs_gc_erases")  # doctest: +SKIP
        """
        rows = [
            {"scheme": scheme, **_flat(scheme_counters(data))}
            for scheme, data in (self.summary.get("schemes") or {}).items()
        ]
        return _rows_frame(rows, ("scheme",))

    @property
    def streams_frame(self) -> pl.DataFrame:
        """The engine's per-virtual-stream counts (`schemes.<s>.streams.virtual`,
        docs/streams/README.md): one row per (scheme, tenant, stream) with `units_written`,
        `units_dead`, `units_dead_unknown_age` and `lifetime_s_mean` (null if none died).
        `stream` is a string: the id, or "other" for ids 256 and above. No rows for older runs.

        >>> db = report.streams_frame.filter(tenant="db")  # doctest: +SKIP
        >>> db.select("scheme", "stream", "lifetime_s_mean")  # doctest: +SKIP
        """
        rows = [
            {"scheme": scheme, "tenant": tenant, **row, "stream": str(row.get("stream"))}
            for scheme, data in (self.summary.get("schemes") or {}).items()
            for tenant, streams in ((data.get("streams") or {}).get("virtual") or {}).items()
            for row in streams
        ]
        return _rows_frame(rows, ("scheme", "tenant", "stream"))

    @property
    def physical_streams_frame(self) -> pl.DataFrame:
        """Per scheme and physical stream: `host_units_written` and `gc_units_copied` over the
        measured phase (`schemes.<s>.streams.physical`). No rows for older runs.

        >>> report.physical_streams_frame.select("scheme", "stream", "gc_units_copied")  # doctest: +SKIP
        """
        rows = [
            {"scheme": scheme, **row}
            for scheme, data in (self.summary.get("schemes") or {}).items()
            for row in ((data.get("streams") or {}).get("physical") or [])
        ]
        return _rows_frame(rows, ("scheme", "stream"))

    @property
    def phases_frame(self) -> pl.DataFrame:
        """The measurement phases of summary.json (`[[measure.phases]]`, under
        `schemes.<s>.phases`): one row per (scheme, phase, tenant) with the phase's
        `start_s` and `end_s`, the tenant's metrics in the phase flattened as in
        `summary_frame` (`read_mean_us`, `read_p99_us`, `write_count`, `waf`, ...) and the
        phase's device numbers prefixed `device_` (`device_waf`, `device_die_utilisation_max`;
        the per-die list is left out). Only scheme, phase and tenant, no rows, for a run
        without phases.

        >>> after = report.phases_frame.filter(phase="after-rise")  # doctest: +SKIP
        >>> after.select("scheme", "tenant", "read_p99_us")  # doctest: +SKIP
        """
        rows = [
            {
                "scheme": scheme,
                "phase": phase,
                "tenant": tenant,
                **_phase_bounds(p),
                **_flat(metrics),
                **_phase_device(p),
            }
            for scheme, data in (self.summary.get("schemes") or {}).items()
            for phase, p in (data.get("phases") or {}).items()
            for tenant, metrics in (p.get("tenants") or {}).items()
        ]
        return _rows_frame(rows, ("scheme", "phase", "tenant"))

    @property
    def metrics(self) -> pl.DataFrame:
        """Every numeric metric of summary.json in long form: scheme, tenant (null for a
        device metric or a scheme's counter, as in `counters_frame`), metric, value
        (Float64). `ftlab compare` lines these up. Booleans (`unstable`) are not numbers:
        they are in `summary_frame`.

        >>> report.metrics.filter(metric="waf", tenant=None)  # doctest: +SKIP
        """
        import polars as pl

        rows = list(metric_rows(self.summary))
        schema = {"scheme": pl.String, "tenant": pl.String, "metric": pl.String, "value": pl.Float64}
        return pl.DataFrame(rows, schema=schema, orient="row")

    @classmethod
    def from_core(cls, out: Mapping[str, object]) -> Report:
        """Build a Report from the dict `ftlab._core.run` returns (`ftlab._core.RunResult`):
        its tables are Arrow objects (`ftlab._core.ArrowTable`, or anything with the Arrow
        PyCapsule interface, a polars DataFrame included), imported as polars frames without
        per-value work. A value of another type is a `TypeError` naming its key."""
        frames = {name: _frame(out[name]) for name in ("timeseries", "latency_cdf", "wear") if name in out}
        return cls(
            _text(out, "summary_json"),
            _text(out, "resolved_toml"),
            frames["timeseries"],
            frames.get("latency_cdf"),
            frames.get("wear"),
        )

    def to_html(self, *, baseline: str | None = None) -> str:
        """The self-contained HTML report (see `ftlab.report.html.render`); its headline
        compares every scheme against `baseline` (default: the first; an unknown scheme is a
        `ftlab.UsageError`).

        >>> html = report.to_html()
        >>> html.startswith("<!DOCTYPE html>")
        True
        """
        return html_page.render(self, baseline=baseline)

    def write(self, out_dir: StrPath, *, html: bool = False, baseline: str | None = None) -> Path:
        """Write summary.json, timeseries.parquet, latency_cdf.parquet, wear.parquet,
        scenario.resolved.toml and, with `html`, report.html (its headline against
        `baseline`, see `to_html`) into `out_dir` (created if
        missing). Each file is first written in full to a temporary file in `out_dir` and
        then renamed over its target, so an error leaves every earlier file of that name
        intact. Returns the directory. (`ftlab.run(out=...)` and `ftlab run` pass
        `html=True`.)

        >>> report.write("results/mine", html=True)  # doctest: +SKIP
        PosixPath('results/mine')
        """
        out = Path(out_dir)
        page = self.to_html(baseline=baseline).encode("utf-8") if html else None
        out.mkdir(parents=True, exist_ok=True)
        summary = self.summary_json.encode("utf-8")
        resolved = self.resolved_toml.encode("utf-8")
        files: dict[str, Callable[[str], object]] = {
            SUMMARY_FILE: lambda p: _write_bytes(p, summary),
            TIMESERIES_FILE: self.timeseries.write_parquet,
            RESOLVED_FILE: lambda p: _write_bytes(p, resolved),
        }
        if self.latency_cdf is not None:
            files[LATENCY_CDF_FILE] = self.latency_cdf.write_parquet
        if self.wear is not None:
            files[WEAR_FILE] = self.wear.write_parquet
        if page is not None:
            files[HTML_FILE] = lambda p: _write_bytes(p, page)
        write_files_atomically(out, files)
        return out

    def __repr__(self) -> str:
        return f"<ftlab.Report schemes={self.schemes} timeseries={self.timeseries.shape}>"


def load(run_dir: StrPath) -> Report:
    """Read a Report from a directory written by `Report.write` (or `ftlab run`).

    summary.json, timeseries.parquet and scenario.resolved.toml must be there;
    latency_cdf.parquet and wear.parquet are optional (None when absent, as in directories
    written by older versions); report.html is not read. A missing directory or file raises
    `MissingResultError` (an `ftlab.InputError` and a `FileNotFoundError`), an unreadable one
    `ftlab.InputError`; both name the directory and the file.

    >>> report = ftlab.load("results/default")  # doctest: +SKIP
    >>> report.latency_cdf.columns  # doctest: +SKIP
    ['scheme', 'tenant', 'op', 'latency_us', 'cdf']
    """
    d = Path(run_dir)
    summary = load_summary_text(d)
    resolved = _read_text(d, RESOLVED_FILE)
    timeseries = _read_parquet(d, TIMESERIES_FILE)
    optional = {
        name: _read_parquet(d, name) if (d / name).exists() else None
        for name in (LATENCY_CDF_FILE, WEAR_FILE)
    }
    return Report(summary, resolved, timeseries, optional[LATENCY_CDF_FILE], optional[WEAR_FILE])


def load_summary_text(run_dir: StrPath) -> str:
    """The text of `run_dir`/summary.json, checked to be a JSON object with a "schemes"
    object; errors as in `load`.

    >>> json.loads(load_summary_text("results/default"))["seed"]  # doctest: +SKIP
    42
    """
    d = Path(run_dir)
    text = _read_text(d, SUMMARY_FILE)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as e:
        raise input_error(
            d / SUMMARY_FILE, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})"
        ) from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("schemes"), dict):
        raise input_error(d / SUMMARY_FILE, 'not an ftlab summary (no "schemes" object)')
    return text


def _check_dir(d: Path) -> None:
    if not d.exists():
        raise input_error(d, "results directory does not exist", MissingResultError)
    if not d.is_dir():
        raise input_error(d, "not a directory (expected an `ftlab run` results directory)")


def _missing(d: Path, name: str) -> MissingResultError:
    return input_error(
        d / name, f"no such file (is {d} an `ftlab run` results directory?)", MissingResultError
    )


def _read_text(d: Path, name: str) -> str:
    _check_dir(d)
    path = d / name
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise _missing(d, name) from None
    except UnicodeDecodeError as e:
        raise input_error(path, f"not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise input_error(path, e.strerror or str(e)) from None


def _read_parquet(d: Path, name: str) -> pl.DataFrame:
    import polars as pl

    _check_dir(d)
    path = d / name
    if not path.is_file():
        raise _missing(d, name)
    try:
        return pl.read_parquet(path)
    except Exception as e:  # polars raises several types for a corrupt or truncated file
        raise input_error(
            path,
            f"not a readable parquet file ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})",
        ) from None


def _flat(d: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """Nested dict -> flat dict with "_"-joined keys, in order."""
    out: dict[str, object] = {}
    for key, value in d.items():
        name = f"{prefix}_{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(_flat(value, name))
        else:
            out[name] = value
    return out


def _phase_bounds(phase: Mapping[str, object]) -> dict[str, object]:
    return {k: phase.get(k) for k in ("start_s", "end_s")}


def _phase_device(phase: Mapping[str, object]) -> dict[str, object]:
    device = phase.get("device")
    return {
        f"device_{k}": v
        for k, v in _flat(device if isinstance(device, Mapping) else {}).items()
        if _is_number(v)
    }


def _rows_frame(rows: list[dict[str, object]], keys: tuple[str, ...]) -> pl.DataFrame:
    import polars as pl

    if not rows:
        return pl.DataFrame(schema={k: pl.String for k in keys})
    columns = list(dict.fromkeys(name for row in rows for name in row))
    data = {name: [row.get(name) for row in rows] for name in columns}
    return pl.DataFrame(data, strict=False)


def metric_rows(summary: Summary) -> Iterator[tuple[str, str | None, str, float]]:
    """(scheme, tenant or None, metric, value) for every numeric metric of a parsed
    summary.json, in its order: per tenant, then the device's, then the scheme's counters
    (named with their object: `jobs_gc_started`, `scheme_counters_epochs`). Booleans and
    lists are left out. An array run (`array`) gives its host layer's rows per scheme, then
    its devices' as `dev<i>/<metric>` under that scheme (`_array_rows`).

    >>> next(metric_rows({"schemes": {"u": {"tenants": {"a": {"read": {"iops": 5}}}}}}))
    ('u', 'a', 'read_iops', 5.0)
    """
    array = summary.get("array")
    if array is not None:
        yield from _array_rows(summary, array)
        return
    for scheme, data in (summary.get("schemes") or {}).items():
        for tenant, metrics in (data.get("tenants") or {}).items():
            yield from _numbers(scheme, tenant, metrics)
        yield from _numbers(scheme, None, data.get("device") or {})
        yield from _numbers(scheme, None, scheme_counters(data))


def _array_rows(summary: Summary, array: ArraySummary) -> Iterator[tuple[str, str | None, str, float]]:
    """An array run's rows: per scheme of the array, its host layer's (tenants, then its own
    counts), then each of its devices' (`<scheme>/dev<i>` in `schemes`), under the array's
    scheme with the metric named `dev<i>/<metric>`: devices of one array, not schemes."""
    schemes = summary.get("schemes") or {}
    for scheme, host in (array.get("schemes") or {}).items():
        for tenant, metrics in (host.get("tenants") or {}).items():
            yield from _numbers(scheme, tenant, metrics)
        yield from _numbers(scheme, None, {k: v for k, v in host.items() if k != "tenants"})
        for name in host.get("devices") or []:
            data = schemes.get(name)
            if data is None:
                continue
            dev = name.rsplit("/", 1)[-1]
            for tenant, tenant_metrics in (data.get("tenants") or {}).items():
                yield from _prefixed(dev, _numbers(scheme, tenant, tenant_metrics))
            yield from _prefixed(dev, _numbers(scheme, None, data.get("device") or {}))
            yield from _prefixed(dev, _numbers(scheme, None, scheme_counters(data)))


def _prefixed(
    dev: str, rows: Iterator[tuple[str, str | None, str, float]]
) -> Iterator[tuple[str, str | None, str, float]]:
    for scheme, tenant, metric, value in rows:
        yield scheme, tenant, f"{dev}/{metric}", value


def _numbers(
    scheme: str, tenant: str | None, metrics: Mapping[str, object]
) -> Iterator[tuple[str, str | None, str, float]]:
    for name, value in _flat(metrics).items():
        if _is_number(value):
            yield scheme, tenant, name, float(value)


#: The entries of a scheme's summary object that are not counters (`streams` has its own
#: frames: `Report.streams_frame`, `Report.physical_streams_frame`; `channels` is
#: `Report.channels_frame`).
NOT_COUNTERS = ("tenants", "device", "phases", "streams", "channels")


def scheme_counters(scheme: Mapping[str, object]) -> dict[str, object]:
    """The entries of one scheme's summary object besides `tenants`, `device`, `phases`,
    `streams` and `channels` (`jobs`, `scheme_counters`, `mapper_counters`; none in older summaries), in
    order.

    >>> scheme_counters({"tenants": {}, "device": {}, "phases": {}, "jobs": {"gc_steps": 0}})
    {'jobs': {'gc_steps': 0}}
    """
    return {k: v for k, v in scheme.items() if k not in NOT_COUNTERS}


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(out: Mapping[str, object], key: str) -> str:
    value = out[key]
    if not isinstance(value, str):
        raise TypeError(f"the core's {key} must be a string, not {type(value).__name__}")
    return value


def _frame(table: object) -> pl.DataFrame:
    """A polars DataFrame of a core table, an object with the Arrow PyCapsule interface
    (`__arrow_c_stream__`): polars imports its Arrow buffers (Utf8 -> String, Float64,
    UInt64), no value passes through Python."""
    import polars as pl

    if isinstance(table, pl.DataFrame):
        return table
    if not hasattr(table, "__arrow_c_stream__"):
        raise TypeError(f"a core table must have the Arrow PyCapsule interface, not {type(table).__name__}")
    return pl.DataFrame(table)


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def write_files_atomically(out_dir: Path, writers: Mapping[str, Callable[[str], object]]) -> None:
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
    fsync_dir(out_dir)


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


def fsync_dir(path: Path) -> None:
    """Flush directory `path`'s entries to disk (a no-op where the platform cannot)."""
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
