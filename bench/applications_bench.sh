#!/usr/bin/env bash
# Inference of keras.applications models: kiln::applications against Keras 3
# on JAX (CPU), the same class, batch and image size, alternating the two for
# REPS rounds. Each side times the best of 5 predict calls on one batch after a
# warm-up call (JAX's compilation is not counted). Prints a Markdown table of
# the medians and Kiln's time as a ratio to Keras's.
#
#   bench/applications_bench.sh [BUILD_DIR] [REPS] [CLASS ...]
# Defaults: build, 3, MobileNetV2 ConvNeXtTiny EfficientNetB0 Xception.
# Keras comes from the oracle's venv (tests/oracle/setup_venv.sh BUILD_DIR).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
REPS="${2:-3}"
shift $(( $# > 2 ? 2 : $# ))
CLASSES=("$@")
[ ${#CLASSES[@]} -gt 0 ] || CLASSES=(MobileNetV2 ConvNeXtTiny EfficientNetB0 Xception)
PY="$BUILD/oracle-venv/bin/python"
[ -x "$PY" ] || { echo "no venv at $BUILD/oracle-venv: run tests/oracle/setup_venv.sh $BUILD" >&2; exit 1; }
cmake --build "$BUILD" --target applications_bench -j "$(nproc)" >/dev/null
export KERAS_BACKEND=jax JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=2
"$PY" - "$REPS" "$BUILD/bench/applications_bench" "${CLASSES[@]}" <<'PYEOF'
import json, statistics, subprocess, sys, time, warnings
warnings.filterwarnings("ignore")
import keras
import numpy as np

reps, tool, classes = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
batch, size = 16, 128

def keras_ms(cls):
    keras.backend.clear_session()
    m = getattr(keras.applications, cls)(weights=None, input_shape=(size, size, 3), classes=10)
    x = np.random.rand(batch, size, size, 3).astype("float32")
    m.predict_on_batch(x)
    best = 1e30
    for _ in range(5):
        t = time.perf_counter()
        m.predict_on_batch(x)
        best = min(best, time.perf_counter() - t)
    return best * 1e3

kiln, ker = {c: [] for c in classes}, {c: [] for c in classes}
for _ in range(reps):
    for c in classes:
        out = subprocess.run([tool, c, str(batch), str(size)], check=True, capture_output=True, text=True).stdout
        kiln[c].append(json.loads(out.strip().splitlines()[-1])["predict_ms"])
        ker[c].append(keras_ms(c))
print("| model (predict, %dx%dx%dx3) | Kiln ms | Keras (JAX) ms | Kiln / Keras |" % (batch, size, size))
print("|---|---:|---:|---:|")
for c in classes:
    a, b = statistics.median(kiln[c]), statistics.median(ker[c])
    print("| %s | %.1f | %.1f | %.2f |" % (c, a, b, a / b))
PYEOF
