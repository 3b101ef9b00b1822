"""ftlab.cli: the `ftlab` command line (typer + rich).

Commands: `ftlab run` (run a scenario, write its results and report.html, print the headline
table of `ftlab.cli.headline` and, with --full, one table per scheme), `ftlab plot` (a PNG/SVG
figure of a results directory), `ftlab compare` (several results directories side by side),
`ftlab trace stats` (statistics of a trace file), `ftlab bench` (throughput and peak memory of
the bench cases, each in a fresh process), `ftlab sweep` (in `ftlab.cli.sweep`), `ftlab
reproduce` (in `ftlab.cli.reproduce`), `ftlab capture` (in `ftlab.cli.capture`), `ftlab rt` (in
`ftlab.cli.rt`), `ftlab schemes` and `ftlab mappers` (in `ftlab.cli.policies`). This module
parses arguments and prints; it holds no simulation logic (the Rust core) and no result I/O
(`ftlab.report`). Heavy imports (polars, matplotlib, plotly, ray) happen inside the functions
that use them, so `ftlab --help` stays fast.
Errors about the user's input (`ftlab.FtlabError`) are printed in red on stderr, without a
traceback, and exit with status 2.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ftlab import _core
from ftlab._bench import LAUNCH, PYTHON_CASES
from ftlab._errors import usage_error
from ftlab._scenarios import bundled_scenario
from ftlab.api import check_baseline
from ftlab.api import run as run_scenario
from ftlab.cli._console import PIPED_WIDTH as PIPED_WIDTH
from ftlab.cli._console import error_lines, fits
from ftlab.cli._console import stdout_console as stdout_console
from ftlab.cli.headline import print_headline
from ftlab.report import (
    HTML_FILE,
    LATENCY_CDF_FILE,
    RESOLVED_FILE,
    SUMMARY_FILE,
    TIMESERIES_FILE,
    WEAR_FILE,
)
from ftlab.report.comparison import REL_PREFIX, table_format, write_table
from ftlab.report.comparison import compare as build
from ftlab.report.plots import output_format
from ftlab.report.plots import plot as draw
from ftlab.results import Summary, TenantSummary

EXIT_INPUT_ERROR = 2

app = typer.Typer(
    name="ftlab",
    help="ftlab: a deterministic simulator of a shared (multi-tenant) NAND-flash SSD.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
trace_app = typer.Typer(help="Inspect block I/O trace files.", no_args_is_help=True)
app.add_typer(trace_app, name="trace")


def _stderr() -> Console:
    return stdout_console(stderr=True)


def _version_callback(value: bool) -> None:
    if value:
        print(f"ftlab {_core.version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_version_callback, is_eager=True
        ),
    ] = False,
) -> None:
    """ftlab: a deterministic simulator of a shared (multi-tenant) NAND-flash SSD."""


# --------------------------------------------------------------------------------------
# ftlab run


@app.command()
def run(
    scenario: Annotated[
        Path | None,
        typer.Argument(
            help="Scenario TOML file, or the name of a bundled scenario (ftlab scenarios). Without "
            "it, the bundled default scenario runs.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Output directory (default: results/SCENARIO-STEM, or results/default).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, help="Override the scenario's seed.", show_default=False)
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY.PATH=VALUE",
            help="Override a scenario value, e.g. --set device.channels=8 (repeatable, applied in order).",
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
    solo: Annotated[
        bool,
        typer.Option(
            "--solo",
            help="Also run every tenant alone under each scheme (--set measure.solo=true): "
            "summary.json gets each tenant's solo latencies and slowdown.",
        ),
    ] = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="SCHEME",
            help="Compare every scheme against this one (default: the first listed).",
            show_default=False,
        ),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Also print the full table of every scheme (all latency percentiles, IOPS, WAF, ...).",
        ),
    ] = False,
) -> None:
    """Run a scenario's schemes, write its results and print which scheme did best for whom.

    Writes summary.json, timeseries.parquet, latency_cdf.parquet, wear.parquet,
    scenario.resolved.toml and report.html (open it in a browser; it works offline) into --out.

    Prints the headline: per tenant and scheme, read p99 and mean, write p99, WAF, projected lifetime and IOPS
    (deadline misses with periodic tasks, slowdowns against solo runs when measured), each with its change
    against the baseline scheme and the best scheme marked ★. A tenant whose backlog grew through the run is
    flagged ⚠ unstable. --full adds one table per scheme with every latency percentile, requests outstanding
    at the end and deadline misses / released.
    """
    scenario = _scenario_argument(scenario)
    if baseline is not None:
        _baseline_option(lambda: check_baseline(scenario, seed, set_ or (), baseline))
    out_dir = out if out is not None else Path("results") / (scenario.stem if scenario else "default")
    label = str(scenario) if scenario else "default scenario"
    err = _stderr()
    # No bar when stderr is not a terminal: a stopped bar there leaves a blank line, which
    # would then open an error message.
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task(f"simulating {label}", total=None)

        def on_progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = run_scenario(scenario, seed=seed, set=set_ or (), progress=on_progress, jobs=jobs, solo=solo)

    report.write(out_dir, html=True, baseline=baseline)
    console = stdout_console()
    print_summary(console, report.summary, baseline=baseline, full=full, html_path=out_dir / HTML_FILE_NAME)
    console.print(f"results written to {out_dir}/ ({', '.join(_written_files())})")


def _scenario_argument(scenario: Path | None) -> Path | None:
    """The scenario file: `scenario` as given when it exists (or is None), else the bundled
    scenario of that name (`ftlab scenarios`), else as given (the core reports it missing)."""
    if scenario is None or scenario.exists():
        return scenario
    if str(scenario).lower() in ("true", "false", "yes", "no", "on", "off"):
        raise _usage(
            "SCENARIO",
            f"no such file {str(scenario)!r}; --solo and --full are flags and take no value "
            f"(write --solo, not --solo {scenario})",
        )
    return bundled_scenario(str(scenario)) or scenario


def _baseline_option(check: Callable[[], object]) -> None:
    """Run `check()`; its `ftlab.UsageError` about the baseline names the option --baseline."""
    try:
        check()
    except _core.UsageError as e:
        if e.arg == "baseline":
            raise _usage("--baseline", e.reason or str(e)) from None
        raise


def _written_files() -> list[str]:
    return [SUMMARY_FILE, TIMESERIES_FILE, LATENCY_CDF_FILE, WEAR_FILE, RESOLVED_FILE, HTML_FILE]


def _num(value: object, fmt: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "-"
    return format(value, fmt)


_OPS: tuple[Literal["read", "write"], ...] = ("read", "write")
_LATENCIES: tuple[tuple[str, Literal["mean_us", "p50_us", "p99_us", "p999_us", "max_us"]], ...] = (
    ("mean", "mean_us"),
    ("p50", "p50_us"),
    ("p99", "p99_us"),
    ("p99.9", "p999_us"),
    ("max", "max_us"),
)


#: The name of the report page (as `ftlab.report.HTML_FILE`, without importing the report here).
HTML_FILE_NAME = "report.html"


def print_summary(
    console: Console,
    summary: Summary,
    *,
    baseline: str | None = None,
    full: bool = False,
    html_path: Path | None = None,
) -> None:
    """What `ftlab run` prints from a parsed summary.json: the headline table
    (`ftlab.cli.headline`) against `baseline` (default: the first scheme); then, with `full`,
    one table per scheme (`print_full_tables`), else one line pointing to `html_path` (the
    report with every metric) and to --full."""
    print_headline(console, summary, baseline)
    console.print()
    if full:
        print_full_tables(console, summary)
    else:
        where = f"{escape(str(html_path))} (open it in a browser)" if html_path is not None else "report.html"
        console.print(
            f"every metric per tenant and scheme, latency CDFs, time series and wear: {where}; "
            "on the terminal: ftlab run --full"
        )


def print_full_tables(console: Console, summary: Summary) -> None:
    """One table per scheme (rows: tenants), then a device line and a warning naming any
    unstable tenant, from a parsed summary.json (keys an older summary lacks show as "-").
    A scheme's table too wide for the console is printed as three narrower ones instead
    (throughput and WAF, read latency, write latency), never with cut cells."""
    for scheme, data in (summary.get("schemes") or {}).items():
        tenants = data.get("tenants") or {}
        wide = _scheme_table(scheme, tenants)
        for table in [wide] if fits(console, wide) else _scheme_tables_narrow(scheme, tenants):
            console.print(table)
        dev = data.get("device") or {}
        console.print(
            f"device: WAF {_num(dev.get('waf'), '.3f')}, erases {_num(dev.get('erases'), ',')}, "
            f"GC pages copied {_num(dev.get('gc_pages_copied'), ',')}"
        )
        unstable = [name for name, t in tenants.items() if t.get("unstable") is True]
        if unstable:
            console.print(
                f"[bold red]UNSTABLE[/]: {escape(', '.join(unstable))}: the backlog grew through "
                "the run by more than the "
                "queue depth; latencies depend on when the run stops (see outstanding at end)."
            )
        console.print()


def _scheme_table(scheme: str, tenants: Mapping[str, TenantSummary]) -> Table:
    """The table of one scheme: latencies and IOPS per tenant, WAF, requests outstanding at
    the end and, when a tenant has periodic tasks, deadline misses / jobs released."""
    table = Table(
        title=f"scheme: {scheme}", title_justify="left", caption="latencies in µs", caption_justify="left"
    )
    table.add_column("\ntenant", no_wrap=True)
    for op in _OPS:
        table.add_column(f"{op}\nIOPS", justify="right", no_wrap=True)
    for op in _OPS:
        for label, _ in _LATENCIES:
            table.add_column(f"{op}\n{label}", justify="right", no_wrap=True)
    table.add_column("\nWAF", justify="right", no_wrap=True)
    table.add_column("outstanding\nat end", justify="right", no_wrap=True)
    with_deadlines = any(isinstance(t.get("deadlines"), dict) for t in tenants.values())
    if with_deadlines:
        table.add_column("deadline misses\n/ released", justify="right", no_wrap=True)
    for tenant, t in tenants.items():
        table.add_row(*_tenant_row(tenant, t, with_deadlines))
    return table


def _scheme_tables_narrow(scheme: str, tenants: Mapping[str, TenantSummary]) -> list[Table]:
    """The table of one scheme as three, for a narrow console: IOPS, WAF, requests
    outstanding (and deadline misses); read latency; write latency. The same cells as
    `_scheme_table`; columns fold rather than cut."""
    rows = {name: _tenant_row(name, t, True) for name, t in tenants.items()}
    with_deadlines = any(isinstance(t.get("deadlines"), dict) for t in tenants.values())
    n_lat = len(_LATENCIES)
    first = Table(title=f"scheme: {scheme}", title_justify="left")
    first.add_column("tenant", overflow="fold")
    heads = ["read IOPS", "write IOPS", "WAF", "outstanding at end"]
    heads += ["deadline misses / released"] if with_deadlines else []
    for head in heads:
        first.add_column(head, justify="right", overflow="fold")
    # _tenant_row: name, IOPS per op, latencies per op, WAF, outstanding, deadlines.
    for row in rows.values():
        first.add_row(row[0], row[1], row[2], *row[3 + 2 * n_lat :][: len(heads) - 2])
    tables = [first]
    for i, op in enumerate(_OPS):
        table = Table(
            title=f"scheme: {scheme}, {op} latency (µs)",
            title_justify="left",
        )
        table.add_column("tenant", overflow="fold")
        for label, _ in _LATENCIES:
            table.add_column(label, justify="right", overflow="fold")
        for row in rows.values():
            table.add_row(row[0], *row[3 + i * n_lat : 3 + (i + 1) * n_lat])
        tables.append(table)
    return tables


def _tenant_row(name: str, t: TenantSummary, with_deadlines: bool) -> list[str]:
    row = [_tenant_label(name, t)]
    row += [_num((t.get(op) or {}).get("iops"), ",.0f") for op in _OPS]
    for op in _OPS:
        stats = t.get(op) or {}
        row += [_num(stats.get(key), ",.1f") for _, key in _LATENCIES]
    row.append(_num(t.get("waf"), ".3f"))
    row.append(_num(t.get("outstanding_at_end"), ","))
    if with_deadlines:
        d = t.get("deadlines")
        row.append(
            f"{_num(d.get('misses'), ',')} / {_num(d.get('released'), ',')}" if isinstance(d, dict) else "-"
        )
    return row


def _tenant_label(name: str, t: TenantSummary) -> str:
    """The tenant's name, flagged when its backlog grew through the run."""
    label = escape(str(name))
    return f"{label} [bold red]UNSTABLE[/]" if t.get("unstable") is True else label


# --------------------------------------------------------------------------------------
# ftlab plot


class PlotKind(str, Enum):
    cdf = "cdf"
    timeseries = "timeseries"
    wear = "wear"
    bars = "bars"


@app.command()
def plot(
    run_dir: Annotated[
        Path, typer.Argument(metavar="DIR", help="A results directory of `ftlab run`.", show_default=False)
    ],
    kind: Annotated[PlotKind, typer.Option("--kind", "-k", help="What to draw.")] = PlotKind.cdf,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Output file, .png or .svg (default: DIR/KIND.png).", show_default=False
        ),
    ] = None,
    op: Annotated[
        list[str] | None,
        typer.Option(
            "--op",
            metavar="OP",
            help="cdf only: draw this operation (repeatable; default: read, and write if present).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw a publication figure of a results directory as PNG or SVG.

    cdf: per tenant, latency CDF (log µs) and tail 1 − CDF (log) per scheme; timeseries: latency, IOPS and
    device WAF/GC over time; wear: erase count per die and block; bars: mean and p99 latency per tenant and
    scheme (grouped bars, read and write).
    """
    target = out if out is not None else run_dir / f"{kind.value}.png"
    output_format(target, "--out")
    try:
        written = draw(run_dir, kind.value, target, ops=op)
    except _core.UsageError as e:
        if e.arg == "ops":
            raise _usage("--op", e.reason or str(e)) from None
        raise
    stdout_console().print(f"wrote {written}")


# --------------------------------------------------------------------------------------
# ftlab compare


@app.command()
def compare(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            metavar="DIR", help="Results directories; the first is the baseline.", show_default=False
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Also write the table to this file: .csv, .parquet or .json.",
            show_default=False,
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            metavar="PATTERN",
            help="Only metrics matching this pattern, e.g. 'read_p99*' (repeatable).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Compare the summary metrics of several results directories side by side.

    One row per (scheme, tenant, metric), one column per directory, and the relative change of each later
    directory against the first. Prints the table; --out also writes it (nothing is written without --out).
    """
    if out is not None:
        table_format(out, "--out")
    table = build(dirs, metrics=metric or ())
    labels = [str(d) for d in dirs]
    short = _short_labels(dirs)
    legend = "; ".join(f"{s} = {label}" for s, label in zip(short, labels, strict=True) if s != label)
    caption = f"Δ: relative change against {short[0]}" + (f" ({legend})" if legend else "")
    console = stdout_console()
    console.print(Text("ftlab compare", style="italic"))
    groups: dict[tuple[str, str], list[dict[str, object]]] = {}
    hidden = 0
    for row in table.iter_rows(named=True):
        if all(not row[label] for label in labels):
            hidden += 1  # 0 or missing in every directory
            continue
        tenant = row["tenant"] if row["tenant"] is not None else "(device)"
        groups.setdefault((row["scheme"], tenant), []).append(row)
    for (scheme, tenant), rows in groups.items():
        wide = _compare_table(f"{scheme}, {tenant}", rows, labels, short)
        long = _compare_long(f"{scheme}, {tenant}", rows, labels, short)
        console.print(wide if fits(console, wide) else long)
    if hidden:
        console.print(f"{hidden:,} metrics 0 or missing in every directory not shown (--out writes them)")
    console.print(caption)
    if out is not None:
        console.print(f"wrote {write_table(table, out, '--out')}")


def _compare_num(value: object) -> str:
    """A value of `ftlab compare` whole: integers with separators, others 6 significant digits."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:,.0f}"
    return _num(value, ",.6g")


def _compare_table(title: str, rows: list[dict[str, object]], labels: list[str], short: list[str]) -> Table:
    """One (scheme, tenant) of `ftlab compare`: a row per metric, a column per directory, then
    the relative change of each later one against the first."""
    view = Table(title=escape(title), title_justify="left")
    view.add_column("metric", no_wrap=True)
    for name in short:
        view.add_column(escape(name), justify="right", no_wrap=True)
    for name in short[1:]:
        view.add_column(escape(f"Δ {name}"), justify="right", no_wrap=True)
    for row in rows:
        cells = [str(row["metric"]), *(_compare_num(row[label]) for label in labels)]
        cells += [_num(row[REL_PREFIX + label], "+.1%") for label in labels[1:]]
        view.add_row(*cells)
    return view


def _compare_long(title: str, rows: list[dict[str, object]], labels: list[str], short: list[str]) -> Table:
    """The long format of `_compare_table`, for too many directories to fit side by side: one
    row per metric and directory (value, change against the first); cells fold, never cut."""
    view = Table(title=escape(title), title_justify="left")
    for col, justify in (("metric", "left"), ("directory", "left"), ("value", "right"), ("Δ", "right")):
        view.add_column(col, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for row in rows:
        for i, (label, name) in enumerate(zip(labels, short, strict=True)):
            change = _num(row[REL_PREFIX + label], "+.1%") if i else ""
            view.add_row(str(row["metric"]) if i == 0 else "", escape(name), _compare_num(row[label]), change)
        view.add_section()
    return view


def _short_labels(dirs: list[Path]) -> list[str]:
    """The shortest trailing parts of the paths that tell them apart (for column headers)."""
    parts = [Path(d).parts or (str(d),) for d in dirs]
    for k in range(1, max(len(p) for p in parts) + 1):
        names = [str(Path(*p[-k:])) for p in parts]
        if len(set(names)) == len(names):
            return names
    return [str(d) for d in dirs]


def _usage(arg: str, reason: str) -> _core.UsageError:
    return usage_error(arg, reason)


# --------------------------------------------------------------------------------------
# ftlab trace stats

TRACE_STATS_KEYS = (
    "requests",
    "reads",
    "writes",
    "trims",
    "bytes",
    "duration_s",
    "footprint_pages",
    "lba_min_bytes",
    "lba_max_bytes",
    "skipped",
)


@trace_app.command("stats")
def trace_stats(
    file: Annotated[Path, typer.Argument(help="Trace file.", show_default=False)],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help=f"Trace format: one of {', '.join(_core.TRACE_FORMATS)}.",
            show_default=False,
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Print statistics of a trace file.

    Request counts, bytes, duration, footprint and LBA range, and the lines the parser
    skipped and counted (e.g. vscsi commands other than reads and writes).
    """
    stats: Mapping[str, object] = _core.trace_stats(str(file), format)
    if as_json:
        print(json.dumps({k: stats[k] for k in TRACE_STATS_KEYS}, indent=2))
        return
    table = Table(title=f"{file} ({format})", title_justify="left")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for key in TRACE_STATS_KEYS:
        value = stats[key]
        table.add_row(key, _num(value, ",.6f" if isinstance(value, float) else ","))
    stdout_console().print(table)


# --------------------------------------------------------------------------------------
# ftlab bench

BENCH_KEYS = (
    "case",
    "kind",
    "requests",
    "rows",
    "wall_s",
    "cpu_s",
    "requests_per_s",
    "bytes_per_mapping_unit",
    "peak_rss_bytes",
)


@app.command()
def bench(
    case: Annotated[
        list[str] | None,
        typer.Option(
            "--case",
            metavar="NAME",
            help=(
                "Run only this case (repeatable). Core cases (simulator throughput): "
                f"{', '.join(_core.BENCH_TIMED_CASES)}; "
                "precondition (preconditioning alone), precondition-closed-form (the same with "
                "closed-form overwrites), memory-1tb (heap bytes per mapping unit of a 1 TiB device); "
                "Python cases (wall time of the Python API): run-default (ftlab.run of the default scenario, "
                "results written), load-1e6 (ftlab.load of a 10^6-row time series)."
            ),
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    requests: Annotated[
        int | None,
        typer.Option(
            "--requests",
            min=1,
            help="Host requests per core case (default: the standard workload's 1,000,000); fewer "
            "for a smoke run.",
            show_default=False,
        ),
    ] = None,
    rows: Annotated[
        int | None,
        typer.Option(
            "--rows",
            min=1,
            help="Rows of load-1e6's time series (default 1,000,000); fewer for a smoke run.",
            show_default=False,
        ),
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY.PATH=VALUE",
            help="Override a value of each case's scenario (repeatable, after the case's own), e.g. "
            "--set ftl.gc_policy=cost-benefit; not with load-1e6, which runs no scenario.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Measure simulator throughput and peak memory (core cases), preconditioning alone, the
    heap bytes per mapping unit of a 1 TiB device (memory-1tb: the B/unit column), and the
    wall time of ftlab.run and ftlab.load (Python cases). The core cases report the thread
    CPU seconds of what they time (cpu s), which other work on a shared machine disturbs less
    than the wall time.

    Each case runs in a fresh process (ftlab._bench's main), so its peak RSS is its own.
    """
    valid = [*_core.BENCH_CASES, *PYTHON_CASES]
    cases = case or valid
    unknown = [c for c in cases if c not in valid]
    if unknown:
        raise _core.UsageError(f"--case: unknown bench case {unknown[0]!r}; valid cases: {', '.join(valid)}")
    overrides = [arg for kv in set_ or [] for arg in ("--set", kv)]
    if overrides and "load-1e6" in cases:
        raise _core.UsageError("--set: load-1e6 runs no scenario to set; choose the other cases with --case")
    results = []
    err = _stderr()
    for name in cases:
        size = rows if name == "load-1e6" else requests if name in _core.BENCH_TIMED_CASES else None
        with err.status(f"bench {name}"):
            proc = subprocess.run(
                [sys.executable, "-c", LAUNCH, name, *([str(size)] if size else []), *overrides],
                capture_output=True,
                text=True,
                check=False,
            )
        if proc.returncode != 0:
            err.print(Text(proc.stderr.rstrip() or f"bench case {name} failed", style="red"), soft_wrap=True)
            raise typer.Exit(EXIT_INPUT_ERROR if proc.returncode == EXIT_INPUT_ERROR else 1)
        result = json.loads(proc.stdout)
        results.append({k: result.get(k) for k in BENCH_KEYS})
    if as_json:
        print(json.dumps(results, indent=2))
        return
    # The kind is in --json; the table shows a case's size in one column (its requests, or
    # load-1e6's rows) so that it fits 100 columns.
    table = Table(title="ftlab bench", title_justify="left")
    for col in ("case", "requests/rows", "wall s", "cpu s", "requests/s", "B/unit", "peak MB"):
        table.add_column(col, justify="left" if col == "case" else "right", no_wrap=True)
    for r in results:
        table.add_row(
            r["case"],
            _num(r["requests"] if r["rows"] is None else r["rows"], ","),
            _num(r["wall_s"], ".3f"),
            _num(r["cpu_s"], ".3f"),
            _num(r["requests_per_s"], ",.0f"),
            _num(r["bytes_per_mapping_unit"], ".2f"),
            _num(r["peak_rss_bytes"] / 1e6, ",.1f"),
        )
    stdout_console().print(table)


# --------------------------------------------------------------------------------------
# ftlab sweep (its own module: ftlab.cli.sweep)

from ftlab.cli.sweep import sweep_command  # noqa: E402

app.command("sweep")(sweep_command)

# --------------------------------------------------------------------------------------
# ftlab reproduce (its own module: ftlab.cli.reproduce)

from ftlab.cli.reproduce import reproduce_command  # noqa: E402

app.command("reproduce")(reproduce_command)

# ftlab capture (its own package: ftlab.cli.capture)
from ftlab.cli.capture import capture_app  # noqa: E402

app.add_typer(capture_app, name="capture")

# ftlab rt (ftlab.cli.rt)
from ftlab.cli.lifetime import lifetime_command  # noqa: E402
from ftlab.cli.rt import rt_app  # noqa: E402

app.command("lifetime")(lifetime_command)

app.add_typer(rt_app, name="rt")

# ftlab scenarios (ftlab.cli.scenarios)
from ftlab.cli.scenarios import scenarios_command  # noqa: E402

app.command("scenarios")(scenarios_command)

# ftlab schemes, ftlab mappers (ftlab.cli.policies)
from ftlab.cli import policies as _policies  # noqa: E402

_policies.register(app)


def _reflow(doc: str) -> str:
    """A command's docstring as its help: typer keeps the line breaks of the paragraphs after
    the first, so a paragraph wrapped in the source (at 110 columns) is joined into one line
    and rich wraps it at the terminal's width. Paragraphs with an indented or bulleted line
    keep their breaks."""
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(
        p if any(line.startswith((" ", "- ", "* ")) for line in p.split("\n")) else p.replace("\n", " ")
        for p in paragraphs
    )


def _reflow_help(typer_app: typer.Typer) -> None:
    """Set every command's help to its reflowed docstring (`_reflow`), in sub-apps too."""
    for info in typer_app.registered_commands:
        if info.help is None and info.callback is not None and info.callback.__doc__:
            info.help = _reflow(info.callback.__doc__)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _reflow_help(group.typer_instance)


_reflow_help(app)


# --------------------------------------------------------------------------------------


# `Any` stays on the click objects below: typer vendors its own click (`typer._click`, private),
# so `click.Command` is not their type at run time, and the private module is no API to name.
def _flags_take_no_value(command: Any) -> None:
    """Show no value placeholder after a flag in the help: typer prints a flag's type
    (`--solo <bool>`), which reads as if it took a value, yet `--solo true` is an error (a
    flag takes none). Every flag of `command` and its subcommands gets an empty metavar."""
    for param in command.params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    make_help_option = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        # --help is made on demand per command: give it the same empty placeholder.
        option = make_help_option(ctx)
        if option is not None and option.metavar is None:
            option.metavar = ""
        return option

    command.get_help_option = get_help_option
    for sub in (getattr(command, "commands", None) or {}).values():
        _flags_take_no_value(sub)


def main() -> None:
    """Console-script entry point: run the app; report input errors without a traceback."""
    try:
        command = typer.main.get_command(app)
        _flags_take_no_value(command)
        command()
    except _core.FtlabError as e:
        _print_error(str(e))
        sys.exit(EXIT_INPUT_ERROR)
    except OSError as e:
        # Writing results or reading a file failed outside the core (permissions, disk full).
        _print_error(str(e))
        sys.exit(1)


def _print_error(message: str) -> None:
    """An error in red on stderr, within the width (`ftlab.cli._console.error_lines`): the
    message on its line, a list of known names it ends with on the following, wrapped lines."""
    err = _stderr()
    for line in error_lines(message, err.width):
        err.print(Text(line, style="red"), soft_wrap=True)
