#!/usr/bin/env bash
# Installs what is missing, builds, and predicts the race of Huang et al.'s
# Figure 1 from its bundled trace, printing the race and its witness.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" >/dev/null
echo "== racepredict analyze examples/huang_fig1.rpt.txt"
set +e
"$root/build/bin/racepredict" analyze "$root/examples/huang_fig1.rpt.txt"
rc=$?
set -e
# Exit status 1 means "races found", which is what the demo expects.
[ $rc -eq 1 ] && exit 0 || exit $rc
