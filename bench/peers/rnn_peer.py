"""One peer measurement of bench/rnn_train.sh: the training step of the networks
that `rnn_bench --model CASE` times in Kiln (bench/rnn_bench.cpp), on the same
kind of synthetic data, with Adam(1e-3). Two untimed batches first (compilation
happens there), then --steps timed ones. Prints one JSON line.

  rnn_peer.py --impl keras_jax|torch --case language_id|language_id_mask|imdb [--steps N] [--device cuda]

Keras runs fit with jit_compile=True on JAX (mask_zero for language_id_mask).
PyTorch runs eagerly, nn.LSTM(bidirectional=True) (its fused CPU LSTM); the
masked case packs the padded batch (pack_padded_sequence), PyTorch's way of
giving an LSTM sequences of different lengths. With --device cuda (bench/run_gpu.sh)
the network runs on GPU 0 through cuDNN's LSTM, each batch is uploaded from pinned
memory, and torch.cuda.synchronize() runs before the clock stops.
"""
import argparse
import json
import os
import time

CASES = {  # vocabulary, length, batch, shortest word
    "language_id": (61, 16, 128, 16),
    "language_id_mask": (61, 16, 128, 2),
    "imdb": (20000, 200, 32, 200),
}


def data(case, steps):
    import numpy as np
    vocab, length, batch, shortest = CASES[case]
    rng = np.random.default_rng(7)
    n = batch * steps
    lengths = rng.integers(shortest, length + 1, n)
    x = rng.integers(1, vocab, (n, length)).astype(np.int64)
    x[np.arange(length)[None, :] >= lengths[:, None]] = 0
    y = rng.integers(0, 2 if case == "imdb" else 7, n)
    return x, y, lengths, batch


def run_keras(case, steps):
    os.environ["KERAS_BACKEND"] = "jax"
    import keras
    from keras import layers
    x, y, _, batch = data(case, steps)
    vocab, length = CASES[case][:2]
    if case == "imdb":
        model = keras.Sequential([keras.Input((length,), dtype="int32"), layers.Embedding(vocab, 128),
                                  layers.Bidirectional(layers.LSTM(64, return_sequences=True)),
                                  layers.Bidirectional(layers.LSTM(64)), layers.Dense(1, activation="sigmoid")])
        loss = "binary_crossentropy"
        y = y.astype("float32")
    else:
        model = keras.Sequential([keras.Input((length,), dtype="int32"),
                                  layers.Embedding(vocab, 32, mask_zero=case.endswith("mask")),
                                  layers.Bidirectional(layers.LSTM(128)), layers.Dense(7, activation="softmax")])
        loss = "sparse_categorical_crossentropy"
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=loss, jit_compile=True)
    x = x.astype("int32")
    model.fit(x[:2 * batch], y[:2 * batch], batch_size=batch, epochs=1, verbose=0, shuffle=False)
    t0 = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
    import jax
    return time.perf_counter() - t0, f"keras {keras.__version__}, jax {jax.__version__}"


def run_torch(case, steps, threads, device="cpu"):
    import torch
    from torch import nn
    torch.set_num_threads(threads)
    gpu = device == "cuda"
    x, y, lengths, batch = data(case, steps)
    vocab = CASES[case][0]
    imdb = case == "imdb"
    packed = case.endswith("mask")

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            dim, units = (128, 64) if imdb else (32, 128)
            self.emb = nn.Embedding(vocab, dim)
            self.lstm = nn.LSTM(dim, units, num_layers=2 if imdb else 1, batch_first=True, bidirectional=True)
            self.out = nn.Linear(2 * units, 1 if imdb else 7)

        def forward(self, ids, lens):
            e = self.emb(ids)
            if packed:
                e = nn.utils.rnn.pack_padded_sequence(e, lens, batch_first=True, enforce_sorted=False)
            _, (h, _) = self.lstm(e)
            return self.out(torch.cat([h[-2], h[-1]], dim=1))  # the last layer's two directions

    net = Net()
    if gpu:  # cuDNN's LSTM; the lengths of packed sequences stay on the host, as PyTorch asks
        torch.backends.cudnn.benchmark = True
        net = net.cuda()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.BCEWithLogitsLoss() if imdb else nn.CrossEntropyLoss()
    xt, yt, lt = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(lengths)
    yt = yt.float()[:, None] if imdb else yt
    if gpu:
        xt, yt = xt.pin_memory(), yt.pin_memory()

    def on_device(t):
        return t.to("cuda", non_blocking=True) if gpu else t

    def step(i):
        s = slice(i * batch, (i + 1) * batch)
        opt.zero_grad()
        loss = loss_fn(net(on_device(xt[s]), lt[s]), on_device(yt[s]))
        loss.backward()
        opt.step()

    def sync():
        if gpu:
            torch.cuda.synchronize()

    for i in range(2):
        step(i)
    sync()
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    sync()
    return time.perf_counter() - t0, f"torch {torch.__version__}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", required=True, choices=["keras_jax", "torch"])
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    a = ap.parse_args()
    if a.impl == "keras_jax":
        seconds, version = run_keras(a.case, a.steps)
    else:
        seconds, version = run_torch(a.case, a.steps, a.threads, a.device)
    print(json.dumps({"impl": a.impl, "case": a.case, "ms_per_step": round(1000 * seconds / a.steps, 3),
                      "steps": a.steps, "version": version, "device": a.device}))


if __name__ == "__main__":
    main()
