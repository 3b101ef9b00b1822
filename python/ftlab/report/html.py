"""ftlab.report.html: `render(report)`, the self-contained HTML report of a run (the
report.html that `ftlab run` writes).

One page, no network access: plotly.js is inlined from the installed plotly package. In
order: the headline (`ftlab.report.headline`: per tenant and scheme, the key metrics with
their change against the baseline scheme and the best scheme marked; unstable tenants
flagged), grouped bars of mean and p99 latency per tenant and scheme, then, folded in
`<details>`, the full comparison table (per tenant and scheme, every summary.json metric
except rows that are 0 or missing everywhere, unstable tenants flagged with their outstanding
requests; the periodic tasks' deadline misses when there are any; then the device metrics
and the schemes' job and policy counters), per-tenant latency CDFs with their tails (1 - CDF, log scale)
overlaid across schemes, time
series (latency mean and p99, IOPS, backlog, device WAF and GC), a wear heatmap
(per die, or per block of one scheme from a dropdown), the plots of scheme-specific columns
(`ftlab.report.series.REGISTRY`), and the resolved scenario. Big tables are reduced by
`ftlab.report.figdata`, deterministically; element ids are fixed, so a Report always renders to the
same bytes. This module does not write files (`Report.write`) and never looks at scheme
names; it computes nothing about the simulation.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ftlab._json import JsonObject, table
from ftlab.report import _plotly, figdata, headline, series
from ftlab.report.style import WEAR_COLORMAP, scheme_style
from ftlab.results import Deadlines, TaskDeadlines, TenantSummary

if TYPE_CHECKING:
    import plotly.graph_objects as go
    import polars as pl

    from ftlab.report import Report

# plotly is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

_CSS = (
    "\n"
    'body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 0 auto; max-width: 1400px; '
    "padding: 0 24px 48px; color: #1a1a1a; }\n"
    "h1 { font-size: 1.6em; margin-bottom: 0.2em; } "
    "h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }\n"
    "nav a { margin-right: 1em; } .meta { color: #555; } .note { color: #555; font-style: italic; } "
    ".unstable { color: #a00; } .flag { color: #a00; font-weight: bold; }\n"
    "table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }\n"
    "th, td { border: 1px solid #ddd; padding: 3px 8px; } "
    "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
    "th { background: #f3f3f3; } "
    'tbody th { text-align: left; font-weight: normal; font-family: "DejaVu Sans Mono", monospace; } '
    "tbody tr:nth-child(even) { background: #fafafa; }\n"
    ".scroll { overflow-x: auto; } figure.chart { margin: 1em 0 2em; }\n"
    "table.headline { font-size: 0.95em; } "
    "table.headline caption { caption-side: top; text-align: left; padding: 4px 0; color: #333; }\n"
    "table.headline th.hl-tenant { font-weight: bold; vertical-align: top; } "
    "table.headline tbody tr.hl-first { border-top: 2px solid #999; }\n"
    "td.hl-best { font-weight: bold; background: #eef6ee; } .hl-change { color: #555; } "
    ".hl-baseline { color: #777; font-size: 0.85em; }\n"
    "details > summary { cursor: pointer; font-weight: bold; margin: 0.5em 0; }\n"
    "pre { background: #f6f6f6; padding: 12px; overflow-x: auto; font-size: 0.85em; }\n"
)


def render(report: Report, *, baseline: str | None = None) -> str:
    """The report page of `report`, as one HTML string; the headline compares every scheme
    against `baseline` (default: the first; an unknown scheme is a `ftlab.UsageError`).

    >>> page = ftlab.report.html.render(ftlab.load("results/default"))  # doctest: +SKIP
    >>> "plotly" in page  # doctest: +SKIP
    True
    """
    from plotly.offline import get_plotlyjs

    schemes, tenants = figdata.schemes(report), figdata.tenants(report)
    top = headline.build(report.summary, baseline)
    view = figdata.series_view(report)
    body = [
        _header(report, schemes, tenants),
        *_array_section(report),
        _headline_section(report, top),
        _bars_section(report),
        _summary_section(report),
        _latency_section(report, schemes, tenants),
        _timeseries_section(report, view, schemes, tenants),
        _wear_section(report, schemes),
        _series_section(view, schemes, tenants),
        _scenario_section(report),
    ]
    title = html.escape(f"ftlab report: {report.summary.get('scenario', '')}")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title}</title>\n<style>{_CSS}</style>\n"
        "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>\n"
        f"<script>{get_plotlyjs()}</script>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def _header(report: Report, schemes: Sequence[str], tenants: Sequence[str]) -> str:
    s = report.summary
    meta = (
        f"seed {s.get('seed', '?')} · ftlab {s.get('ftlab_version', '?')} · schemes: "
        f"{', '.join(schemes)} · tenants: {', '.join(tenants)}"
    )
    links = [
        ("headline", "Headline"),
        ("bars", "Mean and p99"),
        ("summary", "All metrics"),
        ("latency", "Latency CDFs"),
        ("timeseries", "Time series"),
        ("wear", "Wear"),
        ("series", "Scheme series"),
        ("scenario", "Scenario"),
    ]
    if s.get("array") is not None:
        links.insert(0, ("array", "Array"))
    nav = " ".join(f'<a href="#{a}">{t}</a>' for a, t in links)
    return (
        f"<h1>ftlab report: {html.escape(str(s.get('scenario', '')))}</h1>\n"
        f'<p class="meta">{html.escape(meta)}</p>\n<nav>{nav}</nav>'
    )


# --------------------------------------------------------------------------------------
# Tables

#: The array table's columns: (header, where in a host-layer tenant: op and key, or a count).
ARRAY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("reads", "read", "count"),
    ("read p50", "read", "p50_us"),
    ("read p95", "read", "p95_us"),
    ("read p99", "read", "p99_us"),
    ("read p99.9", "read", "p999_us"),
    ("read p99.99", "read", "p9999_us"),
    ("read max", "read", "max_us"),
    ("write p99", "write", "p99_us"),
    ("failed fast", "", "reads_failed_fast"),
    ("multi busy", "", "reads_multi_busy"),
    ("rebuilt", "", "chunks_rebuilt"),
    ("rmw failed fast", "", "rmw_reads_failed_fast"),
    ("rmw rebuilt", "", "rmw_reads_rebuilt"),
)


def _array_section(report: Report) -> list[str]:
    """An array run's host layer (summary.json `array`; none without it): a row per tenant and
    scheme, its array requests' latencies (µs, arrival to the last device request's
    completion) and its fail-fast and rebuild counts, each cell's number in `data-value`. The
    devices' own results (`<scheme>/dev<i>`) are the rest of the page."""
    array = report.summary.get("array")
    if array is None:
        return []
    head = "".join(f"<th>{html.escape(h)}</th>" for h, _, _ in ARRAY_COLUMNS)
    body = []
    for scheme, result in array["schemes"].items():
        for tenant, typed in result["tenants"].items():
            t: JsonObject = typed
            cells = []
            for _, op, key in ARRAY_COLUMNS:
                ops = table(t.get(op)) if op else t
                value = ops.get(key)
                blank = op and key != "count" and not ops.get("count")
                text = "–" if blank or value is None else _fmt(value)
                cells.append(f'<td data-value="{"" if blank else value}">{html.escape(text)}</td>')
            attrs = f'data-tenant="{html.escape(tenant)}" data-scheme="{html.escape(scheme)}"'
            head_cells = f"<th>{html.escape(tenant)}</th><td>{html.escape(scheme)}</td>"
            body.append(f"<tr {attrs}>{head_cells}{''.join(cells)}</tr>")
    caption = (
        f"{array['devices']} devices, {array['chunk_kib']} KiB chunks, fail_fast {array['fail_fast']}, "
        f"stagger {str(array['stagger']).lower()}; latencies in µs, arrival to the last device request's "
        "completion. The sections below are per device (<scheme>/dev<i>: each device's share of the "
        "host layer's requests)."
    )
    return [
        '<h2 id="array">Array (host layer)</h2>',
        '<div class="scroll"><table id="array-table">'
        f"<caption>{html.escape(caption)}</caption>"
        f"<thead><tr><th>tenant</th><th>scheme</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>",
    ]


def _headline_section(report: Report, top: headline.Headline) -> str:
    """The headline as the terminal prints it (`ftlab.report.headline`): one verdict line per
    tenant, the table, its notes (few samples, records not replayed, health, the lifetime's
    assumptions), the unstable tenants' warnings and what the marks mean."""
    parts = ['<h2 id="headline">Headline: which scheme did best for whom</h2>']
    if not top.rows or not top.metrics:
        return "\n".join(parts + [_note("No tenants in summary.json.")])
    lines = "".join(f"<li>{html.escape(line)}</li>" for line in headline.verdicts(top))
    parts.append(f'<ul class="hl-verdicts">{lines}</ul>')
    parts.append(_headline_table(top))
    parts += [
        f'<p class="note hl-note">{html.escape(line)}</p>' for line in headline.notes(report.summary, top)
    ]
    parts += _unstable_notes(report)
    if top.unstable:
        parts.append(f'<p class="note hl-unstable-note">{html.escape(headline.UNSTABLE_NOTE)}</p>')
    if top.has_no_change:
        parts.append(_note(headline.NO_CHANGE_NOTE))
    parts.append(_note(headline.directions(top)))
    return "\n".join(parts)


def _headline_table(top: headline.Headline) -> str:
    """Rows: tenants (the name spans one sub-row per scheme); columns: the key metrics. Each
    cell carries its raw numbers in data attributes (`data-value`, `data-change` (percent), `data-change-abs`
    (counts),
    `data-best`) beside the text it shows."""
    head = "".join(
        f'<th data-metric="{m.key}" data-direction="{m.direction}">{html.escape(m.title)}</th>'
        for m in top.metrics
    )
    body = []
    for row in top.rows:
        for i, scheme in enumerate(row.schemes):
            attrs = f'data-tenant="{html.escape(row.tenant)}" data-scheme="{html.escape(scheme)}"'
            tr = [f'<tr class="hl-row{" hl-first" if i == 0 else ""}" {attrs}>']
            if i == 0:
                tr.append(
                    f'<th class="hl-tenant" rowspan="{len(row.schemes)}">{html.escape(row.tenant)}</th>'
                )
            tr.append(_headline_scheme(scheme, row, top))
            tr += [_headline_cell(m, row.cells[m.key][scheme]) for m in top.metrics]
            body.append("".join(tr) + "</tr>")
    return (
        '<div class="scroll"><table id="headline-table" class="headline" '
        f'data-baseline="{html.escape(top.baseline)}">'
        f"<caption>{html.escape(headline.caption(top))}</caption>"
        f"<thead><tr><th>tenant</th><th>scheme</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _headline_scheme(scheme: str, row: headline.TenantRow, top: headline.Headline) -> str:
    parts = [html.escape(scheme)]
    if scheme == top.baseline:
        parts.append(' <span class="hl-baseline">(baseline)</span>')
    if scheme in row.unstable:
        outstanding = _fmt(row.unstable[scheme])
        parts.append(
            f'<br><span class="flag hl-unstable" title="{outstanding} requests outstanding at the end">'
            f"{html.escape(headline.UNSTABLE_FLAG)}</span>"
        )
    return f'<th class="hl-scheme">{"".join(parts)}</th>'


def _headline_cell(metric: headline.Metric, cell: headline.Cell) -> str:
    value = "" if cell.value is None or not cell.applies else repr(cell.value)
    change = "" if cell.change_pct is None else repr(cell.change_pct)
    change_abs = "" if cell.change_abs is None else repr(cell.change_abs)
    attrs = (
        f'data-metric="{metric.key}" data-value="{value}" data-change="{change}" '
        f'data-change-abs="{change_abs}" '
        f'data-best="{str(cell.best).lower()}" data-applies="{str(cell.applies).lower()}"'
    )
    if not cell.applies:
        return f'<td class="num hl-cell hl-na" {attrs}>–</td>'
    shown = html.escape(headline.format_value(metric, cell.value))
    extra = headline.change_text(cell)
    text = f'<span class="hl-value">{shown}</span>' + (
        f' <span class="hl-change">{html.escape(extra)}</span>' if extra else ""
    )
    if cell.best:
        text = f"{headline.BEST_MARK} {text}"
    return f'<td class="num hl-cell{" hl-best" if cell.best else ""}" {attrs}>{text}</td>'


def _bars_section(report: Report) -> str:
    parts = ['<h2 id="bars">Mean and p99 latency per tenant and scheme</h2>']
    groups = headline.bars(report.summary)
    if not groups:
        return "\n".join(parts + [_note("No tenant issued reads or writes.")])
    parts.append(
        _note("From summary.json (the measured phase): one group of bars per tenant, one bar per scheme.")
    )
    parts += [_chart(_bars_figure(g), f"fig-bars-{g.op}") for g in groups]
    return "\n".join(parts)


def _bars_figure(group: headline.Bars) -> go.Figure:
    """Two panels (mean, p99) of grouped bars: x = tenants, one trace per scheme and panel."""
    import plotly.graph_objects as go

    titles = [f"{group.op} latency, {label} (µs)" for _, label in headline.BAR_STATS]
    fig = _plotly.subplots(1, len(titles), titles)
    x = [_plotly.text(t) for t in group.tenants]
    for c, (stat, label) in enumerate(headline.BAR_STATS, start=1):
        for s, scheme in enumerate(group.schemes):
            style = scheme_style(s)
            fig.add_trace(
                go.Bar(
                    x=x,
                    y=group.values[stat][scheme],
                    name=_plotly.text(scheme),
                    legendgroup=scheme,
                    showlegend=c == 1,
                    marker={
                        "color": style.color,
                        "line": {"color": "#000000", "width": 0.5},
                        "pattern": {"shape": style.plotly_pattern},
                    },
                    meta=[stat],
                    hovertemplate=f"{_plotly.text(scheme)}<br>%{{x}}: {label} %{{y:,.1f}} µs<extra></extra>",
                ),
                row=1,
                col=c,
            )
        fig.update_yaxes(title_text="latency (µs)", rangemode="tozero", row=1, col=c)
    fig.update_layout(barmode="group")
    return _plotly.finish(fig, f"{group.op} latency per tenant: mean and p99", 1)


def _summary_section(report: Report) -> str:
    tenant_rows, tenant_hidden = _drop_zero_rows(report.summary_frame, ("scheme", "tenant"))
    device_rows, device_hidden = _drop_zero_rows(report.device_frame, ("scheme",))
    counters, counters_hidden = _drop_zero_rows(report.counters_frame, ("scheme",))
    hidden = tenant_hidden + device_hidden + counters_hidden
    label = "every summary.json metric per tenant and scheme, device and counters"
    if hidden:
        label += f" ({len(hidden)} rows hidden: 0 or missing everywhere)"
    parts = [
        '<h2 id="summary">All metrics</h2>',
        f'<details id="summary-details"><summary>{html.escape(label)}</summary>',
    ]
    parts.append("<h3>Per tenant</h3>")
    parts.append(
        _tenant_table(tenant_rows)
        if tenant_rows.height
        else '<p class="note">No tenants in summary.json.</p>'
    )
    parts += _hidden_note(tenant_hidden, "summary-tenants-hidden", "tenant")
    parts += _deadline_section(report)
    parts.append("<h3>Device</h3>")
    parts.append(
        _device_table(device_rows)
        if device_rows.height
        else '<p class="note">No schemes in summary.json.</p>'
    )
    parts += _hidden_note(device_hidden, "summary-device-hidden", "device")
    parts += _counters_section(counters)
    parts += _hidden_note(counters_hidden, "summary-counters-hidden", "counter")
    parts.append("</details>")
    return "\n".join(parts)


def _drop_zero_rows(frame: pl.DataFrame, keys: tuple[str, ...]) -> tuple[pl.DataFrame, list[str]]:
    """`frame` without the metric columns (rows of the transposed tables) whose every value
    is 0 or missing (null, NaN), and the names of those columns. Booleans and lists stay."""
    hidden = [c for c in frame.columns if c not in keys and _all_zero(frame.get_column(c).to_list())]
    return frame.drop(hidden), hidden


def _all_zero(values: list[object]) -> bool:
    """Every value is a number equal to 0, null or NaN (a Boolean or a list is never "zero")."""
    if not values:
        return False
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        if v != 0 and v == v:  # neither 0 nor NaN
            return False
    return True


def _hidden_note(hidden: list[str], note_id: str, what: str) -> list[str]:
    if not hidden:
        return []
    names = ", ".join(hidden)
    return [
        f'<p class="note" id="{note_id}" data-hidden="{len(hidden)}">{len(hidden)} {what} '
        "rows hidden because every "
        f"value in them is 0 or missing (e.g. trim of tenants that never trim): {html.escape(names)}.</p>"
    ]


def _tenants(report: Report) -> Iterable[tuple[str, str, TenantSummary]]:
    """(scheme, tenant, its summary.json object) of every tenant of every scheme."""
    for scheme, data in (report.summary.get("schemes") or {}).items():
        for tenant, t in (data.get("tenants") or {}).items():
            yield scheme, tenant, t


def _unstable_notes(report: Report) -> list[str]:
    """One warning per (scheme, tenant) whose backlog grew through the run."""
    return [
        f'<p class="unstable"><strong>UNSTABLE</strong>: {html.escape(tenant)} under '
        f"{html.escape(scheme)}: its "
        "backlog grew through the run by more than its queue depth; "
        f"{_fmt(t.get('outstanding_at_end'))} requests "
        "were outstanding at the end, so its latencies depend on when the run stopped.</p>"
        for scheme, tenant, t in _tenants(report)
        if t.get("unstable") is True
    ]


def _deadline_section(report: Report) -> list[str]:
    """The deadline misses of the tenants with periodic tasks (nothing if none has them):
    rows: tenant (all its tasks) then each task; columns: schemes; cells: misses / released."""
    cells = _deadline_cells(report)
    if not cells:
        return []
    schemes = report.schemes
    head = "".join(f"<th>{html.escape(s)}</th>" for s in schemes)
    body = "".join(
        f"<tr><th>{html.escape(tenant)}{' / ' + html.escape(task) if task else ' (all tasks)'}</th>"
        + "".join(f'<td class="num">{row.get(s, "–")}</td>' for s in schemes)
        + "</tr>"
        for (tenant, task), row in cells.items()
    )
    return [
        "<h3>Deadline misses</h3>",
        _note("Periodic real-time jobs that missed their deadline / jobs released, per tenant and task."),
        '<div class="scroll"><table id="summary-deadlines"><thead><tr><th>tenant / '
        f"task</th>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>",
    ]


def _deadline_cells(report: Report) -> dict[tuple[str, str], dict[str, str]]:
    """(tenant, task or "" for all its tasks) -> {scheme: "misses / released"}."""
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for scheme, tenant, t in _tenants(report):
        d = t.get("deadlines")
        if not isinstance(d, dict):
            continue
        cells.setdefault((tenant, ""), {})[scheme] = _misses(d)
        for task, stats in (d.get("tasks") or {}).items():
            cells.setdefault((tenant, task), {})[scheme] = _misses(stats)
    return cells


def _misses(d: Deadlines | TaskDeadlines) -> str:
    return f"{_fmt(d.get('misses'))} / {_fmt(d.get('released'))}"


def _counters_section(frame: pl.DataFrame) -> list[str]:
    """The schemes' background-job and policy counters (nothing for an older summary)."""
    if len(frame.columns) < 2:
        return []
    return ["<h3>Jobs and policy counters</h3>", _device_table(frame, "summary-counters")]


def _tenant_table(frame: pl.DataFrame) -> str:
    """Rows: metrics; columns: (tenant, scheme), tenants grouped, schemes side by side; an
    unstable tenant's column is flagged in its header, with its outstanding requests."""
    keys = frame.select("tenant", "scheme").rows()
    tenants = list(dict.fromkeys(t for t, _ in keys))
    head1 = "".join(
        f'<th colspan="{sum(1 for t, _ in keys if t == tenant)}">{html.escape(tenant)}</th>'
        for tenant in tenants
    )
    order = [(t, s) for tenant in tenants for t, s in keys if t == tenant]
    index = {key: i for i, key in enumerate(keys)}
    rows = frame.to_dicts()
    head2 = "".join(_scheme_head(s, rows[index[(t, s)]]) for t, s in order)
    metrics = [c for c in frame.columns if c not in ("scheme", "tenant")]
    body = []
    for metric in metrics:
        values = frame.get_column(metric).to_list()
        cells = "".join(_cell(metric, values[index[key]]) for key in order)
        body.append(f"<tr><th>{html.escape(metric)}</th>{cells}</tr>")
    return (
        '<div class="scroll"><table id="summary-tenants">'
        f'<thead><tr><th rowspan="2">metric</th>{head1}</tr><tr>{head2}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _scheme_head(scheme: str, row: Mapping[str, object]) -> str:
    """A scheme's header cell over one tenant's column, flagged if the tenant is unstable."""
    if row.get("unstable") is not True:
        return f"<th>{html.escape(scheme)}</th>"
    outstanding = _fmt(row.get("outstanding_at_end"))
    return f'<th>{html.escape(scheme)}<br><span class="flag">UNSTABLE</span> ({outstanding} outstanding)</th>'


def _cell(metric: str, value: object) -> str:
    flagged = metric == "unstable" and value is True
    return f'<td class="num{" flag" if flagged else ""}">{_fmt(value)}</td>'


def _device_table(frame: pl.DataFrame, table_id: str = "summary-device") -> str:
    """Rows: metrics; columns: schemes."""
    schemes = frame.get_column("scheme").to_list()
    head = "".join(f"<th>{html.escape(s)}</th>" for s in schemes)
    body = []
    for metric in (c for c in frame.columns if c != "scheme"):
        cells = "".join(f'<td class="num">{_fmt(v)}</td>' for v in frame.get_column(metric).to_list())
        body.append(f"<tr><th>{html.escape(metric)}</th>{cells}</tr>")
    return (
        '<div class="scroll"><table '
        f'id="{table_id}"><thead><tr><th>metric</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
    )


def _fmt(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) >= 100 else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt(v) for v in value)
    if hasattr(value, "to_list"):  # a polars Series (a list column's cell)
        return ", ".join(_fmt(v) for v in value.to_list())
    return html.escape(str(value))


# --------------------------------------------------------------------------------------
# Figures


def _chart(fig: go.Figure, div_id: str) -> str:
    return f'<figure class="chart">{_plotly.div(fig, div_id)}</figure>'


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


def _latency_section(report: Report, schemes: Sequence[str], tenants: Sequence[str]) -> str:
    parts = ['<h2 id="latency">Latency CDFs</h2>']
    ops = figdata.cdf_ops(report)
    if not ops:
        return "\n".join(parts + [_note("This run has no latency_cdf.parquet (written by an older ftlab).")])
    parts.append(
        _note(
            "Per tenant: the CDF (top, log latency) and the tail 1 − CDF (below, log scale down to 10⁻⁴), "
            "one curve per scheme; curves are thinned to at most a few hundred points each "
            f"({figdata.CDF_CELLS} CDF "
            f"steps, {figdata.CDF_LATENCY_CELLS_PER_DECADE} latency and "
            f"{figdata.CDF_TAIL_CELLS_PER_DECADE} tail steps per decade)."
        )
    )
    for op in ops:
        parts.append(
            _chart(_cdf_figure(figdata.cdf_points(report, op), op, schemes, tenants), f"fig-cdf-{op}")
        )
    return "\n".join(parts)


def _cdf_figure(points: pl.DataFrame, op: str, schemes: Sequence[str], tenants: Sequence[str]) -> go.Figure:
    """Per tenant (with `op` data): CDF panel above its tail panel; one trace per scheme in
    each."""
    present = set(points.get_column("tenant").unique().to_list())
    shown = [t for t in tenants if t in present]
    blocks, cols = _plotly.grid(len(shown))
    titles = [""] * (2 * blocks * cols)
    for i, tenant in enumerate(shown):
        r, c = divmod(i, cols)
        titles[2 * r * cols + c] = f"{tenant}: {op} latency CDF"
        titles[(2 * r + 1) * cols + c] = f"{tenant}: {op} tail (1 − CDF)"
    fig = _plotly.subplots(2 * blocks, cols, titles)
    legend: set[str] = set()
    for i, tenant in enumerate(shown):
        r, c = divmod(i, cols)
        for s, scheme in enumerate(schemes):
            curve = points.filter(scheme=scheme, tenant=tenant)
            if not curve.height:
                continue
            style = scheme_style(s)
            x = curve.get_column("latency_us")
            for row, y, label in ((2 * r + 1, "cdf", "CDF"), (2 * r + 2, "tail", "1 − CDF")):
                fig.add_trace(
                    _plotly.line(
                        x,
                        curve.get_column(y),
                        scheme,
                        scheme,
                        style.color,
                        scheme not in legend,
                        dash=style.plotly_dash,
                        shape="hv",
                        hovertemplate=f"{_plotly.text(scheme)}<br>%{{x}} µs<br>{label} %{{y}}<extra></extra>",
                    ),
                    row=row,
                    col=c + 1,
                )
                legend.add(scheme)
            fig.update_yaxes(title_text="CDF", range=[0, 1.02], row=2 * r + 1, col=c + 1)
            fig.update_yaxes(
                title_text="1 − CDF",
                type="log",
                range=[-4, 0.05],
                exponentformat="power",
                row=2 * r + 2,
                col=c + 1,
            )
    fig.update_xaxes(type="log", title_text="latency (µs)", exponentformat="power")
    return _plotly.finish(fig, f"{op} latency per tenant", 2 * blocks)


def _timeseries_section(
    report: Report, view: figdata.SeriesView, schemes: Sequence[str], tenants: Sequence[str]
) -> str:
    parts = ['<h2 id="timeseries">Time series</h2>']
    frame = view.frame
    if not frame.height or "window_start_s" not in frame.columns:
        return "\n".join(parts + [_note("The time series is empty.")])
    window_s = _window_s(report.timeseries)
    merged = (
        f"; {view.windows_per_point} windows per point (mean; p99: max)" if view.windows_per_point > 1 else ""
    )
    parts.append(
        _note(
            f"Windows of {window_s:g} s{merged}. Latency is left out where a window had no "
            "request of its kind."
        )
    )
    specs = [
        (
            "fig-ts-read-latency",
            "read latency (µs), mean and p99",
            (("read_mean_us", "mean", "solid"), ("read_p99_us", "p99", "dot")),
            "latency (µs)",
            "log",
        ),
        (
            "fig-ts-write-latency",
            "write latency (µs), mean and p99",
            (("write_mean_us", "mean", "solid"), ("write_p99_us", "p99", "dot")),
            "latency (µs)",
            "log",
        ),
        (
            "fig-ts-iops",
            "IOPS, read and write",
            (("read_iops", "read", "solid"), ("write_iops", "write", "dash")),
            "IOPS",
            "linear",
        ),
        (
            "fig-ts-backlog",
            "backlog: requests arrived and not completed, at each window's end",
            (("backlog", "backlog", "solid"),),
            "requests",
            "linear",
        ),
    ]
    for div_id, title, lines, y_title, y_type in specs:
        if all(col in frame.columns for col, _, _ in lines):
            parts.append(
                _chart(_tenant_series_figure(frame, title, lines, y_title, y_type, schemes, tenants), div_id)
            )
    device = figdata.device_series(view)
    if len(device.columns) > 2:
        parts.append(_chart(_device_figure(device, schemes, window_s), "fig-ts-device"))
    return "\n".join(parts)


def _window_s(ts: pl.DataFrame) -> float:
    if "window_start_s" not in ts.columns:
        return 0.0
    starts = ts.get_column("window_start_s").unique().sort().head(2).to_list()
    return round(starts[1] - starts[0], 9) if len(starts) == 2 else 0.0


def _tenant_series_figure(
    frame: pl.DataFrame,
    title: str,
    lines: Iterable[tuple[str, str, str]],
    y_title: str,
    y_type: str,
    schemes: Sequence[str],
    tenants: Sequence[str],
) -> go.Figure:
    """One panel per tenant; per scheme, one trace per (column, label, dash) of `lines`."""
    rows, cols = _plotly.grid(len(tenants))
    fig = _plotly.subplots(rows, cols, list(tenants))
    for i, tenant in enumerate(tenants):
        r, c = divmod(i, cols)
        for s, scheme in enumerate(schemes):
            part = frame.filter(scheme=scheme, tenant=tenant)
            for column, label, dash in lines:
                name = f"{scheme} {label}"
                fig.add_trace(
                    _plotly.line(
                        part.get_column("window_start_s"),
                        part.get_column(column),
                        name,
                        name,
                        scheme_style(s).color,
                        i == 0,
                        dash=dash,
                        hovertemplate=f"{_plotly.text(name)}<br>t = %{{x}} s<br>%{{y}}<extra></extra>",
                    ),
                    row=r + 1,
                    col=c + 1,
                )
        fig.update_yaxes(title_text=y_title, type=y_type, row=r + 1, col=c + 1)
    fig.update_xaxes(title_text="time (s)")
    return _plotly.finish(fig, title, rows)


_DEVICE_PANELS = (
    ("device_waf", "device WAF"),
    ("gc_pages_copied", "GC pages copied per window"),
    ("erases", "erases per window"),
)


def _device_figure(device: pl.DataFrame, schemes: Sequence[str], window_s: float) -> go.Figure:
    panels = [(c, t) for c, t in _DEVICE_PANELS if c in device.columns]
    fig = _plotly.subplots(len(panels), 1, [t for _, t in panels], shared_xaxes=True)
    for r, (column, y_title) in enumerate(panels, start=1):
        for s, scheme in enumerate(schemes):
            part = device.filter(scheme=scheme)
            fig.add_trace(
                _plotly.line(
                    part.get_column("window_start_s"),
                    part.get_column(column),
                    scheme,
                    scheme,
                    scheme_style(s).color,
                    r == 1,
                    dash=scheme_style(s).plotly_dash,
                    hovertemplate=f"{_plotly.text(scheme)}<br>t = %{{x}} s<br>%{{y}}<extra></extra>",
                ),
                row=r,
                col=1,
            )
        fig.update_yaxes(title_text=y_title, row=r, col=1)
    fig.update_xaxes(title_text="time (s)", row=len(panels), col=1)
    return _plotly.finish(fig, f"device: WAF and GC activity (windows of {window_s:g} s)", len(panels))


def _wear_section(report: Report, schemes: Sequence[str]) -> str:
    parts = ['<h2 id="wear">Wear</h2>']
    if report.wear is None or not report.wear.height:
        return "\n".join(parts + [_note("This run has no wear.parquet (written by an older ftlab).")])
    parts.append(
        _note(
            "Erase count per die (mean over its blocks; hover for min and max). "
            "Choose a scheme in the menu to see every block of every die."
        )
    )
    parts.append(_chart(_wear_figure(report, schemes), "fig-wear"))
    return "\n".join(parts)


def _wear_figure(report: Report, schemes: Sequence[str]) -> go.Figure:
    """Trace 0: schemes x dies (mean erase count); trace 1 + i: dies x blocks of scheme i.
    A dropdown shows one trace at a time."""
    import plotly.graph_objects as go

    per_die = figdata.wear_per_die(report)
    wearing = [s for s in schemes if per_die.filter(scheme=s).height]
    dies = sorted(set(per_die.get_column("die").to_list()))
    z, custom = [], []
    for scheme in wearing:
        rows = {d["die"]: d for d in per_die.filter(scheme=scheme).to_dicts()}
        z.append([rows[d]["erase_count_mean"] if d in rows else None for d in dies])
        custom.append(
            [
                [rows[d]["channel"], rows[d]["erase_count_min"], rows[d]["erase_count_max"]]
                if d in rows
                else [None] * 3
                for d in dies
            ]
        )
    fig = go.Figure()
    fig.add_trace(
        go.Heatmap(
            z=z,
            x=dies,
            y=[_plotly.text(s) for s in wearing],
            customdata=custom,
            colorscale=WEAR_COLORMAP,
            colorbar={"title": {"text": "erase count"}},
            name="per die",
            hovertemplate="%{y}<br>die %{x} (channel %{customdata[0]})<br>mean %{z}, min %{customdata[1]}, "
            "max %{customdata[2]}<extra></extra>",
        )
    )
    views = [("erase count per die (mean over its blocks)", "die", "scheme")]
    for scheme in wearing:
        m = figdata.wear_matrix(report, scheme)
        x = [j * m.blocks_per_column for j in range(m.z.shape[1])]
        what = "block" if m.blocks_per_column == 1 else f"blocks (mean of {m.blocks_per_column} per column)"
        fig.add_trace(
            go.Heatmap(
                z=m.z.tolist(),
                x=x,
                y=[f"die {d}" for d in m.dies],
                colorscale=WEAR_COLORMAP,
                visible=False,
                name=_plotly.text(scheme),
                colorbar={"title": {"text": "erase count"}},
                hovertemplate="%{y}, block %{x}<br>erase count %{z}<extra></extra>",
            )
        )
        views.append((f"{scheme}: erase count per block", what, "die"))
    _wear_menu(fig, views)
    return fig


def _wear_menu(fig: go.Figure, views: list[tuple[str, str, str]]) -> None:
    buttons = []
    for i, (title, x_title, y_title) in enumerate(views):
        visible = [j == i for j in range(len(views))]
        layout = {"title.text": _plotly.text(title), "xaxis.title.text": x_title, "yaxis.title.text": y_title}
        label = "per die, all schemes" if i == 0 else f"per block: {title.split(': erase')[0]}"
        buttons.append(
            {"label": _plotly.text(label), "method": "update", "args": [{"visible": visible}, layout]}
        )
    fig.update_layout(
        updatemenus=[
            {
                "buttons": buttons,
                "direction": "down",
                "x": 1.0,
                "xanchor": "right",
                "y": 1.12,
                "yanchor": "bottom",
            }
        ],
        title={"text": _plotly.text(views[0][0]), "x": 0.0, "xanchor": "left"},
        xaxis={"title": {"text": views[0][1]}},
        yaxis={"title": {"text": views[0][2]}, "autorange": "reversed"},
        template="plotly_white",
        height=560,
        margin={"l": 110, "r": 30, "t": 110, "b": 50},
        font={"family": "DejaVu Sans, Arial, sans-serif", "size": 12},
    )


def _series_section(view: figdata.SeriesView, schemes: Sequence[str], tenants: Sequence[str]) -> str:
    parts = ['<h2 id="series">Scheme-specific series</h2>']
    built = list(series.figures(view, schemes, tenants))
    if not built:
        return "\n".join(parts + [_note("No scheme in this run adds columns to the time series.")])
    for item in built:
        parts.append(f"<h3>{html.escape(item.heading)}</h3>")
        parts.append(_chart(item.figure, item.div_id))
    return "\n".join(parts)


def _scenario_section(report: Report) -> str:
    return (
        '<h2 id="scenario">Resolved scenario</h2>\n<pre '
        f'id="scenario-toml">{html.escape(report.resolved_toml)}</pre>'
    )
