#!/usr/bin/env bash
# int8 inference against float32: Kiln (model.quantize("int8")), PyTorch eager
# (quantize_dynamic) and Keras 3 on JAX (model.quantize("int8")), one after the
# other on the same machine, on an MLP (784-512-512-10) and a transformer encoder
# block (batch 32, sequence 128, width 256). Prints a Markdown table: each
# peer's int8 time and its speed-up over its own float32, and the MNIST MLP's
# accuracy in Kiln before and after quantization.
#
#   bench/quantize_bench.sh [BUILD_DIR] [REPS] [MLP_BATCH] [BLOCK_BATCH]
# The peers come from bench/peers/setup_venv.sh BUILD_DIR/peers-venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
REPS="${2:-30}"
MLP_BATCH="${3:-128}"
BLOCK_BATCH="${4:-32}"
THREADS="${BENCH_THREADS:-$(nproc)}"
PY="$BUILD/peers-venv/bin/python"
[ -x "$PY" ] || { echo "no venv at $BUILD/peers-venv: run bench/peers/setup_venv.sh $BUILD/peers-venv" >&2; exit 1; }
cmake --build "$BUILD" --target quantize_bench -j "$(nproc)" >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export KILN_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS"
"$BUILD/bench/quantize_bench" "$REPS" "$MLP_BATCH" "$BLOCK_BATCH" > "$WORK/all.jsonl"
"$PY" "$ROOT/bench/peers/quantize_peer.py" torch "$REPS" "$MLP_BATCH" "$BLOCK_BATCH" "$THREADS" >> "$WORK/all.jsonl"
XLA_FLAGS="--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=$THREADS" KERAS_BACKEND=jax \
  "$PY" "$ROOT/bench/peers/quantize_peer.py" keras "$REPS" "$MLP_BATCH" "$BLOCK_BATCH" "$THREADS" \
  2> >(grep -v "^WARNING\|^I0000\|cpu_feature_guard\|^To enable" >&2) >> "$WORK/all.jsonl"
"$PY" - "$WORK/all.jsonl" "$THREADS" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ms = {(r["peer"], r["model"], r["dtype"]): r for r in rows}
print("int8 inference, %s threads, median ms per call\n" % sys.argv[2])
print("| model | batch | peer | float32 ms | int8 ms | int8 speed-up over own float32 | this peer's int8 ms / Kiln's |")
print("|---|---|---|---|---|---|---|")
for model in ("mlp", "encoder_block"):
    kiln = ms[("kiln", model, "int8")]["ms"]
    for peer in ("kiln", "pytorch", "keras_jax"):
        f, q = ms[(peer, model, "float32")], ms[(peer, model, "int8")]
        print("| %s | %d | %s | %.3f | %.3f | %.2fx | %.2fx |" % (
            model, f["batch"], peer, f["ms"], q["ms"], f["ms"] / q["ms"], q["ms"] / kiln))
f, q = ms[("kiln", "mlp", "float32")], ms[("kiln", "mlp", "int8")]
print("\nMNIST MLP (5 epochs on the shipped digits), Kiln test accuracy: float32 %.4f, int8 %.4f (change %+.2f points)"
      % (f["accuracy"], q["accuracy"], 100 * (q["accuracy"] - f["accuracy"])))
PYEOF
