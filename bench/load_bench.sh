#!/usr/bin/env bash
# Loading real models: Kiln's load_model against Keras 3's on the same files.
# Keras builds ResNet50, DenseNet121 and Xception (weights=None, their default
# 224x224 or 299x299 inputs, so the parameter counts are the published ones)
# and saves each as .keras and legacy .h5. Then, REPS rounds, alternating:
# Kiln loads each file in a fresh process (the time of load_model alone), and
# Keras loads it with keras.models.load_model in one warm interpreter (imports
# and the first-call costs are paid before timing). Prints a Markdown table of
# the medians and Kiln's time as a ratio to Keras's.
#
#   bench/load_bench.sh [BUILD_DIR] [REPS]
# Keras comes from the oracle's venv (tests/oracle/setup_venv.sh BUILD_DIR).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
REPS="${2:-3}"
PY="$BUILD/oracle-venv/bin/python"
[ -x "$PY" ] || { echo "no venv at $BUILD/oracle-venv: run tests/oracle/setup_venv.sh $BUILD" >&2; exit 1; }
cmake --build "$BUILD" --target load_bench -j "$(nproc)" >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export KERAS_BACKEND=jax JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=2 KERAS_HOME="$WORK/.keras"
"$PY" - "$WORK" "$REPS" "$BUILD/bench/load_bench" <<'PYEOF'
import json, statistics, subprocess, sys, time, warnings
warnings.filterwarnings("ignore")
import keras

work, reps, tool = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = []
for cls in ("ResNet50", "DenseNet121", "Xception"):
    m = getattr(keras.applications, cls)(weights=None)
    for ext in ("keras", "h5"):
        path = "%s/%s.%s" % (work, cls, ext)
        m.save(path)
        files.append((cls, ext, path, m.count_params()))
    keras.backend.clear_session()
keras.models.load_model(files[0][2], compile=False)  # warm the interpreter
kiln, ker = {f[2]: [] for f in files}, {f[2]: [] for f in files}
for _ in range(reps):
    for cls, ext, path, n in files:
        out = subprocess.run([tool, path], capture_output=True, text=True, check=True).stdout
        row = json.loads(out.splitlines()[-1])
        assert row["params"] == n, (path, row["params"], n)
        kiln[path].append(row["seconds"])
        keras.backend.clear_session()
        t0 = time.perf_counter()
        keras.models.load_model(path, compile=False)
        ker[path].append(time.perf_counter() - t0)
print("| model | file | parameters | Kiln load_model (s) | Keras load_model (s) | Kiln / Keras |")
print("|---|---|---:|---:|---:|---:|")
for cls, ext, path, n in files:
    a, b = statistics.median(kiln[path]), statistics.median(ker[path])
    print("| %s | .%s | %.1f M | %.2f | %.2f | %.2fx |" % (cls, ext, n / 1e6, a, b, a / b))
print("\nmedians of %d alternating rounds; Kiln in a fresh process per load, Keras in one warm interpreter" % reps)
PYEOF
