"""ftlab.cli.sweep: the `ftlab sweep` command (registered on the app of `ftlab.cli`).

It runs a sweep file through `ftlab.sweep` with one rich progress bar over all runs (with
the ETA), prints each failed run as it fails, then a summary: the files written, the plotted
metric per line and x value, and the failures. Exit status: 0 if every run finished, 1 if
some failed, 2 for a bad sweep file or base scenario (via `ftlab.cli.main`) or without Ray
(the `sweep` extra: one line naming it), 130 when interrupted. It holds no sweep logic
(`ftlab.sweeps`) and imports ray only when running.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, TypedDict

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from ftlab._extras import missing
from ftlab.cli._console import stdout_console
from ftlab.sweeps import FAILURES_FILE, SweepInterrupted, SweepResult, describe, sweep
from ftlab.sweeps.plot import aggregate
from ftlab.sweeps.spec import Failure

EXIT_RUNS_FAILED = 1
#: Ray (the `sweep` extra) is not installed.
EXIT_MISSING_EXTRA = 2
EXIT_INTERRUPTED = 130


def sweep_command(
    sweep_file: Annotated[
        Path, typer.Argument(metavar="SWEEP.toml", help="Sweep file (see docs/sweep.md).", show_default=False)
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Sweep directory (default: the file's `out`, else results/SWEEP-STEM).",
            show_default=False,
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="Ray cluster to use: auto, or ray://HOST:PORT (default: start a local Ray instance).",
            show_default=False,
        ),
    ] = None,
    retries: Annotated[
        int, typer.Option("--retries", min=0, help="Times Ray reruns a run whose worker died.")
    ] = 0,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY.PATH=VALUE",
            help="Override a value of the base scenario in every run (repeatable).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a base scenario over a grid of overrides and seeds on Ray; collect one table and a plot.

    Writes runs/KEY/ per run, sweep.parquet, failures.json, sweep.json and the plot into the sweep directory.
    Finished runs are kept: running the same sweep again resumes it.
    """
    err = Console(stderr=True)
    need = missing("sweep", "ftlab sweep")
    if need is not None:
        err.print(Text(need, style="red"), soft_wrap=True)
        raise typer.Exit(EXIT_MISSING_EXTRA)
    try:
        options = SweepOptions(out=out, address=address, retries=retries, set=set_ or [])
        result = _run_with_progress(err, sweep_file, options)
    except SweepInterrupted as e:
        err.print(
            Text(
                f"interrupted: {e.done} of {e.total} runs are done and kept in {e.dir}/runs; run "
                "the same command again to resume",
                style="yellow",
            ),
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    _print_summary(result)
    if result.failures:
        _print_failures(err, result)
        raise typer.Exit(EXIT_RUNS_FAILED)


class SweepOptions(TypedDict):
    """The options of `ftlab sweep` that `ftlab.sweep` takes as they are."""

    out: Path | None
    address: str | None
    retries: int
    set: list[str]


def _run_with_progress(err: Console, sweep_file: Path, options: SweepOptions) -> SweepResult:
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task(f"sweeping {sweep_file}", total=None)
        first = [True]

        def on_progress(done: int, total: int) -> None:
            if first[0]:  # runs already done are not speed: start the ETA from here
                bar.reset(task, completed=done, total=total)
                first[0] = False
            else:
                bar.update(task, completed=done, total=total)

        def on_failure(f: Failure) -> None:
            bar.console.print(Text(f"run failed: {describe(f)}: {f['error']}", style="red"), soft_wrap=True)

        return sweep(sweep_file, progress=on_progress, on_failure=on_failure, **options)


def _print_summary(result: SweepResult) -> None:
    console = stdout_console()
    ran = "" if result.ran is None else f": {result.ran} ran, {result.reused} done before"
    console.print(f"sweep: {len(result.runs)} planned runs{ran}, {len(result.failures)} failed")
    console.print(
        f"table: {result.dir / 'sweep.parquet'} ({result.table.height} rows × {result.table.width} columns)"
    )
    if result.plot is not None:
        console.print(f"plot:  {result.plot}")
        console.print(_plot_table(result))


def _plot_table(result: SweepResult) -> Table:
    """The plotted points: per line and x value, the metric's mean over seeds and its spread."""
    plot = result.plot_spec
    assert plot is not None, "a sweep's plot is drawn only from its [plot]"
    points, dims = aggregate(result.table, plot, result.parameters, str(result.dir))
    spread = ("min", "max") if plot.error == "minmax" else ("std",)
    table = Table(title=f"{plot.metric} (mean over seeds)", title_justify="left")
    for col in (*dims, plot.x, "mean", *spread, "n"):
        table.add_column(col, justify="left" if col in dims else "right", no_wrap=True)
    for row in points.iter_rows(named=True):
        cells = [*(row[d] for d in dims), row[plot.x], *(row[c] for c in ("mean", *spread)), row["n"]]
        table.add_row(*(_cell(c) for c in cells))
    return table


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}"
    return "-" if value is None else str(value)


def _print_failures(err: Console, result: SweepResult) -> None:
    err.print(
        Text(f"{len(result.failures)} runs failed (also in {result.dir / FAILURES_FILE}):", style="red")
    )
    for f in result.failures:
        err.print(Text(f"  {describe(f)}: {f['error']}", style="red"), soft_wrap=True)
