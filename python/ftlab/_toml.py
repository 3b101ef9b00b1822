"""TOML reading for the Python front: `tomllib` on Python >= 3.11, its backport `tomli` on 3.10
(the README's floor; pyproject.toml declares it there). The one place that picks between them;
it parses text only and knows nothing of scenarios (their checks are the core's)."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
