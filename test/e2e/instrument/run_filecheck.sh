#!/bin/sh
# Compiles SRC to IR with the pass plugin at -O1 and -O0 and checks the
# CHECK (-O1) and O0 (-O0) prefixes with LLVM's FileCheck.
set -e
clang="$1"; plugin="$2"; filecheck="$3"; src="$4"
"$clang" -O1 -g -S -emit-llvm -fpass-plugin="$plugin" "$src" -o - |
  "$filecheck" "$src"
"$clang" -O0 -g -S -emit-llvm -fpass-plugin="$plugin" "$src" -o - |
  "$filecheck" --check-prefix=O0 "$src"
echo ok
