#!/usr/bin/env bash
# scripts/setup.sh: build everything from a clone: the Debian packages building and running
# need (`scripts/setup-system.sh run`; the tests' own are installed by scripts/test.sh), the
# venv .venv with the exact Python packages of requirements.lock, and the Rust extension
# ftlab._core (release build unless FTLAB_BUILD_PROFILE names another Cargo profile, installed
# into .venv by `maturin develop`). Idempotent and
# incremental: a second run only rebuilds what changed. It runs no tests (scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV=.venv

scripts/setup-system.sh run

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 10):
    sys.exit(f"ftlab needs Python >= 3.10, found {sys.version.split()[0]}")
PY
    echo "setup: creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi

# Install the locked packages only when the lock changed since the last install.
stamp="$VENV/.requirements.lock.sha256"
want="$(sha256sum requirements.lock | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    echo "setup: installing requirements.lock into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
    echo "$want" > "$stamp"
fi

# FTLAB_BUILD_PROFILE (default release) is the Cargo profile of the extension. CI (.ci/run) sets
# test-release, the profile `cargo test` builds with, so the ftlab crate and the dependencies
# compile once there instead of once per profile; the profiles give the same results
# (Cargo.toml's note on test-release).
profile="${FTLAB_BUILD_PROFILE:-release}"
echo "setup: building ftlab._core (maturin develop --profile $profile)"
VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/maturin" develop --profile "$profile" --quiet
echo "setup: done; try .venv/bin/ftlab --help"
