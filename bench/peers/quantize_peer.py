"""The peers of bench/quantize_bench.cpp: PyTorch eager in float32 and after
torch.ao.quantization.quantize_dynamic (int8 Linear layers), and Keras 3 on
JAX in float32 and after model.quantize("int8"), on the same MLP (784-512-512-10)
and transformer encoder block (sequence 128, width 256, 4 heads, feed-forward
1024). Prints one JSON line per measurement, as the Kiln side does.

    python quantize_peer.py torch|keras REPS MLP_BATCH BLOCK_BATCH THREADS
"""
import json
import os
import statistics
import sys
import time

import numpy as np


def alternating_ms(f, g, reps):
    """Median milliseconds per call of f and of g, called in turn after a warm-up call each."""
    f()
    g()
    fs, gs = [], []
    for _ in range(reps):
        for call, ms in ((f, fs), (g, gs)):
            t0 = time.perf_counter()
            call()
            ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(fs), statistics.median(gs)


def line(peer, model, dtype, batch, ms):
    print(json.dumps({"peer": peer, "model": model, "dtype": dtype, "batch": batch, "ms": ms}), flush=True)


def run_torch(reps, mlp_batch, block_batch, threads):
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.att = nn.MultiheadAttention(256, 4, batch_first=True)
            self.ln1 = nn.LayerNorm(256, eps=1e-6)
            self.ff1, self.ff2 = nn.Linear(256, 1024), nn.Linear(1024, 256)
            self.ln2 = nn.LayerNorm(256, eps=1e-6)

        def forward(self, x):
            h = self.ln1(x + self.att(x, x, x, need_weights=False)[0])
            return self.ln2(h + self.ff2(torch.relu(self.ff1(h))))

    cases = [("mlp", nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)),
              torch.randn(mlp_batch, 784), mlp_batch),
             ("encoder_block", Block(), torch.randn(block_batch, 128, 256), block_batch)]
    for name, model, x, batch in cases:
        model.eval()
        quantized = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
        with torch.inference_mode():
            float_ms, int8_ms = alternating_ms(lambda: model(x), lambda: quantized(x), reps)
        line("pytorch", name, "float32", batch, float_ms)
        line("pytorch", name, "int8", batch, int8_ms)


def run_keras(reps, mlp_batch, block_batch):
    import keras
    from keras import layers

    keras.utils.set_random_seed(0)
    x = keras.Input((784,))
    h = layers.Dense(512, activation="relu")(x)
    h = layers.Dense(512, activation="relu")(h)
    mlp = keras.Model(x, layers.Dense(10)(h))
    x = keras.Input((128, 256))
    a = layers.MultiHeadAttention(4, 64)(x, x)
    h = layers.LayerNormalization(epsilon=1e-6)(x + a)
    f = layers.Dense(256)(layers.Dense(1024, activation="relu")(h))
    block = keras.Model(x, layers.LayerNormalization(epsilon=1e-6)(h + f))
    rng = np.random.default_rng(0)
    for name, model, x, batch in [("mlp", mlp, rng.standard_normal((mlp_batch, 784), np.float32), mlp_batch),
                                  ("encoder_block", block, rng.standard_normal((block_batch, 128, 256), np.float32),
                                   block_batch)]:
        quantized = keras.models.clone_model(model)
        quantized.set_weights(model.get_weights())
        quantized.quantize("int8")
        float_ms, int8_ms = alternating_ms(lambda: model.predict_on_batch(x), lambda: quantized.predict_on_batch(x),
                                           reps)
        line("keras_jax", name, "float32", batch, float_ms)
        line("keras_jax", name, "int8", batch, int8_ms)


if __name__ == "__main__":
    which, reps, mlp_batch, block_batch, threads = sys.argv[1], *map(int, sys.argv[2:6])
    if which == "torch":
        run_torch(reps, mlp_batch, block_batch, threads)
    else:
        run_keras(reps, mlp_batch, block_batch)
