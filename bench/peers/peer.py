"""One peer measurement of the real-size CPU benchmark (bench/realsize.sh), in
the same protocol as bench/realsize_bench.cpp: synthetic data, Adam(1e-3),
sparse categorical cross-entropy from logits; two untimed warm-up batches
(compilation happens there), then N timed batches. Prints one JSON line.

  peer.py --impl torch|torch_compile|keras_tensorflow|keras_jax --case resnet_train [--steps N]
  peer.py --impl torch|torch_compile --case resnet_train --device cuda [--amp bf16]
  peer.py --flops resnet       # forward FLOPs per sample (Keras's layer shapes)

Keras runs with jit_compile=True on JAX and Keras's default ("auto", XLA where
it can) on TensorFlow. PyTorch runs eagerly or under torch.compile (inductor's
C++ code generation on the CPU), NCHW. With --device cuda (bench/run_gpu.sh),
PyTorch runs on GPU 0 in channels_last (its advice for convolutions on tensor
cores), cudnn.benchmark on, TF32 off unless KILN_CUDA_TF32=1 (as Kiln), the
data in pinned host memory and each batch uploaded asynchronously, and
torch.cuda.synchronize() before the clock stops; --amp bf16 runs the forward
pass under torch.autocast with bfloat16.
"""
import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_keras(backend, name, mode, steps, batch):
    os.environ["KERAS_BACKEND"] = backend
    import keras
    import numpy as np
    rng = np.random.default_rng(0)
    n = batch * steps
    x = rng.random((n,) + models.SHAPES[name], dtype=np.float32)
    y = rng.integers(0, 10, n).astype(np.int32)
    model = models.keras_model(keras, name)
    jit = True if backend == "jax" else "auto"
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=jit)
    t0 = time.perf_counter()
    if mode == "train":
        model.fit(x[:2 * batch], y[:2 * batch], batch_size=batch, epochs=1, verbose=0, shuffle=False)
    else:
        model.predict(x[:2 * batch], batch_size=batch, verbose=0)
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    if mode == "train":
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
    else:
        model.predict(x, batch_size=batch, verbose=0)
    return time.perf_counter() - t0, warm, keras.__version__ + "/" + backend_version(backend)


def backend_version(backend):
    if backend == "jax":
        import jax
        return "jax " + jax.__version__
    import tensorflow as tf
    return "tensorflow " + tf.__version__


def run_torch(compiled, name, mode, steps, batch, device="cpu", amp=None):
    import contextlib
    import torch
    torch.manual_seed(0)
    n = batch * steps
    h, w, c = models.SHAPES[name]
    x = torch.rand(n, c, h, w)
    y = torch.randint(0, 10, (n,))
    model = models.torch_model(torch, name)
    gpu = device == "cuda"
    if gpu:
        tf32 = os.environ.get("KILN_CUDA_TF32") == "1"
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cudnn.benchmark = True
        model = model.to("cuda", memory_format=torch.channels_last)
        x, y = x.contiguous(memory_format=torch.channels_last).pin_memory(), y.pin_memory()
    step_model = torch.compile(model) if compiled else model
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)  # Keras's epsilon

    def batch_of(t, i):
        b = t[i * batch:(i + 1) * batch]
        return b.to("cuda", non_blocking=True) if gpu else b

    def autocast():
        if amp == "bf16":
            return torch.autocast("cuda" if gpu else "cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def train_batch(i):
        xb, yb = batch_of(x, i), batch_of(y, i)
        opt.zero_grad(set_to_none=True)
        with autocast():
            loss = torch.nn.functional.cross_entropy(step_model(xb), yb)
        loss.backward()
        opt.step()

    def infer_batch(i):
        with torch.inference_mode(), autocast():
            step_model(batch_of(x, i)).argmax(-1).cpu()

    if mode == "train":
        model.train()
        one = train_batch
    else:
        model.eval()
        one = infer_batch
    def sync():
        if gpu:
            torch.cuda.synchronize()

    t0 = time.perf_counter()
    for i in range(2):
        one(i)
    sync()
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in range(steps):
        one(i)
    sync()
    return time.perf_counter() - t0, warm, "torch " + torch.__version__


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--impl")
    p.add_argument("--case")
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--flops")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--amp", choices=["bf16"])
    a = p.parse_args()
    if a.flops:
        os.environ.setdefault("KERAS_BACKEND", "jax")
        import keras
        print(json.dumps({"model": a.flops, "forward_flops": models.forward_flops(keras, a.flops)}))
        return
    name, mode = a.case.rsplit("_", 1)
    batch = models.BATCH[name]
    steps = a.steps or models.STEPS[mode][name] * (5 if a.device == "cuda" else 1)  # as realsize_bench
    if a.impl in ("torch", "torch_compile"):
        seconds, warm, version = run_torch(a.impl == "torch_compile", name, mode, steps, batch, a.device, a.amp)
    elif a.impl in ("keras_tensorflow", "keras_jax"):
        seconds, warm, version = run_keras(a.impl.split("_", 1)[1], name, mode, steps, batch)
    else:
        raise SystemExit("peer.py: unknown --impl " + str(a.impl))
    n = batch * steps
    print(json.dumps({"impl": a.impl, "case": a.case, "batch": batch, "samples": n, "seconds": round(seconds, 4),
                      "samples_per_s": round(n / seconds, 2), "warmup_s": round(warm, 3),
                      "peak_rss_mb": round(peak_rss_mb(), 1), "version": version, "device": a.device,
                      "amp": a.amp or "none"}))


if __name__ == "__main__":
    main()
