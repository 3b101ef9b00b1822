"""End-to-end tests of sweeps on a real local Ray instance: the shipped op-by-scheme sweep
through the CLI (table shape and properties checked against the sweep file and the physics,
not against the code's own numbers), failing runs, a Ray worker killed mid-sweep, and Ctrl-C
on `ftlab sweep`; after each interruption the finished runs are intact and a rerun completes
the sweep with the same table as an uninterrupted one. Spec-level tests without Ray are in
test_sweep_spec.py."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest
import tomllib

import ftlab
from conftest import REPO_ROOT
from ftlab.sweeps.spec import Failure

SHIPPED = REPO_ROOT / "scenarios" / "sweeps" / "op-by-scheme.toml"
BASE = REPO_ROOT / "scenarios" / "sweeps" / "uniform-writes.toml"
CI_BUDGET_S = 120

# Runs of about a second each, so that a test can catch one in flight.
SLOW_REQUESTS = 300_000
SLOW_GRID = [SLOW_REQUESTS, SLOW_REQUESTS + 100_000, SLOW_REQUESTS + 200_000]
SLOW = {
    "scenario": str(BASE),
    "seeds": [1, 2],
    "grid": {"tenants.0.synthetic.requests": SLOW_GRID},
    "cases": [
        {"name": "unified", "set": {"schemes": ["unified"], "tenants.1.synthetic.requests": SLOW_REQUESTS}}
    ],
}
SLOW_RUNS = 3 * 2


def slow_toml() -> str:
    grid = SLOW_GRID
    return (
        f'scenario = "{BASE}"\nseeds = [1, 2]\n[grid]\n"tenants.0.synthetic.requests" = {grid}\n'
        '[[cases]]\nname = "unified"\nset = { schemes = ["unified"], '
        f'"tenants.1.synthetic.requests" = {SLOW_REQUESTS} }}\n'
    )


def finished_runs(runs_dir: Path) -> list[Path]:
    return sorted(p for p in runs_dir.iterdir() if not p.name.startswith(".")) if runs_dir.is_dir() else []


def assert_runs_intact(runs_dir: Path) -> None:
    """No temporary or partial run directory; every run loads and is keyed by its scenario."""
    assert [p.name for p in runs_dir.iterdir() if p.name.startswith(".")] == []
    for run in finished_runs(runs_dir):
        report = ftlab.load(run)
        assert report.summary["schemes"]
        assert hashlib.sha256((run / "scenario.resolved.toml").read_bytes()).hexdigest() == run.name


def run_task_pids(root_pid: int) -> list[int]:
    """Ray workers below `root_pid` that are executing a sweep run right now."""
    import psutil
    import ray  # noqa: F401 - puts Ray's bundled psutil on sys.path

    pids = []
    for proc in psutil.Process(root_pid).children(recursive=True):
        try:
            if proc.cmdline() and proc.cmdline()[0].startswith("ray::run_task"):
                pids.append(proc.pid)
        except psutil.Error:
            pass
    return pids


# --------------------------------------------------------------------------------------


def test_shipped_sweep_end_to_end(tmp_path: Path) -> None:
    """`ftlab sweep scenarios/sweeps/op-by-scheme.toml` on its own local Ray, within the CI budget."""
    out = tmp_path / "op"
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "ftlab", "sweep", str(SHIPPED), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=CI_BUDGET_S * 2,
    )
    elapsed_s = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert elapsed_s < CI_BUDGET_S, f"the CI sweep took {elapsed_s:.0f} s"
    print(f"shipped sweep: {elapsed_s:.1f} s including Ray start")
    check_op_sweep(ftlab.load_sweep(out), out)


def check_op_sweep(result: ftlab.SweepResult, out: Path) -> None:
    sweep = tomllib.loads(SHIPPED.read_text())
    base = tomllib.loads(BASE.read_text())
    ops = sweep["grid"]["device"]["over_provisioning"]
    schemes = sweep["grid"]["schemes"]
    tenants = [t["name"] for t in base["tenants"]]
    t = result.table
    assert result.failures == [] and not json.loads((out / "failures.json").read_text())
    # One row per run and tenant, every combination present once.
    assert t.height == len(ops) * len(schemes) * len(sweep["seeds"]) * len(tenants)
    combos = t.select("device.over_provisioning", "schemes", "seed", "tenant").rows()
    assert sorted(combos) == sorted(
        (o, json.dumps(s), seed, n) for o in ops for s in schemes for seed in sweep["seeds"] for n in tenants
    )
    assert t.columns[:6] == ["device.over_provisioning", "schemes", "seed", "run", "scheme", "tenant"]
    for row in t.iter_rows(named=True):
        # The scheme that ran is the one the override chose; the run is what its resolved scenario says.
        assert [row["scheme"]] == json.loads(row["schemes"])
        resolved = tomllib.loads((out / "runs" / row["run"] / "scenario.resolved.toml").read_text())
        assert resolved["device"]["over_provisioning"] == row["device.over_provisioning"]
        assert resolved["seed"] == row["seed"] and resolved["schemes"] == [row["scheme"]]
        # Every write request of the base scenario was served, one 4 KiB unit each.
        requests = next(x["synthetic"]["requests"] for x in base["tenants"] if x["name"] == row["tenant"])
        assert row["write.count"] == requests and row["host_pages_written"] == requests
        assert row["waf"] >= 1.0 and row["device.waf"] >= 1.0
    # Greedy GC under uniform random writes: more spare space, less write amplification.
    for (scheme, seed, tenant), g in t.group_by("scheme", "seed", "tenant"):
        wafs = g.sort("device.over_provisioning")["waf"].to_list()
        assert all(a > b for a, b in itertools.pairwise(wafs)), (scheme, seed, tenant, wafs)
    assert result.plot is not None and result.plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.plot.name == sweep["plot"]["file"]


# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def baseline(ray_session: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> ftlab.SweepResult:
    """The slow sweep, uninterrupted: the table every interrupted-then-resumed sweep must give."""
    out = tmp_path_factory.mktemp("baseline")
    result = ftlab.sweep(SLOW, out=out)
    assert result.ok and result.ran == SLOW_RUNS
    assert result.table.height == SLOW_RUNS * 2
    return result


def test_rerun_reuses_every_run(baseline: ftlab.SweepResult) -> None:
    again = ftlab.sweep(SLOW, out=baseline.dir)
    assert (again.ran, again.reused) == (0, SLOW_RUNS)
    assert again.table.equals(baseline.table)
    assert ftlab.load_sweep(baseline.dir).table.equals(baseline.table)


def test_cli_address_auto_uses_the_running_cluster(ray_session: ModuleType, tmp_path: Path) -> None:
    """`--address auto` joins the session's Ray instance (no Ray start) and leaves it running."""
    sweep_file = tmp_path / "small.toml"
    sweep_file.write_text(
        f'scenario = "{BASE}"\nseeds = [4]\n[grid]\n"tenants.0.synthetic.requests" = [1000, 2000]\n'
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ftlab",
            "sweep",
            str(sweep_file),
            "--address",
            "auto",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    table = ftlab.load_sweep(tmp_path / "out").table
    assert (
        table.select("tenants.0.synthetic.requests", "tenant", "write.count")
        .filter(table["tenant"] == "a")
        .rows()
        == [(1000, "a", 1000)] * 2 + [(2000, "a", 2000)] * 2
    )
    assert ray_session.is_initialized() and ray_session.cluster_resources().get("CPU", 0) >= 1


def test_failing_runs_are_reported_and_the_others_go_on(ray_session: ModuleType, tmp_path: Path) -> None:
    present = tmp_path / "t.csv"
    present.write_text(
        "".join(f"{128166372003061629 + i * 10000},h,0,Write,{i * 4096},4096,1\n" for i in range(200))
    )
    base = BASE.read_text().replace("requests = 20000", "requests = 2000")
    base = base.replace(
        'pattern = "uniform"\nread_ratio = 0.0\narrival = "closed"\nrequests = 2000\n',
        'path = "t.csv"\nformat = "msr"\n',
        1,
    )
    base = base.replace("[tenants.synthetic]\npath", "[tenants.trace]\npath", 1)
    (tmp_path / "base.toml").write_text(base)
    spec = {
        "scenario": "base.toml",
        "grid": {"device.over_provisioning": [0.25, -1.0]},
        "cases": [{"name": "present"}, {"name": "missing", "set": {"tenants.0.trace.path": "missing.csv"}}],
    }
    seen: list[Failure] = []
    cwd = os.getcwd()
    os.chdir(tmp_path)  # a dict sweep's paths resolve against the current directory
    try:
        result = ftlab.sweep(spec, out=tmp_path / "out", on_failure=seen.append)
    finally:
        os.chdir(cwd)
    assert not result.ok and seen == result.failures
    assert json.loads((tmp_path / "out" / "failures.json").read_text()) == result.failures
    by_params = {(f["params"]["case"], f["params"]["device.over_provisioning"]): f for f in result.failures}
    assert set(by_params) == {("present", -1.0), ("missing", -1.0), ("missing", 0.25)}
    bad = by_params[("present", -1.0)]
    assert bad["kind"] == "ConfigError" and bad["run"] is None
    assert bad["error"].startswith(
        "--set device.over_provisioning=-1.0: device.over_provisioning: must be in (0, 4]"
    )
    missing = by_params[("missing", 0.25)]
    assert missing["kind"] == "InputError" and missing["run"] is not None
    assert str(tmp_path / "missing.csv") in missing["error"] and "tenants.0.trace.path" in missing["error"]
    # The one good run finished and is the whole table.
    assert result.table.select("case", "device.over_provisioning").unique().rows() == [("present", 0.25)]
    replayed = result.table.filter(result.table["tenant"] == "a")
    assert sorted(replayed["scheme"]) == sorted(tomllib.loads(base)["schemes"])
    assert replayed["write.count"].to_list() == [200] * replayed.height


def test_killed_worker_loses_only_its_run(baseline: ftlab.SweepResult, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    killed: dict[str, int] = {}

    def kill_one_running_task() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            pids = run_task_pids(os.getpid()) if finished_runs(out / "runs") else []
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.update(pid=pids[0], finished_before=len(finished_runs(out / "runs")))
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one_running_task)
    killer.start()
    result = ftlab.sweep(SLOW, out=out)
    killer.join()
    assert killed, "no run was caught in flight"
    # The killed run failed as a Ray error; every other run finished and is intact.
    assert [f["kind"] for f in result.failures] == ["RayError"], result.failures
    print("killed run:", result.failures[0]["error"])
    lost = result.failures[0]["run"]
    assert lost is not None and not (out / "runs" / lost).exists()
    assert_runs_intact(out / "runs")
    assert len(finished_runs(out / "runs")) == SLOW_RUNS - 1
    assert set(result.table["run"]) == set(baseline.table["run"]) - {lost}
    # A rerun runs only the lost run and gives the uninterrupted table.
    again = ftlab.sweep(SLOW, out=out)
    assert (again.ran, again.reused, again.failures) == (1, SLOW_RUNS - 1, [])
    assert again.table.equals(baseline.table)


def test_ctrl_c_keeps_finished_runs_and_resumes(baseline: ftlab.SweepResult, tmp_path: Path) -> None:
    sweep_file = tmp_path / "slow.toml"
    sweep_file.write_text(slow_toml())
    out = tmp_path / "out"
    # Ray's core can abort on a SIGINT that lands while a task completes ("Check failed ...
    # Tried to complete task that was not pending", its own assertion, not ftlab's). Such an
    # attempt proves nothing either way: it is discarded and the interrupt taken once more, on a
    # fresh output directory; every assertion below applies to the attempt that counts.
    proc, stderr, descendants = _interrupt_sweep(sweep_file, out)
    if RAY_INTERNAL_BUG in stderr:
        shutil.rmtree(out, ignore_errors=True)
        proc, stderr, descendants = _interrupt_sweep(sweep_file, out)
    assert proc.returncode == 130, stderr
    assert (
        "Traceback" not in stderr
        and "interrupted:" in stderr
        and "run the same command again to resume" in stderr
    )
    kept = finished_runs(out / "runs")
    assert 1 <= len(kept) < SLOW_RUNS
    assert_runs_intact(out / "runs")
    assert not (out / "sweep.parquet").exists()
    _assert_gone(descendants)
    again = ftlab.sweep(sweep_file, out=out)
    assert (again.ran, again.reused, again.failures) == (SLOW_RUNS - len(kept), len(kept), [])
    assert again.table.equals(baseline.table)


#: What Ray prints when one of its own internal checks fails.
RAY_INTERNAL_BUG = "You have likely discovered a bug in Ray"


def _interrupt_sweep(sweep_file: Path, out: Path) -> tuple[subprocess.Popen[str], str, list[int]]:
    """Start `ftlab sweep`, send SIGINT to its process group (as Ctrl-C does) once a run has
    finished and another is running, and return the process, its stderr and its descendants."""
    env = {**os.environ, "NO_COLOR": "1"}
    # A new session, so that SIGINT reaches the command's whole process group, as Ctrl-C does.
    proc = subprocess.Popen(
        [sys.executable, "-m", "ftlab", "sweep", str(sweep_file), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (finished_runs(out / "runs") and run_task_pids(proc.pid)):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        descendants = _descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc, stderr, descendants


def _descendants(pid: int) -> list[int]:
    import psutil
    import ray  # noqa: F401 - Ray's bundled psutil

    return [p.pid for p in psutil.Process(pid).children(recursive=True)]


def _assert_gone(pids: list[int], timeout_s: float = 30) -> None:
    """The interrupted command's Ray processes end with it."""
    import psutil
    import ray  # noqa: F401

    deadline = time.monotonic() + timeout_s
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [
            p for p in alive if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
        ]
        time.sleep(0.2)
    assert not alive, f"Ray processes left running: {alive}"
