#!/usr/bin/env bash
# Builds the C++-only consumer project against an install of the build tree's
# shared library and runs it. A static install is built and consumed by
# tests/packaging/run.sh (CI), from the FetchContent build it already makes.
# Usage: run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD_DIR=$1
SRC_DIR=$2
CONSUMER=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

consume() {  # prefix label [cmake-option ...]
  cmake -S "$CONSUMER" -B "$WORK/consumer-$2" -DCMAKE_PREFIX_PATH="$1" -DCMAKE_BUILD_TYPE=Release "${@:3}" >"$WORK/log" 2>&1 ||
    { cat "$WORK/log"; echo "consumer ($2): configure failed"; exit 1; }
  cmake --build "$WORK/consumer-$2" -j 2 >"$WORK/log" 2>&1 || { cat "$WORK/log"; echo "consumer ($2): build failed"; exit 1; }
  "$WORK/consumer-$2/consumer"
  echo "consumer project (LANGUAGES CXX) built and ran against the $2 kiln package"
}

cmake --install "$BUILD_DIR" --prefix "$WORK/shared" >/dev/null
consume "$WORK/shared" shared
