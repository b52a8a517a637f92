#!/usr/bin/env bash
# Configures and builds racepredict into build/ (binaries in build/bin/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Line tables (-g1), not full debug info: backtraces keep functions and
# lines, and the build takes about 3/4 of the time of -g (the test suite
# builds everything from a clean clone on 2 cores).
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build "$root/build" -j"$(nproc)"
