"""The docstring examples of the bench, report, plot, compare, sweep and claim modules run as doctests (those
marked `+SKIP` need a results directory and are only shown), with `ftlab` and a synthetic
`report` in scope."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import ftlab
from reports import synthetic_report

MODULES = [
    "ftlab._bench",
    "ftlab._errors",
    "ftlab._json",
    "ftlab.report.style",
    "ftlab.report._plotly",
    "ftlab.report.figdata",
    "ftlab.report.series",
    "ftlab.report.html",
    "ftlab.report.headline",
    "ftlab.report.plots",
    "ftlab.report.comparison",
    "ftlab.report",
    "ftlab.sweeps",
    "ftlab.sweeps.spec",
    "ftlab.reproduce.claims",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, extraglobs={"ftlab": ftlab, "report": synthetic_report()}, optionflags=doctest.ELLIPSIS
    )
    assert result.failed == 0
