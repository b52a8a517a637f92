#!/bin/sh
# Regenerates the golden text reports (test/e2e/golden/*.txt) by running the
# e2e.golden.* tests with RACEPREDICT_UPDATE_GOLDEN=1; review the result with
# `git diff test/e2e/golden` before committing it.
# Usage: scripts/update-golden.sh [BUILD_DIR]   (default: build)
set -eu
build=${1:-build}
cd "$build"
RACEPREDICT_UPDATE_GOLDEN=1 ctest -R '^e2e\.golden\.' --output-on-failure
