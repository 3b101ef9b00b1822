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

# Run a command, dropping the lines pip prints for what is already there ("Requirement already
# satisfied: ...", "Ignoring x: markers ... don't match your environment") from its output, which
# goes to stdout; the command's exit status is kept.
quiet_pip() {
    set +e +o pipefail
    "$@" 2>&1 | grep -v -E '^[[:space:]]*(Requirement already satisfied|Ignoring [^ ]+: markers)'
    local status=("${PIPESTATUS[@]}")
    set -e -o pipefail
    return "${status[0]}"
}

if [ ! -x "$VENV/bin/python" ]; then
    # The first run: say what it fetches and builds, and how long that takes, before it starts.
    cat <<EOF
setup: first run. It downloads and installs the Python packages of requirements.lock into $VENV
  (about 90 packages, 1.1 GB installed; Ray, pyarrow and plotly are most of it), downloads the
  Rust crates of Cargo.lock (about 130 MB, once per machine, in ~/.cargo) and compiles
  ftlab._core in release: expect several minutes on 2 cores. The profile-guided build then trains
  and builds once more, about 2 minutes (FTLAB_PGO=0 skips it). Later runs only redo what changed.
EOF
fi

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

# FTLAB_BUILD_PROFILE (default release) is the Cargo profile of the extension. CI (.ci/run) sets
# test-release, the profile `cargo test` builds with, so the ftlab crate and the dependencies
# compile once there instead of once per profile; the profiles give the same results
# (Cargo.toml's note on test-release).
profile="${FTLAB_BUILD_PROFILE:-release}"

# Install the locked packages only when the lock changed since the last install. pip mostly
# unpacks on one core: meanwhile the bindings' dependencies (the ftlab crate, Arrow) compile,
# in the profile and flags maturin develop builds them with below, which then reuses them (not
# under profile-guided optimisation, whose build has flags and a target directory of its own).
stamp="$VENV/.requirements.lock.sha256"
want="$(sha256sum requirements.lock | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    early_build=""
    if [ "$profile" != release ] || [ "$pgo" = 0 ]; then
        cargo build --quiet --profile "$profile" -p ftlab-py --lib &
        early_build=$!
    fi
    echo "setup: installing requirements.lock into $VENV"
    quiet_pip "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-warn-script-location --require-hashes -r requirements.lock
    echo "$want" > "$stamp"
    if [ -n "$early_build" ] && ! wait "$early_build"; then
        echo "setup: the early build of the ftlab crate failed; maturin develop builds it again" \
            "below and shows why" >&2
    fi
fi
# The release build is profile-guided (scripts/pgo.sh: about 15% faster, the same results)
# unless FTLAB_PGO=0, or where no llvm-profdata of rustc's LLVM can be had (then it says so).
develop=("$VENV/bin/maturin" develop --profile "$profile" --quiet)
if [ "$profile" = release ] && [ "$pgo" = 1 ]; then
    rc=0
    profdata=$(scripts/pgo.sh) || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "setup: building ftlab._core (maturin develop --profile release), profile-guided by" \
            "$profdata"
        # No -Ctarget-cpu=native: it measured no faster, here or with fat LTO (docs/PERFORMANCE.md,
        # "Session 24"), and the profile would then have to be trained with it too.
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
# maturin develop installs ftlab's dependencies with pip too (all there already: quiet them).
VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH" quiet_pip "${develop[@]}"
echo "setup: done; try .venv/bin/ftlab --help"
