"""Reproduce the UPI paper's §5 results from a run of scenarios/upi-hotstorage18(-short).toml.

Usage: .venv/bin/python scripts/upi_hotstorage18.py [--run SCENARIO] DIR

With --run, runs the scenario into DIR first (ftlab.run); otherwise reads an existing results
directory. Writes into DIR:
- fig4-read-cdf.png / fig4-read-cdf.csv: per-tenant read-latency CDFs of the three schemes
  (the paper's Figure 4), as a picture and as the data behind it;
- fig5-window.png / fig5-window.csv: 5 s windows of mean read latency per tenant over the 600 s
  around LM-TBE's write rise for `partitioned` and `upi`, with `upi`'s allocation-set sizes
  (the paper's Figure 5);
- upi-claims.json: the three claims of the issue with our numbers beside the paper's.

It orchestrates and plots only (ftlab.run, ftlab.load, ftlab.plot, polars, matplotlib); every
number comes from the simulator's outputs. It is not a test: tests/python/test_upi.py is.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

import polars as pl

import ftlab

TENANTS = ("das-as", "dtrs", "lm-tbe")
# The paper's §5 numbers (relative change of the first scheme against the second).
PAPER = {"das_as_p99_upi_vs_unified": -0.385, "das_as_p99_partitioned_vs_unified": -0.477, "lm_tbe_mean_upi_vs_partitioned": -0.161}


def rise_s(resolved_toml: str) -> float:
    """When LM-TBE's write bandwidth rises: the start of its last synthetic part."""
    scenario = tomllib.loads(resolved_toml)
    tenant = next(t for t in scenario["tenants"] if t["name"] == "lm-tbe")
    parts = tenant["synthetic"] if isinstance(tenant["synthetic"], list) else [tenant["synthetic"]]
    return max(float(p.get("start_s", 0.0)) for p in parts)


def claims(report: ftlab.Report, rise: float) -> dict:
    """The issue's three checks, with the numbers they rest on."""
    s = report.summary["schemes"]
    p99 = {k: s[k]["tenants"]["das-as"]["read"]["p99_us"] for k in ("partitioned", "unified", "upi")}
    mean = {k: s[k]["tenants"]["lm-tbe"]["read"]["mean_us"] for k in ("partitioned", "unified", "upi")}
    ts = report.timeseries.filter((pl.col("scheme") == "upi") & (pl.col("tenant") == "lm-tbe"))
    before = ts.filter((pl.col("window_start_s") >= rise - 300) & (pl.col("window_start_s") < rise))["alloc_set_dies"].mean()
    after = ts.filter((pl.col("window_start_s") >= rise) & (pl.col("window_start_s") < rise + 300))["alloc_set_dies"].mean()
    return {
        "das_as_read_p99_us": p99,
        "das_as_p99_order_partitioned_lt_upi_lt_unified": p99["partitioned"] < p99["upi"] < p99["unified"],
        "das_as_p99_upi_vs_unified": p99["upi"] / p99["unified"] - 1,
        "das_as_p99_partitioned_vs_unified": p99["partitioned"] / p99["unified"] - 1,
        "lm_tbe_read_mean_us": mean,
        "lm_tbe_mean_upi_vs_partitioned": mean["upi"] / mean["partitioned"] - 1,
        "lm_tbe_mean_upi_at_least_10pct_below_partitioned": mean["upi"] <= 0.9 * mean["partitioned"],
        "rise_s": rise,
        "lm_tbe_set_dies_mean_300s_before_rise": before,
        "lm_tbe_set_dies_mean_300s_after_rise": after,
        "lm_tbe_set_grows_at_rise": after is not None and before is not None and after > before,
        "paper": PAPER,
    }


def figure5(report: ftlab.Report, rise: float, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    window = report.timeseries.filter((pl.col("window_start_s") >= rise - 300) & (pl.col("window_start_s") < rise + 300))
    window.select("scheme", "tenant", "window_start_s", "read_mean_us", "read_iops", "write_iops", "alloc_set_dies").write_csv(out / "fig5-window.csv")
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    styles = {"das-as": ("-", "o"), "dtrs": ("--", "s"), "lm-tbe": (":", "^")}
    for ax, scheme in zip(axes[:2], ("partitioned", "upi")):
        for tenant in TENANTS:
            rows = window.filter((pl.col("scheme") == scheme) & (pl.col("tenant") == tenant))
            ls, marker = styles[tenant]
            ax.plot(rows["window_start_s"], rows["read_mean_us"], ls, marker=marker, markersize=3, color="0.1", label=tenant)
        ax.set_yscale("log")
        ax.set_ylabel(f"{scheme}\nmean read latency (µs)")
        ax.axvline(rise, color="0.5", linewidth=0.8)
        ax.legend(fontsize=8)
    for tenant in TENANTS:
        rows = window.filter((pl.col("scheme") == "upi") & (pl.col("tenant") == tenant))
        ls, marker = styles[tenant]
        axes[2].step(rows["window_start_s"], rows["alloc_set_dies"], ls, where="post", color="0.1", label=tenant)
    axes[2].set_ylabel("upi allocation set (dies)")
    axes[2].set_xlabel("simulated time (s); vertical line: LM-TBE's write rise")
    axes[2].axvline(rise, color="0.5", linewidth=0.8)
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig5-window.png", dpi=150)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--run", type=Path, help="run this scenario into DIR first")
    args = parser.parse_args()
    if args.run:
        ftlab.run(args.run, out=args.dir)
    report = ftlab.load(args.dir)
    rise = rise_s(report.resolved_toml)
    ftlab.plot(report, "cdf", args.dir / "fig4-read-cdf.png", ops=["read"])
    report.latency_cdf.filter(pl.col("op") == "read").write_csv(args.dir / "fig4-read-cdf.csv")
    figure5(report, rise, args.dir)
    result = claims(report, rise)
    (args.dir / "upi-claims.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
