"""ftlab._extras: the optional parts of ftlab and the packages they need (pyproject.toml's
`[project.optional-dependencies]`), and the one-line message naming the extra to install when
one is absent: `ftlab sweep` without Ray says "ftlab sweep needs Ray: pip install
'ftlab[sweep]'" (exit status 2), `ftlab.sweep(...)` raises `ModuleNotFoundError` with the
same words. It checks whether a package can be imported (without importing it); it installs
nothing and is not the list of pinned versions (requirements.lock).
"""

from __future__ import annotations

import importlib.util

#: extra -> (the module it provides, its name for a reader).
EXTRAS = {"sweep": ("ray", "Ray")}


def installed(module: str) -> bool:
    """Whether `module` can be imported here (found, not imported).

    >>> installed("json"), installed("no_such_module_ftlab")
    (True, False)
    """
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing(extra: str, who: str) -> str | None:
    """The message saying `who` needs `extra`'s package and how to install it, or None when it
    is installed.

    >>> missing("sweep", "ftlab sweep") if not installed("ray") else None  # doctest: +SKIP
    "ftlab sweep needs Ray: pip install 'ftlab[sweep]'"
    """
    module, name = EXTRAS[extra]
    return None if installed(module) else f"{who} needs {name}: pip install 'ftlab[{extra}]'"


def require(extra: str, who: str) -> None:
    """Raise `ModuleNotFoundError` with `missing`'s message when `extra`'s package is absent."""
    message = missing(extra, who)
    if message is not None:
        raise ModuleNotFoundError(message, name=EXTRAS[extra][0])
