#!/usr/bin/env bash
# Installs Microsoft's SARIF validator (npm @microsoft/sarif-multitool, whose
# Linux binary is a self-contained .NET app) into build/tools/sarif, where
# CMake finds it for the SARIF schema test. Needs node/npm (Debian: nodejs npm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/build/tools/sarif"
bin="$dest/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ -x "$bin" ]; then exit 0; fi
command -v npm >/dev/null || "$root/scripts/apt-install-missing.sh" nodejs npm
mkdir -p "$dest"
(cd "$dest" && npm install --silent --no-audit --no-fund @microsoft/sarif-multitool@5.7.0 >/dev/null)
chmod u+x "$bin"
