#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit + end-to-end).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/install-sarif-validator.sh"
"$root/scripts/install-chromium.sh"    # HTML report test (headless)
"$root/scripts/install-slurm.sh"   # batch --slurm integration test
"$root/scripts/build.sh"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)" --timeout 900
