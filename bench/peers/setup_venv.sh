#!/usr/bin/env bash
# Makes the benchmark peers' Python environment (PyTorch, TensorFlow, Keras 3,
# JAX) from the "bench peers" section of the project's one pinned requirements
# file, tests/oracle/requirements.txt. A benchmark dependency only, never the
# product's. The venv is remade only when that section or the Python version
# changes.
# Usage: bench/peers/setup_venv.sh <venv dir>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$1
req=$(mktemp)
trap 'rm -f "$req"' EXIT
# The section ends at the text oracle's marker; the blank line before that
# marker is not the section's, so its hash is what it was before that section.
sed '1,/^# ==== bench peers ====/d; /^# ==== text oracle ====/,$d' "$here/../../tests/oracle/requirements.txt" |
  sed '${/^$/d}' >"$req"
want="$(sha256sum "$req" | cut -d' ' -f1) $(python3 -c 'import sys; print(sys.version.split()[0])')"
if [ -f "$venv/stamp" ] && [ "$(cat "$venv/stamp")" = "$want" ]; then
  exit 0
fi
rm -rf "$venv"
echo "peers: making $venv (PyTorch, TensorFlow, Keras, JAX; a few GB from PyPI)" >&2
log=$(mktemp)
trap 'rm -f "$log" "$req"' EXIT
if ! { python3 -m venv "$venv" &&
  "$venv/bin/pip" install --disable-pip-version-check --no-input --retries 2 --timeout 60 -r "$req"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  rm -rf "$venv"
  echo "peers: could not make the venv (output above; is PyPI reachable?)" >&2
  exit 1
fi
echo "$want" >"$venv/stamp"
