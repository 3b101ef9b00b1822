#!/usr/bin/env bash
# scripts/test-wheel.sh: the installed-package test (scripts/test.sh runs it). Builds the wheel
# (`maturin build` in scripts/setup.sh's profile, reusing its build), installs it into a
# clean throwaway venv (the exact versions of requirements.lock, then the wheel, whose own
# dependency ranges pip checks), and from outside the checkout runs what a pip user would:
# `ftlab scenarios`, `ftlab run` on a bundled scenario that replays the bundled traces, and one
# quick reproduction on one seed (`ftlab reproduce part-ftl --quick --seeds 1`). Fails if the
# package imported is not the installed one, or if anything fails. Not a test of the numbers
# (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
PYTHON="${PYTHON:-python3}"
MATURIN="${MATURIN:-.venv/bin/maturin}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The profile scripts/setup.sh built with (FTLAB_BUILD_PROFILE, default release), so the
# build is reused, not redone in a second profile.
profile="${FTLAB_BUILD_PROFILE:-release}"
echo "== wheel: maturin build --profile $profile"
VIRTUAL_ENV="$root/.venv" PATH="$root/.venv/bin:$PATH" "$MATURIN" build --profile "$profile" --quiet -o "$tmp/wheels"
wheel="$(ls "$tmp"/wheels/ftlab-*.whl)"

echo "== wheel: clean venv, requirements.lock, then $(basename "$wheel")"
"$PYTHON" -m venv "$tmp/venv"
pip=("$tmp/venv/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install --require-hashes -r requirements.lock
"${pip[@]}" install "$wheel"
"${pip[@]}" check

# From an empty directory: nothing of the checkout is on the path or under the cwd.
mkdir "$tmp/work"
cd "$tmp/work"
where="$("$tmp/venv/bin/python" -c 'import ftlab, os; print(os.path.dirname(ftlab.__file__))')"
case "$where" in
    "$tmp/venv/"*) echo "wheel: ftlab imported from $where" ;;
    *) echo "wheel: ftlab imported from $where, not from the clean venv" >&2; exit 1 ;;
esac
ftlab="$tmp/venv/bin/ftlab"
# (To files, then grep: `ftlab ... | grep -q` would fail under pipefail when grep stops early.)
"$ftlab" scenarios > scenarios.txt
grep -q "^real-traces " scenarios.txt || { echo "wheel: ftlab scenarios does not list real-traces" >&2; exit 1; }
"$ftlab" run real-traces --out runs/real-traces --set measure.duration_s=1.0 > run.txt
grep -q "msr-hm0" run.txt && test -s runs/real-traces/summary.json
# One seed (--seeds 1): the same installed files as the 3 seeds of the default (the command,
# the bundled scenario, the claim file, the report templates); the numbers are pytest's.
"$ftlab" reproduce part-ftl --quick --seeds 1 --out runs/part-ftl > reproduce.txt
test -s runs/part-ftl/claims.json
echo "wheel: ftlab scenarios, run real-traces and reproduce part-ftl --quick --seeds 1 ran from it"
