#!/usr/bin/env bash
# scripts/setup-system.sh [run|test|pgo]: install the Debian packages ftlab needs, for building
# and running (`run`, the default: what scripts/setup.sh asks for) or also for the tests and
# `ftlab capture` (`test`: what scripts/test.sh asks for), or for the profile-guided release
# build (`pgo`: what scripts/pgo.sh asks for when it finds no llvm-profdata). Idempotent: it
# installs only what is missing, and does nothing when all is present. It does not set up Rust
# or Python (expected on the machine) nor the project's venv (scripts/setup.sh).
set -euo pipefail

# Building and running need no Debian package beyond Rust and Python (with venv and pip): the
# figures use matplotlib's own fonts and the report is one self-contained HTML file. (The
# profile-guided release build's llvm-N is `pgo`, below.)
RUN_PACKAGES=()
# Only the tests and `ftlab capture` need these: headless chromium, its driver and a font for
# the HTML report's browser test; RocksDB's db_bench (rocksdb-tools) and strace for `ftlab
# capture rocksdb` and its live test. (fio is not among them: ftlab reads fio's iologs, and no
# test or command runs fio itself.)
TEST_PACKAGES=(chromium chromium-driver fonts-dejavu-core rocksdb-tools strace)

# The profile-guided release build (scripts/pgo.sh) needs llvm-profdata of rustc's own LLVM
# major version: Debian's llvm-N (`pgo`; asked for by scripts/pgo.sh only when it finds no such
# tool; where Debian has no such package, the install fails and the build goes without PGO).
llvm_package="llvm-$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')"

case "${1:-run}" in
    run) PACKAGES=("${RUN_PACKAGES[@]}") ;;
    test) PACKAGES=("${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
    pgo) PACKAGES=("$llvm_package") ;;
    *) echo "usage: scripts/setup-system.sh [run|test|pgo]" >&2; exit 2 ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup-system: all ${#PACKAGES[@]} Debian packages for '${1:-run}' present"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
echo "setup-system: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
