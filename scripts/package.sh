#!/usr/bin/env bash
# Builds Kiln's Debian packages into ${KILN_PACKAGE_DIR:-build-pkg}:
#   libkiln_<v>_amd64.deb, libkiln-mpi_<v>_amd64.deb, libkiln-dev_<v>_amd64.deb
# (cmake/packaging.cmake says what each holds). Install them with
#   apt-get install ./build-pkg/*.deb
# The build is portable (no -march=native), installs under /usr, finds its data
# in /usr/share/kiln/data, and has no tests, examples or benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
# dpkg-shlibdeps (dpkg-dev) and file compute the packages' dependencies;
# MPI and oneDNN are the plugins' build dependencies.
scripts/setup.sh dpkg-dev file libopenmpi-dev openmpi-bin
OUT=${KILN_PACKAGE_DIR:-build-pkg}
cmake -S . -B "$OUT" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DKILN_NATIVE=OFF \
  -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_BENCH=OFF \
  -DKILN_CUDA=OFF -DKILN_MPI=ON -DKILN_ONEDNN=ON -DKILN_DATA_DIR=/usr/share/kiln/data >/dev/null
cmake --build "$OUT" -j "$(nproc)"
rm -f "$OUT"/*.deb
(cd "$OUT" && cpack -G DEB >cpack.log 2>&1) || { tail -40 "$OUT/cpack.log"; echo "package: cpack failed" >&2; exit 1; }
for deb in "$OUT"/*.deb; do
  printf 'package: %s  %s KB (installed %s KB)  Depends: %s\n' "$(basename "$deb")" "$(($(stat -c %s "$deb") / 1024))" \
    "$(dpkg-deb -f "$deb" Installed-Size)" "$(dpkg-deb -f "$deb" Depends)"
done
