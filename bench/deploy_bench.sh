#!/usr/bin/env bash
# The guide's CNN deployed: Kiln's own inference, the same model reloaded
# from a SavedModel (Kiln's ONNX runner), and ONNX Runtime on the exported
# file, with the same threads, in one run. Prints a Markdown table with each
# time as a ratio to ONNX Runtime's.
#
#   bench/deploy_bench.sh [BUILD_DIR] [BATCH] [REPS]
# ONNX Runtime comes from the Keras oracle's venv (tests/oracle/setup_venv.sh BUILD_DIR).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
BATCH="${2:-64}"
REPS="${3:-50}"
THREADS="${BENCH_THREADS:-2}"
PY="$BUILD/oracle-venv/bin/python"
[ -x "$PY" ] || { echo "no venv at $BUILD/oracle-venv: run tests/oracle/setup_venv.sh $BUILD" >&2; exit 1; }
cmake --build "$BUILD" --target deploy_bench -j "$(nproc)" >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
KILN_NUM_THREADS="$THREADS" "$BUILD/bench/deploy_bench" "$WORK" "$BATCH" "$REPS" > "$WORK/kiln.jsonl"
"$PY" - "$WORK" "$BATCH" "$REPS" "$THREADS" <<'PYEOF'
import json, sys, time
import numpy as np
import onnxruntime as ort

work, batch, reps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
x = np.fromfile(work + "/x.f32", np.float32).reshape(batch, 28, 28, 1)
opts = ort.SessionOptions()
opts.intra_op_num_threads = threads
opts.inter_op_num_threads = 1
s = ort.InferenceSession(work + "/cnn.onnx", opts, providers=["CPUExecutionProvider"])
name = s.get_inputs()[0].name
y = s.run(None, {name: x})[0]
want = np.fromfile(work + "/y_kiln.f32", np.float32).reshape(y.shape)
err = float(np.abs(y - want).max())
t0 = time.perf_counter()
for _ in range(reps):
    s.run(None, {name: x})
ort_ms = (time.perf_counter() - t0) / reps * 1e3
rows = [json.loads(l) for l in open(work + "/kiln.jsonl")]
print("guide CNN, batch %d, %d threads, %d calls each; ONNX Runtime %s matches Kiln to %.2g\n" % (
    batch, threads, reps, ort.__version__, err))
print("| what | ms | vs ONNX Runtime |\n|---|---|---|")
for r in rows:
    if r["case"] in ("export_onnx", "saved_model_save_load"):
        print("| %s (once) | %.1f | |" % (r["case"], r["ms"]))
    else:
        print("| %s | %.3f | %.2fx |" % (r["case"], r["ms"], r["ms"] / ort_ms))
print("| onnxruntime | %.3f | 1.00x |" % ort_ms)
PYEOF
