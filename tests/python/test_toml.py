"""Tests of scenario dicts: their conversion to TOML, and how `ftlab.run` hands a dict, a path
or nothing to the core (with `ftlab._core.run` replaced by a recorder: no simulation here)."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
import tomllib

import ftlab
from ftlab import _core
from ftlab.api import scenario_to_toml


def test_nested_dict_round_trips() -> None:
    tenant_a = {"name": "a", "workload": {"kind": "zipf", "theta": 0.99}}
    scenario = {
        "seed": 42,
        "device": {"preset": "upi", "channels": 4, "op": 0.07},
        "tenants": [
            tenant_a,
            {"name": "b", "workload": {"kind": "trace", "format": "msr", "path": Path("t/hm0.csv")}},
        ],
        "schemes": ["unified", "upi"],
    }
    text = scenario_to_toml(scenario)
    back = tomllib.loads(text)
    expected = dict(scenario)
    expected["tenants"] = [
        tenant_a,
        {"name": "b", "workload": {"kind": "trace", "format": "msr", "path": os.fspath(Path("t/hm0.csv"))}},
    ]
    assert back == expected


def test_none_value_names_its_key() -> None:
    with pytest.raises(_core.ConfigError) as info:
        scenario_to_toml({"device": {"channels": None}})
    assert info.value.key == "device.channels"
    assert "device.channels" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_none_in_list_names_its_index() -> None:
    with pytest.raises(ftlab.ConfigError) as info:
        scenario_to_toml({"tenants": [{"name": "a"}, {"name": None}]})
    assert info.value.key == "tenants[1].name"


class Recorder:
    """Stands in for ftlab._core.run and records its arguments."""

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def __call__(self, **kwargs: object) -> dict[str, object]:
        self.calls.append(kwargs)
        return {
            "summary_json": '{"schemes": {}, "seed": 1}',
            "resolved_toml": "seed = 1\n",
            "timeseries": pl.DataFrame({"t": [1, 2]}, schema={"t": pl.UInt64}),
        }


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    monkeypatch.setattr(_core, "run", rec)
    return rec


def test_run_dict_passes_toml_text_and_cwd(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    report = ftlab.run({"seed": 3, "device": {"channels": 2}}, seed=9, set=["device.channels=4"])
    (call,) = recorder.calls
    text, base_dir = call["text"], call["base_dir"]
    assert isinstance(text, str) and isinstance(base_dir, str | os.PathLike)
    assert tomllib.loads(text) == {"seed": 3, "device": {"channels": 2}}
    assert Path(base_dir) == tmp_path
    assert call["name"] == "<dict>"
    assert "source_path" not in call
    assert call["seed"] == 9
    assert call["overrides"] == ["device.channels=4"]
    assert report.summary == {"schemes": {}, "seed": 1}


def test_run_path_and_default(recorder: Recorder, tmp_path: Path) -> None:
    ftlab.run(tmp_path / "s.toml")
    ftlab.run(str(tmp_path / "s.toml"))
    ftlab.run()
    assert recorder.calls[0]["source_path"] == str(tmp_path / "s.toml")
    assert recorder.calls[1]["source_path"] == str(tmp_path / "s.toml")
    assert "source_path" not in recorder.calls[2] and "text" not in recorder.calls[2]


def test_run_single_override_string_and_progress(recorder: Recorder) -> None:
    def progress(done: int, total: int) -> None:
        pass

    ftlab.run(set="seed=5", progress=progress)
    assert recorder.calls[0]["overrides"] == ["seed=5"]
    assert recorder.calls[0]["progress"] == progress


def test_run_with_out_writes_report(recorder: Recorder, tmp_path: Path) -> None:
    ftlab.run(out=tmp_path / "r")
    assert (tmp_path / "r" / "summary.json").read_text() == '{"schemes": {}, "seed": 1}'


def test_run_rejects_other_types(recorder: Recorder) -> None:
    with pytest.raises(TypeError):
        ftlab.run(42)  # type: ignore[arg-type]
