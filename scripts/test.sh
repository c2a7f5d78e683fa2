#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time is printed at the end: .ci/run's budget counts a cold compiler cache,
# and this says where a slow run spent it.
phases=() mark=$SECONDS
phase() { phases+=("$1 $((SECONDS - mark))s"); mark=$SECONDS; }
# The tests also run: python3 with numpy and h5py (reading Kiln's HDF5 files
# independently of Kiln), Graphviz's dot (plot_model's SVG), and python3-venv
# for the Keras oracle's environment, and Debian's word lists of seven languages
# (the language-identification data set, kiln/datasets/wordlists.h), and Open
# MPI (the data-parallel tests run their ranks under mpirun, kiln/distribute).
# Debian's fortune collections are the real text keras_oracle_text adapts on, and
# the text-classification example's data (kiln/datasets/fortunes.h), which the
# datasets suite reads and the models suite trains on.
# The docs tests: Doxygen, MkDocs with its Material theme, and headless Chromium.
# The sanitizer job (scripts/sanitize.sh): clang 14 with its runtimes, and time.
scripts/setup.sh python3 python3-numpy python3-h5py graphviz python3-venv \
  wamerican wngerman wfrench wspanish witalian wportuguese wdutch \
  fortunes fortunes-min \
  libopenmpi-dev openmpi-bin \
  doxygen mkdocs mkdocs-material chromium \
  clang-14 libclang-rt-14-dev time
phase setup
BUILD_DIR=${KILN_BUILD_DIR:-build}
# The Keras oracle tier (tests/oracle/): pinned keras, jax[cpu], h5py, numpy and
# tensorboard from PyPI in a venv under the build folder, made only when missing
# or stale, and Keras's text layers on TensorFlow in a second venv, for
# keras_oracle_text. Mostly downloading, so they are made while the compiler has
# the cores. No PyPI is a failure here; KILN_NO_KERAS=1 skips the tier instead.
mkdir -p "$BUILD_DIR"
venv_log=$(mktemp)
trap 'rm -f "$venv_log"' EXIT
{ tests/oracle/setup_venv.sh "$BUILD_DIR" && tests/oracle/setup_venv.sh "$BUILD_DIR" text; } >"$venv_log" 2>&1 &
venvs=$!
# KILN_MPI=ON, KILN_ONEDNN=ON: a missing MPI transport or oneDNN is a configure
# error here, not a skipped test.
if ! scripts/build.sh -DKILN_MPI=ON -DKILN_ONEDNN=ON; then
  wait "$venvs" || true
  exit 1
fi
phase build
venv_rc=0
wait "$venvs" || venv_rc=$?
cat "$venv_log"
[ "$venv_rc" = 0 ] || exit "$venv_rc"
phase venvs
# Every tool a test needs is installed above, so a missing one is a failure, not a skip.
(cd "$BUILD_DIR" && KILN_TEST_REQUIRE_TOOLS=1 ctest --output-on-failure -j 2 --timeout 1500)
phase suite
# The same suites (golden trainings aside) and the fuzz corpus under ASan + UBSan.
scripts/sanitize.sh
phase sanitizers
echo "test.sh: $(IFS=,; echo "${phases[*]}" | sed 's/,/, /g')"
