"""ftlab.reproduce.upi: the UPI reproduction ("utilitarian performance isolation" for shared
SSDs, §5; the paper copy carries no title line, author line or venue), run by `ftlab reproduce upi`.

It runs `scenarios/reproduce/upi.toml` (or, quick, `scenarios/reproduce/upi-quick.toml`) with
the schemes `partitioned`, `unified`, `upi` and `upi-guarded` and the tenants `das-as`, `dtrs`
and `lm-tbe`. The claims are data: `papers/upi.toml` (each with the paper's words, its kind
and the name of the computation, `measure`, that gives ftlab's value); this module computes
those values from summary.json and the time series (all on the whole measured phase): read
latency ratios between schemes, and the growth of LM-TBE's allocation set after its write
rise (`rise_s`: the latest `start_s` of LM-TBE's synthetic parts).

It writes the figures of the paper (PNG, each with the CSV data behind it): fig3-bars (mean
and p99 read latency per tenant and scheme), fig4-read-cdf (read-latency CDFs) and fig5-window
(5 s windows of mean read latency over the 600 s around the rise, and UPI's allocation sets).
With `sensitivity`, it reruns the scenario on Ray (`ftlab.sweep`) varying one knob at a time
(`sensitivity_cases`) and reports each claim's range and the cases that reverse it.

Only ratios and means of the simulator's outputs are computed here; it is not the simulator,
and it prints nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlab.reproduce import Progress, claimfile, parse_toml, scenario_file, seed_overrides
from ftlab.reproduce.claimfile import Measured, SeedResult, evaluate
from ftlab.reproduce.claims import (
    CLAIMS_FILE,
    PHASES_FILE,
    Claim,
    ReproductionResult,
    fmt_change,
    fmt_number,
    health,
    phase_table,
    ratio,
    relative_change,
    sensitivity_summary,
    write_claims_json,
    write_csv,
    write_json,
)

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.axes import Axes

    from ftlab.report import Report

NAME = "upi"
SCENARIO = "reproduce/upi.toml"
QUICK_SCENARIO = "reproduce/upi-quick.toml"
TENANTS = ("das-as", "dtrs", "lm-tbe")
SCHEMES = ("partitioned", "unified", "upi", "upi-guarded")
#: The schemes that stand for the paper's UPI: each UPI claim is made for both.
UPI_VARIANTS = ("upi", "upi-guarded")
#: The tenant whose write bandwidth rises (Fig. 5).
RISE_TENANT = "lm-tbe"
#: Half the window of Figure 5 (and of claim 6) around the rise, in seconds.
AROUND_RISE_S = 300.0
SENSITIVITY_FILE = "sensitivity.json"
SENSITIVITY_CSV = "sensitivity.csv"


def reproduce(
    *, quick: bool, out: Path, jobs: int | None, sensitivity: bool, progress: Progress | None = None, scenario: Path | None = None,
    seed: int = 0,
) -> ReproductionResult:
    """Run the UPI reproduction into `out` (see the module docstring); `scenario` replaces
    the reproduction's own (for development); `seed` is added to the scenario's seed. Returns
    the claims, health and files (`extra["seed_result"]`: the measurements and health)."""
    import ftlab

    start = time.perf_counter()
    path = Path(scenario) if scenario is not None else scenario_path(quick)
    label = f"simulating {path.name}"
    on_progress = (lambda d, t: progress(label, d, t)) if progress else None
    report = ftlab.run(path, out=out / "run", set=seed_overrides(path, seed), jobs=jobs, progress=on_progress)
    rise = rise_s(report.resolved_toml)
    checks, phases = health(report.summary), phase_table(report.summary, TENANTS)
    result = SeedResult(seed, measurements(report.summary, report.timeseries, rise), checks)
    claims = evaluate(claimfile.load(NAME), [result])
    files = [*figures(report, rise, out), write_csv(out / PHASES_FILE, phases, _phase_columns(phases))]
    wall_s = time.perf_counter() - start
    files.append(_write_claims(out, claims, path, quick, wall_s, rise, checks, phases))
    sens = None
    if sensitivity:
        sens = run_sensitivity(path, report.resolved_toml, out, quick, progress)
        files += [out / SENSITIVITY_FILE, out / SENSITIVITY_CSV]
    return ReproductionResult(
        NAME, out, path, quick, claims, checks, phases, files, time.perf_counter() - start, report, sens, {"rise_s": rise, "seed_result": result}
    )


def scenario_path(quick: bool) -> Path:
    """The reproduction's scenario: scenarios/reproduce/upi(-quick).toml of the checkout."""
    what = "the quick UPI reproduction's scenario" if quick else "the UPI reproduction's scenario"
    return scenario_file(QUICK_SCENARIO if quick else SCENARIO, what)


def _write_claims(out: Path, claims: list[Claim], path: Path, quick: bool, wall_s: float, rise: float, checks: Any, phases: Any) -> Path:
    from ftlab import _core

    return write_claims_json(
        out / CLAIMS_FILE,
        claims,
        reproduction=NAME,
        paper=claimfile.load(NAME).citation,
        scenario=str(path),
        quick=quick,
        ftlab_version=_core.version(),
        run_dir=str(out / "run"),
        rise_s=rise,
        health=checks,
        phases=phases,
    )


def rise_s(resolved_toml: str) -> float:
    """When LM-TBE's write bandwidth rises: the latest `start_s` of its synthetic parts in
    the (resolved) scenario; 0 if it has none. An `ftlab.InputError` if it has no LM-TBE."""
    parts = _parts(parse_toml(resolved_toml), RISE_TENANT)
    return max((float(p.get("start_s", 0.0)) for p in parts), default=0.0)


def _tenant(scenario: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    from ftlab._errors import input_error

    for t in scenario.get("tenants") or []:
        if t.get("name") == name:
            return t  # type: ignore[no-any-return]
    raise input_error("scenario.resolved.toml", f"no tenant named {name!r}; the UPI reproduction needs {', '.join(TENANTS)}")


def _parts(scenario: Mapping[str, Any], tenant: str) -> list[Mapping[str, Any]]:
    synthetic = _tenant(scenario, tenant).get("synthetic") or []
    return list(synthetic) if isinstance(synthetic, list) else [synthetic]


# --------------------------------------------------------------------------------------
# Claims: the claim file papers/upi.toml, each claim's value computed by its `measure` name


def upi_claims(summary: Mapping[str, Any], timeseries: pl.DataFrame | None, rise: float, checks: Mapping[str, Any] | None = None) -> list[Claim]:
    """Every claim of papers/upi.toml judged on one run (one seed): a parsed summary.json, the
    time series (for the allocation sets) and the rise; `checks` the health (default:
    `health(summary)`). A missing value is NaN and its claim `differs` or is `violated`."""
    result = SeedResult(0, measurements(summary, timeseries, rise), checks if checks is not None else health(summary))
    return evaluate(claimfile.load(NAME), [result])


def measurements(summary: Mapping[str, Any], timeseries: pl.DataFrame | None, rise: float) -> dict[str, Measured]:
    """ftlab's value of every `measure` name of papers/upi.toml (see `measure`)."""
    names = dict.fromkeys(s.measure for s in claimfile.load(NAME).claims if s.measure)
    return {name: measure(name, summary, timeseries, rise) for name in names}


def measure(name: str, summary: Mapping[str, Any], timeseries: pl.DataFrame | None, rise: float) -> Measured:
    """One computation by name: "<metric>:<tenant>:<a>/<b>" is a/b of the tenant's read
    <metric> (mean_us, p99_us) under schemes a and b; "margin:<metric>:<tenant>:<a>/<b>" is
    a/b − 1; "set_growth:<scheme>" the growth of LM-TBE's allocation set after the rise. An
    unknown name is an `ftlab.UsageError`."""
    from ftlab._errors import usage_error

    kind, _, rest = name.partition(":")
    if kind == "set_growth":
        return set_growth(timeseries, rest, rise)
    margin = kind == "margin"
    parts = (rest if margin else name).split(":")
    if len(parts) != 3 or parts[2].count("/") != 1 or parts[0] not in ("mean_us", "p99_us"):
        raise usage_error("measure", f"unknown UPI computation {name!r}")
    metric, tenant, pair = parts
    a, b = pair.split("/")
    va, vb = read_metric(summary, a, tenant, metric), read_metric(summary, b, tenant, metric)
    factor = ratio(va, vb)
    value = factor - 1.0 if margin else factor
    why = f"{a}'s {tenant} read {metric.removesuffix('_us')} is {fmt_number(va, 'µs')} against {b}'s {fmt_number(vb, 'µs')}: {factor:.3f}x ({fmt_change(factor - 1)})."
    if math.isnan(factor):
        why += " (A value is missing from summary.json or zero.)"
    return Measured(value, why)


def read_metric(summary: Mapping[str, Any], scheme: str, tenant: str, metric: str) -> float | None:
    """`schemes.<scheme>.tenants.<tenant>.read.<metric>` of a parsed summary.json, or None."""
    try:
        value = summary["schemes"][scheme]["tenants"][tenant]["read"][metric]
    except (KeyError, TypeError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def set_growth(timeseries: pl.DataFrame | None, scheme: str, rise: float) -> Measured:
    """The growth of `scheme`'s LM-TBE mean allocation-set size (`alloc_set_dies`) from the
    AROUND_RISE_S before the rise to the AROUND_RISE_S after it: after / before − 1."""
    before, after = set_size_means(timeseries, scheme, RISE_TENANT, rise)
    change = relative_change(after, before)
    w = f"{AROUND_RISE_S:.0f} s"
    why = (
        f"{scheme}'s LM-TBE allocation set averages {fmt_number(before, 'dies', 2)} in the {w} before the rise at {rise:,.0f} s "
        f"and {fmt_number(after, 'dies', 2)} in the {w} after: {fmt_change(change)}."
    )
    return Measured(change, why)


def set_size_means(timeseries: pl.DataFrame | None, scheme: str, tenant: str, rise: float) -> tuple[float | None, float | None]:
    """Mean `alloc_set_dies` of (scheme, tenant) over the windows starting in
    [rise − AROUND_RISE_S, rise) and in [rise, rise + AROUND_RISE_S); None where there is none."""
    import polars as pl

    if timeseries is None or "alloc_set_dies" not in timeseries.columns:
        return None, None
    rows = timeseries.filter((pl.col("scheme") == scheme) & (pl.col("tenant") == tenant)).select("window_start_s", "alloc_set_dies")
    rows = rows.filter(pl.col("alloc_set_dies").is_not_null() & pl.col("alloc_set_dies").is_not_nan())

    def mean(lo: float, hi: float) -> float | None:
        part = rows.filter((pl.col("window_start_s") >= lo) & (pl.col("window_start_s") < hi))["alloc_set_dies"]
        return float(part.mean()) if part.len() else None  # type: ignore[arg-type]

    return mean(rise - AROUND_RISE_S, rise), mean(rise, rise + AROUND_RISE_S)


def _phase_columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(["tenant", "scheme", *(k for r in rows for k in r)]))


# --------------------------------------------------------------------------------------
# Figures


def figures(report: Report, rise: float, out: Path) -> list[Path]:
    """Figures 3, 4 and 5 of the paper as PNG, each with its CSV data; the paths written."""
    import ftlab

    out.mkdir(parents=True, exist_ok=True)
    files = figure3(report.summary, out)
    files.append(ftlab.plot(report, "cdf", out / "fig4-read-cdf.png", ops=["read"]))
    if report.latency_cdf is not None:
        import polars as pl

        files.append(_frame_csv(report.latency_cdf.filter(pl.col("op") == "read"), out / "fig4-read-cdf.csv"))
    files += figure5(report.timeseries, rise, out)
    return files


def _frame_csv(frame: pl.DataFrame, path: Path) -> Path:
    from ftlab.report import write_files_atomically

    write_files_atomically(path.parent, {path.name: lambda p: frame.write_csv(p)})
    return path


def _schemes(summary: Mapping[str, Any]) -> list[str]:
    present = list(summary.get("schemes") or {})
    return [s for s in SCHEMES if s in present] + [s for s in present if s not in SCHEMES]


def figure3(summary: Mapping[str, Any], out: Path) -> list[Path]:
    """Figure 3: grouped bars of (a) mean and (b) p99 read latency per tenant, one bar per
    scheme, log y; fig3-bars.png and fig3-bars.csv."""
    import matplotlib
    from matplotlib.figure import Figure

    from ftlab.report.plots import _RC, save

    schemes = _schemes(summary)
    rows = [
        {"scheme": s, "tenant": t, "read_mean_us": read_metric(summary, s, t, "mean_us"), "read_p99_us": read_metric(summary, s, t, "p99_us")}
        for s in schemes
        for t in TENANTS
    ]
    csv_path = write_csv(out / "fig3-bars.csv", rows)
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(7.0, 2.8), layout="constrained")
        axes = fig.subplots(1, 2)
        for ax, (metric, title) in zip(axes, (("read_mean_us", "(a) mean read latency"), ("read_p99_us", "(b) p99 read latency"))):
            _bars(ax, rows, schemes, metric)
            ax.set_title(title)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncols=len(schemes), frameon=False)
    png = out / "fig3-bars.png"
    save(fig, png, "png")
    return [png, csv_path]


_HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++")


def _bars(ax: Axes, rows: Sequence[Mapping[str, Any]], schemes: Sequence[str], metric: str) -> None:
    from ftlab.report.style import scheme_style

    width = 0.8 / max(len(schemes), 1)
    for i, scheme in enumerate(schemes):
        values = [next((r[metric] for r in rows if r["scheme"] == scheme and r["tenant"] == t), None) for t in TENANTS]
        x = [k + (i - (len(schemes) - 1) / 2) * width for k in range(len(TENANTS))]
        heights = [math.nan if v is None else v for v in values]
        ax.bar(x, heights, width, label=scheme, color=scheme_style(i).color, edgecolor="black", linewidth=0.5, hatch=_HATCHES[i % len(_HATCHES)])
    from ftlab.report.plots import _log_ticks

    ax.set_xticks(range(len(TENANTS)), list(TENANTS))
    ax.set_yscale("log")
    _log_ticks(ax.yaxis, ax.get_ylim())
    ax.set_ylabel("latency (µs)")
    ax.grid(True, axis="y", which="major", linewidth=0.4, alpha=0.5)


#: Figure 5's latency panels, then its allocation-set panels.
FIG5_LATENCY_SCHEMES = ("partitioned", "upi", "upi-guarded")
FIG5_COLUMNS = ("scheme", "tenant", "window_start_s", "read_mean_us", "read_p99_us", "read_iops", "write_iops", "alloc_set_dies")


def figure5(timeseries: pl.DataFrame, rise: float, out: Path) -> list[Path]:
    """Figure 5: 5 s windows of mean read latency per tenant over [rise − 300 s, rise +
    300 s) for partitioned, upi and upi-guarded, then upi's and upi-guarded's allocation-set
    sizes; fig5-window.png and fig5-window.csv."""
    import matplotlib
    import polars as pl
    from matplotlib.figure import Figure

    from ftlab.report.plots import _RC, save

    window = timeseries.filter((pl.col("window_start_s") >= rise - AROUND_RISE_S) & (pl.col("window_start_s") < rise + AROUND_RISE_S))
    window = window.select([c for c in FIG5_COLUMNS if c in window.columns]).sort("scheme", "tenant", "window_start_s")
    csv_path = _frame_csv(window, out / "fig5-window.csv")
    present = set(window["scheme"].unique().to_list())
    latency = [s for s in FIG5_LATENCY_SCHEMES if s in present]
    sets = [s for s in UPI_VARIANTS if s in present and "alloc_set_dies" in window.columns]
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.5, 1.7 * max(len(latency) + len(sets), 1) + 0.4), layout="constrained")
        axes = fig.subplots(max(len(latency) + len(sets), 1), 1, sharex=True, squeeze=False)[:, 0]
        for ax, scheme in zip(axes, latency):
            _tenant_lines(ax, window, scheme, "read_mean_us", f"{scheme}\nmean read (µs)", log=True)
        for ax, scheme in zip(axes[len(latency):], sets):
            _tenant_lines(ax, window, scheme, "alloc_set_dies", f"{scheme}\nallocation set (dies)", log=False)
        for ax in axes:
            ax.axvline(rise, color="0.5", linewidth=0.8)
        axes[0].legend(loc="upper left", ncols=len(TENANTS), frameon=False)
        axes[-1].set_xlabel("simulated time (s); vertical line: LM-TBE's write rise")
    png = out / "fig5-window.png"
    save(fig, png, "png")
    return [png, csv_path]


def _tenant_lines(ax: Axes, window: pl.DataFrame, scheme: str, column: str, label: str, log: bool) -> None:
    from ftlab.report.style import scheme_style

    for i, tenant in enumerate(TENANTS):
        rows = window.filter(scheme=scheme, tenant=tenant)
        style = scheme_style(i)
        x, y = rows["window_start_s"].to_list(), rows[column].to_list()
        if log:
            ax.plot(x, y, color=style.color, linestyle=style.mpl_linestyle, marker=style.mpl_marker, markersize=2.5, label=tenant)
        else:
            ax.step(x, y, where="post", color=style.color, linestyle=style.mpl_linestyle, label=tenant)
    if log:
        from ftlab.report.plots import _log_ticks

        ax.set_yscale("log")
        _log_ticks(ax.yaxis, ax.get_ylim())
    ax.set_ylabel(label)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.5)


# --------------------------------------------------------------------------------------
# Sensitivity

#: The one-at-a-time variations (values, or factors of the scenario's value) of
#: `sensitivity_cases`. Erase time: 0.3x to 2x of the scenario's (1.5 to 10 ms on the full
#: device, the span of MLC datasheets); the guard of `upi-guarded` at 0.4 and 0.7 around its
#: default 0.5.
ERASE_FACTORS = (0.3, 0.6, 2.0)
DONOR_TRAFFIC_MAX = (0.4, 0.7)
DAS_AS_FOOTPRINT = (0.25, 0.5)
DAS_AS_ZIPF_THETA = (0.6, 0.99)
RISE_FACTORS = (0.5, 1.5)
EPOCH_S = (2.0, 30.0)
RELOCATION_WEIGHT = (0.0, 4.0)


def sensitivity_cases(resolved_toml: str) -> list[dict[str, Any]]:
    """The sweep cases (`name`, `set`) of the sensitivity study of a resolved scenario: the
    base scenario as it is, then one knob at a time: `device.timing.erase_us` (ERASE_FACTORS
    times the scenario's); `upi-guarded`'s `donor_traffic_max` (DONOR_TRAFFIC_MAX);
    DAS-AS's first synthetic part's `footprint_fraction` (DAS_AS_FOOTPRINT) and, if its
    pattern is zipf, `zipf_theta` (DAS_AS_ZIPF_THETA); LM-TBE's rise size, the `rate_iops` of
    its part with the latest `start_s`, times RISE_FACTORS; and `epoch_s` (EPOCH_S) and
    `relocation_weight` (RELOCATION_WEIGHT) of every UPI variant the scenario runs, set
    together. A knob the scenario lacks (no synthetic part, no zipf) is left out."""
    scenario = parse_toml(resolved_toml)
    cases: list[dict[str, Any]] = [{"name": "base", "set": {}}]
    erase_us = float(scenario["device"]["timing"]["erase_us"])
    cases += [{"name": f"erase_us={f * erase_us:g}", "set": {"device.timing.erase_us": f * erase_us}} for f in ERASE_FACTORS]
    das = _part_path(scenario, "das-as", 0)
    if das is not None:
        cases += [{"name": f"das-as footprint_fraction={v:g}", "set": {f"{das}.footprint_fraction": v}} for v in DAS_AS_FOOTPRINT]
        if _parts(scenario, "das-as")[0].get("pattern") == "zipf":
            cases += [{"name": f"das-as zipf_theta={v:g}", "set": {f"{das}.zipf_theta": v}} for v in DAS_AS_ZIPF_THETA]
    cases += _rise_cases(scenario)
    variants = [s for s in UPI_VARIANTS if s in (scenario.get("schemes") or [])]
    if "upi-guarded" in variants:
        cases += [{"name": f"donor_traffic_max={v:g}", "set": {"scheme.upi-guarded.donor_traffic_max": v}} for v in DONOR_TRAFFIC_MAX]
    for key, values in (("epoch_s", EPOCH_S), ("relocation_weight", RELOCATION_WEIGHT)):
        if variants:
            cases += [{"name": f"{key}={v:g}", "set": {f"scheme.{s}.{key}": v for s in variants}} for v in values]
    return cases


def _part_path(scenario: Mapping[str, Any], tenant: str, index: int) -> str | None:
    """The `--set` path of a tenant's synthetic part (`tenants.NAME.synthetic.I`, or without
    the index when `synthetic` is one table), or None if it has no such part."""
    synthetic = _tenant(scenario, tenant).get("synthetic")
    if isinstance(synthetic, list):
        return f"tenants.{tenant}.synthetic.{index}" if 0 <= index < len(synthetic) else None
    return f"tenants.{tenant}.synthetic" if isinstance(synthetic, Mapping) and index == 0 else None


def _rise_cases(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    parts = _parts(scenario, RISE_TENANT)
    if not parts:
        return []
    index = max(range(len(parts)), key=lambda i: (float(parts[i].get("start_s", 0.0)), i))
    rate = parts[index].get("rate_iops")
    path = _part_path(scenario, RISE_TENANT, index)
    if not isinstance(rate, (int, float)) or path is None:
        return []
    return [{"name": f"lm-tbe rise x{f:g}", "set": {f"{path}.rate_iops": float(rate) * f}} for f in RISE_FACTORS]


def run_sensitivity(scenario: Path, resolved_toml: str, out: Path, quick: bool, progress: Progress | None) -> list[dict[str, Any]]:
    """Run the sensitivity sweep of `scenario` (whose resolved text is `resolved_toml`) into
    out/sensitivity (resumable) and write sensitivity.json and sensitivity.csv; returns the
    per-claim rows (`sensitivity_summary`)."""
    import ftlab

    start = time.perf_counter()
    cases = sensitivity_cases(resolved_toml)
    spec = {"name": "upi sensitivity", "scenario": str(scenario.resolve()), "cases": cases}
    on_progress: Callable[[int, int], None] | None = (lambda d, t: progress("sensitivity runs", d, t)) if progress else None
    result = ftlab.sweep(spec, out=out / "sensitivity", progress=on_progress)
    by_case, details = {}, []
    for run in result.runs:
        failed = next((f for f in result.failures if f["case"] == run["case"]), None)
        if run["run"] is None or failed is not None:
            details.append({"case": run["case"], "set": _case_set(cases, run["case"]), "error": failed["error"] if failed else "did not resolve"})
            continue
        report = result.report(run["run"])
        claims = upi_claims(report.summary, report.timeseries, rise_s(report.resolved_toml))
        by_case[run["case"]] = claims
        details.append(_case_detail(run, cases, claims, report))
    rows = sensitivity_summary(by_case)
    _write_sensitivity(out, scenario, quick, rows, details, time.perf_counter() - start)
    return rows


def _case_set(cases: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any]:
    return dict(next((c["set"] for c in cases if c["name"] == name), {}))


def _case_detail(run: Mapping[str, Any], cases: Sequence[Mapping[str, Any]], claims: Sequence[Claim], report: Report) -> dict[str, Any]:
    unstable = sorted({f"{s}/{t}" for s, d in report.summary["schemes"].items() for t, v in d["tenants"].items() if v.get("unstable") is not False})
    return {
        "case": run["case"],
        "set": _case_set(cases, run["case"]),
        "run": run["run"],
        "unstable": unstable,
        "claims": {c.id: {"value": c.ftlab_value, "verdict": c.verdict} for c in claims},
    }


def _write_sensitivity(out: Path, scenario: Path, quick: bool, rows: list[dict[str, Any]], details: list[dict[str, Any]], wall_s: float) -> None:
    from ftlab import _core

    doc = {
        "reproduction": NAME,
        "scenario": str(scenario),
        "quick": quick,
        "ftlab_version": _core.version(),
        "wall_s": round(wall_s, 3),
        "sweep_dir": str(out / "sensitivity"),
        "claims": rows,
        "cases": details,
    }
    write_json(out / SENSITIVITY_FILE, doc)
    columns = ["claim", "text", "unit", "paper_value", "min", "max", "n_cases", "reversed_in"]
    write_csv(out / SENSITIVITY_CSV, rows, columns)
