"""Model files both ways. Keras saves .keras, legacy .h5 and .weights.h5 of a
trained Sequential model (Dense, BatchNormalization, softmax) and of a
functional model with two branches; Kiln loads each and predicts. Kiln builds,
trains and saves the same Sequential architecture in the three formats; Keras
loads each and predicts. Predictions must agree to 1e-6.

Mixed precision both ways: Keras trains a mixed_float16 model (its compile wraps
Adam in a LossScaleOptimizer) and saves it; Kiln loads it, predicts, reads
every optimizer variable (the loss scale state included) and saves it again,
and Keras reads that file back: the layers' policies, the optimizer's class and
variables must be the ones Keras saved. Kiln trains and saves the same
architecture under mixed_float16 and Keras loads it. Predictions through
float16 agree to 2e-3."""
import os

import keras
import numpy as np

# A seeded initializer, so that the models' starting weights do not depend on
# either framework's random stream.
INIT = {"kernel_initializer": {"class_name": "RandomNormal", "config": {"stddev": 0.5, "seed": 3}}}


def keras_sequential():
    return keras.Sequential([
        keras.Input((5,)),
        keras.layers.Dense(4, activation="relu", **INIT),
        keras.layers.BatchNormalization(),
        keras.layers.Dense(3, activation="softmax", **INIT),
    ])


def keras_functional():
    inp = keras.Input((6,), name="features")
    a = keras.layers.Dense(4, activation="tanh", **INIT)(inp)
    b = keras.layers.Dense(4, activation="relu", **INIT)(inp)
    merged = keras.layers.Concatenate()([a, b])
    out = keras.layers.Dense(2, **INIT)(keras.layers.LayerNormalization()(merged))
    return keras.Model(inp, out)


def data(rng, n, d, classes=3):
    return rng.normal(0, 1, (n, d)).astype(np.float32), rng.integers(0, classes, (n,)).astype(np.int32)


def keras_to_kiln(o, expected):
    keras.utils.set_random_seed(5)
    for name, make, d in (("sequential", keras_sequential, 5), ("functional", keras_functional, 6)):
        x, y = data(o.rng, 16, d, 2 if name == "functional" else 3)
        model = make()
        loss = "sparse_categorical_crossentropy" if name == "sequential" else "mse"
        model.compile(optimizer="adam", loss=loss)
        model.fit(x, y if name == "sequential" else np.eye(2, dtype=np.float32)[y], batch_size=4, epochs=2, verbose=0)
        for fmt in ("keras", "h5"):
            path = "keras_%s.%s" % (name, fmt)
            model.save(os.path.join(o.work, path))
            o.add({"id": "kiln_loads_%s_%s" % (name, fmt), "op": "load", "path": path, "x": o.arr(x)})
            expected.append(("kiln_loads_%s_%s" % (name, fmt), "Keras %s .%s -> Kiln load_model" % (name, fmt),
                             model.predict(x, verbose=0)))
        # .weights.h5: new weights from more training, into the architecture of the .keras file.
        model.fit(x, y if name == "sequential" else np.eye(2, dtype=np.float32)[y], batch_size=4, epochs=1, verbose=0)
        path = "keras_%s.weights.h5" % name
        model.save_weights(os.path.join(o.work, path))
        cid = "kiln_loads_%s_weights" % name
        o.add({"id": cid, "op": "load_weights", "path": "keras_%s.keras" % name, "weights": path, "x": o.arr(x)})
        expected.append((cid, "Keras %s .weights.h5 -> Kiln load_weights" % name, model.predict(x, verbose=0)))


def kiln_to_keras(o):
    x, y = data(o.rng, 16, 5)
    paths = ["kiln_model.keras", "kiln_model.h5", "kiln_model.weights.h5"]
    o.add({"id": "kiln_saves", "op": "save", "x": o.arr(x), "y": o.arr(y.astype(np.int64)), "paths": paths})
    return x, paths


def check_kiln_to_keras(o, x, paths):
    if o.kiln_error("kiln_saves"):
        return
    kiln_pred = o.out("kiln_saves", "pred")
    for path in paths:
        full = os.path.join(o.work, path)
        try:
            if path.endswith(".weights.h5"):
                model = keras_sequential()
                model.load_weights(full)
            else:
                model = keras.models.load_model(full)
        except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
            o.fail("Keras cannot load Kiln's %s: %s: %s" % (path, type(e).__name__, e))
            continue
        o.compare("Kiln Sequential %s -> Keras %s, predict" % (path, "load_weights" if "weights" in path else
                                                              "load_model"),
                  kiln_pred, model.predict(x, verbose=0), rtol=1e-6, atol=1e-6)


def default_initializer_file(o, expected):
    """A .keras file of a Dense layer with Keras 3.15's default initializer
    config (GlorotUniform with input_axes/output_axes)."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.save(os.path.join(o.work, "keras_default_init.keras"))
    x = np.ones((1, 3), np.float32)
    o.add({"id": "default_init", "op": "load", "path": "keras_default_init.keras", "x": o.arr(x)})
    expected.append(("default_init", "Keras 3.15 default-initializer Dense .keras -> Kiln load_model",
                     model.predict(x, verbose=0)))


def keras_mixed():
    keras.config.set_dtype_policy("mixed_float16")
    try:
        return keras.Sequential([
            keras.Input((5,)),
            keras.layers.Dense(8, activation="relu", **INIT),
            keras.layers.BatchNormalization(),
            keras.layers.Dense(3, activation="softmax", dtype="float32", **INIT),
        ])
    finally:
        keras.config.set_dtype_policy("float32")


MIXED_POLICIES = ["mixed_float16", "mixed_float16", "float32"]


def mixed_files(o):
    keras.utils.set_random_seed(6)
    x, y = data(o.rng, 16, 5)
    targets = np.eye(3, dtype=np.float32)[y] * 50.0  # large: the first float16 steps overflow
    model = keras_mixed()
    model.compile(optimizer="adam", loss="categorical_crossentropy")
    model.fit(x, targets, batch_size=4, epochs=2, verbose=0)
    model.save(os.path.join(o.work, "keras_mixed.keras"))
    keras_vars = [np.asarray(v) for v in model.optimizer.variables]
    o.add({"id": "kiln_loads_mixed", "op": "load_mixed", "path": "keras_mixed.keras", "x": o.arr(x),
           "resave": "kiln_resaved_mixed.keras"})
    o.add({"id": "kiln_saves_mixed", "op": "save_mixed", "x": o.arr(x), "y": o.arr(targets),
           "path": "kiln_mixed.keras"})
    return x, model.predict(x, verbose=0), keras_vars


def check_keras_reads_mixed(o, label, path, x, kiln_pred, want_vars):
    try:
        model = keras.models.load_model(os.path.join(o.work, path))
    except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
        o.fail("Keras cannot load Kiln's %s: %s: %s" % (path, type(e).__name__, e))
        return
    policies = [layer.dtype_policy.name for layer in model.layers]
    if policies != MIXED_POLICIES:
        o.fail("%s: Keras reads the policies %s, expected %s" % (label, policies, MIXED_POLICIES))
    if type(model.optimizer).__name__ != "LossScaleOptimizer":
        o.fail("%s: Keras reads a %s, expected a LossScaleOptimizer" % (label, type(model.optimizer).__name__))
        return
    got = [np.asarray(v) for v in model.optimizer.variables]
    if len(got) != len(want_vars):
        o.fail("%s: Keras reads %d optimizer variables, expected %d" % (label, len(got), len(want_vars)))
        return
    for i, (g, w) in enumerate(zip(got, want_vars)):
        o.compare("%s: optimizer variable %d (%s)" % (label, i, model.optimizer.variables[i].path), g, w,
                  rtol=1e-6, atol=1e-7)
    o.compare(label + ", Keras predicts", model.predict(x, verbose=0), kiln_pred, rtol=2e-3, atol=2e-3)


def check_mixed(o, x, keras_pred, keras_vars):
    if not o.kiln_error("kiln_loads_mixed"):
        o.compare("Keras mixed_float16 .keras -> Kiln load_model, predict", o.out("kiln_loads_mixed", "pred"),
                  keras_pred, rtol=2e-3, atol=2e-3)
        for i, w in enumerate(keras_vars):
            o.compare("Keras mixed_float16 .keras -> Kiln, optimizer variable %d" % i,
                      o.out("kiln_loads_mixed", "opt_%d" % i), w, rtol=1e-6, atol=1e-7)
        check_keras_reads_mixed(o, "Keras -> Kiln -> Keras mixed_float16 .keras", "kiln_resaved_mixed.keras", x,
                                o.out("kiln_loads_mixed", "pred"), keras_vars)
    if not o.kiln_error("kiln_saves_mixed"):
        kiln_vars = []
        while o.out("kiln_saves_mixed", "opt_%d" % len(kiln_vars)) is not None:
            kiln_vars.append(o.out("kiln_saves_mixed", "opt_%d" % len(kiln_vars)))
        if len(kiln_vars) > 3 and float(kiln_vars[3]) >= 32768.0:
            o.fail("Kiln's mixed_float16 training never lowered the loss scale (%s)" % kiln_vars[3])
        check_keras_reads_mixed(o, "Kiln mixed_float16 .keras -> Keras load_model", "kiln_mixed.keras", x,
                                o.out("kiln_saves_mixed", "pred"), kiln_vars)


def run(o):
    expected = []
    mixed = mixed_files(o)
    keras_to_kiln(o, expected)
    x, paths = kiln_to_keras(o)
    default_initializer_file(o, expected)
    o.run_kiln()
    for cid, label, pred in expected:
        if not o.kiln_error(cid):
            o.compare(label + ", predict", o.out(cid, "pred"), pred, rtol=1e-6, atol=1e-6)
    check_kiln_to_keras(o, x, paths)
    check_mixed(o, *mixed)
