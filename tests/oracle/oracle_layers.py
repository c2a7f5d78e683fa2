"""Layers: for every layer class Kiln registers, the same Keras layer config is
built in Keras and in Kiln (kiln::layers::from_config reads Keras's
serialized config), Keras's weights are copied into Kiln, and the forward
output (training and inference), the gradients with respect to every float
input and every trainable weight (jax.grad through Layer.stateless_call
against Kiln's tape), and the weights after the call (moving statistics) are
compared, for batch 1 and batch 3 and odd spatial sizes.

A registered class with no case is listed by name with the reason."""
import inspect
import os

import jax
import jax.numpy as jnp
import keras
from keras.src.backend.common.variables import AutocastScope
import numpy as np

from numpy_draws import numpy_draws

# Classes that this tier does not build, and why.
NOT_COVERED = {
    "Functional": "a model container, not a layer config; keras_oracle_files compares saved models",
    "Model": "a model container, not a layer config (as Functional)",
    "Sequential": "a model container, not a layer config (as Functional)",
    "InputLayer": "holds no computation: it only declares the model input",
    "Lambda": "wraps a Python function (Keras) or a C++ one (Kiln); no config can carry it across",
    "IntegerLookup": ("Keras 3.15's IntegerLookup needs TensorFlow (its lookup tables), which this JAX venv does not "
                      "have; tests/layers/test_preprocessing_values.cpp checks Keras's documented values"),
    "Hashing": ("Keras 3.15's Hashing runs TensorFlow's string hashes, which this JAX venv does not have; "
                "tests/layers/test_hashing_values.cpp compares Kiln with Keras's outputs on TensorFlow "
                "(tests/fixtures/hashing, made by its make_fixture.py) and Keras's docstring values"),
    "HashedCrossing": ("Keras 3.15's HashedCrossing runs tf.sparse.cross_hashed, which this JAX venv does not have; "
                       "tests/layers/test_hashing_values.cpp compares Kiln with Keras's outputs on TensorFlow "
                       "(tests/fixtures/hashing) and Keras's docstring values"),
}

F = "float"


def merge(n):
    return [(F, (4,))] * n


# (class name, kwargs, inputs as [(dtype, shape without batch)], list_input[, call keywords]).
# Shapes are odd where it matters (7x5 images, length-9 sequences).
VARIANTS = [
    ("Dense", {"units": 3}, [(F, (4,))], False),
    ("Dense", {"units": 5, "activation": "tanh", "use_bias": False}, [(F, (2, 4))], False),
    ("Dense", {"units": 2, "activation": "relu"}, [(F, (3, 2, 3))], False),
    ("ReLU", {}, [(F, (5,))], False),
    ("ReLU", {"max_value": 1.0, "negative_slope": 0.1, "threshold": 0.2}, [(F, (5,))], False),
    ("LeakyReLU", {"negative_slope": 0.2}, [(F, (3, 2))], False),
    ("ELU", {"alpha": 0.7}, [(F, (5,))], False),
    ("PReLU", {}, [(F, (3, 4))], False),
    ("PReLU", {"shared_axes": [1]}, [(F, (3, 4))], False),
    ("Softmax", {}, [(F, (5,))], False),
    ("Softmax", {"axis": 1}, [(F, (3, 4))], False),
    ("Add", {}, merge(2), True),
    ("Add", {}, merge(3), True),
    ("Subtract", {}, merge(2), True),
    ("Multiply", {}, merge(3), True),
    ("Average", {}, merge(2), True),
    ("Maximum", {}, merge(2), True),
    ("Minimum", {}, merge(2), True),
    ("Concatenate", {}, [(F, (2, 3)), (F, (2, 5))], True),
    ("Concatenate", {"axis": 1}, [(F, (2, 3)), (F, (4, 3))], True),
    ("Dot", {"axes": 1}, merge(2), True),
    ("Dot", {"axes": 1, "normalize": True}, merge(2), True),
    ("Dot", {"axes": [2, 1]}, [(F, (3, 4)), (F, (4, 2))], True),
    ("Conv1D", {"filters": 3, "kernel_size": 3}, [(F, (9, 2))], False),
    ("Conv1D", {"filters": 2, "kernel_size": 2, "strides": 2, "padding": "same", "activation": "relu"},
     [(F, (9, 3))], False),
    ("Conv1D", {"filters": 2, "kernel_size": 3, "dilation_rate": 2, "padding": "causal"}, [(F, (9, 2))], False),
    ("Conv2D", {"filters": 3, "kernel_size": 3}, [(F, (7, 5, 2))], False),
    ("Conv2D", {"filters": 2, "kernel_size": [2, 3], "strides": 2, "padding": "same", "activation": "relu"},
     [(F, (7, 5, 3))], False),
    ("Conv2D", {"filters": 2, "kernel_size": 3, "dilation_rate": 2, "use_bias": False}, [(F, (7, 6, 2))], False),
    ("Conv2D", {"filters": 4, "kernel_size": 1, "groups": 2}, [(F, (3, 3, 4))], False),
    ("MaxPooling1D", {}, [(F, (9, 2))], False),
    ("MaxPooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, [(F, (9, 2))], False),
    ("AveragePooling1D", {"pool_size": 2}, [(F, (9, 2))], False),
    ("AveragePooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, [(F, (8, 2))], False),
    ("MaxPooling2D", {}, [(F, (7, 5, 2))], False),
    ("MaxPooling2D", {"pool_size": 3, "strides": 2, "padding": "same"}, [(F, (7, 5, 2))], False),
    ("AveragePooling2D", {"pool_size": 2}, [(F, (7, 5, 2))], False),
    ("AveragePooling2D", {"pool_size": [3, 2], "strides": 1, "padding": "same"}, [(F, (7, 5, 2))], False),
    ("GlobalAveragePooling1D", {}, [(F, (9, 2))], False),
    ("GlobalAveragePooling1D", {"keepdims": True}, [(F, (9, 2))], False),
    ("GlobalMaxPooling1D", {}, [(F, (9, 2))], False),
    ("GlobalAveragePooling2D", {}, [(F, (7, 5, 2))], False),
    ("GlobalMaxPooling2D", {"keepdims": True}, [(F, (7, 5, 2))], False),
    ("BatchNormalization", {}, [(F, (4,))], False),
    ("BatchNormalization", {"momentum": 0.9, "epsilon": 0.01}, [(F, (5, 3, 2))], False),
    ("BatchNormalization", {"center": False, "scale": False}, [(F, (3,))], False),
    ("BatchNormalization", {"axis": 1}, [(F, (3, 4))], False),
    ("LayerNormalization", {}, [(F, (5,))], False),
    ("LayerNormalization", {"axis": [1, 2], "epsilon": 0.01}, [(F, (3, 4))], False),
    ("LayerNormalization", {"center": False}, [(F, (2, 5))], False),
    ("Dropout", {"rate": 0.0}, [(F, (5,))], False),
    ("Dropout", {"rate": 0.5}, [(F, (5,))], False),  # inference only (below)
    ("Embedding", {"input_dim": 10, "output_dim": 4}, [("int", (5,))], False),
    ("Flatten", {}, [(F, (2, 3, 2))], False),
    ("Permute", {"dims": [2, 1]}, [(F, (3, 4))], False),
    ("RepeatVector", {"n": 3}, [(F, (4,))], False),
    ("UpSampling1D", {"size": 3}, [(F, (4, 2))], False),
    ("Reshape", {"target_shape": [3, 2]}, [(F, (6,))], False),
    ("Reshape", {"target_shape": [-1, 2]}, [(F, (2, 3, 2))], False),
    ("ZeroPadding2D", {}, [(F, (3, 2, 2))], False),
    ("ZeroPadding2D", {"padding": [[1, 2], [0, 1]]}, [(F, (3, 2, 2))], False),
]
from variants_catalogue import VARIANTS as _cat, inference_only as _cat_inference_only; VARIANTS += _cat  # noqa: E402
from variants_catalogue import training_only as _cat_training_only  # noqa: E402
from variants_catalogue import CALL_VARIANTS as _call_variants  # noqa: E402
from variants_recurrent import VARIANTS as _rnn, NOT_COVERED as _rnn_nc; VARIANTS += _rnn; NOT_COVERED.update(_rnn_nc)  # noqa: E402,E702
from variants_attention import VARIANTS as _att, POSITIONAL as _positional, inference_only as _att_inference_only; VARIANTS += _att  # noqa: E402,E702,E501

ACTIVATION_INPUT = [(F, (6,))]

BATCHES = [1, 3]


def random_input(rng, dtype, shape):
    if dtype == "int":
        return rng.integers(0, 10, shape).astype(np.int32)
    return rng.normal(0, 1, shape).astype(np.float32)


def random_weight(rng, w):
    shape = tuple(w.shape)
    if "variance" in w.path:
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    return rng.normal(0, 0.5, shape).astype(np.float32)


def keras_run(layer, xs, list_input, training, rng, call_kw=None, policy=False, single=None):
    """Builds, sets random weights; returns (weights, out, cotangent, grads_x, grads_w, weights_after).

    The layer is built on symbolic inputs and its forward and backward passes
    run as one jitted program: eager JAX compiles every primitive separately,
    which made XLA compilation most of this group's time. With `policy`, the
    call does what Layer.__call__ does with the layer's dtype policy and
    stateless_call leaves out: float inputs cast to the compute dtype (unless
    the layer turns `autocast` off), and an autocast scope for a mixed policy.

    With `single` (inputs of batch 1, as `xs` has batch 3), the same compiled
    program also gives the batch-1 results, returned as a second tuple: a layer
    fed three copies of one example computes each copy as it computes the
    example alone (per-example layers, and batch statistics, whose mean and
    variance three copies leave unchanged), so with the cotangent split evenly
    over the copies the output is any copy's row, the weight gradients are the
    example's and its input gradient is the copies' sum. One XLA compilation
    per case instead of two halves this group's time, most of it compiling."""
    positional = type(layer).__name__ in _positional
    symbolic = [keras.KerasTensor(x.shape, dtype=str(x.dtype)) for x in xs]
    call_kw = call_kw or {}
    with numpy_draws():  # the initial weights are overwritten below
        try:
            layer(*symbolic) if positional else layer(symbolic if list_input else symbolic[0], **call_kw)
        except Exception:  # a layer whose build needs concrete values
            layer(*xs) if positional else layer(xs if list_input else xs[0], **call_kw)
    weights = [random_weight(rng, w) for w in layer.weights]
    layer.set_weights(weights)
    tv = [v.value for v in layer.trainable_variables]
    ntv = [v.value for v in layer.non_trainable_variables]
    float_idx = [i for i, x in enumerate(xs) if x.dtype == np.float32]
    takes_training = "training" in inspect.signature(layer.call).parameters
    call_kwargs = dict(call_kw, **({"training": training} if takes_training else {}))

    def call(tv_, fx):
        full = list(xs)
        for i, x in zip(float_idx, fx):
            full[i] = x.astype(layer.compute_dtype) if policy and layer.autocast else x
        if policy and layer.compute_dtype != layer.variable_dtype:
            with AutocastScope(layer.compute_dtype):
                return stateless(tv_, full)
        return stateless(tv_, full)

    def stateless(tv_, full):
        if positional:
            return layer.stateless_call(tv_, ntv, *full, **call_kwargs)
        y, new_ntv = layer.stateless_call(tv_, ntv, full if list_input else full[0], **call_kwargs)
        # Several outputs (return_state) compare as one vector: each flattened, in order.
        if isinstance(y, (list, tuple)):
            y = jnp.concatenate([jnp.ravel(t) for t in y])
        return y, new_ntv

    fx = [jnp.asarray(xs[i]) for i in float_idx]
    out_spec = jax.eval_shape(lambda a, b: call(a, b)[0], tv, fx)
    cot = rng.normal(0, 1, out_spec.shape).astype(np.float32)

    def target(tv_, fx_, cot_):
        y, new_ntv = call(tv_, fx_)
        return jnp.sum(y * cot_), (y, new_ntv)

    step = jax.value_and_grad(target, argnums=(0, 1), has_aux=True)
    try:
        jitted = jax.jit(step)
        (_, (out, new_ntv)), (g_w, g_x) = jitted(tv, fx, cot)
    except Exception:  # Python control flow on values: eager, as Keras runs it outside fit
        jitted = step
        (_, (out, new_ntv)), (g_w, g_x) = step(tv, fx, cot)
    trainable = {id(v): i for i, v in enumerate(layer.trainable_variables)}
    non_trainable = {id(v): i for i, v in enumerate(layer.non_trainable_variables)}

    def results(out_, new_ntv_, g_w_, g_x_, cot_):
        after = [np.asarray(tv[trainable[id(w)]]) if id(w) in trainable else np.asarray(new_ntv_[non_trainable[id(w)]])
                 for w in layer.weights]
        grads_x = dict(zip(float_idx, [np.asarray(g) for g in g_x_]))
        return weights, np.asarray(out_), cot_, grads_x, [np.asarray(g) for g in g_w_], after

    main = results(out, new_ntv, g_w, g_x, cot)
    if single is None:
        return main
    # Not derived: several outputs flattened into one vector (no batch axis to
    # split), and integer inputs, which the program holds as constants.
    if len(out_spec.shape) == 0 or out_spec.shape[0] != 3 or len(float_idx) != len(xs):
        return main, None
    cot1 = rng.normal(0, 1, (1,) + tuple(out_spec.shape[1:])).astype(np.float32)
    copies = [jnp.asarray(np.concatenate([x] * 3)) for x in single]
    (_, (out3, ntv3)), (gw3, gx3) = jitted(tv, copies, np.concatenate([cot1] * 3) / 3)
    gx1 = [np.sum(np.asarray(g), axis=0, keepdims=True) for g in gx3]
    return main, results(np.asarray(out3)[:1], ntv3, gw3, gx1, cot1)


def desc(cls, kwargs):
    return "%s(%s)" % (cls, ", ".join("%s=%s" % kv for kv in kwargs.items()))


def variants(o):
    """VARIANTS, plus one Activation case per activation both sides have."""
    kiln_acts = set(o.kiln_list("activations"))
    keras_acts = {a for a in dir(keras.activations) if not a.startswith("_")} - {"get", "serialize", "deserialize"}
    out = list(VARIANTS) + _call_variants
    only = os.environ.get("KILN_ORACLE_CLASSES")  # a comma-separated list, to run a few classes while developing
    if only:
        return [v for v in out if v[0] in only.split(",")]
    for a in sorted(kiln_acts & keras_acts):
        out.append(("Activation", {"activation": a}, ACTIVATION_INPUT, False))
        if a not in ("linear",):
            out.append(("Dense", {"units": 2, "activation": a}, [(F, (3,))], False))
    for a in sorted(keras_acts - kiln_acts):
        o.uncovered.append(("activation '%s'" % a, "a Keras activation Kiln does not have"))
    return out


def run(o):
    registered = o.kiln_list("layers")
    expected = []
    all_variants = variants(o)
    # Kiln's alias class names (AvgPool2D, Convolution2D, ...) each get the case of their Keras class.
    aliases = {}
    for name in registered:
        cls = getattr(keras.layers, name, None)
        if cls is not None and cls.__name__ != name:
            aliases.setdefault(cls.__name__, []).append(name)
    alias_done = set()
    config_names = set()  # Keras's class names, where they differ from the keras.layers name
    for vi, variant in enumerate(all_variants):
        cls, kwargs, specs, list_input = variant[:4]
        call_kw = variant[4] if len(variant) > 4 else {}
        inference = None
        for training in (False, True):
            if training and (cls == "Dropout" and kwargs["rate"] > 0 or _cat_inference_only(cls, kwargs) or _att_inference_only(cls, kwargs)):
                continue  # random; rate 0 covers the training path
            if not training and _cat_training_only(cls, kwargs, specs):
                continue
            if training and inference and "training" not in inspect.signature(inference[1][3].call).parameters:
                # Keras's call takes no `training`, so its results are the inference run's;
                # Kiln still runs the case in training mode.
                xs, layers, results = inference
            else:
                xs = {b: [random_input(o.rng, dt, (b,) + shape) for dt, shape in specs] for b in BATCHES}
                layer = getattr(keras.layers, cls)(**kwargs)
                results = dict(zip((3, 1), keras_run(layer, xs[3], list_input, training, o.rng, call_kw, single=xs[1])))
                layers = {3: layer, 1: layer}
                if results[1] is None:
                    layers[1] = getattr(keras.layers, cls)(**kwargs)
                    results[1] = keras_run(layers[1], xs[1], list_input, training, o.rng, call_kw)
                inference = None if training else (xs, layers, results)
            for batch in BATCHES:
                weights, out, cot, gx, gw, after = results[batch]
                config = keras.layers.serialize(layers[batch])
                class_name = config["class_name"]
                config_names.add(class_name)
                for alias in aliases.get(class_name, []):
                    if alias not in alias_done:
                        alias_done.add(alias)
                        class_name = alias
                        break
                cid = "%s%d_b%d_%s" % (cls, vi, batch, "train" if training else "infer")
                o.add({"id": cid, "layer": dict(config, class_name=class_name), "inputs": [o.arr(x) for x in xs[batch]],
                       "list_input": list_input, "multi_output": bool(kwargs.get("return_state")), "weights": [o.arr(w) for w in weights], "training": training,
                       "cotangent": o.arr(cot), "call_kwargs": call_kw})
                label = "%s%s%s batch %d %s" % (desc(cls, kwargs), " as " + class_name if class_name != cls else "",
                                                " called with %s" % call_kw if call_kw else "",
                                                batch, "training" if training else "inference")
                expected.append((cid, label, out, gx, gw, after))
    o.run_kiln()
    compare_all(o, expected)
    covered = {v[0] for v in all_variants} | alias_done | config_names
    for name in registered:
        if name in NOT_COVERED:
            o.uncovered.append((name, NOT_COVERED[name]))
        elif name not in covered:
            o.uncovered.append((name, "no case yet" if hasattr(keras.layers, name) else "not a Keras 3 layer class"))


def compare_all(o, expected):
    # 1e-5 relative, with the absolute floor at 1e-5 of the largest element:
    # outputs that sum several products carry rounding of that order near zero.
    tol = lambda a: dict(rtol=1e-5, atol=1e-5 * max(1.0, float(np.max(np.abs(a))) if np.size(a) else 1.0))
    for cid, label, out, gx, gw, after in expected:
        if o.kiln_error(cid):
            continue
        o.compare(label + ": output", o.out(cid, "out"), out, **tol(out))
        for i, g in gx.items():
            o.compare("%s: d/d input %d" % (label, i), o.out(cid, "grad_x_%d" % i), g, **tol(g))
        for j, g in enumerate(gw):
            o.compare("%s: d/d weight %d" % (label, j), o.out(cid, "grad_w_%d" % j), g, **tol(g))
        for j, w in enumerate(after):
            o.compare("%s: weight %d after the call" % (label, j), o.out(cid, "weight_%d" % j), w, **tol(w))
