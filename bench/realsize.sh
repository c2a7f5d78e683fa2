#!/usr/bin/env bash
# Real-size CNNs on the CPU: Kiln against PyTorch 2 (eager and torch.compile),
# Keras 3 on TensorFlow and Keras 3 on JAX (jit_compile), alternately, in one
# run, with the same threads and the same OpenBLAS kernels. See bench/README.md.
#
#   bench/realsize.sh [--rounds N] [--cases NAME...] [--impls NAME...] [--no-build] [--load N]
#
#   --rounds N   rounds per case (default 2); each round runs every implementation once, in fresh processes
#   --cases      a subset of: resnet_train resnet_infer vgg_train vgg_infer bigcnn_train bigcnn_infer
#   --impls      a subset of: kiln libtorch torch torch_compile keras_tensorflow keras_jax
#                (libtorch: the C++ peer, Debian's libtorch-dev 1.13, when torch_realsize_bench is built;
#                --with-libtorch installs it)
#   --no-build   use the binaries and the venv already there
#   --load N     shared cores: every run is made twice, quiet and then beside N busy processes
#                (`--load $(nproc)` keeps every core busy), and the table gives each implementation's
#                slowdown and Kiln's against the peers' (bench/peers/contention_table.py)
#
# PEERS_PYTHON names another Python for the peers (one with keras and jax, such as the oracle's venv).
#
# Builds realsize_bench in Release into $KILN_BUILD_DIR (default build-bench) and makes the peers' venv
# <build>/peers-venv from the "bench peers" section of tests/oracle/requirements.txt (the project's one pinned
# requirements file; PyPI only). Writes <build>/bench-results/realsize-<time>.{jsonl,md} and prints the table.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build-bench}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
THREADS="${BENCH_THREADS:-2}"
ROUNDS=2
BUILD_IT=1
WITH_LIBTORCH=0
LOAD=-1
CASES=()
IMPLS=()
ARGS_TEXT="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="${2:?--rounds needs a number}"; shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --with-libtorch) WITH_LIBTORCH=1; shift ;;
    --load) LOAD="${2:?--load needs a number}"; shift 2 ;;
    --cases|--impls)
      which="$1"
      shift
      while [[ $# -gt 0 && "$1" != --* ]]; do
        IFS=',' read -r -a parts <<< "$1"
        if [[ "$which" == --cases ]]; then CASES+=("${parts[@]}"); else IMPLS+=("${parts[@]}"); fi
        shift
      done ;;
    *) echo "realsize.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ ${#CASES[@]} -gt 0 ]] || CASES=(resnet_train resnet_infer vgg_train vgg_infer bigcnn_train bigcnn_infer)
if [[ $WITH_LIBTORCH -eq 1 ]]; then
  "$ROOT/scripts/setup.sh" libtorch-dev
fi

VENV="$BUILD/peers-venv"
if [[ $BUILD_IT -eq 1 ]]; then
  extra=()
  # A fresh build directory only needs the library and the benchmarks.
  [[ -f "$BUILD/CMakeCache.txt" ]] || extra=(-DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF)
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >/dev/null
  echo "realsize.sh: building realsize_bench in $BUILD (Release)" >&2
  cmake --build "$BUILD" --target realsize_bench -j"$(nproc)" >/dev/null
  if grep -q '^Torch_DIR:PATH=/' "$BUILD/CMakeCache.txt"; then
    cmake --build "$BUILD" --target torch_realsize_bench -j"$(nproc)" >/dev/null
  fi
  "$ROOT/bench/peers/setup_venv.sh" "$VENV"
fi
BIN="$BUILD/bench/realsize_bench"
TORCH_BIN="$BUILD/bench/torch_realsize_bench"
if [[ ${#IMPLS[@]} -eq 0 ]]; then
  IMPLS=(kiln torch torch_compile keras_tensorflow keras_jax)
  [[ -x "$TORCH_BIN" ]] && IMPLS=(kiln libtorch torch torch_compile keras_tensorflow keras_jax)
fi
PY="${PEERS_PYTHON:-$VENV/bin/python}"

OUT_DIR="$BUILD/bench-results"
mkdir -p "$OUT_DIR"
STAMP="realsize-$(date +%Y%m%d-%H%M%S)"
JSONL="$OUT_DIR/$STAMP.jsonl"
: > "$JSONL"

# The same OpenBLAS kernels for every process (kiln::blas_kernels(): Kiln replaces Debian's OpenBLAS's generic
# fallback on CPUs it does not know; the peers load their own BLAS, but those that use OpenBLAS get the same set).
SGEMM="$("$BIN" --case sgemm)"
BLAS_CORE="${OPENBLAS_CORETYPE:-$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["blas_kernels"])' "$SGEMM")}"
echo "${SGEMM%\}},\"round\":0}" >> "$JSONL"
for m in resnet vgg bigcnn; do
  "$PY" "$ROOT/bench/peers/peer.py" --flops "$m" 2>/dev/null | tail -n 1 >> "$JSONL"
done

BUSY=()
start_load() {  # N processes that keep a core busy each
  for ((i = 0; i < LOAD; i++)); do
    sh -c 'while :; do :; done' &
    BUSY+=($!)
  done
}
stop_load() {
  [[ ${#BUSY[@]} -eq 0 ]] || kill "${BUSY[@]}" 2>/dev/null || true
  wait "${BUSY[@]}" 2>/dev/null || true
  BUSY=()
}
trap stop_load EXIT

run_one() {  # impl case round load
  local impl="$1" c="$2" r="$3" load="$4" line rc=0
  local -a cmd=(env OPENBLAS_CORETYPE="$BLAS_CORE" OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS="$THREADS"
                KILN_NUM_THREADS="$THREADS" TF_CPP_MIN_LOG_LEVEL=3 JAX_PLATFORMS=cpu)
  if [[ "$impl" == kiln ]]; then cmd+=("$BIN" --case "$c")
  elif [[ "$impl" == libtorch ]]; then cmd+=("$TORCH_BIN" --case "$c")
  else cmd+=("$PY" "$ROOT/bench/peers/peer.py" --impl "$impl" --case "$c"); fi
  local err="$OUT_DIR/$STAMP.$impl.$c.$r.$load.err"
  [[ "$load" -le 0 ]] || start_load
  line="$("${cmd[@]}" 2> "$err" | tail -n 1)" || rc=$?
  stop_load
  if [[ $rc -ne 0 || "$line" != \{* ]]; then
    echo "realsize.sh: $impl $c round $r FAILED (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')" >&2
    line="{\"impl\":\"$impl\",\"case\":\"$c\",\"error\":\"rc=$rc\"}"
  else
    rm -f "$err"
  fi
  echo "${line%\}},\"round\":$r,\"load\":$(( load > 0 ? load : 0 ))}" >> "$JSONL"
  echo "realsize.sh: $line" >&2
}

START=$(date +%s)
for c in "${CASES[@]}"; do
  for ((r = 1; r <= ROUNDS; r++)); do
    for impl in "${IMPLS[@]}"; do
      run_one "$impl" "$c" "$r" 0
      [[ "$LOAD" -le 0 ]] || run_one "$impl" "$c" "$r" "$LOAD"
    done
  done
done
ELAPSED=$(( $(date +%s) - START ))
CPU="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
if [[ "$LOAD" -gt 0 ]]; then
  python3 "$ROOT/bench/peers/contention_table.py" "$JSONL" "bench/realsize.sh $ARGS_TEXT" "$CPU, $(nproc) CPUs" \
    "$THREADS" "$LOAD" > "$OUT_DIR/$STAMP.md"
else
  python3 "$ROOT/bench/peers/table.py" "$JSONL" "bench/realsize.sh $ARGS_TEXT" "$CPU, $(nproc) CPUs" "$THREADS" \
    "$BLAS_CORE" "$ELAPSED" > "$OUT_DIR/$STAMP.md"
fi
cat "$OUT_DIR/$STAMP.md"
echo "realsize.sh: results in $OUT_DIR/$STAMP.md and .jsonl" >&2
