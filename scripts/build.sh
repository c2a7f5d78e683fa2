#!/usr/bin/env bash
# Configures and builds Kiln (Release) into ${KILN_BUILD_DIR:-build}.
# Usage: scripts/build.sh [cmake-option ...] [-- target ...]
#   With no targets, everything (the library, plugins, examples, tests, benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${KILN_BUILD_DIR:-build}
options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  options+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the "--"
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${options[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}"
