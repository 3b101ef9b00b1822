"""ftlab._errors: the ftlab error classes for errors that Python code finds (a results
directory, an output path, an argument).

It builds instances of the Rust core's exception classes (`ftlab.InputError`,
`ftlab.UsageError`) with the same message layout and attributes as the core's own, so the
CLI prints them the same way (one red line, exit status 2). It is not where errors are
caught or printed (that is `ftlab.cli`).
"""

from __future__ import annotations

import os
from typing import TypeVar, Union, overload

from ftlab import _core

StrPath = Union[str, "os.PathLike[str]"]
_E = TypeVar("_E", bound=_core.InputError)


class MissingResultError(_core.InputError, FileNotFoundError):
    """A results directory, or a file it must hold, does not exist.

    It is an `ftlab.InputError` (so the CLI reports it as bad input) and a
    `FileNotFoundError` (so `except FileNotFoundError` keeps working).

    >>> import ftlab
    >>> try:
    ...     ftlab.load("no/such/dir")
    ... except FileNotFoundError as e:
    ...     print(e.path)
    no/such/dir
    """

    def __str__(self) -> str:
        # OSError.__str__ would print "[Errno None] ..."; keep the core's "PATH: REASON".
        return BaseException.__str__(self)


@overload
def input_error(path: StrPath, reason: str) -> _core.InputError: ...
@overload
def input_error(path: StrPath, reason: str, cls: type[_E]) -> _E: ...
def input_error(
    path: StrPath, reason: str, cls: type[_core.InputError] = _core.InputError
) -> _core.InputError:
    """An `ftlab.InputError` (or `cls`) "PATH: REASON" with `path` and `reason` set.

    >>> str(input_error("out/summary.json", "not valid JSON"))
    'out/summary.json: not valid JSON'
    """
    err = cls(f"{os.fspath(path)}: {reason}")
    _set(err, reason=reason, path=os.fspath(path))
    if isinstance(err, OSError):
        err.filename = os.fspath(path)
    return err


def usage_error(arg: str, reason: str) -> _core.UsageError:
    """An `ftlab.UsageError` "ARG: REASON" with `arg` and `reason` set.

    >>> str(usage_error("--out", "unsupported suffix '.jpg'"))
    "--out: unsupported suffix '.jpg'"
    """
    err = _core.UsageError(f"{arg}: {reason}")
    _set(err, reason=reason, arg=arg)
    return err


def _set(err: _core.FtlabError, **attrs: str) -> None:
    for name in ("reason", "file", "line", "key", "path", "arg"):
        setattr(err, name, attrs.get(name))
