"""The Markdown table of `bench/realsize.sh --load N` from its JSON lines.

usage: contention_table.py RESULTS.jsonl COMMAND MACHINE THREADS LOAD

Per case and implementation: the median samples/s quiet and beside the load,
and the slowdown (quiet over loaded). Kiln's slowdown is then compared with
the smallest of the peers' (1.0 = it suffers no more than the most robust peer).
"""
import json
import statistics
import sys

LABEL = {"kiln": "Kiln", "libtorch": "libtorch 1.13", "torch": "PyTorch eager", "torch_compile": "torch.compile",
         "keras_tensorflow": "Keras/TF", "keras_jax": "Keras/JAX"}


def main():
    path, command, machine, threads, load = sys.argv[1:6]
    rows = [json.loads(line) for line in open(path) if line.strip()]
    runs = {}
    for r in rows:
        if "samples_per_s" in r:
            runs.setdefault(r["case"], {}).setdefault(r["impl"], {}).setdefault(r["load"] > 0, []).append(
                r["samples_per_s"])
    print(f"Command: `{command}`  ")
    print(f"Machine: {machine}; {threads} threads per implementation; load: {load} busy processes  \n")
    print("| case | implementation | quiet samples/s | loaded samples/s | slowdown | Kiln's slowdown / peer's |")
    print("|---|---|---|---|---|---|")
    for case, impls in runs.items():
        slow = {}
        for impl, by_load in impls.items():
            if False in by_load and True in by_load:
                slow[impl] = statistics.median(by_load[False]) / statistics.median(by_load[True])
        for impl, by_load in impls.items():
            quiet = statistics.median(by_load[False]) if False in by_load else float("nan")
            loaded = statistics.median(by_load[True]) if True in by_load else float("nan")
            rel = ""
            if impl != "kiln" and "kiln" in slow and impl in slow:
                rel = f"{slow['kiln'] / slow[impl]:.2f}"
            s = f"{slow[impl]:.2f}x" if impl in slow else "-"
            print(f"| {case} | {LABEL.get(impl, impl)} | {quiet:.1f} | {loaded:.1f} | {s} | {rel} |")


if __name__ == "__main__":
    main()
