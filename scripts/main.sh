#!/usr/bin/env bash
# The main job: install what is missing, build, then train the guide's MNIST CNN,
# save it, reload it and evaluate it (examples/mnist_cnn.cpp).
#
# It builds only what it runs: the library, the plugins this machine can use
# (oneDNN's convolutions; the CUDA backend where an NVIDIA device is present)
# and the example. scripts/test.sh builds the rest in the same build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
scripts/setup.sh
targets=(mnist_cnn kiln_cpu_plugins)
if [ -e /dev/nvidiactl ] || [ -e /dev/nvidia0 ]; then targets+=(kiln_gpu_plugins); fi
scripts/build.sh -- "${targets[@]}"
BUILD_DIR=${KILN_BUILD_DIR:-build}
# Writes mnist_cnn.keras, history.svg and model.dot/.svg into the build folder.
# The example's lines pass through unchanged; the first "Epoch 1/" also gets
# how long after the command the training began (install and build included).
"$BUILD_DIR/mnist_cnn" --out "$BUILD_DIR/mnist_run" "$@" | {
  timed=0
  while IFS= read -r line; do
    printf '%s\n' "$line"
    if [ $timed = 0 ] && [[ $line == "Epoch 1/"* ]]; then
      timed=1
      echo "main: the first epoch began $(($(date +%s) - started)) s after scripts/main.sh started"
    fi
  done
}
