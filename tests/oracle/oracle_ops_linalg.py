"""keras.ops' linear algebra (JAX backend) against kiln/ops/linalg_ops.h: values,
dtypes and jax.vjp gradients on well-conditioned random matrices (symmetric positive
definite B·Bᵀ + n·I, diagonally dominant, triangular with a strong diagonal), in
float32 and float64, batched and broadcast, and on exact-value edge cases (singular
and permuted matrices, integer inputs). Runs through op_cases.run_cases; Kiln's side
is tool/ops_linalg.cpp.

Singular vectors and eigenvectors are unique only up to sign (eig: phase), so both
sides compare them in one canonical form: each vector scaled so that its
largest-magnitude component is real and positive, and eig's eigenpairs sorted by
eigenvalue. svd with full_matrices compares the first min(m, n) singular vectors and
the completed bases' Gram matrices uᵀu and vh·vhᵀ (identity on both sides when they are
orthonormal), the only invariants of a completed basis."""
import jax
import jax.numpy as jnp
import numpy as np
from keras import ops

import op_cases

R = np.random.default_rng(20261129)
NO_GRAD = {"grad": False}


def normal(*shape, dtype="float32"):
    return R.normal(0, 1, shape).astype(dtype)


def spd(*batch, n, dtype="float32"):
    b = R.normal(0, 1, batch + (n, n))
    return (b @ np.swapaxes(b, -1, -2) + n * np.eye(n)).astype(dtype)


def dominant(*batch, n, dtype="float32"):
    a = R.normal(0, 1, batch + (n, n))
    return (a + 2 * n * np.eye(n) * np.sign(R.normal(0, 1, batch + (n, 1)))).astype(dtype)


def triangular(*batch, n, lower, dtype="float32"):
    a = R.normal(0, 1, batch + (n, n)) * 0.5 + 3 * np.eye(n)
    return (np.tril(a) if lower else np.triu(a)).astype(dtype)


def distinct_spectrum(*batch, n, dtype="float32"):
    """Symmetric with eigenvalues 1, 2, ..., n (well separated for eigh's gradient)."""
    q, _ = np.linalg.qr(R.normal(0, 1, batch + (n, n)))
    return (q @ (np.arange(1, n + 1) * np.eye(n)) @ np.swapaxes(q, -1, -2)).astype(dtype)


def separated_singular(*batch, m, n, dtype="float32"):
    """Singular values 1, 2, ..., min(m, n) (distinct, for svd's gradient)."""
    k = min(m, n)
    u, _ = np.linalg.qr(R.normal(0, 1, batch + (m, k)))
    v, _ = np.linalg.qr(R.normal(0, 1, batch + (n, k)))
    return (u @ (np.arange(1, k + 1) * np.eye(k)) @ np.swapaxes(v, -1, -2)).astype(dtype)


def column_signs(v):
    idx = jnp.argmax(jnp.abs(v), axis=-2)[..., None, :]
    return ops.stop_gradient(jnp.sign(jnp.take_along_axis(v, idx, axis=-2)))


def eigh_canonical(x):
    w, v = ops.eigh(x)
    return w, v * column_signs(v)


def svd_canonical(full_matrices=True, compute_uv=True):
    def fn(x):
        out = ops.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
        if not compute_uv:
            return out
        u, s, vh = out
        k = s.shape[-1]
        u_k, vh_k = u[..., :, :k], vh[..., :k, :]
        sg = column_signs(u_k)
        res = (u_k * sg, s, vh_k * jnp.swapaxes(sg, -1, -2))
        if full_matrices:
            res += (jnp.swapaxes(u, -1, -2) @ u, vh @ jnp.swapaxes(vh, -1, -2))
        return res
    return fn


def eig_canonical(x):
    w, v = ops.eig(x)
    idx = jnp.argmax(jnp.abs(v) ** 2, axis=-2)[..., None, :]
    p = jnp.take_along_axis(v, idx, axis=-2)
    v = v * (jnp.conj(p) / jnp.abs(p))
    order = jnp.argsort(w.real + w.imag * 1e-4, axis=-1)
    w = jnp.take_along_axis(w, order, axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
    return w.real, w.imag, v.real, v.imag


def as_float32(name):
    """Keras's JAX backend on integer inputs without x64 (its default): float32."""
    return lambda *xs: getattr(ops, name)(*[np.asarray(x, np.float32) for x in xs])


def norm_inf(sign, **kw):
    return lambda x: ops.norm(x, ord=sign * np.inf, **kw)


CASES = []
for dt in ("float32", "float64"):
    tol = {"rtol": 1e-4, "atol": 1e-5} if dt == "float32" else {"rtol": 1e-9, "atol": 1e-10}
    t32 = {"rtol": 1e-4, "atol": 1e-5}  # norm computes in float32 for every input dtype
    CASES += [
        ("cholesky", {}, [spd(n=4, dtype=dt)], tol),
        ("cholesky", {"upper": True}, [spd(2, n=3, dtype=dt)], tol),
        ("cholesky_inverse", {}, [triangular(n=4, lower=True, dtype=dt)], tol),
        # Keras's JAX backend transposes every axis of the inverse factor, so it only
        # takes 2-D inputs; Kiln's batches transpose the last two (tests/framework).
        ("cholesky_inverse", {"upper": True}, [triangular(n=3, lower=False, dtype=dt)], tol),
        ("det", {}, [dominant(n=2, dtype=dt)], tol),
        ("det", {}, [dominant(3, n=3, dtype=dt)], tol),
        ("det", {}, [dominant(2, n=5, dtype=dt)], tol),
        ("det", {}, [dominant(n=1, dtype=dt)], tol),
        ("inv", {}, [dominant(n=4, dtype=dt)], tol),
        ("inv", {}, [dominant(2, 3, n=3, dtype=dt)], tol),
        ("solve", {}, [dominant(n=4, dtype=dt), normal(4, dtype=dt)], tol),
        ("solve", {}, [dominant(n=4, dtype=dt), normal(4, 3, dtype=dt)], tol),
        ("solve", {}, [dominant(2, n=3, dtype=dt), normal(2, 3, 2, dtype=dt)], tol),
        ("solve", {}, [dominant(2, 1, n=3, dtype=dt), normal(4, 3, 2, dtype=dt)], tol),
        ("solve", {}, [dominant(2, n=3, dtype=dt), normal(3, dtype=dt)], tol),
        ("solve_triangular", {}, [triangular(n=4, lower=False, dtype=dt), normal(4, 2, dtype=dt)], tol),
        ("solve_triangular", {"lower": True}, [triangular(2, n=3, lower=True, dtype=dt), normal(2, 3, 2, dtype=dt)],
         tol),
        ("solve_triangular", {"lower": True}, [triangular(n=4, lower=True, dtype=dt), normal(4, dtype=dt)], tol),
        # the other triangle is never read
        ("solve_triangular", {"lower": True}, [normal(3, 3, dtype=dt) + 4 * np.eye(3, dtype=dt), normal(3, 2, dtype=dt)],
         tol),
        ("slogdet", {}, [dominant(n=4, dtype=dt)], tol),
        ("slogdet", {}, [dominant(3, n=3, dtype=dt)], tol),
        ("logdet", {}, [spd(2, n=4, dtype=dt)], tol),
        ("logdet", {}, [spd(n=2, dtype=dt)], tol),
        ("eigh", {}, [distinct_spectrum(n=4, dtype=dt)], dict(tol, keras=eigh_canonical)),
        ("eigh", {}, [distinct_spectrum(2, n=3, dtype=dt)], dict(tol, keras=eigh_canonical)),
        ("eig", {}, [normal(4, 4, dtype=dt)], dict(tol, keras=eig_canonical, grad=False)),
        ("eig", {}, [normal(2, 3, 3, dtype=dt)], dict(tol, keras=eig_canonical, grad=False)),
        ("eig", {}, [distinct_spectrum(n=3, dtype=dt)], dict(tol, keras=eig_canonical, grad=False)),
        ("lu_factor", {}, [normal(4, 4, dtype=dt)], dict(tol, grad=False)),
        ("lu_factor", {}, [normal(2, 3, 3, dtype=dt)], dict(tol, grad=False)),
        ("lu_factor", {}, [normal(3, 5, dtype=dt)], dict(tol, grad=False)),
        ("lu_factor", {}, [normal(5, 3, dtype=dt)], dict(tol, grad=False)),
        ("qr", {}, [normal(5, 3, dtype=dt)], tol),
        ("qr", {}, [normal(2, 4, 4, dtype=dt)], tol),
        ("qr", {}, [normal(3, 5, dtype=dt)], tol),
        ("qr", {"mode": "complete"}, [normal(3, 5, dtype=dt)], tol),
        ("qr", {"mode": "complete"}, [normal(5, 3, dtype=dt)], tol),
        ("qr", {"mode": "complete"}, [normal(2, 4, 2, dtype=dt)], tol),
        ("svd", {"full_matrices": False}, [separated_singular(m=5, n=3, dtype=dt)],
         dict(tol, keras=svd_canonical(False))),
        ("svd", {"full_matrices": False}, [separated_singular(2, m=3, n=5, dtype=dt)],
         dict(tol, keras=svd_canonical(False))),
        ("svd", {"full_matrices": False}, [separated_singular(m=4, n=4, dtype=dt)],
         dict(tol, keras=svd_canonical(False))),
        ("svd", {}, [separated_singular(m=5, n=3, dtype=dt)], dict(tol, keras=svd_canonical(True), grad=False)),
        ("svd", {}, [separated_singular(2, m=2, n=4, dtype=dt)], dict(tol, keras=svd_canonical(True), grad=False)),
        ("svd", {"compute_uv": False}, [separated_singular(2, m=4, n=3, dtype=dt)],
         dict(tol, keras=svd_canonical(True, False))),
        ("lstsq", {}, [normal(6, 3, dtype=dt), normal(6, dtype=dt)], tol),
        ("lstsq", {}, [normal(6, 3, dtype=dt), normal(6, 2, dtype=dt)], tol),
        ("lstsq", {}, [separated_singular(m=3, n=5, dtype=dt), normal(3, 2, dtype=dt)], tol),
        ("lstsq", {"rcond": 0.5}, [separated_singular(m=5, n=3, dtype=dt), normal(5, 2, dtype=dt)], tol),
        ("pinv", {}, [separated_singular(m=5, n=3, dtype=dt)], tol),
        ("pinv", {}, [separated_singular(2, m=3, n=4, dtype=dt)], tol),
        ("pinv", {}, [dominant(n=3, dtype=dt)], tol),
        ("pinv", {"rcond": 0.4}, [separated_singular(m=4, n=3, dtype=dt)], dict(tol, grad=False)),
        ("matrix_rank", {}, [normal(2, 4, 3, dtype=dt)]),
        ("matrix_rank", {"tol": 2.5}, [separated_singular(m=4, n=3, dtype=dt)]),
        ("norm", {}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"keepdims": True}, [normal(2, 3, 4, dtype=dt)], t32),
        ("norm", {"axis": -1}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": 1, "axis": 0, "keepdims": True}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": 3, "axis": 1}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": -1.5, "axis": 1}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": 0, "axis": -1}, [np.array([[0.0, 1.5, 0.0], [2.0, -1.0, 3.0]], dt)], t32),
        ("norm", {"ord": "inf", "axis": -1}, [normal(3, 4, dtype=dt)], dict(t32, keras=norm_inf(1, axis=-1))),
        ("norm", {"ord": "-inf", "axis": 0}, [normal(3, 4, dtype=dt)], dict(t32, keras=norm_inf(-1, axis=0))),
        ("norm", {"ord": "fro"}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": "fro", "axis": (0, 2)}, [normal(3, 2, 4, dtype=dt)], t32),
        ("norm", {"ord": "nuc"}, [separated_singular(m=3, n=4, dtype=dt)], t32),
        ("norm", {"ord": "nuc", "axis": (2, 0), "keepdims": True}, [normal(3, 2, 4, dtype=dt)], t32),
        ("norm", {"ord": 2, "axis": (-2, -1)}, [separated_singular(2, m=3, n=4, dtype=dt)], t32),
        ("norm", {"ord": -2}, [separated_singular(m=4, n=3, dtype=dt)], t32),
        ("norm", {"ord": 1}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": -1, "axis": (1, 0)}, [normal(3, 4, dtype=dt)], t32),
        ("norm", {"ord": "inf", "axis": (0, 1), "keepdims": True}, [normal(3, 4, dtype=dt)],
         dict(t32, keras=norm_inf(1, axis=(0, 1), keepdims=True))),
        ("norm", {"ord": "-inf"}, [normal(3, 4, dtype=dt)], dict(t32, keras=norm_inf(-1))),
        ("cdist", {}, [normal(4, 3, dtype=dt), normal(5, 3, dtype=dt)], tol),
        ("cdist", {}, [normal(2, 1, 4, 3, dtype=dt), normal(3, 5, 3, dtype=dt)], tol),
    ]
# exact values, integers, singular and permuted matrices
CASES += [
    ("det", {}, [np.array([[0.0, 1.0, 2.0, 3.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 1.0], [0.0, 0.0, 1.0, 2.0]],
                          "float32")]),
    ("det", {}, [np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]],
                          "float64")], NO_GRAD),
    ("det", {}, [np.array([[2, 1], [1, 3]], "int32")], {"keras": as_float32("det")}),
    ("slogdet", {}, [np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, -1.5]], "float64")]),
    ("slogdet", {}, [np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], "float64")], NO_GRAD),
    ("inv", {}, [np.array([[4, 7], [2, 6]], "int32")], {"keras": as_float32("inv")}),
    ("inv", {}, [np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [4.0, 0.0, 0.0]], "float64")]),
    ("solve", {}, [np.array([[2.0, 1.0], [1.0, 3.0]], "float32"), np.array([[3.0], [5.0]], "float64")]),
    ("solve", {}, [np.array([[3, 1], [1, 2]], "int32"), np.array([9, 8], "int32")], {"keras": as_float32("solve")}),
    ("lu_factor", {}, [np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 9.0]], "float64")], NO_GRAD),
    ("lu_factor", {}, [np.array([[1.0, 2.0], [2.0, 4.0]], "float32")], NO_GRAD),
    ("cholesky", {}, [np.array([[4.0, 2.0], [2.0, 5.0]], "float64")]),
    ("matrix_rank", {}, [np.array([[1.0, 2.0], [2.0, 4.0]], "float32")]),
    ("matrix_rank", {}, [np.array([[[1, 0, 0], [0, 1, 0], [1, 1, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]], "int32")]),
    ("pinv", {}, [np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32")]),
    ("pinv", {}, [np.array([[1.0, 2.0], [2.0, 4.0]], "float64")], NO_GRAD),
    ("norm", {}, [np.array([[-4, -3, -2], [-1, 0, 1], [2, 3, 4]], "int32")]),
    ("norm", {"ord": 2, "axis": 0}, [np.array([3, 4], "int64")]),
    ("cdist", {}, [np.array([[0.0, 0.0], [1.0, 1.0]], "float32"), np.array([[1.0, 0.0], [0.0, 1.0]], "float32")]),
    ("cdist", {}, [np.array([[0, 0], [3, 4]], "int32"), np.array([[1.0, 1.0]], "float64")]),
    ("qr", {}, [np.array([[3.0, 1.0], [4.0, 2.0]], "float64")]),
    ("eigh", {}, [np.array([[2.0, 1.0], [1.0, 2.0]], "float64")], {"keras": eigh_canonical}),
    ("eig", {}, [np.array([[0.0, -1.0], [1.0, 0.0]], "float64")], {"keras": eig_canonical, "grad": False}),
    ("lstsq", {}, [np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], "float64"), np.array([1.0, 2.0, 3.0], "float64")]),
]


def run(o):
    # float64 cases compute in float64 in JAX only with x64; integer cases say what
    # Keras's default (no x64) gives them through as_float32.
    jax.config.update("jax_enable_x64", True)
    op_cases.run_cases(o, CASES)
