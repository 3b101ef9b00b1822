"""Tests of the stream measurements as Python sees them (docs/streams/README.md): a small run
with address-range stream rules under `manual`, read back through `Report.streams_frame`,
`Report.physical_streams_frame`, the time series' `vs<i>_physical_stream` columns and
report.html's stream map. The rules and the engine's counting are tested in
crates/ftlab/tests/streams.rs; this checks that the Python surface shows them whole."""

from __future__ import annotations

import pytest

import ftlab
from ftlab.report import html as html_report

MIB = 1 << 20


def scenario(mapper: str, lifetimes: bool = False) -> dict[str, object]:
    """The run; with `lifetimes`, `measure.stream_lifetimes = true` (else the key is left out)."""
    tenant = {
        "name": "db",
        "namespace_fraction": 0.9,
        "synthetic": {"pattern": "uniform", "read_ratio": 0.0, "rate_iops": 4000.0},
        # Two tagged ranges; the rest of the namespace keeps the generator's stream 0.
        "stream_rules": [
            {"offset_bytes": 0, "size_bytes": 8 * MIB, "stream": 3},
            {"offset_bytes": 8 * MIB, "size_bytes": 8 * MIB, "stream": 300},
        ],
    }
    return {
        "seed": 7,
        "schemes": ["unified"],
        "stream_mapper": mapper,
        "device": {"preset": "tiny"},
        "ftl": {"physical_streams": 4},
        "stream": {"manual": {"table": [1, 1, 1, 2]}},
        "measure": {"duration_s": 3.0, "warmup_s": 1.0, "window_s": 0.5}
        | ({"stream_lifetimes": True} if lifetimes else {}),
        "tenants": [tenant],
    }


@pytest.fixture(scope="module")
def manual() -> ftlab.Report:
    return ftlab.run(scenario("manual", lifetimes=True))


def test_streams_frame_has_each_tagged_stream(manual: ftlab.Report) -> None:
    frame = manual.streams_frame
    assert set(frame.get_column("stream").to_list()) == {"0", "3", "other"}
    assert set(frame.get_column("tenant").to_list()) == {"db"}
    written = dict(
        zip(frame.get_column("stream").to_list(), frame.get_column("units_written").to_list(), strict=True)
    )
    device = manual.summary["schemes"]["unified"]["device"]
    assert sum(written.values()) == device["host_pages_written"]
    # Uniform writes: the two 8 MiB ranges take the same share of the writes, within 20%.
    assert written["3"] == pytest.approx(written["other"], rel=0.2)
    assert all(v is None or v > 0 for v in frame.get_column("lifetime_s_mean").to_list())


def test_physical_streams_add_up_and_follow_the_table(manual: ftlab.Report) -> None:
    frame = manual.physical_streams_frame
    assert frame.get_column("stream").to_list() == [0, 1, 2, 3]
    host = frame.get_column("host_units_written").to_list()
    device = manual.summary["schemes"]["unified"]["device"]
    assert sum(host) == device["host_pages_written"]
    assert sum(frame.get_column("gc_units_copied").to_list()) == device["gc_pages_copied"]
    # table [1, 1, 1, 2]: stream 0 -> 1, 3 -> 2, 300 -> default 0.
    assert host[3] == 0 and host[0] > 0 and host[1] > 0 and host[2] > 0


def test_streams_are_not_counters(manual: ftlab.Report) -> None:
    assert not any(c.startswith("streams") for c in manual.counters_frame.columns)


def test_time_series_and_report_show_the_mapping(manual: ftlab.Report) -> None:
    ts = manual.timeseries
    assert ts.get_column("vs0_physical_stream").drop_nans().unique().to_list() == [1.0]
    assert ts.get_column("vs3_physical_stream").drop_nans().unique().to_list() == [2.0]
    assert 'id="fig-series-0-stream-map"' in html_report.render(manual)


def test_legacy_has_no_mapping_columns() -> None:
    report = ftlab.run(scenario("legacy"))
    assert not any(c.endswith("_physical_stream") for c in report.timeseries.columns)
    physical = report.physical_streams_frame.get_column("host_units_written").to_list()
    assert physical[0] == sum(physical), "legacy writes stream 0 only"


def test_without_lifetimes_every_death_is_of_unknown_age(manual: ftlab.Report) -> None:
    """`measure.stream_lifetimes = false` (the default, docs/scenario.md) keeps no write times:
    the same run (the knob changes no placement), the same writes and deaths per stream, every
    death of unknown age. The scenario leaves the key out, so this also checks the default."""
    s = scenario("manual")
    measure = s["measure"]
    assert isinstance(measure, dict) and "stream_lifetimes" not in measure
    off = ftlab.run(s)
    cols = ["tenant", "stream", "units_written", "units_dead", "units_dead_unknown_age", "lifetime_s_mean"]
    on_rows = {r["stream"]: r for r in manual.streams_frame.select(cols).to_dicts()}
    off_rows = {r["stream"]: r for r in off.streams_frame.select(cols).to_dicts()}
    assert set(on_rows) == set(off_rows)
    assert any(r["units_dead"] > 0 for r in on_rows.values()), "the run must have deaths to test"
    for stream, on in on_rows.items():
        o = off_rows[stream]
        assert o["units_written"] == on["units_written"], stream
        assert o["units_dead"] == 0 and o["lifetime_s_mean"] is None, stream
        assert o["units_dead_unknown_age"] == on["units_dead"] + on["units_dead_unknown_age"], stream
    assert off.summary["schemes"]["unified"]["device"] == manual.summary["schemes"]["unified"]["device"]
