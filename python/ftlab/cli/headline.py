"""ftlab.cli.headline: the headline table `ftlab run` prints first (rich): one row group per
tenant, one sub-row per scheme, the key metrics as columns; each cell the value, its change
against the baseline scheme and the best scheme marked (★, bold); unstable tenants flagged.

Printing only: the numbers, the best marks and their text come from
`ftlab.report.headline`, as in report.html. It is not the full per-scheme tables (those are
`ftlab.cli.print_full_tables`, `ftlab run --full`).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ftlab.report import headline as hl


def headline_table(headline: hl.Headline) -> Table:
    """The rich Table of `headline`."""
    table = Table(
        title="ftlab run: which scheme did best for whom",
        title_justify="left",
        caption=f"{hl.caption(headline)} {hl.directions(headline)}",
        caption_justify="left",
    )
    table.add_column("tenant", no_wrap=True)
    table.add_column("scheme", no_wrap=True)
    for metric in headline.metrics:
        table.add_column(escape(metric.title), justify="right", no_wrap=True)
    for row in headline.rows:
        for i, scheme in enumerate(row.schemes):
            cells: list[Any] = [Text(row.tenant, style="bold") if i == 0 else "", _scheme_cell(scheme, row, headline)]
            for metric in headline.metrics:
                cell = row.cells[metric.key][scheme]
                cells.append(Text(hl.cell_text(metric, cell), style="bold" if cell.best else ""))
            table.add_row(*cells, end_section=i == len(row.schemes) - 1)
    return table


def _scheme_cell(scheme: str, row: hl.TenantRow, headline: hl.Headline) -> Text:
    text = Text(scheme)
    if scheme == headline.baseline:
        text.append(" (baseline)", style="dim")
    if scheme in row.unstable:
        text.append(f" {hl.UNSTABLE_FLAG}", style="bold red")
    return text


def print_headline(console: Console, summary: dict[str, Any], baseline: str | None = None) -> None:
    """Print the headline table of a parsed summary.json, then a line explaining the unstable
    flag (naming each unstable tenant and scheme) and the "n/a" changes when there are any."""
    headline = hl.build(summary, baseline)
    if not headline.rows:
        console.print("no tenants in summary.json")
        return
    console.print(headline_table(headline))
    unstable = headline.unstable
    if unstable:
        who = ", ".join(f"{t} under {s}" for t, s in unstable)
        console.print(Text(f"{hl.UNSTABLE_NOTE} ({who})", style="red"), soft_wrap=True)
    if headline.has_no_change:
        console.print(hl.NO_CHANGE_NOTE, soft_wrap=True)
