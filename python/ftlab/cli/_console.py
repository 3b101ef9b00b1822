"""ftlab.cli._console: the consoles the commands print to and how their output is kept within
the width: the terminal's, or, piped or captured, `COLUMNS` if set, else `PIPED_WIDTH` (100).

`fits` says whether a rich table fits at its natural width (so a caller can print it, or fall
back to narrower tables: one per group, or a long format, never cut cells); `error_lines`
lays out an error message for the terminal (a list of known names on its own wrapped lines,
Rust's integer type names said as ranges). Printing helpers only: it knows no command, no
metric and no simulation.
"""

from __future__ import annotations

import os
import re
import textwrap

from rich.console import Console, RenderableType
from rich.measure import Measurement

#: The width of the commands' output when it is piped or captured and `COLUMNS` is not set:
#: the project's terminal width (README), wider than rich's default of 80 for files.
PIPED_WIDTH = 100


def stdout_console(stderr: bool = False) -> Console:
    """The console of the commands' output (stdout, or stderr): the terminal's width; when
    piped or captured, `COLUMNS` if set, else `PIPED_WIDTH`."""
    console = Console(stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = PIPED_WIDTH
    return console


def fits(console: Console, renderable: RenderableType) -> bool:
    """Whether `renderable` (a table) fits the console's width without shrinking a column:
    its natural width (measured as if the console were unbounded) is at most the console's."""
    unbounded = console.options.update(width=1_000_000, max_width=1_000_000)
    return Measurement.get(console, unbounded, renderable).maximum <= console.width


#: Rust's (serde's) integer and float type names in a config error, and how the docs say them.
RUST_TYPES = {
    "u8": "an integer in [0, 255]",
    "u16": "an integer in [0, 65535]",
    "u32": "an integer in [0, 4294967295]",
    "u64": "an integer in [0, 18446744073709551615]",
    "usize": "an integer in [0, 18446744073709551615]",
    "i8": "an integer in [-128, 127]",
    "i16": "an integer in [-32768, 32767]",
    "i32": "an integer in [-2147483648, 2147483647]",
    "i64": "an integer in [-9223372036854775808, 9223372036854775807]",
    "isize": "an integer in [-9223372036854775808, 9223372036854775807]",
    "f32": "a number",
    "f64": "a number",
}
_RUST_TYPE = re.compile(r"\bexpected (" + "|".join(RUST_TYPES) + r")\b")
#: A list of names closing a message: "...; valid formats: a, b, c" or serde's "..., expected
#: one of `a`, `b`, `c`" (at least three items).
_LIST = re.compile(
    r"^(?P<head>.*?)(?:; (?P<label>[^;:`]{1,40}): |, (?P<serde>expected one of) )"
    r"(?P<items>[^;]*,[^;]*,[^;]*)$"
)


def humane(message: str) -> str:
    """`message` with Rust's type names said as the docs say ranges.

    >>> humane("device.pe_cycles: invalid type: floating point `1.5`, expected u32")
    'device.pe_cycles: invalid type: floating point `1.5`, expected an integer in [0, 4294967295]'
    """
    return _RUST_TYPE.sub(lambda m: "expected " + RUST_TYPES[m.group(1)], message)


def error_lines(message: str, width: int, prefix: str = "error: ") -> list[str]:
    """The lines an error is printed as, none wider than `width`: one line when it fits; else
    the message (wrapped, with an indent of two, only when it is itself wider), then any list
    of names it ends with on following lines, indented and wrapped between the names.

    >>> error_lines('--format: unknown "x"; valid formats: msr, spc, fio, fiu', 40)
    ['error: --format: unknown "x"', '  valid formats: msr, spc, fio, fiu']
    """
    text = humane(message)
    match = _LIST.match(text) if len(prefix + text) > width else None
    items = ""
    if match:
        text = match.group("head")
        label = match.group("label") or match.group("serde")
        items = f"{label}: {match.group('items')}"
    wrap = textwrap.TextWrapper(
        width=max(width, 20), subsequent_indent="  ", break_long_words=True, break_on_hyphens=False
    )
    lines = wrap.wrap(_keep(prefix + text)) or [prefix.rstrip()]
    if items:
        wrap.initial_indent = "  "
        wrap.subsequent_indent = "    "
        lines += wrap.wrap(_keep(items))
    return [line.replace(_NBSP, " ") for line in lines]


#: Stands for a space that must not break a line (inside a range "[0, 255]").
_NBSP = "\x00"


def _keep(text: str) -> str:
    """`text` with the spaces inside [...] and (...] ranges made unbreakable."""
    return re.sub(r"[\[(][^\[\]()]{0,60}[\])]", lambda m: m.group(0).replace(" ", _NBSP), text)
