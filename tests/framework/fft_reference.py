"""Computes the expected values of tests/framework/test_fft_ops.cpp and
tests/layers/test_spectrogram_values.cpp with NumPy, SciPy and Keras 3.15 (JAX backend), on the
inputs sig() makes (the C++ tests make the same ones). Run it in the oracle's venv:
    build/oracle-venv/bin/python tests/framework/fft_reference.py
Each line is a name, the expected arrays as C++ initializer lists (|-separated) and the shape."""
import os
os.environ["KERAS_BACKEND"] = "jax"
import numpy as np, keras, scipy.signal
from keras import ops

def sig(shape, a=0.7, b=0.1, c=0.0):
    n = int(np.prod(shape)); i = np.arange(n, dtype=np.float64)
    return (np.sin(a * i + c) + b * np.cos(1.3 * i)).reshape(shape)

def lit(a):
    a = np.asarray(a, dtype=np.float64).ravel()
    return "{" + ", ".join("%.8g" % v for v in a) + "}"

out = {}
re = sig((2, 5)); im = sig((2, 5), 0.4, 0.3, 1.0)
f = np.fft.fft(re + 1j * im); out["fft"] = (f.real, f.imag)
f = np.fft.ifft(re + 1j * im); out["ifft"] = (f.real, f.imag)
re3 = sig((2, 3, 4)); im3 = sig((2, 3, 4), 0.4, 0.3, 1.0)
f = np.fft.fft2(re3 + 1j * im3); out["fft2"] = (f.real, f.imag)
f = np.fft.ifft2(re3 + 1j * im3); out["ifft2"] = (f.real, f.imag)
x = sig((2, 7))
for n in (None, 5, 10):
    f = np.fft.rfft(x, n=n); out["rfft_%s" % n] = (f.real, f.imag)
zr = sig((2, 4), 0.9); zi = sig((2, 4), 0.5, 0.2, 0.3)
for n in (None, 7, 3):
    out["irfft_%s" % n] = (np.fft.irfft(zr + 1j * zi, n=n),)
xs = sig((2, 23)).astype(np.float32)
for name, args in {"stft_a": (8, 3, 8, "hann", True), "stft_b": (7, 4, 10, "hamming", False), "stft_c": (5, 2, 6, None, True)}.items():
    r, i = ops.stft(xs, *args[:3], window=args[3], center=args[4])
    out[name] = (np.asarray(r), np.asarray(i))
# istft of arbitrary frames (not an stft's), as Keras computes it
fr = sig((2, 6, 5), 0.3).astype(np.float32); fi = sig((2, 6, 5), 0.8, 0.2, 0.5).astype(np.float32)
out["istft_a"] = (np.asarray(ops.istft((fr, fi), 8, 3, 8)),)
out["istft_b"] = (np.asarray(ops.istft((fr, fi), 7, 2, 8, length=12, window="hamming", center=False)),)
out["istft_c"] = (np.asarray(ops.istft((fr, fi), 6, 4, 8, window=None)),)
for name in ["hann", "hamming", "blackman", "bartlett", "boxcar", "triang", "cosine", "nuttall", "blackmanharris", "flattop"]:
    for m in (7, 8):
        out["win_%s_%d_p" % (name, m)] = (scipy.signal.get_window(name, m, fftbins=True),)
        out["win_%s_%d_s" % (name, m)] = (scipy.signal.get_window(name, m, fftbins=False),)
init = keras.initializers.STFT("real", "hann", "density", False)
out["init_real"] = (np.asarray(init((6, 1, 4))),)
init = keras.initializers.STFT("imag", "hamming", "spectrum", True)
out["init_imag"] = (np.asarray(init((5, 1, 3))),)
mel = keras.layers.MelSpectrogram(fft_length=16, sequence_stride=5, sampling_rate=8000, num_mel_bins=4)
out["melmatrix"] = (np.asarray(mel.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 3000.0)),)
xm = sig((2, 30)).astype(np.float32)
out["mel_layer"] = (np.asarray(mel(xm)),)
st = keras.layers.STFTSpectrogram(mode="log", frame_length=6, frame_step=3, fft_length=8)
xst = sig((2, 17, 2)).astype(np.float32)
out["stft_layer"] = (np.asarray(st(xst)),)
out["stft_layer_cfg"] = st.get_config()
out["mel_layer_cfg"] = mel.get_config()
for k, v in out.items():
    if k.endswith("cfg"):
        print("//", k, v); continue
    print(k, "|".join(lit(a) for a in v), "|", tuple(np.shape(v[0])))
