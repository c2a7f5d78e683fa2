"""ONNX export across the layer catalogue: every configuration of the layers
group's table (oracle_layers.VARIANTS) becomes Sequential([Input, layer]) (a
functional model for layers that take a list) with random weights, saved by
Keras as .keras. Kiln loads it, exports it with kiln::export_onnx (batch axis
symbolic) and predicts; onnx.checker must accept the file and ONNX Runtime's
prediction must match Kiln's, and Kiln's Keras's, to 1e-5 (rtol, and atol
1e-5 of the largest value). A layer that cannot be exported is a failure
unless it is listed below with the reason."""
import os

import jax
import keras
import numpy as np
import onnx
import onnxruntime as ort

from oracle_layer_files import EXTRA, make_model, predict, randomize
from oracle_layers import VARIANTS, random_input
from variants_catalogue import keras_model_limit, training_only

jax.config.update("jax_disable_most_optimizations", True)

RTOL = 1e-5
BATCH = 3
# Layers whose inference call has no ONNX form in Kiln's exporter yet, with why.
NOT_EXPORTED = {
    "MelSpectrogram": ("its stft runs Kiln's FFT primitive, which the ONNX writer has no node for yet (ONNX's DFT "
                       "and STFT need opset 17; Kiln writes from 13)"),
}


def tol(ref):
    return dict(rtol=RTOL, atol=max(1e-5, RTOL * float(np.abs(ref).max()) if np.size(ref) else 1e-5))


def run(o):
    registered = set(o.kiln_list("layers"))
    table = [v for v in VARIANTS if v[0] in registered and not training_only(v[0], v[1], v[2])
             and not v[1].get("return_state")] + EXTRA
    for cls in sorted({v[0] for v in table if keras_model_limit(v[0])}):
        o.uncovered.append((cls, keras_model_limit(cls)))
    table = [v for v in table if not keras_model_limit(v[0])]
    only = os.environ.get("KILN_ORACLE_CLASSES")
    if only:
        table = [v for v in table if v[0] in only.split(",")]
    checks = []
    for vi, (cls, kwargs, specs, list_input) in enumerate(table):
        cid = "%s%d" % (cls, vi)
        xs = [random_input(o.rng, dt, (BATCH,) + shape) for dt, shape in specs]
        model = make_model(cls, kwargs, specs, list_input)
        randomize(model, o.rng)
        model.save(os.path.join(o.work, cid + ".keras"))
        desc = "%s(%s)" % (cls, ", ".join("%s=%s" % kv for kv in kwargs.items()))
        checks.append((cid, cls, desc, xs, predict(model, xs)))
        o.add({"id": cid, "kind": "file", "path": cid + ".keras", "batches": [[o.arr(x) for x in xs]]})
    o.run_kiln("onnx")
    exported = set()
    for cid, cls, desc, xs, want in checks:
        if cid in o.errors:
            if cls in NOT_EXPORTED:
                o.uncovered.append((desc, NOT_EXPORTED[cls]))
            else:
                o.fail("%s: Kiln threw: %s" % (desc, o.errors[cid][:400]))
            continue
        kiln = o.out(cid, "y0_0")
        o.compare("%s: Kiln against Keras" % desc, kiln, want, **tol(want))
        path = os.path.join(o.work, "out", cid, "model.onnx")
        try:
            onnx.checker.check_model(onnx.load(path), full_check=True)
            session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            got = session.run(None, dict(zip([i.name for i in session.get_inputs()], xs)))[0]
        except Exception as e:  # noqa: BLE001 - the checker's or the runtime's complaint is the finding
            o.fail("%s: the exported file is rejected: %s" % (desc, str(e).splitlines()[0][:400]))
            continue
        if o.compare("%s: ONNX Runtime against Kiln" % desc, got, kiln, **tol(kiln)):
            exported.add(cls)
    print("\nlayer classes exported and run in ONNX Runtime: %d of %d with a case" % (
        len(exported), len({c[1] for c in checks})))
