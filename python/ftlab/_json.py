"""ftlab._json: the one place where a value of a parsed JSON document (`json.loads` of a
summary.json or a claims.json, or a hand-made table of the same shape) is narrowed from
`object` to what its reader expects: a table, a number, an integer, a flag.

Each reader hands back the value itself when it has the type (a number keeps its int or
float), and None (for a table: an empty one) when the value is missing. A table that is
something else is a `TypeError` naming what it is; a scalar of another type reads as missing,
which the health checks report as "not reported". This module checks no schema (the core's
output is checked against schema/results.schema.json by tests/python/test_results_schema.py)
and reads no declared table (`reproduce/decl.py` does, with errors naming file and key).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeGuard

#: A parsed JSON object as its readers take it: keys are strings, values still unread.
JsonObject = Mapping[str, object]


def table(value: object) -> JsonObject:
    """`value` if it is a JSON object; an empty one when it is missing (None); a `TypeError`
    for any other value.

    >>> table({"a": 1}), table(None)
    ({'a': 1}, {})
    >>> table([1])
    Traceback (most recent call last):
    TypeError: a JSON object was expected, not list
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"a JSON object was expected, not {type(value).__name__}")
    return value


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether `value` is a number of a parsed JSON or TOML document (a boolean is not).

    >>> is_number(3), is_number(2.5), is_number(True), is_number("3")
    (True, True, False, False)
    """
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number(value: object) -> float | None:
    """`value` if it is a number (an int stays an int; a boolean is not a number), else None.

    >>> number(3), number(2.5), number(True), number("3")
    (3, 2.5, None, None)
    """
    return value if is_number(value) else None


def integer(value: object) -> int | None:
    """`value` if it is an integer (a boolean is not), else None.

    >>> integer(3), integer(3.0), integer(False)
    (3, None, None)
    """
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def flag(value: object) -> bool | None:
    """`value` if it is true or false, else None.

    >>> flag(True), flag(0), flag(None)
    (True, None, None)
    """
    return value if isinstance(value, bool) else None
