"""keras.ops' element-wise maths (JAX backend) against kiln/ops/elementwise_math.h:
values, dtypes (integer and bool inputs, mixed dtypes) and jax.vjp gradients, on
random inputs over broadcast shapes and on edge values (±0, ±1, ±inf, NaN and each
op's domain limits). Runs through op_cases.run_cases; Kiln's side is
tool/ops_math.cpp."""
import numpy as np

import op_cases

INF, NAN = np.inf, np.nan


def F(*shape):
    """float32 normal(0, 1)."""
    return tuple(shape)


def U(low, high, *shape, dtype="float32"):
    return {"shape": shape, "low": low, "high": high, "dtype": dtype}


def I(low, high, *shape, dtype="int32"):
    return {"shape": shape, "low": low, "high": high, "dtype": dtype}


def B(*shape):
    return {"shape": shape, "dtype": "bool"}


def V(values, dtype="float32"):
    return {"values": values, "dtype": dtype}


NO_GRAD = {"grad": False}
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.7, 100.0, INF, -INF, NAN]


def unary(name, random, edges=EDGES, ints=(I(-5, 6, 7),), opts=None):
    """A float case with gradients, the edge values (values only) and integer/bool inputs."""
    cases = [(name, {}, [random], dict(opts or {}))]
    if edges is not None:
        cases.append((name, {}, [V(edges)], dict(NO_GRAD, **(opts or {}))))
    cases += [(name, {}, [spec]) for spec in ints]
    return cases


INT_KINDS = (I(-5, 6, 7), I(0, 200, 6, dtype="uint8"), I(-3, 4, 5, dtype="int64"), B(6))
POS_INTS = (I(1, 50, 7), I(1, 200, 6, dtype="uint8"), B(6))

CASES = []
# ---- aliases and the complex functions on real tensors ----
CASES += unary("absolute", F(2, 3, 4), ints=INT_KINDS)
CASES += unary("fabs", F(3, 4), ints=INT_KINDS)
CASES += unary("negative", F(3, 4), ints=INT_KINDS[:3])
for name in ("conjugate", "conj", "real", "imag"):
    CASES += unary(name, F(2, 5), ints=INT_KINDS)
CASES += unary("angle", F(4, 3), edges=[-2.0, -0.0, 0.0, 3.0, NAN, -INF, INF], ints=INT_KINDS)
CASES += unary("isreal", F(3, 2), ints=INT_KINDS)
CASES += unary("reciprocal", U(0.2, 3.0, 3, 4), ints=(I(1, 9, 6), I(-9, -1, 4, dtype="int64")))
CASES += [("reciprocal", {}, [F(5)])]
CASES += unary("ceil", F(3, 4), ints=INT_KINDS)
CASES += unary("trunc", F(3, 4), ints=INT_KINDS)
CASES += unary("signbit", F(3, 4), ints=INT_KINDS)
CASES += [
    ("power", {}, [U(0.2, 3.0, 3, 4), F(4)]),
    ("power", {}, [U(0.2, 3.0, 2, 1, 3), U(-2.0, 2.0, 4, 1)]),
    ("power", {}, [V([-2.0, -1.5, 0.0, 0.0, 2.0, INF]), V([3.0, 2.0, 0.0, 2.0, -1.0, -1.0])], NO_GRAD),
    ("power", {}, [I(-3, 4, 3, 4), I(0, 4, 4)]),
    ("power", {}, [U(0.2, 2.0, 5), I(0, 4, 5)]),
    ("power", {}, [I(0, 5, 6, dtype="uint8"), I(0, 3, 6)]),
    ("power", {}, [B(6), B(6)]),
    ("true_divide", {}, [F(3, 4), U(0.5, 2.0, 4)]),
    ("true_divide", {}, [I(-9, 9, 2, 3), I(1, 5, 3)]),
    ("true_divide", {}, [I(0, 9, 4, dtype="uint8"), F(4)]),
    ("true_divide", {}, [V([1.0, -1.0, 0.0]), V([0.0, 0.0, 0.0])], NO_GRAD),
    ("mod", {}, [U(-5.0, 5.0, 3, 4), V([1.5, -2.0, 0.7, -0.9])]),
    ("mod", {}, [U(-5.0, 5.0, 2, 1, 3), U(0.5, 2.0, 4, 1)]),
    ("mod", {}, [I(-10, 10, 3, 4), V([3, -2, 5, -7], "int32")]),
    ("mod", {}, [I(0, 250, 6, dtype="uint8"), V([7, 3, 9, 1, 2, 5], "uint8")]),
    ("mod", {}, [B(5), V([True] * 5, "bool")]),
    ("mod", {}, [I(-10, 10, 5), U(0.5, 2.0, 5)]),
]
# ---- trigonometric and hyperbolic ----
CASES += unary("tan", U(-1.4, 1.4, 3, 4), ints=(I(-1, 2, 5), B(4)))
for name in ("arcsin", "arccos"):
    CASES += unary(name, U(-0.98, 0.98, 3, 4), edges=[-1.0, 1.0, 0.0, -0.0, 1.5, -2.0, NAN, 0.999, -0.9999],
                   ints=(I(-1, 2, 5), B(4)))
CASES += unary("arctan", F(3, 4), ints=(I(-5, 6, 5), B(4)))
CASES += unary("sinh", U(-4.0, 4.0, 3, 4), edges=[0.0, -0.0, 1e-6, -3e-4, 10.0, -10.0, INF, -INF, NAN],
               ints=(I(-5, 6, 5), B(4)))
CASES += unary("cosh", U(-4.0, 4.0, 3, 4), edges=[0.0, 1e-6, 10.0, -10.0, INF, -INF, NAN], ints=(I(-5, 6, 5), B(4)))
CASES += unary("arcsinh", F(3, 4), edges=[0.0, -0.0, 1e-7, -2e-4, 1e3, -1e3, 1e20, -1e20, INF, -INF, NAN],
               ints=(I(-5, 6, 5), B(4)))
CASES += unary("arccosh", U(1.05, 6.0, 3, 4), edges=[1.0, 1.0001, 0.5, 0.0, 2.0, 1e20, INF, NAN],
               ints=(I(1, 6, 5), B(4)))
CASES += unary("arctanh", U(-0.95, 0.95, 3, 4), edges=[-1.0, 1.0, 0.0, 1e-6, 0.999, 2.0, -1.5, NAN],
               ints=(I(-1, 2, 5), B(4)))
CASES += unary("deg2rad", F(3, 4), ints=(I(-360, 360, 5), B(4)))
CASES += unary("rad2deg", F(3, 4), ints=(I(-4, 4, 5), B(4)))
CASES += unary("sinc", F(3, 4), ints=(I(-3, 4, 5), B(4)))
CASES += [("sinc", {}, [V([0.0, 0.5, -1.5, 2.0, 0.25, 0.1])])]
CASES += [
    ("hypot", {}, [F(3, 4), F(4)]),
    ("hypot", {}, [F(2, 1, 3), F(4, 1)]),
    ("hypot", {}, [V([0.0, 3.0, INF, NAN, -INF, 1e30, 0.0]), V([0.0, -4.0, NAN, INF, 2.0, 1e30, -5.0])], NO_GRAD),
    ("hypot", {}, [I(-5, 6, 5), I(-5, 6, 5)]),
    ("hypot", {}, [I(0, 9, 4, dtype="uint8"), B(4)]),
]
# ---- exponents and logarithms ----
CASES += unary("exp2", U(-4.0, 4.0, 3, 4), edges=[0.0, -1.0, 10.0, -150.0, 130.0, INF, -INF, NAN],
               ints=(I(-5, 10, 6), B(4)))
for name in ("log2", "log10"):
    CASES += unary(name, U(0.1, 10.0, 3, 4), edges=[0.0, -1.0, 1.0, 8.0, 1024.0, 1e-30, INF, NAN],
                   ints=(I(1, 2000, 6), I(1, 200, 5, dtype="uint8"), B(4)))
for name in ("logaddexp", "logaddexp2"):
    CASES += [
        (name, {}, [F(3, 4), F(4)]),
        (name, {}, [F(2, 1, 3), F(4, 1)]),
        (name, {}, [V([-INF, INF, -INF, NAN, INF, 0.5, -30.0, 80.0]), V([-INF, INF, 1.0, 1.0, -INF, 0.5, 40.0, 80.0])]),
        (name, {}, [I(-5, 6, 5), I(-5, 6, 5)]),
        (name, {}, [I(0, 9, 4, dtype="uint8"), F(4)]),
    ]
CASES += unary("cbrt", F(3, 4), edges=[0.0, -0.0, -8.0, 27.0, 1e-30, -1e30, INF, -INF, NAN],
               ints=(I(-30, 30, 6), B(4)))
CASES += unary("erfc", U(-3.0, 3.0, 3, 4), edges=[0.0, 1.0, -1.0, 3.0, 5.0, -5.0, INF, -INF, NAN],
               ints=(I(-2, 3, 5), B(4)))
CASES += unary("erfinv", U(-0.99, 0.99, 3, 4),
               edges=[-1.0, 1.0, 0.0, -0.0, 0.5, 0.9999, -0.99999, 1.5, -2.0, NAN], ints=(I(-1, 2, 5), B(4)))
CASES += [("erfinv", {}, [U(-0.9999, 0.9999, 40)])]
CASES += unary("i0", U(-6.0, 6.0, 3, 4), edges=[0.0, -1.0, 5.0, 14.9, 15.1, -20.0, 50.0, 80.0, 100.0, INF, NAN],
               ints=(I(-8, 9, 6), B(4)))
CASES += [("i0", {}, [U(14.0, 40.0, 10)]), ("i0", {}, [U(-40.0, -14.0, 10)])]
CASES += [
    ("ldexp", {}, [F(3, 4), V([-3, 0, 2, 7], "int32")]),
    ("ldexp", {}, [F(2, 1, 3), I(-5, 5, 4, 1)]),
    ("ldexp", {}, [V([0.0, INF, -INF, NAN, 1.0, 3.0]), V([3, 1, 2, 1, -1, 120], "int32")], NO_GRAD),
    ("ldexp", {}, [I(-9, 9, 5), I(0, 5, 5)]),
    ("ldexp", {}, [B(5), I(0, 3, 5, dtype="uint8")]),
]
# ---- comparisons and predicates ----
for name in ("isinf", "isposinf", "isneginf"):
    CASES += [(name, {}, [V(EDGES)]), (name, {}, [F(2, 3)]), (name, {}, [I(-5, 6, 5)]), (name, {}, [B(4)])]


def near(shape, rel, seed):
    r = np.random.default_rng(seed)
    a = r.normal(0, 1, shape).astype(np.float32)
    return a, (a * (1 + rel * r.choice([-1.0, 1.0], shape))).astype(np.float32)


CLOSE_EDGES = [V([INF, INF, -INF, NAN, NAN, 1.0, 0.0, 1e-9, 1.0]), V([INF, -INF, -INF, NAN, 1.0, NAN, 1e-9, 0.0, 1.00001])]
for name in ("isclose", "allclose"):
    a5, b5 = near((3, 4), 5e-6, 1)
    a3, b3 = near((3, 4), 3e-4, 2)
    CASES += [
        (name, {}, [a5, b5]),
        (name, {}, [a3, b3]),
        (name, {"rtol": 1e-3}, [a3, b3]),
        (name, {"atol": 1e-3, "rtol": 0.0}, [a3, b3]),
        (name, {}, [a5[:1], b5]),
        (name, {}, list(CLOSE_EDGES)),
        (name, {"equal_nan": True}, list(CLOSE_EDGES)),
        (name, {}, [I(-3, 3, 5), I(-3, 3, 5)]),
        (name, {}, [V([1, 2, 3], "int32"), V([1.0, 2.00001, 3.1])]),
        (name, {}, [a5, a5]),
    ]
for name in ("fmax", "fmin"):
    CASES += [
        (name, {}, [F(3, 4), F(4)]),
        (name, {}, [F(2, 1, 3), F(4, 1)]),
        (name, {}, [V([NAN, 1.0, NAN, -INF, INF, 0.0, 2.0]), V([2.0, NAN, NAN, 3.0, 1.0, -0.5, 2.0])]),
        (name, {}, [I(-5, 6, 5), I(-5, 6, 5)]),
        (name, {}, [I(0, 200, 5, dtype="uint8"), I(-5, 6, 5)]),
        (name, {}, [I(-5, 6, 5), F(5)]),
        (name, {}, [B(6), B(6)]),
    ]
CASES += [
    ("fmod", {}, [U(-5.0, 5.0, 3, 4), V([1.5, -2.0, 0.7, -0.9])]),
    ("fmod", {}, [U(-5.0, 5.0, 2, 1, 3), U(0.5, 2.0, 4, 1)]),
    ("fmod", {}, [V([0.0, -0.0, INF, 3.0, NAN, -7.5, 7.5]), V([2.0, 2.0, 2.0, INF, 1.0, 2.0, -2.0])], NO_GRAD),
    ("fmod", {}, [I(-10, 10, 3, 4), V([3, -2, 5, -7], "int32")]),
    ("fmod", {}, [I(0, 250, 6, dtype="uint8"), V([7, 3, 9, 1, 2, 5], "uint8")]),
    ("fmod", {}, [B(5), V([True] * 5, "bool")]),
    ("fmod", {}, [I(-10, 10, 5), U(0.5, 2.0, 5)]),
    ("heaviside", {}, [V([-1.5, 0.0, 2.0, -0.0, 0.0, NAN]), V([0.5, 0.5, 0.5, 0.25, 1.0, 0.5])]),
    ("heaviside", {}, [V([[-1.0], [0.0], [3.0]]), F(4)]),
    ("heaviside", {}, [I(-2, 3, 6), F(6)]),
    ("heaviside", {}, [I(-2, 3, 6), I(0, 2, 6)]),
    ("heaviside", {}, [B(4), B(4)]),
    ("logical_xor", {}, [B(3, 4), B(4)]),
    ("logical_xor", {}, [I(-1, 2, 6), V([0.0, 1.0, -2.0, 0.0, NAN, 0.5])]),
    ("nan_to_num", {}, [V(EDGES)]),
    ("nan_to_num", {"nan": 1.5, "posinf": 100.0, "neginf": -100.0}, [V(EDGES)]),
    ("nan_to_num", {"posinf": 7.0}, [V(EDGES)]),
    ("nan_to_num", {}, [F(3, 4)]),
    ("nan_to_num", {}, [I(-5, 6, 5)]),
    ("nan_to_num", {}, [B(4)]),
    ("divide_no_nan", {}, [F(3, 4), V([1.5, 0.0, -2.0, 0.0])]),
    ("divide_no_nan", {}, [F(2, 1, 3), U(0.5, 2.0, 4, 1)]),
    ("divide_no_nan", {}, [V([0.0, 1.0, INF, NAN, 2.0]), V([0.0, 0.0, 0.0, 0.0, INF])], NO_GRAD),
    ("divide_no_nan", {}, [I(-5, 6, 5), V([2, 0, -3, 0, 1], "int32")]),
]


def run(o):
    op_cases.run_cases(o, CASES)
