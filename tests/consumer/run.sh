#!/usr/bin/env bash
# Builds the C++-only consumer project against two installs of Kiln and runs it:
#   1. the shared library of the build tree under test;
#   2. a static library configured and built from the same sources (CPU only),
#      with every other option as the build tree's, in BUILD_DIR/consumer-static-build.
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

# The static build keeps its folder inside the build tree: the unity build's batch
# files live there, so a fixed path is what lets make and ccache reuse its objects.
STATIC_BUILD=$BUILD_DIR/consumer-static-build
native=$(sed -n 's/^KILN_NATIVE:BOOL=//p' "$BUILD_DIR/CMakeCache.txt")
type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD_DIR/CMakeCache.txt")
cmake -S "$SRC_DIR" -B "$STATIC_BUILD" -DKILN_SHARED=OFF -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF \
  -DKILN_BUILD_BENCH=OFF -DKILN_NATIVE="${native:-ON}" -DCMAKE_BUILD_TYPE="${type:-Release}" >"$WORK/log" 2>&1 ||
  { cat "$WORK/log"; echo "static kiln: configure failed"; exit 1; }
cmake --build "$STATIC_BUILD" -j 2 >"$WORK/log" 2>&1 || { tail -50 "$WORK/log"; echo "static kiln: build failed"; exit 1; }
cmake --install "$STATIC_BUILD" --prefix "$WORK/static" >/dev/null
test -f "$WORK/static/lib/libkiln.a" || test -f "$WORK/static/lib64/libkiln.a" ||
  { echo "static kiln: no libkiln.a was installed"; exit 1; }
consume "$WORK/static" static -DKILN_CONSUMER_EXAMPLES_DIR="$SRC_DIR/examples"
exe=$WORK/consumer-static/mnist_cnn
strip -o "$WORK/mnist_cnn.stripped" "$exe"
echo "a static, CPU-only mnist_cnn: $(($(stat -c %s "$exe") / 1024)) KB ($(($(stat -c %s "$WORK/mnist_cnn.stripped") / 1024)) KB stripped)"
