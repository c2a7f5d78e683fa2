#!/usr/bin/env bash
# Runs every libFuzzer target (or those named) for SECONDS of CPU time each
# (its own and its sandboxed children's, so a loaded machine stretches the
# wall time instead of shortening the campaign) and prints,
# per target: CPU seconds, executions, coverage (edges), features, corpus
# size, and the crash / out-of-memory / timeout / leak inputs found.
# Usage: fuzz/run.sh [SECONDS] [BUILD_DIR] [TARGET...]
#   BUILD_DIR (default build-san) is a clang build with -DKILN_FUZZ=ON, as
#   scripts/sanitize.sh makes it. Each target starts from fuzz/corpus/<target>
#   (read-only) and writes new inputs to BUILD_DIR/fuzz-work/<target>/corpus
#   and findings to BUILD_DIR/fuzz-work/<target>/findings. A finding exits 1;
#   copy it into fuzz/corpus/<target>/crash-<what> once fixed. FUZZ_JOBS (default:
#   the number of cores) campaigns run at once, and the table follows the order.
# Limits per input: 90 s, one allocation at most 2 GiB, 2.5 GiB of memory. The
# time limit sits above the HDF5 sandbox's own (10 CPU-seconds in the child, and
# at least 60 s of wall time): an input that makes libhdf5 loop forever is then
# stopped by the sandbox, which is the defence under test, even on a loaded
# machine, and only a hang the sandbox does not contain becomes a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-san}
shift $(($# > 2 ? 2 : $#))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(keras_archive h5_model json_config weights_h5 checkpoint arrays h5_snapshot saved_model)
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# watch_cpu TIME_PID SECONDS: signals the fuzzer under /usr/bin/time once its
# CPU time (utime + stime, with its waited-for children) reaches SECONDS.
watch_cpu() {
  local fuzzer="" ticks
  ticks=$(getconf CLK_TCK)
  while kill -0 "$1" 2>/dev/null; do
    sleep 1
    [ -n "$fuzzer" ] || fuzzer=$(pgrep -P "$1" | head -1)
    [ -n "$fuzzer" ] && [ -r "/proc/$fuzzer/stat" ] || continue
    # Fields 14-17 after the command name: utime, stime, cutime, cstime.
    local used
    used=$(sed 's/.*) //' "/proc/$fuzzer/stat" | awk -v t="$ticks" '{printf "%d", ($12 + $13 + $14 + $15) / t}')
    if [ "${used:-0}" -ge "$2" ]; then
      kill -USR1 "$fuzzer" 2>/dev/null || true
      return 0
    fi
  done
}

# One campaign; its table row goes to ROW in its work folder, and a failure's
# account (exit status, the end of the log) to FAILURE.
campaign() {
  local t=$1 bin=$build/fuzz/fuzz_$1 work=$build/fuzz-work/$1
  mkdir -p "$work/corpus" "$work/findings"
  rm -f "$work/ROW" "$work/FAILURE"
  local log=$work/log.txt
  # %U+%S of /usr/bin/time include the sandboxed children the target waits for.
  # The budget is CPU time: SIGUSR1 asks libFuzzer to stop gracefully (final
  # statistics included) once it is spent; the wall-time cap only bounds a
  # machine that gives the target almost no CPU at all.
  local rc=0 timer watcher
  /usr/bin/time -f '%U %S' -o "$work/cpu.txt" "$bin" -max_total_time=$((seconds * 20)) -timeout=90 \
    -rss_limit_mb=2560 -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/findings/" \
    "$work/corpus" fuzz/corpus/"$t" >"$log" 2>&1 &
  timer=$!
  watch_cpu "$timer" "$seconds" &
  watcher=$!
  wait "$timer" || rc=$?
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  local cpu execs rate last cov ft corp findings
  cpu=$(tail -1 "$work/cpu.txt" | awk '{printf "%.0f", $1 + $2}')
  execs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -a -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  last=$(grep -a -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$last")
  # slow-unit-* files only note inputs over 10 s (a loaded machine makes those); they are not failures.
  findings=$(find "$work/findings" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
  printf '%-14s %8s %10s %8s %8s %8s %6s %s\n' "$t" "$cpu" "${execs:-0}" "${rate:-0}" "${cov:-?}" "${ft:-?}" \
    "${corp:-?}" "$findings" >"$work/ROW"
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    { echo "--- $t: exit $rc; findings in $work/findings; the end of $log:"; tail -40 "$log"; } >"$work/FAILURE"
  fi
}

for t in "${targets[@]}"; do
  [ -x "$build/fuzz/fuzz_$t" ] ||
    { echo "fuzz/run.sh: no $build/fuzz/fuzz_$t (configure with CC=clang CXX=clang++ -DKILN_FUZZ=ON)" >&2; exit 2; }
done
# As many campaigns at once as there are cores (FUZZ_JOBS): each has its own CPU budget.
jobs_max=${FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  campaign "$t" &
done
wait
status=0
printf '%-14s %8s %10s %8s %8s %8s %6s %s\n' target cpu_s execs exec/s cov ft corpus findings
for t in "${targets[@]}"; do
  work=$build/fuzz-work/$t
  if [ -f "$work/ROW" ]; then cat "$work/ROW"; else printf '%-14s (no result)\n' "$t"; status=1; fi
done
for t in "${targets[@]}"; do
  if [ -f "$build/fuzz-work/$t/FAILURE" ]; then cat "$build/fuzz-work/$t/FAILURE"; status=1; fi
done
exit $status
