"""int8 and int4 quantization, both ways. Keras builds five float models (Dense layers,
one of them on a rank-3 input; an Embedding under a Dense; EinsumDense layers
whose scales expand, permute and squeeze; ReversibleEmbedding layers, tied and
untied, called both ways; a MultiHeadAttention, whose projections are quantized)
and saves them.
Kiln loads that float file and quantizes it with model.quantize("int8") (and
once with a weight-only config, once with a name filter) and with
model.quantize("int4") (Keras's default groups of 128 rows, groups of 4, and
per-channel scales); Keras does the same. Compared: the quantized (int4:
packed) kernels, their scales and zero points exactly, the predictions, the
gradients with respect to the inputs (Keras's straight-through rule) and three
SGD steps of the quantized model. Files: Kiln loads Keras's quantized .keras
and its own, and Keras loads Kiln's; the predictions agree and the layers'
policies are Keras's ("int8_from_float32", "int4/4_from_float32", ...).
Keras 3.15 cannot load its own quantized MultiHeadAttention, whose config leaves
out the projections' policies; Kiln reads them from the kernels in the file."""
import os

import keras
import numpy as np

INIT = {"class_name": "RandomNormal", "config": {"stddev": 0.4, "seed": 5}}
WEIGHT_ONLY = keras.quantizers.Int8QuantizationConfig(activation_quantizer=None)
INT4 = keras.quantizers.Int4QuantizationConfig


def mlp():
    inp = keras.Input((3, 8))
    h = keras.layers.Dense(16, activation="relu", kernel_initializer=INIT, name="d1")(inp)
    h = keras.layers.Flatten()(h)
    h = keras.layers.Dense(12, activation="tanh", kernel_initializer=INIT, name="d2")(h)
    return keras.Model(inp, keras.layers.Dense(4, kernel_initializer=INIT, name="head")(h))


def embedding():
    inp = keras.Input((5,), dtype="int32")
    h = keras.layers.Embedding(10, 6, embeddings_initializer=INIT, name="d1")(inp)
    h = keras.layers.Dense(4, activation="relu", kernel_initializer=INIT, name="d2")(keras.layers.Flatten()(h))
    return keras.Model(inp, keras.layers.Dense(3, kernel_initializer=INIT, name="head")(h))


def einsum():
    inp = keras.Input((4, 6))
    h = keras.layers.EinsumDense("abc,cde->abde", (4, 2, 3), bias_axes="de", activation="relu",
                                 kernel_initializer=INIT, name="d1")(inp)
    h = keras.layers.EinsumDense("abcd,cde->abe", (4, 5), bias_axes="e", activation="tanh",
                                 kernel_initializer=INIT, name="d2")(h)
    return keras.Model(inp, keras.layers.EinsumDense("abc,bcd->ad", (3,), bias_axes="d", kernel_initializer=INIT,
                                                     name="head")(h))


def reversible():
    # ReversibleEmbedding both ways: an untied table (d1) and a tied one used only in reverse (d2).
    inp = keras.Input((5,), dtype="int32")
    untied = keras.layers.ReversibleEmbedding(10, 6, tie_weights=False, embeddings_initializer=INIT, name="d1")
    tied = keras.layers.ReversibleEmbedding(12, 6, embeddings_initializer=INIT, name="d2")
    h = keras.layers.Dense(6, activation="tanh", kernel_initializer=INIT, name="mid")(tied(untied(inp), reverse=True))
    logits = untied(h, reverse=True)
    return keras.Model(inp, keras.layers.Dense(3, kernel_initializer=INIT, name="head")(keras.layers.Flatten()(logits)))


def attention():
    # MultiHeadAttention is not quantized itself: Keras quantizes its four EinsumDense projections.
    inp = keras.Input((4, 6))
    h = keras.layers.MultiHeadAttention(2, 3, kernel_initializer=INIT, name="d1")(inp, inp)
    h = keras.layers.Dense(5, activation="tanh", kernel_initializer=INIT, name="d2")(keras.layers.Flatten()(h))
    return keras.Model(inp, keras.layers.Dense(3, kernel_initializer=INIT, name="head")(h))


VARIANTS = {  # name -> (mode, config, filters, Kiln's config: null for the mode's default)
    "default": ("int8", None, None, None),
    "weight_only": ("int8", WEIGHT_ONLY, None, {"mode": "int8", "weight_only": True}),
    "filtered": ("int8", None, ["d1", "head"], None),
    "int4": ("int4", None, None, None),
    "int4_block4": ("int4", INT4(block_size=4), None, {"mode": "int4", "block_size": 4}),
    "int4_channel": ("int4", INT4(block_size=-1), None, {"mode": "int4", "block_size": -1}),
}


def input_gradient(model, x):
    import jax
    import jax.numpy as jnp

    if x.dtype != np.float32:
        return None

    def f(xx):
        return jnp.sum(model(xx) * jnp.arange(1.0, model.output.shape[-1] + 1.0))
    return np.asarray(jax.grad(f)(jnp.asarray(x)))


def cases(rng):
    """(model name, builder, x, y) for each float model."""
    return [("mlp", mlp, rng.normal(size=(6, 3, 8)).astype(np.float32), rng.normal(size=(6, 4)).astype(np.float32)),
            ("embedding", embedding, rng.integers(0, 10, size=(6, 5)).astype(np.int32),
             rng.normal(size=(6, 3)).astype(np.float32)),
            ("einsum", einsum, rng.normal(size=(6, 4, 6)).astype(np.float32), rng.normal(size=(6, 3)).astype(np.float32)),
            ("reversible", reversible, rng.integers(0, 10, size=(6, 5)).astype(np.int32),
             rng.normal(size=(6, 3)).astype(np.float32)),
            ("attention", attention, rng.normal(size=(6, 4, 6)).astype(np.float32),
             rng.normal(size=(6, 3)).astype(np.float32))]


def run(o):
    keras.utils.set_random_seed(2)
    rng = np.random.default_rng(4)
    expected = {}
    for mname, build, x, y in cases(rng):
        build().save(os.path.join(o.work, "float_%s.keras" % mname))
        for vname, variant in VARIANTS.items():
            add_variant(o, expected, "%s_%s" % (mname, vname), "float_%s.keras" % mname, variant, x, y)
    o.run_kiln()
    for name, exp in expected.items():
        check(o, name, *exp)


def triple(kernel, scale, zero):
    return np.asarray(kernel), np.asarray(scale), None if zero is None else np.asarray(zero)


def quantized_leaf(layer):
    """The layer whose kernel stands for `layer` in the comparison: a MultiHeadAttention's query projection."""
    return layer._query_dense if isinstance(layer, keras.layers.MultiHeadAttention) else layer


def kernel_and_scale(layer):
    """The quantized kernel, its scale and (grouped int4) its zero points; a ReversibleEmbedding's
    separate reverse table adds its own three."""
    if isinstance(layer, keras.layers.Embedding):
        out = triple(layer._embeddings, layer.embeddings_scale, getattr(layer, "embeddings_zero", None))
        if isinstance(layer, keras.layers.ReversibleEmbedding) and not layer.tie_weights:
            out += triple(layer.reverse_embeddings, layer.reverse_embeddings_scale,
                          getattr(layer, "reverse_embeddings_zero", None))
        return out
    return triple(layer._kernel, layer.kernel_scale, getattr(layer, "kernel_zero", None))


def add_variant(o, expected, name, float_path, variant, x, y):
    mode, config, filters, kiln_config = variant
    model = keras.models.load_model(os.path.join(o.work, float_path))
    model.quantize(mode, config=config, filters=filters)
    policies = {l.name: l.dtype_policy.name for l in model.layers if l.dtype_policy.quantization_mode}
    leaves = {n: quantized_leaf(model.get_layer(n)) for n in ["d1", "d2", "head"]}
    kernels = {n: kernel_and_scale(leaf) for n, leaf in leaves.items() if leaf.dtype_policy.quantization_mode}
    pred = model.predict(x, verbose=0)
    grad = input_gradient(model, x)
    model.save(os.path.join(o.work, "keras_%s.keras" % name))
    try:  # Keras 3.15 cannot load its own quantized MultiHeadAttention (its config leaves out the projections' policies)
        keras.models.load_model(os.path.join(o.work, "keras_%s.keras" % name))
        keras_reloads = True
    except ValueError:
        keras_reloads = False
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    losses = model.fit(x, y, batch_size=6, epochs=3, shuffle=False, verbose=0).history["loss"]
    # Without the policies in the config, a file tells the int8 kernel but not whether the
    # activations were quantized too: a loader takes the default, which a weight-only model is not.
    reload_exact = keras_reloads or not (mode == "int8" and config is not None)
    expected[name] = (x, policies, kernels, pred, grad, np.asarray(losses), model.predict(x, verbose=0), keras_reloads,
                      reload_exact)
    o.add({"id": name, "op": "quantize", "path": float_path, "x": o.arr(x), "y": o.arr(y), "mode": mode,
           "config": kiln_config, "filters": filters, "save": "kiln_%s.keras" % name,
           "layers": ["d1", "d2", "head"]})
    o.add({"id": name + "_load", "op": "load", "path": "keras_%s.keras" % name, "x": o.arr(x)})


def check(o, name, x, policies, kernels, pred, grad, losses, tuned, keras_reloads, reload_exact):
    if not o.kiln_error(name):
        got = [n for i, n in enumerate(["d1", "d2", "head"]) if float(o.out(name, "quantized%d" % i)) != 0]
        want = [n for n in ["d1", "d2", "head"] if n in kernels]
        if got != want:
            o.fail("%s: Kiln quantized %s, Keras %s" % (name, got, want))
        for i, n in enumerate(["d1", "d2", "head"]):
            for part, prefix in zip(range(0, len(kernels.get(n, ())), 3), ("", "reverse_")):
                kernel, scale, zero = kernels[n][part:part + 3]
                what = "%s: %s %s" % (name, n, prefix)
                o.compare(what + "quantized kernel", o.out(name, prefix + "kernel%d" % i), kernel, rtol=0, atol=0)
                o.compare(what + "scale", o.out(name, prefix + "scale%d" % i), scale, rtol=1e-6, atol=0)
                if zero is not None:
                    o.compare(what + "zero point", o.out(name, prefix + "zero%d" % i), zero, rtol=0, atol=0)
        o.compare("%s: predict after quantize" % name, o.out(name, "pred"), pred, rtol=1e-5, atol=1e-5)
        if grad is not None:
            o.compare("%s: input gradient" % name, o.out(name, "grad"), grad, rtol=1e-5, atol=1e-5)
        o.compare("%s: 3 SGD steps, losses" % name, o.out(name, "losses"), losses, rtol=1e-5, atol=1e-5)
        o.compare("%s: 3 SGD steps, predict" % name, o.out(name, "tuned"), tuned, rtol=1e-5, atol=1e-5)
        if reload_exact:
            o.compare("%s: Kiln's file loaded again, predict" % name, o.out(name, "reloaded"), pred, rtol=1e-5, atol=1e-5)
        label = "Kiln quantized %s .keras -> Keras load_model" % name
        try:
            if keras_reloads:  # else Keras fails on Kiln's file as on its own
                back = keras.models.load_model(os.path.join(o.work, "kiln_%s.keras" % name))
                got = {l.name: l.dtype_policy.name for l in back.layers if l.dtype_policy.quantization_mode}
                if got != policies:
                    o.fail("%s: quantized layers and policies %s, expected %s" % (label, got, policies))
                o.compare(label + ", predict", back.predict(x, verbose=0), o.out(name, "pred"), rtol=1e-5, atol=1e-5)
        except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
            o.fail("%s: %s: %s" % (label, type(e).__name__, e))
    if reload_exact and not o.kiln_error(name + "_load"):
        o.compare("Keras quantized %s .keras -> Kiln load_model, predict" % name, o.out(name + "_load", "pred"), pred,
                  rtol=1e-5, atol=1e-5)
