#!/usr/bin/env bash
# Per-layer speed table: every layer class of Kiln's catalogue at a typical shape and batch, forward and
# forward+backward, Kiln against Keras 3 on JAX (jit) and PyTorch eager, alternating per class, 2 threads each.
# Prints the Markdown table with each class's ratio to the faster peer and the classes below 1.0x and 0.8x.
# See bench/README.md ("Per-layer speed").
#
#   bench/layer_speed.sh [--no-build] [--budget-s S] [--min-reps N] [--max-reps N] [--only Class,Class]
#
# Builds the layer_speed target in $KILN_BUILD_DIR (default build). Keras runs from the oracle's venv
# (<build>/oracle-venv, tests/oracle/setup_venv.sh), PyTorch from the peers' venv (<build>/peers-venv,
# bench/peers/setup_venv.sh, PyPI); without PyTorch the table runs with Keras alone and says so.
# KERAS_PYTHON / TORCH_PYTHON name other interpreters. Writes <build>/bench-results/layer-speed/<time>/
# {rows.jsonl,table.md} and the workers' stderr logs there.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KILN_BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BUILD_IT=1
ARGS=()
ARGS_TEXT="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) BUILD_IT=0; shift ;;
    --budget-s|--min-reps|--max-reps|--only|--timeout-s) ARGS+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    *) echo "layer_speed.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [[ $BUILD_IT -eq 1 ]]; then
  [[ -f "$BUILD/CMakeCache.txt" ]] || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  echo "layer_speed.sh: building layer_speed in $BUILD" >&2
  cmake --build "$BUILD" --target layer_speed -j"${BUILD_JOBS:-2}" >/dev/null
  "$ROOT/tests/oracle/setup_venv.sh" "$BUILD" >&2
fi
KERAS_PY="${KERAS_PYTHON:-$BUILD/oracle-venv/bin/python}"
if [[ -z "${KERAS_PYTHON:-}" && ! -x "$KERAS_PY" && -x "$BUILD/peers-venv/bin/python" ]]; then
  # The peers' venv pins the same Keras and JAX as the oracle's.
  echo "layer_speed.sh: no oracle venv; Keras runs from $BUILD/peers-venv" >&2
  KERAS_PY="$BUILD/peers-venv/bin/python"
fi
TORCH_PY="${TORCH_PYTHON:-$BUILD/peers-venv/bin/python}"
TORCH_ARGS=()
if [[ -z "${TORCH_PYTHON:-}" && $BUILD_IT -eq 1 ]] && ! "$ROOT/bench/peers/setup_venv.sh" "$BUILD/peers-venv"; then
  echo "layer_speed.sh: no PyTorch venv (PyPI unreachable?); the table runs with Keras alone" >&2
fi
if "$TORCH_PY" -c 'import torch' 2>/dev/null; then
  TORCH_ARGS=(--torch-python "$TORCH_PY")
else
  TORCH_ARGS=(--torch-missing "torch could not be imported from $TORCH_PY")
fi

exec python3 "$ROOT/bench/layer_speed/driver.py" --kiln "$BUILD/bench/layer_speed" --keras-python "$KERAS_PY" \
  "${TORCH_ARGS[@]}" --out "$BUILD/bench-results/layer-speed" --command "bench/layer_speed.sh $ARGS_TEXT" \
  "${ARGS[@]}"
