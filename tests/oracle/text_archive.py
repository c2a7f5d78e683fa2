"""The parts of a .keras archive that hold a text layer's adapted state, read so that
Kiln's archive can be compared with Keras's own (oracle_text.py): the files under
assets/ (vocabulary.txt, one per layer and sublayer), the layer's vocabulary,
idf_weights and vocabulary_size in config.json, and every dataset under the layer's
group in model.weights.h5 (tf_idf keeps its weights there as "idf_weights").

Keras names a functional model's layers in the archive by class, not by layer name
(layers/text_vectorization, layers/string_lookup; saving_lib's snake case), so the
model holds one such layer."""
import io
import json
import re
import zipfile

import h5py
import numpy as np

FIELDS = ("vocabulary", "idf_weights", "vocabulary_size")
MISSING = "<missing>"
TOL = dict(rtol=1e-6, atol=1e-7)


def read_archive(path, cls):
    """{"assets": {name: bytes}, "fields": {field: value or MISSING}, "datasets": {path under the
    layer's group: array}, "layer": the layer's name, "path": its group, "error": why the layer
    was not found or None}."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assets = {n: z.read(n) for n in names if n.startswith("assets/") and not n.endswith("/")}
        config = json.loads(z.read("config.json"))
        weights = z.read("model.weights.h5") if "model.weights.h5" in names else None
    out = {"assets": assets, "fields": {}, "datasets": {}, "layer": None, "error": None}
    entries = [e for e in (config.get("config") or {}).get("layers", []) if e.get("class_name") == cls]
    if len(entries) != 1:
        out["error"] = "config.json holds %d %s layers, not one" % (len(entries), cls)
        return out
    layer_config = entries[0].get("config", {})
    out["layer"] = layer_config.get("name", entries[0].get("name"))
    out["path"] = "layers/" + re.sub(r"(?<!^)(?=[A-Z])", "_", cls).lower()
    out["fields"] = {k: layer_config.get(k, MISSING) for k in FIELDS}
    if weights is None:
        out["error"] = "no model.weights.h5"
        return out
    with h5py.File(io.BytesIO(weights), "r") as h:
        group = h.get(out["path"])
        if group is None:  # a layer without variables may have no group at all (Keras writes none)
            return out
        group.visititems(lambda name, obj: out["datasets"].__setitem__(name, np.asarray(obj[()]))
                         if isinstance(obj, h5py.Dataset) else None)
    return out


def close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.all(np.abs(a.astype(np.float64) - b.astype(np.float64))
                           <= TOL["atol"] + TOL["rtol"] * np.abs(b.astype(np.float64))))
    return bool(np.array_equal(a, b))


def field_equal(kiln, keras):
    """A config field: vocabularies and sizes exactly, idf weights to the float tolerance."""
    if isinstance(keras, list) and isinstance(kiln, list) and keras and all(
            isinstance(x, float) for x in keras):
        return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in kiln) and close(kiln, keras)
    return kiln == keras and type(kiln) is type(keras)


def short(v, n=120):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def archive_diff(keras, kiln):
    """Where Kiln's archive (read_archive) differs from Keras's, one message each."""
    if keras["error"]:
        return ["Keras's own archive: " + keras["error"]]
    if kiln["error"]:
        return [kiln["error"]]
    out = []
    if kiln["layer"] != keras["layer"]:
        out.append("layer named %r, Keras's %r" % (kiln["layer"], keras["layer"]))
    ka, ra = set(kiln["assets"]), set(keras["assets"])
    if ka != ra:
        out.append("assets: Kiln lacks %s, has extra %s" % (sorted(ra - ka), sorted(ka - ra)))
    for name in sorted(ka & ra):
        a, b = kiln["assets"][name], keras["assets"][name]
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            out.append("%s: %d bytes, Keras's %d; first difference at byte %d: %r vs Keras's %r" % (
                name, len(a), len(b), at, a[max(0, at - 20):at + 20], b[max(0, at - 20):at + 20]))
    for k in FIELDS:
        if not field_equal(kiln["fields"].get(k, MISSING), keras["fields"].get(k, MISSING)):
            out.append("config.json %s: %s, Keras's %s" % (k, short(kiln["fields"].get(k, MISSING)),
                                                           short(keras["fields"].get(k, MISSING))))
    kd, rd = set(kiln["datasets"]), set(keras["datasets"])
    if kd != rd:
        out.append("model.weights.h5 under %s: Kiln lacks %s, has extra %s" % (
            keras["path"], sorted(rd - kd), sorted(kd - rd)))
    for name in sorted(kd & rd):
        a, b = kiln["datasets"][name], keras["datasets"][name]
        if a.dtype != b.dtype or not close(a, b):
            out.append("model.weights.h5 %s/%s: %s %s %s, Keras's %s %s %s" % (
                keras["path"], name, a.dtype, a.shape, short(a.ravel()[:6].tolist()), b.dtype, b.shape,
                short(b.ravel()[:6].tolist())))
    return out
