#!/usr/bin/env python3
"""PyTorch eager peer of kiln_bench's GPU cases. See bench/README.md, "GPU mode".

One measurement per process, one JSON line on stdout, in kiln_bench's format with "impl":"pytorch":

  python3 bench/torch_gpu_bench.py --case gpu_cnn_train_b64    # guide CNN, one epoch of 60,000, batch 64
  python3 bench/torch_gpu_bench.py --case gpu_cnn_train_b512   # the same at batch 512
  python3 bench/torch_gpu_bench.py --case gpu_cnn_infer        # 10,000 test images, batch 1000
  python3 bench/torch_gpu_bench.py --list

Options: --graphs (capture the whole training step, or the inference forward pass, in one CUDA Graph
and replay it per batch, PyTorch's own recipe for launch-bound models; "impl":"pytorch_graphs"), --data DIR (Fashion-MNIST IDX .gz files, default /usr/share/datasets/fashion-mnist),
--samples N (training images), --data-on-device (keep the whole data set on the GPU instead of copying each
batch from pinned host memory, as Kiln's fit does; a stricter peer).

Without torch or without a CUDA device it prints {"impl":"pytorch","case":...,"skipped":"..."} and exits 0.

What it does mirrors kiln_bench's GPU cases: the model is built and moved to cuda:0 outside the timer, five
untimed warm-up steps run first, the epoch is a randperm shuffle with one host-to-device copy per batch, and
torch.cuda.synchronize() runs before the timer stops. cudnn.benchmark is on (Kiln's default: it times the
cuDNN convolution algorithms). TF32 follows KILN_CUDA_TF32 as Kiln does: off unless KILN_CUDA_TF32=1.
"""
import argparse
import gzip
import json
import os
import resource
import sys
import time

CASES = ["gpu_cnn_train_b64", "gpu_cnn_train_b512", "gpu_cnn_infer"]
DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"


def emit(obj):
    print(json.dumps(obj, separators=(",", ":")), flush=True)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def read_idx(torch, path, offset):
    """An IDX .gz file as a flat uint8 tensor (offset: 16 for images, 8 for labels)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    return torch.frombuffer(bytearray(raw[offset:]), dtype=torch.uint8)


def load_fashion(torch, data_dir, n_train):
    names = {
        "x_train": ("train-images-idx3-ubyte.gz", 16),
        "y_train": ("train-labels-idx1-ubyte.gz", 8),
        "x_test": ("t10k-images-idx3-ubyte.gz", 16),
        "y_test": ("t10k-labels-idx1-ubyte.gz", 8),
    }
    missing = [n for n, _ in names.values() if not os.path.exists(os.path.join(data_dir, n))]
    if missing:
        raise SystemExit(f"torch_gpu_bench: Fashion-MNIST files missing in {data_dir}: {', '.join(missing)} "
                         f"(use --data DIR)")
    d = {k: read_idx(torch, os.path.join(data_dir, n), off) for k, (n, off) in names.items()}
    # NCHW (N, 1, 28, 28) float32 in [0, 1]; with one channel these are the same bytes as Kiln's NHWC.
    for k in ("x_train", "x_test"):
        d[k] = (d[k].view(-1, 1, 28, 28).to(torch.float32) / 255.0).contiguous()
    for k in ("y_train", "y_test"):
        d[k] = d[k].to(torch.int64)
    if n_train is not None and 0 <= n_train < d["x_train"].shape[0]:
        d["x_train"] = d["x_train"][:n_train].clone()
        d["y_train"] = d["y_train"][:n_train].clone()
    return d


def guide_cnn(nn):
    """The guide CNN (KERAS.md), as bench/torch_bench.cpp builds it: 347,274 parameters."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.1),
        nn.Linear(5408, 64), nn.ReLU(),
        nn.BatchNorm1d(64, eps=1e-3, momentum=0.01),  # Keras momentum 0.99, epsilon 1e-3
        nn.Linear(64, 10),
    )


def to_host_source(torch, x, on_device, dev):
    return x.to(dev) if on_device else x.pin_memory()


def train_case(torch, args, case, batch, dev):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    d = load_fashion(torch, args.data, args.samples)
    x, y = d["x_train"], d["y_train"]
    n = x.shape[0]
    x = to_host_source(torch, x, args.data_on_device, dev)
    y = to_host_source(torch, y, args.data_on_device, dev)
    model = guide_cnn(nn).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)  # Keras defaults

    def epoch(count):
        """One shuffled pass over the first `count` images; returns the mean loss as a device tensor."""
        model.train()
        perm = torch.randperm(count, device=x.device)
        total = torch.zeros((), device=dev)
        steps = 0
        for start in range(0, count, batch):
            idx = perm[start:start + batch]
            xb, yb = x.index_select(0, idx), y.index_select(0, idx)
            if not args.data_on_device:  # a pinned staging copy, then an asynchronous upload
                xb = xb.pin_memory().to(dev, non_blocking=True)
                yb = yb.pin_memory().to(dev, non_blocking=True)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.detach()  # no item() per step: the host does not wait on the GPU
            steps += 1
        return total / max(steps, 1)

    epoch(min(n, 5 * batch))  # warm-up: CUDA context, cuBLAS/cuDNN handles, algorithm search, allocator
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    mean_loss = epoch(n)
    torch.cuda.synchronize()
    s = time.perf_counter() - t0
    rss = peak_rss_mb()
    out = {"impl": "pytorch", "case": case, "device": torch.cuda.get_device_name(0), "batch": batch,
           "samples": n, "seconds": s, "samples_per_s": n / s, "final_loss": float(mean_loss.item())}
    out["test_acc"] = accuracy(torch, model, d["x_test"], d["y_test"], dev)  # untimed check
    out["peak_rss_mb"] = rss
    return out


def train_case_graphs(torch, args, case, batch, dev):
    """The training step (forward, backward, Adam) captured once as a CUDA Graph and replayed per batch
    (torch.cuda.graphs' whole-network recipe; Adam with capturable=True). A graph has a fixed batch size, so
    the epoch's last partial batch is dropped and the rate counts the images actually trained on."""
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    d = load_fashion(torch, args.data, args.samples)
    x, y = d["x_train"].pin_memory(), d["y_train"].pin_memory()
    n = x.shape[0]
    model = guide_cnn(nn).to(dev)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7, capturable=True)
    static_x = x[:batch].to(dev).clone()
    static_y = y[:batch].to(dev).clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the graph, as the recipe requires
        for _ in range(5):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(static_x), static_y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        static_loss = F.cross_entropy(model(static_x), static_y)
        static_loss.backward()
        opt.step()
    torch.cuda.synchronize()
    full = (n // batch) * batch
    t0 = time.perf_counter()
    perm = torch.randperm(n)
    total = torch.zeros((), device=dev)
    for start in range(0, full, batch):
        idx = perm[start:start + batch]
        static_x.copy_(x.index_select(0, idx).pin_memory(), non_blocking=True)
        static_y.copy_(y.index_select(0, idx).pin_memory(), non_blocking=True)
        graph.replay()
        total += static_loss.detach()
    torch.cuda.synchronize()
    s = time.perf_counter() - t0
    out = {"impl": "pytorch_graphs", "case": case, "device": torch.cuda.get_device_name(0), "batch": batch,
           "samples": full, "seconds": s, "samples_per_s": full / s, "final_loss": float((total / (full // batch)).item())}
    out["test_acc"] = accuracy(torch, model, d["x_test"], d["y_test"], dev)
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def infer_case_graphs(torch, args, dev, batch=1000):
    """The forward pass captured as a CUDA Graph (eval mode, batch 1000), replayed per batch."""
    torch.manual_seed(0)
    d = load_fashion(torch, args.data, 0)
    x = d["x_test"].pin_memory()
    model = guide_cnn(torch.nn).to(dev).eval()
    static_x = x[:batch].to(dev).clone()
    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = model(static_x)

    def run():
        outs = []
        for start in range(0, x.shape[0], batch):
            static_x.copy_(x[start:start + batch], non_blocking=True)
            graph.replay()
            outs.append(static_out.to("cpu", non_blocking=False))
        return torch.cat(outs)

    run()  # warm-up
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    logits = run()
    torch.cuda.synchronize()
    s = time.perf_counter() - t0
    n = x.shape[0]
    acc = float((logits.argmax(-1) == d["y_test"]).to(torch.float32).mean().item())
    return {"impl": "pytorch_graphs", "case": "gpu_cnn_infer", "device": torch.cuda.get_device_name(0),
            "batch": batch, "samples": n, "seconds": s, "samples_per_s": n / s, "accuracy": acc,
            "peak_rss_mb": peak_rss_mb()}


def predict(torch, model, x, dev, batch=1000):
    """Logits on the host, as Kiln's predict returns them."""
    model.eval()
    outs = []
    with torch.no_grad():
        for start in range(0, x.shape[0], batch):
            xb = x[start:start + batch].to(dev, non_blocking=True)
            outs.append(model(xb).to("cpu", non_blocking=False))
    return torch.cat(outs)


def accuracy(torch, model, x, y, dev):
    logits = predict(torch, model, x, dev)
    return float((logits.argmax(-1) == y).to(torch.float32).mean().item())


def infer_case(torch, args, dev):
    torch.manual_seed(0)
    d = load_fashion(torch, args.data, 0)
    x = d["x_test"].pin_memory()
    model = guide_cnn(torch.nn).to(dev)
    predict(torch, model, x, dev)  # warm-up
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    logits = predict(torch, model, x, dev)
    torch.cuda.synchronize()
    s = time.perf_counter() - t0
    n = x.shape[0]
    acc = float((logits.argmax(-1) == d["y_test"]).to(torch.float32).mean().item())
    return {"impl": "pytorch", "case": "gpu_cnn_infer", "device": torch.cuda.get_device_name(0), "batch": 1000,
            "samples": n, "seconds": s, "samples_per_s": n / s, "accuracy": acc, "peak_rss_mb": peak_rss_mb()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", choices=CASES)
    p.add_argument("--list", action="store_true")
    p.add_argument("--data", default=DEFAULT_DATA, help="Fashion-MNIST IDX .gz directory")
    p.add_argument("--samples", type=int, default=None, help="number of training images (default all)")
    p.add_argument("--data-on-device", action="store_true", help="keep the data set on the GPU")
    p.add_argument("--graphs", action="store_true", help="capture the step in a CUDA Graph and replay it")
    args = p.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    if not args.case:
        p.error("--case NAME is required (--list shows the names)")

    try:
        import torch
    except ImportError:
        emit({"impl": "pytorch_graphs" if args.graphs else "pytorch", "case": args.case,
              "skipped": "torch is not installed"})
        return 0
    if not torch.cuda.is_available():
        emit({"impl": "pytorch_graphs" if args.graphs else "pytorch", "case": args.case, "skipped": "no CUDA device"})
        return 0

    tf32 = os.environ.get("KILN_CUDA_TF32") == "1"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda", 0)
    batch = 64 if args.case.endswith("b64") else 512
    if args.graphs:
        out = infer_case_graphs(torch, args, dev) if args.case == "gpu_cnn_infer" else \
            train_case_graphs(torch, args, args.case, batch, dev)
    elif args.case == "gpu_cnn_infer":
        out = infer_case(torch, args, dev)
    else:
        out = train_case(torch, args, args.case, batch, dev)
    out["torch"] = torch.__version__
    emit(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
