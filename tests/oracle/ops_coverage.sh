#!/usr/bin/env bash
# CTest entry for the keras.ops coverage table (tests/oracle/ops_coverage.py --check) and
# the table of Keras's operation classes (tests/oracle/op_classes.py --check), in the
# oracle's venv; skips (77) as tests/oracle/run.sh does when there is no venv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
py=$build/oracle-venv/bin/python
if [ "${KILN_NO_KERAS:-0}" = 1 ] || [ ! -x "$py" ] || [ ! -f "$build/oracle-venv/stamp" ]; then
  echo "keras_ops_coverage: no Keras venv at $build/oracle-venv"
  [ "${KILN_NO_KERAS:-0}" != 1 ] && [ "${KILN_TEST_REQUIRE_TOOLS:-0}" = 1 ] && exit 1
  exit 77
fi
export KERAS_BACKEND=jax JAX_PLATFORMS=cpu KERAS_HOME=$build/oracle/.keras-coverage PYTHONDONTWRITEBYTECODE=1
"$py" "$here/op_classes.py" --check
exec "$py" "$here/ops_coverage.py" --check
