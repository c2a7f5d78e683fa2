"""keras.ops' neural-network functions (keras/src/ops/nn.py, JAX backend) against
kiln/ops/keras_nn_ops.h: the convolutions (1D, 2D, 3D; strides, padding, dilation,
groups, data_format), pools, normalizations, crossentropies, multi_hot, psnr and
dot_product_attention. Values, dtypes and jax.vjp gradients through op_cases; Kiln's
side is tool/ops_nn.cpp."""
import numpy as np
from keras import ops

import op_cases


def U(low, high, *shape, dtype="float32"):
    return {"shape": shape, "low": low, "high": high, "dtype": dtype}


def I(low, high, *shape, dtype="int32"):
    return {"shape": shape, "low": low, "high": high, "dtype": dtype}


CONV_TOL = {"rtol": 1e-4, "atol": 1e-5}
CF = {"data_format": "channels_first"}

CASES = []
# ---- conv: 1D, 2D, 3D; strides, padding, dilation, groups, channels_first ----
for x, k, params in [
    ((2, 9, 3), (3, 3, 4), {}),
    ((2, 9, 3), (3, 3, 4), {"strides": 2, "padding": "same"}),
    ((2, 10, 3), (3, 3, 2), {"dilation_rate": 2}),
    ((2, 10, 3), (4, 3, 2), {"dilation_rate": 2, "padding": "same"}),
    ((2, 3, 9), (3, 3, 4), dict(CF, strides=2)),
    ((2, 7, 8, 3), (3, 3, 3, 4), {}),
    ((2, 7, 8, 3), (3, 2, 3, 4), {"strides": (2, 1), "padding": "same"}),
    ((2, 8, 9, 2), (3, 3, 2, 3), {"dilation_rate": (1, 2)}),
    ((2, 8, 8, 2), (2, 2, 2, 3), {"strides": 2, "dilation_rate": 1, "padding": "same"}),
    ((2, 3, 7, 6), (3, 3, 3, 2), dict(CF, padding="same")),
    ((2, 6, 6, 4), (3, 3, 2, 6), {}),  # two groups
    ((2, 4, 6, 6), (3, 3, 1, 4), dict(CF, padding="same")),  # four groups
    ((1, 5, 6, 5, 2), (2, 3, 2, 2, 3), {"strides": (2, 1, 1), "padding": "same"}),
    ((1, 6, 5, 5, 2), (2, 2, 2, 2, 2), {"dilation_rate": 2}),
    ((1, 2, 4, 5, 5), (3, 2, 2, 2, 3), dict(CF, padding="same")),
]:
    CASES.append(("conv", params, [x, k], CONV_TOL))

# ---- depthwise_conv and separable_conv ----
for x, k, params in [
    ((2, 9, 3), (3, 3, 2), {}),
    ((2, 9, 3), (3, 3, 1), {"strides": 2, "padding": "same"}),
    ((2, 7, 7, 3), (3, 3, 3, 2), {"strides": 2, "padding": "same"}),
    ((2, 8, 8, 2), (3, 3, 2, 1), {"dilation_rate": 2}),
    ((2, 3, 7, 6), (3, 2, 3, 2), dict(CF, padding="same")),
    ((1, 4, 5, 5, 2), (2, 2, 2, 2, 2), {"padding": "same"}),
]:
    CASES.append(("depthwise_conv", params, [x, k], CONV_TOL))
for x, dk, pk, params in [
    ((2, 8, 8, 3), (3, 3, 3, 2), (1, 1, 6, 4), {"padding": "same"}),
    ((2, 9, 8, 3), (3, 3, 3, 1), (1, 1, 3, 2), {"strides": 2}),
    ((2, 9, 3), (3, 3, 2), (1, 6, 4), {"dilation_rate": 2}),
    ((2, 3, 8, 8), (3, 3, 3, 2), (1, 1, 6, 4), CF),
]:
    CASES.append(("separable_conv", params, [x, dk, pk], CONV_TOL))

# ---- conv_transpose: kernel (spatial..., out, in) ----
for x, k, params in [
    ((2, 5, 3), (3, 4, 3), {}),
    ((2, 5, 3), (3, 4, 3), {"strides": 2}),
    ((2, 5, 3), (3, 4, 3), {"strides": 2, "padding": "same"}),
    ((2, 5, 3), (4, 2, 3), {"strides": 3, "output_padding": 1}),
    ((2, 5, 3), (3, 2, 3), {"strides": 2, "padding": "same", "output_padding": 1}),
    ((2, 4, 5, 3), (3, 3, 2, 3), {"strides": (2, 1), "padding": "same"}),
    ((2, 4, 5, 3), (3, 2, 2, 3), {"strides": 2}),
    ((2, 4, 5, 3), (3, 3, 2, 3), {"dilation_rate": 2}),
    ((2, 4, 5, 3), (2, 2, 2, 3), {"dilation_rate": (1, 2), "padding": "same"}),
    ((2, 3, 4, 5), (3, 3, 2, 3), dict(CF, strides=2, padding="same")),
    ((1, 3, 3, 3, 2), (2, 2, 2, 3, 2), {"strides": 2}),
    ((1, 3, 4, 3, 2), (3, 2, 2, 2, 2), {"strides": (1, 2, 2), "padding": "same"}),
]:
    CASES.append(("conv_transpose", params, [x, k], CONV_TOL))

# ---- pools (Keras 3.15's JAX max_pool / average_pool fail with strides=None, so
# every case names its strides; Kiln's default, strides = pool_size, is unit-tested) ----
for name in ("max_pool", "average_pool"):
    for x, params in [
        ((2, 9, 3), {"pool_size": 3, "strides": 2}),
        ((2, 9, 3), {"pool_size": 2, "strides": 2, "padding": "same"}),
        ((2, 3, 10), dict(CF, pool_size=3, strides=2, padding="same")),
        ((2, 7, 8, 3), {"pool_size": 2, "strides": 2}),
        ((2, 7, 8, 3), {"pool_size": (3, 2), "strides": (2, 2), "padding": "same"}),
        ((2, 8, 8, 3), {"pool_size": 3, "strides": 1}),
        ((2, 3, 7, 6), dict(CF, pool_size=(2, 3), strides=(2, 3), padding="same")),
        ((1, 5, 6, 4, 2), {"pool_size": 2, "strides": 2, "padding": "same"}),
        ((1, 2, 6, 5, 4), dict(CF, pool_size=(2, 3, 2), strides=(1, 2, 1))),
    ]:
        CASES.append((name, params, [x], CONV_TOL))
for name in ("adaptive_average_pool", "adaptive_max_pool"):
    for x, params in [
        ((2, 10, 3), {"output_size": 4}),
        ((2, 3, 7), dict(CF, output_size=3)),
        ((2, 7, 9, 3), {"output_size": (3, 4)}),
        ((2, 3, 8, 8), dict(CF, output_size=3)),
        ((1, 5, 6, 7, 2), {"output_size": (2, 3, 3)}),
    ]:
        CASES.append((name, params, [x], CONV_TOL))

# ---- normalizations ----
POSV = lambda n: U(0.2, 2.0, n)
CASES += [
    ("batch_normalization", {}, [(2, 3, 4, 5), (5,), POSV(5), (5,), (5,)],
     {"keras": lambda x, m, v, o, s: ops.batch_normalization(x, m, v, -1, offset=o, scale=s), "args": [-1]}),
    ("batch_normalization", {"epsilon": 0.01}, [(2, 3, 4), (3,), POSV(3)],
     {"keras": lambda x, m, v: ops.batch_normalization(x, m, v, 1, epsilon=0.01), "args": [1]}),
    ("batch_normalization", {}, [(4, 6), (6,), POSV(6), (6,)],
     {"keras": lambda x, m, v, o: ops.batch_normalization(x, m, v, 1, offset=o), "args": [1]}),
    ("layer_normalization", {}, [(3, 4, 6), (6,), (6,)],
     {"keras": lambda x, g, b: ops.layer_normalization(x, g, b)}),
    ("layer_normalization", {"axis": 1, "epsilon": 1e-3}, [(3, 4, 6), (4,)],
     {"keras": lambda x, g: ops.layer_normalization(x, g, axis=1, epsilon=1e-3)}),
    ("layer_normalization", {"axis": [1, 2]}, [(3, 4, 5), (4, 5), (4, 5)],
     {"keras": lambda x, g, b: ops.layer_normalization(x, g, b, axis=[1, 2])}),
    ("layer_normalization", {}, [(5, 7)], {"keras": lambda x: ops.layer_normalization(x)}),
    ("rms_normalization", {}, [(3, 4, 6), (6,)], {"keras": lambda x, s: ops.rms_normalization(x, s)}),
    ("rms_normalization", {"axis": [1, 2], "epsilon": 1e-3}, [(3, 4, 5)],
     {"keras": lambda x: ops.rms_normalization(x, axis=[1, 2], epsilon=1e-3)}),
    ("rms_normalization", {"axis": 0}, [(4, 3), (4, 1)], {"keras": lambda x, s: ops.rms_normalization(x, s, axis=0)}),
]

# ---- crossentropies ----
CASES += [
    ("binary_crossentropy", {}, [U(0, 1, 3, 4), U(0.02, 0.98, 3, 4)]),
    ("binary_crossentropy", {"from_logits": True}, [U(0, 1, 3, 4), (3, 4)]),
    ("binary_crossentropy", {}, [{"values": [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]}, {"values": [[0.0, 1.0, 0.5], [1.0, 1e-9, 0.3]]}],
     {"grad": False}),
    ("binary_crossentropy", {"from_logits": True}, [I(0, 2, 2, 5), (2, 5)]),
    ("categorical_crossentropy", {}, [U(0, 1, 4, 5), U(0.05, 1.0, 4, 5)]),
    ("categorical_crossentropy", {"from_logits": True}, [U(0, 1, 4, 5), (4, 5)]),
    ("categorical_crossentropy", {"from_logits": True, "axis": 1}, [U(0, 1, 2, 4, 3), (2, 4, 3)]),
    ("categorical_crossentropy", {"axis": 0}, [U(0, 1, 3, 2), U(0.05, 1.0, 3, 2)]),
    ("sparse_categorical_crossentropy", {}, [I(0, 5, 4), U(0.05, 1.0, 4, 5)]),
    ("sparse_categorical_crossentropy", {"from_logits": True}, [I(0, 5, 2, 3), (2, 3, 5)]),
    ("sparse_categorical_crossentropy", {"from_logits": True}, [I(0, 5, 4, 1), (4, 5)]),
    ("sparse_categorical_crossentropy", {"from_logits": True}, [I(0, 5, 4, dtype="int64"), (4, 5)]),
    ("sparse_categorical_crossentropy", {"from_logits": True, "axis": 1}, [I(0, 3, 2, 3), (2, 3, 3)]),
]

# ---- multi_hot, psnr ----
CASES += [
    ("multi_hot", {"num_classes": 5}, [I(0, 5, 3, 4)]),
    ("multi_hot", {"num_classes": 4}, [{"values": [[0, 3, -1], [6, 2, 2]], "dtype": "int32"}]),
    ("multi_hot", {"num_classes": 6}, [I(0, 6, 4)]),
    ("multi_hot", {"num_classes": 5, "dtype": "int32"}, [I(0, 5, 2, 3, dtype="int64")]),
    ("multi_hot", {"num_classes": 5, "axis": 0}, [I(0, 5, 3, 4)]),
    ("psnr", {"max_val": 1.0}, [U(0, 1, 2, 8, 8, 3), U(0, 1, 2, 8, 8, 3)]),
    ("psnr", {"max_val": 255.0}, [U(0, 255, 4, 5), U(0, 255, 4, 5)], {"rtol": 1e-4}),
]

# ---- dot_product_attention: (B, T, N, H) queries, (B, S, K, H) keys and values ----
ATT_TOL = {"rtol": 1e-4, "atol": 1e-5}
CASES += [
    ("dot_product_attention", {}, [(2, 5, 4, 8), (2, 6, 4, 8), (2, 6, 4, 8)], ATT_TOL),
    ("dot_product_attention", {"scale": 0.5}, [(2, 5, 4, 8), (2, 6, 2, 8), (2, 6, 2, 8)], ATT_TOL),
    ("dot_product_attention", {"is_causal": True}, [(2, 5, 2, 4), (2, 5, 2, 4), (2, 5, 2, 4)], ATT_TOL),
    ("dot_product_attention", {"is_causal": True}, [(1, 4, 2, 4), (1, 6, 1, 4), (1, 6, 1, 4)], ATT_TOL),
    ("dot_product_attention", {}, [(2, 5, 4, 8), (2, 6, 4, 8), (2, 6, 4, 8), (1, 4, 5, 6)],
     dict(ATT_TOL, keras=lambda q, k, v, b: ops.dot_product_attention(q, k, v, bias=b))),
    ("dot_product_attention", {}, [(2, 5, 2, 4), (2, 6, 2, 4), (2, 6, 2, 4), {"shape": (2, 1, 5, 6), "dtype": "bool"}],
     dict(ATT_TOL, keras=lambda q, k, v, m: ops.dot_product_attention(q, k, v, mask=m))),
    ("dot_product_attention", {"is_causal": True, "scale": 0.3},
     [(1, 4, 4, 4), (1, 4, 2, 4), (1, 4, 2, 4), (1, 1, 4, 4), {"shape": (1, 4, 4, 4), "dtype": "bool"}],
     dict(ATT_TOL, keras=lambda q, k, v, b, m: ops.dot_product_attention(q, k, v, bias=b, mask=m, scale=0.3,
                                                                         is_causal=True))),
]

# ---- sparsemax, polar, kaiser, saturate_cast ----
INF = np.inf
CASES += [
    ("sparsemax", {}, [(3, 5)]),
    ("sparsemax", {"axis": 0}, [(4, 3)]),
    ("sparsemax", {}, [{"values": [[0.5, 0.4], [3.0, -1.0]]}]),
    ("polar", {}, [U(0.1, 2.0, 3, 4), U(-3.0, 3.0, 3, 4)],
     {"keras": lambda a, t: (ops.real(ops.polar(a, t)), ops.imag(ops.polar(a, t)))}),
    ("kaiser", {}, [], {"args": [7, 2.5]}),
    ("kaiser", {}, [], {"args": [8, 0.0]}),
    ("kaiser", {}, [], {"args": [1, 4.0]}),
    ("kaiser", {}, [], {"args": [12, 14.0]}),
    ("saturate_cast", {}, [{"values": [-300.0, -1.5, 0.4, 254.6, 300.0, INF, -INF]}], {"args": ["uint8"]}),
    ("saturate_cast", {}, [{"values": [-3e9, -1.5, 7.9, 2.2e9, INF, -INF]}], {"args": ["int32"]}),
    ("saturate_cast", {}, [{"values": [-70000, -5, 300, 40], "dtype": "int32"}], {"args": ["uint8"]}),
    ("saturate_cast", {}, [{"values": [1.5, -INF, INF]}], {"args": ["float32"]}),
    ("saturate_cast", {}, [{"values": [0, 255, 7], "dtype": "uint8"}], {"args": ["int32"]}),
]

# ---- ctc_loss, ctc_decode, extract_sequences ----
def V(values, dtype="int32"):
    return {"values": values, "dtype": dtype}


CASES += [
    ("ctc_loss", {}, [I(1, 5, 2, 4), (2, 8, 5), V([4, 2]), V([8, 6])], {"rtol": 1e-4, "atol": 1e-5}),
    ("ctc_loss", {}, [V([[1, 1, 2, 3], [2, 2, 0, 0]]), (2, 9, 4), V([4, 2]), V([9, 5])], {"rtol": 1e-4, "atol": 1e-5}),
    ("ctc_loss", {"mask_index": 3}, [I(0, 3, 3, 3), (3, 7, 4), V([3, 1, 2]), V([7, 7, 4])], {"rtol": 1e-4, "atol": 1e-5}),
    ("ctc_decode", {}, [(2, 6, 4), V([6, 4])]),
    ("ctc_decode", {"merge_repeated": False, "mask_index": 2}, [(2, 6, 3), V([5, 6])]),
    ("ctc_decode", {"mask_index": None}, [(3, 5, 4), V([5, 2, 0])]),
    ("ctc_decode", {"mask_index": 0}, [V([[[0.1, 0.5, 0.4], [0.1, 0.6, 0.3], [0.8, 0.1, 0.1], [0.2, 0.7, 0.1]]], "float32"), V([4])]),
    ("ctc_decode", {"strategy": "beam_search", "beam_width": 3, "top_paths": 2}, [(2, 6, 4), V([6, 4])],
     {"grad": False, "rtol": 1e-4, "atol": 1e-5}),
    ("ctc_decode", {"strategy": "beam_search", "beam_width": 10, "top_paths": 3, "mask_index": None},
     [(2, 5, 3), V([5, 3])], {"grad": False, "rtol": 1e-4, "atol": 1e-5}),
    ("ctc_decode", {"strategy": "beam_search"}, [(1, 7, 5), V([7])], {"grad": False, "rtol": 1e-4, "atol": 1e-5}),
    ("extract_sequences", {}, [(2, 10)], {"args": [4, 2]}),
    ("extract_sequences", {}, [(3, 2, 9)], {"args": [3, 3]}),
    ("extract_sequences", {}, [(7,)], {"args": [7, 1]}),
]

# ---- unfold (NCHW -> (N, C·kH·kW, L)) and fold, its adjoint ----
CASES += [
    ("unfold", {"kernel_size": 3}, [(2, 3, 6, 7)]),
    ("unfold", {"kernel_size": (2, 3), "stride": 2, "padding": 1, "dilation": (1, 2)}, [(2, 2, 7, 8)]),
    ("unfold", {"kernel_size": 2, "stride": (1, 3)}, [(1, 1, 4, 9)]),
    ("fold", {"output_size": (5, 6), "kernel_size": 2}, [(2, 12, 20)]),
    ("fold", {"output_size": 5, "kernel_size": 2, "stride": 2, "padding": 1}, [(2, 8, 9)]),
    ("fold", {"output_size": (6, 7), "kernel_size": (3, 2), "dilation": (1, 2), "padding": (1, 0)}, [(1, 12, 30)]),
]


def run(o):
    op_cases.run_cases(o, CASES)
