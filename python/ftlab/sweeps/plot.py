"""ftlab.sweeps.plot: the summary plot of a sweep (matplotlib, PNG) and the aggregation behind it.

`aggregate` reduces the sweep table to one point per line and x value: the mean of the
metric over seeds, with its min and max and its sample standard deviation. `write_plot`
draws those points, one line per value of the other swept dimensions (and per scheme, and
per tenant for a tenant metric), with error bars over seeds (min to max, or ± one standard
deviation). Metrics named `device.*` are per run and scheme, others per tenant. This module
neither runs nor reads anything; it does not set matplotlib's global backend.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab.sweeps.spec import PlotSpec, config_error

if TYPE_CHECKING:
    import polars as pl

# matplotlib and polars are imported inside the functions that use them, not here: heavy, and `ftlab
# --help` and `import ftlab` start without them.

ERROR_LABELS = {
    "minmax": "error bars: min to max over seeds",
    "std": "error bars: ± 1 sample standard deviation over seeds",
}


def aggregate(
    table: pl.DataFrame, plot: PlotSpec, parameters: Sequence[str], file: str
) -> tuple[pl.DataFrame, list[str]]:
    """(points, line dimensions): per line and x, the metric's `mean`, `min`, `max`, `std`
    over seeds and the number of seeds `n`. Raises `ftlab.ConfigError` naming `file` and the
    `plot` key if the metric or a tenant is not in the table."""
    import polars as pl

    metric, x = plot.metric, plot.x
    if metric not in table.columns or not table.schema[metric].is_numeric():
        numeric = [c for c, t in table.schema.items() if t.is_numeric() and c not in (*parameters, "seed")]
        raise config_error(
            file,
            "plot.metric",
            "must be a numeric column of the sweep table "
            f"({', '.join(numeric) or 'none yet'}), got {metric!r}",
        )
    frame = table.filter(pl.col(x).is_not_null())
    if plot.tenants:
        unknown = [t for t in plot.tenants if t not in set(table["tenant"])]
        if unknown:
            raise config_error(
                file,
                "plot.tenants",
                f"no tenant {unknown[0]!r} in the sweep table (tenants: "
                f"{', '.join(sorted(set(table['tenant'])))})",
            )
        frame = frame.filter(pl.col("tenant").is_in(list(plot.tenants)))
    per_device = metric.startswith("device.")
    if per_device:
        frame = frame.unique(subset=[*parameters, "seed", "scheme"], keep="first", maintain_order=True)
    dims = [d for d in [*parameters, "scheme", *([] if per_device else ["tenant"])] if d != x]
    dims = [d for d in dims if frame[d].n_unique() > 1 and not _implied(frame, d, x)]
    points = frame.group_by([*dims, x]).agg(
        pl.col(metric).mean().alias("mean"),
        pl.col(metric).min().alias("min"),
        pl.col(metric).max().alias("max"),
        pl.col(metric).std(ddof=1).alias("std"),
        pl.len().alias("n"),
    )
    return points.sort([*dims, x], nulls_last=True), dims


def _implied(frame: pl.DataFrame, dim: str, x: str) -> bool:
    """A `schemes` parameter swept as one-element lists and the `scheme` column say the same:
    one of them (`schemes` as a line dimension, `scheme` when `schemes` is x) adds no lines."""
    import polars as pl

    if not (dim == "schemes" or (dim == "scheme" and x == "schemes")) or "schemes" not in frame.columns:
        return False
    per_value = frame.group_by("schemes").agg(pl.col("scheme").n_unique().alias("k"))
    return bool((per_value["k"] == 1).all())


def write_plot(
    table: pl.DataFrame, plot: PlotSpec, parameters: Sequence[str], file: str, out_dir: Path
) -> Path:
    """Draw the plot of `plot` into `out_dir/plot.file` (atomically). Returns its path."""
    from matplotlib.figure import Figure

    points, dims = aggregate(table, plot, parameters, file)
    fig = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    groups = points.partition_by(dims, maintain_order=True, as_dict=True) if dims else {(): points}
    for values, rows in groups.items():
        label = ", ".join(f"{d}={v}" for d, v in zip(dims, values, strict=True)) or plot.metric
        xs = rows[plot.x].to_list()
        if plot.error == "std":
            err = rows["std"].fill_null(0.0).to_list()
        else:
            err = [(rows["mean"] - rows["min"]).to_list(), (rows["max"] - rows["mean"]).to_list()]
        ax.errorbar(xs, rows["mean"].to_list(), yerr=err, marker="o", capsize=3, label=label)
    seeds = sorted(set(points["n"].to_list()))
    ax.set_xlabel(plot.x)
    ax.set_ylabel(f"{plot.metric} (mean over {'/'.join(map(str, seeds))} seeds)")
    ax.set_title(f"{plot.metric} vs {plot.x}; {ERROR_LABELS[plot.error]}", fontsize="medium")
    ax.grid(True, alpha=0.3)
    if dims:
        ax.legend(fontsize="small")
    return _save(fig, out_dir / plot.file)


def _save(fig: object, path: Path) -> Path:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None})  # type: ignore[attr-defined]
        mask = os.umask(0o022)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
