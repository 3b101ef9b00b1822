"""ftlab.cli.lifetime: `ftlab lifetime DIR`, the fast-forward lifetime model on the command
line. It reads a results directory of `ftlab run` (summary.json, scenario.resolved.toml), asks
the Rust core (`metrics::lifetime_model`, docs/lifetime.md) to advance each channel's wear at
the run's measured erase rates, with and without channel swaps, and prints the time to the
first wear-out and the number of swaps; it writes `lifetime.csv` (wear per channel over time,
both cases) and `lifetime.png`. All arithmetic is in the core; this module reads files, prints
and draws.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ftlab import _core
from ftlab.report.lifetime import DAY_S, plot, write_csv
from ftlab.results import lifetime_from_json

#: The schemes that give the model their channel swaps (`_core.SCHEMES`' `lifetime_model`);
#: the first is `--scheme`'s default. Any other scheme of a run is projected without swaps.
SWAP_SCHEMES = [e["name"] for e in _core.SCHEMES if e["lifetime_model"]]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as e:
        raise _core.InputError(f"{path}: {e.strerror or e}") from e


def lifetime_command(
    run_dir: Annotated[
        Path, typer.Argument(metavar="DIR", help="A results directory of `ftlab run`.", show_default=False)
    ],
    scheme: Annotated[
        str,
        typer.Option(
            "--scheme",
            help=f"The scheme of the run to project ({', '.join(SWAP_SCHEMES)} swap channels; "
            "others do not).",
        ),
    ] = SWAP_SCHEMES[0],
    horizon_days: Annotated[
        float, typer.Option("--horizon-days", help="Stop the model here if nothing wears out first.")
    ] = 36_500.0,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Directory of lifetime.csv and lifetime.png (default: DIR).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Fast-forward wear at a run's measured erase rates: time to first wear-out and swaps, with
    and without channel swaps."""
    model = lifetime_from_json(
        _core.lifetime(
            _read(run_dir / "summary.json"),
            _read(run_dir / "scenario.resolved.toml"),
            scheme,
            horizon_days * DAY_S,
        )
    )
    out_dir = out or run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    table = Table(title=f"{scheme}: projected lifetime (pe_cycles {model['inputs']['pe_cycles']:.0f})")
    for col in ("case", "first wear-out (days)", "first wear-out (s)", "swaps"):
        table.add_column(col, justify="left" if col == "case" else "right")
    for case in ("with_swaps", "without_swaps"):
        m = model[case]
        days = "never" if m["first_wear_out_days"] is None else f"{m['first_wear_out_days']:.4g}"
        secs = "never" if m["first_wear_out_s"] is None else f"{m['first_wear_out_s']:.6g}"
        table.add_row(case.replace("_", " "), days, secs, str(m["n_swaps"]))
    Console().print(table)
    write_csv(model, out_dir / "lifetime.csv")
    plot(model, out_dir / "lifetime.png")
    Console().print(f"wrote {out_dir / 'lifetime.csv'} and {out_dir / 'lifetime.png'}")
