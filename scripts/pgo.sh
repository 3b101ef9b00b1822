#!/usr/bin/env bash
# scripts/pgo.sh: the profile of a profile-guided (PGO) release build of ftlab. It builds the
# native examples `bench_case` and `run_scenario` instrumented (`-Cprofile-generate`, target
# directory target/pgo/gen), runs the training workload below, merges what it recorded with
# llvm-profdata, and prints the merged profile's path (target/pgo/ftlab-STAMP.profdata) on
# stdout; everything else goes to stderr. scripts/setup.sh then builds the extension with
# `-Cprofile-use` of it. STAMP hashes rustc's version, the Rust sources, Cargo.lock and this
# script, so a second run with nothing changed only prints the path again.
#
# PGO changes code layout and inlining, never a result (Rust has no fast-math): summary.json is
# byte-identical with and without it (docs/PERFORMANCE.md, "Session 15"). The training set is
# two of the bench's standard workloads and every bundled scenario (the quick reproductions'
# too, two of them shortened), so every scheme, mapper and GC mode is trained, not only the
# bench's; the bench's two cases trained 4x longer give no faster code (docs/PERFORMANCE.md,
# "Session 24", which also measured -Ctarget-cpu=native and fat LTO here: no gain).
#
# llvm-profdata must come from rustc's own LLVM major version (its profile format): the rustup
# component llvm-tools, llvm-profdata-N on PATH, or Debian's llvm-N, which this script installs
# (scripts/setup-system.sh pgo) when it finds none. Exits 3, saying why on stderr, when there is
# no such tool; scripts/setup.sh then builds without PGO and says so; scripts/wheel.sh builds a
# profile-guided release wheel with it. Not run by CI (.ci/run
# builds the test-release profile, without PGO); not part of `pip install .`.
#
# `scripts/pgo.sh --locate` only searches for the tool (no install, no build): it prints the
# llvm-profdata it would use, or exits 3 saying why, in a fraction of a second; the test suite
# runs it (tests/python/test_pgo.py), with FTLAB_PGO_LLVM_MAJOR (default: rustc's LLVM major)
# set to a version no tool has to exercise the fallback. scripts/test-pgo.sh runs the whole path
# (training, the profile-guided build, and the results against a build without it).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=build
case "${1:-}" in
    "") ;;
    --locate) mode=locate ;;
    *) echo "usage: scripts/pgo.sh [--locate]" >&2; exit 2 ;;
esac
llvm_major=${FTLAB_PGO_LLVM_MAJOR:-$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')}
case "$llvm_major" in
    ''|*[!0-9]*) echo "pgo: FTLAB_PGO_LLVM_MAJOR must be an LLVM major version, not '$llvm_major'" >&2
        exit 2 ;;
esac
host=$(rustc -vV | sed -n 's/^host: //p')

# The llvm-profdata of LLVM `llvm_major`, or nothing.
find_profdata() {
    local sysroot_tool
    sysroot_tool="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
    local debian_tool="/usr/lib/llvm-$llvm_major/bin/llvm-profdata"
    for tool in "$sysroot_tool" "llvm-profdata-$llvm_major" "$debian_tool" llvm-profdata; do
        command -v "$tool" >/dev/null 2>&1 || continue
        local major
        major=$("$tool" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' |
            head -n 1)
        if [ "$major" = "$llvm_major" ]; then
            command -v "$tool"
            return 0
        fi
    done
    return 1
}

profdata_tool=$(find_profdata || true)
if [ -z "$profdata_tool" ] && [ "$mode" = build ]; then
    scripts/setup-system.sh pgo >&2 || true
    profdata_tool=$(find_profdata || true)
fi
if [ -z "$profdata_tool" ]; then
    echo "pgo: no llvm-profdata of LLVM $llvm_major (rustc's): install rustup's llvm-tools" \
        "component or Debian's llvm-$llvm_major" >&2
    exit 3
fi
if [ "$mode" = locate ]; then
    echo "$profdata_tool"
    exit 0
fi

# Every file the build reads (tracked or new, as it is in the working tree) and its hash.
sources() {
    local files=(crates Cargo.toml Cargo.lock scripts/pgo.sh)
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard "${files[@]}"
    else
        find "${files[@]}" -type f -print0 | sort -z
    fi | while IFS= read -r -d '' f; do
        if [ -f "$f" ]; then sha256sum "$f"; fi
    done
}
stamp=$( { rustc -vV; sources; } | sha256sum | cut -c1-16)
out="target/pgo/ftlab-$stamp.profdata"
if [ -f "$out" ]; then
    echo "pgo: profile $out is up to date" >&2
    echo "$out"
    exit 0
fi

raw="$PWD/target/pgo/raw-$stamp"
rm -rf "$raw"
mkdir -p "$raw"
echo "pgo: building the instrumented examples (target/pgo/gen)" >&2
RUSTFLAGS="-Cprofile-generate=$raw" cargo build --quiet --profile release \
    --target-dir target/pgo/gen --example bench_case --example run_scenario >&2
bin=target/pgo/gen/release/examples
export LLVM_PROFILE_FILE="$raw/%m-%p.profraw"
start=$SECONDS
echo "pgo: training: the bench's standard workloads" >&2
# (Not upi-mixed-70r30w: its preconditioning alone takes 16 s instrumented; upi-quick below
# trains UPI.)
for case in random-write mixed-70r30w; do
    "$bin/bench_case" "$case" >&2
done
echo "pgo: training: the bundled scenarios" >&2
for scenario in scenarios/*.toml scenarios/reproduce/*-quick.toml; do
    overrides=()
    case "$scenario" in
        # The two long quick forms, shortened (their phases dropped): the same paths run,
        # in about a tenth of the time.
        */upi-quick.toml)
            overrides=(measure.warmup_s=300 measure.duration_s=900 'measure.phases=[]')
            ;;
        */vstream-synthetic-quick.toml)
            overrides=(measure.warmup_s=60 measure.duration_s=180 'measure.phases=[]')
            ;;
    esac
    "$bin/run_scenario" "$scenario" "${overrides[@]}" >/dev/null 2>"$raw/last.err" ||
        { cat "$raw/last.err" >&2; echo "pgo: training on $scenario failed" >&2; exit 1; }
done
echo "pgo: training took $((SECONDS - start)) s; merging with $profdata_tool" >&2
"$profdata_tool" merge -o "$out.tmp" "$raw"/*.profraw
mv "$out.tmp" "$out"
# Older profiles and every raw recording are of no further use.
find target/pgo -maxdepth 1 -name 'ftlab-*.profdata' ! -name "ftlab-$stamp.profdata" -delete
rm -rf "$raw"
echo "$out"
