#!/usr/bin/env bash
# int8 inference against float32: Kiln (model.quantize("int8")), PyTorch eager
# (quantize_dynamic) and Keras 3 on JAX (model.quantize("int8")), one after the
# other on the same machine, on an MLP (784-512-512-10) and a transformer encoder
# block (batch 32, sequence 128, width 256). Prints a Markdown table: each
# peer's int8 time and its speed-up over its own float32, and the MNIST MLP's
# accuracy in Kiln before and after quantization.
#
#   bench/quantize_bench.sh [BUILD_DIR] [REPS] [MLP_BATCH] [BLOCK_BATCH]
# BENCH_ROUNDS (3) rounds of all three peers; BENCH_THREADS (all cores) threads each.
# The peers come from bench/peers/setup_venv.sh BUILD_DIR/peers-venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
REPS="${2:-30}"
MLP_BATCH="${3:-128}"
BLOCK_BATCH="${4:-32}"
THREADS="${BENCH_THREADS:-$(nproc)}"
ROUNDS="${BENCH_ROUNDS:-3}"
PY="$BUILD/peers-venv/bin/python"
[ -x "$PY" ] || { echo "no venv at $BUILD/peers-venv: run bench/peers/setup_venv.sh $BUILD/peers-venv" >&2; exit 1; }
cmake --build "$BUILD" --target quantize_bench -j "$(nproc)" >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export KILN_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS"
# Each round runs the three peers one after the other; the table gives the median over rounds, and the
# range of each ratio, so that one slow stretch of a shared machine shows as a range, not as the result.
for round in $(seq 1 "$ROUNDS"); do
  "$BUILD/bench/quantize_bench" "$REPS" "$MLP_BATCH" "$BLOCK_BATCH" > "$WORK/kiln.jsonl"
  "$PY" "$ROOT/bench/peers/quantize_peer.py" torch "$REPS" "$MLP_BATCH" "$BLOCK_BATCH" "$THREADS" > "$WORK/torch.jsonl"
  XLA_FLAGS="--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=$THREADS" KERAS_BACKEND=jax \
    "$PY" "$ROOT/bench/peers/quantize_peer.py" keras "$REPS" "$MLP_BATCH" "$BLOCK_BATCH" "$THREADS" \
    2> >(grep -v "^WARNING\|^I0000\|cpu_feature_guard\|^To enable" >&2) > "$WORK/keras.jsonl"
  cat "$WORK/kiln.jsonl" "$WORK/torch.jsonl" "$WORK/keras.jsonl" | sed "s/^{/{\"round\": $round, /" >> "$WORK/all.jsonl"
done
"$PY" - "$WORK/all.jsonl" "$THREADS" "$ROUNDS" <<'PYEOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rounds = sorted({r["round"] for r in rows})
ms = {(r["round"], r["peer"], r["model"], r["dtype"]): r for r in rows}

def spread(values, fmt="%.2fx"):
    """The median of values, with their range when there are several."""
    med = fmt % statistics.median(values)
    return med if len(values) == 1 else "%s [%s-%s]" % (med, fmt % min(values), fmt % max(values))

print("int8 inference, %s threads, median ms per call (float32 and int8 called in turn), %s round(s): "
      "median over rounds [range]\n" % (sys.argv[2], sys.argv[3]))
print("| model | batch | peer | float32 ms | int8 ms | int8 speed-up over own float32 | this peer's int8 ms / Kiln's |")
print("|---|---|---|---|---|---|---|")
for model in ("mlp", "encoder_block"):
    for peer in ("kiln", "pytorch", "keras_jax"):
        f = [ms[(r, peer, model, "float32")]["ms"] for r in rounds]
        q = [ms[(r, peer, model, "int8")]["ms"] for r in rounds]
        kiln = [ms[(r, "kiln", model, "int8")]["ms"] for r in rounds]
        print("| %s | %d | %s | %s | %s | %s | %s |" % (
            model, ms[(rounds[0], peer, model, "float32")]["batch"], peer, spread(f, "%.3f"), spread(q, "%.3f"),
            spread([a / b for a, b in zip(f, q)]), spread([a / b for a, b in zip(q, kiln)])))
f, q = ms[(rounds[0], "kiln", "mlp", "float32")], ms[(rounds[0], "kiln", "mlp", "int8")]
print("\nMNIST MLP (5 epochs on the shipped digits), Kiln test accuracy: float32 %.4f, int8 %.4f (change %+.2f points)"
      % (f["accuracy"], q["accuracy"], 100 * (q["accuracy"] - f["accuracy"])))
PYEOF
