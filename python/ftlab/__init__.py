"""ftlab: the Python front of the ftlab multi-tenant SSD simulator.

Public API: `run(scenario) -> Report`, `load(dir) -> Report`, `Report`, `plot(report or
dir, kind, path)` (PNG/SVG figures), `compare(dirs) -> DataFrame`, parameter sweeps
(`sweep(spec) -> SweepResult`, `load_sweep(dir)`, `SweepResult`), the papers' reproductions
(`reproduce(name) -> ReproductionResult`), and the exception classes
(`FtlabError` and its subclasses). The simulation itself is the Rust extension
`ftlab._core`. The package is grouped by role: `ftlab.api` (running a scenario),
`ftlab.cli` (the command line), `ftlab.report` (results, report.html and figures),
`ftlab.sweeps` (parameter sweeps on Ray), `ftlab.reproduce` (the papers' experiments) and
`ftlab.capture` (tracing an application). This module is none of those, and it stays light:
importing `ftlab` (or `ftlab._core`) does not import polars, typer, rich or ray.
`dir(ftlab)` lists the public API only.
"""

from __future__ import annotations

import importlib as _importlib

from ftlab._core import (
    BENCH_CASES,
    TRACE_FORMATS,
    CaptureError,
    ConfigError,
    FtlabError,
    InputError,
    LifetimeError,
    NoProgressError,
    OutOfSpaceError,
    RtError,
    RunError,
    TraceError,
    UsageError,
    default_scenario_toml,
    trace_stats,
)
from ftlab._core import version as _core_version

__version__: str = _core_version()

__all__ = [
    "BENCH_CASES",
    "TRACE_FORMATS",
    "CaptureError",
    "ConfigError",
    "FtlabError",
    "InputError",
    "LifetimeError",
    "NoProgressError",
    "OutOfSpaceError",
    "Report",
    "RtError",
    "RunError",
    "SweepResult",
    "TraceError",
    "UsageError",
    "__version__",
    "compare",
    "default_scenario_toml",
    "load",
    "load_sweep",
    "plot",
    "reproduce",
    "run",
    "scenario_to_toml",
    "sweep",
    "trace_stats",
]

# Not `from typing import TYPE_CHECKING`: importing typing costs 1.7 MiB of the bench
# subprocess's peak RSS (ftlab._bench); type checkers treat this name as typing's.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ftlab.api import run, scenario_to_toml
    from ftlab.report import Report, load
    from ftlab.report.comparison import compare
    from ftlab.report.plots import plot
    from ftlab.reproduce import reproduce
    from ftlab.sweeps import SweepResult, load_sweep, sweep

_LAZY = {
    "run": "ftlab.api",
    "scenario_to_toml": "ftlab.api",
    "Report": "ftlab.report",
    "load": "ftlab.report",
    "plot": "ftlab.report.plots",
    "compare": "ftlab.report.comparison",
    "sweep": "ftlab.sweeps",
    "load_sweep": "ftlab.sweeps",
    "SweepResult": "ftlab.sweeps",
    "reproduce": "ftlab.reproduce",  # the function; the package ftlab.reproduce is callable as it too
}


def __getattr__(name: str) -> object:
    # PEP 562: import the orchestration modules on first use, so `import ftlab._core`
    # (used by the per-case bench subprocess) pulls in nothing else.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ftlab' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


del annotations, TYPE_CHECKING
