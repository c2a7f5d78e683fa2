#!/usr/bin/env bash
# Speed when the cores are shared: each implementation runs every case quiet and
# then beside a competing CPU load (N busy processes, default one per core),
# alternating, in fresh processes; the table gives each one's loaded/quiet
# slowdown and Kiln's slowdown against the peers'.
#
#   bench/contention.sh [--rounds N] [--load N] [--cases NAME...] [--impls NAME...]
#
#   --rounds N   rounds (default 2); each round runs every implementation quiet, then loaded
#   --load N     busy processes beside each loaded run (default: nproc)
#   --cases      cases of bench/realsize_bench (default bigcnn_train resnet_infer)
#   --impls      kiln and peers of bench/peers/peer.py (default kiln keras_jax, plus torch
#                when the peers' venv has it)
#
# Uses the build of bench/realsize.sh ($KILN_BUILD_DIR, default build-bench; build it with
# `bench/realsize.sh --rounds 0` or `cmake --build <build> --target realsize_bench`) and the
# peers' venv there, or $PEERS_PYTHON.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build-bench}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
THREADS="${BENCH_THREADS:-2}"
ROUNDS=2
LOAD="$(nproc)"
CASES=()
IMPLS=()
ARGS_TEXT="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="${2:?--rounds needs a number}"; shift 2 ;;
    --load) LOAD="${2:?--load needs a number}"; shift 2 ;;
    --cases|--impls)
      which="$1"; shift
      while [[ $# -gt 0 && "$1" != --* ]]; do
        IFS=',' read -r -a parts <<< "$1"
        if [[ "$which" == --cases ]]; then CASES+=("${parts[@]}"); else IMPLS+=("${parts[@]}"); fi
        shift
      done ;;
    *) echo "contention.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ ${#CASES[@]} -gt 0 ]] || CASES=(bigcnn_train resnet_infer)
BIN="$BUILD/bench/realsize_bench"
PY="${PEERS_PYTHON:-$BUILD/peers-venv/bin/python}"
[[ -x "$BIN" ]] || { echo "contention.sh: no $BIN (see the usage above)" >&2; exit 1; }
if [[ ${#IMPLS[@]} -eq 0 ]]; then
  IMPLS=(kiln keras_jax)
  "$PY" -c "import torch" 2>/dev/null && IMPLS+=(torch)
fi

OUT_DIR="$BUILD/bench-results"
mkdir -p "$OUT_DIR"
STAMP="contention-$(date +%Y%m%d-%H%M%S)"
JSONL="$OUT_DIR/$STAMP.jsonl"
: > "$JSONL"

BUSY=()
start_load() {
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
  local -a cmd=(env OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS="$THREADS" KILN_NUM_THREADS="$THREADS"
                TF_CPP_MIN_LOG_LEVEL=3 JAX_PLATFORMS=cpu)
  if [[ "$impl" == kiln ]]; then cmd+=("$BIN" --case "$c")
  else cmd+=("$PY" "$ROOT/bench/peers/peer.py" --impl "$impl" --case "$c"); fi
  [[ "$load" -eq 0 ]] || start_load
  line="$("${cmd[@]}" 2> "$OUT_DIR/$STAMP.err" | tail -n 1)" || rc=$?
  stop_load
  if [[ $rc -ne 0 || "$line" != \{* ]]; then
    echo "contention.sh: $impl $c round $r load $load FAILED (rc=$rc): $(tail -n 3 "$OUT_DIR/$STAMP.err" | tr '\n' ' ')" >&2
    line="{\"impl\":\"$impl\",\"case\":\"$c\",\"error\":\"rc=$rc\"}"
  fi
  echo "${line%\}},\"round\":$r,\"load\":$load}" >> "$JSONL"
  echo "contention.sh: load $load: $line" >&2
}

for c in "${CASES[@]}"; do
  for ((r = 1; r <= ROUNDS; r++)); do
    for impl in "${IMPLS[@]}"; do
      run_one "$impl" "$c" "$r" 0
      run_one "$impl" "$c" "$r" "$LOAD"
    done
  done
done
rm -f "$OUT_DIR/$STAMP.err"
CPU="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
python3 "$ROOT/bench/peers/contention_table.py" "$JSONL" "bench/contention.sh $ARGS_TEXT" "$CPU, $(nproc) CPUs" \
  "$THREADS" "$LOAD" > "$OUT_DIR/$STAMP.md"
cat "$OUT_DIR/$STAMP.md"
echo "contention.sh: results in $OUT_DIR/$STAMP.md and .jsonl" >&2
