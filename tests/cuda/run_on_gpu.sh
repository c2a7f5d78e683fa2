#!/usr/bin/env bash
# Every check that needs a real GPU, in one run, for a machine with one:
#   1. the GPU parity suite (test_cuda) with a CUDA device present;
#   2. compute-sanitizer memcheck and racecheck over the parity cases
#      (memcheck without leak checking: the caching allocator keeps freed
#      blocks for reuse until the process ends, by design);
#   3. the CTest suite of the same build with the CUDA plugin loadable
#      (without the Keras oracle, which needs its virtual environment, and the
#      consumer-project build, which needs the Debian development packages);
# while the CTest suite runs on the CPU cores, 1 and 2 use the GPU.
#
#   tests/cuda/run_on_gpu.sh BUILD_DIR LOG_DIR [SECONDS_PER_STEP]
#
# KILN_CTEST_EXCLUDE=REGEX leaves out further CTest tests (those whose tools
# the machine lacks, such as mpirun).
#
# Logs go to LOG_DIR/<step>.log; the last lines printed are a summary table.
# Exit status: 0 when every step passed.
set -uo pipefail
BUILD="${1:?usage: run_on_gpu.sh BUILD_DIR LOG_DIR [SECONDS_PER_STEP]}"
LOGS="${2:?usage: run_on_gpu.sh BUILD_DIR LOG_DIR [SECONDS_PER_STEP]}"
LIMIT="${3:-240}"
mkdir -p "$LOGS"
BUILD="$(cd "$BUILD" && pwd)"
TEST_CUDA="$BUILD/tests/cuda/test_cuda"
SAN="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
declare -A RESULT
declare -A SECS

step() {  # name command...
  local name="$1" t0 rc
  shift
  t0=$(date +%s)
  (cd "$BUILD/tests/cuda" && timeout --kill-after=10 "$LIMIT" "$@") > "$LOGS/$name.log" 2>&1
  rc=$?
  SECS[$name]=$(($(date +%s) - t0))
  RESULT[$name]=$([[ $rc -eq 0 ]] && echo pass || echo "FAIL rc=$rc")
}

# The CPU suites, in the background. test_models is the long one: it runs as
# parallel shards of its test cases.
(
  cd "$BUILD"
  t0=$(date +%s)
  ctest -j 8 --output-on-failure --timeout "$LIMIT" -E "^(consumer_project|keras_oracle_.*|models${KILN_CTEST_EXCLUDE:+|$KILN_CTEST_EXCLUDE})\$" > "$LOGS/ctest.log" 2>&1
  echo "rc=$?" >> "$LOGS/ctest.log"
  n=$("$BUILD/tests/test_models" --count 2>/dev/null | awk -F: '/passing the current filters/ {print $2+0}')
  shards=6 per=$(( (n + 5) / 6 )) pids=()
  for ((s = 0; s < shards; s++)); do
    (cd "$BUILD/tests" && timeout "$LIMIT" ./test_models --order-by=name --first=$((s * per + 1)) --last=$(((s + 1) * per)) \
       > "$LOGS/models.$s.log" 2>&1; echo "rc=$?" >> "$LOGS/models.$s.log") &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "seconds=$(($(date +%s) - t0))" >> "$LOGS/ctest.log"
) &
CPU_JOB=$!

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv > "$LOGS/gpu.txt" 2>&1
step parity "$TEST_CUDA" --duration=true
# NCCL's communicator set-up probes its kernels with cudaFuncGetAttributes and
# handles the "no kernel image" answers itself, which memcheck reports as API
# errors; its test case stays out of memcheck.
step memcheck "$SAN" --tool memcheck --error-exitcode 9 "$TEST_CUDA" -tce='*MNIST*,*NCCL*'
step racecheck "$SAN" --tool racecheck --error-exitcode 9 "$TEST_CUDA" \
  -tc='*reductions*,*softmax*,*pooling*,*matmul*,*normalization*,*every activation*'
wait "$CPU_JOB"
SECS[ctest]=$(awk -F= '/^seconds=/ {print $2}' "$LOGS/ctest.log")
if grep -q '^rc=0$' "$LOGS/ctest.log" && ! grep -L '^rc=0$' "$LOGS"/models.*.log | grep -q .; then
  RESULT[ctest]=pass
else
  RESULT[ctest]=FAIL
fi

cat "$LOGS/gpu.txt"
status=0
printf '| step | result | seconds |\n|---|---|---|\n'
for name in parity memcheck racecheck ctest; do
  printf '| %s | %s | %s |\n' "$name" "${RESULT[$name]}" "${SECS[$name]:-?}"
  [[ "${RESULT[$name]}" == pass ]] || status=1
done
exit $status
