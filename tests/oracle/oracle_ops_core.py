"""keras.ops functions whose Kiln counterparts came before the op table: element-wise
maths, comparisons, reductions, array manipulation, softmax and the activations,
compared with Keras 3.15 (JAX) by tests/oracle/op_cases.py (values, dtypes and vjp
gradients). Kiln's side: tests/oracle/tool/ops_core.cpp."""
import numpy as np
from keras import ops

from op_cases import run_cases

M = (3, 4)
POS = {"shape": M, "low": 0.1, "high": 3.0}
I32 = {"shape": M, "dtype": "int32", "low": -5, "high": 6}
B = {"shape": M, "dtype": "bool"}
EDGES = {"values": [[0.0, -0.0, 1.5, -2.5], [np.inf, -np.inf, np.nan, 0.5], [3.5, -3.5, 1e-7, 4.0]]}

CASES = []
for name in ["abs", "sign", "exp", "expm1", "sin", "cos", "tanh", "erf", "square", "floor", "round"]:
    CASES += [(name, {}, [M]), (name, {}, [(2, 3, 5)])]
for name in ["log", "log1p", "sqrt", "rsqrt"]:
    CASES += [(name, {}, [POS])]
for name in ["abs", "sign", "square"]:
    CASES += [(name, {}, [I32])]
for name in ["isnan", "isfinite"]:
    CASES += [(name, {}, [EDGES])]
for name in ["add", "subtract", "multiply", "maximum", "minimum"]:
    CASES += [(name, {}, [M, (4,)]), (name, {}, [(2, 1, 4), (3, 1)]), (name, {}, [I32, I32])]
CASES += [
    ("divide", {}, [M, {"shape": (4,), "low": 0.5, "high": 2.0}]),
    ("divide", {}, [I32, {"shape": M, "dtype": "int32", "low": 1, "high": 4}]),
    ("floor_divide", {}, [M, {"shape": (4,), "low": 0.5, "high": 2.0}], {"grad": False}),
    ("floor_divide", {}, [I32, {"shape": M, "dtype": "int32", "low": 1, "high": 4}]),
    ("arctan2", {}, [M, (4,)]),
    ("matmul", {}, [(3, 5), (5, 2)]),
    ("matmul", {}, [(2, 3, 5), (5, 4)]),
    ("matmul", {}, [(2, 1, 3, 5), (4, 5, 2)]),
    ("clip", {}, [M], {"args": [-0.5, 0.7]}),
]
for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
    CASES += [(name, {}, [I32, {"shape": (4,), "dtype": "int32", "low": -5, "high": 6}])]
for name in ["logical_and", "logical_or"]:
    CASES += [(name, {}, [B, B])]
CASES += [("logical_not", {}, [B])]

for name in ["sum", "mean", "max", "min", "prod", "var", "std", "logsumexp"]:
    CASES += [(name, {}, [(2, 3, 4)]), (name, {"axis": 1}, [(2, 3, 4)]),
              (name, {"axis": [0, 2], "keepdims": True}, [(2, 3, 4)])]
CASES += [("sum", {"axis": 0}, [I32]), ("argmax", {"axis": 1}, [M]), ("argmin", {"axis": 0}, [M]),
          ("argmax", {"axis": -1}, [I32])]

CASES += [
    ("reshape", {}, [(2, 6)], {"args": [(3, 4)]}),
    ("reshape", {}, [(2, 6)], {"args": [(-1, 3)]}),
    ("transpose", {}, [(2, 3, 4)]),
    ("transpose", {"axes": [1, 2, 0]}, [(2, 3, 4)]),
    ("expand_dims", {}, [M], {"args": [1]}),
    ("expand_dims", {}, [M], {"args": [-1]}),
    ("squeeze", {}, [(1, 3, 1, 4)]),
    ("squeeze", {"axis": 2}, [(1, 3, 1, 4)]),
    ("broadcast_to", {}, [(3, 1)], {"args": [(2, 3, 4)]}),
    ("tile", {}, [(2, 3)], {"args": [(2, 1)]}),
    ("tile", {}, [(2, 3)], {"args": [(2, 1, 3)]}),
    ("concatenate", {"axis": 1}, [(2, 3), (2, 5)], {"keras": lambda a, b: ops.concatenate([a, b], axis=1)}),
    ("concatenate", {"axis": 0}, [(2, 3), (1, 3), (4, 3)],
     {"keras": lambda a, b, c: ops.concatenate([a, b, c], axis=0)}),
    ("stack", {"axis": 1}, [M, M], {"keras": lambda a, b: ops.stack([a, b], axis=1)}),
    ("split", {"axis": 1}, [(2, 6)], {"args": [3]}),
    ("where", {}, [B, M, (4,)]),
    ("one_hot", {}, [{"shape": (5,), "dtype": "int32", "low": 0, "high": 4}], {"args": [4]}),
    ("cast", {}, [M], {"args": ["int32"]}),
    ("cast", {}, [I32], {"args": ["float32"]}),
    ("stop_gradient", {}, [M]),
    ("nonzero", {}, [{"values": [[0, 3, 0, 1], [2, 0, 0, 5]], "dtype": "int32"}]),
    ("einsum", {"equation": "ij,jk->ik"}, [(3, 5), (5, 2)],
     {"keras": lambda a, b: ops.einsum("ij,jk->ik", a, b)}),
    ("einsum", {"equation": "bij,bkj->bik"}, [(2, 3, 5), (2, 4, 5)],
     {"keras": lambda a, b: ops.einsum("bij,bkj->bik", a, b)}),
    ("softmax", {}, [M]), ("softmax", {"axis": 0}, [M]),
    ("log_softmax", {}, [M]), ("log_softmax", {"axis": 0}, [M]),
    ("normalize", {}, [M]), ("normalize", {"axis": 0, "order": 1}, [M]),
    ("zeros_like", {}, [M]), ("ones_like", {}, [I32]),
    ("zeros", {}, [], {"args": [(2, 3)]}), ("zeros", {"dtype": "int32"}, [], {"args": [(4,)]}),
    ("ones", {}, [], {"args": [(3, 1, 2)]}), ("ones", {"dtype": "bool"}, [], {"args": [(2,)]}),
    ("copy", {}, [M]), ("copy", {}, [I32]),
    ("unique", {}, [{"values": [3, 1, 3, 2, 1, 7, 2], "dtype": "int32"}]),
    ("unique", {}, [{"values": [0.5, -1.0, 0.5, 2.0], "dtype": "float32"}], {"grad": False}),
    ("scatter", {}, [{"values": [[0, 1], [2, 0], [1, 1]], "dtype": "int32"}, (3,)], {"args": [(3, 2)]}),
    ("scatter", {}, [{"values": [[1], [0], [1]], "dtype": "int32"}, (3, 4)], {"args": [(2, 4)]}),
    ("scatter_update", {}, [M, {"values": [[0, 1], [2, 3]], "dtype": "int32"}, (2,)], {"grad": False}),
    ("slice", {}, [(4, 5, 6)], {"args": [(1, 0, 2), (2, 5, 3)]}),
    ("hamming", {}, [], {"args": [7]}), ("hanning", {}, [], {"args": [8]}),
    ("blackman", {}, [], {"args": [9]}), ("bartlett", {}, [], {"args": [6]}),
]

for name in ["relu", "relu6", "sigmoid", "softplus", "selu", "silu", "swish", "softsign", "hard_sigmoid",
             "hard_silu", "hard_swish", "hard_tanh", "log_sigmoid", "sparse_plus", "sparse_sigmoid",
             "tanh_shrink", "elu", "celu", "gelu", "leaky_relu", "hard_shrink", "soft_shrink", "squareplus"]:
    CASES += [(name, {}, [{"shape": (4, 5), "low": -7.0, "high": 7.0}])]
CASES += [
    ("elu", {"alpha": 0.5}, [M]), ("celu", {"alpha": 2.0}, [M]), ("gelu", {"approximate": False}, [M]),
    ("glu", {}, [(3, 6)]), ("glu", {"axis": 0}, [(4, 3)]), ("leaky_relu", {"negative_slope": 0.1}, [M]),
    ("hard_shrink", {"threshold": 0.3}, [M]), ("soft_shrink", {"threshold": 0.3}, [M]),
    ("squareplus", {"b": 2.0}, [M]), ("threshold", {}, [M], {"args": [0.2, -1.0]}),
]


def run(o):
    run_cases(o, CASES)
