"""Activations: every activation both Kiln and Keras 3 have by name, on points
that include each function's kinks and edges (0, +-0.5, +-1, +-3, 6, ...) and on
random inputs, plus the parameterized forms with non-default parameters: the
value and d sum(f(x) * cotangent) / dx (jax.grad) against Kiln's tape.

At a kink JAX's gradient is one-sided (relu6: 0 at 0 and at 6; leaky_relu: 1 at
0) except where JAX clips (jnp.clip splits a tie between its two sides):
sparse_sigmoid's gradient at -1 and 1 is 0.25 in JAX and 0 or 0.5 in Kiln, so
those two points are left out of its gradient comparison and listed."""
import jax
import jax.numpy as jnp
import keras
import numpy as np

POINTS = np.array([-7, -6, -3.5, -3, -2, -1.5, -1, -0.6, -0.5, -0.4, -0.1, 0, 0.1, 0.4, 0.5, 0.6, 1, 1.5, 2, 3,
                   3.5, 5.9, 6, 6.1, 8], np.float32)

# Axis-wise activations see (3, 8) inputs only.
AXISWISE = {"softmax", "log_softmax", "glu"}

# (name, keras keyword arguments, input shape or None for the points).
PARAMETERIZED = [
    ("celu", {"alpha": 0.5}, None),
    ("elu", {"alpha": 0.7}, None),
    ("leaky_relu", {"negative_slope": 0.1}, None),
    ("gelu", {"approximate": True}, None),
    ("gelu", {"approximate": False}, None),
    ("hard_shrink", {"threshold": 1.0}, None),
    ("soft_shrink", {"threshold": 1.0}, None),
    ("squareplus", {"b": 1.0}, None),
    ("threshold", {"threshold": 0.5, "default_value": -2.0}, None),
    ("softmax", {"axis": 0}, (4, 3)),
    ("log_softmax", {"axis": 0}, (4, 3)),
    ("glu", {"axis": 0}, (4, 3)),
]

# Points where Kiln's gradient is a different (valid) subgradient than JAX's.
KINKS_LEFT_OUT = {"sparse_sigmoid": [-1.0, 1.0]}


def keras_value_and_grad(rng, name, params, x):
    """The value, a cotangent of its shape (glu halves an axis) and d sum(f(x) * cotangent) / dx."""
    fn = getattr(keras.activations, name)
    out = np.asarray(fn(jnp.asarray(x), **params))
    cot = rng.normal(0, 1, out.shape).astype(np.float32)
    f = lambda v: jnp.sum(fn(v, **params) * cot)
    return out, cot, np.asarray(jax.grad(f)(jnp.asarray(x)))


def inputs_for(o, name, shape):
    if name in AXISWISE and shape is None:
        return [("random", o.rng.normal(0, 2, (3, 8)).astype(np.float32))]
    if shape is not None:
        return [("random", o.rng.normal(0, 2, shape).astype(np.float32))]
    return [("points", POINTS.copy()), ("random", o.rng.normal(0, 3, (4, 6)).astype(np.float32))]


def run(o):
    kiln_acts = set(o.kiln_list("activations"))
    keras_acts = {a for a in dir(keras.activations) if not a.startswith("_")} - {"get", "serialize", "deserialize"}
    cases = [(a, {}, None) for a in sorted(kiln_acts & keras_acts)] + PARAMETERIZED
    expected = []
    for n, (name, params, shape) in enumerate(cases):
        for kind, x in inputs_for(o, name, shape):
            out, cot, grad = keras_value_and_grad(o.rng, name, params, x)
            cid = "%s%d_%s" % (name, n, kind)
            o.add({"id": cid, "name": name, "params": params, "x": o.arr(x), "cotangent": o.arr(cot)})
            label = "%s(%s) on %s" % (name, ", ".join("%s=%s" % kv for kv in params.items()), kind)
            keep = np.ones(x.shape, bool)
            if kind == "points" and name in KINKS_LEFT_OUT:
                keep = ~np.isin(x, KINKS_LEFT_OUT[name])
            expected.append((cid, label, out, grad, keep))
    o.run_kiln()
    tol = lambda a: dict(rtol=1e-5, atol=1e-6 * max(1.0, float(np.max(np.abs(a)))))
    for cid, label, out, grad, keep in expected:
        if o.kiln_error(cid):
            continue
        o.compare(label + ": value", o.out(cid, "out"), out, **tol(out))
        kg = o.out(cid, "grad_x")
        if kg is not None and kg.shape == grad.shape:
            kg, grad = kg[keep], grad[keep]
        o.compare(label + ": gradient", kg, grad, **tol(grad))
    for name, pts in KINKS_LEFT_OUT.items():
        o.uncovered.append(("%s gradient at %s" % (name, pts), "JAX's jnp.clip splits the tie: 0.25; Kiln: 0 or 0.5"))
    for a in sorted(keras_acts - kiln_acts):
        reason = "needs its threshold and default_value (no defaults in Keras), compared with them above" \
            if a == "threshold" else "a Keras activation Kiln does not have"
        o.uncovered.append(("activation '%s'" % a, reason))
