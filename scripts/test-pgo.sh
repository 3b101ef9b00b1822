#!/usr/bin/env bash
# scripts/test-pgo.sh: the profile-guided build path end to end, which CI's cheap form
# (tests/python/test_pgo.py: the tool search and its fallback) does not build. It runs
# scripts/pgo.sh (finding or installing llvm-profdata, the instrumented build, the training, the
# merge), builds `run_scenario` profile-guided as scripts/setup.sh builds the extension
# (release, -Cprofile-use, target/pgo/use), and checks that the default scenario's summary.json
# is byte-identical to a build without PGO (test-release: the same results, Cargo.toml). About
# 6 minutes the first time on 2 cores; run it with `scripts/test.sh --pgo` or alone. Exits 1 on
# a difference, 3 when no llvm-profdata of rustc's LLVM can be had.
set -euo pipefail
cd "$(dirname "$0")/.."

rc=0
profdata=$(scripts/pgo.sh) || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "test-pgo: scripts/pgo.sh exited $rc" >&2
    exit "$rc"
fi
echo "test-pgo: building run_scenario profile-guided by $profdata"
RUSTFLAGS="-Cprofile-use=$PWD/$profdata" cargo build --quiet --profile release \
    --target-dir target/pgo/use --example run_scenario
echo "test-pgo: building run_scenario without PGO (test-release)"
cargo build --quiet --profile test-release --example run_scenario
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
short=(measure.duration_s=2.0)
target/pgo/use/release/examples/run_scenario scenarios/default.toml "${short[@]}" >"$out/pgo.json"
target/test-release/examples/run_scenario scenarios/default.toml "${short[@]}" >"$out/plain.json"
if cmp -s "$out/pgo.json" "$out/plain.json"; then
    echo "test-pgo: summary.json of the default scenario is byte-identical with and without PGO"
else
    echo "test-pgo: summary.json differs with PGO (scenarios/default.toml, ${short[*]})" >&2
    exit 1
fi
