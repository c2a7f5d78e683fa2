"""What the Python workers share: the request loop on stdin/stdout (one JSON
line each way) and the timing rule, the same as the Kiln worker's
(kiln_worker.cpp): two untimed calls (compilation, allocator warm-up), then
calls timed one by one until the case's time budget is spent, at least
min_reps and at most max_reps of them; the figure is the median."""
import json
import os
import statistics
import sys
import time
import traceback


def time_calls(call, budget_s, min_reps, max_reps):
    """The median milliseconds of call() and the number of timed calls."""
    call()
    t0 = time.perf_counter()
    call()
    if time.perf_counter() - t0 > budget_s:  # a slow case: fewer calls, not a longer run
        min_reps = 1
    times = []
    start = time.perf_counter()
    while len(times) < max_reps and (len(times) < min_reps or time.perf_counter() - start < budget_s):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3, len(times)


def serve(handle):
    """Answers requests until stdin closes. Library prints go to stderr so that
    stdout carries only the answers."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            ans = handle(req)
        except Exception as e:  # a case that fails is reported by name, and the run goes on
            traceback.print_exc()
            ans = {"error": short_error(e)}
        out.write(json.dumps(ans) + "\n")
        out.flush()


def short_error(e):
    text = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    return text[:200]
