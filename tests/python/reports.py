"""Helpers of the Python tests that build Reports without the simulator (synthetic summary,
time series, latency CDFs and wear with chosen schemes, tenants and extra columns) or from a
real small run of the bundled default scenario. Not a test module itself."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import polars as pl
import tomllib

import ftlab
from ftlab import _core
from ftlab.report import Report

#: A TOML or JSON document as `tomllib.loads` or `json.loads` gives it (a resolved scenario, a
#: hand-made summary to be dumped, what a page's script hands back): the name under which the
#: tests keep `Any`, the parser's boundary. The tests read its nested tables by key; a missing
#: key or a wrong type fails the test.
Parsed: TypeAlias = dict[str, Any]


def synthetic_report(
    schemes: Sequence[str] = ("alpha", "beta"),
    tenants: Sequence[str] = ("t0", "t1", "t2"),
    windows: int = 20,
    extra: Mapping[str, Mapping[str, float]] | None = None,
    cdf_points: int = 50,
    dies: int = 4,
    blocks: int = 16,
    scenario: str = "synthetic",
    resolved_toml: str = 'name = "synthetic"\n',
) -> Report:
    """A Report with every table filled with simple deterministic values.

    `extra` maps an extra time-series column to {scheme: value}; schemes not listed get NaN
    in it, as the core writes columns another scheme adds.
    """
    extra = extra or {}
    summary = {
        "ftlab_version": ftlab.__version__,
        "seed": 1,
        "scenario": scenario,
        "schemes": {
            s: {
                "tenants": {t: _tenant_metrics(i, j) for j, t in enumerate(tenants)},
                "device": {"waf": 1.5 + i, "erases": 10 * (i + 1), "die_utilisation": [0.5] * dies},
            }
            for i, s in enumerate(schemes)
        },
    }
    ts: dict[str, list[object]] = {c: [] for c in _core.TIMESERIES_COLUMNS[:3]}
    # The core's metric columns: TIMESERIES_COLUMNS without the three key columns before them
    # and `backlog` after them (a synthetic report has no backlog column).
    base = tuple(_core.TIMESERIES_COLUMNS[3:-1])
    for c in (*base, *extra):
        ts[c] = []
    for i, s in enumerate(schemes):
        for w in range(windows):
            for j, t in enumerate(tenants):
                ts["scheme"].append(s)
                ts["tenant"].append(t)
                ts["window_start_s"].append(w * 0.5)
                for k, c in enumerate(base):
                    ts[c].append(float(100 * (i + 1) + 10 * j + k + w % 3))
                for c, per_scheme in extra.items():
                    ts[c].append(per_scheme[s] + j if s in per_scheme else math.nan)
    return Report(
        json.dumps(summary, indent=2),
        resolved_toml,
        pl.DataFrame(ts),
        _cdf(schemes, tenants, cdf_points),
        _wear(schemes, dies, blocks),
    )


def _tenant_metrics(i: int, j: int) -> dict[str, object]:
    def op(k: int) -> dict[str, float]:
        return {"count": 100 + k, "iops": 10.0 + k, "mean_us": 100.0 + k, "p99_us": 900.0 + k}

    return {
        "read": op(10 * i + j),
        "write": op(10 * i + j + 1),
        "waf": 1.0 + i + j / 10,
        "gc_pages_copied": 5 * i + j,
    }


def _cdf(schemes: Sequence[str], tenants: Sequence[str], n: int) -> pl.DataFrame:
    rows: dict[str, list[object]] = {"scheme": [], "tenant": [], "op": [], "latency_us": [], "cdf": []}
    for s in schemes:
        for t in tenants:
            for op in ("read", "write"):
                for k in range(1, n + 1):
                    rows["scheme"].append(s)
                    rows["tenant"].append(t)
                    rows["op"].append(op)
                    rows["latency_us"].append(50.0 * 1.05**k)
                    rows["cdf"].append(k / n)
    return pl.DataFrame(rows)


def _wear(schemes: Sequence[str], dies: int, blocks: int) -> pl.DataFrame:
    rows: dict[str, list[object]] = {"scheme": [], "channel": [], "die": [], "block": [], "erase_count": []}
    for i, s in enumerate(schemes):
        for d in range(dies):
            for b in range(blocks):
                rows["scheme"].append(s)
                rows["channel"].append(d // 2)
                rows["die"].append(d)
                rows["block"].append(b)
                rows["erase_count"].append((i + d + b) % 7)
    return pl.DataFrame(
        rows,
        schema={"scheme": pl.String, **{c: pl.UInt64 for c in ("channel", "die", "block", "erase_count")}},
    )


def default_scenario(**measure: float) -> dict[str, object]:
    """The bundled default scenario's device and three tenants as a dict, with a smaller
    device (64 blocks per plane), two of its schemes (unified and partitioned, to keep the
    tests fast) and the given [measure] values."""
    scenario = tomllib.loads(ftlab.default_scenario_toml())
    scenario["device"]["blocks_per_plane"] = 64
    scenario["schemes"] = ["unified", "partitioned"]
    scenario["measure"].update(measure)
    return scenario


def with_scheme_copy(report: Report, source: str, copy: str) -> Report:
    """`report` with `source`'s results added again under the scheme name `copy` (in the
    summary and every table): a run of one more scheme, for size bounds."""
    summary = json.loads(report.summary_json)
    summary["schemes"][copy] = summary["schemes"][source]

    def dup(frame: pl.DataFrame) -> pl.DataFrame:
        return pl.concat(
            [frame, frame.filter(pl.col("scheme") == source).with_columns(pl.lit(copy).alias("scheme"))]
        )

    return Report(
        json.dumps(summary, indent=2),
        report.resolved_toml,
        dup(report.timeseries),
        None if report.latency_cdf is None else dup(report.latency_cdf),
        None if report.wear is None else dup(report.wear),
    )
