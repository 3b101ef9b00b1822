"""ftlab.reproduce.flashblox: the FlashBlox reproduction (Huang, Badam, Caulfield, Nath, Sengupta,
Sharma and Qureshi, "FlashBlox: Achieving Both Performance Isolation and Uniform Lifetime for
Virtualized SSDs"; our source is the talk's slides only, which name no venue), run by `ftlab
reproduce flashblox`.

The claim file (`papers/flashblox.toml`) declares almost all of it: the three runs of
`scenarios/reproduce/flashblox(-quick).toml` (`hardware`: channel-isolated vSSDs, swaps off;
`software`: every vSSD software-isolated under the fair-share scheduler, no token bucket, every
tenant also run alone; `swap`: channel vSSDs, swaps on), the latency rows per tenant and their
geometric means (`[[reproduce.tables]]`, `[[reproduce.geomeans]]`, `ftlab.reproduce.rows`), the
swap run's swap counters, every other value with its sentence (`[[reproduce.values]]` over the
rows this module supplies), the runs' health (`[reproduce] health = "schemes"`, the swap run's
busiest die without a limit: `ftlab.reproduce.run_checks`), Figures 1 and 3 and the
sensitivity's cases (`[[reproduce.cases]]`: the load, the assumed parameters and the
software token bucket, an entry per tenant sized by its offered rate) and claims.json's sections
(`[[reproduce.sections]]`: the software run's token-bucket factor, 0, and the lifetime model's
record, which this module supplies).

What stays here is what no declaration expresses (`FlashBlox`, registered as `PAPER`):

- the lifetime model: `ftlab lifetime`'s fast-forward (crates/ftlab/src/metrics/lifetime_model.rs)
  fed by `hardware`'s per-vSSD erase rates and `swap`'s swap cost (`model_summary` merges the two
  runs into one input, a construction no key path reads), its floor sweep, and the rows its
  declared values read (`lifetime_table`, `device_scale_table`);
- the slides' formula K ≥ (N − 1 − x)/(Nx) (`slides_table`, from the core's `swap_rounds`);
- claims.json's `lifetime_model`, the model's record without its series (`lifetime_section`);
- Figure 2, `ftlab lifetime`'s own figure of the model, and the start of the swap phase
  Figure 3 shades (`swap_start_s`);
- sensitivity.json's record of a case with the runs' unstable tenants (`sensitivity_detail`).

It computes ratios and arithmetic on the simulator's and the model's outputs; it is not the
simulator, the lifetime model nor the driver, draws no figure by hand, and prints nothing
(`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from ftlab import _core, _toml
from ftlab._errors import usage_error
from ftlab.report import html  # noqa: F401  (before the runs' threads race to import it)
from ftlab.report import lifetime as lifetime_files
from ftlab.reproduce.claims import (
    Claim,
    Health,
    ratio,
)
from ftlab.reproduce.decl import is_number
from ftlab.reproduce.driver import Case, Driven, PaperCode, Runs, claim_values, load_plan
from ftlab.reproduce.figures import Table, draw_all
from ftlab.reproduce.figures_draw import number as number_or_nan
from ftlab.reproduce.keypath import walk_one
from ftlab.reproduce.rows import Row, read_tables
from ftlab.results import DeviceScale, LifetimeInputs, LifetimeModel, Summary, lifetime_from_json

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
#: The full `flashblox` preset's blocks per plane and pages per block (presets.rs): a swap's
#: time and the lifetime scale with the capacity, so a reduced run is scaled by this ratio.
FULL_BLOCKS_PER_PLANE = 1024
FULL_PAGES_PER_BLOCK = 256
#: The slides' wear-imbalance target 1 + x ("If N = 16, x = 0.1, then K = 9", Quantifying the
#: Swapping Frequency).
IMBALANCE_X = 0.1
DAY_S = 86_400.0


@dataclass(frozen=True)
class Seen:
    """One seed's runs as the paper reads them: the Reports by run name, the lifetime model and
    the declared tables (`declared_tables`)."""

    reports: dict[str, Report]
    model: FlashbloxLifetime
    tables: dict[str, list[Row]]


class FlashBlox(PaperCode[Seen]):
    """FlashBlox's own code under the driver: the lifetime model and the rows its declared
    values read, Figure 2 and Figure 3's swap start, and a case's unstable tenants."""

    name = NAME

    def read(self, runs: Runs, base: Seen | None) -> Seen:
        reports = dict(runs.reports)
        tables = declared_tables({label: r.summary for label, r in reports.items()})
        swaps = next(iter(tables["swaps"]), {})
        return Seen(reports, lifetime_model(reports["hardware"], reports["swap"], swaps), tables)

    def tables(self, seen: Seen) -> dict[str, Sequence[Mapping[str, object]]]:
        """The declared tables, and the rows the declared lifetime and arithmetic values read:
        the model's (`device_scale_table`, `lifetime_table`) and the slides' (`slides_table`)."""
        model = seen.model
        return {
            **seen.tables,
            "device_scale": device_scale_table(model.get("device_scale")),
            "lifetime": lifetime_table(model),
            "slides": slides_table(),
        }

    def health(self, seen: Seen) -> Health:
        """The declared health (`[reproduce] health = "schemes"`, the swap run "busy")."""
        return load_plan(NAME).health.schemes_health(seen.reports)

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

    def supplied(self, seen: Seen) -> Mapping[str, object]:
        """The tables (`tables`) and claims.json's `lifetime_model` (`lifetime_section`), which
        papers/flashblox.toml's sections name."""
        return {**self.tables(seen), "lifetime_model": lifetime_section(seen.model)}

    def extra(self, seen: Seen) -> dict[str, object]:
        return {"reports": seen.reports, "model": seen.model}

    def sensitivity_detail(self, case: Case, seen: Seen, claims: Sequence[Claim]) -> dict[str, object]:
        """A case's overrides, the runs' unstable tenants ("run/tenant") and each claim's
        value and verdict. Not a driver form: IODA's and CacheLib FDP's details share the
        case, its overrides and the claims, but put their own metrics where this puts the
        unstable tenants, which no other paper's detail lists."""
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
# The declared tables


def declared_tables(summaries: Mapping[str, object]) -> dict[str, list[Row]]:
    """The declared tables (`[[reproduce.tables]]` of papers/flashblox.toml: `latency` and
    `slowdown`, a row per tenant, and `swaps`, the swap run's counters) of the runs' summary.json
    by run label."""
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
    over the run's blocks_per_plane x pages_per_block (1 on the full device).

    >>> capacity_scale("[device]\\nblocks_per_plane = 64\\npages_per_block = 64\\n")
    64.0
    """
    doc = _toml.loads(resolved_toml)
    blocks, pages = (walk_one(doc, f"device.{k}") for k in ("blocks_per_plane", "pages_per_block"))
    if not isinstance(blocks, int) or not isinstance(pages, int):
        raise usage_error("resolved scenario", "device.blocks_per_plane and pages_per_block must be integers")
    return FULL_BLOCKS_PER_PLANE * FULL_PAGES_PER_BLOCK / (blocks * pages)


def ideal_lifetime_s(inputs: LifetimeInputs) -> float:
    """Seconds until every block wears out if the measured erases were spread evenly over all
    blocks: sum of blocks x (pe_cycles − wear at start) over the total erase rate (NaN if
    nothing is erased); the "ideal SSD lifetime" of the slides' "near-ideal SSD lifetime"
    (FlashBlox: Swapping Channels for Wear Balance), which they give no formula for.

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


def model_summary(hardware: Summary, swap: Summary) -> Summary:
    """The summary the lifetime model reads: `hardware`'s (no swaps: its per-vSSD erase rates
    are the load's own) with `swap`'s swap counters. The model (`inputs_from_run`) removes the
    erases swaps caused from the tenants' rates, swap_blocks / measured_s in proportion to each
    rate; those erases are not in `hardware`'s rates, so each rate is first scaled up by
    (total + swap_blocks / measured_s) / total, which that removal exactly undoes. Not a
    declared read: it builds one document from two runs' and rewrites its rates.

    >>> h = {"schemes": {"flashblox": {"device": {"measured_s": 10.0}, "scheme_counters": {},
    ...      "tenants": {"a": {"wear": {"erase_rate_per_s": 3.0}},
    ...                  "b": {"wear": {"erase_rate_per_s": 1.0}}}}}}
    >>> s = {"schemes": {"flashblox": {"scheme_counters": {
    ...     "n_swaps": 1, "n_swaps_completed": 1, "swap_device_time_s": 2.0, "swap_blocks": 20}}}}
    >>> m = model_summary(h, s)["schemes"]["flashblox"]
    >>> m["tenants"]["a"]["wear"]["erase_rate_per_s"], m["scheme_counters"]["swap_blocks"]
    (4.5, 20)
    """
    doc = copy.deepcopy(hardware)
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


def lifetime_model(hardware: Report, swap: Report, swaps: Mapping[str, object]) -> FlashbloxLifetime:
    """The fast-forward model (`model_summary` of the two runs) with and without swaps. Swaps
    fire on the measured erase-rate imbalance, the `swap` run's own rule ([scheme.flashblox]:
    `swap_threshold`, `rate_window`, and `swap_interval_min_s` only as the floor between checks);
    nothing imposes an interval, so the interval and the time spent swapping are outputs. Plus
    `ideal_s`, `interval_min_s` (the floor), `swap_rounds`, `swap_time_s` (measured), `scale`
    (capacity_scale), the wear imbalance (max / mean of the channels' wear) at the end of each
    case, the model's `swap_bound` (does N·K fit before the first wear-out) and `worst_case`
    (the slides' one-hot case over a 5-year life), and `interval_sweep`: the same with the
    floor divided by INTERVAL_DIVISORS (the floor is ftlab's choice, not the slides'). `swaps`:
    the swap run's row of the declared table `swaps` (its swap counters and a swap's time)."""
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
    done, swap_time_s = swaps.get("n_swaps_completed"), swaps.get("swap_time_s")
    model = FlashbloxLifetime(
        **core,
        ideal_s=ideal,
        interval_min_s=interval,
        swap_rounds=k,
        n_channels=n,
        swap_time_s=float(swap_time_s) if is_number(swap_time_s) else None,
        n_swaps_detailed=float(done) if is_number(done) else 0.0,
        scale=capacity_scale(hardware.resolved_toml),
        interval_sweep=[],
    )
    for case in CASES:
        model[case]["imbalance"] = wear_imbalance(model[case]["series"][-1]["wear"])
        gaps = [b - a for a, b in itertools.pairwise(model[case]["swap_times_s"])]
        model[case]["mean_interval_s"] = sum(gaps) / len(gaps) if gaps else None
    model["interval_sweep"] = interval_sweep(summary, doc, interval, ideal, horizon)
    return model


def interval_sweep(
    summary: str, doc: dict[str, object], interval: float, ideal: float, horizon: float
) -> list[IntervalCase]:
    """The fast-forward with swaps of `summary` under the swap run's resolved scenario `doc`,
    its swap floor `interval` divided by each of INTERVAL_DIVISORS (`doc` is changed)."""
    import tomli_w

    sweep: list[IntervalCase] = []
    scheme = doc.setdefault("scheme", {})
    assert isinstance(scheme, dict), "a resolved scenario's [scheme] is a table"
    for div in INTERVAL_DIVISORS:
        scheme.setdefault(SCHEME, {})["swap_interval_min_s"] = interval / div
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
    return sweep


#: The swap floor's divisors of the model-only sweep (1: the scenario's own floor).
INTERVAL_DIVISORS = (1, 4, 16)


def wear_imbalance(wear: Sequence[float]) -> float:
    """Max / mean of the channels' wear (NaN if the mean is 0): the slides' "Wear Imbalance",
    "Maximum Wearout" over "Average Wearout" (Quantifying the Swapping Frequency).

    >>> wear_imbalance([1.0, 3.0])
    1.5
    """
    mean = sum(wear) / len(wear) if wear else 0.0
    return max(wear) / mean if mean > 0 else math.nan


def lifetime_table(model: FlashbloxLifetime) -> list[dict[str, object]]:
    """The "lifetime" table papers/flashblox.toml's lifetime values read, one row from the
    fast-forward model (`lifetime_model`): the imbalance at the first wear-out with and without
    swaps and their margin, the swaps to it and the wear-out in days at full-device scale, N·K,
    the model's `swap_bound` sentence, the first wear-out over the ideal life with and without
    swaps, the ideal life in days, and the worst case's mean interval in days (NaN without it)
    and its swaps ("n/a"). Not a declared table: its cells are arithmetic on the model (a
    margin, days at full-device scale, N·K), not a run's value or a ratio of two columns."""
    w, wo = model["with_swaps"], model["without_swaps"]
    scale, ideal = model["scale"], model["ideal_s"]
    worst, bound = model.get("worst_case"), model.get("swap_bound")
    return [
        {
            "imbalance": w["imbalance"],
            "imbalance_without": wo["imbalance"],
            "imbalance_margin": ratio(wo["imbalance"], w["imbalance"]) - 1.0,
            "n_swaps": len(w["swap_times_s"]),
            "wear_out_days": (w["first_wear_out_s"] or math.nan) * scale / DAY_S,
            "nk": model["n_channels"] * model["swap_rounds"],
            "bound_why": str((bound or {}).get("why") or ""),
            "life": (w["first_wear_out_s"] or math.nan) / ideal if ideal else math.nan,
            "life_without": (wo["first_wear_out_s"] or math.nan) / ideal if ideal else math.nan,
            "ideal_days": ideal * scale / DAY_S,
            "interval_5y_days": float((worst["interval_days_mean"] if worst else None) or math.nan),
            "n_swaps_5y": worst["n_swaps"] if worst else "n/a",
        }
    ]


def device_scale_table(scale: DeviceScale | None) -> list[dict[str, object]]:
    """The "device_scale" table papers/flashblox.toml's day and minute values read: the
    fast-forward's `device_scale` block (`lifetime_model`) as one row, its mean interval and
    swap-time share as numbers (NaN when absent), `life` (the ideal life and the rate scale)
    and `spread` (the intervals' range, if any) as text; no row without the block. Not a
    declared table: the block is the model's, not a run's summary.json, and `spread` is text
    only where both ends are given."""
    if not scale:
        return []
    lo, hi = scale.get("interval_days_min"), scale.get("interval_days_max")
    return [
        {
            **scale,
            "interval_days_mean": number_or_nan(scale.get("interval_days_mean")),
            "swap_time_fraction": number_or_nan(scale.get("swap_time_fraction")),
            "life": f"a {scale['life_days_ideal']:,.0f}-day ideal life, rates x{scale['rate_scale']:.3g}",
            "spread": f" (from {lo:.3g} to {hi:.3g} days)" if lo is not None and hi is not None else "",
        }
    ]


#: The slides' example: "If N = 16, x = 0.1, then K = 9, which means after swap NK = 148
#: times, we can guarantee the wear imbalance is bounded in 1.1" (How Frequently Should We Swap?).
SLIDES_N, SLIDES_K = 16, 9


def slides_table() -> list[dict[str, object]]:
    """The "slides" table papers/flashblox.toml's arithmetic values read, one row: the slides'
    N = 16, x = IMBALANCE_X and K = 9, the bound K ≥ (N − 1 − x)/(Nx) unrounded (`k_bound`), the
    least whole K (`k_whole`, `swap_rounds`), N·K with the slides' K (`nk`) and with the least
    whole K (`nk_whole`)."""
    whole = swap_rounds(SLIDES_N)
    return [
        {
            "n": SLIDES_N,
            "k": SLIDES_K,
            "k_bound": _core.swap_rounds(SLIDES_N, IMBALANCE_X)[0],
            "k_whole": float(whole),
            "nk": float(SLIDES_N * SLIDES_K),
            "nk_whole": SLIDES_N * whole,
        }
    ]


# --------------------------------------------------------------------------------------
# Files and figures


def lifetime_section(model: FlashbloxLifetime) -> dict[str, object]:
    """claims.json's `lifetime_model` (a declared section): the model's scalars, its inputs and,
    per case, the first wear-out, the swaps, the imbalance and the mean interval (not the wear
    series). Its own: the model's record reshaped, its series left out, which no declared
    source composes."""
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
    found = walk_one(_toml.loads(swap.resolved_toml), f"scheme.{SCHEME}.swap_interval_min_s")
    if not is_number(found):
        raise usage_error(
            "resolved scenario of run swap", f"no number at scheme.{SCHEME}.swap_interval_min_s"
        )
    return float(found)
