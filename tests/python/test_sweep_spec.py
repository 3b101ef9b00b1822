"""Tests of sweeps that need no Ray: the sweep file's validation errors (file, key, what is
allowed), its expansion into runs and overrides, TOML inline values, `_core.resolve` (the
run key's input), the table built from run directories, and the CLI's input errors. The
tests that run sweeps on Ray are in test_sweep.py."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import pytest
import tomllib

import ftlab
from conftest import REPO_ROOT, joined, run_cli
from ftlab import _core
from ftlab.sweeps.spec import load_spec, toml_inline
from ftlab.sweeps.table import build_table

SHIPPED = REPO_ROOT / "scenarios" / "sweeps" / "op-by-scheme.toml"
BASE = REPO_ROOT / "scenarios" / "sweeps" / "uniform-writes.toml"


def write_sweep(tmp_path: Path, body: str, name: str = "sw.toml") -> Path:
    (tmp_path / "base.toml").write_text(BASE.read_text())
    path = tmp_path / name
    path.write_text(body)
    return path


def test_shipped_sweep_expands_to_its_grid() -> None:
    data = tomllib.loads(SHIPPED.read_text())
    spec = load_spec(SHIPPED)
    ops = data["grid"]["device"]["over_provisioning"]
    schemes = data["grid"]["schemes"]
    assert spec.parameters == ["device.over_provisioning", "schemes"]
    points = spec.points()
    assert len(points) == len(ops) * len(schemes) * len(data["seeds"])
    # Every combination once; each point's overrides parse back to its values.
    combos = {
        (p.params["device.over_provisioning"], tuple(cast("list[str]", p.params["schemes"])), p.seed)
        for p in points
    }
    assert combos == {(o, tuple(s), seed) for o in ops for s in schemes for seed in data["seeds"]}
    for p in points:
        sets = dict(o.split("=", 1) for o in p.overrides)
        assert float(sets["device.over_provisioning"]) == p.params["device.over_provisioning"]
        assert tomllib.loads(f"v = {sets['schemes']}")["v"] == p.params["schemes"]


@pytest.mark.parametrize(
    "value",
    [
        0,
        -3,
        2**64 - 1,
        0.1,
        1e-5,
        1e300,
        -0.0,
        True,
        "x",
        'quote " and \\ and\nnewline\t\x7f',
        "ünï",
        [1, 2],
        [],
        [["a"], ["b"]],
        {"bytes": 4096},
        {"a key": 1, "b": [{"c": 1.5}]},
        {},
    ],
)
def test_toml_inline_round_trips(value: object) -> None:
    assert tomllib.loads(f"v = {toml_inline(value)}")["v"] == value


def test_toml_inline_special_floats() -> None:
    for v in (math.inf, -math.inf):
        assert tomllib.loads(f"v = {toml_inline(v)}")["v"] == v
    assert math.isnan(tomllib.loads(f"v = {toml_inline(math.nan)}")["v"])


def test_overrides_reach_the_core_as_values() -> None:
    """A grid value written as TOML arrives in the resolved scenario as that value."""
    text = BASE.read_text()
    for value in ([{"bytes": 8192, "weight": 2.0}], ["partitioned"]):
        key = "tenants.0.synthetic.sizes" if isinstance(value[0], dict) else "schemes"
        resolved = tomllib.loads(
            _core.resolve(text=text, name="b", overrides=[f"{key}={toml_inline(value)}"])
        )
        node: object = resolved
        for seg in key.split("."):
            if seg.isdigit():
                assert isinstance(node, list), (key, seg)
                node = node[int(seg)]
            else:
                assert isinstance(node, dict), (key, seg)
                node = node[seg]
        assert node == value


def test_resolve_matches_run_and_is_a_fixed_point(tmp_path: Path) -> None:
    sets = [
        "device.over_provisioning=0.5",
        'schemes=["partitioned"]',
        "tenants.0.synthetic.requests=50",
        "tenants.1.synthetic.requests=50",
    ]
    resolved = _core.resolve(str(BASE), seed=9, overrides=sets)
    assert resolved == _core.run(str(BASE), seed=9, overrides=sets)["resolved_toml"]
    assert _core.resolve(text=resolved, name="again") == resolved
    data = tomllib.loads(resolved)
    assert (
        data["seed"] == 9
        and data["device"]["over_provisioning"] == 0.5
        and data["schemes"] == ["partitioned"]
    )


def test_resolve_makes_trace_paths_absolute(tmp_path: Path) -> None:
    text = BASE.read_text().replace(
        '[tenants.synthetic]\npattern = "uniform"\nread_ratio = 0.0\narrival = '
        '"closed"\nrequests = 20000\n\n[[tenants]]',
        '[tenants.trace]\npath = "traces/t.csv"\nformat = "msr"\n\n[[tenants]]',
        1,
    )
    assert "traces/t.csv" in text
    resolved = tomllib.loads(_core.resolve(text=text, base_dir=str(tmp_path), name="x"))
    assert resolved["tenants"][0]["trace"]["path"] == str(tmp_path / "traces" / "t.csv")


ERRORS = [
    (
        'scenario = "base.toml"\nfoo = 1\n',
        "foo",
        "unknown key; allowed: name, scenario, out, seeds, grid, cases, plot",
    ),
    ("seeds = [1]\n", "scenario", "missing"),
    ('scenario = "nope.toml"\n', "scenario", "nope.toml"),
    ('scenario = "base.toml"\nseeds = []\n', "seeds", "non-empty array of integers"),
    (
        'scenario = "base.toml"\nseeds = [1, -2]\n',
        "seeds.1",
        "must be an integer in [0, 2^64 - 1], got an integer (-2)",
    ),
    ('scenario = "base.toml"\nseeds = [1, 1]\n', "seeds.1", "duplicate of element 0"),
    (
        'scenario = "base.toml"\n[grid]\ndevice.over_provisioning = 0.2\n',
        "grid.device.over_provisioning",
        "non-empty array",
    ),
    ('scenario = "base.toml"\n[grid]\n"device.channels" = []\n', "grid.device.channels", "non-empty array"),
    ('scenario = "base.toml"\n[grid]\nseed = [1, 2]\n', "grid.seed", "`seeds`"),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2, 4, 2]\n',
        "grid.device.channels.2",
        "duplicate of element 0 (2)",
    ),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\ndevice.channels = [4]\n',
        "grid.device.channels",
        "given twice",
    ),
    (
        'scenario = "base.toml"\n[[cases]]\nname = "a"\nbogus = 1\n',
        "cases.0.bogus",
        "unknown key; allowed: name, set",
    ),
    (
        'scenario = "base.toml"\n[[cases]]\nname = "a"\n[[cases]]\nname = "a"\n',
        "cases.1.name",
        "not used by another case",
    ),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\n[[cases]]\nset = { '
        '"device.channels" = 4 }\n',
        "cases.0.set.device.channels",
        "also a grid key",
    ),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\n[plot]\nx = "device.channels"\n',
        "plot.metric",
        "missing",
    ),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\n[plot]\nmetric = '
        '"waf"\nx = "ftl.gc_policy"\n',
        "plot.x",
        "must be a swept parameter (device.channels)",
    ),
    ('scenario = "base.toml"\n[plot]\nmetric = "waf"\n', "plot.x", "the sweep has no grid or cases"),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\n[plot]\nmetric = "waf"\nerror = "sem"\n',
        "plot.error",
        "one of minmax, std",
    ),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\n[plot]\nmetric = '
        '"waf"\nfile = "../x.png"\n',
        "plot.file",
        "ending in .png",
    ),
    (
        'scenario = "base.toml"\n[grid]\n"device.channels" = [2]\n[plot]\nmetric = "waf"\ncolour = 1\n',
        "plot.colour",
        "allowed: metric, x, error, file, tenants",
    ),
]


@pytest.mark.parametrize(("body", "key", "reason"), ERRORS, ids=[e[1] for e in ERRORS])
def test_sweep_file_errors_name_file_and_key(tmp_path: Path, body: str, key: str, reason: str) -> None:
    path = write_sweep(tmp_path, body)
    with pytest.raises(ftlab.ConfigError) as info:
        load_spec(path)
    e = info.value
    assert str(e).startswith(f"{path}: {key}: "), str(e)
    assert reason in str(e)
    assert (e.file, e.key) == (str(path), key)


def test_sweep_file_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, 'scenario = "base.toml"\n\n[grid\n')
    with pytest.raises(ftlab.ConfigError) as info:
        load_spec(path)
    assert str(info.value).startswith(f"{path}:3: ")
    assert info.value.line == 3


def test_dict_sweep_errors_name_the_dict() -> None:
    with pytest.raises(ftlab.ConfigError) as info:
        load_spec({"scenario": str(BASE), "grid": {"device.channels": [2, None]}})
    assert str(info.value).startswith("<dict>: grid.device.channels.1: ")


def test_cases_and_grid_combine(tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path,
        'scenario = "base.toml"\nseeds = [5]\n[grid]\n"device.over_provisioning" = [0.3, 0.4]\n'
        '[[cases]]\nname = "fifo"\nset.ftl.scheduler = "fifo"\n[[cases]]\nname = "prio"\n',
    )
    spec = load_spec(path)
    assert spec.parameters == ["device.over_provisioning", "ftl.scheduler", "case"]
    points = spec.points(("measure.duration_s=1",))
    assert [
        (p.case, p.params["device.over_provisioning"], p.params.get("ftl.scheduler")) for p in points
    ] == [("fifo", 0.3, "fifo"), ("fifo", 0.4, "fifo"), ("prio", 0.3, None), ("prio", 0.4, None)]
    assert points[0].overrides == (
        "measure.duration_s=1",
        'ftl.scheduler="fifo"',
        "device.over_provisioning=0.3",
    )
    assert all(p.seed == 5 for p in points)


def _fake_summary(seed: int | None, waf_by_tenant: Mapping[str, float | None]) -> dict[str, object]:
    """A partial summary: the keys a sweep's table reads, not a full `ftlab.results.Summary`."""
    tenants = {
        t: {"read": {"count": 0, "iops": 0.0}, "write": {"count": 10, "iops": 1.5}, "waf": w}
        for t, w in waf_by_tenant.items()
    }
    return {
        "ftlab_version": "x",
        "seed": seed,
        "scenario": "s",
        "schemes": {"unified": {"tenants": tenants, "device": {"waf": 2.0, "die_utilisation": [0.5, 1.0]}}},
    }


def test_table_rows_columns_and_order_do_not_depend_on_completion_order(tmp_path: Path) -> None:
    spec = load_spec(
        write_sweep(
            tmp_path,
            'scenario = "base.toml"\nseeds = [2, 1]\n[grid]\n"device.over_provisioning" = '
            '[0.5, 0.25]\nschemes = [["unified"]]\n',
        )
    )
    points = spec.points()
    runs = tmp_path / "runs"
    done = []
    for i, p in enumerate(points):
        key = f"k{i}"
        (runs / key).mkdir(parents=True)
        (runs / key / "summary.json").write_text(
            json.dumps(_fake_summary(p.seed, {"zeta": 1.0 + i, "alpha": None}))
        )
        done.append((p, key))
    tables = []
    for order in range(3):
        random.Random(order).shuffle(done)
        tables.append(build_table(spec.parameters, points, list(done), runs))
    assert all(t.equals(tables[0]) for t in tables)
    t = tables[0]
    assert t.columns[:6] == ["device.over_provisioning", "schemes", "seed", "run", "scheme", "tenant"]
    assert {"read.count", "write.iops", "waf", "device.waf", "device.die_utilisation"} <= set(t.columns)
    assert t.height == len(points) * 2
    assert t.select("device.over_provisioning", "seed", "tenant").rows() == [
        (op, seed, tenant) for op in (0.25, 0.5) for seed in (1, 2) for tenant in ("alpha", "zeta")
    ]
    assert t["schemes"].unique().to_list() == ['["unified"]']
    assert t.filter(t["tenant"] == "alpha")["waf"].null_count() == len(points)


def test_cli_bad_sweep_file_exits_2_without_traceback(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, 'scenario = "base.toml"\n[grid]\ndevice.over_provisioning = 0.2\n')
    proc = run_cli(["sweep", str(path)], cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert joined(proc.stderr).startswith(f"error: {path}: grid.device.over_provisioning: ")
    assert not (tmp_path / "results").exists()


def test_cli_base_scenario_syntax_error_exits_2(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, 'scenario = "base.toml"\n[grid]\n"device.over_provisioning" = [0.2, 0.3]\n')
    (tmp_path / "base.toml").write_text("[device\n")
    proc = run_cli(["sweep", str(path)], cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{tmp_path / 'base.toml'}:1:" in joined(proc.stderr)


def test_cli_runs_that_fail_to_resolve_exit_1_and_are_listed(tmp_path: Path) -> None:
    """Every run's override is out of range: nothing to run (Ray is not started), each
    failure is listed with its parameters and the core's message, exit status 1."""
    path = write_sweep(tmp_path, 'scenario = "base.toml"\n[grid]\n"device.over_provisioning" = [-1.0, 9.0]\n')
    proc = run_cli(["sweep", str(path), "--out", str(tmp_path / "out")], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for v in ("-1.0", "9.0"):
        assert (
            f"device.over_provisioning={v}: --set device.over_provisioning={v}: "
            "device.over_provisioning: must be in (0, 4]" in proc.stderr
        )
    failures = json.loads((tmp_path / "out" / "failures.json").read_text())
    assert [f["params"]["device.over_provisioning"] for f in failures] == [-1.0, 9.0]
    assert all(f["kind"] == "ConfigError" and f["run"] is None for f in failures)


def test_help_lists_sweep_and_stays_light() -> None:
    proc = run_cli(["--help"])
    assert "sweep" in proc.stdout
    code = (
        "import sys, ftlab, ftlab.cli\nprint(sorted({m.split('.')[0] for m in "
        "sys.modules} & {'ray', 'polars', 'matplotlib', 'pyarrow'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_unreachable_address_is_a_usage_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = write_sweep(tmp_path, 'scenario = "base.toml"\n[grid]\n"device.over_provisioning" = [0.3]\n')
    proc = run_cli(["sweep", str(path), "--address", f"127.0.0.1:{port}"], cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: --address: cannot connect to Ray at '127.0.0.1:{port}': ")
    assert "Traceback" not in proc.stderr


def test_plot_points_are_seed_statistics(tmp_path: Path) -> None:
    from statistics import mean, stdev

    from ftlab.sweeps.plot import aggregate, write_plot
    from ftlab.sweeps.spec import PlotSpec

    spec = load_spec(
        write_sweep(
            tmp_path,
            'scenario = "base.toml"\nseeds = [1, 2, 3]\n[grid]\n"device.over_provisioning" = [0.25, 0.5]\n',
        )
    )
    points = spec.points()
    waf = {
        (p.params["device.over_provisioning"], p.seed): 1.0
        + cast(int, p.seed) * cast(float, p.params["device.over_provisioning"]) ** 2
        for p in points
    }
    runs = tmp_path / "runs"
    done = []
    for i, p in enumerate(points):
        (runs / f"k{i}").mkdir(parents=True)
        w = waf[(p.params["device.over_provisioning"], p.seed)]
        (runs / f"k{i}" / "summary.json").write_text(json.dumps(_fake_summary(p.seed, {"a": w, "b": 2 * w})))
        done.append((p, f"k{i}"))
    table = build_table(spec.parameters, points, done, runs)
    got, dims = aggregate(
        table, PlotSpec("waf", "device.over_provisioning", "std", "p.png", ("a",)), spec.parameters, "sw.toml"
    )
    assert dims == []  # one scheme, one tenant: a single line
    for row in got.iter_rows(named=True):
        values = [waf[(row["device.over_provisioning"], s)] for s in (1, 2, 3)]
        assert row["mean"] == pytest.approx(mean(values)) and row["std"] == pytest.approx(stdev(values))
        assert (row["min"], row["max"], row["n"]) == (min(values), max(values), 3)
    _, dims = aggregate(table, PlotSpec("waf", "device.over_provisioning"), spec.parameters, "sw.toml")
    assert dims == ["tenant"]
    _, dims = aggregate(table, PlotSpec("device.waf", "device.over_provisioning"), spec.parameters, "sw.toml")
    assert dims == []
    png = write_plot(table, PlotSpec("waf", "device.over_provisioning"), spec.parameters, "sw.toml", tmp_path)
    assert png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ftlab.ConfigError) as info:
        aggregate(table, PlotSpec("wav", "device.over_provisioning"), spec.parameters, "sw.toml")
    assert str(info.value).startswith(
        "sw.toml: plot.metric: must be a numeric column of the sweep table ("
    ) and "waf" in str(info.value)
