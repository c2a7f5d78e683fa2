#!/usr/bin/env bash
# Data-parallel scaling on this machine, and the ring all-reduce cost model.
#
#   bench/distribute_bench.sh [BUILD_DIR] [ROUNDS] [CNN_STEPS] [RESNET_STEPS]
#
# For the guide CNN and a ResNet-style CNN on 32x32x3 (bench/distribute_bench.cpp),
# alternately: 1 rank with every core, then `mpirun -np 2` with the cores split
# (KILN_NUM_THREADS), both at global batch 64. Prints the medians, the speedup,
# the time each step waited on communication, and the model of bench/README.md
# ("Data-parallel scaling") evaluated with the measured compute time and
# gradient size: predicted efficiency at 2, 8, 32 and 128 ranks on 10 and
# 100 Gbit/s links. Needs Open MPI (apt install libopenmpi-dev openmpi-bin).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROUNDS=${2:-3}
CNN_STEPS=${3:-60}
RESNET_STEPS=${4:-8}
BIN="$BUILD/bench/distribute_bench"
[ -x "$BIN" ] || { echo "build $BIN first (cmake --build $BUILD --target distribute_bench)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
CORES=$(nproc)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for round in $(seq "$ROUNDS"); do
  for model in cnn resnet; do
    steps=$CNN_STEPS
    [ $model = resnet ] && steps=$RESNET_STEPS
    KILN_NUM_THREADS=$CORES "$BIN" --model $model --steps "$steps" >>"$OUT"
    KILN_NUM_THREADS=$((CORES / 2 > 0 ? CORES / 2 : 1)) mpirun -np 2 --oversubscribe --bind-to none \
      -x KILN_NUM_THREADS "$BIN" --model $model --steps "$steps" >>"$OUT"
  done
done
python3 - "$OUT" "$CORES" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
cores = int(sys.argv[2])
med = {}
for r in rows:
    med.setdefault((r["model"], r["ranks"]), []).append(r)
def m(model, ranks, key):
    return statistics.median(x[key] for x in med[(model, ranks)])
print(f"Measured on {cores} cores, global batch 64 (medians of {len(med[('cnn', 1)])} alternating rounds):\n")
print("| model | ranks | ms/step | samples/s | speedup | waited on communication | gradients |")
print("|---|---|---|---|---|---|---|")
for model in ("cnn", "resnet"):
    s1 = m(model, 1, "samples_per_s")
    for ranks in (1, 2):
        step, sps, wait = m(model, ranks, "step_ms"), m(model, ranks, "samples_per_s"), m(model, ranks, "wait_ms_per_step")
        mb = med[(model, ranks)][0]["gradient_bytes"] / 1e6
        print(f"| {model} | {ranks} | {step:.2f} | {sps:.0f} | {sps / s1:.2f}x | {wait:.2f} ms ({100 * wait / step:.0f}%) | {mb:.2f} MB |")

# Ring all-reduce: each rank sends and receives 2(N-1)/N of the bytes, in
# 2(N-1) steps per bucket, each paying the link latency; rings reach about 70%
# of the link rate. Weak scaling: every rank keeps the measured one-rank step
# (batch 64 on this machine's cores). The buckets start during the backward
# pass (about 2/3 of a step), so only communication beyond it shows.
EFFICIENCY, OVERLAP = 0.7, 2 / 3
def predicted(compute, grad, n, bw, lat):
    buckets = max(1, -(-(grad - 1e6) // 25e6) + 1)
    comm = 2 * (n - 1) / n * grad / (EFFICIENCY * bw) + 2 * (n - 1) * lat * buckets
    return compute / (compute + max(0.0, comm - OVERLAP * compute))
links = {"10 Gbit/s (TCP, 25 us)": (10e9 / 8, 25e-6), "100 Gbit/s (RDMA, 3 us)": (100e9 / 8, 3e-6)}
print("\nPredicted scaling efficiency (compute / (compute + exposed communication)):\n")
print("| model | link | 2 | 8 | 32 | 128 |")
print("|---|---|---|---|---|---|")
for model in ("cnn", "resnet"):
    compute = m(model, 1, "step_ms") / 1e3
    grad = med[(model, 1)][0]["gradient_bytes"]
    for name, (bw, lat) in links.items():
        cells = [f"{100 * predicted(compute, grad, n, bw, lat):.0f}%" for n in (2, 8, 32, 128)]
        print(f"| {model} | {name} | " + " | ".join(cells) + " |")
# The same model on Horovod's published setting (Sergeev & Del Balso 2018: 128
# servers of 4 Pascal GPUs, 25 Gbit/s RoCE; the 4 GPUs of a server share its
# link, so the ring between servers carries each server's whole gradient).
# Step times are P100 throughputs at batch 64 per GPU (assumed, from the
# TensorFlow benchmarks of the time): ResNet-101 ~ 0.5 s, Inception V3 ~ 0.45 s, VGG-16 ~ 0.45 s.
print("\nThe model against Horovod's published efficiency at 512 GPUs (25 Gbit/s):\n")
print("| model | gradients | predicted | published |")
print("|---|---|---|---|")
for name, params, step, published in (("ResNet-101", 44.5e6, 0.5, "90%"), ("Inception V3", 23.8e6, 0.45, "90%"),
                                      ("VGG-16", 138e6, 0.45, "68%")):
    eff = predicted(step, params * 4, 128, 25e9 / 8, 5e-6)
    print(f"| {name} | {params * 4 / 1e6:.0f} MB | {100 * eff:.0f}% | {published} |")
PY
