"""ONNX export. Keras builds and saves the guide's MNIST CNN, a functional
model with two inputs, an LSTM text model and a MultiHeadAttention block; Kiln
loads each file, exports it with kiln::export_onnx and predicts. Kiln also
exports a subclassed model and a traced kiln::function of its own, and saves
the subclassed model with kiln::saved_model::save: that directory's serve graph
runs here, against what Kiln computes with the directory loaded back. For every
file, onnx.checker (full_check, with shape inference) must accept it, its
inputs must carry the symbolic "batch" dimension, and ONNX Runtime's outputs
must match Kiln's at two batch sizes (5 and 1) to 1e-5; Kiln's must match
Keras's (or NumPy's, for the function) to 1e-5 too."""
import os

import keras
import numpy as np
import onnx
import onnxruntime as ort

BATCHES = (5, 1)
RTOL = 1e-5


def guide_cnn():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.BatchNormalization(),
        keras.layers.Dense(10, activation="softmax"),
    ])


def two_inputs():
    a = keras.Input((6,), name="features")
    b = keras.Input((4, 3), name="sequence")
    x = keras.layers.Dense(8, activation="tanh")(a)
    y = keras.layers.Flatten()(keras.layers.Conv1D(5, 2, padding="same", activation="relu")(b))
    h = keras.layers.LayerNormalization()(keras.layers.Concatenate()([x, y]))
    return keras.Model([a, b], [keras.layers.Dense(3)(h), keras.layers.Dense(1, activation="sigmoid")(h)])


def lstm_text():
    return keras.Sequential([
        keras.Input((12,), dtype="int32"),
        keras.layers.Embedding(50, 8),
        keras.layers.LSTM(16),
        keras.layers.Dense(4, activation="softmax"),
    ])


def gru_text():
    # A dynamic time axis: ONNX's own GRU and RNN ops, run at two sequence lengths.
    return keras.Sequential([
        keras.Input((None,), dtype="int32"),
        keras.layers.Embedding(30, 6),
        keras.layers.GRU(12, return_sequences=True),
        keras.layers.SimpleRNN(6),
        keras.layers.Dense(3),
    ])


def attention_block():
    inp = keras.Input((6, 8))
    att = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp)
    h = keras.layers.LayerNormalization()(inp + att)
    h = keras.layers.GlobalAveragePooling1D()(h)
    return keras.Model(inp, keras.layers.Dense(2)(h))


def inputs_for(rng, name, n):
    if name == "guide_cnn":
        return [rng.uniform(0, 1, (n, 28, 28, 1)).astype(np.float32)]
    if name == "two_inputs":
        return [rng.normal(0, 1, (n, 6)).astype(np.float32), rng.normal(0, 1, (n, 4, 3)).astype(np.float32)]
    if name == "lstm_text":
        return [rng.integers(0, 50, (n, 12)).astype(np.int32)]
    if name == "gru_text":
        return [rng.integers(0, 30, (n, 9 if n > 1 else 4)).astype(np.int32)]
    if name == "attention_block":
        return [rng.normal(0, 1, (n, 6, 8)).astype(np.float32)]
    if name == "loop":
        return [rng.uniform(0, 1, (n, 3)).astype(np.float32)]
    if name in ("subclassed", "saved_model"):
        return [rng.normal(0, 1, (n, 5)).astype(np.float32)]
    return [rng.normal(0, 1, (n, 6)).astype(np.float32), rng.normal(0, 1, (n, 5)).astype(np.float32)]


def mixer(x, y):
    """NumPy's answer for run_onnx.cpp's traced function."""
    head, tail = x[:, 1:4], y[:, -3:]
    joined = np.concatenate([np.tanh(x), y * y, x.max(axis=1, keepdims=True)], axis=1)
    e = np.exp(joined - joined.max(axis=1, keepdims=True))
    picked = np.where(x > 0, x, np.exp(x) - 1)
    branch = y * 2 if y.sum() > 0 else np.tanh(y) - y
    return [head.T @ tail, e / e.sum(axis=1, keepdims=True), picked.sum(axis=0), np.sqrt(np.abs(y) + 1), branch]


def grower(x):
    """NumPy's answer for run_onnx.cpp's traced while_loop."""
    steps, v = np.float32(0), x.copy()
    for _ in range(8):
        if not (steps < 10 and v.sum() < 20):
            break
        steps, v = steps + 1, (v * np.float32(1.5) + np.float32(0.25)).astype(np.float32)
    return [np.array(steps, np.float32), v]


def check_file(o, cid, path, batches):
    try:
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001 - any checker complaint is a failure to report
        o.fail("%s: onnx.checker rejects the export: %s" % (cid, str(e)[:600]))
        return
    for inp in model.graph.input:
        dims = inp.type.tensor_type.shape.dim
        want = ["batch", "dim1"] if cid == "gru_text" else ["batch"]
        got = [d.dim_param for d in dims[:len(want)]]
        if got != want:
            o.fail("%s: input %s has dimensions %s, expected the symbols %s first" % (cid, inp.name, got, want))
    if cid in ("lstm_text", "gru_text"):
        kinds = {n.op_type for n in model.graph.node} & {"LSTM", "GRU", "RNN"}
        if kinds != ({"LSTM"} if cid == "lstm_text" else {"GRU", "RNN"}):
            o.fail("%s: recurrent ops %s, expected ONNX's own" % (cid, sorted(kinds)))
    ops = sorted({n.op_type for n in model.graph.node})
    print("%s: %d nodes, %d initializers, opset %d; ops %s" % (
        cid, len(model.graph.node), len(model.graph.initializer), model.opset_import[0].version, " ".join(ops)))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for k, xs in enumerate(batches):
        got = session.run(None, dict(zip(names, xs)))
        for j, g in enumerate(got):
            kiln = o.out(cid, "y%d_%d" % (k, j))
            atol = max(1e-6, RTOL * float(np.abs(kiln).max())) if kiln is not None else 1e-6
            o.compare("%s: ONNX Runtime output %d, batch %d, against Kiln" % (cid, j, len(xs[0])), g, kiln,
                      rtol=RTOL, atol=atol)


def run(o):
    rng = o.rng
    keras.utils.set_random_seed(3)
    expected = {}
    for name, make in (("guide_cnn", guide_cnn), ("two_inputs", two_inputs), ("lstm_text", lstm_text),
                       ("gru_text", gru_text), ("attention_block", attention_block)):
        model = make()
        if name == "guide_cnn":
            # Moving statistics away from their initial values, so that inference normalization shows.
            bn = model.layers[-2]
            bn.moving_mean.assign(rng.normal(0, 0.5, 64).astype(np.float32))
            bn.moving_variance.assign(rng.uniform(0.5, 2, 64).astype(np.float32))
        if name in ("lstm_text", "gru_text"):
            # Embeddings far from their small initial values, so the outputs depend strongly on the tokens.
            emb = model.layers[0].embeddings
            emb.assign(rng.normal(0, 1, emb.shape).astype(np.float32))
        model.save(os.path.join(o.work, name + ".keras"))
        batches = [inputs_for(rng, name, n) for n in BATCHES]
        o.add({"id": name, "kind": "file", "path": name + ".keras",
               "batches": [[o.arr(x) for x in xs] for xs in batches]})
        expected[name] = (batches, [model.predict(xs if len(xs) > 1 else xs[0], verbose=0) for xs in batches])
    # The function also at the oldest and newest opsets Kiln writes (reductions take their axes differently).
    for cid, kind, opset in (("subclassed", "subclassed", 17), ("saved_model", "saved_model", 17),
                             ("function", "function", 17),
                             ("function_opset13", "function", 13), ("function_opset21", "function", 21),
                             ("loop", "loop", 17)):
        batches = [inputs_for(rng, kind, n) for n in BATCHES]
        if kind == "function" and (batches[0][1].sum() > 0) == (batches[1][1].sum() > 0):
            batches[1][1] = -batches[1][1]  # the two batches take kiln::cond's two branches
        o.add({"id": cid, "kind": kind, "opset": opset, "batches": [[o.arr(x) for x in xs] for xs in batches]})
        reference = {"function": mixer, "loop": grower}.get(kind)
        expected[cid] = (batches, [reference(*xs) for xs in batches] if reference else None)
    o.run_kiln()
    for case in o.cases:
        cid = case["id"]
        if o.kiln_error(cid):
            continue
        batches, reference = expected[cid]
        if reference is not None:
            who = "NumPy" if cid.startswith(("function", "loop")) else "Keras"
            for k, want in enumerate(reference):
                for j, r in enumerate(want if isinstance(want, list) else [want]):
                    kiln = o.out(cid, "y%d_%d" % (k, j))
                    o.compare("%s: Kiln output %d, batch %d, against %s" % (cid, j, len(batches[k][0]), who), kiln, r,
                              rtol=RTOL, atol=max(1e-6, RTOL * float(np.abs(r).max())))
        check_file(o, cid, os.path.join(o.work, "out", cid, "model.onnx"), batches)
