"""Model files both ways, for every layer class: each configuration of the
layers group's table (oracle_layers.VARIANTS) becomes a small model in Keras,
Sequential([Input, layer]) or, for layers that take a list, a functional model
with one Input per tensor, with random weights (moving statistics included).

Keras to Kiln: Keras saves .keras, legacy .h5 and .weights.h5 (new random
weights, so a file that is not read shows); Kiln loads the first two with
load_model, the third into the architecture of the .keras file, and predicts.
Kiln to Keras: Kiln loads the .keras file, loads the .weights.h5 weights and
saves the model in the three formats; Keras loads the first two with
load_model and the third with load_weights into a fresh Keras model of the same
architecture, and predicts. Every prediction must agree to 1e-6 (rtol and atol;
MelSpectrogram to the layers group's 1e-5, see FFT_CLASSES).

A subclassed model registered in both frameworks under one name
(kiln_oracle>TwoBranchModel, tool/run_layer_files.cpp) goes both ways as .keras
and .weights.h5 too. A registered class with no case is listed by name with the
reason."""
import os

import jax
import keras
import numpy as np

from numpy_draws import numpy_draws
from oracle_layers import NOT_COVERED, VARIANTS, random_input, random_weight
from variants_attention import POSITIONAL
from variants_catalogue import keras_h5_limit, keras_model_limit, training_only

# XLA compiles every tiny model and eager op once; with its optimizations off
# that takes half the time, and the values stay within float32 rounding.
jax.config.update("jax_disable_most_optimizations", True)

TOL = dict(rtol=1e-6, atol=1e-6)
# Classes whose float32 outputs go through a Fourier transform and a logarithm: XLA's FFT
# (ducc) and Kiln's (FFTW) round differently, and decibels turn the relative rounding of a
# small power into an absolute one (up to 5e-5 dB on values of tens of dB, depending on
# the random input). They compare with the layers group's tolerance: 1e-5 relative, and
# 1e-5 of the largest value absolute.
FFT_CLASSES = {"MelSpectrogram"}


def tol(cls, ref):
    if cls not in FFT_CLASSES or ref is None or not np.size(ref):
        return TOL
    return dict(rtol=1e-5, atol=max(1e-6, 1e-5 * float(np.max(np.abs(ref)))))
FORMATS = ("keras", "h5", "weights.h5")
BATCH = 3
# Activation has no row in VARIANTS (the layers group adds one per activation);
# one is enough for files.
EXTRA = [("Activation", {"activation": "tanh"}, [("float", (6,))], False)]


# The containers and the input layer every case's files hold.
IN_EVERY_FILE = {"Sequential", "Functional", "InputLayer"}


def make_model(cls, kwargs, specs, list_input):
    with numpy_draws():  # the weights are replaced: randomize, or a file's
        inputs = [keras.Input(shape, dtype="int32" if dt == "int" else "float32") for dt, shape in specs]
        layer = getattr(keras.layers, cls)(**kwargs)
        if list_input:
            return keras.Model(inputs, layer(*inputs) if type(layer).__name__ in POSITIONAL else layer(inputs))
        return keras.Sequential([inputs[0], layer])


def randomize(model, rng):
    model.set_weights([random_weight(rng, w) for w in model.weights])


@keras.saving.register_keras_serializable(package="kiln_oracle")
class TwoBranchModel(keras.Model):
    """Two Dense branches, concatenated, then a Dense head; the sublayers are
    named after their attributes (Kiln has no attribute names, see the README)."""

    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.left = keras.layers.Dense(units, activation="tanh", name="left")
        self.right = keras.layers.Dense(units, activation="relu", name="right")
        self.head = keras.layers.Dense(2, name="head")

    def call(self, x):
        return self.head(keras.ops.concatenate([self.left(x), self.right(x)], axis=-1))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def subclassed(units=5):
    model = TwoBranchModel(units)
    model(np.zeros((1, 3), np.float32))
    return model


def predict(model, xs):
    # A direct call (eager): model.predict would compile each tiny model, which costs more than it runs.
    return np.asarray(model(xs if len(xs) > 1 else xs[0], training=False))


def add_cases(o):
    """Saves Keras's files and adds the Kiln cases; returns what to check."""
    checks = []
    registered = set(o.kiln_list("layers"))
    # Files are compared through inference-mode predictions, which the training-only cases lack.
    table = [v for v in VARIANTS if v[0] in registered and not training_only(v[0], v[1], v[2])] + EXTRA
    # A return_state layer has several outputs, which Sequential([Input, layer]) cannot hold as one prediction.
    for v in table:
        if v[1].get("return_state"):
            o.uncovered.append(("%s(return_state=True) files" % v[0],
                                "several outputs; the layers group compares them, and files cover the same class"))
    table = [v for v in table if not v[1].get("return_state")]
    table = [v for v in table if not keras_model_limit(v[0])]  # run() lists them with the reason
    only = os.environ.get("KILN_ORACLE_CLASSES")  # as in oracle_layers: a few classes while developing
    if only:
        table = [v for v in table if v[0] in only.split(",")]
    for vi, (cls, kwargs, specs, list_input) in enumerate(table):
        cid = "%s%d" % (cls, vi)
        xs = [random_input(o.rng, dt, (BATCH,) + shape) for dt, shape in specs]
        model = make_model(cls, kwargs, specs, list_input)
        randomize(model, o.rng)
        base = os.path.join(o.work, cid)
        model.save(base + ".keras")
        desc = "%s(%s)" % (cls, ", ".join("%s=%s" % kv for kv in kwargs.items()))
        formats = FORMATS
        try:
            model.save(base + ".h5")
        except TypeError as e:  # Keras 3.15 cannot write some layers' legacy .h5 (RandomBrightness)
            formats = tuple(f for f in FORMATS if f != "h5")
            o.uncovered.append(("%s .h5" % desc, "Keras 3.15 cannot save it as .h5 itself: %s" % e))
        saved_pred = predict(model, xs)
        randomize(model, o.rng)
        model.save_weights(base + ".weights.h5")
        checks.append(dict(id=cid, cls=cls, desc=desc, xs=xs, saved=saved_pred, weights=predict(model, xs),
                           fresh=lambda c=cls, k=kwargs, s=specs, li=list_input: make_model(c, k, s, li),
                           formats=formats))
        o.add({"id": cid, "base": cid, "inputs": [o.arr(x) for x in xs], "formats": list(formats)})
    xs = [o.rng.normal(0, 1, (BATCH, 3)).astype(np.float32)]
    model = subclassed()
    randomize(model, o.rng)
    model.save(os.path.join(o.work, "TwoBranchModel.keras"))
    saved_pred = predict(model, xs)
    randomize(model, o.rng)
    model.save_weights(os.path.join(o.work, "TwoBranchModel.weights.h5"))
    checks.append(dict(id="TwoBranchModel", cls="TwoBranchModel", desc="subclassed kiln_oracle>TwoBranchModel",
                       xs=xs, saved=saved_pred, weights=predict(model, xs), fresh=subclassed,
                       formats=("keras", "weights.h5")))
    o.add({"id": "TwoBranchModel", "base": "TwoBranchModel", "inputs": [o.arr(x) for x in xs],
           "formats": ["keras", "weights.h5"]})
    return checks


def keras_loads(o, check, fmt, prefix="kiln_"):
    path = os.path.join(o.work, "%s%s.%s" % (prefix, check["id"], fmt))
    if fmt == "weights.h5":
        model = check["fresh"]()
        model.load_weights(path)
        return model
    return keras.saving.load_model(path)


def keras_own_error(o, check, fmt, error):
    """Keras could not load Kiln's file: a failure, unless Keras cannot load
    its own file of the same model and format either (then it is listed)."""
    first = lambda e: "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:200])
    try:
        keras_loads(o, check, fmt, prefix="")
    except Exception as own:  # noqa: BLE001
        o.uncovered.append(("%s .%s, Kiln -> Keras" % (check["desc"], fmt),
                            "Keras 3.15 cannot load its own .%s of this model either (%s)" % (fmt, first(own))))
        return
    o.fail("%s: Keras cannot load Kiln's .%s: %s" % (check["desc"], fmt, first(error)))


def compare(o, checks, counts):
    for c in checks:
        if o.kiln_error(c["id"]):
            continue
        formats = c.get("formats", FORMATS)
        for fmt in formats:
            expected = c["weights"] if fmt == "weights.h5" else c["saved"]
            how = "load_weights" if fmt == "weights.h5" else "load_model"
            if o.compare("%s: Keras .%s -> Kiln %s" % (c["desc"], fmt, how), o.out(c["id"], "pred_" + fmt.replace(
                    ".", "_")), expected, **tol(c["cls"], expected)):
                counts[("keras->kiln", fmt)].add(c["cls"])
        kiln_pred = o.out(c["id"], "pred_saved")
        if kiln_pred is None:
            o.fail("%s: Kiln wrote no prediction of the model it saved" % c["desc"])
            continue
        o.compare("%s: Kiln's prediction of the model it saves (vs Keras)" % c["desc"], kiln_pred, c["weights"],
                  **tol(c["cls"], c["weights"]))
        for fmt in formats:
            limit = keras_h5_limit(c["desc"]) if fmt == "h5" else None
            if limit:
                o.uncovered.append(("%s .h5, Kiln -> Keras" % c["desc"], limit))
                continue
            try:
                model = keras_loads(o, c, fmt)
            except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
                keras_own_error(o, c, fmt, e)
                continue
            how = "load_weights" if fmt == "weights.h5" else "load_model"
            keras_pred = predict(model, c["xs"])
            if o.compare("%s: Kiln .%s -> Keras %s" % (c["desc"], fmt, how), kiln_pred, keras_pred,
                         **tol(c["cls"], keras_pred)):
                counts[("kiln->keras", fmt)].add(c["cls"])


def run(o):
    checks = add_cases(o)
    o.run_kiln()
    counts = {(d, f): set() for d in ("keras->kiln", "kiln->keras") for f in FORMATS}
    compare(o, checks, counts)
    registered = o.kiln_list("layers")
    classes = {c["cls"] for c in checks}
    for name in registered:
        cls = getattr(keras.layers, name, None)
        if name in classes or name in IN_EVERY_FILE:
            continue
        if name == "Model":
            o.uncovered.append((name, "files name keras.Model's functional models Functional, which is covered"))
        elif name in NOT_COVERED:
            o.uncovered.append((name, NOT_COVERED[name]))
        elif keras_model_limit(name):
            o.uncovered.append((name, keras_model_limit(name)))
        elif cls is not None and cls.__name__ != name and cls.__name__ in classes:
            o.uncovered.append((name, "an alias of %s: files name the class %s, which is covered" % (
                cls.__name__, cls.__name__)))
        else:
            o.uncovered.append((name, "no case yet" if cls is not None else "not a Keras 3 layer class"))
    print("\nlayer classes round-tripped (of %d registered; %d with a case, and %s in every file):" % (
        len(registered), len(classes - {"TwoBranchModel"}), ", ".join(sorted(IN_EVERY_FILE))))
    for (direction, fmt), done in counts.items():
        print("  %-12s .%-10s %d classes%s" % (direction, fmt, len(done - {"TwoBranchModel"}),
                                              " + TwoBranchModel" if "TwoBranchModel" in done else ""))
