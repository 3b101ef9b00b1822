"""Tests of `ftlab capture` (docs/capture.md): the recorded RocksDB capture in
data/rocksdb (db_bench's strace and LOG, gzipped, with the trace and sidecar converted
from them) is converted again on every run and must give the shipped trace byte for byte; its
streams, trims and a tiny simulation on it are checked; and, when `db_bench` and `strace` are
installed, a tiny live capture runs end to end (skipped with the reason otherwise, while the
recorded path always runs).

Not here: the converter's hand-checked records (crates/ftlab/src/capture/tests.rs).
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path

import pytest

import ftlab
from conftest import run_cli
from ftlab import _core
from ftlab.capture import STRACE_CALLS, rocksdb_settings
from ftlab.results import CaptureSummary

DATA = Path(__file__).resolve().parents[2] / "data" / "rocksdb"
WAL, MANIFEST, L0, L1 = 1, 2, 4, 5


def _gunzip(src: Path, dst: Path) -> Path:
    with gzip.open(src, "rb") as f, open(dst, "wb") as out:
        shutil.copyfileobj(f, out)
    return dst


def _records(path: Path) -> list[tuple[int, str, int, int, int]]:
    with open(path, newline="") as f:
        rows = csv.reader(line for line in f if not line.startswith("#"))
        assert next(rows) == ["time_ns", "op", "offset_bytes", "size_bytes", "stream"]
        return [(int(t), op, int(o), int(s), int(st)) for t, op, o, s, st in rows]


def _check_streams_and_trims(trace: Path, capture: CaptureSummary) -> None:
    records = _records(trace)
    streams = {int(k): v for k, v in capture["streams"].items()}
    for sid in (WAL, MANIFEST, L0, L1):
        assert sid in streams and streams[sid]["writes"] > 0, f"no writes in stream {sid}: {streams}"
    assert sum(1 for r in records if r[1] == "write") == sum(v["writes"] for v in streams.values())
    # Trims free blocks written earlier: some SSTable trim covers a block an earlier write of
    # the same stream covered.
    written: dict[int, set[int]] = {}
    freed_written = 0
    for _, op, off, size, sid in records:
        blocks = range(off // 4096, (off + size) // 4096)
        if op == "write":
            written.setdefault(sid, set()).update(blocks)
        elif op == "trim" and sid >= L0 and any(b in written.get(sid, ()) for b in blocks):
            freed_written += 1
    assert freed_written > 0, "no trim frees a block written before"
    assert [r[0] for r in records] == sorted(r[0] for r in records), "times never go backwards"


def test_recorded_capture_converts_to_the_shipped_trace(tmp_path: Path) -> None:
    sidecar_shipped = json.loads((DATA / "trace.json").read_text())
    strace_log = _gunzip(DATA / "strace.log.gz", tmp_path / "strace.log")
    log = _gunzip(DATA / "LOG.gz", tmp_path / "LOG")
    out = tmp_path / "trace.csv"
    proc = run_cli(
        [
            "capture",
            "convert",
            str(strace_log),
            "--log",
            str(log),
            "--root",
            sidecar_shipped["root"],
            "--device-gib",
            str(sidecar_shipped["settings"]["device_gib"]),
            "--out",
            str(out),
        ]
    )
    assert proc.returncode == 0, proc.stderr
    assert "WAL" in proc.stdout and "not modelled" in proc.stdout
    assert out.read_bytes() == (DATA / "trace.csv").read_bytes(), "the conversion is deterministic"
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["capture"] == sidecar_shipped["capture"]
    _check_streams_and_trims(out, sidecar["capture"])


def test_ftlab_runs_a_tiny_scenario_on_the_shipped_trace(tmp_path: Path) -> None:
    scenario = {
        "name": "rocksdb capture",
        "seed": 1,
        "schemes": ["unified"],
        "device": {"preset": "tiny"},
        "tenants": [
            {
                "name": "rocksdb",
                "namespace_fraction": 1.0,
                "trace": {
                    "path": str(DATA / "trace.csv"),
                    "format": "ftlab-csv",
                    "address_map": "scale",
                    "max_requests": 3000,
                },
            }
        ],
    }
    report = ftlab.run(scenario, out=tmp_path / "run")
    tenants = report.summary["schemes"]["unified"]["tenants"]
    text = json.dumps(tenants)
    assert '"rocksdb"' in text
    stats = _core.trace_stats(DATA / "trace.csv", "ftlab-csv")
    assert stats["trims"] > 0 and stats["writes"] > 0 and stats["reads"] == 0


def test_errors_name_the_input(tmp_path: Path) -> None:
    bad = tmp_path / "s.log"
    bad.write_text(
        '1 0.5 openat(AT_FDCWD</>, "/db/x", O_WRONLY) = 3</db/x>\n1 0.6 write(3</db/x>, ""..., 4\n'
    )
    empty = tmp_path / "LOG"
    empty.write_text("")
    with pytest.raises(_core.TraceError) as info:
        _core.capture(bad, empty, tmp_path / "t.csv", "/db", 64 << 20)
    assert info.value.file == str(bad) and info.value.line == 2
    with pytest.raises(_core.ConfigError) as cinfo:
        _core.capture(bad, empty, tmp_path / "t.csv", "/db", 1 << 20)
    assert cinfo.value.key == "device_bytes" and "16 MiB" in str(cinfo.value)
    with pytest.raises(_core.UsageError):
        _core.capture(bad, empty, tmp_path / "t.csv", "/db", 64 << 20, rules=["*.sst"])
    with pytest.raises(_core.UsageError) as uinfo:
        rocksdb_settings(0.01)
    assert uinfo.value.arg == "--device-gib"
    assert not (tmp_path / "t.csv").exists() and not (tmp_path / "t.csv.tmp").exists()


def test_settings_scale_the_papers() -> None:
    s = rocksdb_settings(128)
    assert (s.target_file_size_base, s.max_bytes_for_level_base, s.max_bytes_for_level_multiplier) == (
        128 << 20,
        256 << 20,
        4,
    )
    assert "--compression_type=none" in s.db_bench_args("/x") and s.num_levels == 6
    small = rocksdb_settings(1)
    assert (small.target_file_size_base, small.max_bytes_for_level_base) == (1 << 20, 2 << 20)


@pytest.mark.skipif(
    shutil.which("db_bench") is None or shutil.which("strace") is None,
    reason="db_bench (rocksdb-tools) or strace not installed",
)
def test_live_capture_of_a_tiny_db_bench_run(tmp_path: Path) -> None:
    out = tmp_path / "live.csv"
    proc = run_cli(
        [
            "capture",
            "rocksdb",
            "--device-gib",
            "0.0625",
            "--num",
            "3000",
            "--out",
            str(out),
            "--keep-raw",
            str(tmp_path / "raw"),
        ]
    )
    assert proc.returncode == 0, proc.stderr
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["db_bench_version"].startswith("db_bench version")
    assert sidecar["settings"]["target_file_size_base"] == 64 << 10
    assert (tmp_path / "raw" / "strace.log").stat().st_size > 0
    assert sidecar["capture"]["writes_unknown_fd"] == 0
    # The recorded command is the one that ran: strace's syscall filter and db_bench after it.
    cmd = sidecar["command"]
    assert cmd[cmd.index("-e") + 1] == f"trace={STRACE_CALLS}" and cmd[cmd.index("-e") + 2] == "db_bench", cmd
    assert cmd[cmd.index("-o") + 1] == "strace.log", cmd
    _check_streams_and_trims(out, sidecar["capture"])
