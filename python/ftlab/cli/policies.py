"""ftlab.cli.policies: `ftlab schemes` and `ftlab mappers`, the registered isolation schemes and
stream mappers with every knob's unit, default, range and meaning: one rich table per policy,
or `--json`. Everything printed comes from `_core.policies()`, i.e. from the Rust registries'
knob tables (the ones the validation checks) and the config structs' serde defaults, so the
listing cannot drift from what a scenario is held to. This module formats; it knows no knob.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ftlab import _core
from ftlab.cli._console import stdout_console
from ftlab.results import Knob, Policies, Policy, policies_from_json

JsonOption = Annotated[bool, typer.Option("--json", help="Print the policies and their knobs as JSON.")]


def policies() -> Policies:
    """`{"schemes": [...], "mappers": [...]}` as `_core.policies()` describes them."""
    return policies_from_json(_core.policies())


def _default_text(knob: Knob) -> str:
    """A knob's default as TOML would write it; an optional knob left out shows what that means."""
    value = knob["default"]
    if value is None:
        return f"none ({knob['absent']})" if knob["absent"] else "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list) and not value:
        return "[]"
    return json.dumps(value)


def _print(kind: str, entries: list[Policy], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(entries, indent=2))
        return
    console = stdout_console()
    for p in entries:
        section = escape(f"[{kind}.{p['name']}]")
        console.print(f"[bold]{escape(p['name'])}[/bold]  {escape(p['summary'])}")
        if not p["knobs"]:
            console.print(f"  no knobs ({section} must be empty)\n")
            continue
        table = Table(title=section, title_justify="left")
        # Keys and units are never wrapped (a reader copies them); the text columns keep room.
        table.add_column("knob", no_wrap=True)
        table.add_column("unit", no_wrap=True)
        for column, ratio in (("default", 1), ("range", 1), ("meaning", 2)):
            table.add_column(column, ratio=ratio, overflow="fold")
        for k in p["knobs"]:
            table.add_row(
                escape(k["key"]),
                escape(k["unit"]),
                escape(_default_text(k)),
                escape(k["range"]),
                escape(k["doc"]),
            )
            for f in k["fields"]:
                table.add_row(
                    escape(f"  {k['key']}[].{f['key']}"),
                    escape(f["unit"]),
                    "",
                    escape(f["range"]),
                    escape(f["doc"]),
                )
        console.print(table)
        console.print()


def schemes_command(as_json: JsonOption = False) -> None:
    """List the isolation schemes and their knobs (the keys of a scenario's scheme.NAME table):
    unit, default, range, meaning."""
    _print("scheme", policies()["schemes"], as_json)


def mappers_command(as_json: JsonOption = False) -> None:
    """List the stream mappers and their knobs (the keys of a scenario's stream.NAME table):
    unit, default, range, meaning."""
    _print("stream", policies()["mappers"], as_json)


def register(app: typer.Typer) -> None:
    """Add `ftlab schemes` and `ftlab mappers` to `app` (one line in ftlab.cli)."""
    app.command("schemes")(schemes_command)
    app.command("mappers")(mappers_command)
