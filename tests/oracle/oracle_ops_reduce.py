"""Reductions, sorting and searching, cumulative ops, statistics and segment
reductions: keras.ops.all, any, amax, amin, count_nonzero, cumsum, cumprod,
nancumsum, nancumprod, sort, argsort, top_k, in_top_k, searchsorted, digitize,
isin, segment_sum/max/min/prod, the nan reductions, median, quantile,
percentile, average, ptp, moments, diff, trapezoid, bincount and histogram
(JAX backend) against Kiln's ops of the same names (kiln/ops/reduce_ops.h,
sort_ops.h, cumulative_ops.h, statistics_ops.h, segment_ops.h): values, dtypes
and vjp gradients, through the shared runner (op_cases.py)."""
import numpy as np
from keras import ops

import op_cases

NAN, INF = float("nan"), float("inf")


def ints(shape, low=-3, high=4, dtype="int32"):
    return {"shape": shape, "dtype": dtype, "low": low, "high": high}


def vals(v, dtype="float32"):
    return {"values": v, "dtype": dtype}


BOOLS = {"shape": (3, 4), "dtype": "bool"}
WITH_NAN = vals([[1.5, NAN, -2.0, 0.5], [NAN, NAN, NAN, NAN], [3.0, -1.0, 2.5, 0.0]])
WITH_INF = vals([[1.5, INF, -2.0, 0.5], [-INF, 0.25, 4.0, 0.0], [3.0, -1.0, 2.5, -0.75]])
TIES = vals([[1.0, 3.0, 3.0, -1.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0]])

CASES = []
for name in ("all", "any"):
    CASES += [
        (name, {}, [BOOLS]),
        (name, {"axis": 1}, [BOOLS]),
        (name, {"axis": (0, 2), "keepdims": True}, [{"shape": (2, 3, 4), "dtype": "bool"}]),
        (name, {"axis": 0}, [vals([[0.0, 1.0, NAN], [0.0, 0.0, 2.0]])]),
        (name, {"axis": -1}, [ints((3, 5), -1, 2)]),
    ]
for name in ("amax", "amin", "ptp"):
    CASES += [
        (name, {}, [(3, 4)]),
        (name, {"axis": 1, "keepdims": True}, [(2, 3, 4)]),
        (name, {"axis": (0, 2)}, [(2, 3, 4)]),
        (name, {"axis": 1}, [WITH_INF]),
        (name, {"axis": 0}, [ints((4, 3))]),
        (name, {"axis": 1}, [TIES]),
    ]
CASES += [
    ("amax", {"axis": 1}, [BOOLS]),
    ("count_nonzero", {}, [ints((3, 4), -1, 2)]),
    ("count_nonzero", {"axis": 1}, [vals([[0.0, 1.0, NAN], [0.0, 0.0, -2.0]])]),
    ("count_nonzero", {"axis": (0, 2)}, [{"shape": (2, 3, 4), "dtype": "bool"}]),
]
for name in ("cumsum", "cumprod"):
    CASES += [
        (name, {}, [(3, 4)]),
        (name, {"axis": 0}, [(5, 3)]),
        (name, {"axis": -1}, [(2, 3, 9)]),
        (name, {"axis": 1}, [(2, 1)]),
        (name, {"axis": 1}, [ints((3, 6))]),
        (name, {"axis": 0}, [BOOLS]),
        (name, {"axis": 1, "dtype": "float32"}, [ints((2, 5))]),
        # JAX differentiates cumprod through its own associative scan, whose order of products
        # turns inf · 0 into NaN in other places than any other order; values still agree.
        (name, {"axis": 1}, [WITH_INF], {"grad": name == "cumsum"}),
    ]
CASES += [
    ("cumprod", {"axis": 1}, [vals([[1.5, 0.0, -2.0, 0.5, 3.0], [0.0, 2.0, 0.0, -1.0, 0.5]])]),
    ("nancumsum", {"axis": 1}, [WITH_NAN]),
    ("nancumsum", {}, [WITH_NAN]),
    ("nancumprod", {"axis": 1}, [WITH_NAN]),
    ("nancumprod", {"axis": 0}, [ints((3, 4))]),
]
# Sorting and searching.
CASES += [
    ("sort", {}, [(3, 7)]),
    ("sort", {"axis": 0}, [(5, 3)]),
    ("sort", {"axis": 1}, [(2, 4, 3)]),
    ("sort", {}, [WITH_NAN]),
    ("sort", {}, [WITH_INF]),
    ("sort", {}, [TIES]),
    ("sort", {"axis": 0}, [ints((4, 5))]),
    ("argsort", {}, [(3, 7)]),
    ("argsort", {"axis": 0}, [(6, 2)]),
    ("argsort", {}, [TIES]),
    ("argsort", {}, [WITH_NAN]),
    ("argsort", {"axis": 1}, [ints((2, 9, 2), -2, 2)]),
    ("argsort", {}, [{"shape": (3, 5), "dtype": "bool"}]),
    ("top_k", {"k": 3}, [(4, 7)]),
    ("top_k", {"k": 1}, [(2, 3, 5)]),
    ("top_k", {"k": 4, "sorted": False}, [(3, 6)]),
    ("top_k", {"k": 5}, [TIES]),
    ("top_k", {"k": 2}, [WITH_INF]),
    ("top_k", {"k": 3}, [vals([[1.5, NAN, -2.0, 0.5], [3.0, -1.0, NAN, 0.0]])]),
    ("top_k", {"k": 3}, [ints((3, 6))]),
    ("in_top_k", {"k": 2}, [ints((5,), 0, 4), (5, 4)]),
    ("in_top_k", {"k": 1}, [vals([0, 1, 2], "int32"), vals([[1.0, 1.0, 0.0], [NAN, 0.5, 2.0], [0.0, 3.0, NAN]])]),
    ("in_top_k", {"k": 3}, [ints((6,), 0, 5), (6, 5)]),
    ("searchsorted", {}, [vals([-1.0, 0.0, 0.0, 1.5, 3.0]), vals([[-2.0, 0.0, 0.5], [1.5, 3.0, 9.0]])]),
    ("searchsorted", {"side": "right"}, [vals([-1.0, 0.0, 0.0, 1.5, 3.0]), vals([[-2.0, 0.0, 0.5], [1.5, 3.0, 9.0]])]),
    ("searchsorted", {"side": "right"}, [vals([1, 2, 2, 5], "int32"), ints((7,), 0, 7)]),
    ("searchsorted", {}, [vals([-1.0, 2.0, NAN]), vals([NAN, 2.0, -INF, INF])]),
    ("digitize", {}, [(3, 4), vals([-1.0, 0.0, 0.5, 1.0])]),
    ("digitize", {}, [vals([-1.0, 0.0, 0.25, 1.0, 2.0]), vals([1.0, 0.5, 0.0])]),
    ("digitize", {}, [ints((6,), 0, 6), vals([1, 3, 3, 5], "int32")]),
    ("isin", {}, [ints((3, 4), 0, 6), vals([1, 3, 4], "int32")]),
    ("isin", {"invert": True}, [ints((2, 5), 0, 6), vals([[0, 5], [2, 2]], "int32")]),
    ("isin", {}, [vals([1.0, NAN, 2.5]), vals([NAN, 2.5])]),
]
for name in ("segment_sum", "segment_max", "segment_min", "segment_prod"):
    # JAX has no gradient for segment_prod (scatter_mul with repeated indices).
    opts = {"grad": name != "segment_prod"}
    CASES += [
        (name, {"num_segments": 3}, [(6,), vals([0, 0, 1, 2, 2, 2], "int32")], opts),
        (name, {"num_segments": 4, "sorted": True}, [(5, 3), vals([0, 1, 1, 3, 3], "int32")], opts),
        (name, {"num_segments": 3}, [(5, 2, 2), vals([2, 0, 2, 1, 0], "int32")], opts),
        (name, {"num_segments": 3}, [(4, 2), vals([0, 5, -1, 1], "int32")], opts),
        (name, {"num_segments": 3}, [ints((5, 2)), vals([1, 0, 1, 1, 0], "int32")], opts),
    ]
# Nan reductions.
for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"):
    CASES += [
        (name, {"axis": 1}, [WITH_NAN]),
        (name, {"axis": 0, "keepdims": True}, [WITH_NAN]),
        (name, {}, [(3, 4)]),
        (name, {"axis": (0, 2)}, [(2, 3, 4)]),
    ]
CASES += [
    ("nansum", {"axis": 1}, [ints((3, 4))]),
    ("nansum", {"axis": 0}, [BOOLS]),
    ("nanmax", {"axis": 1}, [ints((3, 4))]),
    ("nanmean", {"axis": 0}, [ints((3, 4))]),
    ("nanvar", {}, [ints((3, 4))]),
    ("nanargmax", {}, [WITH_NAN]),
    ("nanargmax", {"axis": 1}, [WITH_NAN]),
    ("nanargmin", {"axis": 0, "keepdims": True}, [WITH_NAN]),
    ("nanargmin", {"axis": 1}, [(3, 5)]),
    ("nanargmax", {"axis": 1}, [ints((3, 5))]),
]
# Quantiles.
for name, q in (("quantile", 0.3), ("percentile", 70.0)):
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        CASES += [(name, {"q": q, "method": method, "axis": 1}, [(3, 7)])]
    CASES += [
        (name, {"q": q}, [(4, 5)]),
        # keras.ops.percentile takes one axis on JAX (a list is not hashable there).
        (name, {"q": q, "axis": (0, 2) if name == "quantile" else 2, "keepdims": True}, [(2, 3, 4)]),
        (name, {"q": [q / 3, q], "axis": 0}, [(6, 3)]),
        (name, {"q": [0.0, q, q / 2], "axis": 1, "keepdims": True}, [(3, 5)]),
        (name, {"q": q, "axis": 1}, [WITH_NAN]),
        (name, {"q": q, "axis": 1}, [ints((3, 6))]),
    ]
CASES += [
    ("median", {}, [(3, 4)]),
    ("median", {"axis": 1}, [(3, 7)]),
    ("median", {"axis": 0, "keepdims": True}, [(4, 3)]),
    ("median", {"axis": (1, 2)}, [(2, 3, 3)]),
    ("median", {"axis": 1}, [WITH_NAN]),
    ("median", {"axis": 1}, [TIES]),
    ("median", {"axis": 0}, [ints((5, 3))]),
    ("nanmedian", {"axis": 1}, [WITH_NAN]),
    ("nanmedian", {"axis": 0}, [WITH_NAN]),
    ("nanmedian", {}, [(4, 5)]),
    ("nanquantile", {"q": 0.25, "axis": 1}, [WITH_NAN]),
    ("nanquantile", {"q": [0.1, 0.9], "axis": 0, "method": "nearest"}, [WITH_NAN]),
    ("nanpercentile", {"q": 40.0, "axis": 1, "method": "midpoint"}, [WITH_NAN]),
    ("nanpercentile", {"q": [10.0, 60.0], "axis": 1}, [WITH_NAN]),
]
# Other statistics.
CASES += [
    ("argpartition", {"kth": 2}, [(3, 7)]),
    ("argpartition", {"kth": 0, "axis": 0}, [(5, 3)]),
    ("argpartition", {"kth": -2, "axis": None}, [(3, 4)]),
    ("argpartition", {"kth": 3}, [TIES]),
    ("argpartition", {"kth": 1, "axis": 1}, [ints((2, 6, 2), -3, 3)]),
    ("correlate", {}, [(7,), (3,)]),
    ("correlate", {"mode": "same"}, [(7,), (4,)]),
    ("correlate", {"mode": "full"}, [(6,), (3,)]),
    ("correlate", {"mode": "valid"}, [(3,), (6,)]),
    ("correlate", {"mode": "full"}, [(2,), (5,)]),
    ("correlate", {"mode": "same"}, [ints((5,)), ints((3,))]),
    ("corrcoef", {}, [(3, 8)]),
    ("corrcoef", {}, [(2, 5)]),
    ("corrcoef", {}, [(6,)]),
    ("average", {}, [(3, 4)]),
    ("average", {"axis": 1}, [(3, 4)]),
    ("average", {"axis": 1}, [(3, 4), {"shape": (4,), "low": 0.5, "high": 2.0}],
     {"keras": lambda x, w: ops.average(x, axis=1, weights=w)}),
    ("average", {"axis": 0}, [(3, 4), {"shape": (3, 4), "low": 0.5, "high": 2.0}],
     {"keras": lambda x, w: ops.average(x, axis=0, weights=w)}),
    ("average", {}, [(2, 3), {"shape": (2, 3), "low": 0.5, "high": 2.0}],
     {"keras": lambda x, w: ops.average(x, weights=w)}),
    ("average", {"axis": 0}, [ints((4, 3))]),
    ("moments", {"axes": [0]}, [(5, 3)]),
    ("moments", {"axes": [0, 2], "keepdims": True}, [(2, 3, 4)]),
    ("moments", {"axes": [-1]}, [(3, 6)]),
    ("diff", {}, [(3, 5)]),
    ("diff", {"n": 2, "axis": 0}, [(5, 3)]),
    ("diff", {"n": 3}, [(2, 3, 6)]),
    ("diff", {"n": 0}, [(2, 3)]),
    ("diff", {}, [ints((3, 5))]),
    ("diff", {"axis": 0}, [BOOLS]),
    ("trapezoid", {}, [(3, 5)]),
    ("trapezoid", {"dx": 0.5, "axis": 0}, [(4, 3)]),
    ("trapezoid", {}, [(2, 5), vals([0.0, 0.5, 1.5, 2.0, 3.5])]),
    ("trapezoid", {"axis": 0}, [(4, 3), (4, 3)]),
    ("trapezoid", {}, [ints((3, 4))]),
    ("bincount", {}, [vals([0, 1, 1, 3, 2, 1], "int32")]),
    ("bincount", {"minlength": 7}, [vals([0, 1, 1, 3, 2, 1], "int32")]),
    ("bincount", {}, [vals([0, 1, 1, 3, 2, 1], "int32"), (6,)],
     {"keras": lambda x, w: ops.bincount(x, weights=w)}),
    ("bincount", {"minlength": 5}, [vals([[0, 1, 1], [3, 2, 3]], "int32"), (2, 3)],
     {"keras": lambda x, w: ops.bincount(x, weights=w, minlength=5)}),
    ("bincount", {}, [vals([[0, 1, 3], [3, 2, 3]], "int32")]),
    ("histogram", {}, [(20,)]),
    ("histogram", {"bins": 4, "range": (-1.0, 1.0)}, [(30,)]),
    ("histogram", {"bins": 3}, [vals([2.0, 2.0, 2.0])]),
    ("histogram", {"bins": 5}, [vals([0.0, 1.0, 1.0, 2.5, 4.0, 5.0, 5.0])]),
]


def run(o):
    op_cases.run_cases(o, CASES)
