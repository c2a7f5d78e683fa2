"""The Markdown table of bench/realsize.sh from its JSON lines.

usage: table.py RESULTS.jsonl COMMAND MACHINE THREADS BLAS_KERNELS ELAPSED_S

Per case: median samples/s [min-max] of each implementation, Kiln over the
fastest peer, Kiln's fraction of the sgemm bound (training counts 3x the
forward FLOPs, inference 1x, at the 1024^3 sgemm rate measured in the same
run), and each implementation's median peak RSS (with Kiln over libtorch's
when the C++ peer ran).
"""
import json
import statistics
import sys

IMPLS = ["kiln", "libtorch", "torch", "torch_compile", "keras_tensorflow", "keras_jax"]
LABEL = {"kiln": "Kiln", "libtorch": "libtorch 1.13", "torch": "PyTorch eager", "torch_compile": "torch.compile",
         "keras_tensorflow": "Keras/TF", "keras_jax": "Keras/JAX"}


def main():
    path, command, machine, threads, blas, elapsed = sys.argv[1:7]
    rows = [json.loads(line) for line in open(path) if line.strip()]
    sgemm = next((r["gflops"] for r in rows if r.get("case") == "sgemm"), None)
    flops = {r["model"]: r["forward_flops"] for r in rows if "forward_flops" in r}
    runs = {}
    for r in rows:
        if r.get("impl") in IMPLS and r.get("case") != "sgemm":
            runs.setdefault(r["case"], {}).setdefault(r["impl"], []).append(r)
    present = [i for i in IMPLS if any(i in v for v in runs.values())]
    print(f"Command: `{command}`  ")
    print(f"Machine: {machine}; {threads} threads for every implementation; OpenBLAS kernels {blas}; "
          f"sgemm 1024³ through Kiln: {sgemm:.1f} GFLOP/s  " if sgemm else f"Machine: {machine}  ")
    print(f"Wall time of the runs: {int(elapsed) // 60} min {int(elapsed) % 60} s; median [min–max] of the rounds.\n")
    print("| case | " + " | ".join(LABEL[i] + " samples/s" for i in present) +
          " | Kiln / fastest peer | Kiln, share of sgemm bound |")
    print("|---" * (len(present) + 3) + "|")
    rss_lines = []
    for case, by_impl in runs.items():
        med, cells, rss, rss_med = {}, [], [], {}
        for i in present:
            ok = [r for r in by_impl.get(i, []) if "samples_per_s" in r]
            if not ok:
                cells.append("failed" if i in by_impl else "–")
                rss.append("–")
                continue
            v = [r["samples_per_s"] for r in ok]
            med[i] = statistics.median(v)
            cells.append(f"{med[i]:,.0f} [{min(v):,.0f}–{max(v):,.0f}]" if len(v) > 1 else f"{med[i]:,.0f}")
            rss_med[i] = statistics.median(r['peak_rss_mb'] for r in ok)
            rss.append(f"{rss_med[i]:,.0f}")
        peers = [med[i] for i in med if i != "kiln"]
        ratio = f"**{med['kiln'] / max(peers):.2f}×**" if "kiln" in med and peers else "–"
        model, mode = case.rsplit("_", 1)
        share = "–"
        if "kiln" in med and sgemm and model in flops:
            per_sample = flops[model] * (3 if mode == "train" else 1)
            share = f"{med['kiln'] * per_sample / (sgemm * 1e9):.0%}"
        print(f"| `{case}` | " + " | ".join(cells) + f" | {ratio} | {share} |")
        if "libtorch" in present:
            rss.append(f"**{rss_med['kiln'] / rss_med['libtorch']:.2f}×**" if "kiln" in rss_med and "libtorch" in rss_med
                       else "–")
        rss_lines.append(f"| `{case}` | " + " | ".join(rss) + " |")
    print("\nPeak RSS (MiB, median of the rounds; the Python peers include their interpreter and framework):\n")
    against = ["Kiln / libtorch"] if "libtorch" in present else []
    print("| case | " + " | ".join([LABEL[i] for i in present] + against) + " |")
    print("|---" * (len(present) + 1 + len(against)) + "|")
    print("\n".join(rss_lines))
    versions = {r["impl"]: r["version"] for r in rows if "version" in r}
    if versions:
        print("\nPeers: " + "; ".join(f"{LABEL[i]} = {v}" for i, v in versions.items()) + ".")
    print("\nForward GFLOP per sample: " + ", ".join(f"{m} {f / 1e9:.3f}" for m, f in flops.items()) + ".")


if __name__ == "__main__":
    main()
