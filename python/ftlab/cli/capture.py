"""ftlab.cli.capture: the `ftlab capture` commands (a typer app registered on `ftlab.cli`).

`ftlab capture rocksdb` runs db_bench under strace and converts; `ftlab capture convert`
converts an strace log (and RocksDB LOG) recorded by hand. Each prints the trace's streams
(records, bytes written and trimmed) and every count of what the converter dropped. It holds
no logic of its own: settings and processes are `ftlab.capture`, the conversion the Rust core.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Literal, get_args

import typer
from rich.console import Console
from rich.table import Table

from ftlab.capture import Sidecar, capture_rocksdb, convert, rocksdb_settings

capture_app = typer.Typer(
    help="Capture an application's file I/O as an ftlab-csv trace with stream ids and "
    "trims (docs/capture.md).",
    no_args_is_help=True,
)

#: The capture summary's counts of what was not modelled, printed when not 0.
Dropped = Literal[
    "calls_failed",
    "calls_outside_root",
    "writes_unknown_fd",
    "fallocate_unsupported",
    "unknown_files",
    "resumed_without_start",
    "unfinished_at_end",
    "times_backwards",
]
_DROPPED: tuple[Dropped, ...] = get_args(Dropped)


@capture_app.command("rocksdb")
def rocksdb_command(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The trace to write (ftlab-csv); the sidecar is <out>.json.")
    ] = Path("trace.csv"),
    device_gib: Annotated[
        float,
        typer.Option(
            "--device-gib",
            help="Device size in GiB: scales the paper's 128 GB settings (SSTable, L1 size) and "
            "sizes the modelled file system.",
        ),
    ] = 1.0,
    num: Annotated[
        int | None,
        typer.Option(
            "--num",
            help="Keys written by fillrandom, then overwritten (default: a database of half the device).",
            show_default=False,
        ),
    ] = None,
    value_size: Annotated[
        int, typer.Option("--value-size", help="Value bytes per key (keys are 16 bytes).")
    ] = 1000,
    duration: Annotated[
        int, typer.Option("--duration", help="Seconds each benchmark runs (0: --num operations each).")
    ] = 0,
    seed: Annotated[int, typer.Option("--seed", help="db_bench's key seed.")] = 1,
    keep_raw: Annotated[
        Path | None,
        typer.Option(
            "--keep-raw",
            help="Also keep the raw strace.log and RocksDB LOG in this directory.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run db_bench (fillrandom, overwrite) under strace with the vStream paper's settings (§5.1)
    scaled to --device-gib, and convert it to an ftlab-csv trace with the paper's 10 streams."""
    settings = rocksdb_settings(device_gib, num=num, value_size=value_size, duration_s=duration, seed=seed)
    _print(capture_rocksdb(out, settings, keep_raw=keep_raw), out)


@capture_app.command("convert")
def convert_command(
    strace_log: Annotated[
        Path,
        typer.Argument(
            help="strace output (strace -f -ttt -y -s 0 -e trace=...; docs/capture.md).", show_default=False
        ),
    ],
    root: Annotated[
        str,
        typer.Option(
            "--root",
            help="The application's data directory: only files under it are modelled.",
            show_default=False,
        ),
    ],
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            help="RocksDB's info LOG (SSTable levels); omit for other applications.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The trace to write (ftlab-csv); the sidecar is <out>.json.")
    ] = Path("trace.csv"),
    device_gib: Annotated[
        float, typer.Option("--device-gib", help="Size of the modelled device (file system) in GiB.")
    ] = 1.0,
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            help="A stream rule PATTERN=STREAM or PATTERN=STREAM+level, first match wins; repeat "
            "it (default: the RocksDB rules).",
            show_default=False,
        ),
    ] = None,
    no_fs_metadata: Annotated[
        bool, typer.Option("--no-fs-metadata", help="Do not model the file system's journal (stream 0).")
    ] = False,
) -> None:
    """Convert an strace log you recorded (and RocksDB's LOG) into an ftlab-csv trace."""
    with tempfile.NamedTemporaryFile("w", suffix=".LOG") as empty:
        sidecar = convert(
            strace_log,
            log if log is not None else empty.name,
            out,
            root=root,
            device_gib=device_gib,
            rules=rule,
            fs_metadata=not no_fs_metadata,
        )
    _print(sidecar, out)


def _print(sidecar: Sidecar, out: Path) -> None:
    cap = sidecar["capture"]
    legend = sidecar.get("streams_legend", {})
    table = Table(
        title=f"{out}: {cap['records']:,} records over {cap['duration_ns'] / 1e9:.3f} s", title_justify="left"
    )
    for col in ("stream", "writes", "MiB written", "trims", "MiB trimmed", "what"):
        table.add_column(col, justify="left" if col == "what" else "right")
    for sid, c in cap["streams"].items():
        table.add_row(
            sid,
            f"{c['writes']:,}",
            f"{c['write_bytes'] / 2**20:,.2f}",
            f"{c['trims']:,}",
            f"{c['trim_bytes'] / 2**20:,.2f}",
            legend.get(sid, ""),
        )
    console = Console()
    console.print(table)
    dropped: dict[str, int] = {k: cap[k] for k in _DROPPED if cap[k]}
    dropped.update({f"ignored {k}": v for k, v in cap["calls_ignored"].items()})
    if cap["sst_level_unknown"]:
        dropped["sstables of unknown level (given L0)"] = len(cap["sst_level_unknown"])
    console.print(
        "not modelled: " + (", ".join(f"{k} {v:,}" for k, v in dropped.items()) or "nothing"), soft_wrap=True
    )
    console.print(f"wrote {out} and {out.with_suffix('.json')}")
