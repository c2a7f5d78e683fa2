#!/usr/bin/env bash
# The sanitizer job: builds Kiln, its test suites and the fuzz targets with
# clang under AddressSanitizer + UndefinedBehaviorSanitizer (any report aborts
# the test that triggered it), then runs every suite (the golden trainings
# excepted), the fuzz corpus replay, and each libFuzzer target for a short
# smoke run. scripts/test.sh runs it after the normal suite.
# Usage: scripts/sanitize.sh   (KILN_SAN_BUILD_DIR, default build-san;
#        KILN_SAN_FUZZ_SECONDS per target, default 6; 0 skips the smoke runs)
set -euo pipefail
cd "$(dirname "$0")/.."
# clang for the sanitizers and libFuzzer; time for fuzz/run.sh's CPU figures.
scripts/setup.sh clang-14 libclang-rt-14-dev time
BUILD_DIR=${KILN_SAN_BUILD_DIR:-build-san}
# Without the oneDNN plugin: clang 14's LeakSanitizer crashes at exit ("Tracer
# caught signal 11") in any process that has loaded libgomp, oneDNN's OpenMP
# runtime, with dlopen. Kiln's own convolution kernels run here instead.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
  -DKILN_SANITIZE=address,undefined -DKILN_FUZZ=ON -DKILN_CUDA=OFF -DKILN_ONEDNN=OFF \
  -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
# Leaks are reports too; a report exits non-zero with a stack trace.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
(cd "$BUILD_DIR" && ctest --output-on-failure -j 2 --timeout 1500)
seconds=${KILN_SAN_FUZZ_SECONDS:-6}
if [ "$seconds" -gt 0 ]; then
  fuzz/run.sh "$seconds" "$BUILD_DIR"
fi
