#!/usr/bin/env bash
# Installs the Debian 12 packages Kiln needs, only those that are missing.
# Every package the build, the main job and the tests include or run is named
# here: apt runs with --no-install-recommends, so nothing may arrive as a
# Recommends (libxtensor-dev only recommends libxsimd-dev, which Kiln does not use).
# Usage: scripts/setup.sh [extra-package ...]
set -euo pipefail
PKGS=(
  # compiler, build tool, compiler cache
  build-essential cmake ccache
  # headers and libraries Kiln compiles and links against
  libxtensor-dev xtl-dev libopenblas-dev libopenblas-pthread-dev libhdf5-dev
  # (the linear algebra ops use the LAPACK that OpenBLAS exports, from libopenblas0-pthread,
  # which libopenblas-pthread-dev brings: no separate LAPACK package)
  nlohmann-json3-dev zlib1g-dev doctest-dev
  # FFTW's single- and double-precision transforms under the CPU backend's FFT ops: Kiln
  # links libfftw3-single3 and libfftw3-double3, named here; libfftw3-dev's other Depends
  # (libfftw3-bin, -long3, -quad3) come with it, and it recommends nothing
  libfftw3-dev libfftw3-single3 libfftw3-double3
  # oneDNN's JIT convolutions under the CPU backend (libdnnl2 brings libgomp1 and
  # ocl-icd-libopencl1 as Depends; its Recommends, ocl-icd-opencl-dev, is not needed)
  libdnnl-dev
  # image files for kiln::utils (load_img, save_img, image_dataset_from_directory):
  # libjpeg-turbo (JPEG), libpng (PNG) and giflib (GIF) headers, and the runtime
  # libraries libkiln links; libpng-dev also ships examples/pngtest.png, the real-world
  # PNG tests/framework/test_image_utils.cpp decodes
  libjpeg62-turbo-dev libjpeg62-turbo libpng-dev libpng16-16 libgif-dev libgif7
  # the main job's --fashion data set (the MNIST digits ship in datasets/data)
  dataset-fashion-mnist
  "$@")
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 40 "$log"
  echo "setup: apt-get failed (full output above)" >&2
  exit 1
fi
echo "setup: done ($(grep -c '^Setting up' "$log") packages set up, dependencies included)"
