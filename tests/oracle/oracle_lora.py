"""LoRA, both ways. For each layer class Keras gives enable_lora (Dense,
EinsumDense, Embedding, Conv1D, Conv2D, Conv3D), Keras builds a small model and
saves it; Kiln and Keras each load that file, enable LoRA on the same layers
(rank 2, one layer with lora_alpha=4), set A to the same values (B starts at
zero, as Keras's default), and fine-tune 5 SGD steps on the same batch.
Compared: the 5 losses, the predictions, and A and B after the steps; the
frozen kernels must not move.

Files: each side saves its fine-tuned model, and the other loads it: the
predictions must agree, and the loaded layers have LoRA enabled with A and B
zero (the file holds the merged kernel), rank and alpha as Keras reads them
(Keras's Dense and Embedding reset alpha to the rank when they build)."""
import os

import keras
import numpy as np

INIT = {"class_name": "RandomNormal", "config": {"stddev": 0.3, "seed": 4}}
RANK = 2
STEPS = 5
LR = 0.05


def models():
    """name -> (model, x, LoRA layers as (layer name, alpha or None))."""
    kl = keras.layers
    rng = np.random.default_rng(7)
    out = {}
    inp = keras.Input((6,))
    h = kl.Dense(8, activation="tanh", kernel_initializer=INIT, name="d1")(inp)
    out["dense"] = (keras.Model(inp, kl.Dense(3, kernel_initializer=INIT, name="d2")(h)),
                    rng.normal(size=(8, 6)), [("d1", None), ("d2", 4)])
    inp = keras.Input((4, 6))
    h = kl.EinsumDense("abc,cd->abd", (4, 5), bias_axes="d", kernel_initializer=INIT, name="e1")(inp)
    out["einsum_dense"] = (keras.Model(inp, kl.Dense(2, kernel_initializer=INIT, name="d")(kl.Flatten()(h))),
                           rng.normal(size=(8, 4, 6)), [("e1", None), ("d", None)])
    inp = keras.Input((5,), dtype="int32")
    h = kl.Embedding(10, 4, embeddings_initializer=INIT, name="emb")(inp)
    out["embedding"] = (keras.Model(inp, kl.Dense(2, kernel_initializer=INIT, name="d")(kl.Flatten()(h))),
                        rng.integers(0, 10, size=(8, 5)), [("emb", 4)])
    for rank, shape, ksize in ((1, (8, 3), 3), (2, (6, 6, 2), 3), (3, (4, 4, 4, 2), 2)):
        conv = getattr(kl, "Conv%dD" % rank)
        inp = keras.Input(shape)
        h = conv(3, ksize, kernel_initializer=INIT, activation="relu", name="c")(inp)
        out["conv%dd" % rank] = (keras.Model(inp, kl.Dense(2, kernel_initializer=INIT, name="d")(kl.Flatten()(h))),
                                 rng.normal(size=(8,) + shape), [("c", 4), ("d", None)])
    return out


def a_shape(layer):
    return tuple(base_kernel(layer).shape[:-1]) + (RANK,)


def lora_names(layer):
    return ("lora_embeddings_a", "lora_embeddings_b") if isinstance(layer, keras.layers.Embedding) else \
        ("lora_kernel_a", "lora_kernel_b")


def adapters(layer):
    a, b = lora_names(layer)
    return np.asarray(getattr(layer, a)), np.asarray(getattr(layer, b))


def base_kernel(layer):
    # The variables themselves: Keras's kernel and embeddings properties add the delta.
    return np.asarray(layer._embeddings if isinstance(layer, keras.layers.Embedding) else layer._kernel)


def keras_finetune(o, name, path, x, y, loras, a_values):
    model = keras.models.load_model(path)
    for (lname, alpha), a in zip(loras, a_values):
        layer = model.get_layer(lname)
        layer.enable_lora(RANK, lora_alpha=alpha)
        getattr(layer, lora_names(layer)[0]).assign(a)
    kernels = [base_kernel(model.get_layer(n)) for n, _ in loras]
    model.compile(optimizer=keras.optimizers.SGD(LR), loss="mse")
    hist = model.fit(x, y, batch_size=len(x), epochs=STEPS, shuffle=False, verbose=0)
    for (lname, _), k in zip(loras, kernels):
        if not np.array_equal(base_kernel(model.get_layer(lname)), k):
            o.fail("%s: Keras moved the frozen kernel of %s" % (name, lname))
    model.save(os.path.join(o.work, "keras_lora_%s.keras" % name))
    return model, np.asarray(hist.history["loss"]), model.predict(x, verbose=0)


def check_loaded_by_keras(o, name, x, loras):
    label = "Kiln LoRA %s .keras -> Keras load_model" % name
    try:
        model = keras.models.load_model(os.path.join(o.work, "kiln_lora_%s.keras" % name))
    except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
        o.fail("%s: %s: %s" % (label, type(e).__name__, e))
        return
    o.compare(label + ", predict", model.predict(x, verbose=0), o.out(name, "pred"), rtol=1e-5, atol=1e-6)
    for lname, _ in loras:
        layer = model.get_layer(lname)
        if not layer.lora_enabled:
            o.fail("%s: layer %s has no LoRA" % (label, lname))
            continue
        for i, v in enumerate(adapters(layer)):
            if np.any(v != 0):
                o.fail("%s: layer %s adapter %s is not zero" % (label, lname, "AB"[i]))


def run(o):
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(11)
    expected = []
    for name, (model, x, loras) in models().items():
        x = x.astype(np.int32 if name == "embedding" else np.float32)
        y = rng.normal(size=(len(x),) + tuple(model.output.shape[1:])).astype(np.float32)
        base = os.path.join(o.work, "keras_base_%s.keras" % name)
        model.save(base)
        a_values = [rng.normal(0, 0.5, a_shape(model.get_layer(n))).astype(np.float32) for n, _ in loras]
        tuned, losses, pred = keras_finetune(o, name, base, x, y, loras, a_values)
        o.add({"id": name, "op": "finetune", "base": os.path.basename(base), "x": o.arr(x), "y": o.arr(y),
               "lr": LR, "steps": STEPS, "rank": RANK, "save": "kiln_lora_%s.keras" % name,
               "lora": [{"layer": n, "alpha": a, "a": o.arr(v)} for (n, a), v in zip(loras, a_values)]})
        o.add({"id": name + "_load", "op": "load", "path": "keras_lora_%s.keras" % name, "x": o.arr(x),
               "layers": [n for n, _ in loras]})
        expected.append((name, x, loras, tuned, losses, pred))
    o.run_kiln()
    for name, x, loras, tuned, losses, pred in expected:
        if not o.kiln_error(name):
            o.compare("%s: LoRA fine-tune, the %d losses" % (name, STEPS), o.out(name, "losses"), losses,
                      rtol=1e-5, atol=1e-6)
            o.compare("%s: LoRA fine-tune, predict" % name, o.out(name, "pred"), pred, rtol=1e-5, atol=1e-5)
            for i, (lname, _) in enumerate(loras):
                a, b = adapters(tuned.get_layer(lname))
                o.compare("%s: %s A after the steps" % (name, lname), o.out(name, "a%d" % i), a, rtol=1e-5, atol=1e-6)
                o.compare("%s: %s B after the steps" % (name, lname), o.out(name, "b%d" % i), b, rtol=1e-5, atol=1e-6)
                if float(o.out(name, "kernel_moved%d" % i)) != 0:
                    o.fail("%s: Kiln moved the frozen kernel of %s" % (name, lname))
            check_loaded_by_keras(o, name, x, loras)
        cid = name + "_load"
        if not o.kiln_error(cid):
            o.compare("Keras LoRA %s .keras -> Kiln load_model, predict" % name, o.out(cid, "pred"), pred,
                      rtol=1e-5, atol=1e-5)
            loaded = keras.models.load_model(os.path.join(o.work, "keras_lora_%s.keras" % name))
            for i, (lname, _) in enumerate(loras):
                o.compare("Keras LoRA %s .keras -> Kiln: %s rank, alpha, |A|+|B|" % (name, lname),
                          o.out(cid, "lora%d" % i), np.array([RANK, loaded.get_layer(lname).lora_alpha, 0.0]),
                          rtol=0, atol=0)
