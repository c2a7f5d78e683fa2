#!/usr/bin/env bash
# CPU users don't pay for CUDA:
#   1. libkiln.so links no CUDA library (ldd);
#   2. a program linking it does CPU work under 30 MiB RSS, mapping no CUDA library;
#   3. with the CUDA toolkit hidden (a private mount namespace with an empty
#      /usr/local/cuda), that program's request for Device::cuda(0) fails with an
#      error naming the library that could not be loaded, and the main job
#      (mnist_cnn) still trains on the CPU.
# Step 3 needs root (unshare); it runs only in builds with the CUDA plugin.
# Usage: run.sh BUILD_DIR PROBE
set -euo pipefail
BUILD_DIR=$1
PROBE=$2
LIB=$(ls "$BUILD_DIR"/libkiln.so)

if ldd "$LIB" | grep -E 'libcu(da|dart|blas|blasLt|dnn)'; then
  echo "FAIL: $LIB links the CUDA libraries above"
  exit 1
fi
echo "ok: ldd $LIB lists no CUDA library"

if [ -f "$BUILD_DIR/libkiln_cuda.so" ]; then
  "$PROBE"
else
  "$PROBE" --ask-cuda "built without the CUDA backend"
  echo "ok: CPU-only build (no libkiln_cuda.so); the hidden-toolkit check needs the plugin"
  exit 0
fi
echo "ok: the CPU-only program starts small and maps no CUDA library"

if [ "$(id -u)" -ne 0 ]; then
  echo "the hidden-toolkit check needs root for a mount namespace: skipped"
  exit 77
fi
CUDA_DIR=$(readlink -f /usr/local/cuda)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# In a chroot "/" is not a mount point, so unshare cannot make every mount
# private; then only the toolkit's own mount, if it is one, is made private
# before it is covered, so nothing propagates back to the host.
if unshare -m true 2>/dev/null; then UNSHARE=(unshare -m); else UNSHARE=(unshare -m --propagation unchanged); fi
"${UNSHARE[@]}" env CUDA_DIR="$CUDA_DIR" PROBE="$PROBE" BUILD_DIR="$BUILD_DIR" OUT="$OUT" bash -euo pipefail -c '
  if mountpoint -q "$CUDA_DIR"; then mount --make-private "$CUDA_DIR"; fi
  mount -t tmpfs -o size=1m kiln-hidden-cuda "$CUDA_DIR"
  if ls "$CUDA_DIR"/lib*/libcudart* >/dev/null 2>&1; then echo "FAIL: the toolkit is still visible"; exit 1; fi
  "$PROBE" --ask-cuda "libcudart"
  if [ -x "$BUILD_DIR/mnist_cnn" ]; then "$BUILD_DIR/mnist_cnn" --epochs 1 --out "$OUT" | tail -n 4; fi
'
echo "ok: with /usr/local/cuda hidden, Device::cuda(0) names the missing library and mnist_cnn trains on the CPU"
