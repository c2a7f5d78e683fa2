#!/usr/bin/env python3
"""Failure, timeout and resume runs of data-parallel training under mpirun.

  run_failures.py MPIRUN WORKER

1. Rank 1 is killed mid-epoch: the run ends (non-zero) well within the
   timeout, and its output names rank 1.
2. Rank 1 throws: rank 0 stops at once with rank 1's message.
3. Rank 1 stalls: rank 0 fails after the collective timeout, naming rank 1.
4. The killed run, restarted with its BackupAndRestore directory, ends with
   the same weights as a run that was never interrupted.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

MPIRUN, WORKER = sys.argv[1], sys.argv[2]
failures = []


def run(args, timeout_env=None, limit=240):
    env = dict(os.environ)
    if timeout_env:
        env["KILN_COLLECTIVE_TIMEOUT"] = str(timeout_env)
    cmd = [MPIRUN, "-np", "2", "--oversubscribe", "--bind-to", "none", WORKER] + args
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit)
    return p.returncode, p.stdout + p.stderr, time.time() - t0


def expect(cond, what, output=""):
    print(("ok   " if cond else "FAIL ") + what)
    if os.environ.get("KILN_TEST_VERBOSE"):
        print(output[-1500:])
    if not cond:
        failures.append(what)
        print(output[-3000:])


def weights(path):
    with open(path) as f:
        return [float(line) for line in f if line.strip()]


tmp = tempfile.mkdtemp(prefix="kiln_dp_failures_")
try:
    full_out = os.path.join(tmp, "full.txt")
    rc, out, secs = run([os.path.join(tmp, "full_backup"), full_out])
    expect(rc == 0 and os.path.exists(full_out), f"uninterrupted run finishes ({secs:.1f} s)", out)

    backup = os.path.join(tmp, "backup")
    rc, out, secs = run([backup, os.path.join(tmp, "killed.txt"), "kill", "7"], timeout_env=30)
    expect(rc != 0 and secs < 60, f"killing rank 1 ends the run with an error (rc {rc}, {secs:.1f} s)", out)
    expect("rank 1" in out, "the error names rank 1", out)
    expect(os.path.isdir(backup), "a backup of the finished epoch exists", out)

    resumed_out = os.path.join(tmp, "resumed.txt")
    rc, out, secs = run([backup, resumed_out])
    expect(rc == 0 and os.path.exists(resumed_out), f"the restarted run finishes ({secs:.1f} s)", out)
    expect("epochs 1 to 3" in out, "it resumed at epoch 1, after the last backup", out)
    if os.path.exists(resumed_out) and os.path.exists(full_out):
        a, b = weights(full_out), weights(resumed_out)
        worst = max(abs(x - y) for x, y in zip(a, b)) / max(abs(x) for x in a)
        expect(len(a) == len(b) and worst < 1e-5, f"resumed weights match the uninterrupted run (max rel {worst:.2e})")

    rc, out, secs = run([os.path.join(tmp, "b2"), os.path.join(tmp, "t.txt"), "throw", "6"], timeout_env=60)
    expect(rc != 0 and secs < 30, f"a throwing rank stops the run at once (rc {rc}, {secs:.1f} s)", out)
    expect("rank 0: fit failed: DataParallel (rank 0): rank 1 failed: injected failure at step 6" in out,
           "rank 0's fit fails with rank 1's message", out)

    rc, out, secs = run([os.path.join(tmp, "b3"), os.path.join(tmp, "s.txt"), "stall", "6"], timeout_env=5)
    expect(rc != 0 and secs < 60, f"a stalled rank makes the others fail after the timeout (rc {rc}, {secs:.1f} s)", out)
    expect("rank 0: fit failed: DataParallel (rank 0): collective #" in out and "did not finish within 5 s" in out
           and "Rank 1 is not in it: it is computing" in out, "rank 0's fit fails after the timeout, saying where rank 1 is", out)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
