#!/usr/bin/env bash
# Kiln against libtorch, side by side. See bench/README.md.
#
#   bench/run.sh [--with-torch] [--rounds N] [--cases NAME...] [--no-build]
#
#   --with-torch   install libtorch-dev with apt-get when it is missing, and run the libtorch peer
#                  (without it the peer runs only if torch_bench is already built)
#   --rounds N     rounds per case (default 3); each round runs kiln, then libtorch, in fresh processes
#   --cases ...    a subset of: cnn_train cnn_infer bigcnn_train mlp_train cnn_b16 cnn_b64 cnn_b256 dispatch
#                  (space- or comma-separated; default all)
#   --no-build     use the binaries already in the build directory
#
# Builds kiln_bench (and torch_bench) in Release into $KILN_BUILD_DIR (default build-bench), runs every
# case alternately for Kiln and libtorch with the same threads, writes the raw JSON lines to
# <build>/bench-results/<time>.jsonl and prints a Markdown table (also saved as <time>.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build-bench}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
ALL_CASES=(cnn_train cnn_infer bigcnn_train mlp_train cnn_b16 cnn_b64 cnn_b256 dispatch)
THREADS="${BENCH_THREADS:-2}"

WITH_TORCH=0
ROUNDS=3
BUILD_IT=1
CASES=()
ARGS_TEXT="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with-torch) WITH_TORCH=1; shift ;;
    --rounds) ROUNDS="${2:?--rounds needs a number}"; shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --cases)
      shift
      while [[ $# -gt 0 && "$1" != --* ]]; do
        IFS=',' read -r -a parts <<< "$1"
        CASES+=("${parts[@]}")
        shift
      done ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ ${#CASES[@]} -eq 0 ]] && CASES=("${ALL_CASES[@]}")
for c in "${CASES[@]}"; do
  [[ " ${ALL_CASES[*]} " == *" $c "* ]] || { echo "run.sh: unknown case '$c' (known: ${ALL_CASES[*]})" >&2; exit 2; }
done
[[ "$ROUNDS" =~ ^[0-9]+$ && "$ROUNDS" -ge 1 ]] || { echo "run.sh: --rounds must be a positive integer" >&2; exit 2; }
[[ "$ROUNDS" -lt 3 ]] && echo "run.sh: note: $ROUNDS round(s); use at least 3 for reportable medians" >&2

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
torch_installed() { compgen -G "/usr/lib/*/cmake/Torch/TorchConfig.cmake" > /dev/null; }

if [[ $WITH_TORCH -eq 1 ]] && ! torch_installed; then
  echo "run.sh: installing libtorch-dev (large) ..." >&2
  as_root apt-get install -y libtorch-dev >&2 || { as_root apt-get update >&2 && as_root apt-get install -y libtorch-dev >&2; }
fi

if [[ $BUILD_IT -eq 1 ]]; then
  extra=()
  # A fresh build directory only needs the library and the benchmarks.
  [[ -f "$BUILD/CMakeCache.txt" ]] || extra=(-DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF)
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" > "$BUILD.cmake.log" 2>&1 ||
    { cat "$BUILD.cmake.log" >&2; exit 1; }
  rm -f "$BUILD.cmake.log"
  targets=(kiln_bench)
  if [[ $WITH_TORCH -eq 1 ]]; then
    grep -q '^Torch_DIR:PATH=.*NOTFOUND' "$BUILD/CMakeCache.txt" &&
      { echo "run.sh: libtorch-dev is installed but CMake did not find TorchConfig.cmake" >&2; exit 1; }
    targets+=(torch_bench)
  fi
  echo "run.sh: building ${targets[*]} in $BUILD (Release)" >&2
  cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" >&2
fi

KILN_BIN="$BUILD/bench/kiln_bench"
TORCH_BIN="$BUILD/bench/torch_bench"
[[ -x "$KILN_BIN" ]] || { echo "run.sh: $KILN_BIN is missing (build failed?)" >&2; exit 1; }
RUN_TORCH=0
if [[ -x "$TORCH_BIN" ]]; then RUN_TORCH=1
elif [[ $WITH_TORCH -eq 1 ]]; then echo "run.sh: $TORCH_BIN is missing" >&2; exit 1
else echo "run.sh: no torch_bench (use --with-torch); Kiln only" >&2; fi

OUT_DIR="$BUILD/bench-results"
mkdir -p "$OUT_DIR"
STAMP="$(date +%Y%m%d-%H%M%S)"
JSONL="$OUT_DIR/$STAMP.jsonl"
: > "$JSONL"

# The same thread count for both. Kiln parallelises through OpenBLAS; libtorch through OpenMP, and its best
# settings here keep OpenBLAS single-threaded and let idle OpenMP threads sleep (shared/peers/RESULTS.md).
# Both use the same OpenBLAS kernels: the set Kiln picks (kiln::blas_kernels(); Debian's OpenBLAS falls back
# to its SSE3 kernels on CPUs it does not know, and Kiln replaces them), unless OPENBLAS_CORETYPE says otherwise.
BLAS_CORE="${OPENBLAS_CORETYPE:-$("$KILN_BIN" --blas-kernels)}"
BLAS_ENV=()
[[ -n "$BLAS_CORE" ]] && BLAS_ENV=(OPENBLAS_CORETYPE="$BLAS_CORE")
run_one() {  # impl case round
  local impl="$1" c="$2" r="$3" line rc=0 t0 t1
  local -a env_args
  if [[ "$impl" == kiln ]]; then
    env_args=(env -u OMP_WAIT_POLICY "${BLAS_ENV[@]}" KILN_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS=1 "$KILN_BIN")
  else
    env_args=(env "${BLAS_ENV[@]}" OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE "$TORCH_BIN")
  fi
  t0=$(date +%s.%N)
  line="$("${env_args[@]}" --case "$c" 2> "$OUT_DIR/$STAMP.$impl.$c.$r.err" | tail -n 1)" || rc=$?
  t1=$(date +%s.%N)
  if [[ $rc -ne 0 || "$line" != \{* ]]; then
    echo "run.sh: $impl $c round $r FAILED (rc=$rc): $(tail -n 3 "$OUT_DIR/$STAMP.$impl.$c.$r.err" | tr '\n' ' ')" >&2
    line="{\"impl\":\"$impl\",\"case\":\"$c\",\"error\":\"rc=$rc\"}"
  else
    rm -f "$OUT_DIR/$STAMP.$impl.$c.$r.err"
  fi
  echo "${line%\}},\"round\":$r}" >> "$JSONL"
  printf 'run.sh: %-8s %-12s round %d  %5.1fs  %s\n' "$impl" "$c" "$r" "$(awk "BEGIN { print $t1 - $t0 }")" "$line" >&2
}

START=$(date +%s)
for c in "${CASES[@]}"; do
  for ((r = 1; r <= ROUNDS; r++)); do
    run_one kiln "$c" "$r"
    if [[ $RUN_TORCH -eq 1 ]]; then run_one libtorch "$c" "$r"; fi
  done
done
ELAPSED=$(( $(date +%s) - START ))

CPU="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
MD="$OUT_DIR/$STAMP.md"
python3 - "$JSONL" "$ROUNDS" "$THREADS" "$ELAPSED" "bench/run.sh $ARGS_TEXT" "$CPU" "$(nproc)" "${BLAS_CORE:-unknown}" > "$MD" <<'PY'
import json, statistics, sys

path, rounds, threads, elapsed, command, cpu, ncpu, blas_core = sys.argv[1:9]
rows = [json.loads(l) for l in open(path) if l.strip()]

CASES = {
    "cnn_train": "guide CNN, train, Fashion-MNIST epoch 60,000, batch 64",
    "cnn_infer": "guide CNN, inference, 10,000 test images, batch 1000",
    "bigcnn_train": "larger CNN (3 conv), train, 10,000 images, batch 128",
    "mlp_train": "MLP 784-512-512-10, train, 60,000 images, batch 128",
    "cnn_b16": "guide CNN, train, 12,800 images, batch 16",
    "cnn_b64": "guide CNN, train, 12,800 images, batch 64",
    "cnn_b256": "guide CNN, train, 12,800 images, batch 256",
    "dispatch": "power(x, 100): 100 chained 10x10 matmuls",
}
# figure -> (label, better direction or None for information only)
FIGURES = [
    ("samples_per_s", "samples/s", "higher"),
    ("us_per_op", "µs/op", "lower"),
    ("us_per_op_inference_mode", "µs/op, torch::InferenceMode", None),
    ("peak_rss_mb", "peak RSS MiB", "lower"),
    ("test_acc", "test accuracy after the epoch", None),
    ("accuracy", "accuracy (untrained model)", None),
    ("final_loss", "mean training loss", None),
]

def values(case, impl, key):
    return [r[key] for r in rows if r["case"] == case and r["impl"] == impl and key in r]

def fmt(x):
    if x == 0: return "0"
    a = abs(x)
    if a >= 1000: return f"{x:,.0f}"
    if a >= 100: return f"{x:.0f}"
    if a >= 10: return f"{x:.1f}"
    if a >= 1: return f"{x:.2f}"
    return f"{x:.3g}"

def cell(v):
    if not v: return "–"
    m = statistics.median(v)
    return fmt(m) if len(v) == 1 else f"{fmt(m)} [{fmt(min(v))}–{fmt(max(v))}]"

cases = [c for c in CASES if any(r["case"] == c for r in rows)]
have_torch = any(r["impl"] == "libtorch" for r in rows)
print(f"Command: `{command}`  ")
print(f"Machine: {cpu}, {ncpu} CPUs; {threads} threads each (Kiln: KILN_NUM_THREADS={threads} "
      f"OPENBLAS_NUM_THREADS=1; libtorch: OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS=1 "
      f"OMP_WAIT_POLICY=PASSIVE); OpenBLAS kernels {blas_core} for both  ")
print(f"Rounds: {rounds} per implementation and case, alternating; median [min–max]; "
      f"wall time of the runs {int(elapsed) // 60} min {int(elapsed) % 60} s.\n")
print("| case | figure | Kiln | libtorch | Kiln/libtorch | better |")
print("|---|---|---|---|---|---|")
for c in cases:
    errs = {r["impl"] for r in rows if r["case"] == c and "error" in r}
    first = True
    for key, label, better in FIGURES:
        k, t = values(c, "kiln", key), values(c, "libtorch", key)
        if not k and not t: continue
        ratio = "–"
        if k and t and better:
            tm = statistics.median(t)
            ratio = f"**{statistics.median(k) / tm:.2f}×**" if tm else "–"
        note = {"higher": "higher is better", "lower": "lower is better"}.get(better, "info")
        name = f"`{c}` {CASES[c]}" if first else ""
        first = False
        print(f"| {name} | {label} | {cell(k)} | {cell(t)} | {ratio} | {note} |")
    if errs:
        print(f"| `{c}` | FAILED runs | {'yes' if 'kiln' in errs else ''} | {'yes' if 'libtorch' in errs else ''} | | see .err files |")
print()
print("Kiln/libtorch is median(Kiln) / median(libtorch): for samples/s above 1 means Kiln is faster; for "
      "peak RSS and µs/op below 1 means Kiln is better. The machine is shared and noisy: differences "
      "under about 15% are not significant.")
if not have_torch:
    print("\n(libtorch was not run: bench/run.sh --with-torch)")
PY
cat "$MD"
echo >&2
echo "run.sh: raw results $JSONL, table $MD" >&2
