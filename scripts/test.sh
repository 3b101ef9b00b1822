#!/usr/bin/env bash
# scripts/test.sh: the project's test command. Brings the build up to date (scripts/setup.sh,
# incremental), then runs the Rust tests of the whole workspace and the Python tests
# (tests/python). Both suites always run; the exit status is non-zero if either failed.
# Extra arguments go to pytest (e.g. scripts/test.sh -k trace). It does no benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

status=0
# The test-release profile (Cargo.toml): release optimisation without LTO, so the test binaries
# build in about a quarter of the release profile's time; results are the same.
echo "== cargo test --workspace --profile test-release"
cargo test --workspace --profile test-release || status=$?

echo "== pytest tests/python"
.venv/bin/python -m pytest tests/python "$@" || status=$?

exit "$status"
