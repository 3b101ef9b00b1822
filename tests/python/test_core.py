"""Tests of the binding layer ftlab._core that do not need the simulator: module contents,
the exception hierarchy and attributes, argument validation done in the bindings, and the
promise that importing ftlab._core pulls in nothing heavy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ftlab
from ftlab import _core


def test_module_surface() -> None:
    assert _core.version() == ftlab.__version__
    assert isinstance(_core.default_scenario_toml(), str)
    assert _core.BENCH_CASES and all(isinstance(c, str) for c in _core.BENCH_CASES)
    assert _core.TRACE_FORMATS == [
        "msr",
        "mqsim",
        "systor",
        "spc",
        "tencent",
        "alibaba",
        "blkparse",
        "fio",
        "msprod",
        "fiu",
        "vscsi",
        "ftlab-csv",
    ]


@pytest.mark.parametrize(
    "name", ["ConfigError", "TraceError", "InputError", "UsageError", "OutOfSpaceError", "NoProgressError"]
)
def test_exception_hierarchy(name: str) -> None:
    cls = getattr(_core, name)
    assert issubclass(cls, _core.FtlabError)
    assert issubclass(cls, ValueError)
    assert cls.__module__ == "ftlab._core"
    assert getattr(ftlab, name) is cls


def test_exception_attributes_default_to_none() -> None:
    e = _core.ConfigError("x")
    assert str(e) == "x"
    for attr in ("reason", "file", "line", "key", "path", "arg"):
        assert getattr(e, attr) is None


def test_unknown_trace_format_lists_valid_names(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("")
    with pytest.raises(_core.UsageError) as info:
        _core.trace_stats(str(f), "nope")
    msg = str(info.value)
    assert "nope" in msg
    for name in _core.TRACE_FORMATS:
        assert name in msg
    assert info.value.arg == "--format"
    assert info.value.reason and "nope" in info.value.reason


def test_unknown_bench_case() -> None:
    with pytest.raises(_core.UsageError) as info:
        _core.bench_case("no-such-case")
    for case in _core.BENCH_CASES:
        assert case in str(info.value)


def test_run_rejects_path_and_text_together() -> None:
    with pytest.raises(_core.UsageError):
        _core.run(source_path="a.toml", text="x = 1")


def test_run_rejects_negative_seed() -> None:
    with pytest.raises(OverflowError):
        _core.run(seed=-1)


def test_import_core_is_light() -> None:
    code = (
        "import sys, ftlab._core\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'polars', 'typer', "
        "'rich', 'tomli_w', 'pyarrow'})\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
