#!/usr/bin/env bash
# The packages, as a user gets them (run by .ci/run in its bare root, after
# scripts/test.sh; it installs system-wide, so it is not part of test.sh):
#   1. scripts/package.sh builds the .deb packages, and apt installs them;
#   2. the consumer project (tests/consumer) builds and runs three ways:
#      find_package(kiln), pkg-config --cflags --libs kiln, and FetchContent
#      from a tarball of this source tree (a static Kiln, then also installed
#      and consumed with find_package, with a static mnist_cnn's size);
#   3. a program finds the packaged MNIST digits without being told where.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=$(pwd)
scripts/package.sh
# pkgconf is pkg-config in Debian 12.
scripts/setup.sh pkgconf
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends ./build-pkg/*.deb >/dev/null
echo "packaging: installed $(cd build-pkg && echo *.deb)"
# The HDF5 sandbox's reader program, where libkiln looks for it (kiln/ beside itself).
reader=$(dpkg -L libkiln | grep '/kiln/kiln-h5-reader$') || { echo "packaging: libkiln has no kiln-h5-reader"; exit 1; }
test -x "$reader" && test -e "$(dirname "$reader")/../libkiln.so.0" ||
  { echo "packaging: $reader is not an executable beside libkiln"; exit 1; }
echo "packaging: the HDF5 sandbox's reader is $reader"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cmake -S tests/consumer -B "$WORK/find_package" -DCMAKE_BUILD_TYPE=Release >"$WORK/log" 2>&1 ||
  { cat "$WORK/log"; echo "packaging: find_package(kiln) configure failed"; exit 1; }
cmake --build "$WORK/find_package" -j 2 >"$WORK/log" 2>&1 || { cat "$WORK/log"; echo "packaging: find_package build failed"; exit 1; }
"$WORK/find_package/consumer"
echo "packaging: the consumer built with find_package(kiln) against /usr and ran"

# shellcheck disable=SC2046  # pkg-config's output is a list of flags
g++ -O1 $(pkg-config --cflags kiln) tests/consumer/main.cpp -o "$WORK/pkg_config" $(pkg-config --libs kiln)
"$WORK/pkg_config"
echo "packaging: the consumer built with \`pkg-config --cflags --libs kiln\` ($(pkg-config --libs kiln)) and ran"

# shellcheck disable=SC2046
g++ -O1 $(pkg-config --cflags kiln) tests/packaging/mnist_data.cpp -o "$WORK/mnist_data" $(pkg-config --libs kiln)
"$WORK/mnist_data"

# FetchContent downloads and unpacks a tarball of the tree and builds a static,
# CPU-only Kiln; its build folder has a fixed path so that ccache serves it from
# the previous run. Installed, that static build is also consumed with
# find_package, and the main job's mnist_cnn is linked against it for its size.
# It is the configuration for a small static program, MinSizeRel (-Os), which
# also compiles in about half of Release's time (CI's cold-cache budget counts
# each of its four builds of the library).
tar -czf "$WORK/kiln-src.tar.gz" --exclude='./build*' --exclude=./Testing --exclude=./.git -C "$SRC" .
FC_BUILD=${KILN_FETCHCONTENT_BUILD:-/tmp/kiln-fetchcontent-build}
rm -rf "$FC_BUILD"
cmake -S tests/packaging/fetchcontent -B "$FC_BUILD" -DCMAKE_BUILD_TYPE=MinSizeRel -DKILN_URL="file://$WORK/kiln-src.tar.gz" \
  -DKILN_SHARED=OFF >"$WORK/log" 2>&1 || { cat "$WORK/log"; echo "packaging: FetchContent configure failed"; exit 1; }
cmake --build "$FC_BUILD" -j 2 --target consumer >"$WORK/log" 2>&1 ||
  { tail -40 "$WORK/log"; echo "packaging: FetchContent build failed"; exit 1; }
"$FC_BUILD/consumer"
echo "packaging: the consumer built with FetchContent (a static Kiln from source, tests off) and ran"

cmake --build "$FC_BUILD" -j 2 >"$WORK/log" 2>&1 || { tail -40 "$WORK/log"; echo "packaging: static build failed"; exit 1; }
cmake --install "$FC_BUILD/_deps/kiln-build" --prefix "$WORK/static" >/dev/null
test -f "$WORK/static/lib/libkiln.a" || test -f "$WORK/static/lib64/libkiln.a" ||
  { echo "packaging: the static install has no libkiln.a"; exit 1; }
cmake -S tests/consumer -B "$WORK/static-consumer" -DCMAKE_BUILD_TYPE=MinSizeRel -DCMAKE_PREFIX_PATH="$WORK/static" \
  -DKILN_CONSUMER_EXAMPLES_DIR="$SRC/examples" >"$WORK/log" 2>&1 ||
  { cat "$WORK/log"; echo "packaging: static find_package configure failed"; exit 1; }
cmake --build "$WORK/static-consumer" -j 2 >"$WORK/log" 2>&1 ||
  { tail -40 "$WORK/log"; echo "packaging: static find_package build failed"; exit 1; }
"$WORK/static-consumer/consumer"
echo "packaging: the consumer built with find_package(kiln) against a static install and ran"
exe=$WORK/static-consumer/mnist_cnn
strip -o "$WORK/mnist_cnn.stripped" "$exe"
echo "packaging: a static, CPU-only mnist_cnn (MinSizeRel): $(($(stat -c %s "$exe") / 1024)) KB" \
  "($(($(stat -c %s "$WORK/mnist_cnn.stripped") / 1024)) KB stripped)"
rm -rf "$FC_BUILD"
