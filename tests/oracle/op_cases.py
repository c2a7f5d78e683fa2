"""The keras.ops groups' shared runner (tests/oracle/oracle_ops_*.py).

A group lists CASES, each (name, params, inputs) or (name, params, inputs, opts):
  name    keras.ops.<name>; Kiln's side is the op table entry of that name
          (tests/oracle/tool/ops_<group>.cpp).
  params  keyword arguments, passed to Keras and, as JSON, to the table entry.
  inputs  one spec per tensor argument: a shape tuple (float32 normal(0, 1)), a
          dict {"shape", "dtype", "low", "high"} (uniform, integers in [low, high)),
          {"values": [...], "dtype": ...} (exact values), or a NumPy array.
  opts    "args": positional non-tensor arguments after the tensors (Keras gets
          them positionally, the table entry as params["args"]);
          "grad": False to compare outputs only (default: gradients when an
          output and an input are floating); "rtol"/"atol": tolerances (default
          1e-5 relative, 1e-6 of the largest magnitude absolute); "keras": a
          callable taking the NumPy inputs that replaces keras.ops.<name>.
Every output is compared with its values and dtype (float32 vs float64 vs integer
vs bool; JAX without x64 gives int32 where Keras says int64, so integer widths are
not compared), and the gradient of sum_i(output_i * cotangent_i) with respect to
each floating input against jax.vjp."""
import json
import os

import jax
import numpy as np
from keras import ops


def make_input(o, spec):
    if isinstance(spec, np.ndarray):
        return spec
    if isinstance(spec, tuple):
        return o.rng.normal(0, 1, spec).astype(np.float32)
    dtype = np.dtype(spec.get("dtype", "float32"))
    if "values" in spec:
        return np.asarray(spec["values"], dtype)
    shape, low, high = spec["shape"], spec.get("low", -1.0), spec.get("high", 1.0)
    if dtype == np.bool_:
        return o.rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return o.rng.integers(int(low), int(high), shape).astype(dtype)
    return o.rng.uniform(low, high, shape).astype(dtype)


def kind(dtype):
    d = np.dtype(dtype)
    if d == np.bool_:
        return "bool"
    if np.issubdtype(d, np.integer):
        return "int"
    return d.name


def floating_dtype(d):
    d = np.dtype(d)
    return np.issubdtype(d, np.floating) or d.name == "bfloat16"


def floating(a):
    return floating_dtype(np.asarray(a).dtype)


def on_floats(call, xs, diff):
    """`call` as a function of the floating inputs alone (the others fixed)."""
    def f(*floats):
        full = list(xs)
        for i, v in zip(diff, floats):
            full[i] = v
        return tuple(call(*full))
    return f


def keras_case(o, call, xs, diff, opts):
    """Keras's outputs, the gradients of sum(output * cotangent) with respect to the
    floating inputs, and the cotangents drawn: (outs, {input index: grad}, cots).

    The forward and backward passes run as one jitted program, so XLA compiles
    each case once (eagerly it compiles every primitive of every case, and the
    compilations were most of these groups' time). An op that cannot be traced
    or compiled (an output shape that depends on values, a callable that reads
    its inputs with NumPy, dot_product_attention in float16) runs eagerly."""
    try:
        return keras_case_jit(o, call, xs, diff, opts)
    except Exception:  # noqa: BLE001 - not traceable: the eager path says why, if it fails too
        return keras_case_eager(o, call, xs, diff, opts)


def keras_case_jit(o, call, xs, diff, opts):
    """keras_case as one XLA program."""
    spec = jax.eval_shape(call, *xs)
    float_out = [floating_dtype(y.dtype) for y in spec]
    if not (opts.get("grad", True) and diff and any(float_out)):
        return [np.asarray(y) for y in jax.jit(call)(*xs)], {}, None
    cots = [o.rng.normal(0, 1, y.shape).astype(y.dtype) if f else None for y, f in zip(spec, float_out)]

    def forward_backward(floats, float_cots):
        outs, vjp = jax.vjp(on_floats(call, xs, diff), *floats)
        it = iter(float_cots)
        jcots = tuple(next(it) if f else np.zeros(y.shape, jax.dtypes.float0) for f, y in zip(float_out, spec))
        return outs, vjp(jcots)

    outs, gs = jax.jit(forward_backward)([xs[i] for i in diff], [c for c in cots if c is not None])
    return [np.asarray(y) for y in outs], {i: np.asarray(g) for i, g in zip(diff, gs)}, cots


def keras_case_eager(o, call, xs, diff, opts):
    """keras_case, op by op."""
    outs = [np.asarray(y) for y in call(*xs)]
    if not (opts.get("grad", True) and diff and any(floating(y) for y in outs)):
        return outs, {}, None
    _, vjp = jax.vjp(on_floats(call, xs, diff), *[xs[i] for i in diff])
    cots = [o.rng.normal(0, 1, y.shape).astype(y.dtype) if floating(y) else None for y in outs]
    jcots = tuple(c if c is not None else np.zeros(y.shape, jax.dtypes.float0) for c, y in zip(cots, outs))
    return outs, {i: np.asarray(g) for i, g in zip(diff, vjp(jcots))}, cots


def run_cases(o, cases):
    """Runs every case in Keras (JAX) and in Kiln and compares them."""
    expected = []
    for n, case in enumerate(cases):
        name, params, specs = case[:3]
        opts = case[3] if len(case) > 3 else {}
        xs = [make_input(o, s) for s in specs]
        if opts.get("as"):  # float32 inputs as another float dtype (oracle_ops_half.py)
            xs = [x.astype(opts["as"]) if x.dtype == np.float32 else x for x in xs]
        args = list(opts.get("args", []))
        fn = opts.get("keras") or (lambda *a: getattr(ops, name)(*a, *args, **params))

        def call(*a):
            out = fn(*a)
            return tuple(out) if isinstance(out, (tuple, list)) else (out,)

        diff = [i for i, x in enumerate(xs) if floating(x)]
        try:
            outs, grads, cots = keras_case(o, call, xs, diff, opts)
        except Exception as e:  # noqa: BLE001 (a reused case Keras itself rejects in this dtype)
            if not opts.get("skip_keras_errors"):
                raise
            o.uncovered.append((name, "Keras raises %s on %s" % (type(e).__name__, ", ".join(str(x.dtype) for x in xs))))
            continue
        cid = "%s%d" % (name, n)
        o.add({"id": cid, "name": name, "params": dict(params, args=args), "inputs": [o.arr(x) for x in xs],
               "cotangents": None if cots is None else [o.arr(c) if c is not None else None for c in cots]})
        shapes = " and ".join("%s%s" % (kind(x.dtype), list(x.shape)) for x in xs)
        label = "%s(%s) on %s" % (name, ", ".join([repr(a) for a in args] + ["%s=%r" % kv for kv in params.items()]),
                                  shapes)
        expected.append((cid, label, outs, grads, opts))
    for device in o.devices:
        o.run_kiln(device=device)
        compare_run(o, expected, "" if device == "cpu" else "[%s] " % device)


def compare_run(o, expected, prefix):
    """Compares the tool's latest run with Keras; prefix names a run on another device."""
    for cid, label, outs, grads, opts in expected:
        label = prefix + label
        if o.kiln_error(cid, prefix):
            continue
        path = os.path.join(o.work, "out", cid, "dtypes.json")
        got_dtypes = json.load(open(path)) if os.path.exists(path) else []
        if len(got_dtypes) != len(outs):
            o.fail("%s: Kiln gave %d outputs, Keras %d" % (label, len(got_dtypes), len(outs)))
            continue
        for i, y in enumerate(outs):
            if kind(got_dtypes[i]) != kind(y.dtype):
                o.fail("%s: output %d is %s in Kiln but %s in Keras" % (label, i, got_dtypes[i], y.dtype))
            o.compare("%s: output %d" % (label, i), o.out(cid, "out_%d" % i), y, **tolerance(y, opts))
        for j, g in grads.items():
            o.compare("%s: d/d input %d" % (label, j), o.out(cid, "grad_%d" % j), g, **tolerance(g, opts))


def tolerance(a, opts):
    a = np.asarray(a)
    if not floating(a):
        return dict(rtol=0.0, atol=0.0)
    # A 16-bit result may differ by rounding once more or less: two units in its last place.
    ulp = {"float16": 2.0**-10, "bfloat16": 2.0**-7}.get(a.dtype.name)
    a = a.astype(np.float32) if ulp else a
    top = float(np.max(np.abs(a[np.isfinite(a)]))) if np.any(np.isfinite(a)) else 1.0
    if ulp:
        return dict(rtol=opts.get("rtol", 2 * ulp), atol=opts.get("atol", 2 * ulp) * max(1.0, top))
    return dict(rtol=opts.get("rtol", 1e-5), atol=opts.get("atol", 1e-6) * max(1.0, top))
