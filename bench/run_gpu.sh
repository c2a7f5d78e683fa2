#!/usr/bin/env bash
# Kiln on CUDA against PyTorch eager on the same GPU. See bench/README.md, "GPU mode".
#
#   bench/run_gpu.sh [--rounds N] [--cases NAME...] [--data DIR]
#
#   --rounds N     rounds per case (default 3); each round runs kiln, then pytorch, in fresh processes
#   --cases ...    a subset of: gpu_cnn_train_b64 gpu_cnn_train_b512 gpu_cnn_infer gpu_cnn_train_b64_jit
#                  gpu_cnn_train_b512_jit gpu_cnn_infer_jit, and the _jit cases with _nographs appended
#                  (default all). The _jit cases are Kiln's compiled steps, whose GPU
#                  work is captured as CUDA Graphs; _nographs runs the same with KILN_CUDA_GRAPHS=0. Both
#                  are Kiln only, and compare with the PyTorch columns of their eager case.
#   --data DIR     Fashion-MNIST IDX .gz files (default /usr/share/datasets/fashion-mnist)
#
# Uses the build in $KILN_BUILD_DIR (default build/); builds the kiln_bench target there if it is missing
# (configuring a fresh build directory with -DKILN_CUDA=ON, Release). Needs a GPU (the device machine);
# without one every run reports "skipped" and the table says so. Raw JSON lines go to
# <build>/bench-results/gpu-<time>.jsonl, the Markdown table to gpu-<time>.md and stdout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
ALL_CASES=(gpu_cnn_train_b64 gpu_cnn_train_b512 gpu_cnn_infer gpu_cnn_train_b64_jit gpu_cnn_train_b512_jit
           gpu_cnn_infer_jit gpu_cnn_train_b64_jit_nographs gpu_cnn_train_b512_jit_nographs gpu_cnn_infer_jit_nographs)
PYTHON="${PYTHON:-python3}"

ROUNDS=3
CASES=()
DATA_ARGS=()
ARGS_TEXT="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="${2:?--rounds needs a number}"; shift 2 ;;
    --data) DATA_ARGS=(--data "${2:?--data needs a directory}"); shift 2 ;;
    --cases)
      shift
      while [[ $# -gt 0 && "$1" != --* ]]; do
        IFS=',' read -r -a parts <<< "$1"
        CASES+=("${parts[@]}")
        shift
      done ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_gpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ ${#CASES[@]} -eq 0 ]] && CASES=("${ALL_CASES[@]}")
for c in "${CASES[@]}"; do
  [[ " ${ALL_CASES[*]} " == *" $c "* ]] || { echo "run_gpu.sh: unknown case '$c' (known: ${ALL_CASES[*]})" >&2; exit 2; }
done
[[ "$ROUNDS" =~ ^[0-9]+$ && "$ROUNDS" -ge 1 ]] || { echo "run_gpu.sh: --rounds must be a positive integer" >&2; exit 2; }
[[ "$ROUNDS" -lt 3 ]] && echo "run_gpu.sh: note: $ROUNDS round(s); use at least 3 for reportable medians" >&2

KILN_BIN="$BUILD/bench/kiln_bench"
TORCH_PY="$ROOT/bench/torch_gpu_bench.py"
if [[ ! -x "$KILN_BIN" ]]; then
  echo "run_gpu.sh: $KILN_BIN is missing; building kiln_bench in $BUILD" >&2
  if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON \
      -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF >&2
  fi
  cmake --build "$BUILD" -j "$(nproc)" --target kiln_bench >&2
fi
[[ -x "$KILN_BIN" ]] || { echo "run_gpu.sh: $KILN_BIN is missing (build failed?)" >&2; exit 1; }

OUT_DIR="$BUILD/bench-results"
mkdir -p "$OUT_DIR"
STAMP="gpu-$(date +%Y%m%d-%H%M%S)"
JSONL="$OUT_DIR/$STAMP.jsonl"
: > "$JSONL"

run_one() {  # impl case round
  local impl="$1" c="$2" r="$3" line rc=0 t0 t1 err
  local -a cmd
  if [[ "$impl" == kiln && "$c" == *_nographs ]]; then
    cmd=(env KILN_CUDA_GRAPHS=0 "$KILN_BIN" --device cuda --case "${c%_nographs}" "${DATA_ARGS[@]}")
  elif [[ "$impl" == kiln ]]; then cmd=("$KILN_BIN" --device cuda --case "$c" "${DATA_ARGS[@]}")
  elif [[ "$impl" == pytorch_graphs ]]; then cmd=("$PYTHON" "$TORCH_PY" --graphs --case "$c" "${DATA_ARGS[@]}")
  else cmd=("$PYTHON" "$TORCH_PY" --case "$c" "${DATA_ARGS[@]}"); fi
  err="$OUT_DIR/$STAMP.$impl.$c.$r.err"
  t0=$(date +%s.%N)
  line="$("${cmd[@]}" 2> "$err" | tail -n 1)" || rc=$?
  t1=$(date +%s.%N)
  if [[ $rc -ne 0 || "$line" != \{* ]]; then
    echo "run_gpu.sh: $impl $c round $r FAILED (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')" >&2
    line="{\"impl\":\"$impl\",\"case\":\"$c\",\"error\":\"rc=$rc\"}"
  else
    rm -f "$err"
  fi
  [[ "$c" == *_nographs ]] && line="${line/\"case\":\"${c%_nographs}\"/\"case\":\"$c\"}"
  echo "${line%\}},\"round\":$r}" >> "$JSONL"
  printf 'run_gpu.sh: %-8s %-18s round %d  %5.1fs  %s\n' "$impl" "$c" "$r" "$(awk "BEGIN { print $t1 - $t0 }")" "$line" >&2
}

START=$(date +%s)
for c in "${CASES[@]}"; do
  for ((r = 1; r <= ROUNDS; r++)); do
    run_one kiln "$c" "$r"
    [[ "$c" == *_jit* || "$c" == *_nographs ]] || run_one pytorch "$c" "$r"
    [[ "$c" == *_jit* || "$c" == *_nographs ]] || run_one pytorch_graphs "$c" "$r"
  done
done
ELAPSED=$(( $(date +%s) - START ))

GPU="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)"
MD="$OUT_DIR/$STAMP.md"
"$PYTHON" - "$JSONL" "$ROUNDS" "$ELAPSED" "bench/run_gpu.sh $ARGS_TEXT" "${GPU:-no GPU found}" > "$MD" <<'PY'
import json, statistics, sys

path, rounds, elapsed, command, gpu = sys.argv[1:6]
rows = [json.loads(l) for l in open(path) if l.strip()]
CASES = {
    "gpu_cnn_train_b64": "guide CNN, train, Fashion-MNIST epoch 60,000, batch 64",
    "gpu_cnn_train_b512": "guide CNN, train, Fashion-MNIST epoch 60,000, batch 512",
    "gpu_cnn_infer": "guide CNN, inference, 10,000 test images, batch 1000",
    "gpu_cnn_train_b64_jit": "the b64 epoch with Kiln's compiled steps (jit_compile); compare with the eager row",
    "gpu_cnn_train_b512_jit": "the b512 epoch with Kiln's compiled steps (jit_compile); compare with the eager row",
    "gpu_cnn_train_b64_jit_nographs": "the b64 compiled epoch without CUDA Graphs (KILN_CUDA_GRAPHS=0)",
    "gpu_cnn_train_b512_jit_nographs": "the b512 compiled epoch without CUDA Graphs (KILN_CUDA_GRAPHS=0)",
    "gpu_cnn_infer_jit": "inference with Kiln's compiled predict_step; compare with the eager row",
    "gpu_cnn_infer_jit_nographs": "compiled inference without CUDA Graphs (KILN_CUDA_GRAPHS=0)",
}
# Kiln-only cases take the PyTorch columns of the case they vary.
def peer_case(c):
    return c.replace("_nographs", "").replace("_jit", "")
# figure -> (label, better direction or None for information only)
FIGURES = [
    ("samples_per_s", "samples/s", "higher"),
    ("seconds", "seconds (epoch / pass)", "lower"),
    ("peak_rss_mb", "peak host RSS MiB", "lower"),
    ("test_acc", "test accuracy after the epoch", None),
    ("accuracy", "accuracy (untrained model)", None),
    ("final_loss", "mean training loss", None),
]

def values(case, impl, key):
    return [r[key] for r in rows if r["case"] == case and r["impl"] == impl and key in r]

def fmt(x):
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

devices = sorted({f'{r["impl"]}: {r["device"]}' for r in rows if "device" in r})
versions = sorted({r["torch"] for r in rows if "torch" in r})
print(f"Command: `{command}`  ")
print(f"GPU (nvidia-smi): {gpu}; as reported: {'; '.join(devices) or '–'}; PyTorch {', '.join(versions) or '–'}  ")
print(f"Rounds: {rounds} per implementation and case, alternating; median [min–max]; "
      f"wall time of the runs {int(elapsed) // 60} min {int(elapsed) % 60} s.\n")
print("| case | figure | Kiln | PyTorch eager | PyTorch CUDA Graphs | Kiln/eager | Kiln/graphs | better |")
print("|---|---|---|---|---|---|---|---|")
for c in [c for c in CASES if any(r["case"] == c for r in rows)]:
    first = True
    for key, label, better in FIGURES:
        k, t, tg = values(c, "kiln", key), values(peer_case(c), "pytorch", key), values(peer_case(c), "pytorch_graphs", key)
        if not k and not t and not tg: continue
        def ratio(peer):
            if k and peer and better and statistics.median(peer):
                return f"**{statistics.median(k) / statistics.median(peer):.2f}×**"
            return "–"
        note = {"higher": "higher is better", "lower": "lower is better"}.get(better, "info")
        print(f"| {f'`{c}` {CASES[c]}' if first else ''} | {label} | {cell(k)} | {cell(t)} | {cell(tg)} | "
              f"{ratio(t)} | {ratio(tg)} | {note} |")
        first = False
    for impl in ("kiln", "pytorch", "pytorch_graphs"):
        skips = sorted({r["skipped"] for r in rows if r["case"] == c and r["impl"] == impl and "skipped" in r})
        errs = [r for r in rows if r["case"] == c and r["impl"] == impl and "error" in r]
        if skips: print(f"| `{c}` | {impl} SKIPPED | {'; '.join(skips)} | | | | | |")
        if errs: print(f"| `{c}` | {impl} FAILED runs | {len(errs)} | | | | | see .err files |")
print()
print("Kiln/eager and Kiln/graphs are median(Kiln) / median(peer): for samples/s above 1 means Kiln is faster; "
      "for seconds and RSS below 1 means Kiln is better. PyTorch CUDA Graphs trains on whole batches only (the "
      "epoch's last partial batch is dropped). Only ratios from one run on one device can be compared.")
PY
cat "$MD"
echo >&2
echo "run_gpu.sh: raw results $JSONL, table $MD" >&2
