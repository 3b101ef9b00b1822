"""ftlab.reproduce.upi: the UPI reproduction ("utilitarian performance isolation" for shared
SSDs, §5; the paper copy carries no title line, author line or venue), run by `ftlab reproduce upi`.

The driver (`ftlab.reproduce.driver`) runs `scenarios/reproduce/upi.toml` (or, quick,
`scenarios/reproduce/upi-quick.toml`: the `[reproduce]` table of `papers/upi.toml`) with the
schemes `partitioned`, `unified`, `upi` and `upi-guarded` and the tenants `das-as`, `dtrs`
and `lm-tbe`. The claims are data: `papers/upi.toml` (each with the paper's words, its kind
and the name of the computation, `measure`, that gives ftlab's value); this module computes
those values from summary.json and the time series (all on the whole measured phase): read
latency ratios between schemes, and the growth of LM-TBE's allocation set after its write
rise (`rise_s`: the latest `start_s` of LM-TBE's synthetic parts).

It writes the figures of the paper (PNG, each with the CSV data behind it): fig3-bars (mean
and p99 read latency per tenant and scheme) and fig5-window (5 s windows of mean read latency
over the 600 s around the rise, and UPI's allocation sets), both declared
(`[[reproduce.figures]]` of papers/upi.toml: this module supplies their rows, the time series
and the rise), and fig4-read-cdf (`ftlab plot`'s read-latency CDFs).
With `sensitivity`, it reruns the scenario on Ray (`ftlab.sweep`) varying one knob at a time:
its cases (`sensitivity_cases`, each knob's values and place in the tables, computed from the
resolved scenario) run through the generic study (`ftlab.reproduce.sweep_study`), which
reports each claim's range and the cases that reverse it, and each claim's value and verdict
at every value of every swept parameter (sensitivity.md).

Only ratios and means of the simulator's outputs are computed here (`Upi`, registered as
`PAPER`); it is not the simulator nor the driver, and it prints nothing (`ftlab.cli.reproduce` does).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlab import _toml
from ftlab._errors import input_error, usage_error
from ftlab.report import plots, write_files_atomically
from ftlab.reproduce import Progress, claimfile, sweep_study
from ftlab.reproduce.claimfile import Measured, SeedResult, evaluate
from ftlab.reproduce.claims import (
    PHASES_FILE,
    Claim,
    Health,
    PhaseRow,
    SensitivityRow,
    health,
    phase_table,
    write_csv,
)
from ftlab.reproduce.driver import Driven, PaperCode, Runs, Study, load_plan, scenarios
from ftlab.reproduce.figures import Table, draw_all
from ftlab.reproduce.measures import measure_all
from ftlab.reproduce.rows import value_at
from ftlab.reproduce.series_measures import measure_window
from ftlab.reproduce.sweep_study import BASE, StudyCase, run_study, study_case
from ftlab.results import Summary

if TYPE_CHECKING:
    import polars as pl

    from ftlab.report import Report

# polars is imported inside the functions that use it, not here: heavy, and `ftlab
# --help` and `import ftlab` start without them.

NAME = "upi"
TENANTS = ("das-as", "dtrs", "lm-tbe")
SCHEMES = ("partitioned", "unified", "upi", "upi-guarded")
#: The schemes that stand for the paper's UPI: each UPI claim is made for both.
UPI_VARIANTS = ("upi", "upi-guarded")
#: The tenant whose write bandwidth rises (Fig. 5).
RISE_TENANT = "lm-tbe"
#: Half the window of Figure 5 around the rise, in seconds (the `width_s` of the window
#: measures papers/upi.toml declares; a test holds them equal).
AROUND_RISE_S = 300.0
SENSITIVITY_MD = "sensitivity.md"
#: The sweep directory of the sensitivity study, under the reproduction's output directory.
SENSITIVITY_DIR = "sensitivity"


@dataclass(frozen=True)
class Seen:
    """The run as the paper reads it: its Report, the rise and the per-phase table."""

    report: Report
    rise: float
    phases: list[PhaseRow]
    scenario: Path
    out: Path


class Upi(PaperCode[Seen]):
    """UPI's own code under the driver (`ftlab.reproduce.driver`; the run is declared in
    papers/upi.toml): its measures, figures, phase table and its sensitivity sweep on Ray."""

    name = NAME

    def read(self, runs: Runs, base: Seen | None) -> Seen:
        report = runs.report("upi")
        phases = phase_table(report.summary, TENANTS)
        return Seen(report, rise_s(report.resolved_toml), phases, runs.scenarios["upi"], runs.out)

    def value(self, seen: Seen, subject: str, system: str, key: str) -> float | None:
        return read_metric(seen.report.summary, system, subject, key)

    def measure(self, seen: Seen, name: str) -> Measured:
        return _own(name, seen.report.timeseries, seen.rise)

    def health(self, seen: Seen) -> Health:
        return health(seen.report.summary)

    def rows(self, seen: Seen) -> Sequence[Mapping[str, object]]:
        return figure3_rows(seen.report.summary)

    def figures(self, seen: Seen, out: Path) -> list[Path]:
        """The declared figures (`[[reproduce.figures]]`: Figure 3 from `figure3_rows`, Figure
        5 from the run's time series around the rise), Figure 4 and phases.csv."""
        tables: dict[str, Table] = {"timeseries": seen.report.timeseries}
        values = figure_values(seen.rise)
        declared = draw_all(load_plan(NAME).figures, self.rows(seen), out, tables, values)
        phases = seen.phases
        return [
            *declared,
            *figure4(seen.report, out),
            write_csv(out / PHASES_FILE, phases, _phase_columns(phases)),
        ]

    def sections(self, seen: Seen) -> dict[str, object]:
        return {"run_dir": str(seen.out / "run"), "rise_s": seen.rise}

    def sections_after_health(self, seen: Seen) -> dict[str, object]:
        return {"phases": seen.phases}

    def phases(self, seen: Seen) -> list[PhaseRow]:
        return seen.phases

    def main_report(self, seen: Seen) -> Report | None:
        return seen.report

    def extra(self, seen: Seen) -> dict[str, object]:
        return {"rise_s": seen.rise}

    def run_sensitivity(self, study: Study[Seen]) -> list[SensitivityRow]:
        seen, runs = study.seen, study.runs
        return run_sensitivity(seen.scenario, seen.report.resolved_toml, runs.out, runs.quick, study.progress)


#: What `ftlab reproduce upi` runs (the registry finds it by this name).
PAPER = Driven(Upi())


def scenario_path(quick: bool) -> Path:
    """The reproduction's scenario: scenarios/reproduce/upi(-quick).toml of the checkout."""
    return scenarios(load_plan(NAME), quick)["upi"]


def rise_s(resolved_toml: str) -> float:
    """When LM-TBE's write bandwidth rises: the latest `start_s` of its synthetic parts in
    the (resolved) scenario; 0 if it has none. An `ftlab.InputError` if it has no LM-TBE."""
    parts = _parts(_toml.loads(resolved_toml), RISE_TENANT)
    return max((float(p.get("start_s", 0.0)) for p in parts), default=0.0)


def _tenant(scenario: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for t in scenario.get("tenants") or []:
        if t.get("name") == name:
            return t  # type: ignore[no-any-return]
    raise input_error(
        "scenario.resolved.toml", f"no tenant named {name!r}; the UPI reproduction needs {', '.join(TENANTS)}"
    )


def _parts(scenario: Mapping[str, Any], tenant: str) -> list[Mapping[str, Any]]:
    synthetic = _tenant(scenario, tenant).get("synthetic") or []
    return list(synthetic) if isinstance(synthetic, list) else [synthetic]


# --------------------------------------------------------------------------------------
# Claims: the claim file papers/upi.toml, each claim's value computed by its `measure` name


def upi_claims(
    summary: Summary,
    timeseries: pl.DataFrame | None,
    rise: float,
    checks: Health | None = None,
) -> list[Claim]:
    """Every claim of papers/upi.toml judged on one run (one seed): a parsed summary.json, the
    time series (for the allocation sets) and the rise; `checks` the health (default:
    `health(summary)`). A missing value is NaN and its claim `differs` or is `violated`."""
    result = SeedResult(
        0, measurements(summary, timeseries, rise), checks if checks is not None else health(summary)
    )
    return evaluate(claimfile.load(NAME), [result])


def measurements(summary: Summary, timeseries: pl.DataFrame | None, rise: float) -> dict[str, Measured]:
    """ftlab's value of every `measure` name of papers/upi.toml (see `measure`)."""
    names = list(dict.fromkeys(s.measure for s in claimfile.load(NAME).claims if s.measure))
    return measure_all(
        names,
        load_plan(NAME).pairs,
        lambda tenant, scheme, metric: read_metric(summary, scheme, tenant, metric),
        lambda n: _own(n, timeseries, rise),
    )


def _own(name: str, timeseries: pl.DataFrame | None, rise: float) -> Measured:
    """UPI's measures around the rise: the declared window measures (`[[reproduce.windows]]`
    of papers/upi.toml, `series_measures`) on the time series, with the named time `rise_s`.
    An unknown name is an `ftlab.UsageError`."""
    found = measure_window(name, load_plan(NAME).windows, timeseries, {"rise_s": rise})
    if found is None:
        raise usage_error("measure", f"unknown UPI computation {name!r}")
    return found


def read_metric(summary: Mapping[str, Any], scheme: str, tenant: str, metric: str) -> float | None:
    """Read `metric` of `tenant` under `scheme` in a parsed summary.json, where the claim
    file's `value_path` says it sits (`rows.value_at`), or None."""
    return value_at(summary, load_plan(NAME).value_path, tenant, scheme, metric)


def _phase_columns(rows: Sequence[PhaseRow]) -> list[str]:
    return list(dict.fromkeys(["tenant", "scheme", *(k for r in rows for k in r)]))


# --------------------------------------------------------------------------------------
# Figures


def figure4(report: Report, out: Path) -> list[Path]:
    """Figure 4, fig4-read-cdf: `ftlab plot`'s read-latency CDF figure (its CDF and tail panels
    per tenant, from figdata's reduced points) and the run's read CDF table as CSV. Not
    declared: it is that command's own figure, which a declared line figure would copy."""
    out.mkdir(parents=True, exist_ok=True)
    files = [plots.plot(report, "cdf", out / "fig4-read-cdf.png", ops=["read"])]
    if report.latency_cdf is not None:
        frame = report.latency_cdf.filter(op="read")
        path = out / "fig4-read-cdf.csv"
        write_files_atomically(out, {path.name: lambda p: frame.write_csv(p)})
        files.append(path)
    return files


def _schemes(summary: Summary) -> list[str]:
    present = list(summary.get("schemes") or {})
    return [s for s in SCHEMES if s in present] + [s for s in present if s not in SCHEMES]


def figure3_rows(summary: Summary) -> list[dict[str, str | float | None]]:
    """Figure 3's rows (fig3-bars.csv): the mean and p99 read latency per scheme and tenant."""
    path = load_plan(NAME).value_path
    return [
        {
            "scheme": s,
            "tenant": t,
            "read_mean_us": value_at(summary, path, t, s, "mean_us"),
            "read_p99_us": value_at(summary, path, t, s, "p99_us"),
        }
        for s in _schemes(summary)
        for t in TENANTS
    ]


def figure_values(rise: float) -> dict[str, float]:
    """The named values Figure 5 (declared) reads: the rise and the window around it."""
    return {"rise_s": rise, "window_from_s": rise - AROUND_RISE_S, "window_to_s": rise + AROUND_RISE_S}


# --------------------------------------------------------------------------------------
# Sensitivity

#: The one-at-a-time variations of `sensitivity_cases` (values, or factors of the scenario's
#: value). docs/upi-workload.md gives each range's reason; in short:
#: - device and scheme: erase time 0.3x to 2x of the scenario's (1.5 to 10 ms on the full
#:   device, the span of MLC datasheets); upi-guarded's guard at 0.4 and 0.7 around its 0.5;
#:   the epoch and the relocation weight, which the paper does not give;
#: - workload: every figure that no source gives (scenarios/reproduce/upi.toml marks them
#:   `[swept]`), from well below to well above the scenario's value.
ERASE_FACTORS = (0.3, 0.6, 2.0)
DONOR_TRAFFIC_MAX = (0.4, 0.7)
EPOCH_S = (2.0, 30.0)
RELOCATION_WEIGHT = (0.0, 4.0)
#: DAS-AS's data set, as its `namespace_fraction` (a fraction of the device's logical
#: capacity; the scenario's 1/3 is the paper's 50 GB range, the largest possible): 0.05 to 0.2,
#: with the base's partitions and initial UPI sets kept (`_pinned_shares`).
DAS_AS_DATA_SET = (0.05, 0.1, 0.2)
#: The part of its namespace DAS-AS's requests touch (`footprint_fraction`; 0.15 of 50 GB is
#: 0.05 of the device); its data set stays the namespace (preconditioning fills it).
DAS_AS_FOOTPRINT = (0.15, 0.25, 0.5)
DAS_AS_ZIPF_THETA = (0.6, 0.99)
#: DAS-AS without skew (every page of its footprint equally likely).
DAS_AS_PATTERN = ("uniform",)
#: Above LM-TBE's 0.9375 (§5: DAS-AS has "the highest read-to-write ratio") up to 0.99.
DAS_AS_READ_RATIO = (0.94, 0.99)
DAS_AS_RATE_FACTORS = (0.5, 2.0)
#: DAS-AS's requests all 4 KiB (the scenario's mix averages 9.2 KiB).
DAS_AS_SIZES_SMALL = ({"bytes": 4096, "weight": 1.0},)
#: DTRS's two parts' rates together, its steady part's read ratio, and its bursts' shape
#: (`on_s`, `off_s`) at the scenario's 10% duty cycle.
DTRS_RATE_FACTORS = (0.5, 1.5)
DTRS_READ_RATIO = (0.4, 0.8)
DTRS_BURSTS = ((10.0, 90.0), (90.0, 810.0))
#: LM-TBE: its read rate, its reads' and writes' sequential fractions, its write rate before
#: the rise, its request size, and the rise (the after-rise rate) from below to above the
#: partitioned health limit (x1 is the base case).
LM_TBE_READ_RATE_FACTORS = (0.5, 1.5)
LM_TBE_READ_SEQUENTIAL = (0.5, 1.0)
LM_TBE_WRITE_SEQUENTIAL = (0.5, 1.0)
LM_TBE_WRITE_RATE_FACTORS = (0.5, 2.0)
LM_TBE_SIZES_BYTES = (16384,)
RISE_FACTORS = (0.5, 1.5, 2.0)
#: Every tenant's queue depth (§5 says only that the host is non-blocking).
QUEUE_DEPTH = (16, 256)


def sensitivity_cases(resolved_toml: str) -> list[StudyCase]:
    """The sweep cases of the sensitivity study of a resolved scenario: the base scenario as
    it is, then one knob at a time: `device.timing.erase_us` (ERASE_FACTORS times the
    scenario's); the workload cases of `_das_as_cases`, `_dtrs_cases`, `_lm_tbe_cases` (with
    the rise, `_rise_cases`) and `_all_tenant_cases`; `upi-guarded`'s `donor_traffic_max`
    (DONOR_TRAFFIC_MAX); and `epoch_s` (EPOCH_S) and `relocation_weight` (RELOCATION_WEIGHT)
    of every UPI variant the scenario runs, set together. A knob the scenario lacks (no such
    tenant, part or key) is left out. Each case (`_case`) has `name` and `set` (the sweep's
    case) and `parameter`, `value`, `x`, `base`, `base_x` (its place in the study's tables)."""
    scenario = _toml.loads(resolved_toml)
    cases: list[StudyCase] = [study_case("base", BASE, "base", {}, None, "base", None)]
    erase_us = float(scenario["device"]["timing"]["erase_us"])
    cases += [
        study_case(
            f"erase_us={f * erase_us:g}",
            "erase_us",
            f"{f * erase_us:g} (x{f:g})",
            {"device.timing.erase_us": f * erase_us},
            f,
            f"{erase_us:g} (x1)",
            1.0,
        )
        for f in ERASE_FACTORS
    ]
    cases += (
        _das_as_cases(scenario)
        + _dtrs_cases(scenario)
        + _lm_tbe_cases(scenario)
        + _all_tenant_cases(scenario)
    )
    table = scenario.get("scheme") or {}
    variants = [s for s in UPI_VARIANTS if s in (scenario.get("schemes") or [])]
    if "upi-guarded" in variants:
        base = (table.get("upi-guarded") or {}).get("donor_traffic_max")
        cases += [
            study_case(
                f"donor_traffic_max={v:g}",
                "upi-guarded donor_traffic_max",
                f"{v:g}",
                {"scheme.upi-guarded.donor_traffic_max": v},
                v,
                _label(base),
                _x(base),
            )
            for v in DONOR_TRAFFIC_MAX
        ]
    for key, values in (("epoch_s", EPOCH_S), ("relocation_weight", RELOCATION_WEIGHT)):
        if variants:
            base = (table.get(variants[0]) or {}).get(key)
            cases += [
                study_case(
                    f"{key}={v:g}",
                    f"UPI {key}",
                    f"{v:g}",
                    {f"scheme.{s}.{key}": v for s in variants},
                    v,
                    _label(base),
                    _x(base),
                )
                for v in values
            ]
    return cases


def _label(value: Any) -> str:
    return (
        f"{value:g}"
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else "n/a"
        if value is None
        else str(value)
    )


def _x(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _das_as_cases(scenario: Mapping[str, Any]) -> list[StudyCase]:
    """DAS-AS: its data set (`namespace_fraction`), the footprint of its first synthetic part,
    and that part's `zipf_theta` and `pattern` (if zipf), `read_ratio`, `rate_iops` and
    `sizes`."""
    tenant = _find_tenant(scenario, "das-as")
    if tenant is None:
        return []
    cases = []
    if "namespace_fraction" in tenant:
        pin, base_ns = _pinned_shares(scenario), tenant["namespace_fraction"]
        cases += [
            study_case(
                f"das-as data set={v:g} of the device",
                "das-as data set (namespace_fraction)",
                f"{v:g}",
                {"tenants.das-as.namespace_fraction": v, **pin},
                v,
                f"{float(base_ns):.3g}",
                _x(base_ns),
            )
            for v in DAS_AS_DATA_SET
        ]
    path, part = _part_path(scenario, "das-as", 0), _part(tenant, 0)
    if path is None or part is None:
        return cases
    plain: list[tuple[str, Sequence[Any]]] = [("footprint_fraction", DAS_AS_FOOTPRINT)]
    if part.get("pattern") == "zipf":
        plain += [("zipf_theta", DAS_AS_ZIPF_THETA), ("pattern", DAS_AS_PATTERN)]
    if "read_ratio" in part:
        plain.append(("read_ratio", DAS_AS_READ_RATIO))
    ns = float(tenant.get("namespace_fraction", 1.0))
    for key, values in plain:
        base = part.get(key, 1.0 if key == "footprint_fraction" else None)
        show: Callable[[Any], str] = (
            (lambda v: f"{v:g} ({v * ns:.2g} of the device)") if key == "footprint_fraction" else _label
        )
        cases += [
            study_case(
                f"das-as {key}={_label(v)}",
                f"das-as {key}",
                show(v),
                {f"{path}.{key}": v},
                _x(v),
                show(base),
                _x(base),
            )
            for v in values
        ]
    cases += _rate_cases("das-as rate", [(path, part)], DAS_AS_RATE_FACTORS)
    if "sizes" in part:
        cases.append(
            study_case(
                "das-as sizes=4KiB",
                "das-as sizes",
                "all 4 KiB",
                {f"{path}.sizes": [dict(s) for s in DAS_AS_SIZES_SMALL]},
                None,
                "mix",
                None,
            )
        )
    return cases


def _pinned_shares(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The base's die shares of `partitioned` and the UPI variants' initial sets, as
    overrides: without them a smaller DAS-AS namespace would also shrink its partition and
    its first set (both are proportional to namespace size by default), and the data-set
    cases would compare other partitions, not another data set (§5: 4 chips per tenant)."""
    schemes, table = scenario.get("schemes") or [], scenario.get("scheme") or {}
    pin: dict[str, Any] = {}
    if "partitioned" in schemes and isinstance((table.get("partitioned") or {}).get("shares"), list):
        pin["scheme.partitioned.shares"] = list(table["partitioned"]["shares"])
    for s in UPI_VARIANTS:
        if s in schemes and isinstance((table.get(s) or {}).get("initial_shares"), list):
            pin[f"scheme.{s}.initial_shares"] = list(table[s]["initial_shares"])
    return pin


def _dtrs_cases(scenario: Mapping[str, Any]) -> list[StudyCase]:
    """DTRS: the rates of all its parts together, the read ratio of its parts that read, and
    the `on_s`/`off_s` of its bursty parts."""
    parts = _indexed_parts(scenario, "dtrs")
    if not parts:
        return []
    cases = _rate_cases("dtrs rates", parts, DTRS_RATE_FACTORS)
    readers = [(path, part) for path, part in parts if float(part.get("read_ratio", 0.0)) > 0.0]
    if readers:
        base = readers[0][1]["read_ratio"]
        cases += [
            study_case(
                f"dtrs read_ratio={v:g}",
                "dtrs read_ratio",
                f"{v:g}",
                {f"{p}.read_ratio": v for p, _ in readers},
                v,
                _label(base),
                _x(base),
            )
            for v in DTRS_READ_RATIO
        ]
    bursty = [(path, part) for path, part in parts if "on_s" in part and "off_s" in part]
    if bursty:
        first = bursty[0][1]
        base_on, base_every = float(first["on_s"]), float(first["on_s"]) + float(first["off_s"])
        cases += [
            study_case(
                f"dtrs bursts {on:g}s every {on + off:g}s",
                "dtrs bursts (on_s, every)",
                f"{on:g} s every {on + off:g} s",
                {k: v for p, _ in bursty for k, v in ((f"{p}.on_s", on), (f"{p}.off_s", off))},
                on,
                f"{base_on:g} s every {base_every:g} s",
                base_on,
            )
            for on, off in DTRS_BURSTS
        ]
    return cases


def _lm_tbe_cases(scenario: Mapping[str, Any]) -> list[StudyCase]:
    """LM-TBE: its reading parts' rate and `read_sequential_fraction`, its writing parts'
    `write_sequential_fraction`, the rate of its writing parts other than the rise (before
    the rise), every part's request size, then the rise (`_rise_cases`)."""
    parts = _indexed_parts(scenario, RISE_TENANT)
    if not parts:
        return []
    readers = [(p, part) for p, part in parts if float(part.get("read_ratio", 0.0)) > 0.0]
    writers = [(p, part) for p, part in parts if float(part.get("read_ratio", 0.0)) < 1.0]
    rise = _rise_index(parts)
    before = [(p, part) for i, (p, part) in enumerate(parts) if i != rise and (p, part) in writers]
    cases = _rate_cases("lm-tbe read rate", readers, LM_TBE_READ_RATE_FACTORS)
    for label, key, group, values in (
        ("lm-tbe read_sequential_fraction", "read_sequential_fraction", readers, LM_TBE_READ_SEQUENTIAL),
        ("lm-tbe write_sequential_fraction", "write_sequential_fraction", writers, LM_TBE_WRITE_SEQUENTIAL),
    ):
        if group and all(key in part for _, part in group):
            base = group[0][1][key]
            cases += [
                study_case(
                    f"{label}={v:g}",
                    label,
                    f"{v:g}",
                    {f"{p}.{key}": v for p, _ in group},
                    v,
                    _label(base),
                    _x(base),
                )
                for v in values
            ]
    cases += _rate_cases("lm-tbe write rate before the rise", before, LM_TBE_WRITE_RATE_FACTORS)
    if all("sizes" in part for _, part in parts):
        cases += [
            study_case(
                f"lm-tbe sizes={b // 1024}KiB",
                "lm-tbe sizes",
                f"{b // 1024} KiB",
                {f"{p}.sizes": [{"bytes": b, "weight": 1.0}] for p, _ in parts},
                b / 1024,
                *_sizes_base(parts[0][1]),
            )
            for b in LM_TBE_SIZES_BYTES
        ]
    return cases + _rise_cases(scenario)


def _sizes_base(part: Mapping[str, Any]) -> tuple[str, float | None]:
    """A part's `sizes` as a base label (and KiB as x when it is one size)."""
    sizes = part.get("sizes") or []
    if len(sizes) == 1 and isinstance(sizes[0].get("bytes"), int):
        kib = sizes[0]["bytes"] / 1024
        return f"{kib:g} KiB", kib
    return "mix", None


def _all_tenant_cases(scenario: Mapping[str, Any]) -> list[StudyCase]:
    """Every tenant's `queue_depth` (QUEUE_DEPTH), and every timed synthetic part's arrivals
    `fixed` (one request every 1/rate_iops) instead of `poisson`."""
    tenants = [t for t in scenario.get("tenants") or [] if isinstance(t.get("name"), str)]
    cases = []
    if tenants and all("queue_depth" in t for t in tenants):
        base = tenants[0]["queue_depth"]
        cases += [
            study_case(
                f"queue_depth={v}",
                "queue_depth (every tenant)",
                f"{v}",
                {f"tenants.{t['name']}.queue_depth": v for t in tenants},
                v,
                _label(base),
                _x(base),
            )
            for v in QUEUE_DEPTH
        ]
    timed = [
        (p, part)
        for t in tenants
        for p, part in _indexed_parts(scenario, t["name"])
        if part.get("arrival") == "poisson"
    ]
    if timed and all(isinstance(part.get("rate_iops"), (int, float)) for _, part in timed):
        fixed = {
            k: v
            for p, part in timed
            for k, v in ((f"{p}.arrival", "fixed"), (f"{p}.interval_us", 1e6 / float(part["rate_iops"])))
        }
        cases.append(
            study_case("arrival=fixed", "arrival (every timed part)", "fixed", fixed, None, "poisson", None)
        )
    return cases


def _rate_cases(
    label: str, parts: Sequence[tuple[str, Mapping[str, Any]]], factors: Sequence[float]
) -> list[StudyCase]:
    """One case per factor: every part's `rate_iops` times it (none if a part has no rate)."""
    if not parts or not all(isinstance(part.get("rate_iops"), (int, float)) for _, part in parts):
        return []
    rates = "+".join(f"{float(part['rate_iops']):g}" for _, part in parts)
    return [
        study_case(
            f"{label} x{f:g}",
            label,
            f"x{f:g}",
            {f"{p}.rate_iops": float(part["rate_iops"]) * f for p, part in parts},
            f,
            f"x1 ({rates}/s)",
            1.0,
        )
        for f in factors
    ]


def _find_tenant(scenario: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    return next((t for t in scenario.get("tenants") or [] if t.get("name") == name), None)


def _part(tenant: Mapping[str, Any], index: int) -> Mapping[str, Any] | None:
    synthetic = tenant.get("synthetic")
    parts = (
        synthetic if isinstance(synthetic, list) else [synthetic] if isinstance(synthetic, Mapping) else []
    )
    return parts[index] if 0 <= index < len(parts) else None


def _indexed_parts(scenario: Mapping[str, Any], tenant: str) -> list[tuple[str, Mapping[str, Any]]]:
    """A tenant's synthetic parts with their `--set` paths; [] if it has no such tenant."""
    found = _find_tenant(scenario, tenant)
    if found is None:
        return []
    out = []
    for i in range(64):
        part, path = _part(found, i), _part_path(scenario, tenant, i)
        if part is None or path is None:
            break
        out.append((path, part))
    return out


def _part_path(scenario: Mapping[str, Any], tenant: str, index: int) -> str | None:
    """The `--set` path of a tenant's synthetic part (`tenants.NAME.synthetic.I`, or without
    the index when `synthetic` is one table), or None if it has no such part."""
    synthetic = _tenant(scenario, tenant).get("synthetic")
    if isinstance(synthetic, list):
        return f"tenants.{tenant}.synthetic.{index}" if 0 <= index < len(synthetic) else None
    return f"tenants.{tenant}.synthetic" if isinstance(synthetic, Mapping) and index == 0 else None


def _rise_index(parts: Sequence[tuple[str, Mapping[str, Any]]]) -> int:
    """The index of the part with the latest `start_s` (the last of equals): LM-TBE's rise."""
    return max(range(len(parts)), key=lambda i: (float(parts[i][1].get("start_s", 0.0)), i))


def _rise_cases(scenario: Mapping[str, Any]) -> list[StudyCase]:
    """LM-TBE's rise (the `rate_iops` of its part with the latest `start_s`) times each of
    RISE_FACTORS."""
    parts = _indexed_parts(scenario, RISE_TENANT)
    if not parts:
        return []
    path, part = parts[_rise_index(parts)]
    rate = part.get("rate_iops")
    if not isinstance(rate, (int, float)):
        return []
    return [
        study_case(
            f"lm-tbe rise x{f:g}",
            "lm-tbe rise",
            f"x{f:g} ({float(rate) * f:g}/s)",
            {f"{path}.rate_iops": float(rate) * f},
            f,
            f"x1 ({float(rate):g}/s)",
            1.0,
        )
        for f in RISE_FACTORS
    ]


def judge(report: Report) -> tuple[list[Claim], Health]:
    """A sensitivity case's run: its claims (`upi_claims`) and health (`claims.health`)."""
    checks = health(report.summary)
    return upi_claims(report.summary, report.timeseries, rise_s(report.resolved_toml), checks), checks


def run_sensitivity(
    scenario: Path,
    resolved_toml: str,
    out: Path,
    quick: bool,
    progress: Progress | None,
    only: Sequence[str] | None = None,
) -> list[SensitivityRow]:
    """The sensitivity study (`sweep_study.run_study`) of `scenario`, whose resolved text is
    `resolved_toml`: its `sensitivity_cases` (or those named `only`) into out/sensitivity,
    sensitivity.json, .csv and .md in `out`."""
    cases = sensitivity_cases(resolved_toml)
    return run_study(NAME, scenario, cases, judge, out, quick, progress, only)


def finished_cases(scenario: Path, resolved_toml: str, out: Path) -> list[str]:
    """The cases of `sensitivity_cases` whose runs are finished in out/sensitivity
    (`sweep_study.finished_cases`), for `run_sensitivity(..., only=...)`."""
    return sweep_study.finished_cases(NAME, scenario, sensitivity_cases(resolved_toml), out)
