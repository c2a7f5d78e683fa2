#!/usr/bin/env python3
"""The compile-time budget of <kiln/kiln.h>: compiles header_cost.cpp (a short
first program) as a user would (g++ -std=c++20 -O2, the public include
folders) and fails when it takes more CPU time (user + system, the compiler's
own processes) or more peak memory than the budget.

    header_cost.py COMPILER SOURCE_ROOT [--ratio 3.4] [--rss-mb 400] [--runs 5]

CPU time is budgeted as a multiple of a yardstick's: header_cost_reference.cpp,
a program as short that includes only the standard headers Kiln's public
headers use. Seconds alone would judge the machine: the same compile takes 2.8 s
on one CI guest and 4.2 s on another, but the ratio of the two programs stays
put. The two compile in turn, --runs times each, and the best of each counts:
a busy machine slows a compile down, but never speeds one up. Peak memory is
budgeted in megabytes, which do not depend on the machine's speed.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile

MODULES = ["framework", "layers", "optimizers", "losses", "metrics", "callbacks", "datasets"]


def measure(cmd):
    """(CPU seconds, peak RSS in MB) of one compile, from its own process tree."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        child = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        os.write(w, f"{child.returncode} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}\n".encode())
        os.write(w, child.stdout[-4000:])
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.waitpid(pid, 0)
    head, _, output = data.partition(b"\n")
    rc, cpu, rss_kb = head.split()
    if int(rc) != 0:
        sys.exit(f"header_cost: the compile failed:\n{' '.join(cmd)}\n{output.decode(errors='replace')}")
    return float(cpu), int(rss_kb) / 1024


def main():
    p = argparse.ArgumentParser()
    p.add_argument("compiler")
    p.add_argument("root")
    p.add_argument("--ratio", type=float, default=3.4,
                   help="most CPU time, as a multiple of the yardstick program's")
    p.add_argument("--rss-mb", type=float, default=400)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    folder = os.path.join(a.root, "tests", "structure")
    source = os.path.join(folder, "header_cost.cpp")
    yardstick = os.path.join(folder, "header_cost_reference.cpp")
    includes = [f"-I{os.path.join(a.root, m, 'include')}" for m in MODULES]
    runs, reference = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            runs.append(measure([a.compiler, "-std=c++20", "-O2", *includes, "-c", source, "-o",
                                 os.path.join(tmp, "first.o")]))
            reference.append(measure([a.compiler, "-std=c++20", "-O2", "-c", yardstick, "-o",
                                      os.path.join(tmp, "reference.o")]))
    cpu = min(c for c, _ in runs)
    rss = min(m for _, m in runs)
    ref_cpu = min(c for c, _ in reference)
    ratio = cpu / ref_cpu
    print(f"header_cost: {os.path.basename(source)} with <kiln/kiln.h>: {cpu:.2f} s CPU, {rss:.0f} MB peak; "
          f"the standard-headers yardstick: {ref_cpu:.2f} s; ratio {ratio:.2f} "
          f"(budget {a.ratio:.2f}, {a.rss_mb:.0f} MB; best of {a.runs} each)")
    over = []
    if ratio > a.ratio:
        over.append(f"CPU {cpu:.2f} s = {ratio:.2f} x the yardstick's {ref_cpu:.2f} s > {a.ratio:.2f} x")
    if rss > a.rss_mb:
        over.append(f"memory {rss:.0f} MB > {a.rss_mb:.0f} MB")
    if over:
        sys.exit("header_cost: over budget: " + "; ".join(over) +
                 ". Keep template bodies and per-class instantiations out of the public headers "
                 "(kiln/core/fields.h and kiln/nn/layer_class.h show how).")


if __name__ == "__main__":
    main()
