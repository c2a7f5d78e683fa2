#!/usr/bin/env python3
"""The compile-time budget of <kiln/kiln.h>: compiles header_cost.cpp (a short
first program) as a user would (g++ -std=c++20 -O2, the public include
folders) and fails when it takes more CPU time (user + system, the compiler's
own processes) or more peak memory than the budget.

    header_cost.py COMPILER SOURCE_ROOT [--cpu-s 3.0] [--rss-mb 400] [--runs 3]

The best of --runs compiles counts: a busy machine slows a compile down, but
never speeds one up.
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
    p.add_argument("--cpu-s", type=float, default=3.0)
    p.add_argument("--rss-mb", type=float, default=400)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    source = os.path.join(a.root, "tests", "structure", "header_cost.cpp")
    includes = [f"-I{os.path.join(a.root, m, 'include')}" for m in MODULES]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [a.compiler, "-std=c++20", "-O2", *includes, "-c", source, "-o", os.path.join(tmp, "first.o")]
        runs = [measure(cmd) for _ in range(a.runs)]
    cpu = min(c for c, _ in runs)
    rss = min(m for _, m in runs)
    print(f"header_cost: {os.path.basename(source)} with <kiln/kiln.h>: {cpu:.2f} s CPU, {rss:.0f} MB peak "
          f"(budget {a.cpu_s:.1f} s, {a.rss_mb:.0f} MB; best of {a.runs})")
    over = []
    if cpu > a.cpu_s:
        over.append(f"CPU {cpu:.2f} s > {a.cpu_s:.1f} s")
    if rss > a.rss_mb:
        over.append(f"memory {rss:.0f} MB > {a.rss_mb:.0f} MB")
    if over:
        sys.exit("header_cost: over budget: " + "; ".join(over) +
                 ". Keep template bodies and per-class instantiations out of the public headers "
                 "(kiln/core/fields.h and kiln/nn/layer_class.h show how).")


if __name__ == "__main__":
    main()
