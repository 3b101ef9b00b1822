"""Tests of the headline of a run (ftlab.report.headline) on small hand-built summaries: the
change against the baseline, the best scheme(s) with ties and nulls, the direction of each
metric, which metrics apply (deadline misses, slowdowns, write latency), unstable flags and
the baseline error; the bars' numbers; then how the terminal (`ftlab run`, via typer's
CliRunner and a subprocess), report.html (order of the sections, the folded table without
all-zero rows) and `ftlab plot --kind bars` show it. In-browser checks of the same numbers:
test_report_browser.py."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict, cast

import pytest
import tomllib
from matplotlib.patches import Patch, Rectangle
from typer.testing import CliRunner

import ftlab
from conftest import run_cli
from ftlab.report import Report
from ftlab.report import headline as hl
from ftlab.results import Summary
from reports import synthetic_report


def op(count: int = 1000, mean: float = 100.0, p99: float = 900.0, iops: float = 10.0) -> dict[str, float]:
    return {
        "count": count,
        "iops": iops if count else 0.0,
        "mean_us": mean if count else 0.0,
        "p99_us": p99 if count else 0.0,
    }


def tenant(
    read_p99: float = 900.0,
    read_mean: float = 100.0,
    write_p99: float = 2000.0,
    waf: float = 1.5,
    lifetime: float | None = 100.0,
    reads: int = 1000,
    writes: int = 1000,
    **extra: object,
) -> dict[str, object]:
    t: dict[str, object] = {
        "read": op(reads, read_mean, read_p99),
        "write": op(writes, 500.0, write_p99),
        "trim": op(0),
        "waf": waf,
        "unstable": False,
        "outstanding_at_end": 0,
        "wear": {"erases": 4, "lifetime_days": lifetime},
    }
    t.update(extra)
    return t


def summary(**schemes: Mapping[str, Mapping[str, object]]) -> Summary:
    """{"schemes": {scheme: {"tenants": tenants}}} in the keyword order: a partial summary (the
    keys the headline reads), typed as a `Summary` by a cast (the headline's functions take one)."""
    partial = {
        "scenario": "hand-built",
        "seed": 1,
        "schemes": {s: {"tenants": ts} for s, ts in schemes.items()},
    }
    return cast(Summary, partial)


#: A cell of the headline: (tenant, metric key, scheme).
CellKey = tuple[str, str, str]


class Expected(TypedDict, total=False):
    """What `check` compares a headline with (each key optional; see `check`)."""

    metrics: list[str]
    cells: dict[CellKey, tuple[float | None, float | str | pytest.Approx[float], bool]]
    change_abs: dict[CellKey, float | None]
    text: dict[CellKey, str]
    unstable: list[tuple[str, str]]
    baseline: str


def check(s: Summary, expected: Expected, baseline: str | None = None) -> None:
    """Build the headline of `s` and compare it with `expected`:
    - "metrics": the metric keys (columns), in order;
    - "cells": {(tenant, metric, scheme): (value, change, best)}, change a percentage or the
      reason there is none ("baseline", "baseline 0", "no baseline value", "no value"; "count"
      for a count, whose change is absolute), or the string "n/a" for a metric that does not
      apply to the tenant (value None);
    - "change_abs": {(tenant, metric, scheme): a count's change against the baseline, or None};
    - "text": {(tenant, metric, scheme): the cell as shown};
    - "unstable": [(tenant, scheme)], "baseline": the baseline's name."""
    h = hl.build(s, baseline)
    if "metrics" in expected:
        assert [m.key for m in h.metrics] == expected["metrics"]
    if "baseline" in expected:
        assert h.baseline == expected["baseline"]
    if "unstable" in expected:
        assert h.unstable == expected["unstable"]
    rows = {r.tenant: r for r in h.rows}
    metrics = {m.key: m for m in h.metrics}
    for (t, key, scheme), (value, change, best) in expected.get("cells", {}).items():
        cell = rows[t].cells[key][scheme]
        assert cell.value == (pytest.approx(value) if value is not None else None), (t, key, scheme)
        if change == "n/a":
            assert not cell.applies and cell.value is None, (t, key, scheme)
        elif isinstance(change, str):
            assert cell.applies and cell.change_pct is None and cell.change_note == change, (
                t,
                key,
                scheme,
                cell,
            )
        else:
            assert cell.change_pct == pytest.approx(change), (t, key, scheme, cell)
        assert cell.best is best, (t, key, scheme, cell)
    for (t, key, scheme), diff in expected.get("change_abs", {}).items():
        assert rows[t].cells[key][scheme].change_abs == diff, (t, key, scheme)
    for (t, key, scheme), text in expected.get("text", {}).items():
        assert hl.cell_text(metrics[key], rows[t].cells[key][scheme]) == text, (t, key, scheme)


BASE_METRICS = ["read_p99", "read_mean", "write_p99", "waf", "lifetime", "iops"]

CASES: dict[str, tuple[Summary, str | None, Expected]] = {
    "change against the baseline": (
        summary(
            a={"t": tenant(read_p99=1000.0)},
            b={"t": tenant(read_p99=1120.0)},
            c={"t": tenant(read_p99=500.0)},
        ),
        None,
        {
            "metrics": BASE_METRICS,
            "baseline": "a",
            "cells": {
                ("t", "read_p99", "a"): (1000.0, "baseline", False),
                ("t", "read_p99", "b"): (1120.0, 12.0, False),
                ("t", "read_p99", "c"): (500.0, -50.0, True),
            },
            "text": {
                ("t", "read_p99", "a"): "1,000",
                ("t", "read_p99", "b"): "1,120 (+12%)",
                ("t", "read_p99", "c"): "★ 500 (-50%)",
            },
        },
    ),
    "another baseline": (
        summary(a={"t": tenant(read_p99=1000.0)}, b={"t": tenant(read_p99=800.0)}),
        "b",
        {
            "baseline": "b",
            "cells": {
                ("t", "read_p99", "a"): (1000.0, 25.0, False),
                ("t", "read_p99", "b"): (800.0, "baseline", True),
            },
            "text": {("t", "read_p99", "a"): "1,000 (+25%)", ("t", "read_p99", "b"): "★ 800"},
        },
    ),
    "ties are all marked, at the precision shown": (
        summary(
            a={"t": tenant(read_p99=100.0, waf=2.004)},
            b={"t": tenant(read_p99=100.0, waf=2.001)},
            c={"t": tenant(read_p99=150.0, waf=2.5)},
        ),
        None,
        {
            "cells": {
                ("t", "read_p99", "a"): (100.0, "baseline", True),
                ("t", "read_p99", "b"): (100.0, 0.0, True),
                ("t", "read_p99", "c"): (150.0, 50.0, False),
                ("t", "waf", "a"): (2.004, "baseline", True),
                ("t", "waf", "b"): (2.001, pytest.approx(-0.1497, abs=1e-3), True),
            },
            "text": {("t", "waf", "b"): "★ 2.00 (-0.1%)", ("t", "read_p99", "c"): "150 (+50%)"},
        },
    ),
    "a null value takes no part": (
        summary(
            a={"t": tenant(lifetime=None)}, b={"t": tenant(lifetime=30.0)}, c={"t": tenant(lifetime=20.0)}
        ),
        None,
        {
            "cells": {
                ("t", "lifetime", "a"): (None, "baseline", False),
                ("t", "lifetime", "b"): (30.0, "no baseline value", True),
                ("t", "lifetime", "c"): (20.0, "no baseline value", False),
            },
            "text": {("t", "lifetime", "a"): "–", ("t", "lifetime", "b"): "★ 30.0 d (n/a)"},
        },
    ),
    "one value alone is not marked best": (
        summary(a={"t": tenant(lifetime=None)}, b={"t": tenant(lifetime=30.0)}),
        None,
        {"cells": {("t", "lifetime", "b"): (30.0, "no baseline value", False)}},
    ),
    "lifetime and IOPS: higher is better": (
        summary(a={"t": tenant(lifetime=10.0)}, b={"t": tenant(lifetime=12.5)}),
        None,
        {
            "cells": {
                ("t", "lifetime", "a"): (10.0, "baseline", False),
                ("t", "lifetime", "b"): (12.5, 25.0, True),
                ("t", "iops", "a"): (20.0, "baseline", False),
                ("t", "iops", "b"): (20.0, 0.0, False),
            }
        },
    ),
    "a tie among every scheme marks none": (
        summary(
            a={"t": tenant(read_p99=100.0)}, b={"t": tenant(read_p99=100.0)}, c={"t": tenant(read_p99=100.0)}
        ),
        None,
        {
            "cells": {
                ("t", "read_p99", "a"): (100.0, "baseline", False),
                ("t", "read_p99", "b"): (100.0, 0.0, False),
                ("t", "read_p99", "c"): (100.0, 0.0, False),
            },
            "text": {("t", "read_p99", "b"): "100 (+0.0%)"},
        },
    ),
    "no deadlines, no deadline column; a tenant that never writes has no write p99": (
        summary(
            a={"r": tenant(writes=0), "w": tenant()}, b={"r": tenant(writes=0), "w": tenant(write_p99=1000.0)}
        ),
        None,
        {
            "metrics": BASE_METRICS,
            "cells": {
                ("r", "write_p99", "a"): (None, "n/a", False),
                ("r", "write_p99", "b"): (None, "n/a", False),
                ("w", "write_p99", "b"): (1000.0, -50.0, True),
            },
            "text": {("r", "write_p99", "a"): "–"},
        },
    ),
    "nobody writes: no write p99 column": (
        summary(a={"r": tenant(writes=0)}, b={"r": tenant(writes=0)}),
        None,
        {"metrics": ["read_p99", "read_mean", "waf", "lifetime", "iops"]},
    ),
    "deadlines: misses, lower is better, changed by a count, not a percentage": (
        summary(
            a={"rt": tenant(deadlines={"released": 47, "misses": 0}), "x": tenant()},
            b={"rt": tenant(deadlines={"released": 47, "misses": 3}), "x": tenant()},
        ),
        None,
        {
            "metrics": ["read_p99", "read_mean", "write_p99", "deadline_misses", "waf", "lifetime", "iops"],
            "cells": {
                ("rt", "deadline_misses", "a"): (0.0, "baseline", True),
                ("rt", "deadline_misses", "b"): (3.0, "count", False),
                ("x", "deadline_misses", "a"): (None, "n/a", False),
            },
            "change_abs": {
                ("rt", "deadline_misses", "b"): 3.0,
                ("rt", "deadline_misses", "a"): None,
                ("rt", "waf", "b"): None,
            },
            "text": {
                ("rt", "deadline_misses", "b"): "3 (+3)",
                ("rt", "deadline_misses", "a"): "★ 0",
                ("x", "deadline_misses", "b"): "–",
            },
        },
    ),
    "solo runs: slowdown columns, nulls where an op had no request": (
        summary(
            a={
                "t": tenant(
                    slowdown={"read_mean": 1.2, "read_p99": 2.0, "write_mean": 1.1, "write_p99": 1.5}
                ),
                "r": tenant(
                    writes=0,
                    slowdown={"read_mean": 1.0, "read_p99": 1.1, "write_mean": None, "write_p99": None},
                ),
            },
            b={
                "t": tenant(
                    slowdown={"read_mean": 1.0, "read_p99": 1.5, "write_mean": 1.0, "write_p99": 1.5}
                ),
                "r": tenant(
                    writes=0,
                    slowdown={"read_mean": 1.0, "read_p99": 1.0, "write_mean": None, "write_p99": None},
                ),
            },
        ),
        None,
        {
            "metrics": [
                "read_p99",
                "read_mean",
                "write_p99",
                "slowdown_read_p99",
                "slowdown_write_p99",
                "waf",
                "lifetime",
                "iops",
            ],
            "cells": {
                ("t", "slowdown_read_p99", "b"): (1.5, -25.0, True),
                ("t", "slowdown_write_p99", "b"): (1.5, 0.0, False),
                ("r", "slowdown_write_p99", "a"): (None, "n/a", False),
                ("r", "slowdown_read_p99", "b"): (1.0, -100 / 11, True),
            },
            "text": {
                ("t", "slowdown_read_p99", "a"): "2.00×",
                ("t", "slowdown_read_p99", "b"): "★ 1.50× (-25%)",
            },
        },
    ),
    "unstable tenants are flagged per scheme": (
        summary(
            a={"t": tenant(), "u": tenant(unstable=True, outstanding_at_end=42)},
            b={"t": tenant(), "u": tenant()},
            c={"t": tenant(unstable=True, outstanding_at_end=7), "u": tenant()},
        ),
        None,
        {"unstable": [("t", "c"), ("u", "a")]},
    ),
    "a tenant missing under one scheme": (
        summary(a={"t": tenant()}, b={"t": tenant(read_p99=450.0), "late": tenant()}),
        None,
        {
            "cells": {
                ("t", "read_p99", "b"): (450.0, -50.0, True),
                ("late", "read_p99", "b"): (900.0, "no baseline value", False),
            }
        },
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_headline(name: str) -> None:
    s, baseline, expected = CASES[name]
    check(s, expected, baseline)


def test_check_can_fail() -> None:
    """The helper does fail on a wrong expectation (so the table above tests something)."""
    s, baseline, expected = CASES["change against the baseline"]
    wrong = copy.deepcopy(expected)
    wrong["cells"][("t", "read_p99", "b")] = (1120.0, 11.0, False)
    with pytest.raises(AssertionError):
        check(s, wrong, baseline)


def test_unstable_rows_know_their_outstanding_requests() -> None:
    s, _, _ = CASES["unstable tenants are flagged per scheme"]
    rows = {r.tenant: r for r in hl.build(s).rows}
    assert rows["u"].unstable == {"a": 42} and rows["t"].unstable == {"c": 7}


def test_unknown_baseline_is_a_usage_error_naming_the_schemes() -> None:
    s = summary(unified={"t": tenant()}, partitioned={"t": tenant()})
    with pytest.raises(ftlab.UsageError) as caught:
        hl.build(s, "upi")
    assert caught.value.arg == "baseline"
    assert "'upi'" in str(caught.value) and "unified, partitioned" in str(caught.value)


def test_change_never_divides_by_zero() -> None:
    assert hl.change(5.0, 0.0) == (None, "baseline 0")
    assert hl.change(0.0, 0.0) == (None, "baseline 0")
    assert hl.change(None, 1.0) == (None, "no value")
    assert hl.change(1.0, None) == (None, "no baseline value")
    pct, note = hl.change(-1.0, -2.0)
    assert pct == pytest.approx(50.0) and note is None


@pytest.mark.parametrize(
    "value, text",
    [(1878.04, "1,878"), (99.96, "100.0"), (12.34, "12.3"), (1.239851, "1.24"), (0.0, "0.00"), (None, "–")],
)
def test_format_value(value: float | None, text: str) -> None:
    assert hl.format_value(hl.METRICS[0], value) == text


@pytest.mark.parametrize(
    "pct, text",
    [(12.4, "+12%"), (-53.4, "-53%"), (2.35, "+2.4%"), (-0.04, "+0.0%"), (9.96, "+10%"), (0.0, "+0.0%")],
)
def test_format_change(pct: float, text: str) -> None:
    assert hl.format_change(pct) == text


def test_bars_are_summary_values_of_tenants_with_the_op() -> None:
    s = summary(
        a={"r": tenant(writes=0, read_mean=11.0, read_p99=22.0), "w": tenant(reads=0, write_p99=77.0)},
        b={"r": tenant(writes=0, read_mean=33.0, read_p99=44.0), "w": tenant(reads=0, write_p99=88.0)},
    )
    read, write = hl.bars(s)
    assert (read.op, read.tenants, read.schemes) == ("read", ("r",), ("a", "b"))
    assert read.values == {"mean_us": {"a": [11.0], "b": [33.0]}, "p99_us": {"a": [22.0], "b": [44.0]}}
    assert (write.op, write.tenants) == ("write", ("w",))
    assert write.values["p99_us"] == {"a": [77.0], "b": [88.0]}


# --------------------------------------------------------------------------------------
# The terminal


def run_args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--out",
        str(tmp_path / "r"),
        "--set",
        "measure.duration_s=1.0",
        "--set",
        "device.blocks_per_plane=64",
        *extra,
    ]


def test_cli_run_prints_the_headline_against_the_baseline(tmp_path: Path) -> None:
    from ftlab.cli import app

    result = CliRunner().invoke(
        app, run_args(tmp_path, "--baseline", "partitioned"), env={"NO_COLOR": "1", "COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    out = result.output
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert out.lstrip().startswith("ftlab run: which scheme did best for whom")
    assert "baseline scheme, partitioned" in out and "partitioned (baseline)" in out
    assert "scheme: unified" not in out and "report.html" in out and "--full" in out
    lines = [line for line in out.splitlines() if line.startswith("│ ")]
    header = next(line for line in out.splitlines() if line.startswith("┃ tenant"))
    col = [h.strip() for h in header.split("┃")[1:-1]].index("read p99 (µs)")
    tenant_name = None
    seen = 0
    for line in lines:
        cells = [c.strip() for c in line.split("│")[1:-1]]
        tenant_name = cells[0] or tenant_name
        scheme = cells[1].split(" ")[0]
        t = s["schemes"][scheme]["tenants"][tenant_name]
        p99 = t["read"]["p99_us"]
        base = s["schemes"]["partitioned"]["tenants"][tenant_name]["read"]["p99_us"]
        shown = cells[col].removeprefix("★ ")
        value = shown.split(" (")[0]
        # A p99 from fewer than 100 reads carries the mark, and only then.
        assert value.endswith("†") == (t["read"]["count"] < 100), (line, t["read"]["count"])
        assert value.removesuffix("†") == hl.format_value(hl.METRICS[0], p99), (line, p99)
        if scheme == "unified":
            assert shown.endswith(f"({hl.format_change((p99 - base) / base * 100)})"), (line, p99, base)
        seen += 1
    assert seen == sum(len(v["tenants"]) for v in s["schemes"].values())
    # The bundled default measures solo runs: the headline then has the slowdown columns.
    assert (s.get("measure") or {}).get("solo") is True
    assert "read p99 slowdown" in header, header


def test_cli_run_prints_the_array_host_layers_table(tmp_path: Path) -> None:
    """An array run (the bundled array scenario, a rebuild device and fail-fast reads) prints
    the host layer's table, every cell the summary's `array` value, within 100 columns, and a
    note saying where the per-device results are instead of a headline ranking the devices as
    schemes (they are printed with --full)."""
    from ftlab.cli import app
    from ftlab.cli.headline import ARRAY_DEVICES_NOTE, ARRAY_LATENCIES

    bundled = Path(ftlab.__file__).parent / "scenarios" / "array.toml"
    args = ["run", str(bundled), "--out", str(tmp_path / "r"), "--set", "measure.duration_s=0.6"]
    args += ["--set", "array.rebuild_device=1", "--set", 'array.fail_fast="brt"']
    result = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert max(len(line) for line in out.splitlines()) <= 100
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    schemes = s["array"]["schemes"]
    table = out[out.index("array (host layer)") : out.index(ARRAY_DEVICES_NOTE.split(" (")[0])]
    assert "partitioned/dev0" not in out and "which scheme did best" in out
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    assert len(rows) == sum(len(v["tenants"]) for v in schemes.values())
    tenant_name = ""
    for cells in rows:
        tenant_name = cells[0] or tenant_name
        t = schemes[cells[1]]["tenants"][tenant_name]
        read = t["read"]
        lat = [
            hl.format_value(hl.METRICS[0], read[key]) if read["count"] else "–" for _, key in ARRAY_LATENCIES
        ]
        write = hl.format_value(hl.METRICS[0], t["write"]["p99_us"]) if t["write"]["count"] else "–"
        rest = [write, f"{t['reads_failed_fast']:,}", f"{t['chunks_rebuilt']:,}"]
        assert cells[2:] == [f"{read['count']:,}", *lat, *rest], cells
    # The rebuild device's pieces were rebuilt: the column is not all zeros.
    assert all(v["tenants"]["kv"]["chunks_rebuilt"] > 0 for v in schemes.values())


def test_cli_run_full_adds_the_scheme_tables(tmp_path: Path) -> None:
    from ftlab.cli import app

    result = CliRunner().invoke(app, run_args(tmp_path, "--full"), env={"NO_COLOR": "1", "COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert (
        out.index("which scheme did best") < out.index("scheme: unified") < out.index("scheme: partitioned")
    )
    assert "unified (baseline)" in out


def test_cli_run_unknown_baseline(tmp_path: Path) -> None:
    # rtgc is a scheme ftlab has, but not one the default scenario runs.
    proc = run_cli(run_args(tmp_path, "--baseline", "rtgc"))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: --baseline: unknown scheme 'rtgc'")
    listed = tomllib.loads(ftlab.default_scenario_toml())["schemes"]
    assert ", ".join(listed) in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r").exists(), "nothing ran"


def test_api_unknown_baseline_raises_before_running(tmp_path: Path) -> None:
    with pytest.raises(ftlab.UsageError) as caught:
        ftlab.run(set=["measure.duration_s=0.5"], baseline="nope", out=tmp_path / "r")
    assert caught.value.arg == "baseline"
    assert not (tmp_path / "r").exists()


# --------------------------------------------------------------------------------------
# report.html


def page_of(s: Summary, baseline: str | None = None) -> str:
    base = synthetic_report(
        schemes=tuple(s["schemes"]), tenants=tuple(next(iter(s["schemes"].values()))["tenants"])
    )
    return Report(json.dumps(s), base.resolved_toml, base.timeseries, base.latency_cdf, base.wear).to_html(
        baseline=baseline
    )


def test_html_order_headline_bars_then_folded_table() -> None:
    page = synthetic_report().to_html()
    positions = [
        page.index(marker)
        for marker in (
            'id="headline"',
            'id="fig-bars-read"',
            'id="fig-bars-write"',
            '<details id="summary-details">',
            'id="summary-tenants"',
            "</details>",
            'id="fig-cdf-read"',
        )
    ]
    assert positions == sorted(positions)


def test_html_folded_table_has_no_all_zero_rows() -> None:
    s = summary(a={"t": tenant(), "u": tenant()}, b={"t": tenant(), "u": tenant()})
    s["schemes"]["a"]["tenants"]["t"]["gc_pages_copied"] = 0
    s["schemes"]["b"]["tenants"]["t"]["gc_pages_copied"] = 5
    # Partial device objects (the keys the table reads), set through a plain-dict view.
    schemes = cast(dict[str, dict[str, object]], s["schemes"])
    schemes["a"]["device"] = {"waf": 1.5, "timeseries_latency_saturated": 0}
    schemes["b"]["device"] = {"waf": 1.6, "timeseries_latency_saturated": 0}
    page = page_of(s)
    tenants_table = re.search(r'<table id="summary-tenants">.*?<tbody>(.*?)</tbody>', page)
    assert tenants_table is not None, page
    table = tenants_table.group(1)
    rows = re.findall(r"<tr><th>([^<]+)</th>(.*?)</tr>", table)
    names = [name for name, _ in rows]
    assert "read_p99_us" in names and "gc_pages_copied" in names and "unstable" in names
    for name in ("trim_count", "trim_iops", "trim_mean_us", "trim_p99_us", "outstanding_at_end"):
        assert name not in names
    for name, cells in rows:
        values = re.findall(r'<td class="num[^"]*">([^<]*)</td>', cells)
        assert not all(v in ("0", "0.00", "0.0", "–") for v in values), name
    hidden = re.search(r'<p class="note" id="summary-tenants-hidden" data-hidden="(\d+)">([^<]*)</p>', page)
    assert (
        hidden
        and int(hidden.group(1)) == 5
        and "trim_count" in hidden.group(2)
        and "0 or missing" in hidden.group(2)
    )
    device_table = re.search(r'<table id="summary-device">.*?</table>', page)
    assert device_table is not None, page
    assert "timeseries_latency_saturated" not in device_table.group(0)
    assert 'id="summary-device-hidden" data-hidden="1"' in page
    assert "(6 rows hidden: 0 or missing everywhere)" in page


def test_html_headline_cells_carry_their_numbers() -> None:
    s = summary(
        a={"t": tenant(read_p99=1000.0)}, b={"t": tenant(read_p99=500.0, unstable=True, outstanding_at_end=9)}
    )
    page = page_of(s, baseline="a")
    assert 'data-baseline="a"' in page and "baseline scheme, a)" in page
    row = re.search(r'<tr class="hl-row" data-tenant="t" data-scheme="b">(.*?)</tr>', page)
    assert row is not None, page
    cell = row.group(1)
    assert "⚠ unstable" in cell
    # b's 500 µs would win; the tenant unstable under b, it takes no part in ★ (issue 42)
    read = re.search(
        r'<td class="num hl-cell" data-metric="read_p99" data-value="500.0" data-change="-50.0" '
        r'data-change-abs="" data-best="false" data-applies="true"><span '
        r'class="hl-value">500</span> <span class="hl-change">\(-50%\)</span></td>',
        cell,
    )
    assert read, cell
    assert hl.UNSTABLE_NOTE in page.replace("&#x27;", "'")


def test_html_unknown_baseline() -> None:
    with pytest.raises(ftlab.UsageError):
        synthetic_report().to_html(baseline="nope")


def bar_height(patch: Patch) -> float:
    """A bar's height (matplotlib lists an axes' patches as `Patch`; a bar is a `Rectangle`)."""
    assert isinstance(patch, Rectangle), patch
    return patch.get_height()


def test_plot_bars(tmp_path: Path) -> None:
    report = synthetic_report()
    path = ftlab.plot(report, "bars", tmp_path / "bars.svg")
    assert path.read_text().startswith("<?xml")
    from ftlab.report import plots

    fig = plots.figure(report, "bars")
    axes = [ax for ax in fig.axes if ax.patches]
    assert len(axes) == 4
    heights = sorted(round(bar_height(p), 6) for p in axes[1].patches)  # read p99
    want = sorted(
        t["read"]["p99_us"] for d in report.summary["schemes"].values() for t in d["tenants"].values()
    )
    assert heights == want
    looks = {(p.get_facecolor(), p.get_hatch()) for p in axes[1].patches}
    assert len(looks) == len(report.schemes), "one look per scheme"
    assert len({h for _, h in looks}) == len(report.schemes), "schemes differ in hatch too (greyscale)"
