#!/usr/bin/env bash
# The sandbox's cost: HDF5 loads with the default options (libhdf5 parses the
# file in a sandboxed child) against {.trusted = true}, on ResNet50- and
# DenseNet121-size files (.weights.h5 and .keras, random weights), alternating
# trusted and untrusted loads in one process for REPS rounds. Prints a
# Markdown table of the medians and their ratio (the target is at most 1.3x),
# and the untrusted load with the sandbox's child forked instead of started as
# the kiln-h5-reader program (KILN_H5_READER="").
#
#   bench/sandbox_load_bench.sh [BUILD_DIR] [REPS] [CLASS ...]
# Defaults: build, 7, ResNet50 DenseNet121.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
REPS="${2:-7}"
shift $(( $# > 2 ? 2 : $# ))
cmake --build "$BUILD" --target sandbox_load_bench kiln_h5_reader -j 2 >/dev/null
echo "| model | file | MB | trusted ms | untrusted (sandbox) ms | untrusted / trusted | forked child ms |"
echo "|---|---|---:|---:|---:|---:|---:|"
"$BUILD/bench/sandbox_load_bench" "$REPS" "$@" | while read -r line; do
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print("| %s | %s | %.0f | %.0f | %.0f | %.2fx | %.0f |" % (r["class"], r["file"], r["mb"], r["trusted_ms"], r["untrusted_ms"], r["ratio"], r["forked_ms"]))' "$line"
done
echo
echo "medians of $REPS alternating rounds in one process (KILN_TRUST_FILES unset)"
