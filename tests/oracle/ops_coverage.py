#!/usr/bin/env python3
"""The keras.ops coverage table: every callable of Keras 3.15's keras.ops is
compared with Kiln by an oracle group (a CASES entry of tests/oracle/oracle_ops_*.py
or oracle_fft.py), excluded with the reason it cannot apply to C++, or listed as
not yet done. Writes docs/keras_ops.md from that.

  ops_coverage.py --check   fails when a keras.ops name is in none of the three
                            lists or in two, when a NOT_YET name is compared, or
                            when docs/keras_ops.md is not what --write gives
  ops_coverage.py --write   rewrites docs/keras_ops.md
Run with the oracle venv's Python (KERAS_BACKEND=jax); tests/oracle/ops_coverage.sh
is the CTest entry."""
import argparse
import glob
import importlib
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "keras_ops.md")

ACTIVATIONS = {"relu", "relu6", "sigmoid", "softplus", "selu", "silu", "softsign", "hard_sigmoid", "hard_silu",
               "hard_tanh", "log_sigmoid", "sparse_plus", "sparse_sigmoid", "tanh_shrink", "elu", "celu", "gelu",
               "glu", "leaky_relu", "hard_shrink", "soft_shrink", "squareplus", "threshold"}
# Kiln's spelling where it is not kiln::<keras name>.
KILN_NAMES = {"concatenate": "kiln::concat", "full": "kiln::fill", "swish": "kiln::activations::silu",
              "hard_swish": "kiln::activations::hard_silu"}
KILN_NAMES.update({a: "kiln::activations::" + a for a in ACTIVATIONS})

# What cannot apply to C++, with the reason and Kiln's spelling of the idea.
EXCLUDED = {
    "convert_to_numpy": "C++ has no NumPy: `t.to_vector<float>()` and `t.data<float>()` read a tensor",
    "convert_to_tensor": "tensors are built by their constructors (`kiln::Tensor(std::vector<float>, shape)`, "
                         "nested braces)",
    "array": "tensors are built by their constructors (`kiln::Tensor({{1, 2}, {3, 4}})`)",
    "is_tensor": "static typing: a value is a `kiln::Tensor` or it is not",
    "shape": "a member: `t.shape()`",
    "dtype": "a member: `t.dtype()`",
    "ndim": "a member: `t.rank()`",
    "size": "a member: `t.size()`",
    "get_item": "the subscript operator: `t[{Slice(1, None), 0}]`, `t[mask]`, `t[indices]`",
}

# Not done yet (kiln's issue on keras.ops); each name leaves this list when a group compares it.
NOT_YET = set("""
absolute adaptive_average_pool adaptive_max_pool all allclose amax amin angle any arccos arccosh arcsin arcsinh
arctan arctanh argpartition argsort associative_scan average average_pool bartlett batch_normalization
binary_crossentropy bincount bitwise_and bitwise_invert bitwise_left_shift bitwise_not bitwise_or
bitwise_right_shift bitwise_xor blackman categorical_crossentropy cbrt cdist ceil cholesky cholesky_inverse cond
conj conjugate conv conv_transpose copy corrcoef correlate cosh count_nonzero ctc_decode ctc_loss cumprod cumsum
custom_gradient deg2rad depthwise_conv det diff digitize divide_no_nan dot_product_attention eig eigh empty erfc
erfinv exp2 extract_sequences fabs fmax fmin fmod fold fori_loop gcd hamming hanning heaviside histogram hypot i0
imag in_top_k inv isclose isin isinf isneginf isposinf isreal jvp kaiser layer_normalization lcm ldexp left_shift
log10 log2 logaddexp logaddexp2 logdet logical_xor lstsq lu_factor map matrix_rank max_pool median mod moments
multi_hot nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod
nanquantile nanstd nansum nanvar negative nextafter norm ones percentile pinv polar power psnr ptp qr quantile
rad2deg real rearrange reciprocal right_shift rms_normalization saturate_cast scan scatter scatter_update
searchsorted segment_max segment_min segment_prod segment_sum separable_conv signbit sinc sinh slice slogdet solve
solve_triangular sort sparse_categorical_crossentropy sparsemax svd switch tan top_k trapezoid true_divide trunc
unfold unique unravel_index vectorize vectorized_map view view_as_complex view_as_real while_loop zeros
""".split())


def keras_ops_names():
    from keras import ops
    return sorted(n for n in dir(ops) if not n.startswith("_") and callable(getattr(ops, n))
                  and not inspect.isclass(getattr(ops, n)) and not inspect.ismodule(getattr(ops, n)))


def compared():
    """keras name -> the oracle groups whose CASES compare it."""
    sys.path.insert(0, HERE)
    groups = {}
    for path in sorted(glob.glob(os.path.join(HERE, "oracle_ops_*.py")) + [os.path.join(HERE, "oracle_fft.py")]):
        group = os.path.basename(path)[len("oracle_"):-3]
        for case in importlib.import_module("oracle_" + group).CASES:
            groups.setdefault(case[0], set()).add(group)
    return groups


def table(names, groups):
    done = [n for n in names if n in groups]
    lines = ["# keras.ops in Kiln", "",
             "Every callable of Keras 3.15's `keras.ops`, with its Kiln counterpart and the Keras oracle group that "
             "compares the two (values, dtypes and gradients; `tests/oracle/`). Generated by "
             "`tests/oracle/ops_coverage.py --write`; CTest's `keras_ops_coverage` fails when it is stale or when a "
             "name is in no list.", "",
             "%d of %d compared with Keras, %d excluded (they cannot apply to C++), %d not yet in Kiln." % (
                 len(done), len(names), sum(n in EXCLUDED for n in names), sum(n in NOT_YET for n in names)), "",
             "| keras.ops | Kiln | oracle group |", "|---|---|---|"]
    for n in done:
        lines.append("| `%s` | `%s` | %s |" % (n, KILN_NAMES.get(n, "kiln::" + n), ", ".join(sorted(groups[n]))))
    lines += ["", "## Excluded", "", "| keras.ops | why, and the C++ spelling |", "|---|---|"]
    lines += ["| `%s` | %s |" % (n, EXCLUDED[n]) for n in names if n in EXCLUDED]
    lines += ["", "## Not yet in Kiln", "", ", ".join("`%s`" % n for n in names if n in NOT_YET), ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--check", action="store_true")
    p.add_argument("--write", action="store_true")
    a = p.parse_args()
    names, groups = keras_ops_names(), compared()
    problems = []
    for n in names:
        homes = [what for what, inside in (("compared", n in groups), ("EXCLUDED", n in EXCLUDED),
                                           ("NOT_YET", n in NOT_YET)) if inside]
        if len(homes) != 1:
            problems.append("keras.ops.%s is in %s; it must be in exactly one of compared, EXCLUDED, NOT_YET" % (
                n, " and ".join(homes) or "none of the lists"))
    for n in sorted(set(groups) | set(EXCLUDED) | NOT_YET):
        if n not in names:
            problems.append("'%s' is listed but is not a keras.ops callable of this Keras" % n)
    text = table(names, groups)
    if a.write:
        with open(DOC, "w") as f:
            f.write(text)
    elif a.check:
        current = open(DOC).read() if os.path.exists(DOC) else ""
        if current != text:
            problems.append("docs/keras_ops.md is stale: run tests/oracle/ops_coverage.py --write")
    print("keras.ops: %d callables; %d compared with Keras, %d excluded, %d not yet" % (
        len(names), sum(n in groups for n in names), sum(n in EXCLUDED for n in names),
        sum(n in NOT_YET for n in names)))
    for msg in problems:
        print("PROBLEM: " + msg)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
