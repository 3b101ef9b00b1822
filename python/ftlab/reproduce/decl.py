"""ftlab.reproduce.decl: the one reader of a claim file's declared tables (`[[claims]]`,
`[[reproduce.scenarios]]`, `runs`, `pairs`, `cases`, `figures`).

A declared table is a dataclass: its valid keys are the dataclass's fields (`keys_of`), so a
field is listed once. `tables` reads an array of such tables, `Fields` one table's values by
kind (a string, a list of strings, a table of strings, a flag, a number), each a precise
`ftlab.InputError` naming the file, the table and the key. What a value means, and the checks
between fields, stay with the declaration's module; this module knows no declaration.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn, TypeVar

from ftlab._errors import input_error
from ftlab._json import is_number as is_number  # the declared readers' number test, re-exported

T = TypeVar("T")


def keys_of(cls: type) -> set[str]:
    """The keys a table declaring `cls` may hold: its dataclass fields."""
    return {f.name for f in dataclasses.fields(cls)}


def table(where: str | Path, label: str, raw: object, keys: set[str]) -> Mapping[str, object]:
    """`raw` as a table of the claim file `where` names, whose keys are all in `keys`; else an
    `ftlab.InputError` naming `label` and the valid keys."""
    if not isinstance(raw, Mapping):
        raise input_error(where, f"{label} must be a table")
    unknown = sorted(set(raw) - keys)
    if unknown:
        valid = ", ".join(sorted(keys))
        raise input_error(where, f"{label}: unknown keys {', '.join(unknown)}; valid keys: {valid}")
    return raw


def tables(where: str, name: str, raw: object, one: Callable[[str, int, object], T]) -> tuple[T, ...]:
    """The array of tables `name` (`one` reads the i-th); none when absent."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise input_error(where, f"{name} must be an array of tables")
    return tuple(one(where, i, t) for i, t in enumerate(raw))


def distinct(where: str, label: str, names: Sequence[str]) -> None:
    """An `ftlab.InputError` "<label> <the names used twice>" when `names` repeat one."""
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise input_error(where, f"{label} {', '.join(dup)}")


@dataclasses.dataclass(frozen=True)
class Fields:
    """One declared table `raw` of the file `where`, called `label` in its errors."""

    where: str
    label: str
    raw: Mapping[str, object]

    @classmethod
    def of(cls, where: str, label: str, raw: object, decl: type) -> Fields:
        """The table `raw`, checked to hold only the fields of dataclass `decl`."""
        return cls(where, label, table(where, label, raw, keys_of(decl)))

    def bad(self, reason: str) -> NoReturn:
        raise input_error(self.where, f"{self.label}: {reason}")

    def text(self, key: str, default: str | None = None, nonempty: bool | None = None) -> str:
        """A string; required (and non-empty) without a `default`; `nonempty` forces that."""
        v = self.raw.get(key, default)
        full = default is None if nonempty is None else nonempty
        if not isinstance(v, str) or (full and not v):
            self.bad(f"`{key}` must be {'a non-empty string' if full else 'a string'}")
        return v

    def choice(self, key: str, choices: Sequence[str]) -> str:
        """One of `choices`, the first when absent."""
        v = self.text(key, choices[0], nonempty=True)
        if v not in choices:
            self.bad(f"{key} {v!r} is not one of {', '.join(choices)}")
        return v

    def texts(self, key: str) -> tuple[str, ...]:
        """A list of non-empty strings (empty when absent)."""
        v = self.raw.get(key, [])
        if not isinstance(v, list) or not all(isinstance(s, str) and s for s in v):
            self.bad(f"`{key}` must be a list of non-empty strings")
        return tuple(v)

    def strings(self, key: str) -> dict[str, str]:
        """A table of strings (empty when absent)."""
        v = self.raw.get(key, {})
        if not isinstance(v, Mapping) or not all(isinstance(s, str) for s in v.values()):
            self.bad(f"`{key}` must be a table of strings")
        return {str(k): str(s) for k, s in v.items()}

    def flag(self, key: str, default: bool = False) -> bool:
        """true or false."""
        v = self.raw.get(key, default)
        if not isinstance(v, bool):
            self.bad(f"`{key}` must be true or false")
        return v

    def number(self, key: str) -> float | None:
        """A number, or None when absent."""
        v = self.raw.get(key)
        if v is not None and not is_number(v):
            self.bad(f"`{key}` must be a number")
        return None if v is None else float(v)

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        """An integer in low..=high."""
        v = self.raw.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            self.bad(f"`{key}` must be an integer in {low}..={high}")
        return v
