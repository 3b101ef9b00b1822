"""ftlab.cli_rt: `ftlab rt`, the real-time analysis of the PaRT-FTL paper on the command line.

`ftlab rt admit TASKS.toml --scheme part-ftl|wao-gc` prints every utilisation term of the
admission tests (Eq. 6 and Eq. 7) and the verdict; exit status 0 if the task set is admitted,
1 if not, 2 for a bad task file or scheme. `ftlab rt bounds` prints Table IV computed: each
bandwidth in pages/s, MB/s and MiB/s beside the paper's printed value, and the worst
latencies. All arithmetic is in the Rust core (`rt`); this module parses arguments and prints.
The task-file format is in docs/rt.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ftlab import _core

EXIT_REJECTED = 1

rt_app = typer.Typer(help="Real-time analysis (PaRT-FTL paper): admission and bounds.", no_args_is_help=True)


@rt_app.command("admit")
def admit(
    tasks: Annotated[Path, typer.Argument(metavar="TASKS.toml", help="Task file (see docs/rt.md).", show_default=False)],
    scheme: Annotated[str, typer.Option("--scheme", help="part-ftl, wao-gc (no admission control) or rtgc (not implemented).")] = "part-ftl",
) -> None:
    """Run a scheme's admission test on a task set; print each term and the verdict."""
    try:
        text = tasks.read_text()
    except OSError as e:
        raise _core.InputError(f"{tasks}: {e.strerror or e}") from e
    report = json.loads(_core.rt_admit(text, str(tasks), scheme))
    console = Console()
    if note := report.get("note"):
        console.print(note)
    for test in report["tests"]:
        table = Table(title=f"{scheme}: {test['equation']} (must be ≤ 1)")
        table.add_column("term")
        table.add_column("value", justify="right")
        for term in test["terms"]:
            table.add_row(term["name"], f"{term['value']:.6f}")
        verdict = "passes" if test["passes"] else "FAILS"
        table.add_row(f"total ({verdict})", f"{test['total']:.6f}", style="bold")
        console.print(table)
    console.print("admitted" if report["admitted"] else "[red]rejected[/red]")
    if not report["admitted"]:
        raise typer.Exit(EXIT_REJECTED)


@rt_app.command("bounds")
def bounds() -> None:
    """Print Table IV computed from the paper's equations, both byte readings beside the paper's values."""
    report = json.loads(_core.rt_bounds())
    console = Console()
    table = Table(title="Bandwidths (8 KiB pages)")
    for col in ("quantity", "equation", "pages/s", "MB/s (10^6 B)", "MiB/s", "paper"):
        table.add_column(col, justify="left" if col in ("quantity", "equation", "paper") else "right")
    for row in report["bandwidths"]:
        table.add_row(row["quantity"], row["equation"], f"{row['pages_per_s']:.1f}", f"{row['mb_per_s']:.2f}", f"{row['mib_per_s']:.2f}", row["paper"])
    console.print(table)
    lat = Table(title="Worst latencies")
    for col in ("quantity", "equation", "ms"):
        lat.add_column(col, justify="right" if col == "ms" else "left")
    for row in report["latencies"]:
        lat.add_row(row["quantity"], row["equation"], f"{row['ms']:.3f}")
    console.print(lat)
    space = report["space"]
    console.print(f"WAO-GC's bound on λ (Eq. 12): {space['wao_gc_lambda_max']:.4f} (paper: {space['paper']})")
