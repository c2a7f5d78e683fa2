"""Metrics: every metric class Kiln registers, as stateful objects: three
update_state calls (batches of 5, 1 and 7, with and without sample weights)
and the result after each, compared with Keras's."""
import warnings

import keras
import numpy as np

from oracle_losses import inputs


def _ints(rng, shape, n):
    return rng.integers(0, n, shape).astype(np.float32)


def _multilabel(rng, shape):
    return (rng.random(shape) < 0.4).astype(np.float32), rng.uniform(0, 1, shape).astype(np.float32)


def data(kind, rng, batch):
    """(y_true, y_pred) of one update for a kind of metric."""
    if kind == "values":
        return None, rng.normal(0, 1, (batch, 3)).astype(np.float32)
    if kind == "equal":
        return _ints(rng, (batch, 4), 3), _ints(rng, (batch, 4), 3)
    if kind == "iou":
        return _ints(rng, (batch, 4), 3).astype(np.int64), _ints(rng, (batch, 4), 3).astype(np.int64)
    if kind == "multilabel":
        return _multilabel(rng, (batch, 4))
    if kind == "multilabel_logits":
        t, _ = _multilabel(rng, (batch, 4))
        return t, rng.normal(0, 2, (batch, 4)).astype(np.float32)
    if kind == "sparse_probs_col":
        t, p = inputs("sparse_probs", rng, (batch, 5))
        return t.reshape(batch, 1), p
    return inputs(kind, rng, (batch, 5))


# (class name, kwargs, data kind). Every Kiln metric class appears.
VARIANTS = [
    ("Mean", {}, "values"),
    ("Sum", {}, "values"),
    ("MeanMetricWrapper", {"fn": "mean_squared_error"}, "real"),
    ("Accuracy", {}, "equal"),
    ("BinaryAccuracy", {}, "binary"),
    ("BinaryAccuracy", {"threshold": 0.7}, "binary"),
    ("CategoricalAccuracy", {}, "probs"),
    ("SparseCategoricalAccuracy", {}, "sparse_probs"),
    ("SparseCategoricalAccuracy", {}, "sparse_probs_col"),
    ("TopKCategoricalAccuracy", {"k": 2}, "probs"),
    ("TopKCategoricalAccuracy", {}, "probs"),
    ("SparseTopKCategoricalAccuracy", {"k": 2}, "sparse_probs"),
    ("SparseTopKCategoricalAccuracy", {"k": 3, "from_sorted_ids": False}, "sparse_probs_col"),
    ("TruePositives", {}, "multilabel"),
    ("TrueNegatives", {"thresholds": [0.3, 0.6]}, "multilabel"),
    ("FalsePositives", {"thresholds": 0.4}, "multilabel"),
    ("FalseNegatives", {"thresholds": [0.2, 0.5, 0.8]}, "multilabel"),
    ("Precision", {}, "multilabel"),
    ("Precision", {"thresholds": [0.3, 0.7]}, "multilabel"),
    ("Precision", {"top_k": 2}, "multilabel"),
    ("Precision", {"class_id": 1}, "multilabel"),
    ("Recall", {}, "multilabel"),
    ("Recall", {"thresholds": [0.3, 0.7], "class_id": 2}, "multilabel"),
    ("Recall", {"top_k": 2}, "multilabel"),
    ("AUC", {}, "multilabel"),
    ("AUC", {"num_thresholds": 50, "curve": "PR"}, "multilabel"),
    ("AUC", {"summation_method": "minoring"}, "multilabel"),
    ("AUC", {"summation_method": "majoring", "curve": "PR"}, "multilabel"),
    ("AUC", {"from_logits": True, "num_thresholds": 20}, "multilabel_logits"),
    ("FBetaScore", {"beta": 2.0}, "multilabel"),
    ("FBetaScore", {"beta": 0.5, "average": "micro", "threshold": 0.4}, "multilabel"),
    ("FBetaScore", {"average": "macro"}, "multilabel"),
    ("F1Score", {"average": "weighted"}, "multilabel"),
    ("F1Score", {}, "multilabel"),
    ("MeanIoU", {"num_classes": 3}, "iou"),
    ("MeanIoU", {"num_classes": 3, "ignore_class": 0}, "iou"),
    ("MeanSquaredError", {}, "real"),
    ("RootMeanSquaredError", {}, "real"),
    ("MeanAbsoluteError", {}, "real"),
    ("MeanAbsolutePercentageError", {}, "percent"),
    ("MeanSquaredLogarithmicError", {}, "positive"),
    ("LogCoshError", {}, "real"),
    ("CosineSimilarity", {}, "real"),
    ("BinaryCrossentropy", {}, "binary"),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, "binary_logits"),
    ("CategoricalCrossentropy", {}, "probs"),
    ("CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, "logits"),
    ("SparseCategoricalCrossentropy", {}, "sparse_probs"),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, "sparse_logits"),
    ("KLDivergence", {}, "kl"),
    ("Poisson", {}, "positive"),
    ("Hinge", {}, "hinge"),
    ("SquaredHinge", {}, "hinge"),
    ("CategoricalHinge", {}, "logits"),
]

BATCHES = [5, 1, 7]

# Options Kiln does not implement: listed in the output, not compared.
UNSUPPORTED = [
    ("AUC(multi_label=True)", "Kiln's AUC has no multi_label / label_weights (metrics/include/kiln/metrics/auc.h)"),
]

# Where Kiln deliberately follows tf.keras 2 rather than Keras 3: (description,
# class, kwargs, kind, the Keras 3 kwargs that reproduce Kiln's behaviour).
DIFFERENCES = [
    ("MeanIoU with fractional sample weights: Keras 3 defaults the metric to dtype int32 and truncates the "
     "weights (it warns); Kiln keeps float32 weights as tf.keras 2 did, which Keras 3 gives with dtype='float32'",
     "MeanIoU", {"num_classes": 3}, "iou", {"dtype": "float32"}),
]


def sample_weight(rng, kind, y_pred, fractional):
    if kind != "iou":
        return rng.uniform(0, 2, (y_pred.shape[0],)).astype(np.float32)
    # MeanIoU weighs each element; whole numbers, which Keras 3's int32 default keeps exactly.
    w = rng.uniform(0, 2, y_pred.shape) if fractional else rng.integers(0, 3, y_pred.shape)
    return w.astype(np.float32)


def keras_metric(cls, kwargs):
    warnings.filterwarnings("ignore", message="You are passing weight as `float`")  # the MeanIoU difference
    if cls == "MeanMetricWrapper":
        return keras.metrics.MeanMetricWrapper(fn=keras.losses.get(kwargs["fn"]))
    return getattr(keras.metrics, cls)(**kwargs)


def run(o):
    registered = {n for n in o.kiln_list("metrics") if n[:1].isupper() and n.upper() != n}
    expected = []
    for vi, (cls, kwargs, kind) in enumerate(VARIANTS):
        for weighted in (False, True):
            add_case(o, expected, "%s%d%s" % (cls, vi, "_w" if weighted else ""), cls, kwargs, kind, weighted)
    for di, (why, cls, kwargs, kind, keras_kwargs) in enumerate(DIFFERENCES):
        cid = "difference%d" % di
        default = add_case(o, [], cid + "_keras_default", cls, kwargs, kind, True, fractional=True, seed=di)
        add_case(o, expected, cid, cls, kwargs, kind, True, keras_kwargs, fractional=True, seed=di)
        expected[-1] = expected[-1] + ("DIFFERENCE: " + why, default)
    o.run_kiln()
    for item in expected:
        cid, desc, results = item[:3]
        if o.kiln_error(cid):
            continue
        for i, r in enumerate(results):
            o.compare("%s after update %d" % (desc, i + 1), o.out(cid, "result_%d" % i), r, rtol=1e-5, atol=1e-6)
        if len(item) > 3:
            # The difference must be real: Keras 3's default disagrees with Kiln here.
            kiln = o.out(cid, "result_%d" % (len(results) - 1))
            print("%s\n  Kiln %s; Keras 3 default %s; Keras 3 with %s %s" % (
                item[3], kiln, item[4][-1], item[1], results[-1]))
            if np.allclose(kiln, item[4][-1], rtol=1e-5, atol=1e-6):
                o.fail("%s: Keras 3's default now agrees with Kiln; the documented difference is gone" % cid)
    for name, reason in UNSUPPORTED:
        o.uncovered.append((name, reason))
    for name in sorted(registered - {v[0] for v in VARIANTS}):
        o.fail("metric class %s is registered in Kiln but no case covers it" % name)


def add_case(o, expected, cid, cls, kwargs, kind, weighted, keras_kwargs=None, fractional=False, seed=None):
    """Runs the updates in Keras, records the case for Kiln; returns Keras's results."""
    rng = np.random.default_rng(seed) if seed is not None else o.rng
    m = keras_metric(cls, dict(kwargs, **(keras_kwargs or {})))
    updates, results = [], []
    for batch in BATCHES:
        y_true, y_pred = data(kind, rng, batch)
        sw = sample_weight(rng, kind, y_pred, fractional) if weighted else None
        if kind == "values":
            sw = None if sw is None else sw[:, None]
            m.update_state(y_pred, sample_weight=sw)
            y_true = np.zeros((0,), np.float32)
        else:
            m.update_state(y_true, y_pred, sample_weight=sw)
        results.append(np.asarray(m.result()))
        updates.append({"y_true": o.arr(y_true), "y_pred": o.arr(y_pred),
                        "sample_weight": None if sw is None else o.arr(sw)})
    o.add({"id": cid, "metric": {"class_name": cls, "config": kwargs}, "updates": updates})
    desc = "%s(%s)%s" % (cls, ", ".join("%s=%s" % kv for kv in kwargs.items()), " weighted" if weighted else "")
    if keras_kwargs:
        desc += " vs Keras with " + ", ".join("%s=%s" % kv for kv in keras_kwargs.items())
    expected.append((cid, desc, results))
    return results
