#!/usr/bin/env bash
# scripts/test.sh: the project's test command. Brings the build up to date (scripts/setup.sh,
# incremental) and installs the Debian packages only the tests need (`scripts/setup-system.sh
# test`: chromium for the report's browser test, rocksdb-tools and strace for the live
# capture test), then runs the Rust tests of the whole workspace, the Python tests
# (tests/python) and the installed-wheel test (scripts/test-wheel.sh: a clean venv, then a
# quick reproduction), after the lint gates (rustfmt, ruff, mypy). All always run; the exit
# status is non-zero if any failed. Extra arguments go to pytest (e.g. scripts/test.sh -k
# trace). It does no benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/setup-system.sh test

status=0
# Lint gates (settings in pyproject.toml and rustfmt.toml): rustfmt, ruff (lint and format)
# and mypy, strict on python/ftlab.
echo "== lint: cargo fmt --check, ruff check, ruff format --check, mypy"
cargo fmt --check || status=$?
.venv/bin/ruff check python tests/python || status=$?
.venv/bin/ruff format --check python tests/python || status=$?
.venv/bin/python -m mypy || status=$?

# The test-release profile (Cargo.toml): release optimisation without LTO, so the test binaries
# build in about a quarter of the release profile's time; results are the same.
echo "== cargo test --workspace --profile test-release"
cargo test --workspace --profile test-release || status=$?

echo "== pytest tests/python"
# --durations: the slowest tests in the log, where CI time goes.
.venv/bin/python -m pytest tests/python --durations=15 "$@" || status=$?

echo "== the installed wheel (scripts/test-wheel.sh)"
scripts/test-wheel.sh || status=$?

exit "$status"
