"""Recurrent models with masks, from compiled files Keras wrote: padded
sequences (Embedding(mask_zero=True), Masking) through LSTM, GRU,
Bidirectional and TimeDistributed. Kiln loads each .keras file (compiled) and
gives Keras's predictions, the masked loss and metric on the same weights
(padded timesteps count for nothing), and the loss of five SGD steps; each
model's legacy .h5 loads and predicts the same too."""
import os

import keras
import numpy as np

TOL = dict(rtol=1e-5, atol=1e-6)
STEPS = 5
INIT = {"kernel_initializer": {"class_name": "RandomNormal", "config": {"stddev": 0.5, "seed": 3}}}


def padded_ids(rng, n, t, vocab):
    """Token ids in [1, vocab) with trailing zeros (padding) of random lengths."""
    ids = rng.integers(1, vocab, (n, t)).astype(np.int32)
    for i, length in enumerate(rng.integers(1, t + 1, n)):
        ids[i, length:] = 0
    return ids


def padded_features(rng, n, t, f):
    """Float steps; padded steps (zeros) at the start or the end."""
    x = rng.normal(0, 1, (n, t, f)).astype(np.float32)
    for i in range(n):
        k = int(rng.integers(0, t - 1))
        if i % 2:
            x[i, :k] = 0.0
        else:
            x[i, t - k:] = 0.0
    return x


def tagger():
    """Per-step classes over padded ids: Embedding(mask_zero) -> LSTM -> Dense logits."""
    return keras.Sequential([
        keras.Input((6,), dtype="int32"),
        keras.layers.Embedding(9, 4, mask_zero=True),
        keras.layers.LSTM(5, return_sequences=True, **INIT),
        keras.layers.Dense(3, **INIT),
    ])


def bidirectional_regressor():
    """Masking -> Bidirectional(GRU) -> TimeDistributed(Dense): per-step regression."""
    # Sequential: a functional Keras graph would record Masking's mask as
    # NotEqual/Any operation nodes, which are not layers.
    return keras.Sequential([
        keras.Input((5, 3)),
        keras.layers.Masking(),
        keras.layers.Bidirectional(keras.layers.GRU(3, return_sequences=True, **INIT)),
        keras.layers.TimeDistributed(keras.layers.Dense(2, **INIT)),
    ])


def stacked_classifier():
    """Embedding(mask_zero) -> GRU(reset_after=False) sequence -> SimpleRNN -> Dense: one class per sequence."""
    return keras.Sequential([
        keras.Input((7,), dtype="int32"),
        keras.layers.Embedding(9, 3, mask_zero=True),
        keras.layers.GRU(4, reset_after=False, return_sequences=True, **INIT),
        keras.layers.Bidirectional(keras.layers.SimpleRNN(2, **INIT), merge_mode="ave"),
        keras.layers.Dense(3, activation="softmax", **INIT),
    ])


def cases(rng):
    x1 = padded_ids(rng, 8, 6, 9)
    y1 = rng.integers(0, 3, (8, 6)).astype(np.int32)
    x2 = padded_features(rng, 6, 5, 3)
    y2 = rng.normal(0, 1, (6, 5, 2)).astype(np.float32)
    x3 = padded_ids(rng, 6, 7, 9)
    y3 = rng.integers(0, 3, (6,)).astype(np.int32)
    scce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return [
        ("tagger", tagger, x1, y1, scce, ["sparse_categorical_accuracy"]),
        ("bidirectional_regressor", bidirectional_regressor, x2, y2, "mse", ["mae"]),
        ("stacked_classifier", stacked_classifier, x3, y3, "sparse_categorical_crossentropy", ["accuracy"]),
    ]


def run(o):
    keras.utils.set_random_seed(5)
    expected = []
    for name, make, x, y, loss, metrics in cases(o.rng):
        model = make()
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss=loss, metrics=metrics)
        model.save(os.path.join(o.work, name + ".keras"))
        model.save(os.path.join(o.work, name + ".h5"))
        pred = np.asarray(model.predict(x, verbose=0))
        ev = model.test_on_batch(x, y, return_dict=True)
        losses = [float(model.train_on_batch(x, y, return_dict=True)["loss"]) for _ in range(STEPS)]
        after = np.asarray(model.predict(x, verbose=0))
        o.add({"id": name, "path": name + ".keras", "x": o.arr(x), "y": o.arr(y), "steps": STEPS})
        o.add({"id": name + "_h5", "path": name + ".h5", "x": o.arr(x)})
        expected.append((name, pred, np.array([ev["loss"]] + [ev[m] for m in ev if m != "loss"]), np.array(losses),
                         after))
    o.run_kiln()
    for name, pred, ev, losses, after in expected:
        if not o.kiln_error(name):
            o.compare(name + " .keras: predict", o.out(name, "pred"), pred, **TOL)
            o.compare(name + ": masked loss and metric (test_on_batch)", o.out(name, "eval"), ev, **TOL)
            o.compare(name + ": %d SGD steps' losses" % STEPS, o.out(name, "losses"), losses, rtol=1e-4, atol=1e-6)
            o.compare(name + ": predict after training", o.out(name, "pred_after"), after, rtol=1e-4, atol=1e-5)
        if not o.kiln_error(name + "_h5"):
            o.compare(name + " .h5: predict", o.out(name + "_h5", "pred"), pred, **TOL)
