"""ftlab.cli.rt: `ftlab rt`, the real-time analysis of the PaRT-FTL paper on the command line.

`ftlab rt admit TASKS.toml --scheme NAME` prints every utilisation term of the scheme's
admission test and the verdict, for the schemes whose registry entry has a real-time analysis
(`_core.RT_SCHEMES`; a scheme without admission control admits every set and its test is shown
for information); exit status 0 if the task set is admitted, 1 if not, 2 for a bad task file
or scheme.
`ftlab rt bounds` prints Table IV computed: each bandwidth in pages/s, MB/s and MiB/s beside
the paper's printed value, and the worst latencies. `ftlab rt schedulability` runs Figures
5-7's experiment and writes them as CSV and PNG (ftlab.report.rt_figures) with a table of weighted
schedulability. All arithmetic is in the Rust core (`rt`); this module parses arguments and
prints. The task-file format is in docs/rt.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ftlab import _core
from ftlab._errors import usage_error
from ftlab.cli._console import stdout_console
from ftlab.report import rt_figures
from ftlab.report.rt_figures import LABELS
from ftlab.results import (
    RtSchedulability,
    rt_admit_from_json,
    rt_bounds_from_json,
    rt_schedulability_from_json,
)

EXIT_REJECTED = 1
#: The schemes `ftlab rt admit` takes, from the registry; the default is the first, a scheme
#: with admission control.
ADMIT_SCHEMES = _core.RT_SCHEMES
_CONTROLS = {e["name"]: e["admission_control"] for e in _core.SCHEMES}
_ADMIT_HELP = ", ".join(s if _CONTROLS[s] else f"{s} (no admission control)" for s in ADMIT_SCHEMES)

#: Task sets per utilisation: the paper's (§VI-A) and --quick's.
PAPER_SETS = 500
QUICK_SETS = 50

rt_app = typer.Typer(help="Real-time analysis (PaRT-FTL paper): admission and bounds.", no_args_is_help=True)


@rt_app.command("admit")
def admit(
    tasks: Annotated[
        Path, typer.Argument(metavar="TASKS.toml", help="Task file (see docs/rt.md).", show_default=False)
    ],
    scheme: Annotated[
        str,
        typer.Option("--scheme", help=f"One of {_ADMIT_HELP}; docs/rt.md."),
    ] = ADMIT_SCHEMES[0],
) -> None:
    """Run a scheme's admission test on a task set; print each term and the verdict."""
    try:
        text = tasks.read_text()
    except OSError as e:
        raise _core.InputError(f"{tasks}: {e.strerror or e}") from e
    report = rt_admit_from_json(_core.rt_admit(text, str(tasks), scheme))
    console = stdout_console()
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
    report = rt_bounds_from_json(_core.rt_bounds())
    console = stdout_console()
    table = Table(title="Bandwidths (8 KiB pages)")
    for col in ("quantity", "equation", "pages/s", "MB/s (10^6 B)", "MiB/s", "paper"):
        table.add_column(col, justify="left" if col in ("quantity", "equation", "paper") else "right")
    for row in report["bandwidths"]:
        table.add_row(
            row["quantity"],
            row["equation"],
            f"{row['pages_per_s']:.1f}",
            f"{row['mb_per_s']:.2f}",
            f"{row['mib_per_s']:.2f}",
            row["paper"],
        )
    console.print(table)
    lat = Table(title="Worst latencies")
    for col in ("quantity", "equation", "ms"):
        lat.add_column(col, justify="right" if col == "ms" else "left")
    for latency in report["latencies"]:
        lat.add_row(latency["quantity"], latency["equation"], f"{latency['ms']:.3f}")
    console.print(lat)
    for space in report["space"]:
        console.print(
            f"{space['quantity']} ({space['equation']}): {space['value']:.4f} (paper: {space['paper']})"
        )


@rt_app.command("schedulability")
def schedulability(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output directory for fig5-7 .csv and .png.")
    ] = Path("results/rt-schedulability"),
    sets: Annotated[
        int | None,
        typer.Option(
            "--sets",
            min=1,
            max=1_000_000,
            help=f"Task sets per utilisation [default: {PAPER_SETS}, the paper's].",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the task-set generator (PCG).")
    ] = 1,
    quick: Annotated[
        bool, typer.Option("--quick", help=f"{QUICK_SETS} sets per utilisation (for CI); not with --sets.")
    ] = False,
    read_share: Annotated[
        float,
        typer.Option(
            "--read-share",
            min=0.0,
            max=1.0,
            help="Part of each task's utilisation given to its reads (docs/rt.md).",
        ),
    ] = 0.5,
) -> None:
    """Regenerate Figures 5-7 of the PaRT-FTL paper (§VI-A): schedulability of random task sets
    under every scheme with a real-time analysis."""
    if quick and sets is not None:
        raise usage_error("--quick", f"--quick means --sets {QUICK_SETS}; give one of them, not both")
    if out.exists() and not out.is_dir():
        raise usage_error("--out", f"{out} exists and is not a directory")
    n_sets = QUICK_SETS if quick else (sets if sets is not None else PAPER_SETS)
    result = rt_schedulability_from_json(_core.rt_schedulability(n_sets, seed, read_share))
    written = rt_figures.write(result, out)
    _print_weighted(result, stdout_console())
    stdout_console().print("wrote " + ", ".join(str(p) for p in written))


def _print_weighted(result: RtSchedulability, console: Console) -> None:
    labels = [LABELS.get(s, s) for s in result["schemes"]]
    p = result["parameters"]
    table = Table(
        title=f"Weighted schedulability ({p['n_sets']} sets per utilisation, seed {p['seed']}, "
        f"read share {p['read_share']})"
    )
    for col in ("figure", "read pages", "write pages", *labels):
        table.add_column(col, justify="right")
    rows: dict[tuple[int, int, int], dict[str, float]] = {}
    for w in result["weighted"]:
        rows.setdefault((w["figure"], w["read_pages"], w["write_pages"]), {})[w["scheme"]] = w["weighted"]
    for (figure, read, write), values in rows.items():
        table.add_row(str(figure), str(read), str(write), *(f"{values[s]:.3f}" for s in result["schemes"]))
    console.print(table)
