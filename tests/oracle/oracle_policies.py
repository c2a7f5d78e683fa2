"""Dtype policies: every case of the layers group again, the layer built with
dtype="mixed_bfloat16" or dtype="mixed_float16" (Keras's serialized
DTypePolicy object in the config Kiln reads): a class's cases take the two in
turn, and a class of one case runs under both, so every class meets each.
Compared: the output's dtype (Keras's), its values within a few units in the last place of the 16-bit
compute dtype, the gradients with respect to every float input and every
trainable weight, and every weight after the call, which must all stay
float32 as Keras keeps them.

JAX rounds each op of a layer to 16 bits where Kiln computes each op in float32
and rounds its result once, so a layer of many ops differs by more than one
rounding: the tolerances grow with the number of roundings a value went
through (outputs: 4 units, gradients and statistics: 16 units of the largest
value)."""
import collections
import inspect
import os

import numpy as np

import oracle_layers as L

POLICIES = ("mixed_bfloat16", "mixed_float16")
ULP = {"mixed_bfloat16": 2.0**-7, "mixed_float16": 2.0**-10}

# Cases of the layers group left out here, with the reason.
ROUNDING = ("clips, sorts or bins its input: rounding an input to 16 bits moves some values across a clip bound, "
            "a histogram bin edge or a kink, which changes the output or gradient there by a whole step; the "
            "layers group compares it in float32")
SKIPPED = {cls: ROUNDING for cls in ("RandomBrightness", "AutoContrast", "Equalization", "AugMix",
                                     "ContrastLimitedAdaptiveHistogramEqualization")}
SKIPPED_ACTIVATIONS = {"sparse_sigmoid": ROUNDING}


def config_policy(config):
    """The policy name a Keras layer config carries."""
    d = config["config"].get("dtype")
    return d.get("config", {}).get("name") if isinstance(d, dict) else d


def tol(a, ulp, units):
    a = np.asarray(a, dtype=np.float32)
    top = float(np.max(np.abs(a))) if a.size else 1.0
    return dict(rtol=units * ulp, atol=units * ulp * max(1.0, top))


def skipped(variant):
    cls, kwargs = variant[:2]
    return cls in SKIPPED or cls == "Activation" and kwargs.get("activation") in SKIPPED_ACTIVATIONS


def policies_for(k, count):
    """The policies the k-th of a class's `count` cases runs under: both for a class
    of one case, else the two in turn, so that every class meets each policy
    while XLA compiles each case once per training mode (XLA's compilations are
    most of this group's time)."""
    return POLICIES if count == 1 else (POLICIES[k % 2],)


def run(o):
    expected = []
    no_dtype = set()
    lost = set()
    keras_fails = []
    variants = [v for v in L.variants(o) if not skipped(v)]
    per_class = collections.Counter(v[0] for v in variants)
    seen = {}
    for vi, variant in enumerate(variants):
        cls, kwargs, specs, list_input = variant[:4]
        call_kw = variant[4] if len(variant) > 4 else {}
        k = seen[cls] = seen.get(cls, -1) + 1
        for policy in policies_for(k, per_class[cls]):
            for training in (False, True):
                if training and (cls == "Dropout" and kwargs.get("rate", 0) > 0 or L._cat_inference_only(cls, kwargs)
                                 or L._att_inference_only(cls, kwargs)):
                    continue
                if not training and L._cat_training_only(cls, kwargs, specs):
                    continue
                try:
                    layer = getattr(L.keras.layers, cls)(**dict(kwargs, dtype=policy))
                except TypeError:  # a class whose constructor takes no dtype
                    no_dtype.add(cls)
                    continue
                if training and "training" not in inspect.signature(layer.call).parameters:
                    continue  # the same computation as in inference
                xs = [L.random_input(o.rng, dt, (3,) + shape) for dt, shape in specs]
                try:
                    weights, out, cot, gx, gw, after = L.keras_run(layer, xs, list_input, training, o.rng, call_kw, policy=True)
                except Exception as e:  # noqa: BLE001 - Keras itself cannot run the case
                    keras_fails.append(("%s %s" % (L.desc(cls, kwargs), policy),
                                        "Keras 3.15 fails: %s" % str(e).strip().splitlines()[0][:150]))
                    continue
                config = L.keras.layers.serialize(layer)
                written = config_policy(config)
                if written != policy:
                    # Keras reloading its own config gets `written`, and so does Kiln: the dtype is not compared.
                    lost.add((cls, written))
                cid = "%s%d_%s_%s" % (cls, vi, policy, "train" if training else "infer")
                o.add({"id": cid, "layer": config, "inputs": [o.arr(x) for x in xs], "list_input": list_input,
                       "multi_output": bool(kwargs.get("return_state")), "weights": [o.arr(w) for w in weights],
                       "training": training, "cotangent": o.arr(cot), "call_kwargs": call_kw, "write_dtypes": True})
                label = "%s %s %s" % (L.desc(cls, kwargs), policy, "training" if training else "inference")
                expected.append((cid, label, policy, out, gx, gw, after, [str(w.dtype) for w in layer.weights],
                                 written == policy))
    o.run_kiln()
    for cid, label, policy, out, gx, gw, after, wdt, kept in expected:
        if o.kiln_error(cid):
            continue
        ulp = ULP[policy]
        dtypes = read_dtypes(o, cid)
        want = str(out.dtype)
        if kept and dtypes.get("out") != want:
            o.fail("%s: output dtype is %s in Kiln, %s in Keras" % (label, dtypes.get("out"), want))
        o.compare(label + ": output", o.out(cid, "out"), out.astype(np.float32), **tol(out, ulp, 4))
        for i, g in gx.items():
            o.compare("%s: d/d input %d" % (label, i), o.out(cid, "grad_x_%d" % i), g, **tol(g, ulp, 16))
        for j, g in enumerate(gw):
            o.compare("%s: d/d weight %d" % (label, j), o.out(cid, "grad_w_%d" % j), g, **tol(g, ulp, 16))
        for j, w in enumerate(after):
            o.compare("%s: weight %d after the call" % (label, j), o.out(cid, "weight_%d" % j), w, **tol(w, ulp, 16))
            if dtypes.get("weight_%d" % j) != wdt[j]:
                o.fail("%s: weight %d is %s in Kiln, %s in Keras" % (label, j, dtypes.get("weight_%d" % j), wdt[j]))
    for cls, why in sorted(SKIPPED.items()):
        o.uncovered.append((cls, why))
    o.uncovered.extend(keras_fails)
    for cls, written in sorted(lost, key=str):
        o.uncovered.append(("%s output dtype" % cls, "Keras 3.15's get_config writes dtype=%r, so its policy does not "
                            "survive the config (Keras reloading it gets that too); values compared" % written))
    for act, why in SKIPPED_ACTIVATIONS.items():
        o.uncovered.append(("Activation(%s)" % act, why))
    for cls in sorted(no_dtype):
        o.uncovered.append((cls, "Keras 3.15's constructor takes no dtype (its layers have their own)"))


def read_dtypes(o, cid):
    path = os.path.join(o.work, "out", cid, "dtypes.txt")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return dict(line.strip().split(" ", 1) for line in f if line.strip())
