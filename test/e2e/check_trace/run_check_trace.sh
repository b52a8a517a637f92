#!/bin/sh
# Runs `racepredict check-trace` on a hand-written trace. A trace with a
# `# expect: LINE: MSG` line must be rejected (exit 2) with "FILE:LINE: MSG"
# (the line of the inconsistent event); one without must be accepted
# (exit 0).
racepredict="$1"
trace="$2"
expect=$(sed -n 's/^# expect: //p' "$trace")
out=$("$racepredict" check-trace "$trace" 2>&1)
rc=$?
echo "$out"
if [ -z "$expect" ]; then
  [ $rc -eq 0 ] || { echo "FAIL: expected exit 0, got $rc"; exit 1; }
  exit 0
fi
[ $rc -eq 2 ] || { echo "FAIL: expected exit 2, got $rc"; exit 1; }
echo "$out" | grep -qxF "$trace:$expect" ||
  { echo "FAIL: expected the line '$trace:$expect'"; exit 1; }
