"""Keras's weight initializers drawing from NumPy instead of jax.random.

On the JAX backend every initializer call is a jitted jax.random program,
compiled afresh for each new shape: a third of the applications group's time
(and a fifth of a run of seven layer classes) went to compiling random draws
for weights that the oracle overwrites, or only needs from the right
distribution. Inside `numpy_draws(rng)`, the three draws the
initializers use (normal, uniform, truncated normal at two standard
deviations, as jax.random.truncated_normal(lower=-2, upper=2)) come from `rng`
with the same distributions, so building a layer or model compiles nothing.
A draw with a symbolic shape or bound (a layer's call traced while a model is
built) goes to Keras's own function."""
import contextlib

import jax.numpy as jnp
import numpy as np
from keras.src.backend import config as keras_config
from keras.src.backend.jax import random as jax_random


def _truncated(rng, shape):
    z = rng.standard_normal(shape)
    bad = np.abs(z) > 2.0
    while bad.any():
        z[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(z) > 2.0
    return z


def _as(values, dtype):
    return jnp.asarray(np.asarray(values, dtype=np.float64), dtype=dtype or keras_config.floatx())


def _concrete(shape, *numbers):
    return all(isinstance(d, (int, np.integer)) for d in shape) and all(
        isinstance(x, (int, float, np.number)) for x in numbers)


# A stream of its own: the oracle's cases draw their inputs and weights from theirs,
# which then does not depend on how many weights a layer creates.
_STREAM = np.random.default_rng(20261201)


@contextlib.contextmanager
def numpy_draws(rng=_STREAM):
    saved = (jax_random.normal, jax_random.uniform, jax_random.truncated_normal)

    def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
        if not _concrete(shape, mean, stddev):
            return saved[0](shape, mean, stddev, dtype, seed)
        return _as(rng.standard_normal(tuple(shape)) * stddev + mean, dtype)

    def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
        if not _concrete(shape, minval, maxval):
            return saved[1](shape, minval, maxval, dtype, seed)
        return _as(rng.uniform(minval, maxval, tuple(shape)), dtype)

    def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
        if not _concrete(shape, mean, stddev):
            return saved[2](shape, mean, stddev, dtype, seed)
        return _as(_truncated(rng, tuple(shape)) * stddev + mean, dtype)

    jax_random.normal, jax_random.uniform, jax_random.truncated_normal = normal, uniform, truncated_normal
    try:
        yield
    finally:
        jax_random.normal, jax_random.uniform, jax_random.truncated_normal = saved
