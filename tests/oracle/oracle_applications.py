"""keras.applications models as Keras 3.15 builds them (weights=None, the
smallest input each accepts, BatchNormalization statistics moved off their
initial values), sent both ways through .keras, legacy .h5 and .weights.h5
(model_roundtrip.py): Kiln's predictions to 1e-4 relative and its parameter
counts must equal Keras's, and Keras must load and predict Kiln's files alike.
Kiln's ONNX export of each runs in ONNX Runtime to 1e-4 of Keras.

CI runs one model of each family whose layer order or layers are special
(ResNet's shortcuts, InceptionV3's unscaled BatchNormalization, ConvNeXt's
LayerScale, InceptionResNetV2's CustomScaleLayer, MobileNetV2's depthwise
blocks, DenseNet's concatenations); KILN_ORACLE_APPS=all runs every class,
KILN_ORACLE_APPS=ResNet50,VGG16 the ones named, KILN_ORACLE_APPS=builders only
the C++ builders, every one, and KILN_ORACLE_APPS=builders:InceptionV3 the named ones.

kiln::applications' C++ builders are compared with Keras's models too: the
same layer names, order, classes, configs and connections, and Keras's
weights file loaded into Kiln's model predicts as Keras does."""
import json
import os
import zipfile

import jax
import keras
import numpy as np

from model_roundtrip import Roundtrips, inputs_for, perturb_statistics
from numpy_draws import numpy_draws

# Each model's predict is one large XLA program compiled once, which was half of this
# group's time; without XLA's optimizations it compiles in about half the time, and the
# outputs stay within the group's tolerance (1e-4 of their scale).
jax.config.update("jax_disable_most_optimizations", True)

A = keras.applications
# class -> smallest input size Keras accepts with weights=None
ALL = {
    "ConvNeXtTiny": 32, "ConvNeXtSmall": 32, "ConvNeXtBase": 32, "ConvNeXtLarge": 32, "ConvNeXtXLarge": 32,
    "DenseNet121": 32, "DenseNet169": 32, "DenseNet201": 32,
    "EfficientNetB0": 32, "EfficientNetB1": 32, "EfficientNetB2": 32, "EfficientNetB3": 32,
    "EfficientNetB4": 32, "EfficientNetB5": 32, "EfficientNetB6": 32, "EfficientNetB7": 32,
    "EfficientNetV2B0": 32, "EfficientNetV2B1": 32, "EfficientNetV2B2": 32, "EfficientNetV2B3": 32,
    "EfficientNetV2S": 32, "EfficientNetV2M": 32, "EfficientNetV2L": 32,
    "InceptionV3": 75, "InceptionResNetV2": 75,
    "MobileNet": 32, "MobileNetV2": 32, "MobileNetV3Small": 32, "MobileNetV3Large": 32,
    "NASNetMobile": 32, "NASNetLarge": 32,
    "ResNet50": 32, "ResNet101": 32, "ResNet152": 32, "ResNet50V2": 32, "ResNet101V2": 32, "ResNet152V2": 32,
    "VGG16": 32, "VGG19": 32, "Xception": 71,
}
CI = ["ResNet50", "ResNet50V2", "InceptionV3", "ConvNeXtTiny", "InceptionResNetV2", "MobileNetV2", "DenseNet121"]


def selected():
    want = os.environ.get("KILN_ORACLE_APPS", "")
    if want == "all":
        return list(ALL)
    if want.startswith("builders"):
        return []
    if want:
        names = [n.strip() for n in want.split(",") if n.strip()]
        unknown = [n for n in names if n not in ALL]
        if unknown:
            raise SystemExit("KILN_ORACLE_APPS: unknown classes %s" % unknown)
        return names
    return CI


def maker(cls):
    size = ALL[cls]
    # NASNet insists on 224x224 with include_top unless told otherwise; every
    # class builds its own classifier here, at the smallest size it accepts.
    return lambda: getattr(A, cls)(weights=None, input_shape=(size, size, 3), classes=10)


# kiln::applications builders beside Keras's: (class, Keras keyword arguments).
BUILT = [
    ("ResNet50", {"input_shape": [32, 32, 3], "classes": 10}),
    ("ResNet101", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("ResNet152", {"include_top": False, "input_shape": [32, 32, 3]}),
    ("ResNet50V2", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "max"}),
    ("ResNet101V2", {"input_shape": [32, 32, 3], "classes": 5}),
    ("ResNet152V2", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("VGG16", {"input_shape": [32, 32, 3], "classes": 10}),
    ("VGG19", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "max"}),
    ("MobileNetV2", {"include_top": False, "input_shape": [96, 96, 3], "alpha": 0.35, "pooling": "avg"}),
    ("MobileNetV2", {"input_shape": [33, 33, 3], "classes": 7}),
    ("DenseNet121", {"input_shape": [32, 32, 3], "classes": 10}),
    ("DenseNet169", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("DenseNet201", {"include_top": False, "input_shape": [40, 40, 3]}),
    ("Xception", {"input_shape": [71, 71, 3], "classes": 10}),
    ("Xception", {"include_top": False, "input_shape": [80, 72, 3], "pooling": "avg"}),
    ("InceptionV3", {"input_shape": [75, 75, 3], "classes": 10}),
    ("InceptionV3", {"include_top": False, "input_shape": [99, 87, 3], "pooling": "max"}),
    ("MobileNet", {"input_shape": [32, 32, 3], "classes": 10}),
    ("MobileNet", {"include_top": False, "input_shape": [40, 36, 3], "alpha": 0.5, "depth_multiplier": 2,
                   "pooling": "max"}),
    ("MobileNetV3Small", {"input_shape": [32, 32, 3], "classes": 10}),
    ("MobileNetV3Small", {"include_top": False, "input_shape": [48, 40, 3], "alpha": 0.75, "minimalistic": True,
                          "pooling": "avg", "include_preprocessing": False}),
    ("MobileNetV3Large", {"input_shape": [32, 32, 3], "classes": 10, "dropout_rate": 0.0}),
    ("MobileNetV3Large", {"include_top": False, "input_shape": [32, 32, 3], "alpha": 1.25, "pooling": "max"}),
    ("InceptionResNetV2", {"input_shape": [75, 75, 3], "classes": 10}),
    ("InceptionResNetV2", {"include_top": False, "input_shape": [83, 99, 3], "pooling": "avg"}),
    ("ConvNeXtTiny", {"input_shape": [32, 32, 3], "classes": 10}),
    ("ConvNeXtSmall", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("ConvNeXtBase", {"include_top": False, "input_shape": [32, 32, 1]}),
    ("ConvNeXtLarge", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "max",
                       "include_preprocessing": False}),
    ("ConvNeXtXLarge", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("NASNetMobile", {"input_shape": [32, 32, 3], "classes": 10}),
    ("NASNetLarge", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("EfficientNetB0", {"input_shape": [32, 32, 3], "classes": 10}),
    ("EfficientNetB0", {"include_top": False, "input_shape": [33, 35, 3], "pooling": "avg"}),
    ("EfficientNetB1", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "max"}),
    ("EfficientNetB2", {"input_shape": [32, 32, 3], "classes": 5}),
    ("EfficientNetB3", {"include_top": False, "input_shape": [32, 32, 3]}),
    ("EfficientNetB4", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("EfficientNetB5", {"input_shape": [32, 32, 3], "classes": 10}),
    ("EfficientNetB6", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "max"}),
    ("EfficientNetB7", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("EfficientNetV2B0", {"input_shape": [32, 32, 3], "classes": 10}),
    ("EfficientNetV2B0", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg",
                          "include_preprocessing": False}),
    ("EfficientNetV2B1", {"include_top": False, "input_shape": [32, 32, 1], "pooling": "avg"}),
    ("EfficientNetV2B2", {"include_top": False, "input_shape": [35, 33, 3]}),
    ("EfficientNetV2B3", {"input_shape": [32, 32, 3], "classes": 5}),
    ("EfficientNetV2S", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "max"}),
    ("EfficientNetV2M", {"include_top": False, "input_shape": [32, 32, 3], "pooling": "avg"}),
    ("EfficientNetV2L", {"input_shape": [32, 32, 3], "classes": 10}),
]
# In models this deep, moving variances below 1 compound block after block until
# float32 rounding changes the output by its own size (in Keras alone, too); drawn
# from [1, 1.5) they still differ from the initial 1 but damp instead. Every
# EfficientNetV2 is such a model: the full run saw EfficientNetV2B1's softmax off
# by 2.4e-4 relative with variances from [0.5, 1.5), in one of its three files only.
DEEP = {"EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2S",
        "EfficientNetV2M", "EfficientNetV2L"}
BUILT_CI = {"ResNet50", "ResNet50V2", "MobileNetV2", "MobileNetV3Small", "DenseNet121", "ConvNeXtTiny",
            "EfficientNetB0", "EfficientNetV2B0"}


def normalized(v):
    """A config value with Keras's and Kiln's spellings of the same thing made equal."""
    if isinstance(v, dict):
        if v.get("class_name") == "DTypePolicy":
            return v["config"]["name"]
        if "class_name" in v and "config" in v:  # initializers, regularizers: class and config only
            return {"class_name": v["class_name"], "config": normalized(v["config"])}
        return {k: normalized(x) for k, x in v.items() if k not in ("build_config", "module", "registered_name")}
    if isinstance(v, (list, tuple)):
        return [normalized(x) for x in v]
    return v


def compare_configs(o, label, kiln, keras_config):
    mine = {l["name"]: l for l in kiln["layers"]}
    names_k = [l["name"] for l in keras_config["layers"]]
    if [l["name"] for l in kiln["layers"]] != names_k:
        o.fail("%s: layer names or order differ: Kiln %s..., Keras %s..." % (
            label, [l["name"] for l in kiln["layers"]][:8], names_k[:8]))
        return
    differences = []
    for e in keras_config["layers"]:
        k = mine[e["name"]]
        if k["class_name"] != e["class_name"]:
            differences.append("%s: class %s, Keras %s" % (e["name"], k["class_name"], e["class_name"]))
            continue
        # Keras reads Kiln's entry back: keys Kiln leaves out then take Keras's defaults.
        rebuilt = keras.saving.deserialize_keras_object(
            {key: k[key] for key in ("module", "class_name", "config", "registered_name") if key in k})
        for key, want in normalized(e["config"]).items():
            got = normalized(rebuilt.get_config()).get(key, "<missing>")
            if got != want and not (isinstance(want, float) and isinstance(got, float) and abs(got - want) < 1e-12):
                differences.append("%s.%s: %r, Keras %r" % (e["name"], key, got, want))
        src = lambda node: [a["config"]["keras_history"][0] for a in node["args"] if isinstance(a, dict)]
        if [src(n) for n in k["inbound_nodes"]] != [src(n) for n in e["inbound_nodes"]]:
            differences.append("%s: inbound layers differ" % e["name"])
    if differences:
        o.fail("%s: %d config differences: %s" % (label, len(differences), "; ".join(differences[:6])))
    else:
        o.rows.append((label + ": config, layer by layer", len(names_k), 0.0, 0.0, True, 0, 0, ""))


def add_built(o, checks):
    want = os.environ.get("KILN_ORACLE_APPS", "")
    for k, (cls, kwargs) in enumerate(BUILT):
        if want.startswith("builders:") and cls not in want[len("builders:"):].split(","):
            continue
        if want not in ("all", "builders") and not want.startswith("builders:") and cls not in BUILT_CI:
            continue
        keras.backend.clear_session()
        keras.utils.set_random_seed(6)
        model = getattr(A, cls)(weights=None, **kwargs)
        perturb_statistics(model, o.rng, (1.0, 1.5) if cls in DEEP else (0.5, 1.5))
        cid = "built_%d_%s" % (k, cls)
        model.save_weights(os.path.join(o.work, cid + ".weights.h5"))
        xs = inputs_for(model, o.rng, 2)
        o.add({"id": cid, "op": "build", "class": cls, "options": kwargs, "weights": cid + ".weights.h5",
               "x": [o.arr(x) for x in xs], "save": cid + ".keras"})
        counts = (model.count_params(), sum(int(np.prod(w.shape)) for w in model.trainable_weights))
        checks.append((cid, model.predict(xs, verbose=0), model.get_config(), counts))


def check_built(o, checks):
    for cid, pred, config, counts in checks:
        if o.kiln_error(cid):
            continue
        # 1e-4 relative to the output's scale: a deep network's feature map has
        # near-zero entries whose float32 rounding is not relative to themselves.
        o.compare("%s: kiln::applications with Keras's weights, predict" % cid, o.out(cid, "pred0"), pred,
                  rtol=1e-4, atol=max(1e-6, 1e-4 * float(np.abs(pred).max())))
        got = tuple(int(v) for v in o.out(cid, "params"))
        if got != counts:
            o.fail("%s: parameter counts (all, trainable) %s in Kiln, %s in Keras" % (cid, got, counts))
        with zipfile.ZipFile(os.path.join(o.work, cid + ".keras")) as z:
            compare_configs(o, cid, json.loads(z.read("config.json"))["config"], config)


def run(o):
    # Every model here is built, saved and loaded for inference only; its initial weights come
    # from NumPy with the initializers' own distributions (numpy_draws says why).
    with numpy_draws():
        run_models(o)


def run_models(o):
    r = Roundtrips(o, rtol=1e-4, atol=1e-6)
    names = selected()
    for cls in names:
        r.add(cls, maker(cls), batch=2, train=False, onnx=True, variance=(1.0, 1.5) if cls in DEEP else (0.5, 1.5))
    for cls in ALL:
        if cls not in names:
            o.uncovered.append((cls, "not in this run (KILN_ORACLE_APPS=all runs every class)"))
    built = []
    add_built(o, built)
    r.check()
    check_built(o, built)
