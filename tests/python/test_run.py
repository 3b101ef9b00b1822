"""End-to-end tests of `ftlab.run` and `ftlab run` against the real simulator: the
summary.json layout of the contract, byte-identical summary.json for the same scenario and
seed, the written files (their frames equal the run's, dtypes included), the core's tables as
Arrow objects, and input errors (exit 2, message naming file and line or key, earlier results
untouched). These fail while the core's run_scenario is a stub."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Literal, TypeAlias

import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

import ftlab
from conftest import run_cli
from ftlab import _core
from ftlab.report import Report

SEED = 7
OP_KEYS = {"count", "bytes", "iops", "mean_us", "p50_us", "p90_us", "p99_us", "p999_us", "p9999_us", "max_us"}
DEVICE_KEYS = {
    "waf",
    "host_pages_written",
    "flash_pages_programmed",
    "gc_pages_copied",
    "erases",
    "erase_count_min",
    "erase_count_max",
    "erase_count_mean",
    "sim_time_ns",
}


#: The default run's report, its results directory and its progress calls (done, total).
DefaultRun: TypeAlias = tuple[Report, Path, list[tuple[int, int]]]


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> DefaultRun:
    """One Python-API run of the bundled default scenario with a fixed seed."""
    calls: list[tuple[int, int]] = []
    out = tmp_path_factory.mktemp("api") / "out"
    report = ftlab.run(seed=SEED, out=out, progress=lambda done, total: calls.append((done, total)))
    return report, out, calls


def test_summary_layout(default_run: DefaultRun) -> None:
    report, _, _ = default_run
    s = report.summary
    assert s["seed"] == SEED
    assert s["ftlab_version"] == ftlab.__version__
    assert s["schemes"], "the default scenario compares at least one scheme"
    for scheme, data in s["schemes"].items():
        assert DEVICE_KEYS <= set(data["device"]), scheme
        assert data["tenants"], scheme
        for tenant, t in data["tenants"].items():
            for op in ("read", "write"):
                assert OP_KEYS <= set(t[op]), (scheme, tenant, op)
            assert {"waf", "gc_pages_copied", "host_pages_written"} <= set(t), (scheme, tenant)


def test_timeseries_and_resolved(default_run: DefaultRun) -> None:
    report, _, _ = default_run
    assert report.timeseries.height > 0
    assert {"scheme", "tenant"} <= set(report.timeseries.columns)
    assert "seed" in report.resolved_toml


def test_progress_reported(default_run: DefaultRun) -> None:
    _, _, calls = default_run
    assert calls
    assert all(0 <= done <= total for done, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_written_files_load_back(default_run: DefaultRun) -> None:
    report, out, _ = default_run
    assert (out / "summary.json").read_text(encoding="utf-8") == report.summary_json
    back = ftlab.load(out)
    assert back.summary == report.summary
    assert back.resolved_toml == report.resolved_toml
    # The frames imported from the core's Arrow tables and the ones read from parquet: same
    # columns, dtypes and values (NaN equal to NaN).
    for name in ("timeseries", "latency_cdf", "wear"):
        ran, loaded = getattr(report, name), getattr(back, name)
        assert ran.height > 0, name
        assert loaded.schema == ran.schema, name
        assert_frame_equal(loaded, ran, check_exact=True)


#: The columns of the core's tables and their Arrow types (beyond `scheme`, a string first).
CORE_SCHEMAS: dict[Literal["timeseries", "latency_cdf", "wear"], dict[str, pa.DataType]] = {
    "timeseries": {
        "tenant": pa.string(),
        "window_start_s": pa.float64(),
        "read_iops": pa.float64(),
        "backlog": pa.float64(),
    },
    "latency_cdf": {
        "tenant": pa.string(),
        "op": pa.string(),
        "latency_us": pa.float64(),
        "cdf": pa.float64(),
    },
    "wear": {
        "channel": pa.uint64(),
        "die": pa.uint64(),
        "block": pa.uint64(),
        "erase_count": pa.uint64(),
        "erase_count_precondition": pa.uint64(),
    },
}


def test_core_tables_are_arrow_objects() -> None:
    """`_core.run` hands its tables over as `ArrowTable`s (the Arrow PyCapsule interface), not
    Python lists: pyarrow and polars import them with the expected schema, share their
    buffers, and the struct-array and schema capsules agree with the stream."""
    out = _core.run(seed=SEED, overrides=["measure.duration_s=0.5"], jobs=1)
    assert not any(key.endswith("_types") for key in out)
    for name, expected in CORE_SCHEMAS.items():
        table = out[name]
        assert isinstance(table, _core.ArrowTable), name
        for method in ("__arrow_c_stream__", "__arrow_c_array__", "__arrow_c_schema__"):
            assert callable(getattr(table, method)), (name, method)
        arrow = pa.table(table)
        assert arrow.schema.field("scheme").type == pa.string()
        assert arrow.column_names[0] == "scheme" and arrow.column_names == table.column_names
        for column, dtype in expected.items():
            assert arrow.schema.field(column).type == dtype, (name, column)
        assert arrow.num_rows == table.num_rows == len(table) > 0
        assert pa.schema(table) == arrow.schema
        assert pa.array(table).type == pa.struct(list(arrow.schema))
        frame = pl.DataFrame(table)
        from_arrow = pl.from_arrow(arrow)
        assert isinstance(from_arrow, pl.DataFrame), name
        assert_frame_equal(frame, from_arrow, check_exact=True)
        # Every import shares the table's buffers (the last column is numeric in each).
        last = arrow.column_names[-1]
        address = arrow.column(last).chunk(0).buffers()[1].address
        assert pa.table(table).column(last).chunk(0).buffers()[1].address == address
        assert frame.get_column(last).to_arrow().buffers()[1].address == address
        with pytest.raises(TypeError):
            pickle.dumps(table)


def test_cli_run_is_deterministic_and_prints_tables(default_run: DefaultRun, tmp_path: Path) -> None:
    report, _, _ = default_run
    proc = run_cli(["run", "--seed", str(SEED)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "results" / "default"
    # Same scenario and seed: byte-identical summary.json, via the CLI and via the API.
    assert (out / "summary.json").read_bytes() == report.summary_json.encode("utf-8")
    assert (out / "timeseries.parquet").is_file()
    assert (out / "scenario.resolved.toml").is_file()
    # The headline (every tenant under every scheme), within 100 columns when piped (its
    # layout at each width is test_headline_fit's); the per-scheme tables only with --full.
    assert proc.stdout.startswith("ftlab run: which scheme did best for whom")
    assert max(len(line) for line in proc.stdout.splitlines()) <= 100
    words = " ".join(proc.stdout.split())
    for scheme, data in report.summary["schemes"].items():
        assert scheme in words, scheme
        for tenant in data["tenants"]:
            assert f"{tenant} " in words, tenant
    assert "report.html" in proc.stdout and "--full" in proc.stdout
    assert "scheme: unified" not in proc.stdout and "device: WAF" not in proc.stdout


def test_cli_run_scenario_file_default_out_dir(tmp_path: Path) -> None:
    scenario = tmp_path / "mine.toml"
    scenario.write_text(ftlab.default_scenario_toml())
    proc = run_cli(["run", str(scenario), "--set", f"seed={SEED}"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "results" / "mine" / "summary.json").read_text())["seed"] == SEED


def test_bad_scenario_exits_2_and_keeps_results(tmp_path: Path) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text("[device\nchannels = 4\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("earlier results")
    proc = run_cli(["run", str(scenario), "--out", str(out)])
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(r"bad\.toml:\d+:", proc.stderr), proc.stderr
    assert (out / "summary.json").read_text() == "earlier results"
    assert [p.name for p in out.iterdir()] == ["summary.json"]


def test_missing_scenario_file(tmp_path: Path) -> None:
    proc = run_cli(["run", "missing.toml"], cwd=tmp_path)
    assert proc.returncode == 2
    assert "missing.toml" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()


def test_unknown_override_key(tmp_path: Path) -> None:
    proc = run_cli(["run", "--set", "no_such_section.knob=1"], cwd=tmp_path)
    assert proc.returncode == 2
    assert "no_such_section" in proc.stderr
    assert "Traceback" not in proc.stderr


# Two tenants filling `tiny` to the brim at 5% over-provisioning: valid (16384 / 1.05 = 15603
# logical units fit the 4 x (64 - 2 - 1) x 64 = 15616 GC can keep valid), but the run has 13
# units of slack on the whole device and its writers wait for blocks GC cannot free. Each
# tenant writes through frontiers of its own (`ftl.frontier_per_tenant`): under `unified`'s
# conventional write point (issue 41) the two would share one frontier per die, and their
# open blocks would no longer take the slack (the device completes, at a WAF of about 60).
BRIM = """seed = 7
schemes = ["unified"]
[device]
preset = "tiny"
over_provisioning = 0.05
[ftl]
frontier_per_tenant = true
[precondition]
fill_fraction = 1.0
overwrite_passes = 0.0
[[tenants]]
name = "db"
namespace_fraction = 0.5
[tenants.synthetic]
requests = 2000
[[tenants]]
name = "web"
namespace_fraction = 0.5
[tenants.synthetic]
arrival = "closed"
requests = 2000
"""


def test_running_out_of_space_is_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "brim.toml"
    path.write_text(BRIM)
    with pytest.raises(ftlab.OutOfSpaceError) as info:
        ftlab.run(str(path), out=tmp_path / "out")
    e = info.value
    assert isinstance(e, ftlab.RunError) and not isinstance(e, ftlab.ConfigError)
    assert (
        e.file == str(path)
        and e.stage == "run"
        and e.at_s is not None
        and e.at_s > 0
        and e.n_blocks == 256
        and e.waiting
    )
    assert e.erases >= 0 and e.reason is not None and "raise device.over_provisioning" in e.reason
    assert str(e).startswith(f"{path}: the device ran out of space at ")


def test_running_out_of_space_while_preconditioning_is_its_own_error(tmp_path: Path) -> None:
    # BRIM with one pass of random overwrites: the fill fits, the overwrites leave a die no
    # block to collect before the run starts (tests/host.rs has the same case in Rust).
    path = tmp_path / "brim.toml"
    path.write_text(BRIM.replace("overwrite_passes = 0.0", "overwrite_passes = 1.0"))
    with pytest.raises(ftlab.OutOfSpaceError) as info:
        ftlab.run(str(path), out=tmp_path / "out")
    e = info.value
    assert not isinstance(e, ftlab.ConfigError) and e.key is None
    assert (e.stage, e.at_s, e.erases, e.n_blocks) == ("precondition", None, 0, 256)
    assert len(e.waiting) == 1 and e.reason is not None and e.reason.startswith(f'tenant "{e.waiting[0]}": ')
    assert str(e).startswith(f"{path}: the device ran out of space while preconditioning: tenant ")


def test_api_errors() -> None:
    with pytest.raises(ftlab.InputError):
        ftlab.run("definitely-missing.toml")
    with pytest.raises(ftlab.ConfigError) as info:
        ftlab.run({"no_such_key": 1})
    assert "no_such_key" in str(info.value)
