"""ftlab.reproduce.flashblox: the FlashBlox reproduction (Huang, Badam, Caulfield, Nath, Sengupta,
Sharma and Qureshi, "FlashBlox: Achieving Both Performance Isolation and Uniform Lifetime for
Virtualized SSDs"; our source is the talk's slides only, which name no venue), run by `ftlab
reproduce flashblox`.

The driver (`ftlab.reproduce.driver`) runs `scenarios/reproduce/flashblox.toml` (or, quick,
`flashblox-quick.toml`) three times with the same tenants, seed and load (the runs are data,
`[reproduce]` of `papers/flashblox.toml`; the software run's per-tenant overrides are computed
from the scenario, `FlashBlox.run_set`): `hardware` (every tenant a channel-isolated vSSD, as the
scenario says, swaps off), `software` (every vSSD software-isolated: all share every die,
isolated by the engine's fair-share scheduler, `ftl.scheduler = "fair"`, which the scenarios set
for all three runs; no token bucket unless SOFTWARE_IOPS_FACTOR > 0; every tenant also run alone,
`[measure] solo = true`, for its slowdown) and `swap` (as the scenario says, swaps on: its first
swap starts at `swap_interval_min_s`, in phase `swap`). The claims are data
(`papers/flashblox.toml`), and so are their values but the lifetime's (`measure`):

1. latency, declared: the geometric mean over tenants of hardware's read p99 / software's, and
   of the means; the software run's p99 slowdown (shared over alone) for "3x tail latency"
   (`[[reproduce.tables]]` of a row per tenant, `[[reproduce.geomeans]]`, `ftlab.reproduce.rows`);
2. lifetime, with `ftlab lifetime`'s fast-forward model (crates/ftlab/src/metrics/lifetime_model.rs)
   fed by `hardware`'s per-vSSD erase rates (no swap in them) and `swap`'s swap cost
   (`model_summary`): the wear imbalance at the first wear-out with and without swaps, and
   the lifetime with swaps over the ideal;
3. swaps: a swap's device time, measured in the `swap` run and scaled to the full `flashblox`
   device by its capacity; the fast-forward's mean interval between swaps at the same scale,
   and over the ideal lifetime for a 5-year life; the fraction of time a swap runs (the
   device-scale values are declared, read from `device_scale_table`'s row);
4. the slides' own arithmetic for K and N·K (N = 16, x = 0.1).

It writes claims.json, the declared figures (`[[reproduce.figures]]`: latency.csv and
fig1-latency.png from the declared table `latency`, swap-timeline.csv and fig3-swap.png
from the swap run's time series), `ftlab lifetime`'s lifetime.csv and fig2-wear.png, and with `sensitivity`
sensitivity.json/.csv (the driver's `run_cases` over `FlashBlox.sensitivity_cases`: the load
factors here and the declared `[[reproduce.cases]]` of papers/flashblox.toml, then the
software token bucket). Only ratios and arithmetic on the simulator's and the model's outputs
are computed here (`FlashBlox`, registered as `PAPER`); it is not the simulator, the lifetime
model nor the driver, draws no figure by hand, and prints nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from ftlab import _core, _toml
from ftlab._errors import usage_error
from ftlab.report import html  # noqa: F401  (before the runs' threads race to import it)
from ftlab.report import lifetime as lifetime_files
from ftlab.reproduce import claimfile
from ftlab.reproduce.claimfile import Measured, SeedResult, evaluate
from ftlab.reproduce.claims import (
    Claim,
    Health,
    drop_die_limit,
    health,
    ratio,
)
from ftlab.reproduce.driver import Case, Driven, PaperCode, RunDecl, Runs, claim_values, load_plan
from ftlab.reproduce.figures import Table, draw_all
from ftlab.reproduce.rows import Row, read_tables
from ftlab.results import LifetimeModel, Summary, lifetime_from_json

if TYPE_CHECKING:
    from ftlab.report import Report

# matplotlib, numpy, plotly, polars and tomli_w are imported inside the functions that use them, not
# here: heavy, and `ftlab --help` and `import ftlab` start without them.

NAME = "flashblox"
#: The scenario, full and quick, as the plan declares it.
SCENARIO, QUICK_SCENARIO = next((s.full, s.quick) for s in load_plan(NAME).scenarios)
SCHEME = "flashblox"
#: The runs: channel vSSDs without swaps, software vSSDs, channel vSSDs with swaps.
RUNS = tuple(r.label for r in load_plan(NAME).runs)
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


@dataclass(frozen=True)
class Seen:
    """One seed's runs as the paper reads them: the Reports by run name, the lifetime model and
    the declared tables (`latency_tables`)."""

    reports: dict[str, Report]
    model: FlashbloxLifetime
    tables: dict[str, list[Row]]


class FlashBlox(PaperCode[Seen]):
    """FlashBlox's own code under the driver: the software run's overrides, the lifetime model,
    measures, health, figures and its sensitivity study."""

    name = NAME

    def run_set(self, runs: Runs, decl: RunDecl, seed: Sequence[str], case: Sequence[str]) -> list[str]:
        extra = [*seed, *case]
        if decl.label != "software":
            return [*extra, *decl.set]
        text = runs.scenarios[decl.scenario].read_text(encoding="utf-8")
        return [*extra, *software_overrides(_with_overrides(text, extra)), *decl.set]

    def read(self, runs: Runs, base: Seen | None) -> Seen:
        reports = dict(runs.reports)
        tables = latency_tables({label: r.summary for label, r in reports.items()})
        return Seen(reports, lifetime_model(reports["hardware"], reports["swap"]), tables)

    def tables(self, seen: Seen) -> dict[str, Sequence[Mapping[str, object]]]:
        """The declared tables and the model's `device_scale` row (`device_scale_table`)."""
        return {**seen.tables, "device_scale": device_scale_table(seen.model.get("device_scale"))}

    def measure(self, seen: Seen, name: str) -> Measured:
        """The lifetime model's measures and the slides' arithmetic (`lifetime_measurements`)."""
        own = lifetime_measurements(seen.model)
        if name not in own:
            raise usage_error("measure", f"unknown {NAME} computation {name!r}")
        return own[name]

    def health(self, seen: Seen) -> Health:
        return run_health(seen.reports)

    def figures(self, seen: Seen, out: Path) -> list[Path]:
        """The declared figures (`[[reproduce.figures]]`): Figure 1 from the table `latency`,
        Figure 3 from the swap run's time series from `swap_start_s`; then `figure_wear`."""
        swap = seen.reports["swap"]
        tables: dict[str, Table] = {"swap_timeseries": swap.timeseries}
        values = {"swap_start_s": swap_start_s(swap)}
        declared = draw_all(load_plan(NAME).figures, self.rows(seen), out, tables, values)
        return [*declared, *figure_wear(seen.model, out)]

    def rows(self, seen: Seen) -> Sequence[Mapping[str, object]]:
        """Figure 1's rows (latency.csv, its declared bar figure): the declared table `latency`."""
        return seen.tables["latency"]

    def sections(self, seen: Seen) -> dict[str, object]:
        return {"software_iops_factor": SOFTWARE_IOPS_FACTOR, "lifetime_model": lifetime_section(seen.model)}

    def extra(self, seen: Seen) -> dict[str, object]:
        return {"reports": seen.reports, "model": seen.model}

    def sensitivity_cases(self, runs: Runs) -> list[Case]:
        """The load factors and the declared cases (`sensitivity_cases`), each rerunning the
        three runs, then the software token bucket (SENSITIVITY_IOPS_FACTORS x the rate): the
        software run alone, with those overrides only (no `measure.solo`), the base's
        `hardware` and `swap` kept."""
        text = runs.scenarios["flashblox"].read_text(encoding="utf-8")
        cases = [Case(name, set={"flashblox": sets}) for name, sets in sensitivity_cases(text)]
        for factor in SENSITIVITY_IOPS_FACTORS:
            name = f"software iops_max = {factor:g} x rate" if factor else "software iops_max unlimited"
            sets = software_overrides(text, factor)
            cases.append(Case(name, runs=("software",), set={"flashblox": sets}, replace=True))
        return cases

    def sensitivity_detail(self, case: Case, seen: Seen, claims: Sequence[Claim]) -> dict[str, object]:
        """A case's overrides, the runs' unstable tenants ("run/tenant") and each claim's
        value and verdict."""
        unstable = sorted(
            f"{run}/{t}"
            for run, r in seen.reports.items()
            for t, v in r.summary["schemes"][SCHEME]["tenants"].items()
            if v.get("unstable") is not False
        )
        sets = list(case.set.get("flashblox", ()))
        return {"case": case.name, "set": sets, "unstable": unstable, "claims": claim_values(claims)}


#: What `ftlab reproduce flashblox` runs (the registry finds it by this name).
PAPER = Driven(FlashBlox())


# --------------------------------------------------------------------------------------
# Runs


def tenant_rates(scenario: Mapping[str, Any]) -> list[float]:
    """Each tenant's offered rate (requests/s): the sum of its synthetic parts' `rate_iops`
    (poisson; 1000, the default, where absent). A tenant without a synthetic workload is an
    `ftlab.UsageError`: its software vSSD would need a rate this module cannot know.

    >>> tenant_rates({"tenants": [{"synthetic": {"rate_iops": 10.0}},
    ...                           {"synthetic": [{"rate_iops": 1.0}, {}]}]})
    [10.0, 1001.0]
    """
    rates = []
    for i, tenant in enumerate(scenario.get("tenants") or []):
        parts = tenant.get("synthetic")
        parts = [parts] if isinstance(parts, Mapping) else parts
        if not parts:
            raise usage_error(
                f"tenants.{i}",
                "the FlashBlox reproduction needs a synthetic (poisson) workload per tenant to "
                "size its software vSSD",
            )
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
    rates = tenant_rates(_toml.loads(scenario_text))
    items = ", ".join(
        f'{{kind = "software", iops_max = {factor * r:.1f}}}' if factor else '{kind = "software"}'
        for r in rates
    )
    return [f"scheme.flashblox.tenants=[{items}]"]


def _with_overrides(text: str, extra: Sequence[str]) -> str:
    """The scenario text with `tenants.NAME.synthetic.rate_iops=V` (and `.synthetic.I.rate_iops`)
    overrides of `extra` applied (the only ones that change the software vSSDs' rates); others do
    not matter here."""
    if not any(".rate_iops=" in e for e in extra):
        return text
    import tomli_w

    doc = _toml.loads(text)
    for e in extra:
        key, _, value = e.partition("=")
        parts = key.split(".")
        if len(parts) == 4 and parts[0] == "tenants" and parts[2:] == ["synthetic", "rate_iops"]:
            for t in doc.get("tenants") or []:
                if t.get("name") == parts[1] and isinstance(t.get("synthetic"), dict):
                    t["synthetic"]["rate_iops"] = float(value)
        if (
            len(parts) == 5
            and parts[0] == "tenants"
            and parts[2] == "synthetic"
            and parts[3].isdigit()
            and parts[4] == "rate_iops"
        ):
            for t in doc.get("tenants") or []:
                if (
                    t.get("name") == parts[1]
                    and isinstance(t.get("synthetic"), list)
                    and int(parts[3]) < len(t["synthetic"])
                ):
                    t["synthetic"][int(parts[3])]["rate_iops"] = float(value)
    return tomli_w.dumps(doc)


# --------------------------------------------------------------------------------------
# Latency


def latency_tables(summaries: Mapping[str, object]) -> dict[str, list[Row]]:
    """The declared tables (`[[reproduce.tables]]` of papers/flashblox.toml: `latency`, a row per
    tenant, and `slowdown`) of the runs' summary.json by run label."""
    return read_tables(load_plan(NAME).tables, summaries)


# --------------------------------------------------------------------------------------
# Lifetime (the fast-forward model) and swaps


def swap_rounds(n: int, x: float = IMBALANCE_X) -> int:
    """The least whole K with (K+1)/(K+1/N) <= 1+x: ceil((N−1−x)/(N·x)) (slides; 10 for N=16),
    the core's (`_core.swap_rounds`, `metrics::lifetime_model::swap_rounds_whole`).

    >>> swap_rounds(16)
    10
    """
    whole = _core.swap_rounds(n, x)[1]
    if whole is None:
        raise ValueError(f"no whole K for x = {x}: the imbalance target 1 + x must be above 1")
    return whole


def capacity_scale(resolved_toml: str) -> float:
    """Full `flashblox` device capacity / the run's: FULL_BLOCKS_PER_PLANE x FULL_PAGES_PER_BLOCK
    over the run's blocks_per_plane x pages_per_block (1 on the full device)."""
    device = _toml.loads(resolved_toml)["device"]
    return (
        FULL_BLOCKS_PER_PLANE
        * FULL_PAGES_PER_BLOCK
        / (int(device["blocks_per_plane"]) * int(device["pages_per_block"]))
    )


def ideal_lifetime_s(inputs: Mapping[str, Any]) -> float:
    """Seconds until every block wears out if the measured erases were spread evenly over all
    blocks: sum of blocks x (pe_cycles − wear at start) over the total erase rate (NaN if
    nothing is erased).

    >>> ideal_lifetime_s({"pe_cycles": 10, "blocks": [2, 2], "wear_start": [0, 5], "rate_per_s": [1, 0]})
    30.0
    """
    budget = sum(
        b * max(inputs["pe_cycles"] - w, 0.0)
        for b, w in zip(inputs["blocks"], inputs["wear_start"], strict=True)
    )
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
    ...      "tenants": {"a": {"wear": {"erase_rate_per_s": 3.0}},
    ...                  "b": {"wear": {"erase_rate_per_s": 1.0}}}}}}
    >>> s = {"schemes": {"flashblox": {"scheme_counters": {
    ...     "n_swaps": 1, "n_swaps_completed": 1, "swap_device_time_s": 2.0, "swap_blocks": 20}}}}
    >>> m = model_summary(h, s)["schemes"]["flashblox"]
    >>> m["tenants"]["a"]["wear"]["erase_rate_per_s"], m["scheme_counters"]["swap_blocks"]
    (4.5, 20)
    """
    doc = copy.deepcopy(dict(hardware))
    data = doc["schemes"][SCHEME]
    counters = swap["schemes"][SCHEME].get("scheme_counters") or {}
    data["scheme_counters"] = {
        **(data.get("scheme_counters") or {}),
        **{k: counters.get(k, 0) for k in SWAP_COUNTERS},
    }
    secs = float(data["device"]["measured_s"])
    wears = [t["wear"] for t in data["tenants"].values()]
    total = sum(float(w["erase_rate_per_s"]) for w in wears)
    extra = float(counters.get("swap_blocks") or 0) / secs if secs > 0 else 0.0
    if total > 0:
        for w in wears:
            w["erase_rate_per_s"] = float(w["erase_rate_per_s"]) * (total + extra) / total
    return doc


class IntervalCase(TypedDict):
    """One floor of `interval_sweep`: the model with swap_interval_min_s divided by `divisor`."""

    divisor: int
    interval_min_s: float
    n_swaps: int
    lifetime_vs_ideal: float | None
    imbalance: float | None


class FlashbloxLifetime(LifetimeModel, total=False):
    """The core's lifetime model (`ftlab.results.LifetimeModel`) plus what `lifetime_model`
    adds to it."""

    ideal_s: float
    interval_min_s: float
    swap_rounds: int
    n_channels: int
    swap_time_s: float | None
    n_swaps_detailed: float
    scale: float
    interval_sweep: list[IntervalCase]


#: The lifetime model's two cases.
CASES: tuple[Literal["with_swaps", "without_swaps"], ...] = ("with_swaps", "without_swaps")


def lifetime_model(hardware: Report, swap: Report) -> FlashbloxLifetime:
    """The fast-forward model (`model_summary` of the two runs) with and without swaps. Swaps
    fire on the measured erase-rate imbalance, the `swap` run's own rule ([scheme.flashblox]:
    `swap_threshold`, `rate_window`, and `swap_interval_min_s` only as the floor between checks);
    nothing imposes an interval, so the interval and the time spent swapping are outputs. Plus
    `ideal_s`, `interval_min_s` (the floor), `swap_rounds`, `swap_time_s` (measured), `scale`
    (capacity_scale), the wear imbalance (max / mean of the channels' wear) at the end of each
    case, the model's `swap_bound` (does N·K fit before the first wear-out) and `worst_case`
    (the slides' one-hot case over a 5-year life), and `interval_sweep`: the same with the
    floor divided by INTERVAL_DIVISORS (the floor is ftlab's choice, not the slides')."""
    import tomli_w

    summary = json.dumps(model_summary(hardware.summary, swap.summary))
    # The swap rule ([scheme.flashblox], swaps on) is the `swap` run's; the rates are `hardware`'s.
    doc = _toml.loads(swap.resolved_toml)
    first = lifetime_from_json(_core.lifetime(summary, swap.resolved_toml, SCHEME, 1.0))
    inputs = first["inputs"]
    ideal = ideal_lifetime_s(inputs)
    n = len(inputs["blocks"])
    k = swap_rounds(n)
    interval = float(inputs["swap_interval_min_s"])
    horizon = 10 * ideal if math.isfinite(ideal) else 1e9
    core = lifetime_from_json(_core.lifetime(summary, tomli_w.dumps(doc), SCHEME, horizon))
    counters = swap.summary["schemes"][SCHEME].get("scheme_counters") or {}
    done = float(counters.get("n_swaps_completed") or 0)
    model = FlashbloxLifetime(
        **core,
        ideal_s=ideal,
        interval_min_s=interval,
        swap_rounds=k,
        n_channels=n,
        swap_time_s=float(counters.get("swap_device_time_s") or 0) / done if done else None,
        n_swaps_detailed=done,
        scale=capacity_scale(hardware.resolved_toml),
        interval_sweep=[],
    )
    for case in CASES:
        model[case]["imbalance"] = wear_imbalance(model[case]["series"][-1]["wear"])
        gaps = [b - a for a, b in itertools.pairwise(model[case]["swap_times_s"])]
        model[case]["mean_interval_s"] = sum(gaps) / len(gaps) if gaps else None
    sweep: list[IntervalCase] = []
    for div in INTERVAL_DIVISORS:
        doc.setdefault("scheme", {}).setdefault(SCHEME, {})["swap_interval_min_s"] = interval / div
        w = lifetime_from_json(_core.lifetime(summary, tomli_w.dumps(doc), SCHEME, horizon))["with_swaps"]
        life = w["first_wear_out_s"] / ideal if w["first_wear_out_s"] and math.isfinite(ideal) else None
        sweep.append(
            {
                "divisor": div,
                "interval_min_s": interval / div,
                "n_swaps": w["n_swaps"],
                "lifetime_vs_ideal": life,
                "imbalance": wear_imbalance(w["series"][-1]["wear"]),
            }
        )
    model["interval_sweep"] = sweep
    return model


#: The swap floor's divisors of the model-only sweep (1: the scenario's own floor).
INTERVAL_DIVISORS = (1, 4, 16)


def wear_imbalance(wear: Sequence[float]) -> float:
    """Max / mean of the channels' wear (NaN if the mean is 0).

    >>> wear_imbalance([1.0, 3.0])
    1.5
    """
    mean = sum(wear) / len(wear) if wear else 0.0
    return max(wear) / mean if mean > 0 else math.nan


#: A 5-year life in days (the slides' worst case: "For an SSD with 5 years lifetime").
FIVE_YEARS_DAYS = 5 * 365.25


def lifetime_measurements(model: Mapping[str, Any]) -> dict[str, Measured]:
    """The lifetime and swap values from the fast-forward model (`lifetime_model`): its
    arithmetic (ratios to the ideal life, days at full-device scale) here, the device-scale
    days and minutes declared (`device_scale_table`'s row, papers/flashblox.toml)."""
    w, wo = model["with_swaps"], model["without_swaps"]
    scale, ideal = model["scale"], model["ideal_s"]
    imb, imb_no = w["imbalance"], wo["imbalance"]
    nk = model["n_channels"] * model["swap_rounds"]
    life = (w["first_wear_out_s"] or math.nan) / ideal if ideal else math.nan
    life_no = (wo["first_wear_out_s"] or math.nan) / ideal if ideal else math.nan
    wear_out_days = (w["first_wear_out_s"] or math.nan) * scale / DAY_S
    worst = model.get("worst_case") or {}
    five = float(worst.get("interval_days_mean") or math.nan)
    swaps = (
        f"{len(w['swap_times_s'])} swaps to the first wear-out at {wear_out_days:,.0f} "
        "days (full-device scale)"
    )
    return {
        "imbalance_with_swaps": Measured(
            imb,
            "with swaps the fast-forward reaches its first wear-out with the most-worn "
            f"channel at {imb:.3f}x the mean ({swaps}; N·K = {nk}). "
            + str((model.get("swap_bound") or {}).get("why") or ""),
        ),
        "imbalance_margin": Measured(
            ratio(imb_no, imb) - 1.0,
            f"without swaps the most-worn channel reaches {imb_no:.3f}x the mean at the first "
            f"wear-out, against {imb:.3f}x with them.",
        ),
        "lifetime_vs_ideal": Measured(
            life,
            f"the first channel wears out after {life:.3f} of the ideal lifetime with swaps "
            f"and {life_no:.3f} without (ideal: {ideal * scale / DAY_S:,.0f} days at "
            "full-device scale).",
        ),
        "swap_interval_5y_days": Measured(
            five,
            "the slides' worst case (one channel takes every write) over a 5-year ideal life, "
            "swapping on the measured "
            f"imbalance: a swap every {five:.3g} days on average ({worst.get('n_swaps', 'n/a')} swaps).",
        ),
        **formula_measurements(),
    }


def device_scale_table(scale: Mapping[str, Any] | None) -> list[dict[str, object]]:
    """The "device_scale" table papers/flashblox.toml's day and minute values read: the
    fast-forward's `device_scale` block (`lifetime_model`) as one row, its mean interval and
    swap-time share as numbers (NaN when absent), `life` (the ideal life and the rate scale)
    and `spread` (the intervals' range, if any) as text; no row without the block."""
    if not scale:
        return []
    lo, hi = scale.get("interval_days_min"), scale.get("interval_days_max")
    return [
        {
            **scale,
            "interval_days_mean": _num_or_nan(scale.get("interval_days_mean")),
            "swap_time_fraction": _num_or_nan(scale.get("swap_time_fraction")),
            "life": f"a {scale['life_days_ideal']:,.0f}-day ideal life, rates x{scale['rate_scale']:.3g}",
            "spread": f" (from {lo:.3g} to {hi:.3g} days)" if lo is not None and hi is not None else "",
        }
    ]


def _num_or_nan(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def formula_measurements() -> dict[str, Measured]:
    """The slides' own arithmetic for N = 16, x = 0.1: K ≥ (N − 1 − x)/(Nx) unrounded, the
    least whole K, and N·K with the slides' K = 9."""
    bound = _core.swap_rounds(16, IMBALANCE_X)[0]
    return {
        "k_bound_n16": Measured(
            bound, f"(16 − 1 − 0.1) / (16 x 0.1) = {bound:.4g}: K must be at least that."
        ),
        "k_whole_n16": Measured(
            float(swap_rounds(16)), f"the least whole K ≥ {bound:.4g} is {swap_rounds(16)}."
        ),
        "nk_n16_k9": Measured(
            16.0 * 9, "N·K = 16 x 9 = 144 with the slides' K = 9 (16 x 10 = 160 with the least whole K)."
        ),
    }


def flashblox_claims(
    hardware: Summary,
    software: Summary,
    model: Mapping[str, Any],
    checks: Health | None = None,
) -> list[Claim]:
    """Every claim of papers/flashblox.toml judged on one seed's runs (`checks`: the health
    by run name; default: every run healthy as far as these summaries say)."""
    if checks is None:
        checks = health(
            {
                "schemes": {
                    "hardware": hardware["schemes"][SCHEME],
                    "software": software["schemes"][SCHEME],
                    "swap": hardware["schemes"][SCHEME],
                }
            }
        )
    tables = latency_tables({"hardware": hardware, "software": software})
    seen = Seen({}, cast(FlashbloxLifetime, model), tables)
    return evaluate(claimfile.load(NAME), [SeedResult(0, PAPER.code.measurements(seen), checks)])


# --------------------------------------------------------------------------------------
# Health


def run_health(reports: Mapping[str, Report]) -> Health:
    """`claims.health` per run (schemes named after the runs). The `swap` run's busiest die is
    reported without a limit: the migration busies its dies on purpose; its tenants must still
    be stable."""
    checks = health({"schemes": {name: r.summary["schemes"][SCHEME] for name, r in reports.items()}})
    if "swap" in checks["schemes"]:
        drop_die_limit(checks, "swap")
    return checks


# --------------------------------------------------------------------------------------
# Files and figures


def lifetime_section(model: FlashbloxLifetime) -> dict[str, object]:
    """claims.json's `lifetime_model`: the model's scalars, its inputs and, per case, the first
    wear-out, the swaps, the imbalance and the mean interval (not the wear series)."""
    lifetime: dict[str, object] = {
        k: v for k, v in model.items() if k not in ("with_swaps", "without_swaps", "inputs")
    }
    lifetime["inputs"] = model["inputs"]
    for case in CASES:
        m = model[case]
        lifetime[case] = {
            "first_wear_out_s": m["first_wear_out_s"],
            "first_wear_out_days": m["first_wear_out_days"],
            "n_swaps": m["n_swaps"],
            "imbalance": m["imbalance"],
            "mean_interval_s": m["mean_interval_s"],
        }
    return lifetime


def figure_wear(model: LifetimeModel, out: Path) -> list[Path]:
    """fig2-wear: `ftlab lifetime`'s own figure and CSV of the model (ftlab.report.lifetime).
    Not declared: it is that command's figure, drawn from the model, not from rows."""
    out.mkdir(parents=True, exist_ok=True)
    csv_path, png = out / "lifetime.csv", out / "fig2-wear.png"
    lifetime_files.write_csv(model, csv_path)
    lifetime_files.plot(model, png)
    return [png, csv_path]


def swap_start_s(swap: Report) -> float:
    """When swaps may start in the swap run: its resolved `scheme.flashblox.swap_interval_min_s`."""
    return float(_toml.loads(swap.resolved_toml)["scheme"][SCHEME]["swap_interval_min_s"])


# --------------------------------------------------------------------------------------
# Sensitivity

#: One knob at a time, besides the load (every tenant's rate scaled, set per tenant and
#: synthetic part by `sensitivity_cases`): the assumed workload parameters and the swap's rate
#: limit are declared cases (`[[reproduce.cases]]` of papers/flashblox.toml), each kept when
#: the scenario has the tenant it names.
#: The tenants (workload models) of the reproduction's scenarios: the talk's "14 data center
#: workloads" as it names them (YCSB A-F, Bing Search / Index / PageRank, a transactional
#: database, Azure Storage: 11 names; the 3 others are not named in the slides). Each
#: parameter's source, or ASSUMED, is given beside it in scenarios/reproduce/flashblox*.toml.
WORKLOADS = (
    "ycsb-a",
    "ycsb-b",
    "ycsb-c",
    "ycsb-d",
    "ycsb-e",
    "ycsb-f",
    "bing-search",
    "bing-index",
    "pagerank",
    "tpcc",
    "azure-storage",
)
LOAD_FACTORS = (0.5, 1.5)


def sensitivity_cases(scenario_text: str) -> list[tuple[str, list[str]]]:
    """The cases of `--sensitivity` that rerun the three runs, as (name, overrides): the load
    scaled by LOAD_FACTORS, then the declared cases (`[[reproduce.cases]]`) whose overrides
    name no tenant or a tenant the scenario has."""
    doc = _toml.loads(scenario_text)
    names = {t.get("name") for t in doc.get("tenants") or []}
    cases: list[tuple[str, list[str]]] = []
    for f in LOAD_FACTORS:
        sets = []
        for t in doc["tenants"]:
            parts = t.get("synthetic")
            if isinstance(parts, Mapping):
                sets.append(
                    f"tenants.{t['name']}.synthetic.rate_iops={float(parts.get('rate_iops', 1000.0)) * f:g}"
                )
            elif isinstance(parts, list):
                sets += [
                    f"tenants.{t['name']}.synthetic.{i}.rate_iops={float(p.get('rate_iops', 1000.0)) * f:g}"
                    for i, p in enumerate(parts)
                ]
        cases.append((f"load x{f:g}", sets))
    for decl in load_plan(NAME).cases:
        for name, knob_sets in (decl.expand(value) for value in decl.values):
            if not knob_sets[0].startswith("tenants.") or name.split()[0] in names:
                cases.append((name, knob_sets))
    return cases
