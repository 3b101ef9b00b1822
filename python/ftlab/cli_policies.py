"""ftlab.cli_policies: `ftlab schemes` and `ftlab mappers`, the registered isolation schemes and
stream mappers with every knob's unit, default, range and meaning: one rich table per policy,
or `--json`. Everything printed comes from `_core.policies()`, i.e. from the Rust registries'
knob tables (the ones the validation checks) and the config structs' serde defaults, so the
listing cannot drift from what a scenario is held to. This module formats; it knows no knob.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ftlab import _core

JsonOption = Annotated[bool, typer.Option("--json", help="Print the policies and their knobs as JSON.")]


def policies() -> dict[str, list[dict[str, Any]]]:
    """`{"schemes": [...], "mappers": [...]}` as `_core.policies()` describes them."""
    return json.loads(_core.policies())


def _default_text(knob: dict[str, Any]) -> str:
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


def _print(kind: str, entries: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(entries, indent=2))
        return
    console = Console()
    for p in entries:
        console.print(f"[bold]{p['name']}[/bold]  {p['summary']}")
        if not p["knobs"]:
            console.print(f"  no knobs ([{kind}.{p['name']}] must be empty)\n")
            continue
        table = Table(title=f"[{kind}.{p['name']}]", title_justify="left")
        for column in ("knob", "unit", "default", "range", "meaning"):
            table.add_column(column, overflow="fold")
        for k in p["knobs"]:
            table.add_row(k["key"], k["unit"], _default_text(k), k["range"], k["doc"])
            for f in k["fields"]:
                table.add_row(f"  {k['key']}[].{f['key']}", f["unit"], "", f["range"], f["doc"])
        console.print(table)
        console.print()


def schemes_command(as_json: JsonOption = False) -> None:
    """List the isolation schemes and their knobs ([scheme.<name>]): unit, default, range, meaning."""
    _print("scheme", policies()["schemes"], as_json)


def mappers_command(as_json: JsonOption = False) -> None:
    """List the stream mappers and their knobs ([stream.<name>]): unit, default, range, meaning."""
    _print("stream", policies()["mappers"], as_json)


def register(app: typer.Typer) -> None:
    """Add `ftlab schemes` and `ftlab mappers` to `app` (one line in ftlab.cli)."""
    app.command("schemes")(schemes_command)
    app.command("mappers")(mappers_command)
