#!/usr/bin/env bash
# Kiln on CUDA against PyTorch eager on the same GPU. See bench/README.md, "GPU mode".
#
#   bench/run_gpu.sh [--rounds N] [--cases NAME...] [--data DIR]
#
#   --rounds N     rounds per case (default 3); each round runs kiln, then pytorch, in fresh processes
#   --cases ...    a subset of: gpu_cnn_train_b64 gpu_cnn_train_b512 gpu_cnn_infer gpu_cnn_train_b64_jit
#                  gpu_cnn_train_b512_jit gpu_cnn_infer_jit, and the _jit cases with _nographs appended,
#                  gpu_cnn_infer_resident (Kiln only: the test images already on the GPU);
#                  gpu_resnet_train gpu_resnet_infer gpu_lstm_train gpu_lstm_mask_train (default all).
#                  The _jit cases are Kiln's compiled steps, whose GPU
#                  work is captured as CUDA Graphs; _nographs runs the same with KILN_CUDA_GRAPHS=0. Both
#                  are Kiln only, and compare with the PyTorch columns of their eager case.
#                  The model cases: the ResNet-style CNN of bench/realsize.sh at batch 128 (realsize_bench
#                  --device cuda against bench/peers/peer.py: PyTorch eager, eager with bf16 autocast, and
#                  torch.compile), and the language-ID network, Embedding -> Bidirectional(LSTM(128)) ->
#                  Dense, batch 128 (rnn_bench --model language_id[_mask] --device cuda against
#                  bench/peers/rnn_peer.py, PyTorch's cuDNN LSTM).
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
           gpu_cnn_infer_jit gpu_cnn_train_b64_jit_nographs gpu_cnn_train_b512_jit_nographs gpu_cnn_infer_jit_nographs
           gpu_cnn_infer_resident gpu_resnet_train gpu_resnet_infer gpu_lstm_train gpu_lstm_mask_train)
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
PEER_PY="$ROOT/bench/peers/peer.py"
RNN_PEER_PY="$ROOT/bench/peers/rnn_peer.py"
LSTM_STEPS=100
if [[ ! -x "$KILN_BIN" ]]; then
  echo "run_gpu.sh: $KILN_BIN is missing; building kiln_bench in $BUILD" >&2
  if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKILN_CUDA=ON \
      -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF >&2
  fi
  cmake --build "$BUILD" -j "$(nproc)" --target kiln_bench realsize_bench rnn_bench >&2
fi
[[ -x "$KILN_BIN" ]] || { echo "run_gpu.sh: $KILN_BIN is missing (build failed?)" >&2; exit 1; }

OUT_DIR="$BUILD/bench-results"
mkdir -p "$OUT_DIR"
STAMP="gpu-$(date +%Y%m%d-%H%M%S)"
JSONL="$OUT_DIR/$STAMP.jsonl"
: > "$JSONL"

# The implementations each case runs, Kiln first.
impls_of() {
  case "$1" in
    *_jit*|*_nographs|*_resident) echo kiln ;;
    gpu_cnn_*) echo kiln pytorch pytorch_graphs ;;
    gpu_resnet_*) echo kiln pytorch pytorch_amp pytorch_compile ;;
    gpu_lstm_*) echo kiln pytorch ;;
  esac
}

run_one() {  # impl case round
  local impl="$1" c="$2" r="$3" line rc=0 t0 t1 err model
  local -a cmd
  if [[ "$c" == gpu_resnet_* ]]; then
    model="${c#gpu_}"
    case "$impl" in
      kiln) cmd=("$BUILD/bench/realsize_bench" --device cuda --case "$model") ;;
      pytorch) cmd=("$PYTHON" "$PEER_PY" --impl torch --device cuda --case "$model") ;;
      pytorch_amp) cmd=("$PYTHON" "$PEER_PY" --impl torch --device cuda --amp bf16 --case "$model") ;;
      pytorch_compile) cmd=("$PYTHON" "$PEER_PY" --impl torch_compile --device cuda --case "$model") ;;
    esac
  elif [[ "$c" == gpu_lstm_* ]]; then
    model="language_id"
    [[ "$c" == *_mask_* ]] && model="language_id_mask"
    if [[ "$impl" == kiln ]]; then cmd=("$BUILD/bench/rnn_bench" --model "$model" --device cuda --steps "$LSTM_STEPS")
    else cmd=("$PYTHON" "$RNN_PEER_PY" --impl torch --case "$model" --device cuda --steps "$LSTM_STEPS"); fi
  elif [[ "$impl" == kiln && "$c" == *_nographs ]]; then
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
  # Every line carries the runner's case name (the model benchmarks print their own).
  line="$(printf '%s' "$line" | "$PYTHON" -c 'import json, sys
r = json.loads(sys.stdin.read()); r["case"] = sys.argv[1]; r["impl"] = sys.argv[2]; print(json.dumps(r))' "$c" "$impl")"
  echo "${line%\}},\"round\":$r}" >> "$JSONL"
  printf 'run_gpu.sh: %-8s %-18s round %d  %5.1fs  %s\n' "$impl" "$c" "$r" "$(awk "BEGIN { print $t1 - $t0 }")" "$line" >&2
}

START=$(date +%s)
for c in "${CASES[@]}"; do
  for ((r = 1; r <= ROUNDS; r++)); do
    for impl in $(impls_of "$c"); do run_one "$impl" "$c" "$r"; done
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
    "gpu_cnn_infer_resident": "inference on test images already on the GPU (no uploads); compare with the eager row",
}
MODEL_CASES = {
    "gpu_resnet_train": "ResNet-style CNN (bench/realsize.sh), 32x32x3, train, batch 128, 40 steps",
    "gpu_resnet_infer": "ResNet-style CNN, inference, batch 128, 80 batches",
    "gpu_lstm_train": "Embedding(61, 32) -> Bidirectional(LSTM(128)) -> Dense(7), length 16, train, batch 128",
    "gpu_lstm_mask_train": "the same with mask_zero / packed sequences of 2 to 16 steps",
}
MODEL_PEERS = [("pytorch", "PyTorch eager"), ("pytorch_amp", "PyTorch eager, bf16 autocast"),
               ("pytorch_compile", "torch.compile")]
# Kiln-only cases take the PyTorch columns of the case they vary.
def peer_case(c):
    return c.replace("_nographs", "").replace("_jit", "").replace("_resident", "")
# figure -> (label, better direction or None for information only)
FIGURES = [
    ("samples_per_s", "samples/s", "higher"),
    ("seconds", "seconds (epoch / pass)", "lower"),
    ("peak_rss_mb", "peak host RSS MiB", "lower"),
    ("test_acc", "test accuracy after the epoch", None),
    ("accuracy", "accuracy (untrained model)", None),
    ("final_loss", "mean training loss", None),
    ("ms_per_step", "ms per training step", "lower"),
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
model_rows = [c for c in MODEL_CASES if any(r["case"] == c for r in rows)]
if model_rows:
    print()
    print("| case | figure | Kiln | " + " | ".join(label for _, label in MODEL_PEERS) + " | " +
          " | ".join(f"Kiln / {label}" for _, label in MODEL_PEERS) + " | better |")
    print("|---" * (3 + 2 * len(MODEL_PEERS) + 1) + "|")
for c in model_rows:
    first = True
    for key, label, better in FIGURES:
        k = values(c, "kiln", key)
        peers = [values(c, impl, key) for impl, _ in MODEL_PEERS]
        if not k and not any(peers): continue
        def ratio(peer):
            if k and peer and better and statistics.median(peer):
                return f"**{statistics.median(k) / statistics.median(peer):.2f}×**"
            return "–"
        note = {"higher": "higher is better", "lower": "lower is better"}.get(better, "info")
        print(f"| {f'`{c}` {MODEL_CASES[c]}' if first else ''} | {label} | {cell(k)} | " +
              " | ".join(cell(p) for p in peers) + " | " + " | ".join(ratio(p) for p in peers) + f" | {note} |")
        first = False
    for impl in ["kiln"] + [i for i, _ in MODEL_PEERS]:
        skips = sorted({r["skipped"] for r in rows if r["case"] == c and r["impl"] == impl and "skipped" in r})
        errs = [r for r in rows if r["case"] == c and r["impl"] == impl and "error" in r]
        if skips: print(f"| `{c}` | {impl} SKIPPED | {'; '.join(skips)} |" + " |" * (2 * len(MODEL_PEERS) + 1))
        if errs: print(f"| `{c}` | {impl} FAILED runs | {len(errs)} |" + " |" * (2 * len(MODEL_PEERS)) + " see .err files |")
print()
print("Kiln/eager and Kiln/graphs are median(Kiln) / median(peer): for samples/s above 1 means Kiln is faster; "
      "for seconds and RSS below 1 means Kiln is better. PyTorch CUDA Graphs trains on whole batches only (the "
      "epoch's last partial batch is dropped). Only ratios from one run on one device can be compared.")
PY
cat "$MD"
echo >&2
echo "run_gpu.sh: raw results $JSONL, table $MD" >&2
