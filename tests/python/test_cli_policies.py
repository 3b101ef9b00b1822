"""Tests of `ftlab schemes` and `ftlab mappers` (ftlab.cli.policies): every registered policy is
listed, and what the listing says of a knob (unit, default, range) is what the validation
enforces: a scenario one step outside the listed range fails naming that key, the listed
default resolves into scenario.resolved.toml. Not a test of the policies themselves."""

from __future__ import annotations

import json
import re
from typing import Literal

import pytest
import tomllib

from conftest import run_cli
from ftlab import _core
from ftlab.results import Knob, Policies, Policy, policies_from_json

SCENARIO = """seed = 1
schemes = ["{scheme}"]
{top}
[device]
preset = "tiny"
[[tenants]]
name = "a"
namespace_fraction = 0.4
[tenants.synthetic]
requests = 10
[[tenants]]
name = "b"
namespace_fraction = 0.4
[tenants.synthetic]
requests = 10
{extra}
"""


def scenario(scheme: str, extra: str = "", top: str = "") -> str:
    return SCENARIO.format(scheme=scheme, extra=extra, top=top)


def policies() -> Policies:
    return policies_from_json(_core.policies())


def knob(kind: Literal["schemes", "mappers"], name: str, key: str) -> Knob:
    (policy,) = [p for p in policies()[kind] if p["name"] == name]
    (k,) = [k for k in policy["knobs"] if k["key"] == key]
    return k


def closed_range(text: str) -> tuple[float, float]:
    m = re.fullmatch(r"\[([-0-9.e]+), ([-0-9.e]+)\]", text)
    assert m, text
    return float(m.group(1)), float(m.group(2))


def test_core_lists_every_registered_policy() -> None:
    # Every kind the core lists, not only the two the TypedDict names.
    p: dict[str, list[Policy]] = json.loads(_core.policies())
    names = {kind: [e["name"] for e in entries] for kind, entries in p.items()}
    assert {"unified", "partitioned", "upi", "upi-guarded", "wao-gc", "flashblox", "part-ftl", "rtgc"} <= set(
        names["schemes"]
    )
    assert {"legacy", "direct", "manual", "dac", "autostream", "vstream"} <= set(names["mappers"])
    for entries in p.values():
        for e in entries:
            assert e["summary"] and "\n" not in e["summary"]
            for k in e["knobs"]:
                assert k["range"] and k["doc"], (e["name"], k["key"])


@pytest.mark.parametrize(("command", "kind"), [("schemes", "schemes"), ("mappers", "mappers")])
def test_cli_lists_every_policy_and_knob(command: str, kind: Literal["schemes", "mappers"]) -> None:
    proc = run_cli([command])
    assert proc.returncode == 0, proc.stderr
    for p in policies()[kind]:
        assert p["name"] in proc.stdout
        for k in p["knobs"]:
            assert k["key"] in proc.stdout, (p["name"], k["key"])
    as_json = run_cli([command, "--json"])
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == policies()[kind]


def test_upi_epoch_listing_is_what_the_validation_enforces() -> None:
    k = knob("schemes", "upi", "epoch_s")
    assert k["unit"] == "s"
    lo, hi = closed_range(k["range"])
    # The listed default is the one a scenario resolves to.
    resolved = tomllib.loads(_core.resolve(text=scenario("upi"), name="t.toml"))
    assert resolved["scheme"]["upi"]["epoch_s"] == k["default"]
    # Both listed bounds are accepted; just outside either is refused naming the key.
    for v in (lo, hi):
        _core.resolve(text=scenario("upi", f"[scheme.upi]\nepoch_s = {v!r}"), name="t.toml")
    for v in (lo * 0.999, hi * 1.001):
        with pytest.raises(_core.ConfigError) as e:
            _core.resolve(text=scenario("upi", f"[scheme.upi]\nepoch_s = {v!r}"), name="t.toml")
        assert e.value.key == "scheme.upi.epoch_s"
        assert f"must be in {k['range']}" in str(e.value)


def test_cli_shows_upi_epoch_unit_default_and_range() -> None:
    k = knob("schemes", "upi", "epoch_s")
    proc = run_cli(["schemes"])
    section = proc.stdout.split("\nupi ", 1)[1].split("\nupi-guarded ", 1)[0]
    (row,) = [line for line in section.splitlines() if re.search(r"\bepoch_s\b", line)]
    cells = [c.strip() for c in re.split(r"[│|]", row) if c.strip()]
    assert cells[:4] == ["epoch_s", "s", json.dumps(k["default"]), k["range"]]


def test_a_mapper_bound_is_enforced_under_its_key() -> None:
    k = knob("mappers", "vstream", "kmeans_iterations_max")
    _, hi = closed_range(k["range"])
    top = 'stream_mapper = "vstream"'
    _core.resolve(
        text=scenario("unified", f"[stream.vstream]\nkmeans_iterations_max = {int(hi)}", top), name="t.toml"
    )
    text = scenario("unified", f"[stream.vstream]\nkmeans_iterations_max = {int(hi) + 1}", top)
    with pytest.raises(_core.ConfigError) as e:
        _core.resolve(text=text, name="t.toml")
    assert e.value.key == "stream.vstream.kmeans_iterations_max"
