#!/usr/bin/env bash
# scripts/setup.sh: build everything from a clone: the Debian packages building and running
# need (`scripts/setup-system.sh run`; the tests' own are installed by scripts/test.sh), the
# venv .venv with the exact Python packages of requirements.lock, and the Rust extension
# ftlab._core (release build, installed into .venv by `maturin develop`). Idempotent and
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

echo "setup: building ftlab._core (maturin develop --release)"
VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/maturin" develop --release --quiet
echo "setup: done; try .venv/bin/ftlab --help"
