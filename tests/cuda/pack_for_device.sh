#!/usr/bin/env bash
# Packs a CUDA build made on this machine for a GPU machine of another image
# (the lent H100/H200 runs Ubuntu, has CUDA, cuDNN and PyTorch, but none of the
# Debian libraries Kiln links and no time to build): the binaries the device
# check runs, Kiln's libraries, and every shared library they need that is
# neither glibc's nor CUDA's (the device's own CUDA, cuBLAS, cuDNN and NCCL are
# used there), plus the Fashion-MNIST-shaped data the GPU benchmark reads,
# tiled from the repository's MNIST digits.
#
#   tests/cuda/pack_for_device.sh BUILD_DIR OUT_DIR
#
# OUT_DIR/bundle.tar.xz unpacks at the repository root (BUILD_DIR's binaries
# under build-device/, the libraries under build-device/lib/, the data under
# build-device/data/); tests/cuda/device_check.sh --bundle unpacks and uses it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:?usage: pack_for_device.sh BUILD_DIR OUT_DIR}" && pwd)"
OUT="${2:?usage: pack_for_device.sh BUILD_DIR OUT_DIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
D="$STAGE/build-device"
mkdir -p "$D/tests/cuda" "$D/bench" "$D/lib" "$D/data"

BINS=("$BUILD/tests/cuda/test_cuda")
for b in kiln_bench realsize_bench rnn_bench; do
  [[ -x "$BUILD/bench/$b" ]] && BINS+=("$BUILD/bench/$b")
done
for b in "${BINS[@]}"; do
  rel="${b#"$BUILD"/}"
  cp "$b" "$D/$rel"
done
# The CPU plugins (oneDNN, MPI) stay behind: the checks run on the GPU.
cp -P "$BUILD"/libkiln.so* "$BUILD"/libkiln_cuda.so "$D/"
[[ -e "$BUILD/libkiln_applications.so" ]] && cp -P "$BUILD"/libkiln_applications.so* "$D/"
# Keep the build's CMake cache out, so nothing there tries to rebuild; say what it was.
git -C "$ROOT" rev-parse HEAD > "$D/COMMIT"
# The tests read fixtures from the source folder compiled into them.
echo "$ROOT" > "$D/SOURCE_DIR"

# Shared libraries that the device image lacks: everything ldd resolves outside
# glibc, the C++ runtime (the device's is newer) and CUDA.
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcudnn|libnccl|libnvrtc|libnvJitLink)'
for f in "${BINS[@]}" "$D"/libkiln*.so; do
  ldd "$f" | awk '/=>/ {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $skip || "$path" == "$BUILD"/* || ! -f "$path" ]] && continue
  cp -L "$path" "$D/lib/$name"
done
strip --strip-unneeded "$D"/lib/*.so* "$D"/libkiln*.so* "${BINS[@]/#$BUILD/$D}" 2>/dev/null || true

# 60,000 training and 10,000 test images in Fashion-MNIST's IDX layout, tiled
# from the repository's MNIST (the device has no datasets; speed does not
# depend on the pixels).
python3 - "$ROOT/datasets/data/mnist" "$D/data" <<'PY'
import gzip, struct, sys
src, dst = sys.argv[1:3]
def tile(name, n, header):
    raw = gzip.open(f"{src}/{name}").read()
    head, body = raw[:header], raw[header:]
    count = struct.unpack(">I", head[4:8])[0]
    item = len(body) // count
    out = (body * (n // count + 1))[: n * item]
    head = head[:4] + struct.pack(">I", n) + head[8:]
    with gzip.open(f"{dst}/{name}", "wb", compresslevel=1) as f:
        f.write(head + out)
for prefix, n in (("train", 60000), ("t10k", 10000)):
    tile(f"{prefix}-images-idx3-ubyte.gz", n, 16)
    tile(f"{prefix}-labels-idx1-ubyte.gz", n, 8)
PY

XZ_OPT="-T0" tar -C "$STAGE" -cJf "$OUT/bundle.tar.xz" build-device
echo "pack_for_device.sh: $OUT/bundle.tar.xz ($(du -h "$OUT/bundle.tar.xz" | cut -f1)), $(ls "$D/lib" | wc -l) libraries"
