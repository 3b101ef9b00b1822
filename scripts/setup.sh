#!/usr/bin/env bash
# scripts/setup.sh: build everything from a clone: the Debian packages building and running
# need (`scripts/setup-system.sh run`; the tests' own are installed by scripts/test.sh), the
# venv .venv with the exact Python packages of requirements.lock, and the Rust extension
# ftlab._core (release build unless FTLAB_BUILD_PROFILE names another Cargo profile, installed
# into .venv by `maturin develop`; the release build is profile-guided, scripts/pgo.sh, unless
# FTLAB_PGO=0). Idempotent and
# incremental: a second run only rebuilds what changed. It runs no tests (scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV=.venv
pgo="${FTLAB_PGO:-1}"
case "$pgo" in
    0 | 1) ;;
    *) echo "setup: FTLAB_PGO must be 0 or 1, not '$pgo'" >&2; exit 2 ;;
esac

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
# The release build is profile-guided (scripts/pgo.sh: about 15% faster, the same results)
# unless FTLAB_PGO=0, or where no llvm-profdata of rustc's LLVM can be had (then it says so).
develop=("$VENV/bin/maturin" develop --profile "$profile" --quiet)
if [ "$profile" = release ] && [ "$pgo" = 1 ]; then
    rc=0
    profdata=$(scripts/pgo.sh) || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "setup: building ftlab._core (maturin develop --profile release), profile-guided by" \
            "$profdata"
        export RUSTFLAGS="-Cprofile-use=$PWD/$profdata"
        # Its own target directory: these flags would otherwise rebuild target/ for every
        # cargo command without them.
        develop+=(--target-dir target/pgo/use)
    elif [ "$rc" -eq 3 ]; then
        echo "setup: building ftlab._core without profile-guided optimisation (no llvm-profdata;" \
            "the same results, slower)"
    else
        echo "setup: scripts/pgo.sh failed (exit $rc)" >&2
        exit "$rc"
    fi
else
    echo "setup: building ftlab._core (maturin develop --profile $profile)"
fi
VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH" "${develop[@]}"
echo "setup: done; try .venv/bin/ftlab --help"
