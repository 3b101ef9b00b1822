"""ftlab.report.figdata: the data behind the report's charts and the `ftlab plot` figures, reduced
deterministically so a chart stays small whatever the run's length.

Pure functions from a `Report`'s polars tables to smaller tables: thinned latency CDFs (with
the tail 1 - CDF), the time series merged into at most `MAX_WINDOWS` buckets per tenant
(with latency masked where a window had no request of that kind), the device's series, the
scheme-specific extra columns, and erase counts per die and per block. The same input always
gives the same output (no sampling at random, stable order). It draws nothing
(`ftlab.report.html`, `ftlab.report.plots`) and holds no simulation logic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ftlab import _core

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

    from ftlab.report import Report

# numpy and polars are imported inside the functions that use them, not here: heavy, and `ftlab
# --help` and `import ftlab` start without them.

#: Time-series columns every scheme has (the Rust core's list); the others are a scheme's extra
#: columns.
BASE_COLUMNS = tuple(_core.TIMESERIES_COLUMNS)
#: Per-window device columns (equal in every tenant's row of a window).
DEVICE_COLUMNS = tuple(_core.TIMESERIES_DEVICE_COLUMNS)
#: Latency CDF operations, in display order.
OPS = ("read", "write", "trim")
#: At most this many points per time series (consecutive windows are merged beyond it).
MAX_WINDOWS = 600
#: At most this many block columns per die in a per-block wear matrix.
MAX_BLOCK_COLUMNS = 512
#: Thinning grid of a CDF: a point is kept where it enters a new cell of any of these.
CDF_LATENCY_CELLS_PER_DECADE = 100
CDF_CELLS = 200
CDF_TAIL_CELLS_PER_DECADE = 25
#: The smallest tail probability (1 - CDF) that is shown and that thinning resolves.
TAIL_FLOOR = 1e-6


def schemes(report: Report) -> list[str]:
    """Scheme names: the summary's order, then any other found in the tables."""
    names = dict.fromkeys(report.schemes)
    for frame in (report.timeseries, report.latency_cdf, report.wear):
        if frame is not None and "scheme" in frame.columns:
            names.update(dict.fromkeys(frame.get_column("scheme").unique(maintain_order=True).to_list()))
    return list(names)


def tenants(report: Report) -> list[str]:
    """Tenant names: the summary's order, then any other found in the tables."""
    names = dict.fromkeys(report.tenants)
    for frame in (report.timeseries, report.latency_cdf):
        if frame is not None and "tenant" in frame.columns:
            names.update(dict.fromkeys(frame.get_column("tenant").unique(maintain_order=True).to_list()))
    return list(names)


def cdf_ops(report: Report) -> list[str]:
    """The operations with latency-CDF rows, in `OPS` order."""
    if report.latency_cdf is None:
        return []
    present = set(report.latency_cdf.get_column("op").unique().to_list())
    return [op for op in OPS if op in present]


def cdf_points(report: Report, op: str) -> pl.DataFrame:
    """The CDF of `op` per (scheme, tenant), thinned: scheme, tenant, latency_us, cdf, tail
    (1 - CDF; null where below `TAIL_FLOOR`). Rows keep the table's order.

    A point is kept where it enters a new cell of a grid of log latency, CDF and log tail, and
    the last point of each curve is kept, so both the CDF (log x) and the tail (log y) keep
    their shape with at most a few hundred points per curve.
    """
    import polars as pl

    if report.latency_cdf is None:
        return pl.DataFrame(
            schema={
                "scheme": pl.String,
                "tenant": pl.String,
                "latency_us": pl.Float64,
                "cdf": pl.Float64,
                "tail": pl.Float64,
            }
        )
    group = ("scheme", "tenant")
    tail = 1.0 - pl.col("cdf")
    cells = (
        (pl.col("latency_us").clip(lower_bound=1e-3).log10() * CDF_LATENCY_CELLS_PER_DECADE).floor(),
        (pl.col("cdf") * CDF_CELLS).floor(),
        (tail.clip(lower_bound=TAIL_FLOOR).log10() * CDF_TAIL_CELLS_PER_DECADE).floor(),
    )
    changed = pl.lit(False)
    for cell in cells:
        changed = changed | (cell != cell.shift(1).over(group)).fill_null(True)
    last = pl.int_range(pl.len()).over(group) == pl.len().over(group) - 1
    frame = report.latency_cdf.filter(pl.col("op") == op)
    return frame.filter(changed | last).select(
        "scheme",
        "tenant",
        pl.col("latency_us").round_sig_figs(6),
        pl.col("cdf").round(6),
        pl.when(tail >= TAIL_FLOOR).then(tail.round_sig_figs(4)).otherwise(None).alias("tail"),
    )


@dataclass(frozen=True)
class SeriesView:
    """The time series prepared for drawing: `frame` has the time-series columns (NaN made
    null, latency null where its op had no request in the window), with `windows_per_point`
    consecutive windows merged into one row (mean; `*_p99_us` and `*max*` columns: max;
    `*_physical_stream` columns, which are ids: the most frequent, the lowest on ties)."""

    frame: pl.DataFrame
    windows_per_point: int


def series_view(report: Report, max_windows: int = MAX_WINDOWS) -> SeriesView:
    """The report's time series with NaN -> null, masked latency and at most `max_windows`
    rows per (scheme, tenant).

    >>> view = series_view(report)  # doctest: +SKIP
    >>> view.windows_per_point  # doctest: +SKIP
    5
    """
    import polars as pl

    ts = report.timeseries
    floats = [c for c, t in ts.schema.items() if t in (pl.Float32, pl.Float64)]
    ts = ts.with_columns(pl.col(c).fill_nan(None) for c in floats)
    for op in ("read", "write"):
        iops = f"{op}_iops"
        if iops in ts.columns:
            masked = [c for c in (f"{op}_mean_us", f"{op}_p99_us") if c in ts.columns]
            ts = ts.with_columns(
                pl.when(pl.col(iops) > 0).then(pl.col(c)).otherwise(None).alias(c) for c in masked
            )
    group: list[str] = [c for c in ("scheme", "tenant") if c in ts.columns]
    longest = ts.group_by(group).len().get_column("len").max() if ts.height and group else 0
    assert longest is None or isinstance(longest, int), "a group's length is an integer"
    per_point = max(1, math.ceil((longest or 0) / max_windows))
    if per_point == 1:
        return SeriesView(ts, 1)
    return SeriesView(_merge_windows(ts, group, per_point), per_point)


def _merge_windows(ts: pl.DataFrame, group: list[str], per_point: int) -> pl.DataFrame:
    import polars as pl

    numeric = [c for c, t in ts.schema.items() if c not in group and t.is_numeric()]
    others = [c for c in ts.columns if c not in group and c not in numeric]

    def agg(c: str) -> pl.Expr:
        if c == "window_start_s":
            return pl.col(c).first()
        if c.endswith("_physical_stream"):
            return pl.col(c).drop_nulls().mode().min()
        return pl.col(c).max() if (c.endswith("_p99_us") or "max" in c) else pl.col(c).mean()

    bucket = (pl.int_range(pl.len()).over(group) // per_point).alias("_bucket")
    merged = (
        ts.with_columns(bucket)
        .group_by([*group, "_bucket"], maintain_order=True)
        .agg([agg(c) for c in numeric] + [pl.col(c).first() for c in others])
    )
    return merged.select(ts.columns)


def device_series(view: SeriesView) -> pl.DataFrame:
    """One row per (scheme, window) with the device columns (from the first tenant's row)."""
    frame = view.frame
    cols = [c for c in DEVICE_COLUMNS if c in frame.columns]
    if not cols or "window_start_s" not in frame.columns:
        return frame.clear().select([c for c in ("scheme", "window_start_s") if c in frame.columns])
    return frame.unique(subset=["scheme", "window_start_s"], keep="first", maintain_order=True).select(
        "scheme", "window_start_s", *cols
    )


def extra_columns(frame: pl.DataFrame) -> list[str]:
    """The numeric time-series columns that are not in `BASE_COLUMNS`, in table order."""
    return [c for c, t in frame.schema.items() if c not in BASE_COLUMNS and t.is_numeric()]


def present_columns(frame: pl.DataFrame, scheme: str, columns: Sequence[str]) -> list[str]:
    """Those of `columns` with at least one non-null value in `scheme`'s rows (NaN counts as
    null)."""
    import polars as pl

    rows = frame.filter(pl.col("scheme") == scheme)
    return [
        c for c in columns if rows.height and rows.get_column(c).fill_nan(None).null_count() < rows.height
    ]


def wear_per_die(report: Report) -> pl.DataFrame:
    """Erase counts per die: scheme, die, channel, erase_count_mean, erase_count_min,
    erase_count_max (dies in ascending order)."""
    import polars as pl

    assert report.wear is not None
    return (
        report.wear.group_by("scheme", "die", "channel", maintain_order=True)
        .agg(
            pl.col("erase_count").mean().round(3).alias("erase_count_mean"),
            pl.col("erase_count").min().alias("erase_count_min"),
            pl.col("erase_count").max().alias("erase_count_max"),
        )
        .sort("die", maintain_order=True)
    )


@dataclass(frozen=True)
class WearMatrix:
    """Erase counts of one scheme as a (die x block column) matrix: `z[d][j]` is the mean
    erase count of the blocks `[j * blocks_per_column, (j + 1) * blocks_per_column)` of die
    `dies[d]` (one block per column unless the die has more than `MAX_BLOCK_COLUMNS`)."""

    dies: list[int]
    z: np.ndarray
    blocks_per_column: int


def wear_matrix(report: Report, scheme: str, max_columns: int = MAX_BLOCK_COLUMNS) -> WearMatrix:
    """Erase count per (die, block) of `scheme` (see `WearMatrix`)."""
    import numpy as np
    import polars as pl

    assert report.wear is not None
    rows = report.wear.filter(pl.col("scheme") == scheme).sort("die", "block")
    dies = rows.get_column("die").unique(maintain_order=True).to_list()
    if not dies:
        return WearMatrix([], np.zeros((0, 0)), 1)
    counts = rows.get_column("erase_count").to_numpy().astype(float)
    z = counts.reshape(len(dies), -1)
    per_column = max(1, math.ceil(z.shape[1] / max_columns))
    if per_column > 1:
        starts = np.arange(0, z.shape[1], per_column)
        sizes = np.diff(np.append(starts, z.shape[1]))
        z = np.add.reduceat(z, starts, axis=1) / sizes
    return WearMatrix(dies, np.round(z, 3), per_column)
