#!/usr/bin/env bash
# Installs what is missing, builds, compiles the bundled example
# examples/hidden_race.c (a race hidden from happens-before in the observed
# run, Carril Fig. 1.5) with racepredict-cc and runs `racepredict run` on
# it: the race is predicted from one recorded run, then confirmed by
# replaying the program under the witness schedule. Everything runs from
# the repository root and the files stay in build/demo, so that the printed
# `racepredict replay` command works afterwards.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" >/dev/null
cd "$root"
rm -rf build/demo
mkdir -p build/demo
echo "== build/bin/racepredict-cc -O1 examples/hidden_race.c -o build/demo/hidden_race"
build/bin/racepredict-cc -O1 examples/hidden_race.c -o build/demo/hidden_race
# For comparison, ThreadSanitizer on the same program (where it can run).
if clang-14 -fsanitize=thread -g -O1 examples/hidden_race.c \
     -o build/demo/hidden_race.tsan 2>/dev/null &&
   build/demo/hidden_race.tsan >build/demo/tsan.out 2>&1; then
  echo "== ThreadSanitizer on the same program"
  if grep -q "WARNING: ThreadSanitizer" build/demo/tsan.out; then
    grep -A3 "WARNING: ThreadSanitizer" build/demo/tsan.out
  else
    echo "ThreadSanitizer: no report (the observed run orders the accesses through log_lock)"
  fi
fi
echo "== build/bin/racepredict run --witness-dir build/demo/witnesses -- build/demo/hidden_race"
set +e
build/bin/racepredict run --witness-dir build/demo/witnesses -- build/demo/hidden_race
rc=$?
set -e
# Exit status 1 means "bugs confirmed", which is what the demo expects.
if [ $rc -eq 1 ]; then
  exit 0
fi
echo "racepredict: the demo expected a confirmed race (exit status $rc)" >&2
exit 1
