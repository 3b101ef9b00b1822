#!/usr/bin/env bash
# scripts/wheel.sh: build ftlab's release wheel profile-guided, as fast as scripts/setup.sh's
# build (`pip install .` and a plain `maturin build --release` are not profile-guided): the
# profile of scripts/pgo.sh (trained once, reused while the sources do not change), then
# `maturin build --release` with `-Cprofile-use` of it, in its own target directory. The wheel
# goes to dist/ (or $1). Needs .venv (scripts/setup.sh). Without an llvm-profdata of rustc's
# LLVM (scripts/pgo.sh exits 3) it stops and says so rather than build an unguided wheel. It
# does not test the wheel (scripts/test-wheel.sh does) or publish it.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
profdata=$(scripts/pgo.sh)
echo "wheel: maturin build --release, profile-guided by $profdata" >&2
RUSTFLAGS="-Cprofile-use=$PWD/$profdata" .venv/bin/maturin build --release \
    --target-dir target/pgo/use --out "$out"
