"""The Keras 3 (JAX backend) side of bench/layer_speed, as a worker the driver
talks to over stdin/stdout (worker_io.py).

  {"op": "prepare", "name": row}  builds the row's layer on symbolic inputs and
                                  answers its serialized config (Kiln builds from it)
  {"op": "time", "name": row, "budget_s", "min_reps", "max_reps"}
                                  answers fwd_ms and fwdbwd_ms

Forward: jax.jit of Layer.stateless_call with training=False (training=True
for the rows timed in training). Forward+backward: jax.jit of value_and_grad
of sum(output) with respect to every trainable weight and every float input,
in training mode, the updated non-trainable variables (moving statistics,
seed states) returned too, so XLA cannot drop their update. A layer that
cannot be traced (Python control flow on values) runs eagerly and says so."""
import importlib
import inspect
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

import cases  # noqa: E402
from worker_io import serve, short_error, time_calls  # noqa: E402

ROWS = {r["name"]: r for r in cases.rows()}
BUILT = {}


def make_inputs(row, rng):
    xs = []
    for spec in row["inputs"]:
        if spec[0] == "int":
            xs.append(rng.integers(0, spec[2], spec[1]).astype(np.int32))
        else:
            xs.append(rng.normal(0, 1, spec[1]).astype(np.float32))
    return xs


def layer_class(row):
    if "module" in row:
        return getattr(importlib.import_module(row["module"]), row["cls"])
    return getattr(keras.layers, row["cls"])


def call_args(row, xs):
    if row["cls"] in cases.POSITIONAL:
        return list(xs)
    return [list(xs) if row.get("list_input") else xs[0]]


def prepare(name):
    row = ROWS[name]
    if "config" in row:
        return {"config": {"class_name": row["cls"], "config": row["config"]}, "keras": "skipped"}
    kwargs = dict(row["kwargs"], **(row["kwargs_fn"](keras) if "kwargs_fn" in row else {}))
    layer = layer_class(row)(**kwargs)
    xs = make_inputs(row, np.random.default_rng(0))
    symbolic = [keras.KerasTensor(x.shape, dtype=str(x.dtype)) for x in xs]
    try:
        layer(*call_args(row, symbolic))
    except Exception:  # a layer whose build needs concrete values
        layer(*call_args(row, xs))
    BUILT[name] = (layer, xs)
    config = keras.layers.serialize(layer)
    return {"config": config}


def run_fn(layer, row, xs, training):
    """f(tv, ntv, float inputs) -> (outputs as a list, new ntv)."""
    float_idx = [i for i, x in enumerate(xs) if x.dtype == np.float32]
    takes_training = "training" in inspect.signature(layer.call).parameters
    kw = {"training": training} if takes_training else {}

    def f(tv, ntv, fx):
        full = list(xs)
        for i, x in zip(float_idx, fx):
            full[i] = x
        y, new_ntv = layer.stateless_call(tv, ntv, *call_args(row, full), **kw)
        return (list(y) if isinstance(y, (list, tuple)) else [y]), new_ntv
    return f, [jnp.asarray(xs[i]) for i in float_idx]


def compiled(fn, args):
    """jax.jit(fn), or fn itself (eager) when it cannot be traced; and whether it was jitted."""
    jitted = jax.jit(fn)
    try:
        jax.block_until_ready(jitted(*args))
        return jitted, True
    except Exception:
        jax.block_until_ready(fn(*args))
        return fn, False


def time_row(req):
    name = req["name"]
    if name not in BUILT:
        prepare(name)
    layer, xs = BUILT[name]
    row = ROWS[name]
    tv = [v.value for v in layer.trainable_variables]
    ntv = [v.value for v in layer.non_trainable_variables]
    budget, lo, hi = req["budget_s"], req["min_reps"], req["max_reps"]
    ans = {"notes": []}
    f, fx = run_fn(layer, row, xs, bool(row.get("train_fwd")))
    fwd, jitted = compiled(lambda a, b, c: f(a, b, c)[0], (tv, ntv, fx))
    if not jitted:
        ans["notes"].append("eager")
    ans["fwd_ms"], ans["fwd_reps"] = time_calls(lambda: jax.block_until_ready(fwd(tv, ntv, fx)), budget, lo, hi)
    floats = [y for y in fwd(tv, ntv, fx) if jnp.issubdtype(y.dtype, jnp.floating)]
    if not floats or (not tv and not fx):
        ans["fwdbwd_error"] = "nothing to differentiate"
        return ans
    ft, _ = run_fn(layer, row, xs, True)

    def loss(tv_, fx_, ntv_):
        ys, new_ntv = ft(tv_, ntv_, fx_)
        return sum(jnp.sum(y.astype(jnp.float32)) for y in ys if jnp.issubdtype(y.dtype, jnp.floating)), new_ntv

    step = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)
    try:
        bwd, jitted = compiled(step, (tv, fx, ntv))
    except Exception as e:  # not differentiable in Keras (integer paths, stop_gradient-free sorts ...)
        ans["fwdbwd_error"] = short_error(e)
        return ans
    if not jitted:
        ans["notes"].append("eager bwd")
    ans["fwdbwd_ms"], ans["fwdbwd_reps"] = time_calls(lambda: jax.block_until_ready(bwd(tv, fx, ntv)), budget, lo, hi)
    return ans


def handle(req):
    if req["op"] == "prepare":
        return prepare(req["name"])
    if req["op"] == "time":
        if "config" in ROWS[req["name"]]:
            return {"error": "Keras 3.15's %s needs TensorFlow, which this JAX venv does not have" % req["name"]}
        try:
            return time_row(req)
        finally:  # each row's layer and compiled programs go before the next row
            BUILT.pop(req["name"], None)
            jax.clear_caches()
    if req["op"] == "version":
        return {"version": "Keras %s, JAX %s" % (keras.__version__, jax.__version__)}
    raise ValueError("unknown op %r" % req["op"])


if __name__ == "__main__":
    serve(handle)
