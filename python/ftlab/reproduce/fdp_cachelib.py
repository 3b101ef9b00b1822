"""ftlab.reproduce.fdp_cachelib: the CacheLib FDP reproduction (Allison et al., "Towards
Efficient Flash Caches with Emerging NVMe Flexible Data Placement SSDs", EuroSys 2025, arXiv
2503.11665, §6), run by `ftlab reproduce fdp-cachelib`.

One scenario (`scenarios/reproduce/fdp-cachelib(-quick).toml`: CacheLib's small-object cache,
SOC, as uniform 4 KiB bucket rewrites over 4% of the cache, and its large-object cache, LOC, as
a sequential log of 256 KiB writes over the other 96%, on an SSD with 8 initially isolated
reclaim unit handles) is run once per (case, mapper) of `RUNS`, by `--set` overrides:

- cases: `u50` (the cache is 50% of the device, §6.2), `u80` and `u100` (80%, one of the
  utilisations "between 50% and 90%" §6.3 calls similar to 50%, and 100%, §6.3), `soc64`,
  `soc90` and `soc96` (100%, the SOC 64%, 90% and 96% of the cache, §6.5) and `mt` (two
  tenants, each a cache on half the device, §6.7: the scenario's two-tenant sibling,
  `fdp-cachelib-two-tenants(-quick).toml`);
- mappers: `fdp` (SOC on PID 0 -> RUH 0, LOC on PID 1 -> RUH 1: the paper's "FDP"),
  `nonfdp` (`legacy`, no placement: its "Non-FDP") and, at u100, `fdp-one-ruh` (FDP enabled,
  both PIDs on RUH 0: §6.6's stand-in for Non-FDP when counting GC events).

The DLWA of a run is its device WAF over the measured phase (summary.json `device.waf`: flash
units programmed / host units), after the warm-up by workload has converged (health); its p99
write latency is its tenants' highest `write.p99_us`. The
claims are data (`papers/fdp_cachelib.toml`); this module computes their values by name
(`measure`). With `sensitivity`, the claims are recomputed with the device's over-provisioning
and the SOC's share of host bytes varied one at a time (`SENSITIVITY_CASES`; neither is
published for the paper's device and traces).

Only ratios of the simulator's outputs are computed here; it is not the simulator, and it prints
nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlab import _core, _toml, api
from ftlab._errors import usage_error
from ftlab.report.plots import RC_PARAMS, save
from ftlab.reproduce import Progress, claimfile, scenario_file, seed_overrides
from ftlab.reproduce.claimfile import Measured, SeedResult, evaluate
from ftlab.reproduce.claims import (
    CLAIMS_FILE,
    Claim,
    ReproductionResult,
    fmt_number,
    ratio,
    sensitivity_files,
    sensitivity_summary,
    write_claims_json,
    write_csv,
    write_sensitivity,
)
from ftlab.reproduce.claims import (
    health as claims_health,
)
from ftlab.reproduce.seeds import preimport

if TYPE_CHECKING:
    from ftlab.report import Report

# matplotlib, numpy and plotly are imported inside the functions that use them, not here:
# heavy, and `ftlab --help` and `import ftlab` start without them.

NAME = "fdp-cachelib"
SCENARIO, QUICK_SCENARIO = "reproduce/fdp-cachelib.toml", "reproduce/fdp-cachelib-quick.toml"
#: The two-tenant siblings (§6.7): the same device, two caches of half the device each.
TWO_TENANTS = "reproduce/fdp-cachelib-two-tenants.toml"
QUICK_TWO_TENANTS = "reproduce/fdp-cachelib-two-tenants-quick.toml"

#: The SOC sizes of §6.5 beyond the default 4%, as fractions of the cache.
SOC_SIZES = {"soc64": 0.64, "soc90": 0.90, "soc96": 0.96}


def _soc_size(fraction: float) -> tuple[str, ...]:
    """The cache on the whole device, the SOC `fraction` of it and the LOC the rest."""
    return (
        "tenants.0.namespace_fraction=1.0",
        f"tenants.0.synthetic.0.footprint_fraction={fraction:g}",
        f"tenants.0.synthetic.1.footprint_offset_fraction={fraction:g}",
        f"tenants.0.synthetic.1.footprint_fraction={1.0 - fraction:.2f}",
    )


#: The cases: label -> the `--set` overrides (utilisation = the tenant's namespace fraction;
#: the SOC's and LOC's footprints as fractions of it). `mt` runs the two-tenant scenario
#: (`TWO_TENANT_CASES`) unchanged.
CASES: dict[str, tuple[str, ...]] = {
    "u50": ("tenants.0.namespace_fraction=0.5",),
    "u80": ("tenants.0.namespace_fraction=0.8",),
    "u100": ("tenants.0.namespace_fraction=1.0",),
    **{case: _soc_size(fraction) for case, fraction in SOC_SIZES.items()},
    "mt": (),
}
#: The cases that run the two-tenant scenario instead of the one-tenant one.
TWO_TENANT_CASES = frozenset({"mt"})
#: The mappers: label -> `--set` overrides.
MAPPERS: dict[str, tuple[str, ...]] = {
    "fdp": ("stream_mapper=fdp",),
    "nonfdp": ("stream_mapper=legacy",),
    "fdp-one-ruh": ("stream_mapper=fdp", "stream.fdp.placement_handles=[0, 0]"),
}


@dataclass(frozen=True)
class Run:
    """One (case, mapper) run: its label "case/mapper" and its overrides."""

    case: str
    mapper: str

    @property
    def label(self) -> str:
        return f"{self.case}/{self.mapper}"

    @property
    def overrides(self) -> tuple[str, ...]:
        return (*CASES[self.case], *MAPPERS[self.mapper])


#: Every run, in order.
RUNS: tuple[Run, ...] = (
    Run("u50", "fdp"),
    Run("u50", "nonfdp"),
    Run("u80", "fdp"),
    Run("u80", "nonfdp"),
    Run("u100", "fdp"),
    Run("u100", "nonfdp"),
    Run("u100", "fdp-one-ruh"),
    Run("soc64", "fdp"),
    Run("soc64", "nonfdp"),
    Run("soc90", "fdp"),
    Run("soc90", "nonfdp"),
    Run("soc96", "fdp"),
    Run("soc96", "nonfdp"),
    Run("mt", "fdp"),
    Run("mt", "nonfdp"),
)


def reproduce(
    *,
    quick: bool,
    out: Path,
    jobs: int | None,
    sensitivity: bool,
    progress: Progress | None = None,
    scenario: Path | None = None,
    seed: int = 0,
) -> ReproductionResult:
    """Run the reproduction into `out` (see the module docstring); `scenario` replaces the
    bundled one, `seed` is added to its seed. Returns the claims, health and files
    (`extra["seed_result"]`)."""
    start = time.perf_counter()
    path = scenario or scenario_path(quick)
    reports = run_all(path, out / "run", [], jobs, progress, "simulating", seed=seed)
    metrics = collect_metrics(reports)
    checks = health(reports)
    result = SeedResult(seed, measurements(metrics), checks)
    claims = evaluate(claimfile.load(NAME), [result])
    files = [*figures(metrics, out), write_csv(out / "metrics.csv", metric_rows(metrics))]
    files.append(_write_claims(out, claims, path, quick, checks, metrics))
    sens = None
    if sensitivity:
        sens = run_sensitivity(path, reports, out, quick, jobs, progress)
        files += sensitivity_files(out)
    return ReproductionResult(
        name=NAME,
        out=out,
        scenario=path,
        quick=quick,
        claims=claims,
        health=checks,
        phases=[],
        files=files,
        wall_s=time.perf_counter() - start,
        report=None,
        sensitivity=sens,
        extra={"metrics": metrics, "reports": reports, "seed_result": result},
    )


def scenario_path(quick: bool) -> Path:
    """scenarios/reproduce/fdp-cachelib(-quick).toml."""
    return scenario_file(
        QUICK_SCENARIO if quick else SCENARIO, f"the {'quick ' if quick else ''}CacheLib FDP scenario"
    )


def two_tenant_path(path: Path) -> Path:
    """The two-tenant sibling of scenario `path` (case `mt`): the file in the same directory
    whose name has "fdp-cachelib-two-tenants" where `path`'s has "fdp-cachelib"
    (fdp-cachelib-quick.toml -> fdp-cachelib-two-tenants-quick.toml). A scenario whose name
    lacks "fdp-cachelib", or whose sibling is missing, is an `ftlab.UsageError`."""
    if "fdp-cachelib" not in path.name:
        raise usage_error(
            "scenario",
            f"{path}: the CacheLib FDP reproduction finds its two-tenant scenario by name "
            "(fdp-cachelib*.toml -> fdp-cachelib-two-tenants*.toml); this name lacks 'fdp-cachelib'",
        )
    sibling = path.with_name(path.name.replace("fdp-cachelib", "fdp-cachelib-two-tenants", 1))
    if not sibling.is_file():
        raise usage_error("scenario", f"{sibling}: no such file (the two-tenant scenario of {path})")
    return sibling


def run_all(
    path: Path,
    out: Path,
    extra: Sequence[str],
    jobs: int | None,
    progress: Progress | None,
    stage: str,
    only: Sequence[str] | None = None,
    seed: int = 0,
    extra_two: Sequence[str] | None = None,
) -> dict[str, Report]:
    """Run each of `RUNS` (or those labelled in `only`) with its overrides then `extra`
    (`extra_two`, default `extra`, for the two-tenant cases, on `two_tenant_path(path)`), `jobs`
    at a time (default: the machine's cores), each into out/<case>/<mapper>/; returns the
    Reports by run label."""
    preimport()  # before the threads race to import plotting modules
    todo = [r for r in RUNS if only is None or r.label in only]
    paths = {False: path}
    if any(r.case in TWO_TENANT_CASES for r in todo):
        paths[True] = two_tenant_path(path)
    seeds = {two: seed_overrides(p, seed) for two, p in paths.items()}
    extras = {False: list(extra), True: list(extra if extra_two is None else extra_two)}
    if progress:
        progress(f"{stage} {len(todo)} runs", 0, len(todo))

    def one(run: Run) -> Report:
        two = run.case in TWO_TENANT_CASES
        sets = [*run.overrides, *seeds[two], *extras[two]]
        return api.run(paths[two], out=out / run.case / run.mapper, set=sets, jobs=1)

    reports: dict[str, Report] = {}
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        for done, (run, report) in enumerate(zip(todo, pool.map(one, todo), strict=True), 1):
            reports[run.label] = report
            if progress:
                progress(f"{stage}: {run.label}", done, len(todo))
    return reports


# --------------------------------------------------------------------------------------
# Metrics and claims


def run_metrics(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The device WAF over the measured phase (`dlwa`), the host bytes of the measured phase
    (summed over the tenants), the highest p99 write latency of a tenant (`write_p99_us`), the
    GC counters of the measured phase (`erases`, `gc_pages_copied`, `blocks_multi_tenant`), the
    FDP counters since the device started (`hbmw`, `mbmw`, Media Reallocated events; None
    without the fdp mapper) and the warm-up's convergence of a one-scheme summary.json."""
    scheme: Mapping[str, Any] = next(iter((summary.get("schemes") or {}).values()), {})
    device = scheme.get("device") or {}
    counters = scheme.get("mapper_counters") or {}
    warm = scheme.get("precondition") or {}
    writes = [t.get("write") or {} for t in (scheme.get("tenants") or {}).values()]
    sizes = [w["bytes"] for w in writes if isinstance(w.get("bytes"), (int, float))]
    p99s = [w["p99_us"] for w in writes if isinstance(w.get("p99_us"), (int, float))]
    return {
        "dlwa": device.get("waf"),
        "host_bytes": sum(sizes) if sizes else None,
        "write_p99_us": max(p99s) if p99s else None,
        "erases": device.get("erases"),
        "gc_pages_copied": device.get("gc_pages_copied"),
        "blocks_multi_tenant": device.get("blocks_multi_tenant"),
        "hbmw": counters.get("hbmw"),
        "mbmw": counters.get("mbmw"),
        "media_reallocated": counters.get("events_media_reallocated"),
        "warm_converged": warm.get("warm_converged"),
        "warm_windows": len(warm.get("warm_waf_windows") or []),
    }


def collect_metrics(reports: Mapping[str, Report]) -> dict[str, dict[str, Any]]:
    """metrics[run label] = `run_metrics` of each run."""
    return {label: run_metrics(report.summary) for label, report in reports.items()}


def measurements(metrics: Mapping[str, Mapping[str, Any]]) -> dict[str, Measured]:
    """ftlab's value of every `measure` name of papers/fdp_cachelib.toml (see `measure`)."""
    names = dict.fromkeys(s.measure for s in claimfile.load(NAME).claims if s.measure)
    return {name: measure(name, metrics) for name in names}


def measure(name: str, metrics: Mapping[str, Mapping[str, Any]]) -> Measured:
    """One computation by name: "dlwa:<run>" the run's DLWA; "ratio:<a>/<b>" run a's DLWA over
    run b's; "margin:<a>/<b>" that ratio minus 1; "events:<a>/<b>" run a's Media Reallocated
    events per host byte (hbmw) over run b's; "p99w:<a>/<b>" run a's p99 write latency over run
    b's. Runs are "case/mapper" labels. An unknown name is an `ftlab.UsageError`."""
    kind, _, rest = name.partition(":")
    parts = rest.split("/")
    if kind == "dlwa" and len(parts) == 2:
        v = _num(metrics, rest, "dlwa")
        return Measured(v, f"{rest}: DLWA {fmt_number(v, '', 3)} over the measured phase.")
    if kind not in ("ratio", "margin", "events", "p99w") or len(parts) != 4:
        raise usage_error("measure", f"unknown CacheLib FDP computation {name!r}")
    a, b = "/".join(parts[:2]), "/".join(parts[2:])
    if kind == "events":
        return _events(metrics, a, b)
    if kind == "p99w":
        return _p99_write(metrics, a, b)
    va, vb = _num(metrics, a, "dlwa"), _num(metrics, b, "dlwa")
    factor = ratio(va, vb)
    why = f"DLWA {a} {fmt_number(va, '', 3)} against {b} {fmt_number(vb, '', 3)}: " + (
        f"margin {factor - 1.0:+.3f} ({a} over {b} − 1)." if kind == "margin" else f"{factor:.3f}x."
    )
    if math.isnan(factor):
        why += " (A value is missing from summary.json or zero.)"
    return Measured(factor - 1.0 if kind == "margin" else factor, why)


def _events(metrics: Mapping[str, Mapping[str, Any]], a: str, b: str) -> Measured:
    per = {}
    for run in (a, b):
        events, host = _num(metrics, run, "media_reallocated"), _num(metrics, run, "hbmw")
        if events is None or host is None:
            return Measured(
                None,
                f"{run} has no FDP counters.",
                f"summary.json mapper_counters events_media_reallocated or hbmw of run {run} is absent",
            )
        per[run] = (events, events / host * 2**30 if host > 0 else math.nan)
    factor = ratio(per[a][1], per[b][1])
    why = (
        f"Media Reallocated events per GiB written by the host: {a} {per[a][1]:.3g} "
        f"({per[a][0]:.0f} events), "
        f"{b} {per[b][1]:.3g} ({per[b][0]:.0f}): {factor:.3f}x."
    )
    return Measured(factor, why)


def _p99_write(metrics: Mapping[str, Mapping[str, Any]], a: str, b: str) -> Measured:
    pa, pb = _num(metrics, a, "write_p99_us"), _num(metrics, b, "write_p99_us")
    factor = ratio(pa, pb)
    why = (
        f"p99 write latency {a} {fmt_number(pa, 'µs', 0)} against {b} "
        f"{fmt_number(pb, 'µs', 0)}: {factor:.3f}x."
    )
    if math.isnan(factor):
        why += " (A value is missing from summary.json or zero.)"
    return Measured(factor, why)


def _num(metrics: Mapping[str, Mapping[str, Any]], run: str, key: str) -> float | None:
    v = (metrics.get(run) or {}).get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def fdp_claims(metrics: Mapping[str, Mapping[str, Any]], checks: Mapping[str, Any]) -> list[Claim]:
    """Every claim of papers/fdp_cachelib.toml judged on one seed's metrics and health."""
    return evaluate(claimfile.load(NAME), [SeedResult(0, measurements(metrics), checks)])


#: The paper's DLWA per run, where it prints one (§6.2, §6.3: 80% "similar to 50%", §6.5,
#: §6.7), for the figure.
PAPER_DLWA: dict[str, float] = {
    "u50/fdp": 1.03,
    "u50/nonfdp": 1.3,
    "u80/fdp": 1.03,
    "u80/nonfdp": 1.3,
    "u100/fdp": 1.03,
    "u100/nonfdp": 3.5,
    "soc64/fdp": 2.5,
    "mt/fdp": 1.0,
    "mt/nonfdp": 3.5,
}


def metric_rows(metrics: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per run: case, mapper, ftlab's metrics and the paper's DLWA (None where the
    paper prints none)."""
    rows = []
    for run in RUNS:
        if run.label in metrics:
            rows.append(
                {
                    "case": run.case,
                    "mapper": run.mapper,
                    **metrics[run.label],
                    "paper_dlwa": PAPER_DLWA.get(run.label),
                }
            )
    return rows


# --------------------------------------------------------------------------------------
# Health


def health(reports: Mapping[str, Report]) -> dict[str, Any]:
    """Per run: the tenant's checks of `claims.health` (`unstable`, `starved`, `reasons`), the
    busiest die (reported, no limit), the steady state (`checks["warm-up converged"]`: the
    warm-up by workload ended with two windows of one logical capacity within 2% of each other,
    so the measured phase starts in the workload's steady state) and `ok`. Top-level `ok`:
    every run's."""
    runs = {label: _run_health(report) for label, report in reports.items()}
    return {"ok": all(r["ok"] for r in runs.values()) and bool(runs), "schemes": runs}


def _run_health(report: Report) -> dict[str, Any]:
    scheme = next(iter(report.summary["schemes"].values()))
    base = claims_health({"schemes": {"run": scheme}})["schemes"]["run"]
    reasons = [r for r in base["reasons"] if not r.startswith("busiest die")]
    warm = scheme.get("precondition") or {}
    converged = warm.get("warm_converged") is True
    if not converged:
        reasons.append(
            f"the warm-up did not converge (cap hit {warm.get('warm_cap_hit')}, "
            f"windows {warm.get('warm_waf_windows')})"
        )
    return {
        "tenants": base["tenants"],
        "busiest_die": scheme["device"].get("die_utilisation_max"),
        "busiest_die_by_phase": {},
        "busiest_die_limit": None,
        "checks": {"warm-up converged": (str(converged), converged)},
        "reasons": reasons,
        "ok": base["tenants_ok"] and converged,
    }


# --------------------------------------------------------------------------------------
# Figures


def figures(metrics: Mapping[str, Mapping[str, Any]], out: Path) -> list[Path]:
    """dlwa.png / dlwa.csv: ftlab's DLWA per case and mapper (bars) beside the paper's values
    (Figures 5, 6 and 9; markers)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = metric_rows(metrics)
    return [_figure(rows, out / "dlwa.png"), write_csv(out / "dlwa.csv", rows)]


def _figure(rows: Sequence[Mapping[str, Any]], png: Path) -> Path:
    import matplotlib
    from matplotlib.figure import Figure

    mappers = list(MAPPERS)
    shades = {"fdp": "0.35", "nonfdp": "0.75", "fdp-one-ruh": "0.55"}
    with matplotlib.rc_context(RC_PARAMS):
        fig = Figure(figsize=(8.0, 3.2), layout="constrained")
        ax = fig.subplots()
        width = 0.8 / len(mappers)
        labelled: set[str] = set()
        for i, case in enumerate(CASES):
            for j, mapper in enumerate(mappers):
                row = next((r for r in rows if r["case"] == case and r["mapper"] == mapper), None)
                if row is None or row["dlwa"] is None:
                    continue
                x = i + (j - (len(mappers) - 1) / 2) * width
                ax.bar(
                    x,
                    row["dlwa"],
                    width,
                    color=shades[mapper],
                    edgecolor="black",
                    linewidth=0.5,
                    label=None if mapper in labelled else mapper,
                )
                labelled.add(mapper)
                ax.annotate(f"{row['dlwa']:.2f}", (x, row["dlwa"]), ha="center", va="bottom", fontsize=7)
                if row["paper_dlwa"] is not None:
                    ax.plot(
                        [x],
                        [row["paper_dlwa"]],
                        marker="D",
                        color="black",
                        markersize=4,
                        label=None if "paper" in labelled else "paper",
                    )
                    labelled.add("paper")
        ax.axhline(1.0, color="black", linewidth=0.6, linestyle="--")
        labels = {"u50": "50%", "u80": "80%", "u100": "100%", "mt": "2 tenants"}
        ax.set_xticks(range(len(CASES)), [labels.get(c, f"SOC {c[3:]}%") for c in CASES], fontsize=7)
        ax.set_ylabel("DLWA (device WAF)")
        ax.grid(True, axis="y", linewidth=0.4, alpha=0.5)
        ax.legend(fontsize=7)
        ax.set_title("CacheLib SOC + LOC: DLWA with and without FDP (§6.2, §6.3, §6.5, §6.7)")
    save(fig, png, "png")
    return png


# --------------------------------------------------------------------------------------
# Files


def _write_claims(out: Path, claims: list[Claim], path: Path, quick: bool, checks: Any, metrics: Any) -> Path:
    return write_claims_json(
        out / CLAIMS_FILE,
        claims,
        reproduction=NAME,
        paper=claimfile.load(NAME).citation,
        scenario=str(path),
        quick=quick,
        ftlab_version=_core.version(),
        run_dir=str(out / "run"),
        two_tenant_scenario=str(two_tenant_path(path)),
        runs={r.label: list(r.overrides) for r in RUNS},
        two_tenant_runs=[r.label for r in RUNS if r.case in TWO_TENANT_CASES],
        metrics=metrics,
        health=checks,
    )


# --------------------------------------------------------------------------------------
# Sensitivity

#: One knob at a time: the device's over-provisioning (the paper: "ranges from 7 - 20% of SSD
#: capacity"; the scenarios' 7% is the low end) and the SOC's share of host bytes (not
#: published; the scenarios' 0.5 is the middle), the total host bytes per second kept.
OVER_PROVISIONING = (0.135, 0.20)
SOC_SHARES = (0.25, 0.75, 0.9)


def soc_share_overrides(scenario: Mapping[str, Any], share: float) -> list[str]:
    """The `--set` giving, in each tenant of `scenario` (a parsed scenario), the SOC (synthetic
    part 0, 4 KiB writes) `share` of the tenant's host bytes and the LOC (part 1) the rest,
    their total kept.

    >>> parts = [{"rate_iops": 1024.0, "sizes": [{"bytes": 4096}]},
    ...          {"rate_iops": 16.0, "sizes": [{"bytes": 262144}]}]
    >>> soc_share_overrides({"tenants": [{"synthetic": parts}]}, 0.25)
    ['tenants.0.synthetic.0.rate_iops=512', 'tenants.0.synthetic.1.rate_iops=24']
    """
    sets = []
    for i, tenant in enumerate(scenario["tenants"]):
        soc, loc = tenant["synthetic"]
        soc_bytes, loc_bytes = soc["sizes"][0]["bytes"], loc["sizes"][0]["bytes"]
        total = soc["rate_iops"] * soc_bytes + loc["rate_iops"] * loc_bytes
        sets += [
            f"tenants.{i}.synthetic.0.rate_iops={share * total / soc_bytes:g}",
            f"tenants.{i}.synthetic.1.rate_iops={(1.0 - share) * total / loc_bytes:g}",
        ]
    return sets


def sensitivity_cases(scenario: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The cases: (name, overrides), each rerunning every run of `scenario` (parsed)."""
    cases = [(f"over_provisioning={op:g}", [f"device.over_provisioning={op:g}"]) for op in OVER_PROVISIONING]
    cases += [(f"soc_share={s:g}", soc_share_overrides(scenario, s)) for s in SOC_SHARES]
    return cases


def run_sensitivity(
    path: Path,
    base: Mapping[str, Report],
    out: Path,
    quick: bool,
    jobs: int | None,
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """Rerun every run for each case of `sensitivity_cases` into out/sensitivity/<case>/,
    recompute the claims, and write sensitivity.json and .csv; returns `sensitivity_summary`'s
    rows."""
    by_case = {"base": fdp_claims(collect_metrics(base), health(base))}
    details: list[dict[str, Any]] = []
    parsed = [_toml.loads(p.read_text(encoding="utf-8")) for p in (path, two_tenant_path(path))]
    both = zip(sensitivity_cases(parsed[0]), sensitivity_cases(parsed[1]), strict=True)
    for (name, sets), (_, sets_two) in both:
        slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        reports = run_all(
            path, out / "sensitivity" / slug, sets, jobs, progress, f"sensitivity {name}", extra_two=sets_two
        )
        metrics = collect_metrics(reports)
        claims = fdp_claims(metrics, health(reports))
        by_case[name] = claims
        details.append(
            {
                "case": name,
                "set": sets,
                "dlwa": {label: m["dlwa"] for label, m in metrics.items()},
                "claims": {c.id: {"value": c.ftlab_value, "verdict": c.verdict} for c in claims},
            }
        )
    rows = sensitivity_summary(by_case)
    doc = {
        "reproduction": NAME,
        "quick": quick,
        "sweep_dir": str(out / "sensitivity"),
        "claims": rows,
        "cases": details,
    }
    write_sensitivity(out, doc, rows)
    return rows
