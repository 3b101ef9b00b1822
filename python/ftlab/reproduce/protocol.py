"""ftlab.reproduce.protocol: what runs one seed of a reproduction (`Reproduction`, a paper
module's `PAPER`) and the progress callback it reports to (`Progress`).

The registry (`ftlab.reproduce`) and the seeds' driver (`ftlab.reproduce.seeds`) both name
these; they live here so that neither imports the other's module for them. No behaviour.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

from ftlab.reproduce.claims import ReproductionResult

#: progress(stage, done, total): what is running ("simulating upi-quick.toml", "sensitivity
#: runs") and how far it is (total 0 while unknown).
Progress = Callable[[str, int, int], None]


@runtime_checkable
class Reproduction(Protocol):
    """What runs one seed of a reproduction: a paper module's `PAPER` (`driver.Driven`)."""

    def reproduce(
        self,
        *,
        quick: bool,
        out: Path,
        jobs: int | None,
        sensitivity: bool,
        progress: Progress | None,
        seed: int,
    ) -> ReproductionResult:
        """Run one seed (`seed` added to the scenarios' seeds) into `out`; the result's
        `extra["seed_result"]` is its `claimfile.SeedResult`."""
        ...
