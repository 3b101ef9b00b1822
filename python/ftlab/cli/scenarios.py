"""`ftlab scenarios`: list the bundled scenarios (`ftlab._scenarios`), each with the first line
of its comment, and say how to run one. Arguments and printing only; finding the scenarios
and reading their comments is `ftlab._scenarios`."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ftlab._scenarios import SCENARIOS_DIR, bundled_scenarios
from ftlab.cli._console import stdout_console


def scenarios_command(
    paths: Annotated[bool, typer.Option("--paths", help="Also print each scenario's file.")] = False,
) -> None:
    """List the scenarios bundled with ftlab: name and first comment line.

    Run one by name (`ftlab run real-traces`), copy one as a starting point, or give its file
    to `ftlab run`. The paper scenarios under reproduce/ are what `ftlab reproduce` runs.
    """
    console = stdout_console()
    table = Table(box=None, show_header=True, pad_edge=False)
    table.add_column("name", no_wrap=True, style="bold")
    table.add_column("what it is", overflow="fold")
    for s in bundled_scenarios():
        text = escape(s.description or "(no comment)")
        if s.missing_traces:
            names = ", ".join(p.name for p in s.missing_traces)
            text += f" [yellow](needs {escape(names)}: not installed; see the file's comment)[/]"
        if paths:
            text += f"\n[dim]{escape(str(s.path))}[/]"
        table.add_row(escape(s.name), text)
    console.print(table)
    console.print(
        f"{escape(str(SCENARIOS_DIR))}; run one with: ftlab run NAME (e.g. ftlab run real-traces)",
        soft_wrap=False,
    )
