"""keras.ops' control flow (cond, while_loop, fori_loop, scan, associative_scan, map,
switch, vectorized_map, vectorize, custom_gradient, jvp), bitwise and integer maths
(bitwise_*, shifts, gcd, lcm, nextafter) and small utilities (unravel_index,
rearrange, empty, view, view_as_complex, view_as_real) against
kiln/ops/functional_ops.h, bitwise_ops.h and layout_ops.h: values, dtypes and
jax.vjp gradients. Runs through op_cases.run_cases; Kiln's side is
tool/ops_control.cpp.

Functions cannot travel as JSON, so a control-flow case names a fixed function
(params {"fn": ...}) that this file and ops_control.cpp both define: the "keras"
callable below calls keras.ops with it. JAX differentiates while_loop (and
fori_loop with tensor bounds) only forwards, so those cases compare values."""
import numpy as np
from keras import ops

import op_cases

NO_GRAD = {"grad": False}


def I(low, high, *shape, dtype="int32"):
    return {"shape": shape, "low": low, "high": high, "dtype": dtype}


def V(values, dtype="float32"):
    return {"values": values, "dtype": dtype}


def B(*shape):
    return {"shape": shape, "dtype": "bool"}


def case(name, fn, inputs, keras, **opts):
    return (name, {"fn": fn}, inputs, dict(opts, keras=keras))


# ---- the named functions (ops_control.cpp defines the same) ----
def fori_body(i, s):
    return s * 0.9 + ops.sin(s) + ops.cast(i, "float32")


def fori_pair_body(i, state):
    a, b = state
    return a * b + 0.1, b - ops.tanh(a) * ops.cast(i, "float32")


def scan_step(carry, x):
    return carry * 0.5 + ops.sin(x), carry * x


def scan_pair_step(carry, x):
    (c1, c2), (x1, x2) = carry, x
    return (c1 + x1 * c2, c2 * 0.9 + x2), c1 * x2


def scan_count_step(carry, _):
    return carry * 1.5 + 1.0, ops.square(carry)


def affine_combine(a, b):
    """(a1, b1) then (a2, b2): x -> a2 (a1 x + b1) + b2, an associative composition."""
    return a[0] * b[0], b[0] * a[1] + b[1]


def mapped(x):
    return ops.sin(x) * ops.sum(x)


BRANCHES = [lambda x, y: x + y, lambda x, y: x * y - 1.0, lambda x, y: ops.sin(x) - y]


def while_keras(maximum_iterations=None):
    def call(x):
        return ops.while_loop(lambda v: ops.sum(v) < 10.0, lambda v: (v * 1.5 + 1.0,), (x,),
                              maximum_iterations=maximum_iterations)
    return call


@ops.custom_gradient
def clipped_square(x):
    def grad(*args, upstream=None):
        if upstream is None:
            (upstream,) = args
        return ops.clip(upstream * 2.0 * x, -0.5, 0.5)
    return ops.square(x), grad


def jvp_fun(x, w):
    return ops.sin(x) * w + ops.square(x), ops.sum(ops.exp(x * w))


def jvp_keras(x, w, tx, tw):
    (y0, y1), (t0, t1) = ops.jvp(lambda a, b: jvp_fun(a, b), (x, w), (tx, tw))
    return y0, y1, t0, t1


CASES = []
# ---- control flow ----
CASES += [
    case("cond", "sin_or_cos", [V(True, "bool"), (3, 2)],
         lambda p, x: ops.cond(p, lambda: ops.sin(x) * 2.0, lambda: ops.cos(x))),
    case("cond", "sin_or_cos", [V(False, "bool"), (3, 2)],
         lambda p, x: ops.cond(p, lambda: ops.sin(x) * 2.0, lambda: ops.cos(x))),
    case("while_loop", "grow", [{"shape": (3,), "low": 0.0, "high": 1.0}], while_keras(), **NO_GRAD),
    ("while_loop", {"fn": "grow", "maximum_iterations": 2}, [{"shape": (3,), "low": 0.0, "high": 1.0}],
     dict(NO_GRAD, keras=while_keras(2))),
    case("fori_loop", "poly", [(3,)], lambda s: ops.fori_loop(0, 4, fori_body, s)),
    ("fori_loop", {"fn": "poly", "lower": 2, "upper": 5}, [(2, 2)],
     {"keras": lambda s: ops.fori_loop(2, 5, fori_body, s)}),
    ("fori_loop", {"fn": "poly", "lower": 3, "upper": 1}, [(3,)],
     {"keras": lambda s: ops.fori_loop(3, 1, fori_body, s)}),
    case("fori_loop", "pair", [(3,), (3,)], lambda a, b: ops.fori_loop(0, 3, fori_pair_body, (a, b))),
    case("fori_loop", "poly_tensor_upper", [(3,), V(3, "int32")],
         lambda s, n: ops.fori_loop(0, n, fori_body, s), **NO_GRAD),
    case("scan", "step", [(3,), (5, 3)], lambda c, xs: ops.scan(scan_step, c, xs)),
    ("scan", {"fn": "step", "reverse": True}, [(3,), (4, 3)],
     {"keras": lambda c, xs: ops.scan(scan_step, c, xs, reverse=True)}),
    ("scan", {"fn": "step", "unroll": 2}, [(2,), (6, 2)],
     {"keras": lambda c, xs: ops.scan(scan_step, c, xs, unroll=2)}),
    case("scan", "pair", [(2,), (2,), (4, 2), (4, 2)],
         lambda c1, c2, x1, x2: (lambda r: (r[0][0], r[0][1], r[1]))(ops.scan(scan_pair_step, (c1, c2), (x1, x2)))),
    ("scan", {"fn": "count", "length": 4}, [(3,)],
     {"keras": lambda c: ops.scan(scan_count_step, c, None, length=4)}),
    case("associative_scan", "add", [(5, 3)], lambda x: ops.associative_scan(lambda a, b: a + b, x)),
    ("associative_scan", {"fn": "add", "axis": 1, "reverse": True}, [(2, 6)],
     {"keras": lambda x: ops.associative_scan(lambda a, b: a + b, x, reverse=True, axis=1)}),
    ("associative_scan", {"fn": "max"}, [(7,)],
     {"keras": lambda x: ops.associative_scan(ops.maximum, x)}),
    case("associative_scan", "affine", [(6, 2), (6, 2)],
         lambda a, b: ops.associative_scan(affine_combine, (a, b))),
    ("associative_scan", {"fn": "affine", "reverse": True}, [(5,), (5,)],
     {"keras": lambda a, b: ops.associative_scan(affine_combine, (a, b), reverse=True)}),
    case("map", "sin_sum", [(4, 3)], lambda xs: ops.map(mapped, xs)),
    case("vectorized_map", "sin_sum", [(5, 2)], lambda xs: ops.vectorized_map(mapped, xs)),
    case("vectorize", "dot", [(4, 3), (3,)],
         lambda a, b: ops.vectorize(lambda u, v: ops.sum(u * v), signature="(n),(n)->()")(a, b)),
    case("vectorize", "matvec", [(2, 3, 4), (4,)],
         lambda a, b: ops.vectorize(lambda m, v: ops.sum(m * v, axis=-1), signature="(m,n),(n)->(m)")(a, b)),
    case("vectorize", "scalar", [(2, 3), (3,)], lambda a, b: ops.vectorize(lambda u, v: u * v + ops.sin(u))(a, b)),
    case("custom_gradient", "clipped_square", [(3, 4)], clipped_square),
    case("jvp", "sin_mul", [(3,), (3,), (3,), (3,)], jvp_keras),
    case("jvp", "aux", [(2, 3), (2, 3)], lambda x, t: (lambda r: (r[0], r[1], r[2]))(
        ops.jvp(lambda a: (ops.tanh(a) * 3.0, ops.square(a) + 1.0), (x,), (t,), has_aux=True))),
]
for index in (-2, 0, 1, 2, 7):
    CASES.append(case("switch", "three", [V(index, "int32"), (2, 3), (2, 3)],
                      lambda i, x, y: ops.switch(i, BRANCHES, x, y)))

# ---- bitwise and integer maths ----
INTS = [I(-100, 100, 3, 4), I(0, 256, 3, 4, dtype="uint8"), I(-1000, 1000, 3, 4, dtype="int64")]
for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    CASES += [(name, {}, [x, x]) for x in INTS]
    CASES += [(name, {}, [B(2, 3), B(3)]), (name, {}, [I(0, 256, 4, dtype="uint8"), I(-50, 50, 2, 1)]),
              (name, {}, [B(4), I(0, 256, 4, dtype="uint8")])]
for name in ("bitwise_invert", "bitwise_not"):
    CASES += [(name, {}, [x]) for x in INTS + [B(5), V([-2147483648, 2147483647, 0, -1], "int32")]]
SHIFT_AMOUNTS = V([[0, 1, 7, 8], [31, 32, 40, -1], [3, -5, 2, 33]], "int32")
for name in ("bitwise_left_shift", "left_shift", "bitwise_right_shift", "right_shift"):
    CASES += [(name, {}, [I(-100, 100, 3, 4), I(0, 8, 3, 4)]),
              (name, {}, [I(-1000, 1000, 3, 4), SHIFT_AMOUNTS]),
              (name, {}, [I(0, 256, 3, 4, dtype="uint8"), V([[0, 1, 7, 8], [9, 3, 4, 2], [5, 6, 1, 0]], "uint8")]),
              (name, {}, [B(2, 3), B(2, 3)]),
              (name, {}, [I(0, 256, 4, dtype="uint8"), I(0, 4, 2, 1)]),
              (name, {}, [I(-100, 100, 3, 4)], {"args": [3]}),
              (name, {}, [I(0, 256, 5, dtype="uint8")], {"args": [2]}),
              (name, {}, [B(4)], {"args": [1]})]
GCD_A = V([[12, -8, 0, 0, 7], [100, 17, -36, 1, 48]], "int32")
GCD_B = V([[18, 12, 5, 0, -21], [75, 5, -24, 1, 0]], "int32")
for name in ("gcd", "lcm"):
    CASES += [(name, {}, [GCD_A, GCD_B]), (name, {}, [I(-60, 60, 4, 5), I(-60, 60, 5)]),
              (name, {}, [I(0, 30, 6, dtype="uint8"), I(0, 30, 6, dtype="uint8")]),
              (name, {}, [I(-500, 500, 6, dtype="int64"), I(1, 9, 6)])]
NEXT_FROM = V([0.0, -0.0, 1.0, -1.0, 1.0, np.inf, -np.inf, np.nan, 2.5, 3.0e38, 1e-45, -1e-45])
NEXT_TO = V([1.0, -1.0, 2.0, -2.0, 1.0, 0.0, 0.0, 1.0, np.nan, np.inf, 0.0, -1.0])
CASES += [("nextafter", {}, [(3, 4), (3, 4)], NO_GRAD), ("nextafter", {}, [(2, 3), (3,)], NO_GRAD),
          ("nextafter", {}, [NEXT_FROM, NEXT_TO], NO_GRAD), ("nextafter", {}, [I(-5, 5, 4), I(-5, 5, 4)], NO_GRAD),
          ("nextafter", {}, [V([0.0, 1.0, -3.0], "float32"), V([1, 0, -4], "int32")], NO_GRAD)]

# ---- small utilities ----
CASES += [
    ("unravel_index", {"shape": [3, 4]}, [V([0, 5, 7, 11, -1, -12, -13, 12, 40], "int32")]),
    ("unravel_index", {"shape": [2, 3, 4]}, [I(0, 24, 2, 5)]),
    ("unravel_index", {"shape": [7]}, [I(-10, 10, 6, dtype="int64")]),
    ("unravel_index", {"shape": [4, 5]}, [V([0, 3, 19, 20, 200], "uint8")]),
    ("rearrange", {"pattern": "b h w c -> b c h w"}, [(2, 3, 4, 5)]),
    ("rearrange", {"pattern": "b (h w) c -> b h w c", "h": 2}, [(2, 6, 3)]),
    ("rearrange", {"pattern": "b h w c -> b (h w c)"}, [(2, 3, 2, 2)]),
    ("rearrange", {"pattern": "(b1 b2) h -> h b2 b1", "b1": 2, "b2": 3}, [I(-9, 9, 6, 4)]),
    ("empty", {"shape": [2, 3]}, []),
    ("empty", {"shape": [4], "dtype": "int32"}, []),
    ("empty", {"shape": [2, 0, 3], "dtype": "bool"}, []),
    ("view", {"dtype": "int32"}, [(3, 4)]),
    ("view", {"dtype": "uint8"}, [I(-1000, 1000, 2, 3)]),
    ("view", {"dtype": "int32"}, [I(0, 256, 2, 8, dtype="uint8")]),
    ("view", {"dtype": "bool"}, [I(0, 2, 3, 4, dtype="uint8")]),
    ("view", {"dtype": "float32"}, [I(1000000000, 1100000000, 5)]),
    ("view", {}, [(2, 2)]),
    ("view_as_complex", {}, [(3, 2)], {"keras": lambda x: (lambda c: (ops.real(c), ops.imag(c)))(
        ops.view_as_complex(x))}),
    ("view_as_complex", {}, [(2, 4, 2)], {"keras": lambda x: (lambda c: (ops.real(c), ops.imag(c)))(
        ops.view_as_complex(x))}),
    ("view_as_real", {}, [(3,), (3,)], {"keras": lambda re, im: ops.view_as_real(
        ops.cast(re, "complex64") + 1j * ops.cast(im, "complex64"))}),
    ("view_as_real", {}, [(2, 3), (2, 3)], {"keras": lambda re, im: ops.view_as_real(
        ops.cast(re, "complex64") + 1j * ops.cast(im, "complex64"))}),
]


def run(o):
    op_cases.run_cases(o, CASES)
