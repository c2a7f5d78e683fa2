"""Whole-model round trips shared by the functional and applications groups.

For each model a maker builds (after keras.backend.clear_session(), so that
names repeat): Keras saves .keras and legacy .h5, and .weights.h5 of a second
copy with other weights; Kiln loads each file (the .weights.h5 into the .keras
architecture) and predicts every output; its parameter counts must equal
Keras's. From the .keras file Kiln also trains a few SGD steps, every loss
compared with Keras's on the same file, and then saves the trained model in
the three formats, which Keras loads (.weights.h5 into a fresh model from the
maker) and must predict as Kiln does.
"""
import os

import keras
import numpy as np


def as_list(x):
    """A prediction's arrays in Keras's flat order (nested lists in order, dicts by sorted key)."""
    return keras.tree.flatten(x)


def nesting(model):
    """The nesting of a functional model's inputs and outputs (leaves 0), or None
    when both are a single tensor or a flat list, which Kiln writes as a list."""
    if not hasattr(model, "_inputs_struct"):
        return None
    def flat(s):
        return not isinstance(s, (list, tuple, dict)) or (
            isinstance(s, (list, tuple)) and not any(isinstance(x, (list, tuple, dict)) for x in s))
    if flat(model._inputs_struct) and flat(model._outputs_struct):
        return None
    return keras.tree.map_structure(lambda _: 0, (model._inputs_struct, model._outputs_struct))


def packed(model, xs):
    """Flat input arrays in the nesting the model was built with (a dict of inputs, say)."""
    return keras.tree.pack_sequence_as(model._inputs_struct, xs) if hasattr(model, "_inputs_struct") else xs


def perturb_statistics(model, rng, variance=(0.5, 1.5)):
    """Moves every BatchNormalization's moving statistics off 0 and 1, so that
    loading them into the wrong layer, or not at all, shows in the prediction;
    the variances are drawn uniformly from the `variance` range."""
    for layer in model._flatten_layers(include_self=False):
        if isinstance(layer, keras.layers.BatchNormalization):
            mean, var = layer.moving_mean, layer.moving_variance
            mean.assign(rng.normal(0, 0.1, mean.shape).astype(np.float32))
            var.assign(rng.uniform(*variance, var.shape).astype(np.float32))


def inputs_for(model, rng, batch):
    xs = []
    for t in model.inputs:
        shape = (batch,) + tuple(t.shape[1:])
        if "int" in str(t.dtype):
            xs.append(rng.integers(1, 9, shape).astype(np.int32))
        else:
            xs.append(rng.normal(0, 1, shape).astype(np.float32))
    return xs


def keras_model(make, seed, rng, variance=(0.5, 1.5)):
    keras.backend.clear_session()
    keras.utils.set_random_seed(seed)
    m = make()
    perturb_statistics(m, rng, variance)
    return m


class Roundtrips:
    def __init__(self, o, rtol=1e-5, atol=1e-5, train_steps=5):
        self.o, self.rtol, self.atol, self.train_steps = o, rtol, atol, train_steps
        self.models = []  # (name, make, model, xs, expected per case id)
        self.onnx = []  # (name, xs, Keras's predictions): Kiln's ONNX export run in ONNX Runtime
        self.nestings = {}  # name -> nesting() of Keras's model

    def path(self, name):
        return os.path.join(self.o.work, name)

    def add(self, name, make, batch=2, train=True, formats=("keras", "h5", "weights"), onnx=False,
            variance=(0.5, 1.5)):
        """`variance`: the range the BatchNormalization moving variances are drawn from."""
        o = self.o
        model = keras_model(make, 3, o.rng, variance)
        xs = inputs_for(model, o.rng, batch)
        xnames = [o.arr(x) for x in xs]
        expected = {}
        model.save(self.path(name + ".keras"))
        raw = model.predict(packed(model, xs), verbose=0)
        expected[name + "_keras"] = as_list(raw)
        saves = ["kiln_%s.keras" % name] + (["kiln_%s.h5" % name] if "h5" in formats else []) + [
            "kiln_%s.weights.h5" % name]
        case = {"id": name + "_keras", "op": "roundtrip", "path": name + ".keras", "x": xnames, "save": saves}
        if onnx:
            case["onnx"] = name + ".onnx"
        ys = None
        if train:
            # Shapes from a prediction: Keras's symbolic shape of attention scores is wrong.
            ys = keras.tree.pack_sequence_as(
                raw, [o.rng.normal(0, 1, p.shape).astype(np.float32) for p in expected[name + "_keras"]])
            case["train"] = {"y": [o.arr(y) for y in as_list(ys)], "steps": self.train_steps, "optimizer": "sgd",
                             "loss": "mse"}
        o.add(case)
        if "h5" in formats:
            model.save(self.path(name + ".h5"))
            expected[name + "_h5"] = expected[name + "_keras"]
            o.add({"id": name + "_h5", "op": "roundtrip", "path": name + ".h5", "x": xnames})
        if "weights" in formats:
            other = keras_model(make, 4, o.rng, variance)
            other.save_weights(self.path(name + ".weights.h5"))
            expected[name + "_weights"] = as_list(other.predict(packed(other, xs), verbose=0))
            o.add({"id": name + "_weights", "op": "roundtrip", "path": name + ".keras",
                   "weights": name + ".weights.h5", "x": xnames})
        counts = (model.count_params(), sum(int(np.prod(w.shape)) for w in model.trainable_weights))
        self.nestings[name] = nesting(model)
        self.models.append((name, make, xs, ys, expected, counts, saves))
        if onnx:
            self.onnx.append((name, xs, expected[name + "_keras"]))

    def check(self):
        o = self.o
        o.run_kiln()
        for name, make, xs, ys, expected, counts, saves in self.models:
            for cid, preds in expected.items():
                if o.kiln_error(cid):
                    continue
                for i, p in enumerate(preds):
                    o.compare("%s: Kiln predict, output %d" % (cid, i), o.out(cid, "pred%d" % i), p,
                              rtol=self.rtol, atol=self.atol)
                got = o.out(cid, "params")
                if got is None or tuple(int(v) for v in got) != counts:
                    o.fail("%s: parameter counts (all, trainable) %s in Kiln, %s in Keras" % (
                        cid, None if got is None else tuple(int(v) for v in got), counts))
            if (name + "_keras") in o.errors:  # reported above
                continue
            kiln_after = [o.out(name + "_keras", "pred%d" % i) for i in range(len(expected[name + "_keras"]))]
            if ys is not None:
                kiln_after = self.check_training(name, xs, ys)
            self.check_keras_loads(name, make, xs, saves, kiln_after)
        self.check_onnx()

    def check_onnx(self):
        import onnxruntime as ort
        o = self.o
        for name, xs, want in self.onnx:
            if (name + "_keras") in o.errors:
                continue
            path = self.path(name + ".onnx")
            session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            names = [i.name for i in session.get_inputs()]
            for i, got in enumerate(session.run(None, dict(zip(names, xs)))):
                o.compare("%s: Kiln's ONNX export in ONNX Runtime against Keras, output %d" % (name, i), got, want[i],
                          rtol=self.rtol, atol=self.atol)

    def check_training(self, name, xs, ys):
        o = self.o
        model = keras.models.load_model(self.path(name + ".keras"), compile=False)
        model.compile(optimizer="sgd", loss="mse")
        losses = [model.train_on_batch(packed(model, xs), ys, return_dict=True)["loss"]
                  for _ in range(self.train_steps)]
        o.compare("%s: %d SGD steps from the .keras file, losses" % (name, self.train_steps),
                  o.out(name + "_keras", "losses"), np.array(losses), rtol=1e-4, atol=1e-6)
        trained = as_list(model.predict(packed(model, xs), verbose=0))
        kiln = [o.out(name + "_keras", "trained%d" % i) for i in range(len(trained))]
        for i, t in enumerate(trained):
            o.compare("%s: after training, output %d" % (name, i), kiln[i], t, rtol=1e-4, atol=1e-5)
        return kiln

    def check_keras_loads(self, name, make, xs, saves, kiln_preds):
        o = self.o
        for path in saves:
            full = self.path(path)
            try:
                if path.endswith(".weights.h5"):
                    model = keras_model(make, 5, o.rng)
                    model.load_weights(full)
                else:
                    model = keras.models.load_model(full, compile=False, custom_objects=custom_objects())
                    if self.nestings.get(name) is not None and nesting(model) != self.nestings[name]:
                        o.fail("%s: Keras reads inputs and outputs nested as %s, but the original has %s" % (
                            path, nesting(model), self.nestings[name]))
            except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
                o.fail("Keras cannot load Kiln's %s: %s: %s" % (path, type(e).__name__, str(e)[:400]))
                continue
            for i, p in enumerate(as_list(model.predict(packed(model, xs), verbose=0))):
                o.compare("%s -> Keras, output %d" % (path, i), kiln_preds[i], p, rtol=self.rtol, atol=self.atol)


def custom_objects():
    """keras.applications' own layers, which Keras's legacy .h5 reader cannot
    find by itself (it cannot reload its own ConvNeXt .h5 either)."""
    from keras.src.applications import convnext, inception_resnet_v2
    return {"LayerScale": convnext.LayerScale, "StochasticDepth": convnext.StochasticDepth,
            "CustomScaleLayer": inception_resnet_v2.CustomScaleLayer}
