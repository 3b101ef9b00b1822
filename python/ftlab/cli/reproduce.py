"""ftlab.cli.reproduce: the `ftlab reproduce NAME` command (registered on the app of
`ftlab.cli`).

It runs one reproduction through `ftlab.reproduce.reproduce` with a progress bar (over
`--seeds` seeds), then prints the claims table (kind, paper, ftlab with its spread over seeds,
verdict) with each claim's reason, the health table, the sensitivity table (with
`--sensitivity`), the files written and the wall time. `--list-claims` prints the paper's
claims (its claim file) without running; `--markdown` prints the claims table as Markdown,
from a run directory's claims.json (`--from DIR`) or after running.
An unknown NAME or a bad option is an `ftlab.UsageError` (status 2 via `ftlab.cli.main`).
It holds no reproduction logic (`ftlab.reproduce`) and imports nothing heavy until it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from ftlab._errors import usage_error
from ftlab.cli._console import stdout_console
from ftlab.reproduce import REPRODUCTIONS, claimfile, expected_wall_text, reproduce
from ftlab.reproduce.claims import health_table, print_claims, sensitivity_table, tally, tally_line

if TYPE_CHECKING:
    from ftlab.reproduce.claims import ReproductionResult


def reproduce_command(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="The reproduction to run: flashblox, part-ftl, upi or vstream.",
            show_default=False,
        ),
    ],
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Run the reduced scenario (minutes): checks the claims' directions, not their magnitudes.",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Output directory (default: results/reproduce-NAME, or results/reproduce-NAME-quick).",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            help="Schemes simulated at once (default: the machine's cores). The results do not depend on it.",
            show_default=False,
        ),
    ] = None,
    sensitivity: Annotated[
        bool,
        typer.Option(
            "--sensitivity",
            help="Also rerun the scenario on Ray varying one knob at a time, and report which "
            "claims each variation reverses.",
        ),
    ] = False,
    seeds: Annotated[
        int | None,
        typer.Option(
            "--seeds",
            help="Seeds to run (the scenario's, then the next ones), in parallel; each claim "
            "reports its spread (default: 3 with --quick, else 1).",
            show_default=False,
        ),
    ] = None,
    list_claims: Annotated[
        bool,
        typer.Option(
            "--list-claims",
            help="Print the paper's claims (quote, kind, paper value, what ftlab measures) and exit.",
        ),
    ] = False,
    markdown: Annotated[
        bool,
        typer.Option(
            "--markdown",
            help="Print the claims table as Markdown (from --from DIR's claims.json, or after running).",
        ),
    ] = False,
    from_dir: Annotated[
        Path | None,
        typer.Option(
            "--from",
            help="With --markdown: the reproduction's output directory to read claims.json from "
            "(nothing is run).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Reproduce a paper's experiment: run its scenario, compare its claims with ftlab's numbers,
    draw its figures.

    Writes into --out: run/ (the results directory), claims.json (claims, verdicts, health, per-phase table),
    the figures as PNG with their CSV data, phases.csv and, with --sensitivity, sensitivity/, sensitivity.json
    and sensitivity.csv. See docs/reproductions.md.
    """
    if name not in REPRODUCTIONS:
        raise usage_error(
            "NAME", f"unknown reproduction {name!r}; known reproductions: {', '.join(sorted(REPRODUCTIONS))}"
        )
    if jobs is not None and jobs < 1:
        raise usage_error("--jobs", f"must be at least 1, got {jobs}")
    if seeds is not None and seeds < 1:
        raise usage_error("--seeds", f"must be at least 1, got {seeds}")
    if from_dir is not None and not markdown:
        raise usage_error("--from", "only goes with --markdown")
    if list_claims:
        print(claimfile.list_text(claimfile.load(name)))
        return
    if from_dir is not None:
        print(claimfile.markdown_from_file(name, from_dir / "claims.json"), end="")
        return
    Console(stderr=True).print(expected_wall_text(name, quick, seeds), highlight=False)
    result = _run_with_progress(name, quick, out, jobs, sensitivity, seeds)
    if markdown:
        print(claimfile.markdown_from_file(name, result.out / "claims.json"), end="")
        return
    print_result(result)


def _run_with_progress(
    name: str, quick: bool, out: Path | None, jobs: int | None, sensitivity: bool, seeds: int | None
) -> ReproductionResult:
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    console = Console(stderr=True)
    # No bar (and so no blank line it leaves) when stderr is not a terminal, as `ftlab run`.
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task(f"reproducing {name}", total=None)

        def on_progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=total or None)

        return reproduce(
            name, quick=quick, out=out, jobs=jobs, sensitivity=sensitivity, seeds=seeds, progress=on_progress
        )


def print_result(result: ReproductionResult) -> None:
    """Print the claims, health and (if run) sensitivity tables, the files and the wall time."""
    console = stdout_console()
    kind = "quick" if result.quick else "full"
    console.print(f"[bold]ftlab reproduce {result.name}[/] ({kind}): {result.scenario}", highlight=False)
    print_claims(console, result.claims)
    console.print()
    console.print(health_table(result.health))
    _print_health_warning(console, result)
    for line in result.notes:
        console.print(escape(line), highlight=False)
    if result.sensitivity is not None:
        console.print()
        console.print(sensitivity_table(result.sensitivity))
    console.print()
    verdicts = ", ".join(f"{n} {v}" for v, n in result.verdicts.items() if n)
    console.print(f"verdicts: {verdicts}", highlight=False)
    console.print(tally_line(result.name, tally(result.claims)), highlight=False)
    console.print(
        f"written to {result.out}/: {', '.join(_relative(p, result.out) for p in result.files)}, run/",
        highlight=False,
    )
    console.print(f"wall time: {result.wall_s:,.1f} s", highlight=False)


def _print_health_warning(console: Console, result: ReproductionResult) -> None:
    if not result.health.get("ok", False):
        console.print(
            "[bold red]warning[/]: a health check failed (the reasons below): a claim resting on "
            "that run is `invalid` when the check bears on what it reads (latency, throughput or wear)."
        )
        for scheme, checks in (result.health.get("schemes") or {}).items():
            for reason in checks.get("reasons") or []:
                console.print(f"  {escape(scheme)}: {escape(reason)}", highlight=False)


def _relative(path: Path, base: Path) -> str:
    try:
        return str(Path(path).relative_to(base))
    except ValueError:
        return str(path)
