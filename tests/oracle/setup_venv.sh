#!/usr/bin/env bash
# Makes the Keras oracle's Python environment, <build dir>/oracle-venv, with the
# pinned packages of tests/oracle/requirements.txt above its "bench peers"
# marker. Python is a test dependency only. The venv is rebuilt only when it is
# missing or stale: its stamp holds that section's hash and the Python version. When PyPI cannot be
# reached this fails; KILN_NO_KERAS=1 skips the tier instead.
# Usage: tests/oracle/setup_venv.sh <build dir>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$1/oracle-venv
req=$(mktemp)
trap 'rm -f "$req"' EXIT
sed '/^# ==== bench peers ====/,$d' "$here/requirements.txt" >"$req"
if [ "${KILN_NO_KERAS:-0}" = 1 ]; then
  echo "oracle: KILN_NO_KERAS=1, so no Keras venv; the keras_oracle tests will be skipped"
  exit 0
fi
want="$(sha256sum "$req" | cut -d' ' -f1) $(python3 -c 'import sys; print(sys.version.split()[0])')"
if [ -f "$venv/stamp" ] && [ "$(cat "$venv/stamp")" = "$want" ]; then
  echo "oracle: Keras venv up to date ($venv)"
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
  echo "oracle: could not make the Keras venv (output above; is PyPI reachable?)." >&2
  echo "oracle: set KILN_NO_KERAS=1 to run the suite without the Keras oracle tier." >&2
  exit 1
fi
echo "$want" >"$venv/stamp"
echo "oracle: Keras venv made in $(($(date +%s) - t0))s ($venv)"
