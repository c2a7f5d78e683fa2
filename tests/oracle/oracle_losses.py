"""Losses: every loss class Kiln registers, on random float32 inputs, for every
reduction, with and without sample weights: the value and its gradient with
respect to y_pred (jax.grad through Keras against Kiln's tape)."""
import jax
import jax.numpy as jnp
import keras
import numpy as np

REDUCTIONS = ["sum_over_batch_size", "sum", "none", "mean", "mean_with_sample_weight"]


def _probs(rng, shape):
    p = rng.uniform(0.05, 1.0, shape).astype(np.float32)
    return (p / p.sum(-1, keepdims=True)).astype(np.float32)


def _onehot(rng, shape):
    return np.eye(shape[-1], dtype=np.float32)[rng.integers(0, shape[-1], shape[:-1])]


def inputs(kind, rng, shape):
    """(y_true, y_pred) for a kind of loss, away from kinks and clip limits."""
    u = lambda lo, hi: rng.uniform(lo, hi, shape).astype(np.float32)
    n = lambda s=1.0: (rng.normal(0, s, shape)).astype(np.float32)
    if kind == "real":
        return n(), n()
    if kind == "positive":
        return u(0.1, 3.0), u(0.1, 3.0)
    if kind == "percent":
        t = u(0.5, 2.0) * np.where(rng.random(shape) < 0.5, -1, 1).astype(np.float32)
        return t, n()
    if kind == "binary":
        return (rng.random(shape) < 0.5).astype(np.float32), u(0.05, 0.95)
    if kind == "binary_logits":
        return (rng.random(shape) < 0.5).astype(np.float32), n(2.0)
    if kind == "hinge":
        return (rng.random(shape) < 0.5).astype(np.float32), n()
    if kind == "probs":
        return _onehot(rng, shape), _probs(rng, shape)
    if kind == "logits":
        return _onehot(rng, shape), n(2.0)
    if kind == "kl":
        return _probs(rng, shape), _probs(rng, shape)
    if kind == "sparse_probs":
        return rng.integers(0, shape[-1], shape[:-1]).astype(np.int64), _probs(rng, shape)
    if kind == "sparse_logits":
        return rng.integers(0, shape[-1], shape[:-1]).astype(np.int64), n(2.0)
    raise ValueError(kind)


# (class name, constructor kwargs, input kind). Every Kiln loss class appears.
VARIANTS = [
    ("MeanSquaredError", {}, "real"),
    ("MeanAbsoluteError", {}, "real"),
    ("MeanAbsolutePercentageError", {}, "percent"),
    ("MeanSquaredLogarithmicError", {}, "positive"),
    ("LogCosh", {}, "real"),
    ("Huber", {}, "real"),
    ("Huber", {"delta": 0.7}, "real"),
    ("KLDivergence", {}, "kl"),
    ("Poisson", {}, "positive"),
    ("CosineSimilarity", {"axis": -1}, "real"),
    ("Hinge", {}, "hinge"),
    ("SquaredHinge", {}, "hinge"),
    ("CategoricalHinge", {}, "logits"),
    ("BinaryCrossentropy", {}, "binary"),
    ("BinaryCrossentropy", {"from_logits": True}, "binary_logits"),
    ("BinaryCrossentropy", {"label_smoothing": 0.1}, "binary"),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, "binary_logits"),
    ("BinaryFocalCrossentropy", {}, "binary"),
    ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5}, "binary"),
    ("BinaryFocalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, "binary_logits"),
    ("CategoricalCrossentropy", {}, "probs"),
    ("CategoricalCrossentropy", {"from_logits": True}, "logits"),
    ("CategoricalCrossentropy", {"label_smoothing": 0.1}, "probs"),
    ("CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, "logits"),
    ("CategoricalFocalCrossentropy", {}, "probs"),
    ("CategoricalFocalCrossentropy", {"alpha": 0.5, "gamma": 1.0, "from_logits": True}, "logits"),
    ("CategoricalFocalCrossentropy", {"label_smoothing": 0.1}, "probs"),
    ("SparseCategoricalCrossentropy", {}, "sparse_probs"),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, "sparse_logits"),
    ("SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 2}, "sparse_logits"),
]


def keras_value_and_grad(loss, y_true, y_pred, sw):
    def f(p):
        return loss(jnp.asarray(y_true), p, None if sw is None else jnp.asarray(sw))

    value = f(jnp.asarray(y_pred))
    grad = jax.grad(lambda p: jnp.sum(f(p)))(jnp.asarray(y_pred))
    return np.asarray(value), np.asarray(grad)


def cases(o):
    """Yields (case, keras value, keras grad)."""
    rng = o.rng
    for vi, (cls, kwargs, kind) in enumerate(VARIANTS):
        # Shapes: a batch of 7, batch 1, and a rank-3 batch (the last axis is reduced).
        for shape, reductions in [((7, 5), REDUCTIONS), ((1, 5), ["sum_over_batch_size", "sum"]),
                                  ((3, 4, 5), ["sum_over_batch_size", "none"])]:
            for reduction in reductions:
                for weighted in (False, True):
                    y_true, y_pred = inputs(kind, rng, shape)
                    sw = rng.uniform(0, 2, shape[:-1]).astype(np.float32) if weighted else None
                    config = dict(kwargs, reduction=reduction)
                    loss = getattr(keras.losses, cls)(**config)
                    value, grad = keras_value_and_grad(loss, y_true, y_pred, sw)
                    cid = "%s%d_%s_%s%s" % (cls, vi, "x".join(map(str, shape)), reduction, "_w" if weighted else "")
                    case = {"id": cid, "loss": {"class_name": cls, "config": config},
                            "y_true": o.arr(y_true), "y_pred": o.arr(y_pred),
                            "sample_weight": None if sw is None else o.arr(sw)}
                    yield case, value, grad, "%s(%s)" % (cls, ", ".join("%s=%s" % kv for kv in config.items()))


def run(o):
    registered = {n for n in o.kiln_list("losses") if n[:1].isupper() and n.upper() != n}
    expected = []
    for case, value, grad, desc in cases(o):
        o.add(case)
        expected.append((case["id"], value, grad, desc))
    o.run_kiln()
    for cid, value, grad, desc in expected:
        if o.kiln_error(cid):
            continue
        shape = cid.split("_")[1]
        label = "%s %s%s" % (desc, shape, " weighted" if cid.endswith("_w") else "")
        o.compare(label + " value", o.out(cid, "value"), value, rtol=1e-5, atol=1e-6)
        o.compare(label + " d/dy_pred", o.out(cid, "grad"), grad, rtol=1e-5, atol=1e-6)
    covered = {v[0] for v in VARIANTS}
    for name in sorted(registered - covered):
        o.fail("loss class %s is registered in Kiln but no case covers it" % name)
