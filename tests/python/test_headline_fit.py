"""Tests of the headline's answers and fit (ftlab.report.headline, ftlab.cli.headline): ★ only
beyond the declared noise, values from too few samples marked and not ranked, the verdict
line per tenant (expected texts worked by hand from the numbers), the notes (records not
replayed, health, what the lifetime assumes), and the printed text at 80, 100 and 140
columns: no line longer than the width, every tenant name whole, every verdict line there.
The table cases of test_headline.py cover the changes and the baseline."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import cast

import pytest
from rich.console import Console

from ftlab.cli.headline import print_headline
from ftlab.report import headline as hl
from ftlab.results import Summary


def op(
    count: int = 1000, p99: float = 900.0, mean: float = 100.0, iops: float = 10.0, nbytes: int = 0
) -> dict[str, float]:
    return {"count": count, "iops": iops, "mean_us": mean, "p99_us": p99, "bytes": nbytes}


def tenant(
    read_p99: float = 900.0,
    write_p99: float = 2000.0,
    waf: float = 1.5,
    lifetime: float = 100.0,
    reads: int = 1000,
    writes: int = 1000,
    iops: float = 10.0,
    **extra: object,
) -> dict[str, object]:
    t: dict[str, object] = {
        "read": op(reads, read_p99, iops=iops),
        "write": op(writes, write_p99, iops=iops, nbytes=2_000_000),
        "trim": op(0, 0.0, 0.0, 0.0),
        "waf": waf,
        "unstable": False,
        "outstanding_at_end": 0,
        "wear": {"lifetime_days": lifetime, "erase_rate_per_s": 4.0},
    }
    t.update(extra)
    return t


def summary(**schemes: Mapping[str, Mapping[str, object]]) -> Summary:
    """A partial summary, {scheme: {tenant: tenant object}}: only the keys the headline reads,
    so typed as a `Summary` by a cast (the headline's functions take one)."""
    partial = {
        "schemes": {
            s: {"tenants": ts, "device": {"pe_cycles": 3000, "measured_s": 2.0}} for s, ts in schemes.items()
        }
    }
    return cast(Summary, partial)


def best(s: Summary, t: str, key: str) -> set[str]:
    row = next(r for r in hl.build(s).rows if r.tenant == t)
    return {scheme for scheme, c in row.cells[key].items() if c.best}


# --------------------------------------------------------------------------------------
# ★ beyond the noise, too few samples


@pytest.mark.parametrize(
    ("values", "marked"),
    [
        ((147.0, 148.0), set()),  # 0.7 %: within the 5 % noise (the IOPS)
        ((100.0, 104.0, 150.0), {"a", "b"}),  # a and b within 5 % of the best, c beyond
        ((100.0, 106.0), {"a"}),  # 6 %: beyond
        ((100.0, 104.9, 150.0), {"a", "b"}),  # 4.9 %: within
        ((100.0, 105.1, 150.0), {"a"}),  # 5.1 %: beyond
        ((100.0, 104.0), set()),  # every scheme within the noise: none marked
        ((100.0,), set()),  # one value: nothing to rank
    ],
)
def test_best_only_beyond_the_noise(values: tuple[float, ...], marked: set[str]) -> None:
    s = summary(**{name: {"t": tenant(read_p99=v)} for name, v in zip("abc", values, strict=False)})
    assert best(s, "t", "read_p99") == marked


def test_slowdowns_of_099_and_100_are_noise() -> None:
    def sd(v: float) -> dict[str, float | None]:
        return {"read_mean": v, "read_p99": v, "write_mean": None, "write_p99": None}

    s = summary(a={"t": tenant(slowdown=sd(0.99))}, b={"t": tenant(slowdown=sd(1.00))})
    assert best(s, "t", "slowdown_read_p99") == set()


def test_the_noise_is_declared_and_in_the_caption() -> None:
    assert hl.NOISE_PCT == 5.0
    h = hl.build(summary(a={"t": tenant()}, b={"t": tenant()}))
    assert "noise (5%" in hl.caption(h) and "baseline scheme, a" in hl.caption(h)


def test_a_waf_from_two_writes_is_marked_and_not_ranked() -> None:
    # The read-only tenant: a WAF of 240 from two writes.
    s = summary(a={"r": tenant(writes=2, waf=240.0)}, b={"r": tenant(writes=2, waf=3.0)})
    h = hl.build(s)
    cells = h.rows[0].cells["waf"]
    assert cells["a"].few and cells["a"].samples == 2 and not cells["a"].best and not cells["b"].best
    assert hl.cell_text(h.metrics[[m.key for m in h.metrics].index("waf")], cells["a"]) == "240†"
    assert h.has_few and "†: from fewer than 100 requests" in hl.directions(h)
    assert "r WAF from 2 writes" in " ".join(hl.notes(s, h))
    # 99 reads: marked; 100: not (SAMPLES_MIN is the fewest ranked).
    s = summary(a={"t": tenant(reads=99)}, b={"t": tenant(reads=100, read_p99=100.0)})
    cells = hl.build(s).rows[0].cells["read_p99"]
    assert cells["a"].few and not cells["b"].few


# --------------------------------------------------------------------------------------
# Verdicts (texts worked by hand from the numbers)


def sd(read: float, write: float | None = None) -> dict[str, float | None]:
    """A tenant's `slowdown` object (shared / solo)."""
    return {"read_mean": read, "read_p99": read, "write_mean": write, "write_p99": write}


VERDICTS = {
    "a scheme beyond the noise": (
        summary(a={"t": tenant(read_p99=900.0)}, b={"t": tenant(read_p99=450.0)}),
        "t: b best on read p99 (450 µs), -50% read p99 against a",  # (450 - 900) / 900 = -50 %
    ),
    "none beyond the noise": (
        summary(a={"t": tenant(read_p99=100.0)}, b={"t": tenant(read_p99=102.0)}),
        "t: no scheme differs by more than the noise (5%) on read p99 (100–102 µs)",
    ),
    "the baseline best": (
        summary(
            a={"t": tenant(read_p99=100.0)}, b={"t": tenant(read_p99=150.0)}, c={"t": tenant(read_p99=130.0)}
        ),
        "t: a best on read p99 (100 µs); c +30% to b +50%",  # the nearest and the worst
    ),
    "ranked on what the tenant gets, the slowdown beside it": (
        summary(
            a={"t": tenant(read_p99=1000.0, waf=2.0, slowdown=sd(2.0))},
            b={"t": tenant(read_p99=1120.0, waf=2.5, slowdown=sd(1.0))},
        ),
        # b isolates best (1.00x), but a's read p99 is (1120 - 1000) / 1000 = 12 % better
        "t: a best on read p99 (1,000 µs, slowdown 2.00×); b +12%",
    ),
    "the winner unstable is excluded, and said so": (
        summary(a={"t": tenant(read_p99=900.0)}, b={"t": tenant(read_p99=450.0, unstable=True)}),
        "t: only a comparable on read p99 (900 µs); excluded: b (unstable, 450 µs)",
    ),
    "the fastest unstable, the next wins": (
        summary(
            a={"t": tenant(read_p99=900.0)},
            b={"t": tenant(read_p99=450.0, unstable=True)},
            c={"t": tenant(read_p99=800.0)},
        ),
        # (800 - 900) / 900 = -11 %
        "t: c best on read p99 (800 µs), -11% read p99 against a; excluded: b (unstable, 450 µs)",
    ),
    "the winner starved": (
        summary(
            a={"t": tenant(read_p99=900.0)},
            b={"t": tenant(read_p99=450.0, starved=True, max_wait_s=1.5)},
            c={"t": tenant(read_p99=300.0)},
        ),
        "t: c best on read p99 (300 µs), -67% read p99 against a; excluded: b (starved, 450 µs)",
    ),
    "a write-only tenant: write p99": (
        summary(a={"w": tenant(reads=0, write_p99=3000.0)}, b={"w": tenant(reads=0, write_p99=1500.0)}),
        "w: b best on write p99 (1,500 µs), -50% write p99 against a",
    ),
    "too few requests everywhere": (
        summary(a={"t": tenant(reads=5, writes=5)}, b={"t": tenant(reads=5, writes=5, iops=20.0)}),
        # IOPS is not from samples: (40 - 20) / 20 = +100 %
        "t: b best on IOPS (40.0), +100% IOPS against a",
    ),
    # The five cases (issue 42, item 2), with the numbers it quotes.
    "issue: oltp, unified has the best read p99 while others isolate best": (
        summary(
            unified={"oltp": tenant(read_p99=1683.0, slowdown=sd(2.95))},
            partitioned={"oltp": tenant(read_p99=2036.0, slowdown=sd(1.00))},
            flashblox={"oltp": tenant(read_p99=1981.0, slowdown=sd(1.02))},
            upi={"oltp": tenant(read_p99=1783.0, slowdown=sd(3.05))},
        ),
        # (1783 - 1683) / 1683 = +5.9 %, (2036 - 1683) / 1683 = +21 %
        "oltp: unified best on read p99 (1,683 µs, slowdown 2.95×); upi +5.9% to partitioned +21%",
    ),
    "issue: ingest, a slowdown of 0.94x wins nothing": (
        summary(
            unified={"ingest": tenant(read_p99=2650.0, slowdown=sd(2.22))},
            partitioned={"ingest": tenant(read_p99=2892.0, slowdown=sd(1.00))},
            flashblox={"ingest": tenant(read_p99=3015.0, slowdown=sd(0.94))},
        ),
        # (2892 - 2650) / 2650 = +9.1 %, (3015 - 2650) / 2650 = +14 %
        "ingest: unified best on read p99 (2,650 µs, slowdown 2.22×); partitioned +9.1% to flashblox +14%",
    ),
    "issue: a slowdown under 1x within the noise is 1.00x": (
        summary(
            unified={"web": tenant(read_p99=2298.0, slowdown=sd(4.28))},
            partitioned={"web": tenant(read_p99=686.0, slowdown=sd(0.97))},
            flashblox={"web": tenant(read_p99=682.0, slowdown=sd(1.01))},
        ),
        # (686 - 2298) / 2298 = -70 %, (682 - 2298) / 2298 = -70 %; 0.97x is within the noise
        "web: partitioned (686 µs, slowdown 1.00×) and flashblox (682 µs, slowdown 1.01×) best on "
        "read p99; against unified: partitioned -70% read p99; flashblox -70% read p99",
    ),
    "issue: --solo, no scheme differs, next to an unstable one far off": (
        summary(
            unified={"oltp": tenant(read_p99=242.0, slowdown=sd(1.00))},
            partitioned={"oltp": tenant(read_p99=245.0, slowdown=sd(1.02))},
            flashblox={"oltp": tenant(read_p99=217842.0, slowdown=sd(1.01), unstable=True)},
            upi={"oltp": tenant(read_p99=250.0, slowdown=sd(1.03))},
        ),
        "oltp: no scheme differs by more than the noise (5%) on read p99 (242–250 µs, slowdown "
        "1.00–1.03×); excluded: flashblox (unstable, 217,842 µs)",
    ),
    "issue: logs, a tie within the noise, each one's own cost": (
        summary(
            unified={"logs": tenant(read_p99=1000.0, write_p99=2000.0, waf=1.5)},
            partitioned={"logs": tenant(read_p99=1020.0, write_p99=3860.0, waf=2.295)},
            flashblox={"logs": tenant(read_p99=990.0, write_p99=2000.0, waf=34.89)},
            upi={"logs": tenant(read_p99=1500.0, write_p99=1000.0, waf=1.5)},
        ),
        # partitioned: write p99 (3860 - 2000) / 2000 = +93 %, WAF (2.295 - 1.5) / 1.5 = +53 %;
        # flashblox: WAF (34.89 - 1.5) / 1.5 = +2,226 %; upi +50 % read p99, out of the noise
        "logs: unified (1,000 µs), partitioned (1,020 µs) and flashblox (990 µs) best on read p99; "
        "against unified: partitioned +2.0% read p99, +93% write p99, +53% WAF; "
        "flashblox -1.0% read p99, +2,226% WAF",
    ),
    "issue: the default scenario, upi unstable for two of three tenants": (
        summary(
            unified={"web": tenant(read_p99=2298.0), "ingest": tenant(read_p99=2650.0)},
            partitioned={"web": tenant(read_p99=686.0), "ingest": tenant(read_p99=2892.0)},
            upi={
                "web": tenant(read_p99=67011.0, unstable=True, outstanding_at_end=200),
                "ingest": tenant(read_p99=2000.0, unstable=True, outstanding_at_end=80),
            },
        ),
        [
            "web: partitioned best on read p99 (686 µs), -70% read p99 against unified; "
            "excluded: upi (unstable, 67,011 µs)",
            # upi's 2,000 µs would win; unstable, it does not
            "ingest: unified best on read p99 (2,650 µs); partitioned +9.1%; "
            "excluded: upi (unstable, 2,000 µs)",
        ],
    ),
}


VERDICTS["every scheme unstable"] = (
    summary(a={"t": tenant(unstable=True)}, b={"t": tenant(read_p99=450.0, starved=True)}),
    "t: no scheme comparable on read p99; excluded: a (unstable, 900 µs), b (starved, 450 µs)",
)


@pytest.mark.parametrize("name", VERDICTS)
def test_verdict(name: str) -> None:
    s, want = VERDICTS[name]
    assert hl.verdicts(hl.build(s)) == (want if isinstance(want, list) else [want])


@pytest.mark.parametrize("name", VERDICTS)
def test_the_verdict_names_the_starred_schemes(name: str) -> None:
    """The words and the ★ cannot disagree: the schemes a verdict names best are those marked
    ★ on its metric in the table, and no scheme excluded (unstable, starved) has a ★ at all."""
    h = hl.build(VERDICTS[name][0])
    for row, line in zip(h.rows, hl.verdicts(h), strict=True):
        if " best on " not in line:
            assert not any(c.best for c in row.cells["read_p99"].values()), line
            continue
        head, rest = line.split(" best on ", 1)
        key = next(m.key for m in h.metrics if re.match(re.escape(m.label) + r"\b", rest))
        named = {s for s in row.schemes if re.search(rf"\b{s}\b", head.split(": ", 1)[1])}
        assert named == {s for s, c in row.cells[key].items() if c.best}, line
        for s in set(row.unstable) | set(row.starved):
            assert not any(by[s].best for by in row.cells.values()), (line, s)


def test_a_slowdown_under_1x_within_the_noise_shows_as_100() -> None:
    s = summary(a={"t": tenant(slowdown=sd(0.96))}, b={"t": tenant(slowdown=sd(0.94))})
    h = hl.build(s)
    m = next(m for m in h.metrics if m.key == "slowdown_read_p99")
    cells = h.rows[0].cells[m.key]
    assert [hl.format_value(m, c.value) for c in cells.values()] == ["1.00×", "0.94×"]


# --------------------------------------------------------------------------------------
# Notes


def test_notes_records_not_replayed_health_and_lifetime() -> None:
    s = summary(
        a={
            "msr": tenant(records_not_replayed=20567, max_wait_s=0.25, stall_s_max=0.5, backlog_max=40),
            "t": tenant(),
        },
        b={
            "msr": tenant(
                records_not_replayed=20567, max_wait_s=2.0, stall_s_max=0.5, backlog_max=64, starved=True
            ),
            "t": tenant(records_not_replayed=0),
        },
    )
    h = hl.build(s)
    notes = hl.notes(s, h)
    assert any(
        n.startswith("msr: 20,567 trace records not replayed: the run (measure.duration_s)") for n in notes
    ), notes
    assert not any(n.startswith("t: ") for n in notes), "0 records not replayed is no note"
    health = next(n for n in notes if n.startswith("health, msr"))
    assert (
        "longest wait 0.25-2 s" in health
        and "longest stall 0.5 s" in health
        and "largest backlog 40-64" in health
    )
    assert "⚠ starved under b" in health and h.starved == [("msr", "b")]
    life = next(n for n in notes if n.startswith("lifetime:"))
    # 2,000,000 bytes written over a measured 2 s: 1 MB/s; erase rate 4 /s; 3,000 P/E cycles.
    assert "3,000 P/E cycles" in life and "msr 4 erases/s at 1 MB/s written" in life


def test_notes_a_warm_up_that_did_not_converge() -> None:
    s = summary(a={"t": tenant()}, b={"t": tenant()}, c={"t": tenant()})
    # Partial precondition objects (the keys the note reads), set through a plain-dict view.
    schemes = cast(dict[str, dict[str, object]], s["schemes"])
    schemes["a"]["precondition"] = {"mode": "workload", "warm_converged": True, "warm_cap_hit": False}
    schemes["b"]["precondition"] = {
        "mode": "workload",
        "warm_converged": False,
        "warm_cap_hit": True,
        "warm_waf_windows": [2.5, 2.0, 3.0],
    }
    schemes["c"]["precondition"] = {
        "mode": "workload",
        "warm_converged": False,
        "warm_cap_hit": False,
        "warm_writes_ended": True,
        "warm_waf_windows": [],
    }
    notes = hl.notes(s, hl.build(s))
    warm = [n for n in notes if n.startswith("warm-up")]
    assert warm == [
        "warm-up did not converge, the run starts before steady state: b hit its cap "
        "(precondition.warm.max_capacity_multiple) (last windows' WAF 2.000, 3.000); c ran out of writes."
    ], notes


def test_notes_are_absent_without_their_keys() -> None:
    s = summary(a={"t": tenant()}, b={"t": tenant()})
    notes = hl.notes(s, hl.build(s))
    assert [n.split(":")[0] for n in notes] == ["lifetime"]


@pytest.mark.parametrize(
    ("days", "text"), [(1.239851, "1.24 d"), (364.0, "364 d"), (365.25, "1.00 y"), (3652.5, "10.0 y")]
)
def test_lifetime_in_days_or_years(days: float, text: str) -> None:
    assert hl.format_days(days) == text


# --------------------------------------------------------------------------------------
# The printed text at 80, 100 and 140 columns

SCHEMES = ("unified", "partitioned", "flashblox", "upi")
NAMES = ("latency-critical-oltp-tenant", "read-only-web", "bulk-ingest")


def wide_summary() -> Summary:
    """Three tenants under four schemes with solo runs, a read-only tenant (two writes), a
    tenant with records not replayed, health fields, one unstable and one starved."""
    out: dict[str, dict[str, dict[str, object]]] = {}
    for i, scheme in enumerate(SCHEMES):
        sd = {"read_mean": 1.0 + i, "read_p99": 1.0 + i, "write_mean": 1.0 + i / 2, "write_p99": 1.0 + i / 2}
        out[scheme] = {
            NAMES[0]: tenant(
                read_p99=1681.0 + 200 * i,
                write_p99=2660.0 - 50 * i,
                lifetime=1.24 + i,
                slowdown=sd,
                max_wait_s=0.01 * (i + 1),
                stall_s_max=0.002,
                backlog_max=32 + i,
                starved=i == 3,
            ),
            NAMES[1]: tenant(writes=2, waf=240.0 - i, read_p99=2296.0 - 400 * i, lifetime=900.0, slowdown=sd),
            NAMES[2]: tenant(
                reads=0,
                iops=147.0 + i / 3,
                lifetime=1.04,
                records_not_replayed=20567,
                unstable=i == 2,
                slowdown={**sd, "read_p99": None, "read_mean": None},
            ),
        }
    return summary(**out)


def render(s: Summary, width: int) -> str:
    console = Console(width=width, no_color=True, force_terminal=False, record=True, legacy_windows=False)
    with console.capture() as capture:
        print_headline(console, s)
    return capture.get()


@pytest.mark.parametrize("width", [80, 100, 140])
def test_the_headline_fits_the_width(width: int) -> None:
    s = wide_summary()
    text = render(s, width)
    lines = text.splitlines()
    too_long = [line for line in lines if len(line) > width]
    assert not too_long, too_long
    assert "…" not in text, "nothing is cut"
    for name in NAMES:
        assert any(name in line for line in lines), f"{name} not shown whole at {width} columns"
        # The verdict line of every tenant, above the table.
        assert any(line.startswith(f"• {name}: ") for line in lines), name
    first_table = min(
        i for i, line in enumerate(lines) if line.startswith(("┏", "┃")) or line.strip() in NAMES
    )
    assert max(i for i, line in enumerate(lines) if line.startswith("• ")) < first_table
    # Every scheme, each number of the read p99 row, the marks' legend and the notes show.
    for scheme in SCHEMES:
        assert scheme in text
    assert "1,681" in text and "240†" in text
    words = " ".join(text.split())  # the legend and notes wrap at the width
    assert "under 1× it ran faster shared than alone" in words
    assert "20,567 trace records not replayed" in words
    assert "3,000 P/E cycles" in words
    assert "⚠ starved" in text and "⚠ unstable" in text


def test_the_wide_table_is_kept_where_it_fits() -> None:
    s = summary(a={"t": tenant()}, b={"t": tenant(read_p99=450.0)})
    text = render(s, 200)
    assert any(line.startswith("┃ tenant") for line in text.splitlines()), "one wide table at 200 columns"
    assert max(len(line) for line in text.splitlines()) <= 200
