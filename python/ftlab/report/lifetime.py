"""ftlab.report.lifetime: the files of the fast-forward lifetime model (`_core.lifetime`,
docs/lifetime.md): `lifetime.csv` (wear per channel over time, with and without swaps) and
`lifetime.png`. It draws and writes what the core computed; it computes nothing and prints
nothing (`ftlab.cli.lifetime` does).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal

from ftlab.report import write_files_atomically
from ftlab.report.plots import DRAWING
from ftlab.results import LifetimeModel

# matplotlib is imported inside the functions that use it, not here: heavy, and `ftlab --help` and
# `import ftlab` start without it.

DAY_S = 86_400.0


#: The model's two cases, in the order of the CSV rows and the figure's panels.
CASES: tuple[Literal["with_swaps", "without_swaps"], ...] = ("with_swaps", "without_swaps")


def write_csv(model: LifetimeModel, path: Path) -> None:
    """One row per (case, time, channel): wear (the most-worn block's erase count) in days."""
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "t_days", "channel", "wear_cycles"])
        for case in CASES:
            for point in model[case]["series"]:
                for channel, wear in enumerate(point["wear"]):
                    w.writerow([case, f"{point['t_s'] / DAY_S:.9g}", channel, f"{wear:.6g}"])


def plot(model: LifetimeModel, path: Path) -> None:
    """`lifetime.png`: the wear per channel over time, a panel per case, with matplotlib's own
    settings, written atomically."""
    with DRAWING:  # no other thread's settings while it is built and saved
        _plot(model, path)


def _plot(model: LifetimeModel, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, case in zip(axes, CASES, strict=True):
        series = model[case]["series"]
        t = [p["t_s"] / DAY_S for p in series]
        for channel in range(len(series[0]["wear"])):
            ax.plot(t, [p["wear"][channel] for p in series], label=f"channel {channel}")
        ax.axhline(model["inputs"]["pe_cycles"], color="k", linestyle=":", label="pe_cycles")
        ax.set_title(f"{case.replace('_', ' ')} ({model[case]['n_swaps']} swaps)")
        ax.set_xlabel("days")
    axes[0].set_ylabel("erase count of the most-worn block")
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    write_files_atomically(path.parent, {path.name: lambda p: fig.savefig(p, format="png", dpi=120)})
