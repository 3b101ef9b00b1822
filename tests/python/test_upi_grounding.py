"""tests/python/test_upi_grounding.py: every workload parameter of each UPI tenant in
scenarios/reproduce/upi.toml and upi-quick.toml is either cited or swept.

The convention (docs/upi-workload.md, "Convention"): each key of a `[[tenants]]` table and of
its `[[tenants.synthetic]]` parts carries, in the comment on its line or in the block of
comment lines directly above it, `[cite: SOURCE ...]` (SOURCE one of `UPI §...`, `UPI Fig...`,
`IISWC'08`: the UPI paper with its place, or the IISWC 2008 characterisation) or
`[swept: RANGE]`, and a `[swept]` key must really be varied by a case of
a knob of papers/upi.toml (`[[reproduce.knobs]]`: its `--set` path is among the cases' keys). The
tenant's `name` is its identifier, not a workload parameter. The checker is run on the two
scenarios (no problem allowed) and on altered copies (the problem must be found), so the test
fails if someone adds an uncited, unswept parameter. It is not a check of the values.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

import pytest

from ftlab import _core, _toml
from ftlab.reproduce import sweep_study, upi
from ftlab.reproduce.cases import study_cases
from ftlab.reproduce.driver import load_plan

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [
    ROOT / "scenarios" / "reproduce" / "upi.toml",
    ROOT / "scenarios" / "reproduce" / "upi-quick.toml",
]
CITE = re.compile(r"\[cite:\s*(?P<text>[^\]]+)\]")
SWEPT = re.compile(r"\[swept(?::[^\]]*)?\]")
#: A citation must name one of these sources (docs/upi-workload.md, "Sources").
SOURCES = ("UPI §", "UPI Fig", "IISWC'08")
#: Keys of a tenant that are not workload parameters.
EXEMPT = frozenset({"name"})
KEY = re.compile(r"^\s*(?P<key>[A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?P<value>.*)$")


def workload_keys(text: str) -> list[dict[str, object]]:
    """Every key line inside a tenant's tables: its line number, key, `--set` path (by tenant
    name) and the comment text that belongs to it (its own comment and the block of comment
    lines directly above, joined)."""
    tenants: list[dict[str, object]] = []
    keys: list[dict[str, object]] = []
    tenant: dict[str, object] | None = None
    part: str | None = None  # "" for the tenant's own table, ".synthetic[.I]" for a part
    block: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            block.append(stripped.lstrip("#").strip())
            continue
        above, block = " ".join(block), []
        if stripped.startswith("["):
            tenant, part = _table(stripped, tenant, tenants)
            continue
        m = KEY.match(line)
        if m is None or tenant is None or part is None:
            continue
        value, _, inline = m["value"].partition("#")
        if m["key"] == "name" and part == "":
            tenant["name"] = _toml.loads(f"v = {value}")["v"]
        keys.append(
            {"line": number, "key": m["key"], "tenant": tenant, "part": part, "comment": f"{inline} {above}"}
        )
    return [{**k, "path": f"tenants.{k['tenant']['name']}{k['part']}.{k['key']}"} for k in keys]  # type: ignore[index]


def _table(
    header: str, tenant: dict[str, object] | None, tenants: list[dict[str, object]]
) -> tuple[dict[str, object] | None, str | None]:
    """The tenant and part a table header opens: `[[tenants]]` a new tenant, `[[tenants.synthetic]]`
    its next part, `[tenants.synthetic]` its one part; any other table leaves the tenants."""
    if header == "[[tenants]]":
        tenants.append({"name": None, "parts": 0})
        return tenants[-1], ""
    if tenant is not None and header == "[[tenants.synthetic]]":
        index = int(tenant["parts"])  # type: ignore[call-overload]
        tenant["parts"] = index + 1
        return tenant, f".synthetic.{index}"
    if tenant is not None and header == "[tenants.synthetic]":
        return tenant, ".synthetic"
    return None, None


def problems(text: str, swept_paths: set[str]) -> list[str]:
    """What breaks the convention in a scenario's text, one line each (empty: nothing)."""
    out = []
    for k in workload_keys(text):
        if k["key"] in EXEMPT:
            continue
        comment, where = str(k["comment"]), f"line {k['line']}: {k['path']}"
        cites = [m["text"] for m in CITE.finditer(comment)]
        swept = SWEPT.search(comment) is not None
        if not cites and not swept:
            out.append(f"{where}: neither cited nor swept")
        for c in cites:
            if not any(s in c for s in SOURCES):
                out.append(f"{where}: the citation names no source of {SOURCES}: {c!r}")
        if swept and k["path"] not in swept_paths:
            out.append(f"{where}: marked swept, but no sensitivity case sets it")
    return out


def swept_paths_of(path: Path) -> set[str]:
    cases = study_cases(load_plan("upi").knobs, _core.resolve(source_path=path))
    return {key for case in cases for key in case["set"]}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_workload_parameter_is_cited_or_swept(path: Path) -> None:
    assert problems(path.read_text(encoding="utf-8"), swept_paths_of(path)) == []


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_the_line_reader_sees_every_tenant_key(path: Path) -> None:
    """The checker reads lines; the TOML parse of the file must find no tenant key that the
    line reader missed (a key the reader skipped would escape the check)."""
    text = path.read_text(encoding="utf-8")
    seen = {str(k["path"]) for k in workload_keys(text)}
    parsed = _toml.loads(text)["tenants"]
    expected = set()
    for t in parsed:
        expected |= {f"tenants.{t['name']}.{k}" for k in t if k != "synthetic"}
        parts = t.get("synthetic") or []
        for i, part in enumerate(parts if isinstance(parts, list) else [parts]):
            at = f"tenants.{t['name']}.synthetic" + (f".{i}" if isinstance(parts, list) else "")
            expected |= {f"{at}.{k}" for k in part}
    assert seen == expected
    assert {p.split(".")[1] for p in seen} == set(upi.TENANTS)


# Altered copies of the quick scenario: (what is changed, the line put after DAS-AS's
# `zipf_theta` line, what the checker must say). Worked by hand from the convention.
ALTERED = [
    (
        "an uncited, unswept key",
        "footprint_offset_fraction = 0.5",
        "synthetic.0.footprint_offset_fraction: neither cited nor swept",
    ),
    (
        "a swept mark on a key no case sets",
        "align_bytes = 4096   # [swept: 4-16 KiB]",
        "synthetic.0.align_bytes: marked swept, but no sensitivity case sets it",
    ),
    (
        "a citation without a source",
        "requests = 1000000   # [cite: a guess]",
        "synthetic.0.requests: the citation names no source",
    ),
    (
        "a comment without a tag",
        "read_sequential_fraction = 0.1   # small",
        "synthetic.0.read_sequential_fraction: neither cited nor swept",
    ),
]


@pytest.mark.parametrize(("what", "added", "message"), ALTERED, ids=[a[0] for a in ALTERED])
def test_the_check_finds_an_altered_scenario(what: str, added: str, message: str) -> None:
    path = SCENARIOS[1]
    text = path.read_text(encoding="utf-8")
    anchor = "zipf_theta = 0.8       # [swept: 0.6-0.99]\n"
    assert anchor in text
    found = problems(text.replace(anchor, anchor + added + "\n"), swept_paths_of(path))
    assert len(found) == 1 and message in found[0], found


def test_a_removed_tag_is_found() -> None:
    path = SCENARIOS[0]
    text = path.read_text(encoding="utf-8")
    line = "rate_iops = 150.0      # [swept: x0.5-x2] rates are not published\n"
    assert line in text
    found = problems(text.replace(line, "rate_iops = 150.0\n"), swept_paths_of(path))
    assert found == [
        f"line {text[: text.index(line)].count(chr(10)) + 1}: "
        "tenants.das-as.synthetic.0.rate_iops: neither cited nor swept"
    ]


def test_sensitivity_reaches_the_ranges_the_issue_asks_for() -> None:
    """Issue 22: DAS-AS's data set down to 0.05 of the device (and up to the scenario's 1/3,
    the base) on the base's partitions, and LM-TBE's rise at 0.5x, 1x (the base), 1.5x and 2x. In the quick
    form the
    rise part runs 25 writes/s, so the cases are 12.5, 37.5 and 50 (worked by hand)."""
    cases = {
        c["name"]: c["set"]
        for c in study_cases(load_plan("upi").knobs, _core.resolve(source_path=SCENARIOS[1]))
    }
    data_sets = sorted(
        cast(float, s["tenants.das-as.namespace_fraction"])
        for s in cases.values()
        if "tenants.das-as.namespace_fraction" in s
    )
    assert data_sets[0] == 0.05 and data_sets[-1] < 1 / 3
    # The data-set cases keep the base's partitions and first UPI sets: 12 dies over three
    # equal namespaces, 4 each (§5), not the 1/6/5 a 0.05 namespace would get by proportion.
    for n, s in cases.items():
        if "tenants.das-as.namespace_fraction" in s:
            assert (
                s["scheme.partitioned.shares"]
                == s["scheme.upi.initial_shares"]
                == s["scheme.upi-guarded.initial_shares"]
                == [4, 4, 4]
            ), n
    rises = sorted(
        cast(float, s["tenants.lm-tbe.synthetic.2.rate_iops"])
        for n, s in cases.items()
        if n.startswith("lm-tbe rise")
    )
    assert rises == [12.5, 37.5, 50.0]
    assert cases["base"] == {}


DOCS = ROOT / "docs" / "upi-workload.md"


def test_the_docs_report_every_swept_parameter_over_its_range() -> None:
    """Issue 22: each claim over the whole range of each swept parameter. docs/upi-workload.md
    carries sensitivity.md's tables (`sweep_study.sensitivity_markdown(doc, level=4)`): one per swept
    parameter of the quick study, with the base marked among its values, a row per measured
    claim, and a value or "not run" in every cell, so no parameter's range goes unreported."""
    from ftlab.reproduce import claimfile

    docs = DOCS.read_text(encoding="utf-8")
    cases = study_cases(load_plan("upi").knobs, _core.resolve(source_path=SCENARIOS[1]))
    claims = [s.id for s in claimfile.load("upi").claims if not s.not_measured]
    for parameter in dict.fromkeys(c["parameter"] for c in cases if c["parameter"] != sweep_study.BASE):
        values = [c for c in cases if c["parameter"] == parameter]
        heading = f"#### {parameter}\n\n"
        assert heading in docs, f"no table for {parameter!r}"
        table = docs[docs.index(heading) + len(heading) :].split("\n\n")[0].splitlines()
        columns = [cell.strip() for cell in table[0].strip("|").split("|")]
        assert columns[:2] == ["claim", "paper"], table[0]
        assert sorted(columns[2:]) == sorted(
            [f"**{values[0]['base']} (base)**", *(c["value"] for c in values)]
        ), table[0]
        rows = {line.strip("|").split("|")[0].strip(" `"): line for line in table[2:]}
        assert set(rows) == {*claims, "health"}, parameter
        for claim in claims:
            cells = [cell.strip() for cell in rows[claim].strip("|").split("|")[2:]]
            assert len(cells) == len(columns) - 2 and all(cells), rows[claim]
