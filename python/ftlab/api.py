"""ftlab.api: `ftlab.run`, the Python entry point of a simulation run.

It turns the user's scenario argument (a path, a dict, or None for the bundled default)
into a call of the Rust core `ftlab._core.run`, and wraps the result in a `Report`
(optionally written to a directory). It is orchestration only: no simulation logic, no
terminal output.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Union

from ftlab import _core, _toml
from ftlab.report import Report, headline

# tomli_w is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

StrPath = Union[str, "os.PathLike[str]"]
Scenario = StrPath | Mapping[str, object] | None

#: The display name of a scenario given as a dict (used in error messages).
DICT_SCENARIO_NAME = "<dict>"


def run(
    scenario: Scenario = None,
    *,
    out: StrPath | None = None,
    seed: int | None = None,
    set: Iterable[str] = (),
    progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
    solo: bool = False,
    baseline: str | None = None,
) -> Report:
    """Run every scheme of a scenario and return its Report.

    `scenario` is a path to a TOML file (relative trace paths resolve against its
    directory), a dict with the same structure (converted to TOML; relative paths resolve
    against the current directory), or None for the bundled default scenario. `seed`
    overrides the scenario's seed; `set` is a list of `key.path=value` overrides applied in
    order; `progress(done, total)` is called from time to time while the simulation runs.
    `jobs` is how many schemes are simulated at once (default: the machine's cores; 0 is a
    `ftlab.UsageError`); the results are byte-identical for any value. With `out`, the
    Report is also written there, report.html included (see `Report.write`); `baseline` is the
    scheme report.html's headline compares the others against (default: the first listed; a
    name the scenario does not list is a `ftlab.UsageError` with `arg` "baseline", raised
    before anything runs). `solo=True` appends the override `measure.solo=true`: every tenant
    also runs alone under each scheme, and summary.json gets each tenant's `solo` latencies and
    `slowdown` (docs/scenario.md).

    Raises `ftlab.FtlabError` (a `ValueError`) or one of its subclasses on bad input.
    """
    overrides = [set] if isinstance(set, str) else list(set)
    if solo:
        overrides.append("measure.solo=true")
    if baseline is not None:
        check_baseline(scenario, seed, overrides, baseline)
    result = _core.run(
        **_source_kwargs(scenario),
        seed=seed,
        overrides=overrides,
        progress=progress,
        jobs=jobs,
    )
    report = Report.from_core(result)
    if out is not None:
        report.write(out, html=True, baseline=baseline)
    return report


def check_baseline(scenario: Scenario, seed: int | None, overrides: Iterable[str], baseline: str) -> None:
    """Raise the `ftlab.UsageError` (`arg` "baseline") of a baseline scheme the scenario does
    not list, without running anything (the scenario is only resolved)."""
    overrides = [overrides] if isinstance(overrides, str) else list(overrides)
    resolved = _toml.loads(_core.resolve(**_source_kwargs(scenario), seed=seed, overrides=overrides))
    headline.check_baseline(baseline, [str(s) for s in resolved.get("schemes") or []])


def _source_kwargs(scenario: Scenario) -> dict[str, str]:
    if scenario is None:
        return {}
    if isinstance(scenario, Mapping):
        return {
            "text": scenario_to_toml(scenario),
            "base_dir": os.getcwd(),
            "name": DICT_SCENARIO_NAME,
        }
    if isinstance(scenario, (str, os.PathLike)):
        return {"source_path": os.fspath(scenario)}
    raise TypeError(f"scenario must be a path, a dict or None, not {type(scenario).__name__}")


def scenario_to_toml(scenario: Mapping[str, object]) -> str:
    """Convert a scenario dict to TOML text (path-like values become strings).

    Raises `ftlab.ConfigError` naming the key of a value TOML cannot represent (None).
    """
    import tomli_w

    plain = _plain(scenario, "")
    assert isinstance(plain, dict), "a mapping stays a table"
    return tomli_w.dumps(plain)


def _plain(value: object, key: str) -> object:
    if isinstance(value, Mapping):
        out: dict[str, object] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _config_error(key or "<root>", f"key {k!r} is not a string")
            out[k] = _plain(v, f"{key}.{k}" if key else k)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{key}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None:
        raise _config_error(key, "None has no TOML representation; leave the key out instead")
    return value


def _config_error(key: str, reason: str) -> _core.ConfigError:
    err = _core.ConfigError(f"{DICT_SCENARIO_NAME}: {key}: {reason}")
    err.file = DICT_SCENARIO_NAME
    err.key = key
    err.reason = reason
    return err
