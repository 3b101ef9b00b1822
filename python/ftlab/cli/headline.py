"""ftlab.cli.headline: the headline `ftlab run` prints first (rich), fitted to the terminal.

It prints a title, one verdict line per tenant (`ftlab.report.headline.verdicts`), then the
table: wide (one row group per tenant, one sub-row per scheme, the key metrics as columns)
when it fits the console's width, else compact (one small table per tenant: the metrics as
rows, the schemes as columns, each cell's change on a second line), which folds rather than
cuts. Then the legend and the notes (values from too few samples, records not replayed,
health, what the lifetime assumes). Each cell is the value, its change against the baseline
scheme and the best scheme marked (★, bold); unstable and starved tenants are flagged.

An array run (`[array]`, docs/array.md) gets the host layer's table instead (`array_table`):
per tenant and scheme, the array requests' latencies, IODA's fail-fast reads and the chunks
rebuilt, from summary.json's `array`, and a note saying where the per-device results are
(`<scheme>/dev<i>`, each device's share of the host layer's requests: report.html and
--full); the per-device verdicts and table would rank the devices as if they were schemes.

Printing only: the numbers, the marks and their text come from `ftlab.report.headline`, as in
report.html. It is not the full per-scheme tables (`ftlab.cli.print_full_tables`, --full).
"""

from __future__ import annotations

from typing import Literal

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ftlab.cli._console import fits
from ftlab.report import headline as hl
from ftlab.results import Summary

#: The title printed above the verdicts.
TITLE = "ftlab run: which scheme did best for whom"


def headline_table(headline: hl.Headline) -> Table:
    """The wide rich Table of `headline`: tenants and schemes as rows, metrics as columns."""
    table = Table(caption=f"{hl.caption(headline)} {hl.directions(headline)}", caption_justify="left")
    table.add_column("tenant", no_wrap=True)
    table.add_column("scheme", no_wrap=True)
    for metric in headline.metrics:
        table.add_column(escape(metric.title), justify="right", no_wrap=True)
    for row in headline.rows:
        for i, scheme in enumerate(row.schemes):
            cells: list[RenderableType] = [
                Text(row.tenant, style="bold") if i == 0 else "",
                _scheme_cell(scheme, row, headline),
            ]
            for metric in headline.metrics:
                cell = row.cells[metric.key][scheme]
                cells.append(Text(hl.cell_text(metric, cell), style="bold" if cell.best else ""))
            table.add_row(*cells, end_section=i == len(row.schemes) - 1)
    return table


def compact_tables(headline: hl.Headline) -> list[Table]:
    """One table per tenant for narrow terminals: the metrics as rows, the schemes as columns
    (the baseline first as in the summary), each cell the value and, on a second line, its
    change; columns fold instead of cutting, so every name and number shows at any width."""
    tables = []
    for row in headline.rows:
        table = Table(title=Text(row.tenant, style="bold"), title_justify="left", pad_edge=False)
        table.add_column("metric", overflow="fold")
        for scheme in row.schemes:
            table.add_column(_scheme_cell(scheme, row, headline), justify="right", overflow="fold")
        for metric in headline.metrics:
            cells: list[RenderableType] = [escape(metric.title)]
            for scheme in row.schemes:
                cell = row.cells[metric.key][scheme]
                cells.append(_compact_cell(metric, cell))
            table.add_row(*cells)
        tables.append(table)
    return tables


def _compact_cell(metric: hl.Metric, cell: hl.Cell) -> Text:
    if not cell.applies:
        return Text("–")
    value = hl.format_value(metric, cell.value) + (hl.FEW_MARK if cell.few else "")
    text = Text(f"{hl.BEST_MARK} {value}" if cell.best else value, style="bold" if cell.best else "")
    change = hl.change_text(cell)
    if change:
        text.append(f"\n{change}", style="dim")
    return text


def _scheme_cell(scheme: str, row: hl.TenantRow, headline: hl.Headline) -> Text:
    text = Text(scheme)
    if scheme == headline.baseline:
        text.append(" (baseline)", style="dim")
    if scheme in row.unstable:
        text.append(f" {hl.UNSTABLE_FLAG}", style="bold red")
    if scheme in row.starved:
        text.append(f" {hl.STARVED_FLAG}", style="bold red")
    return text


def _verdict_lines(lines: list[str]) -> Table:
    """The verdicts, one per tenant, wrapped with a hanging indent under their bullet."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for line in lines:
        grid.add_row("•", Text(line))
    return grid


#: The latencies of the array table: (header, summary key).
ARRAY_LATENCIES: tuple[tuple[str, Literal["p50_us", "p95_us", "p99_us", "p999_us", "max_us"]], ...] = (
    ("p50", "p50_us"),
    ("p95", "p95_us"),
    ("p99", "p99_us"),
    ("p99.9", "p999_us"),
    ("max", "max_us"),
)

#: The line under the array table, saying where the per-device results are (the headline's
#: verdicts and table would rank the devices as if they were schemes, so an array run has none).
ARRAY_DEVICES_NOTE = (
    "Per device (<scheme>/dev<i>, each device's share of the host layer's requests): "
    "report.html, or ftlab run --full on the terminal."
)


def _us(value: float | None) -> str:
    """A latency in µs as the headline formats it (thousands separators from 100 µs)."""
    return hl.format_value(hl.METRICS[0], value)


def array_table(summary: Summary) -> Table | None:
    """The host layer's table of an array run (None without `array`): a row per tenant and
    scheme, with its array reads' count and latencies (µs), its writes' p99, and its reads
    failed fast and chunks rebuilt. Columns fold rather than cut on a narrow console."""
    array = summary.get("array")
    if array is None:
        return None
    caption = (
        f"{array['devices']} devices, {array['chunk_kib']} KiB chunks, fail_fast {array['fail_fast']}, "
        f"stagger {str(array['stagger']).lower()}; latencies in µs, arrival to the last device "
        "request's completion"
    )
    table = Table(title=Text("array (host layer)", style="bold"), title_justify="left")
    table.caption, table.caption_justify = caption, "left"
    table.add_column("\ntenant", overflow="fold")
    table.add_column("\nscheme", overflow="fold")
    table.add_column("\nreads", justify="right", overflow="fold")
    for label, _ in ARRAY_LATENCIES:
        table.add_column(f"read\n{label}", justify="right", overflow="fold")
    table.add_column("write\np99", justify="right", overflow="fold")
    table.add_column("failed\nfast", justify="right", overflow="fold")
    table.add_column("\nrebuilt", justify="right", overflow="fold")
    schemes = array["schemes"]
    tenants = list(next(iter(schemes.values()))["tenants"]) if schemes else []
    for tenant in tenants:
        for i, (scheme, result) in enumerate(schemes.items()):
            t = result["tenants"][tenant]
            read, write = t["read"], t["write"]
            table.add_row(
                Text(tenant, style="bold") if i == 0 else "",
                scheme,
                f"{read['count']:,}",
                *(_us(read[key]) if read["count"] else "–" for _, key in ARRAY_LATENCIES),
                _us(write["p99_us"]) if write["count"] else "–",
                f"{t['reads_failed_fast']:,}",
                f"{t['chunks_rebuilt']:,}",
                end_section=i == len(schemes) - 1,
            )
    return table


def print_headline(console: Console, summary: Summary, baseline: str | None = None) -> None:
    """Print the headline of a parsed summary.json: the title, the verdicts, the wide table if
    it fits the console else the compact tables, then the legend and notes (unstable and
    starved tenants, "n/a" changes, too few samples, records not replayed, health, lifetime)."""
    headline = hl.build(summary, baseline)
    if not headline.rows:
        console.print("no tenants in summary.json")
        return
    console.print(Text(TITLE, style="bold"))
    array = array_table(summary)
    if array is not None:
        console.print(array)
        console.print(Text(ARRAY_DEVICES_NOTE))
        return
    console.print(_verdict_lines(hl.verdicts(headline)))
    wide = headline_table(headline)
    if fits(console, wide):
        console.print(wide)
    else:
        for table in compact_tables(headline):
            console.print(table)
        console.print(Text(f"{hl.caption(headline)} {hl.directions(headline)}"))
    unstable = headline.unstable
    if unstable:
        who = ", ".join(f"{t} under {s}" for t, s in unstable)
        console.print(Text(f"{hl.UNSTABLE_NOTE} ({who})", style="red"))
    starved = headline.starved
    if starved:
        who = ", ".join(f"{t} under {s}" for t, s in starved)
        console.print(Text(f"{hl.STARVED_NOTE} ({who})", style="red"))
    if headline.has_no_change:
        console.print(hl.NO_CHANGE_NOTE)
    for note in hl.notes(summary, headline):
        console.print(Text(note))
