"""Each operation's error arrives in Python as its own subclass of `ftlab.FtlabError`, with
the core's typed fields as attributes (crates/ftlab-py/src/lib.rs, `to_pyerr`), and the
command line prints it as one line. The expected values are worked out from the inputs
written here (a column's position in the format's layout, a line number), not read from the
core. Not here: the run's errors (`OutOfSpaceError`, `NoProgressError`: test_run.py, which
needs the simulator), the trace parsers' kinds in full (crates/ftlab/tests/trace_errors.rs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ftlab
from conftest import run_cli
from ftlab import _core

#: (class, its direct base): the hierarchy of docs/ARCHITECTURE.md, "Errors".
HIERARCHY = [
    ("ConfigError", "FtlabError"),
    ("TraceError", "FtlabError"),
    ("InputError", "FtlabError"),
    ("UsageError", "FtlabError"),
    ("RunError", "FtlabError"),
    ("OutOfSpaceError", "RunError"),
    ("NoProgressError", "RunError"),
    ("CaptureError", "TraceError"),
    ("RtError", "ConfigError"),
    ("LifetimeError", "InputError"),
]


@pytest.mark.parametrize(("name", "base"), HIERARCHY)
def test_each_operation_has_its_class(name: str, base: str) -> None:
    cls = getattr(_core, name)
    assert cls.__bases__ == (getattr(_core, base),)
    assert issubclass(cls, ftlab.FtlabError) and issubclass(cls, ValueError)
    assert getattr(ftlab, name) is cls and name in ftlab.__all__


def test_a_malformed_trace_line_is_a_trace_error_with_its_field(tmp_path: Path) -> None:
    # MSR: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime; Size is field 6.
    trace = tmp_path / "t.csv"
    trace.write_text("1,h,0,Read,0,4096,0\n1,h,0,Read,0,abc,0\n")
    with pytest.raises(ftlab.TraceError) as info:
        _core.trace_stats(str(trace), "msr")
    e = info.value
    assert type(e) is _core.TraceError
    assert (e.file, e.line, e.kind) == (str(trace), 2, "bad_field")
    assert (e.field, e.field_index, e.found, e.expected) == ("Size", 6, "abc", "an unsigned integer")
    assert str(e) == f'{trace}:2: field 6 (Size): expected an unsigned integer, got "abc"'
    assert e.reason == 'field 6 (Size): expected an unsigned integer, got "abc"'
    assert e.key is None and e.path is None


def test_a_trace_error_without_a_field(tmp_path: Path) -> None:
    # SYSTOR needs its header first; an empty file ends before it (line 1).
    trace = tmp_path / "s.csv"
    trace.write_text("")
    with pytest.raises(ftlab.TraceError) as info:
        _core.trace_stats(str(trace), "systor")
    e = info.value
    assert (e.line, e.kind, e.field, e.field_index, e.found) == (1, "missing_header", None, None, None)
    assert e.expected == '"Timestamp,Response,IOType,LUN,Offset,Size"'


def capture_error(tmp_path: Path, strace_text: str, log_text: str = "") -> ftlab.CaptureError:
    """The `CaptureError` of capturing `strace_text` with the RocksDB LOG `log_text` under /db
    (files s.log and LOG in `tmp_path`)."""
    (tmp_path / "s.log").write_text(strace_text)
    (tmp_path / "LOG").write_text(log_text)
    with pytest.raises(ftlab.CaptureError) as info:
        _core.capture(tmp_path / "s.log", tmp_path / "LOG", tmp_path / "t.csv", "/db", 64 << 20)
    return info.value


def test_a_capture_line_is_a_capture_error(tmp_path: Path) -> None:
    strace = tmp_path / "s.log"
    text = '1 0.5 openat(AT_FDCWD</>, "/db/x", O_WRONLY) = 3</db/x>\n1 0.6 write(3</db/x>, ""..., 4\n'
    e = capture_error(tmp_path, text)
    assert isinstance(e, ftlab.TraceError)
    assert (e.file, e.line, e.input, e.kind, e.call) == (str(strace), 2, "strace", "malformed", None)
    assert "expected `) = RET` at the end of the call" in str(e)
    # A LOG line: its EVENT_LOG_v1 JSON is cut.
    e = capture_error(tmp_path, text, "ok\nx EVENT_LOG_v1 {nope\n")
    assert (e.file, e.line, e.input, e.kind) == (str(tmp_path / "LOG"), 2, "log", "event_json")


def test_a_capture_call_names_its_syscall(tmp_path: Path) -> None:
    # pwrite64's 4th argument is the offset: "x" is not a non-negative integer.
    e = capture_error(
        tmp_path,
        '1 0.5 openat(AT_FDCWD</>, "/db/x", O_WRONLY) = 3</db/x>\n'
        '1 0.6 pwrite64(3</db/x>, ""..., 4, x) = 4\n',
    )
    assert (e.line, e.kind, e.call) == (2, "bad_argument", "pwrite64")
    assert 'pwrite64: argument 4 (offset) must be a non-negative integer, got "x"' in str(e)


def test_a_task_file_is_an_rt_error() -> None:
    bad = "[[tasks]]\nread_pages = 3\nread_period_ms = -1.0\n"
    with pytest.raises(ftlab.RtError) as info:
        _core.rt_admit(bad, "v.toml", "part-ftl")
    e = info.value
    assert isinstance(e, ftlab.ConfigError)
    assert (e.file, e.key, e.problem, e.line) == (
        "v.toml",
        "tasks.0.read_period_ms",
        "period_out_of_range",
        None,
    )
    assert str(e) == "v.toml: tasks.0.read_period_ms: must be in (0, 10000000000] ms, got -1"
    with pytest.raises(ftlab.RtError) as info:
        _core.rt_admit("[[tasks]]\nread_pages = 3\nread_period_ms = \n", "s.toml", "part-ftl")
    e = info.value
    assert (e.file, e.line, e.problem, e.key) == ("s.toml", 3, "syntax", None)
    # The analysis's arguments stay usage errors.
    with pytest.raises(ftlab.UsageError) as uinfo:
        _core.rt_admit(bad, "v.toml", "no-such-scheme")
    assert uinfo.value.arg == "--scheme" and not isinstance(uinfo.value, ftlab.RtError)


def test_a_malformed_lifetime_input_is_a_lifetime_error() -> None:
    with pytest.raises(ftlab.LifetimeError) as info:
        _core.lifetime("{", "", "flashblox", 1.0)
    e = info.value
    assert isinstance(e, ftlab.InputError)
    assert (e.file, e.path, e.line) == ("summary.json", "summary.json", 1)
    assert str(e).startswith("summary.json:1:") and "not JSON" in str(e)
    with pytest.raises(ftlab.LifetimeError) as info:
        _core.lifetime('{"schemes": {}}', "", "unified", 1.0)
    e = info.value
    assert (e.file, e.key, e.reason, e.line) == (
        "summary.json",
        "schemes.unified",
        "no such scheme in this run",
        None,
    )
    with pytest.raises(ftlab.UsageError) as uinfo:
        _core.lifetime("{}", "", "unified", -1.0)
    assert uinfo.value.arg == "--horizon-days"


def test_the_cli_prints_a_trace_error_as_one_line(tmp_path: Path) -> None:
    """One line where it fits (here COLUMNS=250); piped at 100 columns, the same words wrapped
    within the width (issue 42: no output line over 100 columns)."""
    trace = tmp_path / "t.csv"
    trace.write_text("1,h,0,Read,0,abc,0\n")
    r = run_cli(["trace", "stats", str(trace), "--format", "msr"], columns=250)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    want = f'error: {trace}:1: field 6 (Size): expected an unsigned integer, got "abc"'
    assert r.stderr == want + "\n"
    narrow = run_cli(["trace", "stats", str(trace), "--format", "msr"]).stderr.splitlines()
    assert all(len(line) <= 100 for line in narrow) and " ".join(x.strip() for x in narrow) == want
