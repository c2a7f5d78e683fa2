#!/usr/bin/env bash
# CTest entry for one Keras oracle group: runs tests/oracle/oracle.py in the
# venv that tests/oracle/setup_venv.sh made (scripts/test.sh makes it).
# Usage: tests/oracle/run.sh <build dir> <kiln_oracle> <group>
# Exit 77 (a CTest skip) only with KILN_NO_KERAS=1, or for a developer's
# ctest without the venv; under scripts/test.sh (KILN_TEST_REQUIRE_TOOLS=1) a
# missing venv fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 tool=$2 group=$3
if [ "${KILN_NO_KERAS:-0}" = 1 ]; then
  echo "keras_oracle_$group: SKIPPED because KILN_NO_KERAS=1 (Kiln was not compared with Keras)"
  exit 77
fi
py=$build/oracle-venv/bin/python
if [ ! -x "$py" ] || [ ! -f "$build/oracle-venv/stamp" ]; then
  echo "keras_oracle_$group: no Keras venv at $build/oracle-venv (tests/oracle/setup_venv.sh $build makes it)"
  [ "${KILN_TEST_REQUIRE_TOOLS:-0}" = 1 ] && exit 1
  exit 77
fi
work=$build/oracle/$group
rm -rf "$work"
mkdir -p "$work"
# JAX on the CPU with one compute thread (the machine is shared with the build),
# Keras's config kept inside the work folder.
export KERAS_BACKEND=jax JAX_PLATFORMS=cpu KERAS_HOME=$work/.keras TF_CPP_MIN_LOG_LEVEL=2
export XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
export PYTHONDONTWRITEBYTECODE=1 KILN_NUM_THREADS=1
exec "$py" "$here/oracle.py" --tool "$tool" --work "$work" "$group"
