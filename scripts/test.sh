#!/usr/bin/env bash
# scripts/test.sh: the project's test command. Brings the build up to date (scripts/setup.sh,
# incremental) and installs the Debian packages only the tests need (`scripts/setup-system.sh
# test`: chromium for the report's browser test, rocksdb-tools and strace for the live
# capture test), then runs the Rust tests of the whole workspace, the Python tests
# (tests/python, on every core with pytest-xdist) and beside them the installed-wheel test
# (scripts/test-wheel.sh: a clean venv, then a quick reproduction), after the lint gates
# (rustfmt, clippy, ruff, mypy). All always run; the exit status is non-zero if any failed.
# Extra arguments go to pytest (e.g. scripts/test.sh -k trace). It does no benchmarks.
# `scripts/test.sh --pgo` (first argument) also runs scripts/test-pgo.sh at the end: the
# profile-guided build path end to end (about 6 minutes more); without it the suite checks that
# path's cheap form only (tests/python/test_pgo.py).
set -euo pipefail
cd "$(dirname "$0")/.."

with_pgo=0
if [ "${1:-}" = --pgo ]; then
    with_pgo=1
    shift
fi

scripts/setup.sh
scripts/setup-system.sh test

# rustfmt and clippy are rustup components, not part of every Rust install: add the missing
# one where rustup manages the toolchain, else stop with what to install.
for pair in fmt:rustfmt clippy:clippy; do
    subcommand="${pair%%:*}" component="${pair#*:}"
    if ! cargo "$subcommand" --version >/dev/null 2>&1; then
        if command -v rustup >/dev/null 2>&1; then
            echo "test: adding the Rust component $component (rustup component add $component)"
            rustup component add "$component"
        else
            echo "test: cargo $subcommand is missing and there is no rustup to add it;" \
                "install the Rust component $component with the toolchain" >&2
            exit 1
        fi
    fi
done

status=0
# Each phase's wall time goes into the log ("== ... took N s"): where CI time goes.
phase_start=$SECONDS
phase_done() { echo "== $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }
# Lint gates (settings in pyproject.toml and rustfmt.toml; docs/ARCHITECTURE.md "Lint gates"):
# rustfmt, clippy (default lints, every target, warnings are errors; the test-release profile
# reuses the build's dependencies), ruff (lint and format) and mypy, strict on python/ftlab and
# tests/python.
echo "== lint: cargo fmt --check, Rust line width, cargo clippy, ruff check, ruff format --check, mypy"
cargo fmt --check || status=$?
# rustfmt wraps code at 110 columns but leaves long strings, comments and macro bodies alone:
# every Rust line must fit 110 columns all the same (ruff's E501 does this for Python).
git ls-files '*.rs' | .venv/bin/python -c '
import sys
long = [f"{f}:{i}: {len(l)} columns" for f in sys.stdin.read().split()
        for i, l in enumerate(open(f, encoding="utf-8").read().split("\n"), 1) if len(l) > 110]
if long:
    sys.exit("\n".join(long + [f"{len(long)} Rust lines over 110 columns"]))' || status=$?
cargo clippy --workspace --all-targets --profile test-release -- -D warnings || status=$?
.venv/bin/ruff check python tests/python || status=$?
.venv/bin/ruff format --check python tests/python || status=$?
.venv/bin/python -m mypy || status=$?
phase_done lint

# The test-release profile (Cargo.toml): release optimisation without LTO, so the test binaries
# build in about a quarter of the release profile's time; results are the same.
echo "== cargo test --workspace --profile test-release"
cargo test --workspace --profile test-release || status=$?
phase_done "cargo test"

# The installed-wheel test runs beside pytest (mostly pip unpacking into a clean venv, which
# overlaps pytest's simulations); its output is printed after pytest's, and its status counts.
wheel_log="$(mktemp)"
scripts/test-wheel.sh >"$wheel_log" 2>&1 &
wheel_pid=$!

echo "== pytest tests/python (pytest-xdist, one worker per core, each test file on one worker)"
# -n auto --dist loadfile: a file's tests share one worker, so a module-scoped fixture (each
# quick reproduction) still runs once. --durations: the slowest tests, where CI time goes.
.venv/bin/python -m pytest tests/python -n auto --dist loadfile --durations=15 "$@" || status=$?
phase_done pytest

echo "== the installed wheel (scripts/test-wheel.sh, run beside pytest)"
wheel_status=0
wait "$wheel_pid" || wheel_status=$?
cat "$wheel_log"
rm -f "$wheel_log"
if [ "$wheel_status" -ne 0 ]; then
    echo "test: scripts/test-wheel.sh failed (exit $wheel_status)" >&2
    status=$wheel_status
fi
phase_done "the wheel test (after pytest)"

if [ "$with_pgo" = 1 ]; then
    echo "== the profile-guided build (scripts/test-pgo.sh)"
    scripts/test-pgo.sh || status=$?
    phase_done "the profile-guided build"
fi

exit "$status"
