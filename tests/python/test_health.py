"""Tests of `ftlab.reproduce.claims.health` on hand-made summaries (DESIGN §12): a starved or
unstable tenant makes its scheme unhealthy with a reason naming the tenant and the numbers; a
missing flag fails its check; a busy die alone is the die check's business. Not the Rust
measurement of the fields (crates/ftlab/tests/health.rs)."""

from __future__ import annotations

import pytest

from ftlab.reproduce import claims as C


def _tenant(**over: object) -> dict[str, object]:
    t: dict[str, object] = {
        "queue_depth": 64,
        "outstanding_at_end": 3,
        "backlog_growth": 1.5,
        "unstable": False,
        "backlog_max": 80,
        "backlog_limit": 256.0,
        "max_wait_s": 0.02,
        "starvation_wait_s": 1.0,
        "stall_s_max": 0.01,
        "starved": False,
    }
    t.update(over)
    return t


def _summary(dies: list[float] | None = None, **tenants: dict[str, object]) -> dict[str, object]:
    device = {"die_utilisation": [0.3, 0.5] if dies is None else dies}
    return {"schemes": {"upi": {"tenants": tenants, "device": device}}}


def test_a_healthy_scheme_has_no_reasons() -> None:
    h = C.health(_summary(dtrs=_tenant(), lm=_tenant()))
    s = h["schemes"]["upi"]
    assert h["ok"] and s["ok"] and s["tenants_ok"] and s["reasons"] == []
    assert s["tenants"]["dtrs"] == {
        "unstable": False,
        "starved": False,
        "outstanding_at_end": 3,
        "backlog_max": 80,
        "max_wait_s": 0.02,
        "stall_s_max": 0.01,
        "queue_depth": 64,
        "writes_outstanding_at_end": None,
        "writes_arrived": None,
    }


def test_a_starved_tenant_makes_its_scheme_unhealthy() -> None:
    h = C.health(_summary(dtrs=_tenant(starved=True, max_wait_s=74.08), lm=_tenant()))
    s = h["schemes"]["upi"]
    assert not h["ok"] and not s["ok"] and not s["tenants_ok"] and s["busiest_die_ok"]
    assert s["reasons"] == ["dtrs starved: a request waited 74.1 s > 1 s"]


@pytest.mark.parametrize(
    "over, reason",
    [
        # The backlog beyond the limit at some time: 944 > 4 x 64.
        ({"backlog_max": 944}, "dtrs unstable: 944 requests outstanding > 256 (4 queue depths of 64)"),
        # At the limit exactly, so the growth made it unstable.
        (
            {"backlog_max": 256, "backlog_growth": 880.0, "outstanding_at_end": 900},
            "dtrs unstable: backlog grew by 880, 900 outstanding at the end",
        ),
    ],
)
def test_an_unstable_tenant_says_why(over: dict[str, object], reason: str) -> None:
    s = C.health(_summary(dtrs=_tenant(unstable=True, **over)))["schemes"]["upi"]
    assert not s["ok"] and s["reasons"] == [reason]


def test_both_flags_and_a_busy_die_give_one_reason_each() -> None:
    summary = _summary(
        [0.9], dtrs=_tenant(unstable=True, backlog_max=944, starved=True, max_wait_s=5.04), lm=_tenant()
    )
    s = C.health(summary)["schemes"]["upi"]
    assert s["reasons"] == [
        "dtrs starved: a request waited 5.0 s > 1 s",
        "dtrs unstable: 944 requests outstanding > 256 (4 queue depths of 64)",
        "busiest die 90% ≥ 85%",
    ]


def test_a_summary_without_the_flags_is_not_healthy() -> None:
    old = {k: v for k, v in _tenant().items() if k not in ("starved", "unstable")}
    s = C.health(_summary(dtrs=old))["schemes"]["upi"]
    assert not s["ok"] and s["reasons"] == ["dtrs: starved not reported", "dtrs: unstable not reported"]


def test_a_flag_or_number_of_another_type_reads_as_missing() -> None:
    # ftlab/_json.py: a scalar of the wrong type is not passed on; its check fails as missing.
    s = C.health(_summary(dtrs=_tenant(starved="no", queue_depth=64.0, max_wait_s="0.02")))["schemes"]["upi"]
    t = s["tenants"]["dtrs"]
    assert (t["starved"], t["queue_depth"], t["max_wait_s"]) == (None, None, None)
    assert not s["ok"] and s["reasons"] == ["dtrs: starved not reported"]


def test_a_table_of_another_type_is_an_error() -> None:
    with pytest.raises(TypeError, match="a JSON object was expected, not list"):
        C.health({"schemes": {"upi": {"tenants": ["dtrs"]}}})


def test_the_reproduce_warning_lists_the_reasons() -> None:
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from ftlab.cli.reproduce import _print_health_warning

    result = SimpleNamespace(
        health=C.health(_summary(dtrs=_tenant(starved=True, max_wait_s=74.08), lm=_tenant()))
    )
    out = io.StringIO()
    _print_health_warning(Console(file=out, width=100, color_system=None), result)  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    assert (
        "bears on what it reads" in " ".join(lines[:2])
        and lines[-1] == "  upi: dtrs starved: a request waited 74.1 s > 1 s"
    )
    assert all(len(line) <= 100 for line in lines)
