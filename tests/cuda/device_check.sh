#!/usr/bin/env bash
# The one prepared run for a machine with an NVIDIA GPU (an H100 or H200 lent
# for a quarter of an hour): builds what is missing, then, within a wall-time
# budget (9 minutes by default), runs every check that needs the card and
# prints one summary table:
#   parity     the GPU parity suite, the layer catalogue included (test_cuda,
#              less the training, CUDA Graphs and NCCL cases, which follow);
#   training   the GPU training tests and CUDA Graphs (test_cuda);
#   nccl       the NCCL one-rank data-parallel test (test_cuda);
#   memcheck   compute-sanitizer memcheck over the kernel-level parity cases;
#   bench      bench/run_gpu.sh, every case, Kiln and PyTorch alternating (one round);
#              needs PyTorch in $PYTHON, else its PyTorch columns say so.
#
#   tests/cuda/device_check.sh [--emulate] [BUILD_DIR] [OUT_DIR]
#   tests/cuda/device_check.sh --bundle FILE [OUT_DIR]
#
# --bundle runs a build made elsewhere and packed by tests/cuda/pack_for_device.sh
# (for a device machine of another image, with no time to build): it unpacks
# FILE at the repository root, finds the device's CUDA, cuDNN and NCCL
# libraries, and runs the same steps without building.
#
# --emulate runs the same steps on the CPU against the emulated device
# (KILN_EMULATE_CUDA=1, framework/src/backend/emulated_cuda.h), which is how
# the script is kept working without a card; memcheck and the benchmark are
# then reported as skipped. KILN_DEVICE_CHECK_BUDGET_S sets the budget for
# the steps after the build (default 540 s); KILN_DEVICE_CHECK_CASES="a b ..."
# limits the benchmark to those cases of bench/run_gpu.sh. BUILD_DIR defaults to
# build-device, configured here (Release, KILN_CUDA=ON) when it has no cache;
# OUT_DIR (default BUILD_DIR/device-check) gets one log per step and
# summary.md. Exit status 0 when no step failed. The CTest
# device_check_emulated runs it with --emulate on every build.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
EMULATE=0
BUNDLE=""
if [[ "${1:-}" == --emulate ]]; then
  EMULATE=1
  shift
elif [[ "${1:-}" == --bundle ]]; then
  BUNDLE="${2:?--bundle needs a file}"
  shift 2
  set -- "$ROOT/build-device" "$@"
fi
BUILD="${1:-$ROOT/build-device}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT="${2:-$BUILD/device-check}"
BUDGET="${KILN_DEVICE_CHECK_BUDGET_S:-540}"
mkdir -p "$OUT"
declare -A RESULT SECS
ORDER=()
START=0

# Seconds left of the budget, at least 30 so a late step still says why it stopped.
left() { local l=$((BUDGET - ($(date +%s) - START))); echo $((l > 30 ? l : 30)); }

step() {  # name limit_seconds command...
  local name="$1" limit="$2" t0 rc
  shift 2
  ORDER+=("$name")
  t0=$(date +%s)
  (cd "$BUILD/tests/cuda" && timeout --kill-after=10 "$limit" "$@") > "$OUT/$name.log" 2>&1
  rc=$?
  SECS[$name]=$(($(date +%s) - t0))
  if [[ $rc -eq 0 ]]; then RESULT[$name]=pass
  elif [[ $rc -eq 124 || $rc -eq 137 ]]; then RESULT[$name]="FAIL: over ${limit} s"
  else RESULT[$name]="FAIL rc=$rc"; fi
}

skip() {  # name reason
  ORDER+=("$1")
  RESULT[$1]="skipped: $2"
  SECS[$1]=0
}

# A packed build: its libraries first, then the device's CUDA libraries
# wherever the image keeps them. PyTorch keeps its own search path.
use_bundle() {
  tar -C "$ROOT" -xJf "$BUNDLE" || return 1
  local dirs="$BUILD:$BUILD/lib" lib d
  for lib in libcudart.so.13 libcublas.so.13 libcudnn.so.9 libnccl.so.2; do
    d="$(find /usr/local/cuda/ /usr/lib/x86_64-linux-gnu /usr/local/lib /opt -name "$lib" -print -quit 2>/dev/null)"
    [[ -n "$d" && ":$dirs:" != *":$(dirname "$d"):"* ]] && dirs+=":$(dirname "$d")"
  done
  export LD_LIBRARY_PATH="$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  printf '#!/bin/sh\nunset LD_LIBRARY_PATH\nexec %s "$@"\n' "$(command -v python3)" > "$BUILD/python-peer"
  chmod +x "$BUILD/python-peer"
  export PYTHON="$BUILD/python-peer"
  # The tests read fixtures from the source folder compiled into them.
  local src
  src="$(cat "$BUILD/SOURCE_DIR" 2>/dev/null || true)"
  if [[ -n "$src" && ! -e "$src" ]]; then mkdir -p "$(dirname "$src")" && ln -s "$ROOT" "$src"; fi
  echo "bundle of commit $(cat "$BUILD/COMMIT" 2>/dev/null); LD_LIBRARY_PATH=$LD_LIBRARY_PATH; sources at ${src:-?}"
}

# ---- the build: only what the checks run ----
t0=$(date +%s)
if [[ -n "$BUNDLE" ]]; then
  use_bundle > "$OUT/build.log" 2>&1
  build_rc=$?
elif [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON -DKILN_BUILD_EXAMPLES=OFF > "$OUT/build.log" 2>&1
fi
if [[ -z "$BUNDLE" ]]; then
  TARGETS=(test_cuda)
  [[ $EMULATE -eq 1 ]] || TARGETS+=(kiln_bench)  # the benchmark runs only on a card
  cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}" >> "$OUT/build.log" 2>&1
  build_rc=$?
fi
ORDER+=(build)
SECS[build]=$(($(date +%s) - t0))
RESULT[build]=$([[ $build_rc -eq 0 ]] && echo pass || echo "FAIL rc=$build_rc")

START=$(date +%s)
BENCH_DATA=()
[[ -d "$BUILD/data" ]] && BENCH_DATA=(--data "$BUILD/data")
TEST_CUDA="$BUILD/tests/cuda/test_cuda"
SAN="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
# doctest splits filters at commas, so no pattern holds one.
TRAINING='*trains on the GPU*,*evaluate and predict on the GPU*,*model.to(device)*,*CUDA Graphs*'
KERNELS='GPU parity: unary*,GPU parity: broadcasting*,GPU parity: reductions*,GPU parity: matmul*,GPU parity: softmax*'
KERNELS+=',GPU parity: conv2d*,GPU parity: pooling,GPU parity: element-wise chains*,GPU parity: bias_add*'
KERNELS+=',GPU parity: batch normalization*,GPU parity: fused optimizer*'
if [[ $build_rc -ne 0 ]]; then
  for s in parity training nccl memcheck bench; do skip "$s" "the build failed"; done
else
  if [[ $EMULATE -eq 1 ]]; then
    export KILN_EMULATE_CUDA=1
    echo "emulated device (KILN_EMULATE_CUDA=1): no GPU used" > "$OUT/gpu.txt"
  else
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
  fi
  step parity "$(left)" "$TEST_CUDA" --duration=true -tce="$TRAINING,*NCCL*"
  step training "$(left)" "$TEST_CUDA" --duration=true -tc="$TRAINING"
  step nccl "$(left)" "$TEST_CUDA" --duration=true -tc='*NCCL*'
  if [[ $EMULATE -eq 1 ]]; then
    skip memcheck "no GPU (emulated device)"
    skip bench "no GPU (emulated device)"
  else
    # Memcheck without leak checking: the caching allocator keeps freed blocks
    # until the process ends, by design. The kernel-level cases reach every
    # kernel the layers use; the catalogue repeats them at layer size.
    if [[ -x "$SAN" ]]; then
      step memcheck "$(left)" "$SAN" --tool memcheck --error-exitcode 9 "$TEST_CUDA" -tc="$KERNELS"
    else
      skip memcheck "compute-sanitizer not found"
    fi
    ORDER+=(bench)
    t0=$(date +%s)
    (cd "$ROOT" && KILN_BUILD_DIR="$BUILD" timeout --kill-after=10 "$(left)" bench/run_gpu.sh --rounds 1 "${BENCH_DATA[@]}" ${KILN_DEVICE_CHECK_CASES:+--cases $KILN_DEVICE_CHECK_CASES}) > "$OUT/bench.log" 2>&1
    rc=$?
    SECS[bench]=$(($(date +%s) - t0))
    RESULT[bench]=$([[ $rc -eq 0 ]] && echo pass || echo "FAIL rc=$rc")
  fi
fi

status=0
{
  echo "## Device check, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  cat "$OUT/gpu.txt" 2>/dev/null
  echo
  printf '| step | result | seconds |\n|---|---|---|\n'
  for name in "${ORDER[@]}"; do printf '| %s | %s | %s |\n' "$name" "${RESULT[$name]}" "${SECS[$name]}"; done
  echo
  echo "Budget after the build: $BUDGET s; used $(($(date +%s) - START)) s."
  if [[ -f "$OUT/bench.log" ]]; then
    echo
    grep -E '^\|' "$OUT/bench.log" || tail -n 5 "$OUT/bench.log"
  fi
} | tee "$OUT/summary.md"
for name in "${ORDER[@]}"; do
  [[ "${RESULT[$name]}" == pass || "${RESULT[$name]}" == skipped* ]] || status=1
done
exit $status
