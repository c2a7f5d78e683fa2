"""Keras's text layers (TextVectorization, StringLookup, IntegerLookup, Hashing,
HashedCrossing) against Kiln's, on Debian's fortune collections and a few edge texts
(variants_text.py). Keras runs these layers through TensorFlow, so this group runs in
its own venv with KERAS_BACKEND=tensorflow (run.sh).

For each case Keras builds the layer, adapts it, calls it eagerly and saves
Model([Input...], layer(...)) as <id>.keras; Kiln builds its layer from the same
config, adapts it on the same data and calls it, loads Keras's file and calls that,
and saves the same kind of model around its own layer as kiln_<id>.keras
(tool/run_text.cpp; out/<id>/result.json). Compared: the vocabularies and outputs
(integers and strings exactly, floats to rtol 1e-6, atol 1e-7, and each value's JSON
kind: integer, float or string, as Keras's dtype); the output of Keras's file in Kiln;
Keras's prediction from Kiln's file; and Kiln's archive against Keras's own: the files
under assets/ byte for byte, the layer's vocabulary, idf_weights and vocabulary_size in
config.json, and every dataset under the layer's group in model.weights.h5.
"""
import json
import os
import re
import string

import keras
import numpy as np
import tensorflow as tf

from text_archive import archive_diff, close, read_archive
from variants_text import ADAPT_COLLECTIONS, FORTUNE_DIR, VARIANTS, Data

FLOAT_TOL = dict(rtol=1e-6, atol=1e-7)
WITH_VOCABULARY = {"TextVectorization", "StringLookup", "IntegerLookup"}


@keras.saving.register_keras_serializable(package="kiln_oracle")
def custom_standardization(x):
    """keras.io's text-classification standardization: lower case, no <br />, no punctuation."""
    no_html = tf.strings.regex_replace(tf.strings.lower(x), "<br />", " ")
    return tf.strings.regex_replace(no_html, "[%s]" % re.escape(string.punctuation), "")


@keras.saving.register_keras_serializable(package="kiln_oracle")
def split_on_commas(x):
    return tf.strings.split(x, ",")


# The functions a variant names with "@"; kiln_oracle registers its own under the same names.
FUNCTIONS = {"@custom_standardization": custom_standardization, "@split_on_commas": split_on_commas}


def jsonable(v):
    """A config or result as plain JSON values (tuples, NumPy scalars and arrays, bytes,
    functions as Keras serializes them)."""
    if callable(v):
        return keras.saving.serialize_keras_object(v)
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return jsonable(v.tolist())
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.generic):
        return jsonable(v.item())
    return v


def kind_of(dtype):
    dtype = tf.as_dtype(dtype)
    return "string" if dtype == tf.string else "float" if dtype.is_floating else "int"


def tensor(value, dtype):
    return tf.constant(value, dtype=tf.string if dtype == "string" else tf.int64)


def call(fn, cls, tensors):
    return fn(tuple(tensors)) if cls == "HashedCrossing" else fn(tensors[0])


def model_call(model, tensors):
    return model(list(tensors) if len(tensors) > 1 else tensors[0])


def first_line(e):
    """The line of an exception that says what went wrong (Keras's loader wraps the cause in a summary)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    said = [ln for ln in lines if not ln.startswith(("A total of", "List of objects", "[<", "Exception encountered"))]
    return "%s: %s" % (type(e).__name__, (said or lines or [""])[0][:200])


def keras_case(o, data, row):
    """Keras's half of one case: the layer, its results and its saved model."""
    cid, cls, kwargs, adapt_kind, input_kind = row
    kwargs = {k: FUNCTIONS.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    layer = getattr(keras.layers, cls)(name=cid, **kwargs)
    case = {"id": cid, "class": cls, "config": jsonable(layer.get_config()), "adapt": None}
    if adapt_kind:
        case["adapt"] = data.adapt(adapt_kind)
        layer.adapt(tensor(case["adapt"], "int64" if adapt_kind == "ints" else "string"))
    vocabulary = jsonable(layer.get_vocabulary()) if cls in WITH_VOCABULARY else None
    size = layer.vocabulary_size() if cls in WITH_VOCABULARY else 0
    case["inputs"] = data.inputs(input_kind, size, vocabulary or [])
    dtypes = ["int64" if input_kind in ("ids", "ints", "ints_col") or (input_kind == "pair_int" and i == 1)
              else "string" for i in range(len(case["inputs"]))]
    case["input_specs"] = [{"shape": list(np.shape(x))[1:], "dtype": d} for x, d in zip(case["inputs"], dtypes)]
    tensors = [tensor(x, d) for x, d in zip(case["inputs"], dtypes)]
    out = call(layer, cls, tensors)
    check = {"id": cid, "cls": cls, "vocabulary": vocabulary, "output": jsonable(np.asarray(out)),
             "kind": kind_of(out.dtype), "tensors": tensors, "own": None, "own_vocabulary": None,
             "own_error": None, "desc": "%s(%s)" % (cls, ", ".join("%s=%r" % kv for kv in kwargs.items()))}
    ins = [keras.Input(shape=tuple(s["shape"]), dtype=s["dtype"]) for s in case["input_specs"]]
    model = keras.Model(ins if len(ins) > 1 else ins[0], call(layer, cls, ins))
    case["keras_file"], case["kiln_file"] = cid + ".keras", "kiln_%s.keras" % cid
    check["keras_path"] = os.path.join(o.work, case["keras_file"])
    try:
        model.save(check["keras_path"])
    except Exception as e:  # noqa: BLE001 - Keras's own limit: the file comparisons have nothing to go by
        o.uncovered.append((cid + ": .keras", "Keras 3.15 cannot save this model: " + first_line(e)))
        case["keras_file"] = check["keras_path"] = None
    if case["keras_file"]:
        try:
            own = keras.saving.load_model(check["keras_path"])
            check["own"] = jsonable(np.asarray(model_call(own, tensors)))
            if vocabulary is not None:
                check["own_vocabulary"] = jsonable(own.get_layer(cid).get_vocabulary())
        except Exception as e:  # noqa: BLE001
            # Kiln is not asked to load a file Keras cannot; the archives are still compared.
            check["own_error"] = first_line(e)
            case["keras_file"] = None
            o.uncovered.append((cid + ": Keras .keras -> Kiln", "Keras 3.15 cannot load its own file of this "
                                "model: " + check["own_error"]))
    o.add(case)
    return check


# ---- comparison ---------------------------------------------------------------

def shape_of(v):
    """The shape of a rectangular nested list, or None when it is ragged."""
    if not isinstance(v, list):
        return ()
    inner = [shape_of(x) for x in v]
    if any(s is None or s != inner[0] for s in inner[1:]) or (inner and inner[0] is None):
        return None
    return (len(v),) + (inner[0] if inner else ())


def leaves(v):
    if isinstance(v, list):
        for x in v:
            yield from leaves(x)
    else:
        yield v


def leaf_kind(x):
    if isinstance(x, str):
        return "string"
    if isinstance(x, bool):
        return "bool"
    return "int" if isinstance(x, int) else "float" if isinstance(x, float) else type(x).__name__


def kinds_off(v, kind):
    """The JSON kinds of v's values other than `kind` (an integer output must not come as floats)."""
    return {leaf_kind(x) for x in leaves(v)} - {kind}


def agrees(a, b, kind):
    if kind != "float":
        _, diffs, err = exact_diff(a, b)
        return not err and not diffs
    return shape_of(a) == shape_of(b) and close(a, b)


def exact_diff(kiln, keras_value):
    """(number of values, differences as (flat index, Kiln's, Keras's), or an error) for an exact comparison."""
    ks, rs = shape_of(kiln), shape_of(keras_value)
    if ks is None or ks != rs:
        where = ""
        if len(rs or ()) == 1 and isinstance(kiln, list):  # a vocabulary: say where the two part
            at = next((i for i, (x, y) in enumerate(zip(kiln, keras_value)) if x != y), min(len(kiln), rs[0]))
            where = "; first difference at [%d]: kiln %r keras %r" % (at, kiln[at:at + 3], keras_value[at:at + 3])
        return 0, None, "shape %s from Kiln, %s from Keras%s" % (ks if ks is not None else "ragged", rs, where)
    a, b = list(leaves(kiln)), list(leaves(keras_value))
    return len(b), [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y or type(x) is not type(y)], None


def exact(o, label, kiln, keras_value):
    """An exact comparison (strings, vocabularies) that adds a row to the table as Oracle.compare does."""
    if kiln is None:
        o.fail("%s: Kiln wrote no result" % label)
        return False
    n, diffs, err = exact_diff(kiln, keras_value)
    if err:
        o.fail("%s: %s" % (label, err))
        return False
    o.rows.append((label, n, float(len(diffs)), 0.0, not diffs, 0.0, 0.0, "exact; max abs = values that differ"))
    if diffs:
        o.fail("%s: %d of %d values differ; first at %s" % (label, len(diffs), n, "; ".join(
            "[%d] kiln %r keras %r" % d for d in diffs[:4])))
    return not diffs


def same(o, label, kiln, keras_value, kind):
    """Kiln's nested list against Keras's: each value's JSON kind, then the values."""
    if kiln is None:
        o.fail("%s: Kiln wrote no result" % label)
        return False
    off = kinds_off(kiln, kind)
    if off:
        o.fail("%s: Kiln wrote %s values where Keras's output is %s" % (label, "/".join(sorted(off)), kind))
        return False
    if kind == "string":
        return exact(o, label, kiln, keras_value)
    if shape_of(kiln) is None:
        o.fail("%s: Kiln's output is ragged, Keras's has shape %s" % (label, shape_of(keras_value)))
        return False
    tol = FLOAT_TOL if kind == "float" else dict(rtol=0.0, atol=0.0)
    return o.compare(label, np.asarray(kiln, np.float64), np.asarray(keras_value, np.float64), **tol)


def kiln_file_in_keras(o, c, case, ref):
    """Keras loads Kiln's file and predicts `ref`; a load error is Kiln's unless Keras fails on its own file too."""
    try:
        model = keras.saving.load_model(os.path.join(o.work, case["kiln_file"]))
    except Exception as e:  # noqa: BLE001 - any failure to read Kiln's file is the finding
        if c["own_error"]:
            o.uncovered.append((c["id"] + ": Kiln .keras -> Keras", "Keras 3.15 cannot load its own file of "
                                "this model either (%s)" % c["own_error"]))
        else:
            o.fail("%s: Keras cannot load Kiln's .keras: %s" % (c["id"], first_line(e)))
        return
    try:
        pred = model_call(model, c["tensors"])
    except Exception as e:  # noqa: BLE001
        o.fail("%s: the model Keras loaded from Kiln's .keras cannot run: %s" % (c["id"], first_line(e)))
        return
    same(o, "%s: Kiln .keras -> Keras" % c["id"], jsonable(np.asarray(pred)), ref, c["kind"])


def file_references(o, c):
    """What a file of this model should give: Keras's own file's prediction and vocabulary,
    which are the layer's unless Keras 3.15 loses something on the way (then it is listed)."""
    if c["own"] is None:
        return c["output"], c["vocabulary"]
    if agrees(c["own"], c["output"], c["kind"]) and c["own_vocabulary"] == c["vocabulary"]:
        return c["output"], c["vocabulary"]
    lost = ""
    if c["own_vocabulary"] != c["vocabulary"]:
        lost = ": its vocabulary comes back as %d tokens, not %d (%s)" % (
            len(c["own_vocabulary"]), len(c["vocabulary"]),
            "without %r" % sorted(set(c["vocabulary"]) - set(c["own_vocabulary"]))[:3])
    o.uncovered.append((c["id"] + ": the layer vs its file", "Keras 3.15's own file of this model predicts "
                        "otherwise than the layer it saved%s; the file comparisons go by the file" % lost))
    return c["own"], c["own_vocabulary"]


def compare_case(o, c, case):
    cid = c["id"]
    if o.kiln_error(cid):
        return
    path = os.path.join(o.work, "out", cid, "result.json")
    if not os.path.exists(path):
        o.fail("%s: Kiln wrote no result.json" % cid)
        return
    with open(path, encoding="utf-8") as f:
        r = json.load(f)
    if c["vocabulary"] is not None:
        exact(o, "%s: vocabulary" % cid, r.get("vocabulary"), c["vocabulary"])
    same(o, "%s: output" % cid, r.get("output"), c["output"], c["kind"])
    ref, ref_vocabulary = file_references(o, c)
    if case["keras_file"]:
        same(o, "%s: Keras .keras -> Kiln" % cid, r.get("loaded_output"), ref, c["kind"])
        if ref_vocabulary is not None:
            exact(o, "%s: Keras .keras -> Kiln, vocabulary" % cid, r.get("loaded_vocabulary"), ref_vocabulary)
    kiln_path = os.path.join(o.work, case["kiln_file"])
    if not os.path.exists(kiln_path):
        o.fail("%s: Kiln saved no %s" % (cid, case["kiln_file"]))
        return
    kiln_file_in_keras(o, c, case, ref)
    if c["keras_path"]:
        try:
            diffs = archive_diff(read_archive(c["keras_path"], c["cls"]),
                                 read_archive(kiln_path, c["cls"]))
        except Exception as e:  # noqa: BLE001 - an archive that cannot be read is Kiln's finding
            diffs = ["cannot read %s: %s" % (case["kiln_file"], first_line(e))]
        o.rows.append(("%s: Kiln's archive as Keras's" % cid, 1, float(len(diffs)), 0.0, not diffs, 0.0, 0.0,
                       "assets, config fields, weights; max abs = differences"))
        for d in diffs:
            o.fail("%s: Kiln's archive differs from Keras's: %s" % (cid, d))


def map_leaves(f, v):
    return [map_leaves(f, x) for x in v] if isinstance(v, list) else f(v)


def check_checkers(o, checks):
    """A perturbed result must fail: a vocabulary entry, a string output, an integer
    output written as floats, and each part of an archive (oracle.py checks the
    float comparison)."""
    bad = []
    vocab = next((c for c in checks if c["vocabulary"] and len(c["vocabulary"]) > 2), None)
    if vocab:
        v = list(vocab["vocabulary"])
        v[1], v[2] = v[2], v[1]
        if not exact_diff(v, vocab["vocabulary"])[1]:
            bad.append("two vocabulary entries swapped")
    strings = next((c for c in checks if c["kind"] == "string"), None)
    if strings:
        s = map_leaves(lambda x: x, strings["output"])
        s[0][0] += "x"
        if not exact_diff(s, strings["output"])[1]:
            bad.append("a string output changed")
    ints = next((c for c in checks if c["kind"] == "int"), None)
    if ints and not kinds_off(map_leaves(float, ints["output"]), "int"):
        bad.append("floats for an integer output")
    tf_idf = next((c for c in checks if c["keras_path"] and c["kind"] == "float" and
                   "vars/idf_weights" in read_archive(c["keras_path"], c["cls"])["datasets"]), None)
    perturbations = {
        "an asset's last byte": lambda a: a["assets"].update(
            {k: v[:-1] + bytes([v[-1] ^ 1]) for k, v in list(a["assets"].items())[:1]}),
        "an asset missing": lambda a: a["assets"].pop(sorted(a["assets"])[0]),
        "vocabulary_size": lambda a: a["fields"].update(vocabulary_size=(a["fields"]["vocabulary_size"] or 0) + 1),
        "an idf weight by 10x the tolerance": lambda a: a["datasets"]["vars/idf_weights"].__setitem__(
            0, a["datasets"]["vars/idf_weights"][0] * (1 + 1e-5) + 1e-6),
        "an idf weight as float64": lambda a: a["datasets"].update(
            {"vars/idf_weights": a["datasets"]["vars/idf_weights"].astype(np.float64)}),
        "a dataset missing": lambda a: a["datasets"].pop("vars/idf_weights"),
    }
    if tf_idf:
        ref = read_archive(tf_idf["keras_path"], tf_idf["cls"])
        for what, perturb in perturbations.items():
            other = read_archive(tf_idf["keras_path"], tf_idf["cls"])
            perturb(other)
            if not archive_diff(ref, other):
                bad.append("archive: " + what)
    else:
        bad.append("no tf_idf case with a Keras file to perturb")
    for b in bad:
        o.fail("checker: a perturbed result passed (%s)" % b)
    if not bad:
        print("checker: perturbed vocabularies, strings, integer kinds and archives (%s) are caught" %
              ", ".join(perturbations))


def run(o):
    missing = [n for n in ADAPT_COLLECTIONS if not os.path.isfile(os.path.join(FORTUNE_DIR, n))]
    if missing:
        msg = "keras_oracle_text: no %s in %s; install the Debian packages fortunes and fortunes-min" % (
            " or ".join(missing), FORTUNE_DIR)
        if os.environ.get("KILN_TEST_REQUIRE_TOOLS") == "1":
            raise SystemExit(msg)
        print(msg + " (skipped)")
        raise SystemExit(77)
    keras.utils.set_random_seed(1234)
    data = Data()
    checks = [keras_case(o, data, row) for row in VARIANTS]
    print("cases:")
    for c in checks:
        print("  %-24s %s" % (c["id"], c["desc"]))
    o.run_kiln()
    for c, case in zip(checks, o.cases):
        compare_case(o, c, case)
    check_checkers(o, checks)
    by_class = {}
    for c in checks:
        by_class[c["cls"]] = by_class.get(c["cls"], 0) + 1
    print("cases per class: %s" % ", ".join("%s %d" % kv for kv in by_class.items()))
