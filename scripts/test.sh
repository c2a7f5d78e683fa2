#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests also run: python3 with numpy and h5py (reading Kiln's HDF5 files
# independently of Kiln) and Graphviz's dot (plot_model's SVG).
scripts/setup.sh python3 python3-numpy python3-h5py graphviz
scripts/build.sh
BUILD_DIR=${KILN_BUILD_DIR:-build}
cd "$BUILD_DIR"
# Every tool a test needs is installed above, so a missing one is a failure, not a skip.
export KILN_TEST_REQUIRE_TOOLS=1
ctest --output-on-failure -j 2 --timeout 1500
