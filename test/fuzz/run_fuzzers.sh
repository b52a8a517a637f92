#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses of test/fuzz (docs/inputs.md,
# "Fuzzing").
#
#   run_fuzzers.sh build DIR
#       configure DIR once as a clang-14 build of the harnesses only
#       (RACEPREDICT_FUZZERS=ON: ASan, UBSan, libFuzzer coverage) and build
#       them with -j2; exit 77 (skip) without clang-14 or its libFuzzer
#   run_fuzzers.sh run DIR HARNESS SECONDS
#       run one harness for SECONDS from our seed corpora (new inputs are
#       kept in DIR/corpus/HARNESS, a crashing one in DIR/artifacts/);
#       exit 0 when nothing crashed, leaked, hung or ran out of memory
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
mode=$1
dir=$2

case "$mode" in
build)
  if ! command -v clang++-14 >/dev/null; then
    echo "no clang++-14 (scripts/install-deps.sh): fuzzers skipped"
    exit 77
  fi
  rt="$(clang++-14 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a"
  if [ ! -f "$rt" ]; then
    echo "no libFuzzer ($rt, Debian's libclang-rt-14-dev): fuzzers skipped"
    exit 77
  fi
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    launcher=()
    if command -v ccache >/dev/null; then
      launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
                -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    # -O1 and line tables only: what a fuzzer needs, in about half the
    # compile time of -O2 -g (the suite builds this every run).
    cmake -S "$src" -B "$dir" -DCMAKE_C_COMPILER=clang-14 \
      -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" \
      -DRACEPREDICT_FUZZERS=ON -DRACEPREDICT_BUILD_INSTRUMENT=OFF \
      -DRACEPREDICT_ENABLE_TESTS=OFF "${launcher[@]}" >/dev/null
  fi
  cmake --build "$dir" -j2 --target racepredict_fuzzers
  ;;
run)
  harness=$3
  seconds=$4
  exe="$dir/bin/fuzz_$harness"
  [ -x "$exe" ] || { echo "$exe not built: fuzzers skipped"; exit 77; }
  in="$src/test/inputs"
  case "$harness" in
  binary_reader)
    seeds=("$src/test/fuzz/seeds/binary" "$in/formats" "$in/bad") ;;
  text_reader)
    seeds=("$in/paper" "$in/deadlock" "$in/properties" "$in/formats"
           "$in/bad" "$in/scale" "$src/examples" "$src/test/e2e/check_trace") ;;
  witness_reader)
    seeds=("$src/test/fuzz/seeds/witness") ;;
  property_parser)
    seeds=("$in/properties" "$src/test/e2e/properties") ;;
  *) echo "unknown harness $harness"; exit 2 ;;
  esac
  dict=()
  [ -f "$src/test/fuzz/$harness.dict" ] &&
    dict=(-dict="$src/test/fuzz/$harness.dict")
  mkdir -p "$dir/corpus/$harness" "$dir/artifacts"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: one input
  # needing 2 GB is a memory blow-up (both are reported as crashes).
  exec "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/$harness-" \
    "${dict[@]}" "$dir/corpus/$harness" "${seeds[@]}"
  ;;
*)
  echo "usage: run_fuzzers.sh build DIR | run DIR HARNESS SECONDS"
  exit 2
  ;;
esac
