"""ftlab._bench: `python -m ftlab._bench CASE [REQUESTS]`, one `ftlab bench` case in a fresh
process.

It imports only `ftlab._core` (not polars, typer or rich), runs the case, and prints one
JSON object (the core's result plus `peak_rss_bytes`, this process's peak resident set
size) on stdout, so the peak RSS measured is that of the case alone. `ftlab bench` starts
one of these per case; this is not the user-facing command.
"""

from __future__ import annotations

import json
import resource
import sys


def peak_rss_bytes() -> int:
    """Peak RSS of this process in bytes (ru_maxrss is KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss) if sys.platform == "darwin" else int(rss) * 1024


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or (len(argv) == 2 and not argv[1].isdigit()):
        print("usage: python -m ftlab._bench CASE [REQUESTS]", file=sys.stderr)
        return 2
    from ftlab import _core

    try:
        result = dict(_core.bench_case(argv[0], int(argv[1]) if len(argv) == 2 else None))
    except _core.FtlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    result["peak_rss_bytes"] = peak_rss_bytes()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
