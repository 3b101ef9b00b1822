"""ftlab.sweeps.spec: the sweep file of `ftlab sweep` (format in docs/sweep.md): parse it,
validate it with errors naming the file and key, and expand it into planned runs.

A sweep names a base scenario, a grid (key path -> list of values, cartesian product) and/or
a list of cases (named override sets), a list of seeds, an output directory and a plot. Each
planned run is a list of `key.path=value` overrides (the `--set` syntax of the core) and a
seed. This module is not the execution (`ftlab.sweeps.exec`), the table (`ftlab.sweeps.table`)
or the plot (`ftlab.sweeps.plot`); it imports nothing heavy and runs no simulation.
"""

from __future__ import annotations

import datetime
import itertools
import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias, TypedDict, Union, cast

from ftlab import _core, _toml
from ftlab.api import scenario_to_toml

StrPath = Union[str, "os.PathLike[str]"]
#: A value as TOML reads it (tomllib's types): what a swept key takes.
TomlValue: TypeAlias = (
    "bool | int | float | str | datetime.date | datetime.time | list[TomlValue] | dict[str, TomlValue]"
)

#: The display name of a sweep given as a dict (used in error messages).
DICT_SWEEP_NAME = "<dict>"
TOP_KEYS = ("name", "scenario", "out", "seeds", "grid", "cases", "plot")
CASE_KEYS = ("name", "set")
PLOT_KEYS = ("metric", "x", "error", "file", "tenants")
ERROR_BARS = ("minmax", "std")
#: Columns of the sweep table that a swept key may not be named like.
RESERVED = ("seed", "run", "scheme", "tenant", "case")
_U64_MAX = 2**64 - 1


@dataclass(frozen=True)
class PlotSpec:
    """`[plot]`: `metric` (a table column) against the parameter `x`, one line per value of
    the other swept dimensions, error bars over seeds (`minmax` or `std`), into `file`."""

    metric: str
    x: str
    error: str = "minmax"
    file: str = "sweep.png"
    tenants: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Case:
    """One element of `[[cases]]`: a name and its overrides (key path -> value)."""

    name: str
    sets: dict[str, TomlValue]


@dataclass(frozen=True)
class Point:
    """One planned run: its parameter values (column name -> value as written), its case,
    its seed (None: the scenario's), the overrides that make it, and once its scenario is
    resolved, its run key (the sha256 of the resolved scenario)."""

    params: dict[str, TomlValue]
    case: str | None
    seed: int | None
    overrides: tuple[str, ...]
    key: str | None = None


class PlanEntry(TypedDict):
    """A planned run as sweep.json lists it: its run key (None if its scenario did not
    resolve), parameters, case, seed and overrides."""

    run: str | None
    params: dict[str, TomlValue]
    case: str | None
    seed: int | None
    overrides: list[str]


class Failure(PlanEntry):
    """A failed run as failures.json lists it: its plan entry, the error's kind (the ftlab
    error class, `RayError`, `VersionMismatch`) and the error message."""

    kind: str
    error: str


class RunMeta(TypedDict):
    """run.json beside a finished run's results: the sweep file, the ftlab version, then the
    plan entry without its key (the directory's name) until the run is written."""

    sweep: str
    ftlab_version: str
    params: dict[str, TomlValue]
    case: str | None
    seed: int | None
    overrides: list[str]


class PlotRecord(TypedDict):
    """`PlotSpec` as sweep.json holds it."""

    metric: str
    x: str
    error: str
    file: str
    tenants: list[str] | None


class SweepMeta(TypedDict):
    """sweep.json: the ftlab version, the sweep file and name, the base scenario, the swept
    parameters, the plot and every planned run."""

    ftlab_version: str
    sweep: str
    name: str
    scenario: str
    parameters: list[str]
    plot: PlotRecord | None
    runs: list[PlanEntry]


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep file. `file` names it in errors; relative paths resolve against
    `base_dir`. The base scenario, read once: its text, the name its errors give it (its
    path, or "<dict>"), and the absolute directory its relative trace paths resolve against."""

    file: str
    base_dir: Path
    name: str
    scenario_name: str
    scenario_text: str
    scenario_dir: Path
    out: Path | None
    seeds: tuple[int, ...] | None
    grid: dict[str, list[TomlValue]]
    cases: list[Case]
    plot: PlotSpec | None
    stem: str = field(default="sweep")

    @property
    def parameters(self) -> list[str]:
        """The swept keys, as table columns: grid keys, then keys set by cases, then `case`."""
        return _parameters(self.grid, self.cases)

    def plot_record(self) -> PlotRecord | None:
        """The plot as sweep.json holds it (None without one)."""
        p = self.plot
        tenants = list(p.tenants) if p and p.tenants else None
        return PlotRecord(metric=p.metric, x=p.x, error=p.error, file=p.file, tenants=tenants) if p else None

    def points(self, extra_set: tuple[str, ...] = ()) -> list[Point]:
        """Every planned run: cases × grid (keys in file order) × seeds, in that order.
        `extra_set` overrides go first (they apply to every run)."""
        out = []
        grid_keys = list(self.grid)
        cases: list[Case | None] = [*self.cases] if self.cases else [None]
        for case in cases:
            for values in itertools.product(*(self.grid[k] for k in grid_keys)):
                params = dict(case.sets) if case else {}
                params.update(zip(grid_keys, values, strict=True))
                sets = [*(case.sets.items() if case else ()), *zip(grid_keys, values, strict=True)]
                overrides = (*extra_set, *(f"{k}={toml_inline(v)}" for k, v in sets))
                if case:
                    params["case"] = case.name
                for seed in self.seeds or (None,):
                    out.append(Point(params, case.name if case else None, seed, overrides))
        return out


def config_error(file: str, key: str, reason: str, line: int | None = None) -> _core.ConfigError:
    """A `ftlab.ConfigError` worded like the core's: `file: key: reason` or `file:line: reason`."""
    err = _core.ConfigError(f"{file}:{line}: {reason}" if line is not None else f"{file}: {key}: {reason}")
    err.file, err.reason = file, reason
    if line is None:
        err.key = key
    else:
        err.line = line
    return err


def load_spec(source: StrPath | Mapping[str, object]) -> SweepSpec:
    """Read and validate a sweep: a TOML file, or a dict of the same structure (relative
    paths then resolve against the current directory). Raises `ftlab.ConfigError` naming the
    file and key, or `ftlab.InputError` if the file cannot be read."""
    if isinstance(source, Mapping):
        return _validate(dict(source), DICT_SWEEP_NAME, Path.cwd(), "sweep")
    path = Path(os.fspath(source))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        err = _core.InputError(f"{path}: {getattr(e, 'strerror', None) or e}")
        err.path, err.reason = str(path), str(getattr(e, "strerror", None) or e)
        raise err from None
    try:
        data = _toml.loads(text)
    except _toml.TOMLDecodeError as e:
        raise _syntax_error(str(path), text, e) from None
    return _validate(data, str(path), path.parent, path.stem)


def _syntax_error(file: str, text: str, e: Exception) -> _core.ConfigError:
    msg = str(e)
    m = re.search(r"\s*\(at line (\d+), column \d+\)$", msg)
    if m:
        return config_error(file, "", msg[: m.start()], line=int(m.group(1)))
    m = re.search(r"\s*\(at end of document\)$", msg)
    line = text.count("\n") + (0 if text.endswith("\n") else 1)
    return config_error(file, "", msg[: m.start()] if m else msg, line=max(line, 1))


def _validate(data: Mapping[str, object], file: str, base_dir: Path, stem: str) -> SweepSpec:
    _check_keys(data, TOP_KEYS, file, "")
    name = _string(data, "name", file, "") or ""
    scenario_name, scenario_text, scenario_dir = _scenario(data, file, base_dir)
    out = _string(data, "out", file, "")
    seeds = _seeds(data.get("seeds"), file)
    grid = _grid(data.get("grid", {}), file)
    cases = _cases(data.get("cases", []), file, grid)
    plot = _plot(data.get("plot"), file, _parameters(grid, cases), grid)
    return SweepSpec(
        file=file,
        base_dir=base_dir,
        name=name,
        scenario_name=scenario_name,
        scenario_text=scenario_text,
        scenario_dir=scenario_dir,
        out=base_dir / out if out else None,
        seeds=seeds,
        grid=grid,
        cases=cases,
        plot=plot,
        stem=stem,
    )


def _parameters(grid: Mapping[str, object], cases: list[Case]) -> list[str]:
    keys = list(dict.fromkeys([*grid, *(k for c in cases for k in c.sets)]))
    return keys + (["case"] if cases else [])


def _check_keys(table: Mapping[str, object], allowed: tuple[str, ...], file: str, where: str) -> None:
    for k in table:
        if k not in allowed:
            key = f"{where}.{k}" if where else k
            raise config_error(file, key, f"unknown key; allowed: {', '.join(allowed)}")


def _string(table: Mapping[str, object], k: str, file: str, where: str) -> str | None:
    value = table.get(k)
    if value is None:
        return None
    if not isinstance(value, str):
        raise config_error(file, f"{where}{k}", f"must be a string, got {_describe(value)}")
    return value


def _scenario(data: Mapping[str, object], file: str, base_dir: Path) -> tuple[str, str, Path]:
    """(name, text, absolute directory) of the base scenario."""
    value = data.get("scenario")
    if value is None:
        raise config_error(
            file, "scenario", "missing: the base scenario file, relative to this file's directory"
        )
    if isinstance(value, Mapping) and file == DICT_SWEEP_NAME:
        return DICT_SWEEP_NAME, scenario_to_toml(value), Path.cwd()
    if not isinstance(value, (str, os.PathLike)):
        raise config_error(file, "scenario", f"must be a file path (string), got {_describe(value)}")
    path = Path(os.path.normpath(base_dir / os.fspath(value)))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        where = "the current directory" if file == DICT_SWEEP_NAME else "this file's directory"
        reason = getattr(e, "strerror", None) or str(e)
        raise config_error(
            file, "scenario", f"cannot read {path}: {reason} (relative paths resolve against {where})"
        ) from None
    return str(path), text, path.parent.absolute()


def _seeds(value: object, file: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise config_error(file, "seeds", f"must be a non-empty array of integers, got {_describe(value)}")
    for i, s in enumerate(value):
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= _U64_MAX:
            raise config_error(file, f"seeds.{i}", f"must be an integer in [0, 2^64 - 1], got {_describe(s)}")
    _no_duplicates(value, file, "seeds")
    return tuple(cast("list[int]", value))


def _grid(value: object, file: str) -> dict[str, list[TomlValue]]:
    if not isinstance(value, Mapping):
        raise config_error(file, "grid", f"must be a table of key.path = [values], got {_describe(value)}")
    grid: dict[str, list[TomlValue]] = {}
    for key, values in _leaves(value, ""):
        where = f"grid.{key}"
        if not isinstance(values, list) or not values:
            raise config_error(
                file,
                where,
                "must be a non-empty array of the values to sweep, e.g. [0.1, 0.25], got "
                f"{_describe(values)}",
            )
        _check_param_name(key, file, where)
        if key in grid:
            raise config_error(file, where, "given twice (as a dotted key and as nested tables)")
        grid[key] = _no_duplicates(values, file, where)
    return grid


def _cases(value: object, file: str, grid: Mapping[str, object]) -> list[Case]:
    if not isinstance(value, list) or not all(isinstance(c, Mapping) for c in value):
        raise config_error(file, "cases", f"must be an array of tables ([[cases]]), got {_describe(value)}")
    cases: list[Case] = []
    for i, c in enumerate(value):
        where = f"cases.{i}"
        _check_keys(c, CASE_KEYS, file, where)
        name = _string(c, "name", file, f"{where}.") or f"case-{i}"
        if not name or any(name == other.name for other in cases):
            raise config_error(
                file, f"{where}.name", f"must be a non-empty name not used by another case, got {name!r}"
            )
        sets_value = c.get("set", {})
        if not isinstance(sets_value, Mapping):
            raise config_error(
                file, f"{where}.set", f"must be a table of key.path = value, got {_describe(sets_value)}"
            )
        sets: dict[str, TomlValue] = {}
        for key, v in _leaves(sets_value, ""):
            _check_param_name(key, file, f"{where}.set.{key}")
            if key in grid:
                raise config_error(
                    file,
                    f"{where}.set.{key}",
                    "is also a grid key; sweep a key either in [grid] or in [[cases]]",
                )
            sets[key] = _representable(v, file, f"{where}.set.{key}")
        cases.append(Case(name, sets))
    return cases


def _plot(value: object, file: str, params: list[str], grid: Mapping[str, object]) -> PlotSpec | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise config_error(file, "plot", f"must be a table, got {_describe(value)}")
    _check_keys(value, PLOT_KEYS, file, "plot")
    metric = _string(value, "metric", file, "plot.")
    if not metric:
        raise config_error(
            file, "plot.metric", 'missing: the table column to plot, e.g. "waf" or "device.waf"'
        )
    x = _string(value, "x", file, "plot.") or next(iter(grid), None)
    if x is None or x not in params:
        allowed = ", ".join(params) if params else "none: the sweep has no grid or cases"
        raise config_error(file, "plot.x", f"must be a swept parameter ({allowed}), got {x!r}")
    error = _string(value, "error", file, "plot.") or "minmax"
    if error not in ERROR_BARS:
        raise config_error(file, "plot.error", f"must be one of {', '.join(ERROR_BARS)}, got {error!r}")
    out = _string(value, "file", file, "plot.") or "sweep.png"
    if not re.fullmatch(r"[^/\\]+\.png", out) or out.startswith("."):
        raise config_error(
            file,
            "plot.file",
            f"must be a file name ending in .png (written in the sweep directory), got {out!r}",
        )
    tenants = value.get("tenants")
    if tenants is not None and (
        not isinstance(tenants, list) or not tenants or not all(isinstance(t, str) for t in tenants)
    ):
        raise config_error(
            file, "plot.tenants", f"must be a non-empty array of tenant names, got {_describe(tenants)}"
        )
    return PlotSpec(metric, x, error, out, tuple(cast("list[str]", tenants)) if tenants else None)


def _leaves(table: Mapping[str, object], prefix: str) -> Iterator[tuple[str, object]]:
    """(dotted key, value) of a nested table: tables are path segments, anything else a leaf."""
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            yield from _leaves(v, key)
        else:
            yield key, v


def _check_param_name(key: str, file: str, where: str) -> None:
    if any(not s.strip() for s in key.split(".")):
        raise config_error(file, where, "empty segment in key path")
    if key in RESERVED:
        hint = "; sweep seeds with the top-level `seeds` array" if key == "seed" else ""
        raise config_error(file, where, f"{key!r} is a column of the sweep table and cannot be swept{hint}")


def _no_duplicates(values: list[object], file: str, where: str) -> list[TomlValue]:
    """`values`, each checked representable in TOML and unlike the others."""
    seen: dict[str, int] = {}
    out = []
    for i, v in enumerate(values):
        out.append(_representable(v, file, f"{where}.{i}"))
        text = toml_inline(out[-1])
        if text in seen:
            raise config_error(file, f"{where}.{i}", f"duplicate of element {seen[text]} ({text})")
        seen[text] = i
    return out


def _representable(value: object, file: str, where: str) -> TomlValue:
    """`value` once `toml_inline` writes it (a sweep given as a dict may hold a path or a
    tuple, written as their TOML string or array)."""
    try:
        toml_inline(value)
    except TypeError as e:
        raise config_error(file, where, f"{e}; leave the key out instead") from None
    return cast("TomlValue", value)


def _describe(value: object) -> str:
    kinds = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array"}
    if isinstance(value, Mapping):
        return "a table"
    kind = kinds.get(type(value), type(value).__name__)
    try:
        return f"{kind} ({toml_inline(value)})"
    except TypeError:
        return kind


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_inline(value: object) -> str:
    """A value as TOML inline text (what `--set key=VALUE` parses back to the same value).

    >>> toml_inline(["unified"]), toml_inline(0.15), toml_inline({"bytes": 8192})
    ('["unified"]', '0.15', '{ bytes = 8192 }')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_inline(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = (
            f"{k if _BARE_KEY.fullmatch(k) else toml_inline(k)} = {toml_inline(v)}" for k, v in value.items()
        )
        return "{ " + ", ".join(items) + " }" if value else "{}"
    if isinstance(value, os.PathLike):
        return toml_inline(os.fspath(value))
    if isinstance(value, (datetime.date, datetime.time)):  # TOML dates and times
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} has no TOML representation")
