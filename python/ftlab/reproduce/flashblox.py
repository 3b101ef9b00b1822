"""ftlab.reproduce.flashblox: the FlashBlox reproduction (Huang, Badam, Caulfield, Nath, Sengupta,
Sharma and Qureshi, "FlashBlox: Achieving Both Performance Isolation and Uniform Lifetime for
Virtualized SSDs", FAST '17; our source is the talk's slides only), run by `ftlab reproduce
flashblox`.

It runs `scenarios/reproduce/flashblox.toml` (or, quick, `flashblox-quick.toml`) three times with
the same tenants, seed and load: `hardware` (every tenant a channel-isolated vSSD, as the
scenario says, swaps off), `software` (every vSSD software-isolated: all share every die,
isolated by the engine's fair-share scheduler, `ftl.scheduler = "fair"`, which the scenarios set
for all three runs; no token bucket unless SOFTWARE_IOPS_FACTOR > 0) and `swap` (as the scenario
says, swaps on: its first swap starts at `swap_interval_min_s`, in phase `swap`). Then:

1. latency, over the measured phase of `hardware` and `software`, read requests per tenant: the
   geometric mean over tenants of hardware's p99 / software's (paper: 2.6x lower, −61.5%), its
   lowest (paper: "up to 3.1x", −67.7%), and the geometric mean of the means (1.4x, −28.6%);
2. lifetime, with `ftlab lifetime`'s fast-forward model (crates/ftlab/src/metrics/lifetime_model.rs)
   fed by `hardware`'s per-vSSD erase rates (no swap in them) and `swap`'s swap cost
   (`model_summary`). The swap interval is
   the slides' own derivation, not a fit: the ideal lifetime (every block worn evenly) divided
   by N·K swaps, N the channels and K = ceil((N−1−x)/(N·x)) for x = 0.1. Claims: the most-worn
   channel's wear over the mean at the first wear-out with swaps (paper: at most 1.1, +10%) and
   that it is higher without swaps; lifetime with swaps / ideal ("near-ideal": 1);
3. swaps: a swap's device time, measured in the `swap` run and scaled to the
   full `flashblox` device by its capacity (a swap copies a channel's valid data: paper 15
   minutes); the mean interval between swaps of the fast-forward, at the same scale (paper 19
   days), and the fraction of time a swap runs (paper 0.04%; scale-free).

It writes claims.json, latency.csv/fig1-latency.png, lifetime.csv/fig2-wear.png,
swap-timeline.csv/fig3-swap.png, and with `sensitivity` sensitivity.json/.csv (direct runs,
no Ray: SENSITIVITY_CASES). Only ratios and arithmetic on the simulator's and the model's
outputs are computed here; it is not the simulator nor the lifetime model, and it prints
nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlab.reproduce import Progress, parse_toml, scenario_file
from ftlab.reproduce.claims import (
    CLAIMS_FILE,
    QUALITATIVE,
    RELATIVE,
    VALUE,
    Claim,
    ReproductionResult,
    fmt_change,
    fmt_number,
    health,
    make_claim,
    sensitivity_summary,
    write_claims_json,
    write_csv,
    write_json,
)

if TYPE_CHECKING:
    from ftlab.report import Report

NAME = "flashblox"
PAPER_REF = "Huang et al., FlashBlox, FAST '17 (talk slides)"
SCENARIO = "reproduce/flashblox.toml"
QUICK_SCENARIO = "reproduce/flashblox-quick.toml"
SCHEME = "flashblox"
#: The runs: channel vSSDs without swaps, software vSSDs, channel vSSDs with swaps.
RUNS = ("hardware", "software", "swap")
#: The runs the latency claims compare.
LATENCY_RUNS = ("hardware", "software")
ISOLATION_PHASE = "isolation"
SWAP_PHASE = "swap"
#: Software vSSDs' optional token bucket on top of the fair-share scheduler: this many times the
#: tenant's offered rate, 0 = none (the default: the slides name software isolation, a
#: scheduler, not a limiter; the sensitivity adds buckets of 2.0 and 1.2 x the rate).
SOFTWARE_IOPS_FACTOR = 0.0
#: The token-bucket factors of the sensitivity's extra software runs.
SENSITIVITY_IOPS_FACTORS = (2.0, 1.2)
#: The full `flashblox` preset's blocks per plane and pages per block (presets.rs): a swap's
#: time and the lifetime scale with the capacity, so a reduced run is scaled by this ratio.
FULL_BLOCKS_PER_PLANE = 1024
FULL_PAGES_PER_BLOCK = 256
#: The slides' wear-imbalance target 1 + x.
IMBALANCE_X = 0.1
DAY_S = 86_400.0
#: The slides' numbers.
PAPER = {
    "p99_factor": 2.6,  # "Tail latency reduction: 2.6x"
    "p99_factor_max": 3.1,  # "up to 3.1x" (the brief's reading of the talk's figure)
    "mean_factor": 1.4,  # "average latency reduction: 1.4x"
    "imbalance": 1.1,  # "the wear imbalance is bounded in 1.1"
    "swap_minutes": 15.0,  # "Channel migration takes 15 minutes"
    "swap_interval_days": 19.0,  # "once per 19 days"
    "drop_fraction": 0.0004,  # "performance drops only for 0.04% of all the time"
    "lifetime_vs_ideal": 1.0,  # "near-ideal SSD lifetime" (no number: ideal = 1)
}
SENSITIVITY_FILE = "sensitivity.json"
SENSITIVITY_CSV = "sensitivity.csv"


def reproduce(
    *, quick: bool, out: Path, jobs: int | None, sensitivity: bool, progress: Progress | None = None, scenario: Path | None = None
) -> ReproductionResult:
    """Run the FlashBlox reproduction into `out` (see the module docstring); `scenario`
    replaces the reproduction's own (for development). Returns the claims, health and files."""
    start = time.perf_counter()
    path = Path(scenario) if scenario is not None else scenario_path(quick)
    reports = run_pair(path, out / "run", [], jobs, progress, "simulating")
    model = lifetime_model(reports["hardware"], reports["swap"])
    claims = flashblox_claims(reports["hardware"].summary, reports["software"].summary, model)
    checks = run_health(reports)
    files = figures(reports, model, out)
    wall_s = time.perf_counter() - start
    files.append(_write_claims(out, claims, path, quick, wall_s, checks, model))
    sens = None
    if sensitivity:
        sens = run_sensitivity(path, out, quick, jobs, progress)
        files += [out / SENSITIVITY_FILE, out / SENSITIVITY_CSV]
    return ReproductionResult(
        NAME, out, path, quick, claims, checks, [], files, time.perf_counter() - start, None, sens, {"reports": reports, "model": model}
    )


def scenario_path(quick: bool) -> Path:
    """scenarios/reproduce/flashblox(-quick).toml of the checkout."""
    return scenario_file(QUICK_SCENARIO if quick else SCENARIO, f"the {'quick ' if quick else ''}FlashBlox scenario")


# --------------------------------------------------------------------------------------
# Runs


def tenant_rates(scenario: Mapping[str, Any]) -> list[float]:
    """Each tenant's offered rate (requests/s): the sum of its synthetic parts' `rate_iops`
    (poisson; 1000, the default, where absent). A tenant without a synthetic workload is an
    `ftlab.UsageError`: its software vSSD would need a rate this module cannot know.

    >>> tenant_rates({"tenants": [{"synthetic": {"rate_iops": 10.0}}, {"synthetic": [{"rate_iops": 1.0}, {}]}]})
    [10.0, 1001.0]
    """
    from ftlab._errors import usage_error

    rates = []
    for i, tenant in enumerate(scenario.get("tenants") or []):
        parts = tenant.get("synthetic")
        parts = [parts] if isinstance(parts, Mapping) else parts
        if not parts:
            raise usage_error(f"tenants.{i}", "the FlashBlox reproduction needs a synthetic (poisson) workload per tenant to size its software vSSD")
        rates.append(sum(float(p.get("rate_iops", 1000.0)) for p in parts))
    return rates


def software_overrides(scenario_text: str, factor: float = SOFTWARE_IOPS_FACTOR) -> list[str]:
    """The `--set` overrides that turn every vSSD of the scenario software-isolated: one
    `{kind = "software", iops_max = factor x rate}` per tenant (factor 0: `{kind = "software"}`,
    no token bucket). The scenario must set `ftl.scheduler = "fair"` (flashblox refuses a
    software vSSD otherwise).

    >>> software_overrides('[[tenants]]\\n[tenants.synthetic]\\nrate_iops = 100.0\\n', 2.0)
    ['scheme.flashblox.tenants=[{kind = "software", iops_max = 200.0}]']
    >>> software_overrides('[[tenants]]\\n[tenants.synthetic]\\nrate_iops = 100.0\\n')
    ['scheme.flashblox.tenants=[{kind = "software"}]']
    """
    rates = tenant_rates(parse_toml(scenario_text))
    items = ", ".join(f'{{kind = "software", iops_max = {factor * r:.1f}}}' if factor else '{kind = "software"}' for r in rates)
    return [f"scheme.flashblox.tenants=[{items}]"]


def run_pair(path: Path, out: Path, extra: Sequence[str], jobs: int | None, progress: Progress | None, stage: str) -> dict[str, Report]:
    """Run the scenario as each of RUNS (extra overrides applied to all, then the run's own)
    into out/<run>, two at a time unless `jobs` is 1; returns the Reports by run name."""
    import ftlab

    _preimport()
    text = path.read_text(encoding="utf-8")
    plan = {
        "hardware": [*extra, "scheme.flashblox.swaps=false"],
        "software": [*extra, *software_overrides(_with_overrides(text, extra))],
        "swap": [*extra, "scheme.flashblox.swaps=true"],
    }
    if progress:
        progress(f"{stage}: {path.name}, hardware, software, swap", 0, len(plan))

    def one(name: str) -> Report:
        return ftlab.run(path, out=out / name, set=plan[name], jobs=1)

    reports: dict[str, Report] = {}
    with ThreadPoolExecutor(max_workers=min(len(plan), jobs or os.cpu_count() or 1)) as pool:
        for done, (name, report) in enumerate(zip(plan, pool.map(one, plan)), 1):
            reports[name] = report
            if progress:
                progress(f"{stage}: {name} done", done, len(plan))
    return reports


def _preimport() -> None:
    """Import what writing a Report (report.html) imports, before two threads race to import it
    half-way (numpy's "partially initialized module")."""
    import numpy  # noqa: F401
    import plotly.graph_objects  # noqa: F401

    import ftlab.report.html  # noqa: F401


def _with_overrides(text: str, extra: Sequence[str]) -> str:
    """The scenario text with `tenants.NAME.synthetic.rate_iops=V` (and `.synthetic.I.rate_iops`)
    overrides of `extra` applied (the only ones that change the software vSSDs' rates); others do
    not matter here."""
    if not any(".rate_iops=" in e for e in extra):
        return text
    import tomli_w

    doc = parse_toml(text)
    for e in extra:
        key, _, value = e.partition("=")
        parts = key.split(".")
        if len(parts) == 4 and parts[0] == "tenants" and parts[2:] == ["synthetic", "rate_iops"]:
            for t in doc.get("tenants") or []:
                if t.get("name") == parts[1] and isinstance(t.get("synthetic"), dict):
                    t["synthetic"]["rate_iops"] = float(value)
        if len(parts) == 5 and parts[0] == "tenants" and parts[2] == "synthetic" and parts[3].isdigit() and parts[4] == "rate_iops":
            for t in doc.get("tenants") or []:
                if t.get("name") == parts[1] and isinstance(t.get("synthetic"), list) and int(parts[3]) < len(t["synthetic"]):
                    t["synthetic"][int(parts[3])]["rate_iops"] = float(value)
    return tomli_w.dumps(doc)


# --------------------------------------------------------------------------------------
# Latency


def read_metric(summary: Mapping[str, Any], tenant: str, metric: str) -> float | None:
    """`metric` (mean_us, p99_us) of `tenant`'s reads over the measured phase of a flashblox
    summary.json; None if missing or not positive."""
    try:
        value = summary["schemes"][SCHEME]["tenants"][tenant]["read"][metric]
    except (KeyError, TypeError):
        return None
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) and value > 0 else None


def latency_rows(hardware: Mapping[str, Any], software: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per tenant of the hardware run: mean and p99 read latency over the measured phase of
    both runs, and software / hardware for each (the factor the slides report)."""
    rows = []
    for tenant in (hardware.get("schemes") or {}).get(SCHEME, {}).get("tenants") or {}:
        row: dict[str, Any] = {"tenant": tenant}
        for metric in ("mean_us", "p99_us"):
            hw, sw = read_metric(hardware, tenant, metric), read_metric(software, tenant, metric)
            row[f"hardware_{metric}"], row[f"software_{metric}"] = hw, sw
            row[f"{metric.removesuffix('_us')}_factor"] = sw / hw if hw and sw else None
        rows.append(row)
    return rows


def geomean(values: Sequence[float | None]) -> float:
    """Geometric mean of the positive finite values; NaN if there is none.

    >>> round(geomean([1.0, 4.0, None]), 6)
    2.0
    """
    good = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in good) / len(good)) if good else math.nan


def _factor_claim(id: str, text: str, factor: float, paper: float, rows: Sequence[Mapping[str, Any]], what: str) -> Claim:  # noqa: A002
    change = 1.0 / factor - 1.0 if math.isfinite(factor) and factor > 0 else math.nan
    why = (
        f"hardware isolation's {what} read latency is {factor:.2f}x lower than software isolation's over {len(rows)} tenants "
        f"({fmt_change(change)}) vs the paper's {paper}x ({fmt_change(1 / paper - 1)})."
        if not math.isnan(change)
        else "a latency is missing from summary.json."
    )
    return make_claim(id, text, 1.0 / paper - 1.0, change, RELATIVE, why)


def latency_claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Claims 1-3: p99 geometric mean, p99 best tenant, mean geometric mean."""
    p99 = geomean([r["p99_factor"] for r in rows])
    best = max((r["p99_factor"] for r in rows if r["p99_factor"] is not None), default=math.nan)
    mean = geomean([r["mean_factor"] for r in rows])
    best_tenant = next((r["tenant"] for r in rows if r["p99_factor"] == best), "?")
    return [
        _factor_claim("p99_hardware_vs_software", "p99 read latency, hardware vs software isolation (geometric mean over tenants): 2.6x lower", p99, PAPER["p99_factor"], rows, "p99"),
        _factor_claim("p99_hardware_vs_software_max", f"p99 read latency, hardware vs software isolation, best tenant ({best_tenant}): up to 3.1x lower", best, PAPER["p99_factor_max"], rows, f"best tenant's ({best_tenant}) p99"),
        _factor_claim("mean_hardware_vs_software", "mean read latency, hardware vs software isolation (geometric mean over tenants): 1.4x lower", mean, PAPER["mean_factor"], rows, "mean"),
    ]


# --------------------------------------------------------------------------------------
# Lifetime (the fast-forward model) and swaps


def swap_rounds(n: int, x: float = IMBALANCE_X) -> int:
    """The least whole K with (K+1)/(K+1/N) <= 1+x: ceil((N−1−x)/(N·x)) (slides; 10 for N=16).

    >>> swap_rounds(16)
    10
    """
    return math.ceil((n - 1 - x) / (n * x) - 1e-12)


def capacity_scale(resolved_toml: str) -> float:
    """Full `flashblox` device capacity / the run's: FULL_BLOCKS_PER_PLANE x FULL_PAGES_PER_BLOCK
    over the run's blocks_per_plane x pages_per_block (1 on the full device)."""
    device = parse_toml(resolved_toml)["device"]
    return FULL_BLOCKS_PER_PLANE * FULL_PAGES_PER_BLOCK / (int(device["blocks_per_plane"]) * int(device["pages_per_block"]))


def ideal_lifetime_s(inputs: Mapping[str, Any]) -> float:
    """Seconds until every block wears out if the measured erases were spread evenly over all
    blocks: sum of blocks x (pe_cycles − wear at start) over the total erase rate (NaN if
    nothing is erased).

    >>> ideal_lifetime_s({"pe_cycles": 10, "blocks": [2, 2], "wear_start": [0, 5], "rate_per_s": [1, 0]})
    30.0
    """
    budget = sum(b * max(inputs["pe_cycles"] - w, 0.0) for b, w in zip(inputs["blocks"], inputs["wear_start"]))
    rate = sum(inputs["rate_per_s"])
    return budget / rate if rate > 0 else math.nan


SWAP_COUNTERS = ("n_swaps", "n_swaps_completed", "swap_device_time_s", "swap_blocks")


def model_summary(hardware: Mapping[str, Any], swap: Mapping[str, Any]) -> dict[str, Any]:
    """The summary the lifetime model reads: `hardware`'s (no swaps: its per-vSSD erase rates
    are the load's own) with `swap`'s swap counters. The model (`inputs_from_run`) removes the
    erases swaps caused from the tenants' rates, swap_blocks / measured_s in proportion to each
    rate; those erases are not in `hardware`'s rates, so each rate is first scaled up by
    (total + swap_blocks / measured_s) / total, which that removal exactly undoes.

    >>> h = {"schemes": {"flashblox": {"device": {"measured_s": 10.0}, "scheme_counters": {},
    ...      "tenants": {"a": {"wear": {"erase_rate_per_s": 3.0}}, "b": {"wear": {"erase_rate_per_s": 1.0}}}}}}
    >>> s = {"schemes": {"flashblox": {"scheme_counters": {"n_swaps": 1, "n_swaps_completed": 1, "swap_device_time_s": 2.0, "swap_blocks": 20}}}}
    >>> m = model_summary(h, s)["schemes"]["flashblox"]
    >>> m["tenants"]["a"]["wear"]["erase_rate_per_s"], m["scheme_counters"]["swap_blocks"]
    (4.5, 20)
    """
    import copy

    doc = copy.deepcopy(dict(hardware))
    data = doc["schemes"][SCHEME]
    counters = (swap["schemes"][SCHEME].get("scheme_counters") or {})
    data["scheme_counters"] = {**(data.get("scheme_counters") or {}), **{k: counters.get(k, 0) for k in SWAP_COUNTERS}}
    secs = float(data["device"]["measured_s"])
    wears = [t["wear"] for t in data["tenants"].values()]
    total = sum(float(w["erase_rate_per_s"]) for w in wears)
    extra = float(counters.get("swap_blocks") or 0) / secs if secs > 0 else 0.0
    if total > 0:
        for w in wears:
            w["erase_rate_per_s"] = float(w["erase_rate_per_s"]) * (total + extra) / total
    return doc


def lifetime_model(hardware: Report, swap: Report) -> dict[str, Any]:
    """The fast-forward model (`model_summary` of the two runs) with and without swaps, its
    swap interval the slides' (ideal lifetime / (N·K)), plus `ideal_s`, `interval_min_s`,
    `swap_rounds`, `swap_time_s` (measured), `scale` (capacity_scale), the wear imbalance (max /
    mean of the channels' wear) at the end of each case and `interval_sweep`: the same with the
    interval divided by INTERVAL_DIVISORS (does swapping more often approach 1.1?)."""
    import tomli_w

    from ftlab import _core

    summary = json.dumps(model_summary(hardware.summary, swap.summary))
    # The swap rule ([scheme.flashblox], swaps on) is the `swap` run's; the rates are `hardware`'s.
    doc = parse_toml(swap.resolved_toml)
    first = json.loads(_core.lifetime(summary, swap.resolved_toml, SCHEME, 1.0))
    inputs = first["inputs"]
    ideal = ideal_lifetime_s(inputs)
    n = len(inputs["blocks"])
    k = swap_rounds(n)
    interval = ideal / (n * k) if math.isfinite(ideal) else 1e7
    doc.setdefault("scheme", {}).setdefault(SCHEME, {})["swap_interval_min_s"] = min(interval, 1e7)
    horizon = 10 * ideal if math.isfinite(ideal) else 1e9
    model = json.loads(_core.lifetime(summary, tomli_w.dumps(doc), SCHEME, horizon))
    counters = swap.summary["schemes"][SCHEME].get("scheme_counters") or {}
    done = float(counters.get("n_swaps_completed") or 0)
    model.update(
        {
            "ideal_s": ideal,
            "interval_min_s": interval,
            "swap_rounds": k,
            "n_channels": n,
            "swap_time_s": float(counters.get("swap_device_time_s") or 0) / done if done else None,
            "n_swaps_detailed": done,
            "scale": capacity_scale(hardware.resolved_toml),
        }
    )
    for case in ("with_swaps", "without_swaps"):
        model[case]["imbalance"] = wear_imbalance(model[case]["series"][-1]["wear"])
        gaps = [b - a for a, b in zip(model[case]["swap_times_s"], model[case]["swap_times_s"][1:])]
        model[case]["mean_interval_s"] = sum(gaps) / len(gaps) if gaps else None
    sweep = []
    for div in INTERVAL_DIVISORS:
        doc["scheme"][SCHEME]["swap_interval_min_s"] = min(interval / div, 1e7)
        w = json.loads(_core.lifetime(summary, tomli_w.dumps(doc), SCHEME, horizon))["with_swaps"]
        life = w["first_wear_out_s"] / ideal if w["first_wear_out_s"] and math.isfinite(ideal) else None
        sweep.append({"divisor": div, "interval_min_s": interval / div, "n_swaps": w["n_swaps"], "lifetime_vs_ideal": life, "imbalance": wear_imbalance(w["series"][-1]["wear"])})
    model["interval_sweep"] = sweep
    return model


#: The swap interval's divisors of the model-only sweep (1: the slides' N·K interval).
INTERVAL_DIVISORS = (1, 4, 16)


def wear_imbalance(wear: Sequence[float]) -> float:
    """Max / mean of the channels' wear (NaN if the mean is 0).

    >>> wear_imbalance([1.0, 3.0])
    1.5
    """
    mean = sum(wear) / len(wear) if wear else 0.0
    return max(wear) / mean if mean > 0 else math.nan


def lifetime_claims(model: Mapping[str, Any]) -> list[Claim]:
    """Claims 4-8: imbalance with swaps; higher without; lifetime vs ideal; swap minutes;
    swap interval in days; fraction of time swapping."""
    w, wo = model["with_swaps"], model["without_swaps"]
    scale, ideal, t_swap = model["scale"], model["ideal_s"], model["swap_time_s"]
    imb, imb_no = w["imbalance"], wo["imbalance"]
    claims = [
        make_claim(
            "wear_imbalance_with_swaps",
            "wear imbalance (most-worn channel / mean) with swaps, at the first wear-out: at most 1.1",
            PAPER["imbalance"] - 1.0,
            imb - 1.0,
            RELATIVE,
            f"with a swap every {model['interval_min_s'] * scale / DAY_S:.3g} days or more (ideal lifetime / (N·K) = 1/{model['n_channels'] * model['swap_rounds']}), "
            f"the fast-forward reaches its first wear-out with the most-worn channel at {imb:.3f}x the mean ({fmt_change(imb - 1)}) vs the paper's 1.1 (+10.0%).",
        ),
        make_claim(
            "wear_imbalance_without_swaps_higher",
            "wear imbalance without swaps is far above the imbalance with them",
            "+",
            relative(imb_no, imb),
            QUALITATIVE,
            f"without swaps the most-worn channel reaches {imb_no:.3f}x the mean at the first wear-out, against {imb:.3f}x with them ({fmt_change(relative(imb_no, imb))}).",
        ),
    ]
    life = (w["first_wear_out_s"] or math.nan) / ideal if ideal else math.nan
    life_no = (wo["first_wear_out_s"] or math.nan) / ideal if ideal else math.nan
    claims.append(
        make_claim(
            "lifetime_vs_ideal",
            "time to the first wear-out with swaps / ideal (even wear): near-ideal (1)",
            PAPER["lifetime_vs_ideal"],
            life,
            VALUE,
            f"the first channel wears out after {life:.3f} of the ideal lifetime with swaps and {life_no:.3f} without "
            f"(ideal: {ideal * scale / DAY_S:,.0f} days at full-device scale) vs the paper's near-ideal.",
        )
    )
    minutes = t_swap * scale / 60.0 if t_swap else math.nan
    claims.append(
        make_claim(
            "swap_minutes",
            "a channel swap's device time, full-device scale: 15 minutes",
            PAPER["swap_minutes"],
            minutes,
            VALUE,
            f"a swap took {fmt_number(t_swap, 's', 2)} of device time in the detailed run ({model['n_swaps_detailed']:.0f} completed), "
            f"x{scale:g} for the full device's capacity = {minutes:.1f} min vs the paper's 15 min."
            if t_swap
            else "no swap completed in the detailed run (phase `swap`).",
        )
    )
    interval = w["mean_interval_s"]
    days = interval * scale / DAY_S if interval else math.nan
    claims.append(
        make_claim(
            "swap_interval_days",
            "time between swaps, full-device scale: once per 19 days",
            PAPER["swap_interval_days"],
            days,
            VALUE,
            f"the fast-forward swaps every {days:.3g} days at full-device scale ({len(w['swap_times_s'])} swaps to the first wear-out at "
            f"{(w['first_wear_out_s'] or math.nan) * scale / DAY_S:,.0f} days) vs the paper's 19 days over a 5-year life: the interval follows the lifetime, "
            "i.e. the assumed write load.",
        )
    )
    fraction = t_swap / interval if t_swap and interval else math.nan
    claims.append(
        make_claim(
            "swap_time_fraction",
            "fraction of the time a swap runs (performance drops): 0.04%",
            PAPER["drop_fraction"],
            fraction,
            VALUE,
            f"a swap's device time over the interval between swaps (scale-free): {fmt_number(t_swap, 's', 2)} / {fmt_number(interval, 's', 0)} = {fraction:.3%} "
            "vs the paper's 0.04%.",
        )
    )
    return claims


def relative(value: float | None, base: float | None) -> float:
    """value / base − 1, NaN when either is missing or not finite, or base is 0."""
    if value is None or base is None or not math.isfinite(value) or not math.isfinite(base) or base == 0:
        return math.nan
    return value / base - 1.0


def flashblox_claims(hardware: Mapping[str, Any], software: Mapping[str, Any], model: Mapping[str, Any]) -> list[Claim]:
    """Every claim, in order (latency, then lifetime and swaps)."""
    return [*latency_claims(latency_rows(hardware, software)), *lifetime_claims(model)]


# --------------------------------------------------------------------------------------
# Health


def run_health(reports: Mapping[str, Report]) -> dict[str, Any]:
    """`claims.health` per run (schemes named after the runs). The `swap` run's busiest die is
    reported without a limit: the migration busies its dies on purpose; its tenants must still
    be stable."""
    checks = health({"schemes": {name: r.summary["schemes"][SCHEME] for name, r in reports.items()}})
    swap = checks["schemes"].get("swap")
    if swap is not None:
        swap["busiest_die_limit"] = None
        swap["ok"] = swap["tenants_ok"]
        swap["reasons"] = [r for r in swap["reasons"] if not r.startswith("busiest die")]
        checks["ok"] = all(s["ok"] for s in checks["schemes"].values())
    return checks


# --------------------------------------------------------------------------------------
# Files and figures


def _write_claims(out: Path, claims: Sequence[Claim], path: Path, quick: bool, wall_s: float, checks: Mapping[str, Any], model: Mapping[str, Any]) -> Path:
    from ftlab import _core

    lifetime = {k: v for k, v in model.items() if k not in ("with_swaps", "without_swaps", "inputs")}
    lifetime["inputs"] = model["inputs"]
    for case in ("with_swaps", "without_swaps"):
        m = model[case]
        lifetime[case] = {k: m[k] for k in ("first_wear_out_s", "first_wear_out_days", "n_swaps", "imbalance", "mean_interval_s")}
    return write_claims_json(
        out / CLAIMS_FILE,
        claims,
        reproduction=NAME,
        paper=PAPER_REF,
        scenario=str(path),
        quick=quick,
        ftlab_version=_core.version(),
        wall_s=round(wall_s, 3),
        software_iops_factor=SOFTWARE_IOPS_FACTOR,
        lifetime_model=lifetime,
        health=checks,
    )


def figures(reports: Mapping[str, Report], model: Mapping[str, Any], out: Path) -> list[Path]:
    """fig1-latency (per-tenant read latency, both runs), fig2-wear (the fast-forward's channel
    wear with and without swaps) and fig3-swap (the hardware run's read p99 per tenant over
    time, the swap phase shaded), each PNG with its CSV; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    rows = latency_rows(reports["hardware"].summary, reports["software"].summary)
    files = figure_latency(rows, out)
    files += figure_wear(model, out)
    files += figure_swap(reports["swap"], out)
    return files


def figure_latency(rows: Sequence[Mapping[str, Any]], out: Path) -> list[Path]:
    import matplotlib
    from matplotlib.figure import Figure

    from ftlab.report.style import scheme_style
    from ftlab.report.plots import _RC, save

    csv_path = write_csv(out / "latency.csv", rows)
    tenants = [r["tenant"] for r in rows]
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8.0, 3.0), layout="constrained")
        axes = fig.subplots(1, 2)
        for ax, metric, title in zip(axes, ("mean_us", "p99_us"), ("(a) mean read latency", "(b) p99 read latency")):
            for i, run in enumerate(LATENCY_RUNS):
                x = [k + (i - 0.5) * 0.4 for k in range(len(rows))]
                y = [r[f"{run}_{metric}"] or math.nan for r in rows]
                ax.bar(x, y, 0.4, label=f"{run} isolation", color=scheme_style(i).color, edgecolor="black", linewidth=0.5, hatch=("", "////")[i])
            ax.set_xticks(range(len(rows)), tenants, rotation=45, ha="right")
            ax.set_yscale("log")
            ax.set_ylabel("latency (µs)")
            ax.set_title(title)
        axes[0].legend(frameon=False)
    png = out / "fig1-latency.png"
    save(fig, png, "png")
    return [png, csv_path]


def figure_wear(model: Mapping[str, Any], out: Path) -> list[Path]:
    from ftlab.report import lifetime as lifetime_files

    csv_path, png = out / "lifetime.csv", out / "fig2-wear.png"
    lifetime_files.write_csv(dict(model), csv_path)
    lifetime_files.plot(dict(model), png)
    return [png, csv_path]


def figure_swap(hardware: Report, out: Path) -> list[Path]:
    import matplotlib
    import polars as pl
    from matplotlib.figure import Figure

    from ftlab.report.style import scheme_style
    from ftlab.report.plots import _RC, save

    frame = hardware.timeseries.select("tenant", "window_start_s", "read_iops", "read_p99_us", "write_iops").sort("tenant", "window_start_s")
    csv_path = out / "swap-timeline.csv"
    frame.write_csv(csv_path)
    swap_start = float(parse_toml(hardware.resolved_toml)["scheme"][SCHEME]["swap_interval_min_s"])
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8.0, 3.2), layout="constrained")
        ax = fig.subplots()
        for i, tenant in enumerate(frame["tenant"].unique(maintain_order=True).to_list()):
            rows = frame.filter(pl.col("tenant") == tenant)
            style = scheme_style(i)
            ax.plot(rows["window_start_s"].to_list(), rows["read_p99_us"].to_list(), color=style.color, linestyle=style.mpl_linestyle, linewidth=0.9, label=tenant)
        ax.axvspan(swap_start, float(frame["window_start_s"].max() or swap_start), color="0.9", zorder=0, label="phase `swap`")
        ax.set_yscale("log")
        ax.set_xlabel("simulated time (s); shaded: swaps may run")
        ax.set_ylabel("p99 read latency (µs)")
        ax.legend(ncols=3, fontsize="small", frameon=False)
    png = out / "fig3-swap.png"
    save(fig, png, "png")
    return [png, csv_path]


# --------------------------------------------------------------------------------------
# Sensitivity

#: One knob at a time: (case name, overrides applied to every run). Load: every tenant's rate
#: scaled (set per tenant and synthetic part by `load_cases`). Assumed workload parameters: Bing
#: Search's skew, Bing Index's and PageRank's read ratios, Azure Storage's read ratio (not
#: published at block level: 0.2 and 0.8 around the assumed 0.5), YCSB D's "latest" proxy
#: (uniform reads instead of zipfian). The swap's rate limit.
KNOB_CASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bing-search zipf_theta=0.99", ("tenants.bing-search.synthetic.zipf_theta=0.99",)),
    ("bing-index read_ratio=0.1", ("tenants.bing-index.synthetic.read_ratio=0.1",)),
    ("pagerank read_ratio=0.7", ("tenants.pagerank.synthetic.read_ratio=0.7",)),
    ("azure-storage read_ratio=0.2", ("tenants.azure-storage.synthetic.read_ratio=0.2",)),
    ("azure-storage read_ratio=0.8", ("tenants.azure-storage.synthetic.read_ratio=0.8",)),
    ("ycsb-d pattern=uniform", ("tenants.ycsb-d.synthetic.pattern=uniform",)),
    ("swap_reads_in_flight_max=16", ("scheme.flashblox.swap_reads_in_flight_max=16",)),
)
#: The tenants (workload models) of the reproduction's scenarios: the talk's "14 data center
#: workloads" as it names them (YCSB A-F, Bing Search / Index / PageRank, a transactional
#: database, Azure Storage: 11 names; the 3 others are not named in the slides). Each
#: parameter's source, or ASSUMED, is given beside it in scenarios/reproduce/flashblox*.toml.
WORKLOADS = ("ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f", "bing-search", "bing-index", "pagerank", "tpcc", "azure-storage")
LOAD_FACTORS = (0.5, 1.5)


def sensitivity_cases(scenario_text: str) -> list[tuple[str, list[str]]]:
    """The cases of `--sensitivity`: base, the load scaled by LOAD_FACTORS, KNOB_CASES for the
    tenants the scenario has."""
    doc = parse_toml(scenario_text)
    names = {t.get("name") for t in doc.get("tenants") or []}
    cases: list[tuple[str, list[str]]] = [("base", [])]
    for f in LOAD_FACTORS:
        sets = []
        for t in doc["tenants"]:
            parts = t.get("synthetic")
            if isinstance(parts, Mapping):
                sets.append(f"tenants.{t['name']}.synthetic.rate_iops={float(parts.get('rate_iops', 1000.0)) * f:g}")
            elif isinstance(parts, list):
                sets += [f"tenants.{t['name']}.synthetic.{i}.rate_iops={float(p.get('rate_iops', 1000.0)) * f:g}" for i, p in enumerate(parts)]
        cases.append((f"load x{f:g}", sets))
    for name, sets in KNOB_CASES:
        if not sets[0].startswith("tenants.") or name.split()[0] in names:
            cases.append((name, list(sets)))
    return cases


def run_sensitivity(path: Path, out: Path, quick: bool, jobs: int | None, progress: Progress | None) -> list[dict[str, Any]]:
    """Rerun the three runs per case (direct runs into out/sensitivity/<case>/), recompute the claims,
    write sensitivity.json and .csv; returns `sensitivity_summary`'s rows. The software
    token bucket is varied too (SENSITIVITY_IOPS_FACTORS x the rate), on the software run only (the base run's
    `hardware` and `swap` are read back from out/run)."""
    start = time.perf_counter()
    cases = sensitivity_cases(path.read_text(encoding="utf-8"))
    by_case: dict[str, list[Claim]] = {}
    details = []
    for i, (name, sets) in enumerate(cases):
        if progress:
            progress(f"sensitivity: {name}", i, len(cases) + 2)
        reports = run_pair(path, out / "sensitivity" / _slug(name), sets, jobs, None, name)
        by_case[name] = flashblox_claims(reports["hardware"].summary, reports["software"].summary, lifetime_model(reports["hardware"], reports["swap"]))
        details.append(_detail(name, sets, reports, by_case[name]))
    import ftlab

    base = {run: ftlab.load(out / "run" / run) for run in ("hardware", "swap")}
    model = lifetime_model(base["hardware"], base["swap"])
    for i, factor in enumerate(SENSITIVITY_IOPS_FACTORS):
        name = f"software iops_max = {factor:g} x rate" if factor else "software iops_max unlimited"
        if progress:
            progress(f"sensitivity: {name}", len(cases) + i, len(cases) + 2)
        sets = software_overrides(path.read_text(encoding="utf-8"), factor)
        sw = ftlab.run(path, out=out / "sensitivity" / _slug(name), set=sets, jobs=1)
        by_case[name] = flashblox_claims(base["hardware"].summary, sw.summary, model)
        details.append(_detail(name, sets, {**base, "software": sw}, by_case[name]))
    rows = sensitivity_summary(by_case)
    doc = {"reproduction": NAME, "scenario": str(path), "quick": quick, "wall_s": round(time.perf_counter() - start, 3), "claims": rows, "cases": details}
    write_json(out / SENSITIVITY_FILE, doc)
    write_csv(out / SENSITIVITY_CSV, rows, ["claim", "text", "unit", "paper_value", "min", "max", "n_cases", "reversed_in"])
    return rows


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in name)


def _detail(name: str, sets: Sequence[str], reports: Mapping[str, Report], claims: Sequence[Claim]) -> dict[str, Any]:
    unstable = sorted(f"{run}/{t}" for run, r in reports.items() for t, v in r.summary["schemes"][SCHEME]["tenants"].items() if v.get("unstable") is not False)
    return {"case": name, "set": list(sets), "unstable": unstable, "claims": {c.id: {"value": c.ftlab_value, "verdict": c.verdict} for c in claims}}
