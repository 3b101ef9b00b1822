#!/usr/bin/env bash
# scripts/setup-system.sh: install the Debian packages ftlab's build, tests and tools need.
# Idempotent: it installs only what is missing, and does nothing when all is present. It does
# not set up Rust or Python (expected on the machine) nor the project's venv (scripts/setup.sh).
set -euo pipefail

# Debian packages the project needs: headless chromium + its driver for the HTML report test;
# RocksDB's db_bench (rocksdb-tools) and strace for `ftlab capture rocksdb` and its live test.
PACKAGES=(chromium chromium-driver fonts-dejavu-core rocksdb-tools strace)

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup-system: all ${#PACKAGES[@]} required Debian packages present"
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
