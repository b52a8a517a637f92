#!/usr/bin/env bash
# Installs the Debian 12 packages racepredict needs, only those missing.
set -euo pipefail
PKGS=(
  build-essential cmake pkg-config git python3
  clang-14 llvm-14-dev libclang-14-dev libclang-rt-14-dev  # pass plugin, wrappers, TSan comparison
  libomp-14-dev                                            # OpenMP programs (clang -fopenmp): libomp and omp.h
  libz3-dev                                                # the SMT solver
  nlohmann-json3-dev libspdlog-dev libcli11-dev            # JSON reports, logging, CLI parsing
  libgtest-dev                                             # unit tests
  time                                                     # peak RSS in bench/ scripts
)
"$(dirname "$0")/apt-install-missing.sh" "${PKGS[@]}"
