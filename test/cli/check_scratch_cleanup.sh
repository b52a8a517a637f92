#!/bin/sh
# `run` killed while the program runs (SIGTERM as a CI job limit sends,
# SIGKILL, and SIGKILL of its whole process group, janitor included) must
# not leave its work directory under $TMPDIR; a normal end must not either,
# and --keep-work-dir keeps it. A directory whose owner is gone (its .owner
# lock is free: even the janitor died) is removed by the next run; one
# without an .owner file (not ours) is left alone.
#   check_scratch_cleanup.sh RACEPREDICT WORKDIR
set -u
rp=$1
tmp=$2/scratch
rm -rf "$tmp" && mkdir -p "$tmp"
export TMPDIR="$tmp"
fail() { echo "FAIL: $*"; ls -la "$tmp"; exit 1; }
# The program: a sleep no other process runs (this script's pid in its
# argument), so that the one a killed `run` leaves behind can be ended
# without touching anybody else's.
nap="29.$$"
# Up to 30 s for the work directory to appear or go (a loaded machine).
settle() { i=0; while [ "$(count)" -ne "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done; }
count() { find "$tmp" -mindepth 1 -maxdepth 1 -name 'racepredict-run-*' | wc -l; }

for sig in TERM KILL; do
  "$rp" run -- sleep "$nap" >/dev/null 2>&1 &
  pid=$!
  # Wait until the work directory exists (run has started the program).
  settle 1
  [ "$(count)" -eq 1 ] || fail "SIG$sig: no work directory appeared"
  kill -s $sig $pid
  wait $pid 2>/dev/null
  settle 0
  [ "$(count)" -eq 0 ] || fail "SIG$sig: the work directory was left behind"
  pkill -f "^sleep $nap\$" 2>/dev/null
done

# SIGKILL to run's whole process group: setsid execs run, which leads a
# new group whose id is its pid.
setsid "$rp" run -- sleep "$nap" >/dev/null 2>&1 &
pgid=$!
settle 1
[ "$(count)" -eq 1 ] || fail "group kill: no work directory appeared"
kill -s KILL -- "-$pgid"
settle 0
[ "$(count)" -eq 0 ] || fail "group SIGKILL: the work directory was left behind"

# Stale directories: an unlocked .owner is swept, no .owner is kept.
mkdir "$tmp/racepredict-run-stale" "$tmp/racepredict-run-foreign"
: > "$tmp/racepredict-run-stale/.owner"
"$rp" run -- true >/dev/null 2>&1
[ ! -e "$tmp/racepredict-run-stale" ] || fail "the stale directory was kept"
[ -d "$tmp/racepredict-run-foreign" ] || fail "a foreign directory was swept"
rmdir "$tmp/racepredict-run-foreign"

# A normal end (the program wrote no trace: exit 2) removes it too.
"$rp" run -- true >/dev/null 2>&1
[ $? -eq 2 ] || fail "run -- true: exit status"
[ "$(count)" -eq 0 ] || fail "normal end: the work directory was left behind"
"$rp" run --keep-work-dir -- true >/dev/null 2>&1
[ "$(count)" -eq 1 ] || fail "--keep-work-dir did not keep it"
echo ok
