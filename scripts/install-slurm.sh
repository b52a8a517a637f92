#!/usr/bin/env bash
# Installs Slurm (Debian 12's slurm-wlm: slurmctld, slurmd, sbatch) and munge,
# for the `racepredict batch --slurm` integration test, which starts a private
# single-node cluster on localhost (scripts/slurm-localhost.sh). Only what is
# missing is installed; nothing is started or enabled here.
set -euo pipefail
PKGS=(slurm-wlm munge)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "racepredict: installing missing packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
