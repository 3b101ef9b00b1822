"""ftlab.capture: capture an application's file I/O as an ftlab-csv trace (docs/capture.md).

`capture_rocksdb` runs Debian's `db_bench` under `strace` with the vStream paper's RocksDB
settings (§5.1) scaled to a device size, then converts; `convert` converts an strace log (and
a RocksDB LOG) you recorded yourself. Both write the trace and a JSON sidecar (`<out>.json`
beside it: settings, tool versions, what the converter counted per stream and every count of
what it dropped). The conversion is the Rust core's (`ftlab._core.capture`); this package only
runs processes, picks settings and writes the sidecar. It prints nothing (`ftlab.cli.capture`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypedDict, Union

from ftlab import _core
from ftlab._errors import input_error, usage_error
from ftlab.results import CaptureSummary, capture_from_json

StrPath = Union[str, "os.PathLike[str]"]

#: The paper's device and RocksDB settings (vStream, §5.1): a 128 GB SSD, SSTables of 128 MB,
#: 256 MB for level 1, a level multiplier of 4, no compression: at most 6 levels (L0-L5).
PAPER_DEVICE_GIB = 128
PAPER_SST_BYTES = 128 << 20
PAPER_L1_BYTES = 256 << 20
PAPER_MULTIPLIER = 4
PAPER_LEVELS = 6
KEY_BYTES = 16

#: The syscalls the converter models; the strace `-e trace=` list (docs/capture.md).
STRACE_CALLS = (
    "openat,open,creat,write,writev,pwrite64,pwritev,pwritev2,lseek,fsync,fdatasync,"
    "ftruncate,truncate,unlink,unlinkat,rename,renameat,renameat2,close,fallocate"
)

#: What each stream of the RocksDB rules holds (the paper's 10 virtual streams).
ROCKSDB_STREAMS = {
    "0": "file-system metadata (ext4 journal model) and files no rule names (info LOG, LOCK)",
    "1": "WAL (*.log)",
    "2": "MANIFEST (MANIFEST-*)",
    "3": "temporary files (*.dbtmp: CURRENT, IDENTITY, OPTIONS before their rename)",
    **{str(4 + lvl): f"SSTables of level L{lvl} (*.sst, level from the LOG)" for lvl in range(PAPER_LEVELS)},
}

__all__ = ["RocksdbSettings", "capture_rocksdb", "convert", "rocksdb_settings", "STRACE_CALLS"]


@dataclass(frozen=True)
class RocksdbSettings:
    """The db_bench settings of one capture (see `rocksdb_settings`)."""

    device_gib: float
    scale: float
    num: int
    value_size: int
    target_file_size_base: int
    write_buffer_size: int
    max_bytes_for_level_base: int
    max_bytes_for_level_multiplier: int
    num_levels: int
    benchmarks: str
    duration_s: int
    seed: int

    def db_bench_args(self, db: StrPath) -> list[str]:
        return [
            f"--db={os.fspath(db)}",
            f"--benchmarks={self.benchmarks}",
            f"--num={self.num}",
            f"--key_size={KEY_BYTES}",
            f"--value_size={self.value_size}",
            "--compression_type=none",
            f"--target_file_size_base={self.target_file_size_base}",
            f"--write_buffer_size={self.write_buffer_size}",
            f"--max_bytes_for_level_base={self.max_bytes_for_level_base}",
            f"--max_bytes_for_level_multiplier={self.max_bytes_for_level_multiplier}",
            f"--num_levels={self.num_levels}",
            "--use_direct_io_for_flush_and_compaction=true",
            f"--duration={self.duration_s}",
            f"--seed={self.seed}",
            "--threads=1",
            "--statistics=false",
        ]


def _aligned(x: float, floor: int) -> int:
    return max(floor, int(x) // 4096 * 4096)


def rocksdb_settings(
    device_gib: float, num: int | None = None, value_size: int = 1000, duration_s: int = 0, seed: int = 1
) -> RocksdbSettings:
    """The paper's settings scaled by device_gib / 128: SSTable and L1 sizes scale (4 KiB
    aligned, at least 64 KiB and 256 KiB), the multiplier (4) and the 6 levels do not; the
    memtable is one SSTable (RocksDB's default pairing). `num` keys default to a database of
    half the device. Raises UsageError naming the option and its range."""
    if not (0.0625 <= device_gib <= 1024):
        raise usage_error("--device-gib", f"must be in [0.0625, 1024] GiB, got {device_gib}")
    if not (16 <= value_size <= 1 << 20):
        raise usage_error("--value-size", f"must be in [16, 1048576] bytes, got {value_size}")
    if duration_s < 0:
        raise usage_error("--duration", f"must be >= 0 seconds (0: run --num operations), got {duration_s}")
    scale = device_gib / PAPER_DEVICE_GIB
    device_bytes = int(device_gib * (1 << 30))
    if num is None:
        num = max(1000, device_bytes // 2 // (KEY_BYTES + value_size))
    if num < 1:
        raise usage_error("--num", f"must be >= 1 keys, got {num}")
    sst = _aligned(PAPER_SST_BYTES * scale, 64 << 10)
    return RocksdbSettings(
        device_gib=device_gib,
        scale=scale,
        num=num,
        value_size=value_size,
        target_file_size_base=sst,
        write_buffer_size=sst,
        max_bytes_for_level_base=_aligned(PAPER_L1_BYTES * scale, 256 << 10),
        max_bytes_for_level_multiplier=PAPER_MULTIPLIER,
        num_levels=PAPER_LEVELS,
        benchmarks="fillrandom,overwrite",
        duration_s=duration_s,
        seed=seed,
    )


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise usage_error(
            name,
            f"not found on PATH; install it with `apt-get install -y {package}` "
            "(Debian/Ubuntu; `scripts/setup-system.sh test` does, and scripts/test.sh runs "
            "it)",
        )
    return path


def _version(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    return lines[0].strip() if lines else "unknown"


class Provenance(TypedDict, total=False):
    """Where a captured trace comes from, beside the conversion's own keys in its sidecar
    (`capture_rocksdb` gives all of them; a plain `convert` none)."""

    source: str
    db_bench_version: str
    strace_version: str
    command: list[str]
    settings: dict[str, object]


class Sidecar(Provenance):
    """`<trace>.json` beside a captured trace: its format, file, the ftlab version, the
    captured root, the stream rules and their legend, the provenance, then the capture's
    summary (what was modelled and what was not)."""

    format: str
    trace: str
    ftlab_version: str
    root: str
    rules: list[str]
    streams_legend: dict[str, str]
    capture: CaptureSummary


def convert(
    strace_log: StrPath,
    rocksdb_log: StrPath,
    out: StrPath,
    *,
    root: str,
    device_gib: float,
    rules: list[str] | None = None,
    fs_metadata: bool = True,
    extra: Provenance | None = None,
) -> Sidecar:
    """Convert a recorded strace log (and RocksDB's LOG; an empty file if there is none) into
    an ftlab-csv trace at `out`, and write the sidecar `<out>.json`. Returns the sidecar."""
    if not (0.0625 <= device_gib <= 1024):
        raise usage_error("--device-gib", f"must be in [0.0625, 1024] GiB, got {device_gib}")
    device_bytes = int(device_gib * (1 << 30)) // 4096 * 4096
    summary = capture_from_json(
        _core.capture(
            os.fspath(strace_log),
            os.fspath(rocksdb_log),
            os.fspath(out),
            str(root),
            device_bytes,
            fs_metadata=fs_metadata,
            rules=rules,
        )
    )
    sidecar: Sidecar = {
        "format": "ftlab-csv",
        "trace": Path(out).name,
        "ftlab_version": _core.version(),
        "root": str(root),
        "rules": rules
        if rules is not None
        else ["*.log=1", "MANIFEST-*=2", "*.dbtmp=3", "*.sst=4+level", "*=0"],
        "streams_legend": ROCKSDB_STREAMS if rules is None else {},
        **(extra or {}),
        "capture": summary,
    }
    side = Path(out).with_suffix(".json")
    tmp = side.with_name(side.name + ".tmp")
    tmp.write_text(json.dumps(sidecar, indent=2) + "\n")
    tmp.replace(side)
    return sidecar


def capture_rocksdb(
    out: StrPath,
    settings: RocksdbSettings,
    *,
    keep_raw: StrPath | None = None,
    workdir: StrPath | None = None,
) -> Sidecar:
    """Run db_bench under strace with `settings` in a temporary DB directory, convert, and
    write `out` and its sidecar; with `keep_raw`, copy strace.log and LOG there. Returns the
    sidecar."""
    db_bench, strace = _tool("db_bench", "rocksdb-tools"), _tool("strace", "strace")
    with tempfile.TemporaryDirectory(prefix="ftlab-capture-", dir=workdir) as tmp:
        db, log = Path(tmp) / "db", Path(tmp) / "strace.log"
        cmd = [
            strace,
            "-f",
            "-ttt",
            "-y",
            "-s",
            "0",
            "-o",
            str(log),
            "-e",
            f"trace={STRACE_CALLS}",
            db_bench,
            *settings.db_bench_args(db),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
            raise input_error(db_bench, f"db_bench under strace exited with status {proc.returncode}: {tail}")
        if keep_raw is not None:
            Path(keep_raw).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, Path(keep_raw) / "strace.log")
            shutil.copyfile(db / "LOG", Path(keep_raw) / "LOG")
        extra: Provenance = {
            "source": "RocksDB db_bench under strace (vStream paper §5.1 settings, scaled)",
            "db_bench_version": _version([db_bench, "--version"]),
            "strace_version": _version([strace, "-V"]),
            "command": [
                Path(cmd[0]).name,
                *cmd[1:7],
                "strace.log",
                *cmd[8:10],
                Path(db_bench).name,
                *settings.db_bench_args("DB"),
            ],
            "settings": asdict(settings),
        }
        return convert(log, db / "LOG", out, root=str(db), device_gib=settings.device_gib, extra=extra)
