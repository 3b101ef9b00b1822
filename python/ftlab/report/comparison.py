"""ftlab.report.comparison: line up the summary metrics of several results directories
(`ftlab compare`, `ftlab.compare`).

One row per (scheme, tenant, metric) found in any directory (tenant is null for a device
metric), one column per directory (its path as given) and, for each directory after the
first, a `rel_change:<dir>` column: (value - first) / first, null where the first value is 0
or either value is missing. Only summary.json is read. `write_table` saves the table as CSV,
parquet or JSON (by suffix), atomically. It computes no new metric and prints nothing (the
rich table is `ftlab.cli`'s).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Union

from ftlab._errors import usage_error
from ftlab.report import load_summary_text, metric_rows, write_files_atomically
from ftlab.results import summary_from_json

if TYPE_CHECKING:
    import polars as pl

# polars is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

StrPath = Union[str, "os.PathLike[str]"]

KEYS = ("scheme", "tenant", "metric")
#: Output formats of `write_table`, by suffix.
FORMATS = (".csv", ".parquet", ".json")
REL_PREFIX = "rel_change:"


def compare(dirs: Sequence[StrPath], *, metrics: Sequence[str] = ()) -> pl.DataFrame:
    """The side-by-side table of `dirs` (see the module docstring). `metrics` keeps only
    metrics matching one of these fnmatch patterns (e.g. "read_p99*").

    Raises `ftlab.UsageError` (no or repeated directory) or `ftlab.InputError` naming the
    directory and the missing or bad file.

    >>> import ftlab
    >>> table = ftlab.compare(["results/a", "results/b"], metrics=["read_p99_us"])  # doctest: +SKIP
    >>> table.columns  # doctest: +SKIP
    ['scheme', 'tenant', 'metric', 'results/a', 'results/b', 'rel_change:results/b']
    """
    import polars as pl

    labels = [os.fspath(d) for d in dirs]
    if not labels:
        raise usage_error("dirs", "give at least one results directory")
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise usage_error("dirs", f"directory {repeated[0]!r} is given more than once")
    values: dict[tuple[str, str | None, str], list[float | None]] = {}
    for i, label in enumerate(labels):
        summary = summary_from_json(load_summary_text(label))
        for scheme, tenant, metric, value in metric_rows(summary):
            if metrics and not any(fnmatch.fnmatchcase(metric, p) for p in metrics):
                continue
            values.setdefault((scheme, tenant, metric), [None] * len(labels))[i] = value
    columns: dict[str, list[object]] = {k: [key[j] for key in values] for j, k in enumerate(KEYS)}
    for i, label in enumerate(labels):
        columns[label] = [v[i] for v in values.values()]
    for label in labels[1:]:
        columns[REL_PREFIX + label] = [
            _rel(v0, v) for v0, v in zip(columns[labels[0]], columns[label], strict=True)
        ]
    schema = {k: pl.String for k in KEYS} | {c: pl.Float64 for c in columns if c not in KEYS}
    return pl.DataFrame(columns, schema=schema)


def _rel(first: object, value: object) -> float | None:
    if not isinstance(first, float) or not isinstance(value, float) or first == 0.0:
        return None
    return (value - first) / first


def table_format(path: StrPath, arg: str = "path") -> str:
    """The output suffix of `path` if `write_table` supports it; otherwise an
    `ftlab.UsageError` naming `arg`.

    >>> table_format("cmp.CSV")
    '.csv'
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise usage_error(
            arg, f"{os.fspath(path)!r} has the suffix {suffix or '(none)'!r}; use {', '.join(FORMATS)}"
        )
    return suffix


def write_table(table: pl.DataFrame, path: StrPath, arg: str = "path") -> Path:
    """Write `table` to `path` as CSV, parquet or JSON (a list of row objects), chosen by
    the suffix; otherwise an `ftlab.UsageError` naming `arg`. Atomic; parent directories
    are created. Returns the path.

    >>> write_table(ftlab.compare(["results/a", "results/b"]), "cmp.parquet")  # doctest: +SKIP
    PosixPath('cmp.parquet')
    """
    out = Path(path)
    suffix = table_format(out, arg)
    writers = {
        ".csv": lambda p: table.write_csv(p),
        ".parquet": lambda p: table.write_parquet(p),
        ".json": lambda p: table.write_json(p),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    write_files_atomically(out.parent, {out.name: writers[suffix]})
    return out
