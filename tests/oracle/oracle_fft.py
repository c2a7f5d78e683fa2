"""Fourier transforms: keras.ops.fft, fft2, ifft2, rfft, irfft, stft and istft (JAX
backend) against Kiln's ops of the same names (kiln/ops/fft_ops.h), on random float32
inputs of odd and even lengths, with keras.ops' keyword arguments: every output
(a complex result as its real and imaginary parts) and the gradient of
sum_i(output_i * cotangent_i) with respect to every input (jax.vjp against Kiln's
tape). Keras 3.15 has no 1-D ifft; tests/framework/test_fft_ops.cpp checks Kiln's
against numpy.fft.ifft."""
import jax
import keras
import numpy as np
from keras import ops

# (op, keyword arguments, input shapes: one real input, or the real and imaginary parts).
CASES = [
    ("fft", {}, [(3, 7), (3, 7)]),
    ("fft", {}, [(2, 3, 8), (2, 3, 8)]),
    ("fft2", {}, [(2, 5, 6), (2, 5, 6)]),
    ("ifft2", {}, [(2, 5, 7), (2, 5, 7)]),
    ("rfft", {}, [(3, 9)]),
    ("rfft", {"fft_length": 6}, [(3, 9)]),
    ("rfft", {"fft_length": 14}, [(2, 2, 9)]),
    ("irfft", {}, [(3, 5), (3, 5)]),
    ("irfft", {"fft_length": 9}, [(3, 5), (3, 5)]),
    ("irfft", {"fft_length": 6}, [(2, 6), (2, 6)]),
    ("stft", {"sequence_length": 11, "sequence_stride": 4, "fft_length": 16}, [(2, 37)]),
    ("stft", {"sequence_length": 9, "sequence_stride": 3, "fft_length": 12, "window": "hamming", "center": False},
     [(2, 37)]),
    ("stft", {"sequence_length": 8, "sequence_stride": 5, "fft_length": 8, "window": None}, [(3, 2, 29)]),
    ("stft", {"sequence_length": 5, "sequence_stride": 2, "fft_length": 7,
              "window": [0.2, 0.7, 1.0, 0.6, 0.3]}, [(2, 21)]),
    ("istft", {"sequence_length": 12, "sequence_stride": 4, "fft_length": 16}, [(2, 7, 9), (2, 7, 9)]),
    ("istft", {"sequence_length": 16, "sequence_stride": 5, "fft_length": 16, "length": 30, "window": "hamming",
               "center": False}, [(2, 7, 9), (2, 7, 9)]),
    ("istft", {"sequence_length": 10, "sequence_stride": 3, "fft_length": 16, "window": None}, [(1, 6, 9), (1, 6, 9)]),
    ("istft", {"sequence_length": 15, "sequence_stride": 4, "fft_length": 15, "length": 21}, [(2, 6, 8), (2, 6, 8)]),
]


def keras_call(name, params, xs):
    """keras.ops.<name>, its outputs as a tuple; complex inputs go in as a (real, imag) pair."""
    fn = getattr(ops, name)
    kw = dict(params)
    if name in ("stft", "istft"):
        args = (kw.pop("sequence_length"), kw.pop("sequence_stride"), kw.pop("fft_length"))
        if isinstance(kw.get("window"), list):
            kw["window"] = np.asarray(kw["window"], np.float32)
    else:
        args = ()
    x = xs[0] if len(xs) == 1 else (xs[0], xs[1])
    out = fn(x, *args, **kw)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def run(o):
    expected = []
    for n, (name, params, shapes) in enumerate(CASES):
        xs = [o.rng.normal(0, 1, s).astype(np.float32) for s in shapes]
        outs, vjp = jax.vjp(lambda *a: keras_call(name, params, list(a)), *xs)
        outs = [np.asarray(y) for y in outs]
        cots = [o.rng.normal(0, 1, y.shape).astype(np.float32) for y in outs]
        grads = [np.asarray(g) for g in vjp(tuple(cots))]
        cid = "%s%d" % (name, n)
        o.add({"id": cid, "name": name, "params": params, "inputs": [o.arr(x) for x in xs],
               "cotangents": [o.arr(c) for c in cots]})
        label = "%s(%s) on %s" % (name, ", ".join("%s=%s" % kv for kv in params.items()),
                                  " and ".join(str(s) for s in shapes))
        expected.append((cid, label, outs, grads))
    o.run_kiln()
    # Sums of products of float32 values: 1e-5 relative, the absolute floor 1e-5 of the largest value.
    tol = lambda a: dict(rtol=1e-5, atol=1e-5 * max(1.0, float(np.max(np.abs(a))) if np.size(a) else 1.0))
    for cid, label, outs, grads in expected:
        if o.kiln_error(cid):
            continue
        for i, y in enumerate(outs):
            o.compare("%s: output %d" % (label, i), o.out(cid, "out_%d" % i), y, **tol(y))
        for j, g in enumerate(grads):
            o.compare("%s: d/d input %d" % (label, j), o.out(cid, "grad_%d" % j), g, **tol(g))
    o.uncovered.append(("keras.ops.ifft", "Keras 3.15 has no 1-D ifft; Kiln's kiln::ifft is checked against "
                                          "numpy.fft.ifft in tests/framework/test_fft_ops.cpp"))
