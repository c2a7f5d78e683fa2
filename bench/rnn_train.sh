#!/usr/bin/env bash
# Recurrent networks' training steps on the CPU: Kiln (`rnn_bench --model`) against
# Keras 3 on JAX (jit_compile) and PyTorch eager (bench/peers/rnn_peer.py), alternately,
# each run a fresh process, every implementation with the same number of threads.
#
#   bench/rnn_train.sh [--rounds N] [--steps N] [--cases NAME...] [--impls NAME...]
#
#   --cases   a subset of: language_id language_id_mask imdb (rnn_bench.cpp describes them)
#   --impls   a subset of: kiln keras_jax torch, and kiln_before: KILN_BEFORE_BIN, another build's rnn_bench
#             (a change's before and after in one run)
#
# KILN_BUILD_DIR (default build) holds bench/rnn_bench, built beforehand
# (`cmake --build build --target rnn_bench`). PEERS_PYTHON is a Python with keras and jax
# (default: <build>/peers-venv, else <build>/oracle-venv); TORCH_PYTHON one with torch
# (default: PEERS_PYTHON); bench/peers/setup_venv.sh makes a venv with both.
# Prints a Markdown table: the median ms per step of the rounds [min-max], and the
# fastest peer's time over Kiln's (above 1: Kiln is faster).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
THREADS="${BENCH_THREADS:-2}"
ROUNDS=3
STEPS=30
CASES=()
IMPLS=()
ARGS_TEXT="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="${2:?}"; shift 2 ;;
    --steps) STEPS="${2:?}"; shift 2 ;;
    --cases|--impls)
      which="$1"
      shift
      while [[ $# -gt 0 && "$1" != --* ]]; do
        if [[ "$which" == --cases ]]; then CASES+=("$1"); else IMPLS+=("$1"); fi
        shift
      done ;;
    *) echo "rnn_train.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ ${#CASES[@]} -gt 0 ]] || CASES=(language_id language_id_mask imdb)
[[ ${#IMPLS[@]} -gt 0 ]] || IMPLS=(kiln keras_jax torch)
if [[ -z "${PEERS_PYTHON:-}" ]]; then
  PEERS_PYTHON="$BUILD/peers-venv/bin/python"
  [[ -x "$PEERS_PYTHON" ]] || PEERS_PYTHON="$BUILD/oracle-venv/bin/python"
fi
TORCH_PYTHON="${TORCH_PYTHON:-$PEERS_PYTHON}"
BIN="$BUILD/bench/rnn_bench"

export KILN_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS"
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
for round in $(seq "$ROUNDS"); do
  for case in "${CASES[@]}"; do
    for impl in "${IMPLS[@]}"; do
      case "$impl" in
        kiln) "$BIN" --model "$case" --steps "$STEPS" >>"$OUT" ;;
        kiln_before) "${KILN_BEFORE_BIN:?kiln_before needs KILN_BEFORE_BIN}" --model "$case" --steps "$STEPS" |
                       sed 's/"impl": "kiln"/"impl": "kiln_before"/' >>"$OUT" ;;
        keras_jax) "$PEERS_PYTHON" "$ROOT/bench/peers/rnn_peer.py" --impl keras_jax --case "$case" --steps "$STEPS" \
                     --threads "$THREADS" 2>/dev/null | tail -n 1 >>"$OUT" ;;
        torch) "$TORCH_PYTHON" "$ROOT/bench/peers/rnn_peer.py" --impl torch --case "$case" --steps "$STEPS" \
                 --threads "$THREADS" 2>/dev/null | tail -n 1 >>"$OUT" ;;
      esac
      echo "round $round: $(tail -n 1 "$OUT")" >&2
    done
  done
done

python3 - "$OUT" "bench/rnn_train.sh $ARGS_TEXT" "$THREADS" <<'EOF'
import json, statistics, sys
path, command, threads = sys.argv[1:4]
rows = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
impls = [i for i in ["kiln", "kiln_before", "keras_jax", "torch"] if any(r["impl"] == i for r in rows)]
label = {"kiln": "Kiln", "kiln_before": "Kiln before", "keras_jax": "Keras 3 / JAX (jit)", "torch": "PyTorch eager"}
versions = sorted({r["version"] for r in rows if "version" in r})
print(f"Command: `{command}`, {threads} threads each; peers: {'; '.join(versions)}\n")
print("| case | " + " | ".join(label[i] + " ms/step" for i in impls) + " | fastest peer / Kiln |")
print("|---" * (len(impls) + 2) + "|")
for case in dict.fromkeys(r["case"] for r in rows):
    med, cells = {}, []
    for i in impls:
        ms = [r["ms_per_step"] for r in rows if r["case"] == case and r["impl"] == i]
        if ms:
            med[i] = statistics.median(ms)
            cells.append(f"{med[i]:.1f} [{min(ms):.1f}–{max(ms):.1f}]")
        else:
            cells.append("–")
    peers = [v for i, v in med.items() if i not in ("kiln", "kiln_before")]
    ratio = f"{min(peers) / med['kiln']:.2f}" if peers and "kiln" in med else "–"
    print(f"| {case} | " + " | ".join(cells) + f" | {ratio} |")
EOF
