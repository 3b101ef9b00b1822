"""ftlab.sweeps.table: the tidy table of a sweep, built from its runs' summary.json files.

One row per run, scheme and tenant: the swept parameters (one column per swept key path, plus
`case` when the sweep has cases), `seed`, `run` (the run's key), `scheme`, `tenant`, then the
tenant's summary.json metrics flattened with dots (`waf`, `write.p99_us`, ...) and the
scheme's device metrics (`device.waf`, `device.erases`, ...). Rows are sorted by parameters,
seed, scheme and tenant, so the table does not depend on the order runs finished in. This
module reads files and builds DataFrames; it runs nothing and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab.results import Summary, summary_from_json
from ftlab.sweeps.spec import Point, toml_inline

if TYPE_CHECKING:
    import polars as pl

# polars is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

#: Columns after the parameters, before the metrics.
ID_COLUMNS = ("seed", "run", "scheme", "tenant")
_I64_MAX = 2**63 - 1


def build_table(
    parameters: Sequence[str], points: Sequence[Point], done: Iterable[tuple[Point, str]], runs_dir: Path
) -> pl.DataFrame:
    """The sweep table of the finished runs `done` ((point, run key) pairs). Column types of
    the parameters follow the values of every planned point in `points`."""
    import polars as pl

    kinds = {name: _kind([p.params.get(name) for p in points]) for name in parameters}
    param_rows: list[dict[str, object]] = []
    metric_rows: list[dict[str, object]] = []
    for point, key in done:
        summary = summary_from_json((runs_dir / key / "summary.json").read_text(encoding="utf-8"))
        for scheme, tenant, metrics in _summary_rows(summary):
            params = {name: _cell(point.params.get(name), kinds[name]) for name in parameters}
            param_rows.append(
                {**params, "seed": summary["seed"], "run": key, "scheme": scheme, "tenant": tenant}
            )
            metric_rows.append(metrics)
    dtypes = _dtypes()
    schema = {name: dtypes[kinds[name]]() for name in parameters}
    schema.update(seed=pl.UInt64(), run=pl.String(), scheme=pl.String(), tenant=pl.String())
    ids = pl.DataFrame(param_rows, schema=schema, orient="row") if param_rows else pl.DataFrame(schema=schema)
    if metric_rows:
        ids = pl.concat([ids, pl.from_dicts(metric_rows, infer_schema_length=None)], how="horizontal")
    return ids.sort([*parameters, "seed", "scheme", "tenant"], nulls_last=True)


def _summary_rows(summary: Summary) -> Iterable[tuple[str, str, dict[str, object]]]:
    """(scheme, tenant, metrics) of one summary.json: the tenant's metrics flattened, then
    the scheme's other entries (`device`, ...) flattened under their name."""
    for scheme, data in summary["schemes"].items():
        shared: dict[str, object] = {}
        for k, v in data.items():
            if k != "tenants":
                _flatten(v, k, shared)
        for tenant, t in data["tenants"].items():
            metrics: dict[str, object] = {}
            _flatten(t, "", metrics)
            yield scheme, tenant, {**metrics, **shared}


def _flatten(value: object, prefix: str, out: dict[str, object]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else k, out)
    else:
        out[prefix] = value


def _kind(values: Sequence[object]) -> str:
    """The column kind of a parameter's values: bool, int, uint, float, str, or toml (mixed
    or structured values, written as TOML inline text)."""
    vals = [v for v in values if v is not None]
    if not vals:
        return "str"
    if all(isinstance(v, bool) for v in vals):
        return "bool"
    if any(isinstance(v, bool) for v in vals):
        return "toml"
    ints = [v for v in vals if isinstance(v, int)]
    if len(ints) == len(vals):
        if all(-_I64_MAX - 1 <= v <= _I64_MAX for v in ints):
            return "int"
        return "uint" if min(ints) >= 0 else "toml"
    if all(isinstance(v, (int, float)) for v in vals):
        return "float"
    if all(isinstance(v, str) for v in vals):
        return "str"
    return "toml"


def _cell(value: object, kind: str) -> object:
    if value is None:
        return None
    if kind == "float":
        assert isinstance(value, (int, float)), "a float column holds numbers (`_kind`)"
        return float(value)
    return toml_inline(value) if kind == "toml" else value


def _dtypes() -> dict[str, type[pl.DataType]]:
    import polars as pl

    return {
        "bool": pl.Boolean,
        "int": pl.Int64,
        "uint": pl.UInt64,
        "float": pl.Float64,
        "str": pl.String,
        "toml": pl.String,
    }
