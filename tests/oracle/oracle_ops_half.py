"""keras.ops on float16 and bfloat16 tensors (JAX backend) against Kiln, which
computes each op in float32 and rounds its float results once: values, result
dtypes (keras.backend.result_type's lattice: an integer with float16 gives
float16, float16 with bfloat16 float32, either with float32 float32) and vjp
gradients, through the shared runner (op_cases.py). Tolerances are a few
units in the last place of the 16-bit type (op_cases.tolerance)."""
from keras import ops

import op_cases

HALVES = ("float16", "bfloat16")


def R(*shape, dtype="float32", low=-2.0, high=2.0):
    return {"shape": shape, "low": low, "high": high, "dtype": dtype}


def I(*shape, dtype="int32"):
    return {"shape": shape, "low": -4, "high": 5, "dtype": dtype}


CASES = []
for h in HALVES:
    x, y = R(3, 4, dtype=h), R(3, 4, dtype=h)
    pos = R(3, 4, dtype=h, low=0.1, high=3.0)
    for name in ("exp", "tanh", "sigmoid", "abs", "negative", "square", "sin", "relu", "gelu", "softplus"):
        CASES.append((name, {}, [x]))
    for name in ("log", "sqrt", "reciprocal"):
        CASES.append((name, {}, [pos]))
    for name in ("add", "subtract", "multiply", "maximum", "minimum"):
        CASES.append((name, {}, [x, y]))
    CASES.append(("true_divide", {}, [x, pos]))
    CASES.append(("power", {}, [pos, R(3, 4, dtype=h, low=-1.5, high=1.5)]))
    # Promotion: with integers, with the other 16-bit type, with float32, broadcast.
    # (Kiln's add and multiply keep TF's one-dtype rule, for float32 with int32 too.)
    CASES.append(("true_divide", {}, [I(3, 4), pos]))
    CASES.append(("hypot", {}, [I(4), x]))
    CASES.append(("power", {}, [pos, {"shape": (3, 4), "low": 0, "high": 4, "dtype": "uint8"}]))
    CASES.append(("add", {}, [x, R(3, 4, dtype=[t for t in HALVES if t != h][0])]))
    CASES.append(("subtract", {}, [x, R(1, 4)]))
    CASES.append(("greater", {}, [x, y]))
    CASES.append(("where", {}, [{"shape": (3, 4), "dtype": "bool"}, x, y]))
    CASES.append(("matmul", {}, [R(5, 8, dtype=h), R(8, 3, dtype=h)]))
    CASES.append(("sum", {"axis": 1}, [R(4, 16, dtype=h)]))
    CASES.append(("mean", {}, [R(4, 16, dtype=h)]))
    CASES.append(("max", {"axis": 0}, [x]))
    CASES.append(("argmax", {"axis": 1}, [x]))
    CASES.append(("softmax", {"axis": -1}, [R(3, 6, dtype=h)]))
    CASES.append(("log_softmax", {"axis": -1}, [R(3, 6, dtype=h)]))
    CASES.append(("transpose", {}, [x]))
    CASES.append(("reshape", {}, [x], {"args": [(4, 3)]}))
    CASES.append(("clip", {}, [x], {"args": [-0.5, 0.75]}))
    CASES.append(("concatenate", {"axis": 0}, [x, y], {"keras": lambda a, b: ops.concatenate([a, b], axis=0)}))


def run(o):
    op_cases.run_cases(o, CASES)
