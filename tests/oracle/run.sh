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
# Keras's text layers run on TensorFlow, which has a venv of its own.
venv=$build/oracle-venv section=""
[ "$group" = text ] && venv=$build/oracle-text-venv section=" text"
py=$venv/bin/python
if [ ! -x "$py" ] || [ ! -f "$venv/stamp" ]; then
  echo "keras_oracle_$group: no Keras venv at $venv (tests/oracle/setup_venv.sh $build$section makes it)"
  [ "${KILN_TEST_REQUIRE_TOOLS:-0}" = 1 ] && exit 1
  exit 77
fi
work=$build/oracle/$group
rm -rf "$work"
mkdir -p "$work"
# The backend on the CPU with one compute thread (the machine is shared with the
# build), Keras's config kept inside the work folder.
export KERAS_HOME=$work/.keras TF_CPP_MIN_LOG_LEVEL=2
if [ "$group" = text ]; then
  export KERAS_BACKEND=tensorflow TF_NUM_INTRAOP_THREADS=1 TF_NUM_INTEROP_THREADS=1
else
  export KERAS_BACKEND=jax JAX_PLATFORMS=cpu
  export XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
  # Compiling is most of these groups' time, and they compile the same models twice: onnx_layers
  # those of layer_files (CTest runs it after), applications each model again when it loads Kiln's
  # file. A compilation cache on disk serves the second time (JAX's key holds the program, its
  # options and JAX's version).
  case $group in
    layer_files | onnx_layers) cache=models ;;
    applications) cache=applications ;;
    *) cache="" ;;
  esac
  if [ -n "$cache" ]; then
    export JAX_COMPILATION_CACHE_DIR=$build/oracle/.jax-cache-$cache
    export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0 JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=0
  fi
fi
export PYTHONDONTWRITEBYTECODE=1 KILN_NUM_THREADS=1
exec "$py" "$here/oracle.py" --tool "$tool" --work "$work" "$group"
