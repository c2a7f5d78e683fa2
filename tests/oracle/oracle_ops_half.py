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


# The float32 cases of other keras.ops groups again in float16: the same inputs
# rounded to float16, Keras's tolerance replaced by the 16-bit one. CI reuses the
# element-wise and nn groups; KILN_ORACLE_HALF_REUSE=all adds the core, array and
# reduction groups (about 8 minutes in all on 2 cores).
REUSED = ("oracle_ops_math", "oracle_ops_nn")
MORE = ("oracle_ops_core", "oracle_ops_array", "oracle_ops_reduce")


def has_float32(spec):
    if isinstance(spec, tuple):
        return True
    return isinstance(spec, dict) and spec.get("dtype", "float32") == "float32"


def reused_cases():
    import importlib
    import os
    out = []
    modules = REUSED + (MORE if os.environ.get("KILN_ORACLE_HALF_REUSE") == "all" else ())
    for module in modules:
        for case in importlib.import_module(module).CASES:
            name, params, specs = case[:3]
            if not any(has_float32(s) for s in specs):
                continue  # nothing to round: the case is its own group's
            opts = dict(case[3] if len(case) > 3 else {})
            # Values only, within eight float16 units in the last place (float32 results
            # included): JAX rounds every intermediate of a composite op, and more of its
            # vjp, to float16, where Kiln computes an op in float32 and rounds once. The
            # gradients are compared by the cases above.
            opts.update({"as": "float16", "skip_keras_errors": True, "grad": False, "rtol": 2.0**-7,
                         "atol": 2.0**-7})
            out.append((name, params, specs, opts))
    return out


def run(o):
    op_cases.run_cases(o, CASES + reused_cases())
