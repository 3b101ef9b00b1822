"""ftlab.reproduce.part_ftl: the PaRT-FTL reproduction (Katherine Missimer and Richard West,
"Partitioned Real-Time NAND Flash Storage"; `../shared/papers/part-ftl-partitioned-real-time-flash.txt`),
run by `ftlab reproduce part-ftl`. Its claims, scenarios, runs, measures, health, Figures
10-16, claims.json's sections and the sensitivity case are data (`papers/part_ftl.toml`:
`[[reproduce.values]]` over the reads of `[reproduce] reads` and over the tables this module
supplies, `[[reproduce.read_tables]]`, `[reproduce] health = "schemes"` with its checks,
`[[reproduce.figures]]`, `[[reproduce.sections]]`, `[[reproduce.cases]]`), run by the driver
(`ftlab.reproduce.driver`). This module keeps what is the paper's own (`PartFtl`, registered
as `PAPER`): the analysis side (Table IV, Eq. 6-7 and Figures 5-7 by `ftlab._core`, and
Figures 5-7's margins over sizes), Figure 16's windows split at the first GC window, the
tables and documents it supplies and GC's copies beside Eq. 5 and 12; each says why no
declaration expresses it. It is not the driver, draws no figure by hand and runs nothing
itself.

It runs, on the simulated Cosmos OpenSSD board (the `cosmos` preset, reduced in capacity), the
Table III task set under `part-ftl` and `wao-gc` (`scenarios/reproduce/part-ftl(-quick).toml`,
measured from `warmup_s`, after both schemes' GC started) and Figure 16's two closed-loop
streams (`part-ftl-fig16(-quick).toml`); Table IV and Eq. 6-7 by `_core.rt_bounds` and
`_core.rt_admit` (docs/rt.md); Figures 5-7 by `_core.rt_schedulability` (500 sets per
utilisation, 50 with `quick`; seed 1 + the reproduction's seed, read share 0.5). The maximum
latencies are compared per request, a task's response time (the paper's Figure 14): the driver
inserts a request's pages together, so it is its slowest page's latency, Figure 15's reading.
With `sensitivity` the driver reruns the Table III run with every task released at 0 (the
paper gives no phases; the declared case "synchronous"). Files: claims.json, table4.csv, the
declared figures' PNG and CSV, and schedulability/fig5-7 .png/.csv; nothing is printed
(`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ftlab import _core
from ftlab.report import (
    html,  # noqa: F401  (before the runs' threads race to import it)
    rt_figures,
)
from ftlab.report.rt_figures import weighted_by_size
from ftlab.reproduce.claimfile import Measured
from ftlab.reproduce.claims import (
    Claim,
    Health,
    ratio,
    write_csv,
)
from ftlab.reproduce.driver import Case, Driven, PaperCode, Runs, claim_values, load_plan
from ftlab.reproduce.figures import Table, draw_all
from ftlab.reproduce.measures import Tables, table_values
from ftlab.reproduce.reads import ReadDecl, ReadTable, read_all, read_table, reduce
from ftlab.reproduce.run_checks import fmt_start, gc_starts, warmup_s
from ftlab.results import (
    RtAdmission,
    RtBounds,
    RtSchedulability,
    Summary,
    rt_admit_from_json,
    rt_bounds_from_json,
    rt_schedulability_from_json,
)

if TYPE_CHECKING:
    from ftlab.report import Report

# matplotlib, numpy, plotly and polars are imported inside the functions that use them, not here:
# heavy, and `ftlab --help` and `import ftlab` start without them.

NAME = "part-ftl"
#: The Table III scenario, full and quick, as the plan declares it (for scripts that rerun it).
SCENARIO, QUICK_SCENARIO = next((s.full, s.quick) for s in load_plan(NAME).scenarios if s.key == "table3")
PART, WAO = "part-ftl", "wao-gc"
#: Figures 5-7: task sets per utilisation (the paper's 500; quick 50, as `ftlab rt schedulability --quick`).
SETS, QUICK_SETS = 500, 50
RT_SEED, READ_SHARE = 1, 0.5
#: Figure 16's request: 24 pages of 8 KiB (papers/part_ftl.toml's Figure 16 reads' multiplier).
FIG16_REQUEST_BYTES = 24 * 8192
#: The read tasks' deadline (their period), ms.
READ_DEADLINE_MS = 15.0
#: Table III as an `ftlab rt admit` task file.
TABLE3_TASKS = "".join(
    ["[[tasks]]\nwrite_pages = 12\nwrite_period_ms = 60.0\n"] * 4
    + ["[[tasks]]\nread_pages = 3\nread_period_ms = 15.0\n"] * 4
)


@dataclass(frozen=True)
class Seen:
    """One seed's runs as the paper reads them: the Table III run, the Figure 16 run, each
    scheme's GC start, Figure 16's bandwidth and the analysis side."""

    report: Report
    fig16: Report
    starts: dict[str, float | None]
    bw: Fig16
    analysis: RtAnalysis


class PartFtl(PaperCode[Seen]):
    """PaRT-FTL's own code under the driver (`ftlab.reproduce.driver`): the runs are declared
    in papers/part_ftl.toml; the analysis side (Table IV, Figures 5-7) is computed here."""

    name = NAME
    stages = 2

    def read(self, runs: Runs, base: Seen | None) -> Seen:
        report, fig16 = runs.report("table3"), runs.report("fig16")
        if base is None:
            runs.stage("schedulability (Figures 5-7)")
            analysis = rt_analysis(QUICK_SETS if runs.quick else SETS, RT_SEED + runs.seed)
            runs.stage("claims and figures")
            bw = fig16_bandwidth(fig16)
        else:  # a sensitivity case reruns the Table III run only
            analysis, bw = base.analysis, base.bw
        return Seen(report, fig16, gc_starts(report), bw, analysis)

    def measurements(self, seen: Seen) -> dict[str, Measured]:
        """ftlab's value of every `measure` name: the declared values of the tables supplied."""
        return table_values(load_plan(NAME).table_values, supplied_tables(seen))

    def health(self, seen: Seen) -> Health:
        """The declared health (`[reproduce] health = "schemes"` and its checks)."""
        return load_plan(NAME).health.schemes_health({"table3": seen.report, "fig16": seen.fig16})

    def figures(self, seen: Seen, out: Path) -> list[Path]:
        """The declared figures (`[[reproduce.figures]]`): Figure 16 from `Fig16`'s rows,
        Figures 10-15 from the Table III run's tables, from its `warmup_s`; then `figures`."""
        report = seen.report
        tables: dict[str, Table] = {"timeseries": report.timeseries}
        if report.latency_cdf is not None:
            tables["latency_cdf"] = report.latency_cdf
        values = {"warmup_s": warmup_s(report)}
        declared = draw_all(load_plan(NAME).figures, seen.bw["rows"], out, tables, values)
        return [*declared, *figures(seen.analysis, out)]

    def supplied(self, seen: Seen) -> Mapping[str, object]:
        """The documents and blocks papers/part_ftl.toml's sections name (`supplied_blocks`)."""
        return supplied_blocks(seen)

    def main_report(self, seen: Seen) -> Report | None:
        return seen.report

    def extra(self, seen: Seen) -> dict[str, object]:
        return {"fig16": seen.fig16, "gc_start_s": seen.starts, "analysis": seen.analysis}

    def notes(self, seen: Seen) -> list[str]:
        return gc_notes(gc_equations(seen.report.summary))

    def sensitivity_detail(self, case: Case, seen: Seen, claims: Sequence[Claim]) -> dict[str, object]:
        return {
            "case": case.name,
            "gc_start_s": seen.starts,
            "tasks": tasks(seen.report.summary),
            "claims": claim_values(claims),
        }


#: What `ftlab reproduce part-ftl` runs (the registry finds it by this name).
PAPER = Driven(PartFtl())


# --------------------------------------------------------------------------------------
# Reading the runs


def tasks(summary: Summary) -> ReadTable:
    """The read table "tasks" of papers/part_ftl.toml (`reads.read_table`) on a Table III run's
    summary.json: per scheme and op, its tasks' statistics. Its own: sensitivity.json's record
    of a case (`sensitivity_detail`) and scripts/part_ftl_buffer_sweep.py read it by hand."""
    decl = next(t for t in load_plan(NAME).read_tables if t.name == "tasks")
    return read_table(decl, {"table3": summary})


class Fig16Row(TypedDict):
    """One window of Figure 16 (fig16-bandwidth.csv)."""

    window_start_s: float
    write_mb_s: float
    gc_pages_copied: float
    erases: float


class Fig16(TypedDict):
    """Figure 16's bandwidth (`fig16_bandwidth`)."""

    gc_start_s: float | None
    before_mean_mb_s: float
    after_mean_mb_s: float
    after_min_mb_s: float
    n_before: int
    n_after: int
    rows: list[Fig16Row]


def fig16_bandwidth(report: Report) -> Fig16:
    """Figure 16: both streams' write bandwidth per window (MB/s, 10^6 B), the first window with
    GC (`gc_start_s`), the mean before it and, from the window after it, the mean and the lowest
    window (`rows`: window_start_s, write_mb_s, gc_pages_copied). Its own: windows summed over
    both streams and split at the first GC window, which no declared read or window measure
    expresses (`series_measures` places windows around a named time, not at GC's start)."""
    import polars as pl

    frame = (
        report.timeseries.filter(pl.col("scheme") == WAO)
        .group_by("window_start_s")
        .agg(pl.col("write_iops").sum(), pl.col("gc_pages_copied").sum(), pl.col("erases").sum())
        .sort("window_start_s")
    )
    rows = [
        Fig16Row(window_start_s=w, write_mb_s=iops * FIG16_REQUEST_BYTES / 1e6, gc_pages_copied=gc, erases=er)
        for w, iops, gc, er in frame.select(
            "window_start_s", "write_iops", "gc_pages_copied", "erases"
        ).rows()
    ]
    start = next((r["window_start_s"] for r in rows if r["gc_pages_copied"] > 0 or r["erases"] > 0), None)
    before = [r["write_mb_s"] for r in rows if start is None or r["window_start_s"] < start]
    after = [r["write_mb_s"] for r in rows if start is not None and r["window_start_s"] > start]
    return Fig16(
        gc_start_s=start,
        before_mean_mb_s=reduce(before, "mean"),
        after_mean_mb_s=reduce(after, "mean"),
        after_min_mb_s=reduce(after, "min"),
        n_before=len(before),
        n_after=len(after),
        rows=rows,
    )


class RtAnalysis(TypedDict):
    """The analysis side of the reproduction (`rt_analysis`)."""

    bounds: RtBounds
    admit_paper: RtAdmission
    schedulability: RtSchedulability
    n_sets: int
    rt_seed: int
    read_share: float


def rt_analysis(n_sets: int, rt_seed: int = RT_SEED) -> RtAnalysis:
    """The analysis side: Table IV (`_core.rt_bounds`), Table III's Eq. 6-7 with the paper's
    configuration (`_core.rt_admit`) and Figures 5-7 (`_core.rt_schedulability`, its task sets
    drawn with `rt_seed`: each reproduction seed draws its own, so that Figures 5-7's orders
    have a spread over seeds). Its own: the paper's analysis, no run."""
    return {
        "bounds": rt_bounds_from_json(_core.rt_bounds()),
        "admit_paper": rt_admit_from_json(_core.rt_admit(TABLE3_TASKS, "Table III", "part-ftl")),
        "schedulability": rt_schedulability_from_json(_core.rt_schedulability(n_sets, rt_seed, READ_SHARE)),
        "n_sets": n_sets,
        "rt_seed": rt_seed,
        "read_share": READ_SHARE,
    }


def table4_rows(bounds: RtBounds) -> list[dict[str, object]]:
    """Table IV's bandwidths (and the latency bounds) as rows: quantity, equation, pages/s,
    MB/s (10^6 B), MiB/s (2^20 B), the paper's value. Its own: the rows of `_core.rt_bounds`,
    the analysis' output, not a run's summary that a declaration reads."""
    rows: list[dict[str, object]] = [dict(b) for b in bounds["bandwidths"]]
    rows += [
        {"quantity": lat["quantity"], "equation": lat["equation"], "ms": lat["ms"], "paper": lat["paper"]}
        for lat in bounds["latencies"]
    ]
    return rows


# --------------------------------------------------------------------------------------
# Claims


def table3_measurements(
    summary: Summary, starts: Mapping[str, float | None], warmup: float, analysis: RtAnalysis
) -> dict[str, Measured]:
    """The declared Table III values (papers/part_ftl.toml's values of table "table3"):
    latency factors, misses, admission totals and part-ftl's read blocking counters. Its own:
    scripts/part_ftl_buffer_sweep.py judges Table III with it on runs the driver does not run."""
    decls = [d for d in load_plan(NAME).table_values if d.table == "table3"]
    return table_values(decls, {"table3": [table3_row(summary, starts, warmup, analysis)]})


def table3_row(
    summary: Summary, starts: Mapping[str, float | None], warmup: float, analysis: RtAnalysis
) -> dict[str, object]:
    """The "table3" table's one row, which papers/part_ftl.toml's Table III values read: its
    declared reads (`[reproduce] reads`) of the Table III run's summary.json and of Eq. 6-7's
    totals with the paper's parameters (the "admission" document, `ftlab rt admit`'s tests as
    eq6_total, eq7_total: `admission`), and `gc`, the measured phase's start and the GC starts
    as text. `gc` is composed here: a GC start that never came prints "never", which no
    template expresses."""
    docs = {"table3": summary, "admission": admission(analysis)}
    row: dict[str, object] = dict(read_all(reads_of(docs), docs))
    row["gc"] = (
        f"measured from {warmup:g} s, GC started at {fmt_start(starts.get(PART))} (part-ftl) and "
        f"{fmt_start(starts.get(WAO))} (wao-gc)"
    )
    return row


def reads_of(docs: Mapping[str, object]) -> list[ReadDecl]:
    """The declared reads (`[reproduce] reads`) of the documents `docs` names. Its own: each of
    the one-row tables it supplies reads its own documents (the reads name no table)."""
    return [d for d in load_plan(NAME).reads if d.source in docs]


def admission(analysis: RtAnalysis) -> dict[str, float]:
    """The "admission" document: Eq. 6-7's totals for Table III with the paper's parameters
    (`ftlab rt admit`'s tests as eq6_total, eq7_total). Its own: the analysis' records by
    equation, keyed as the declared reads and blocks read them."""
    return {f"eq{t['equation'].split()[-1]}_total": t["total"] for t in analysis["admit_paper"]["tests"]}


def supplied_tables(seen: Seen) -> Tables:
    """The tables papers/part_ftl.toml's values read, one row each: "table3" (`table3_row`),
    "table4" (`table4_rows`, a row per quantity), "fig16" (`fig16_row`) and "schedulability"
    (`schedulability_row`). Its own: each row holds values only this module computes (the
    analysis, Figure 16's split, the GC starts as text) beside the declared reads."""
    warm = warmup_s(seen.report)
    return {
        "table3": [table3_row(seen.report.summary, seen.starts, warm, seen.analysis)],
        "table4": table4_rows(seen.analysis["bounds"]),
        "fig16": [fig16_row(seen.bw, seen.fig16.summary)],
        "schedulability": [schedulability_row(seen.analysis)],
    }


def fig16_row(bw: Fig16, summary: Summary) -> dict[str, object]:
    """Figure 16's one row of named values, which the declared Figure 16 values read:
    `fig16_bandwidth` without its windows, the GC start as text (`gc_start`: "never" if GC
    never came, which no template expresses) and the declared reads of the Figure 16 run's
    summary.json (source "fig16": each scheme's mean write bandwidth)."""
    row: dict[str, object] = {k: v for k, v in bw.items() if k != "rows"}
    row["gc_start"] = fmt_start(bw["gc_start_s"])
    docs = {"fig16": summary}
    row |= read_all(reads_of(docs), docs)
    return row


#: Figure 5's schemes by their column key in `schedulability_row` (fig5_<key>).
FIG5_SCHEMES = {"part": PART, "rtgc": "rtgc", "wao75": "wao-gc-75", "wao50": "wao-gc-50"}


def schedulability_row(analysis: RtAnalysis) -> dict[str, object]:
    """The "schedulability" table's one row, which papers/part_ftl.toml's Figures 5-7 values
    read: the margins of the paper's orderings, oriented so that positive means the paper's
    order holds, the share of write sizes where PaRT-FTL is below RTGC, and the values and
    sizes their sentences name. The margins are the paper's own reading of `ftlab rt
    schedulability`'s curves (a minimum over sizes against the best or worst other scheme),
    which no declared value expresses."""
    result = analysis["schedulability"]
    f5 = {w["scheme"]: float(w["weighted"]) for w in result["weighted"] if w["figure"] == 5}
    f6, f7 = ({s: dict(v) for s, v in weighted_by_size(result, n).items()} for n in (6, 7))
    big = [w for w in f7[PART] if w > 10]
    worst6 = min(f6[PART], key=lambda r: f6[PART][r] - f6["rtgc"][r])
    below = sum(f7[PART][w] < f7["rtgc"][w] for w in f7[PART])
    return {
        "fig5_margin": min(f5[PART] - f5[o] for o in ("rtgc", "wao-gc-75", "wao-gc-50")),
        "fig6_rtgc_margin": min(v - f6["rtgc"][r] for r, v in f6[PART].items()),
        "fig6_wao_margin": min(v - max(f6["wao-gc-75"][r], f6["wao-gc-50"][r]) for r, v in f6[PART].items()),
        "fig7_wao50_margin": min(f7["wao-gc-50"][w] - f7[PART][w] for w in big),
        "below_rtgc": below,
        "n_write_sizes": len(f7[PART]),
        "fig7_rtgc_share": below / len(f7[PART]),
        **{f"fig5_{key}": f5[s] for key, s in FIG5_SCHEMES.items()},
        "r_min": min(f6[PART]),
        "r_max": max(f6[PART]),
        "worst_r": worst6,
        "part_at_worst_r": f6[PART][worst6],
        "rtgc_at_worst_r": f6["rtgc"][worst6],
        "big_w": ", ".join(str(w) for w in big),
        "setup": (
            f"{analysis['n_sets']} sets per utilisation, seed {analysis['rt_seed']}, "
            f"read share {analysis['read_share']}"
        ),
    }


def _f(value: object) -> str:
    """A GC note's number (`gc_notes`): three decimals, or "n/a"."""
    return "n/a" if not isinstance(value, (int, float)) else f"{value:.3f}"


# --------------------------------------------------------------------------------------
# Health


#: GC's measured copies beside what the paper's equations charge (issue 39 item 2): per scheme,
#: (its counter of copies per reclaimed page, the equation's charge, the equation's name).
GC_EQUATIONS = {
    PART: ("gc_copies_per_reclaimed_page", "eq5_copies_per_reclaimed_page", "Eq. 5"),
    WAO: ("gc_copies_per_reclaimed_page", "eq12_copies_per_reclaimed_page", "Eq. 12"),
}


def gc_equations(summary: Summary) -> dict[str, dict[str, float | None]]:
    """Per scheme of the Table III run: GC copies per reclaimed page as measured, the charge of
    its equation at the run's measured utilisation (`lambda_measured`), and their ratio (a check
    of the model against the paper's analysis, not a claim: Eq. 5 and Eq. 12 are bounds;
    §III-B: to reclaim k·α pages, "(k + m)·⌈λ·P⌉ pages need to be copied"). The schemes
    compute the charges (scheme_counters); this stays here as a claims.json section and a
    terminal note of the paper's own, no claim's measure."""
    out: dict[str, dict[str, float | None]] = {}
    for scheme, (measured_key, charge_key, _) in GC_EQUATIONS.items():
        if scheme not in summary["schemes"]:
            continue
        c = summary["schemes"][scheme].get("scheme_counters") or {}
        measured, charge = c.get(measured_key), c.get(charge_key)
        out[scheme] = {
            "copies_per_reclaimed_page": measured,
            "charge_per_reclaimed_page": charge,
            "lambda_measured": c.get("lambda_measured"),
            "measured_over_charge": ratio(measured, charge),
        }
    return out


def gc_notes(checks: Mapping[str, Mapping[str, float | None]]) -> list[str]:
    """One line per scheme for the terminal: measured GC copies beside the equation's charge
    (`gc_equations`, the paper's own check)."""
    lines = []
    for scheme, g in checks.items():
        name = GC_EQUATIONS[scheme][2]
        lines.append(
            f"{scheme}: GC copies {_f(g['copies_per_reclaimed_page'])} per reclaimed page; {name} "
            f"charges {_f(g['charge_per_reclaimed_page'])} at the measured λ {_f(g['lambda_measured'])}"
        )
    return lines


# --------------------------------------------------------------------------------------
# Files and figures


def supplied_blocks(seen: Seen) -> dict[str, object]:
    """What papers/part_ftl.toml's claims.json sections name (`[[reproduce.sections]]`, which
    read the runs' summaries themselves): the "admission" and "analysis" documents their
    blocks read, Figure 16's bandwidth and GC against the equations. Its own: the analysis'
    output and the paper's figure and equations, no run's summary."""
    return {
        "admission": admission(seen.analysis),
        "analysis": seen.analysis,
        "fig16_bandwidth": seen.bw,
        "gc_equations": gc_equations(seen.report.summary),
    }


def figures(analysis: RtAnalysis, out: Path) -> list[Path]:
    """table4.csv and schedulability/fig5-7 (`ftlab rt schedulability`'s own figures); the
    paths written. Figures 10-16 are declared (`[[reproduce.figures]]` of papers/part_ftl.toml,
    drawn by `PartFtl.figures`). Table IV stays a CSV of the analysis' rows: its rows are
    bandwidths and bounds of `_core.rt_bounds`, not named values per scheme."""
    out.mkdir(parents=True, exist_ok=True)
    files = [
        write_csv(
            out / "table4.csv",
            table4_rows(analysis["bounds"]),
            ["quantity", "equation", "pages_per_s", "mb_per_s", "mib_per_s", "ms", "paper"],
        )
    ]
    return files + rt_figures.write(analysis["schedulability"], out / "schedulability")
