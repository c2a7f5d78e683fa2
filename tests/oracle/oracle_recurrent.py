"""Recurrent models with masks, from compiled files Keras wrote: padded
sequences (Embedding(mask_zero=True), Masking) through LSTM, GRU,
Bidirectional and TimeDistributed, and functional models whose graphs hold
keras.ops operation nodes (Masking's NotEqual/Any mask) and call keywords
(mask=, initial_state=). Kiln loads each .keras file (compiled) and gives
Keras's predictions, the masked loss and metric on the same weights (padded
timesteps count for nothing), and the loss of five SGD steps; each model's
legacy .h5 loads and predicts the same too. The functional models Kiln loaded
are saved again by Kiln as .keras, and Keras loads them and predicts the same."""
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


def functional_masking():
    """Masking -> LSTM -> Dense as a functional model: Keras records Masking's mask
    as NotEqual and Any operation nodes and passes it as the LSTM's mask keyword."""
    x = keras.Input((5, 3))
    h = keras.layers.LSTM(4, **INIT)(keras.layers.Masking()(x))
    return keras.Model(x, keras.layers.Dense(2, **INIT)(h))


def seeded_lstm():
    """keras.ops between layers, and initial_state as a call keyword: the LSTM
    starts from states computed from the sequence's mean."""
    x = keras.Input((5, 3))
    h0 = keras.layers.Dense(4, activation="tanh", **INIT)(keras.ops.mean(x, axis=1))
    c0 = keras.ops.multiply(h0, 0.5)
    y = keras.layers.LSTM(4, return_sequences=True, **INIT)(x, initial_state=[h0, c0])
    s = keras.ops.add(y, keras.ops.expand_dims(keras.ops.sum(y, axis=-1), -1))
    return keras.Model(x, keras.layers.Dense(2, **INIT)(s))


def seeded_bidirectional():
    """Bidirectional called with initial_state: the forward LSTM's [h, c], then the backward one's."""
    x = keras.Input((5, 3))
    h0 = keras.layers.Dense(4, activation="tanh", **INIT)(keras.ops.mean(x, axis=1))
    c0 = keras.ops.multiply(h0, 0.5)
    y = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True, **INIT))(
        x, initial_state=[h0, c0, c0, h0])
    return keras.Model(x, keras.layers.Dense(2, **INIT)(y))


def attention_mask_keywords():
    """The attention layers' mask keywords, computed from the padded steps:
    MultiHeadAttention with value_mask and key_mask, GroupQueryAttention with
    query_mask too."""
    x = keras.Input((5, 3))
    steps = keras.ops.any(keras.ops.not_equal(x, 0.0), axis=-1)
    q = keras.layers.Dense(4, **INIT)(x)
    a = keras.layers.MultiHeadAttention(2, 3, **INIT)(q, x, key=x, value_mask=steps, key_mask=steps)
    # With the scores returned, Keras takes its einsum path, whose softmax gives
    # padded queries zero weights (its fused path would average all values).
    b, _ = keras.layers.GroupQueryAttention(2, 2, 1, **INIT)(a, a, query_mask=steps, value_mask=steps,
                                                             return_attention_scores=True)
    return keras.Model(x, keras.layers.Dense(2, **INIT)(keras.ops.add(a, b)))


def cases(rng):
    x1 = padded_ids(rng, 8, 6, 9)
    y1 = rng.integers(0, 3, (8, 6)).astype(np.int32)
    x2 = padded_features(rng, 6, 5, 3)
    y2 = rng.normal(0, 1, (6, 5, 2)).astype(np.float32)
    x3 = padded_ids(rng, 6, 7, 9)
    y3 = rng.integers(0, 3, (6,)).astype(np.int32)
    x4 = padded_features(rng, 6, 5, 3)
    y4 = rng.normal(0, 1, (6, 2)).astype(np.float32)
    x5 = rng.normal(0, 1, (6, 5, 3)).astype(np.float32)
    y5 = rng.normal(0, 1, (6, 5, 2)).astype(np.float32)
    scce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return [
        ("tagger", tagger, x1, y1, scce, ["sparse_categorical_accuracy"]),
        ("bidirectional_regressor", bidirectional_regressor, x2, y2, "mse", ["mae"]),
        ("stacked_classifier", stacked_classifier, x3, y3, "sparse_categorical_crossentropy", ["accuracy"]),
        ("functional_masking", functional_masking, x4, y4, "mse", ["mae"]),
        ("seeded_lstm", seeded_lstm, x5, y5, "mse", ["mae"]),
        ("seeded_bidirectional", seeded_bidirectional, x5, y5, "mse", ["mae"]),
        ("attention_mask_keywords", attention_mask_keywords, padded_features(rng, 6, 5, 3), y5, "mse", ["mae"]),
    ]


# The functional models, which Kiln saves again for Keras to read.
RESAVED = {"functional_masking", "seeded_lstm", "seeded_bidirectional", "attention_mask_keywords"}


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
        case = {"id": name, "path": name + ".keras", "x": o.arr(x), "y": o.arr(y), "steps": STEPS}
        if name in RESAVED:
            case["resave"] = name + ".kiln.keras"
        o.add(case)
        o.add({"id": name + "_h5", "path": name + ".h5", "x": o.arr(x)})
        expected.append((name, pred, np.array([ev["loss"]] + [ev[m] for m in ev if m != "loss"]), np.array(losses),
                         after, x))
    o.run_kiln()
    for name, pred, ev, losses, after, x in expected:
        if not o.kiln_error(name):
            o.compare(name + " .keras: predict", o.out(name, "pred"), pred, **TOL)
            if name in RESAVED:
                resaved = keras.models.load_model(os.path.join(o.work, name + ".kiln.keras"))
                o.compare(name + ": Kiln's .keras read by Keras: predict", np.asarray(resaved.predict(x, verbose=0)),
                          pred, **TOL)
            o.compare(name + ": masked loss and metric (test_on_batch)", o.out(name, "eval"), ev, **TOL)
            o.compare(name + ": %d SGD steps' losses" % STEPS, o.out(name, "losses"), losses, rtol=1e-4, atol=1e-6)
            o.compare(name + ": predict after training", o.out(name, "pred_after"), after, rtol=1e-4, atol=1e-5)
        if not o.kiln_error(name + "_h5"):
            o.compare(name + " .h5: predict", o.out(name + "_h5", "pred"), pred, **TOL)
