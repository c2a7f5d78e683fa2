"""Optimizers: 50-step trajectories of every optimizer Kiln has, with each
option (momentum, nesterov, amsgrad, centered, weight_decay, clipnorm,
clipvalue, global_clipnorm, use_ema, a schedule as learning rate) on a small
quadratic and a small MLP; every learning-rate schedule over 20+ steps.

Both sides differentiate the same function (Kiln's is in
tests/oracle/tool/run_optimizers.cpp) and compare every variable after every
step, and with use_ema the averaged weights after finalize_variable_values."""
import jax
import jax.numpy as jnp
import keras
import numpy as np

STEPS = 50

EXP = {"class_name": "ExponentialDecay",
       "config": {"initial_learning_rate": 0.05, "decay_steps": 10, "decay_rate": 0.5}}

# (class name, kwargs). Every Kiln optimizer appears, each also with weight_decay.
# Learning rates are small enough that no trajectory turns chaotic (RMSprop at
# 0.01 on the MLP does: rounding-level differences grow tenfold every three
# steps after step 27, in Keras against itself too), so the comparison stays
# one of update rules, not of float32 rounding.
VARIANTS = [
    ("SGD", {"learning_rate": 0.05}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"learning_rate": 0.05, "clipnorm": 0.3}),
    ("SGD", {"learning_rate": 0.05, "clipvalue": 0.05}),
    ("SGD", {"learning_rate": 0.05, "global_clipnorm": 0.3}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.5, "use_ema": True, "ema_momentum": 0.9}),
    ("Adam", {"learning_rate": 0.02}),
    ("Adam", {"learning_rate": 0.02, "amsgrad": True}),
    ("Adam", {"learning_rate": 0.02, "beta_1": 0.5, "beta_2": 0.9, "epsilon": 1e-3}),
    ("Adam", {"learning_rate": 0.02, "clipnorm": 0.3}),
    ("Adam", {"learning_rate": 0.02, "clipvalue": 0.05}),
    ("Adam", {"learning_rate": 0.02, "global_clipnorm": 0.3}),
    ("Adam", {"learning_rate": 0.02, "use_ema": True}),
    ("Adam", {"learning_rate": 0.02, "use_ema": True, "ema_momentum": 0.8, "ema_overwrite_frequency": 7}),
    ("Adam", {"learning_rate": EXP}),
    ("AdamW", {"learning_rate": 0.02}),
    ("AdamW", {"learning_rate": 0.02, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {"learning_rate": 0.003}),
    ("RMSprop", {"learning_rate": 0.003, "momentum": 0.5}),
    ("RMSprop", {"learning_rate": 0.003, "centered": True}),
    ("RMSprop", {"learning_rate": 0.003, "momentum": 0.5, "centered": True, "rho": 0.8}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("Adagrad", {"learning_rate": 0.1, "initial_accumulator_value": 0.5, "epsilon": 1e-4}),
    ("Adadelta", {"learning_rate": 1.0}),
    ("Adadelta", {"learning_rate": 0.3, "rho": 0.8, "epsilon": 1e-4}),
    ("Adamax", {"learning_rate": 0.02}),
    ("Adamax", {"learning_rate": 0.02, "beta_1": 0.5}),
    ("Nadam", {"learning_rate": 0.02}),
    ("Nadam", {"learning_rate": 0.02, "beta_1": 0.8, "clipnorm": 0.5}),
    ("Ftrl", {"learning_rate": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.01,
              "l2_shrinkage_regularization_strength": 0.01, "beta": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "learning_rate_power": -0.7, "initial_accumulator_value": 0.5}),
    ("Lion", {"learning_rate": 0.005}),
    ("Lion", {"learning_rate": 0.005, "beta_1": 0.95, "beta_2": 0.9}),
]
for _cls in sorted({v[0] for v in VARIANTS}):
    _kw = dict(next(v[1] for v in VARIANTS if v[0] == _cls))
    _kw["weight_decay"] = 0.05
    VARIANTS.append((_cls, _kw))

SCHEDULES = [
    ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 5, "decay_rate": 0.7}),
    ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 5, "decay_rate": 0.7, "staircase": True}),
    ("PiecewiseConstantDecay", {"boundaries": [3, 8, 15], "values": [0.1, 0.05, 0.01, 0.001]}),
    ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 12}),
    ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 6, "end_learning_rate": 0.01,
                         "power": 2.0, "cycle": True}),
    ("InverseTimeDecay", {"initial_learning_rate": 0.1, "decay_steps": 4, "decay_rate": 0.5}),
    ("InverseTimeDecay", {"initial_learning_rate": 0.1, "decay_steps": 4, "decay_rate": 0.5, "staircase": True}),
    ("CosineDecay", {"initial_learning_rate": 0.1, "decay_steps": 15}),
    ("CosineDecay", {"initial_learning_rate": 0.1, "decay_steps": 15, "alpha": 0.1}),
    ("CosineDecay", {"initial_learning_rate": 0.0, "decay_steps": 12, "warmup_target": 0.2, "warmup_steps": 5}),
    ("CosineDecayRestarts", {"initial_learning_rate": 0.1, "first_decay_steps": 4}),
    ("CosineDecayRestarts", {"initial_learning_rate": 0.1, "first_decay_steps": 3, "t_mul": 1.5, "m_mul": 0.8,
                             "alpha": 0.05}),
]
SCHEDULE_STEPS = list(range(25)) + [40, 100]


def problem_data(rng, problem):
    if problem == "quadratic":
        init = [rng.normal(0, 1, (5,)), rng.normal(0, 1, (2, 3))]
        data = [rng.uniform(0.1, 2.0, (5,)), rng.normal(0, 1, (5,)),
                rng.uniform(0.1, 2.0, (2, 3)), rng.normal(0, 1, (2, 3))]
    else:
        init = [rng.normal(0, 0.5, (4, 6)), rng.normal(0, 0.1, (6,)), rng.normal(0, 0.5, (6, 2)),
                rng.normal(0, 0.1, (2,))]
        data = [rng.normal(0, 1, (8, 4)), rng.normal(0, 1, (8, 2))]
    return [a.astype(np.float32) for a in init], [a.astype(np.float32) for a in data]


def problem_loss(problem, v, d):
    """The same function as problem_loss in tests/oracle/tool/run_optimizers.cpp."""
    if problem == "quadratic":
        return jnp.sum(d[0] * jnp.square(v[0] - d[1])) + jnp.sum(d[2] * jnp.square(v[1] - d[3]))
    h = jnp.tanh(d[0] @ v[0] + v[1])
    return jnp.mean(jnp.square(h @ v[2] + v[3] - d[1]))


def keras_optimizer(cls, kwargs):
    kw = dict(kwargs)
    if isinstance(kw.get("learning_rate"), dict):
        kw["learning_rate"] = keras.optimizers.schedules.deserialize(kw["learning_rate"])
    return getattr(keras.optimizers, cls)(**kw)


def keras_trajectory(cls, kwargs, problem, init, data):
    opt = keras_optimizer(cls, kwargs)
    variables = [keras.Variable(x) for x in init]
    grad_fn = jax.jit(jax.value_and_grad(lambda v: problem_loss(problem, v, data)))
    traj = [[] for _ in variables]
    losses = []
    for _ in range(STEPS):
        loss, grads = grad_fn([v.value for v in variables])
        losses.append(np.asarray(loss))
        opt.apply_gradients(zip(grads, variables))
        for t, v in zip(traj, variables):
            t.append(np.asarray(v.value))
    final = None
    if kwargs.get("use_ema"):
        opt.finalize_variable_values(variables)
        final = [np.asarray(v.value) for v in variables]
    return [np.stack(t) for t in traj], np.stack(losses), final


def desc(cls, kwargs):
    parts = []
    for k, v in kwargs.items():
        parts.append("%s=%s" % (k, v["class_name"] if isinstance(v, dict) else v))
    return "%s(%s)" % (cls, ", ".join(parts))


def run_optimizers(o):
    expected = []
    for vi, (cls, kwargs) in enumerate(VARIANTS):
        for problem in ("quadratic", "mlp"):
            init, data = problem_data(o.rng, problem)
            traj, losses, final = keras_trajectory(cls, kwargs, problem, init, data)
            cid = "%s%d_%s" % (cls, vi, problem)
            o.add({"id": cid, "optimizer": {"class_name": cls, "config": kwargs}, "problem": problem,
                   "init": [o.arr(a) for a in init], "data": [o.arr(a) for a in data], "steps": STEPS})
            # Centered RMSprop divides by sqrt(ms - mg^2), small where a gradient
            # barely varies, which amplifies the last-bit differences between
            # OpenBLAS's sgemm kernels: its AVX-512 kernel and its AVX2 one
            # differ by 1.3e-5 on the MLP's first bias after 50 steps. Its
            # trajectories get ten times the absolute tolerance.
            ill_conditioned = cls == "RMSprop" and kwargs.get("centered", False)
            expected.append((cid, "%s on the %s" % (desc(cls, kwargs), problem), traj, losses, final,
                             10.0 if ill_conditioned else 1.0))
    o.run_kiln("optimizers")
    # 1e-5 relative to each variable's scale: elements that pass through zero
    # on the way are held to the same absolute accuracy as the rest.
    def scaled(a, widen=1.0):
        return dict(rtol=1e-5, atol=widen * 1e-5 * max(1e-3, float(np.max(np.abs(a)))))
    for cid, label, traj, losses, final, widen in expected:
        if o.kiln_error(cid):
            continue
        o.compare(label + ": loss before each step", o.out(cid, "loss"), losses, **scaled(losses))
        for i, t in enumerate(traj):
            o.compare("%s: variable %d over %d steps" % (label, i, STEPS), o.out(cid, "traj_%d" % i), t,
                      **scaled(t, widen))
        for i, f in enumerate(final or []):
            o.compare("%s: variable %d after finalize_variable_values (EMA)" % (label, i), o.out(cid, "final_%d" % i),
                      f, **scaled(f))
    keras_names = [n for n in dir(keras.optimizers) if n[:1].isupper() and n not in ("Optimizer", "LossScaleOptimizer")]
    known = set(o.kiln_known("optimizers", keras_names))
    for name in sorted(known - {v[0] for v in VARIANTS}):
        o.fail("optimizer class %s is known to Kiln but no case covers it" % name)
    for name in sorted(set(keras_names) - known):
        o.uncovered.append((name, "a Keras optimizer Kiln does not have"))


def run_schedules(o):
    o.cases = []
    expected = []
    for si, (cls, kwargs) in enumerate(SCHEDULES):
        s = getattr(keras.optimizers.schedules, cls)(**kwargs)
        values = np.array([float(s(step)) for step in SCHEDULE_STEPS])
        cid = "%s%d" % (cls, si)
        o.add({"id": cid, "schedule": {"class_name": cls, "config": kwargs}, "steps": SCHEDULE_STEPS})
        expected.append((cid, desc(cls, kwargs), values))
    o.run_kiln("schedules")
    for cid, label, values in expected:
        if not o.kiln_error(cid):
            o.compare(label + " at steps 0..24, 40, 100", o.out(cid, "values"), values, rtol=1e-6, atol=1e-7)
    keras_names = [n for n in dir(keras.optimizers.schedules) if n[:1].isupper() and n != "LearningRateSchedule"]
    known = set(o.kiln_known("schedules", keras_names))
    for name in sorted(known - {s[0] for s in SCHEDULES}):
        o.fail("schedule class %s is known to Kiln but no case covers it" % name)
    for name in sorted(set(keras_names) - known):
        o.uncovered.append((name, "a Keras schedule Kiln does not have"))


def run(o):
    run_optimizers(o)
    run_schedules(o)
