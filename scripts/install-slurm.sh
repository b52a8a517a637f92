#!/usr/bin/env bash
# Installs Slurm (Debian 12's slurm-wlm: slurmctld, slurmd, sbatch) and munge,
# for the `racepredict batch --slurm` integration test, which starts a private
# single-node cluster on localhost (scripts/slurm-localhost.sh). Only what is
# missing is installed; nothing is started or enabled here.
set -euo pipefail
PKGS=(slurm-wlm munge)
"$(dirname "$0")/apt-install-missing.sh" "${PKGS[@]}"
