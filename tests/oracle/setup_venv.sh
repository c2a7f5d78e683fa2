#!/usr/bin/env bash
# Makes a Keras oracle Python environment from one section of the pinned
# tests/oracle/requirements.txt. Python is a test dependency only.
#   oracle (default): the lines above the "bench peers" marker, into
#     <build dir>/oracle-venv (Keras on JAX, for every group but text);
#   text: the lines below the "text oracle" marker, into
#     <build dir>/oracle-text-venv (Keras on TensorFlow, which runs Keras's text layers).
# A venv is rebuilt only when it is missing or stale: its stamp holds its section's hash
# and the Python version. When PyPI cannot be reached this fails; KILN_NO_KERAS=1 skips
# the tier instead.
# Usage: tests/oracle/setup_venv.sh <build dir> [oracle|text]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
section=${2:-oracle}
req=$(mktemp)
trap 'rm -f "$req"' EXIT
case $section in
  oracle)
    venv=$1/oracle-venv what="Keras venv"
    sed '/^# ==== bench peers ====/,$d' "$here/requirements.txt" >"$req" ;;
  text)
    venv=$1/oracle-text-venv what="Keras text venv (TensorFlow)"
    sed '1,/^# ==== text oracle ====/d' "$here/requirements.txt" >"$req" ;;
  *)
    echo "oracle: unknown section '$section' (oracle or text)" >&2
    exit 2 ;;
esac
if [ "${KILN_NO_KERAS:-0}" = 1 ]; then
  echo "oracle: KILN_NO_KERAS=1, so no $what; the keras_oracle tests will be skipped"
  exit 0
fi
want="$(sha256sum "$req" | cut -d' ' -f1) $(python3 -c 'import sys; print(sys.version.split()[0])')"
if [ -f "$venv/stamp" ] && [ "$(cat "$venv/stamp")" = "$want" ]; then
  echo "oracle: $what up to date ($venv)"
  exit 0
fi
rm -rf "$venv"
t0=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log" "$req"' EXIT
if ! { python3 -m venv "$venv" &&
  "$venv/bin/pip" install --disable-pip-version-check --no-input --retries 2 --timeout 60 -r "$req"; } >"$log" 2>&1; then
  tail -n 30 "$log"
  rm -rf "$venv"
  echo "oracle: could not make the $what (output above; is PyPI reachable?)." >&2
  echo "oracle: set KILN_NO_KERAS=1 to run the suite without the Keras oracle tier." >&2
  exit 1
fi
echo "$want" >"$venv/stamp"
echo "oracle: $what made in $(($(date +%s) - t0))s ($venv)"
