#!/usr/bin/env python3
"""Reproduces the erf tail coefficients in framework/src/backend/cpu/vector_math.h.

For 1 <= x <= 4, erfc(x) exp(x^2) is smooth and slowly varying; the kernel
evaluates it as a degree-8 polynomial in t = 1/x and forms
erf(x) = 1 - exp(-x^2) g(t). The fit is least squares in relative error on
4000 Chebyshev-spaced points, done in double precision, and the coefficients
are rounded to float32. Prints them, then the worst erf error of the float32
evaluation on a fine grid.

    /usr/bin/python3 scripts/fit_erfc.py      (needs NumPy: python3-numpy)
"""
import math

import numpy as np


def main():
    xs = np.cos(np.linspace(0, np.pi, 4000)) * 1.5 + 2.5
    g = np.array([math.erfc(x) * math.exp(x * x) for x in xs])
    basis = np.vander(1 / xs, 9, increasing=True)
    coef, *_ = np.linalg.lstsq(basis / g[:, None], np.ones_like(g), rcond=None)
    coef = coef.astype(np.float32)
    print("tail =", ", ".join(f"{float(c)!r}f" for c in coef))
    x = np.linspace(1, 4, 20001).astype(np.float32)
    t = (1 / x).astype(np.float32)
    p = np.zeros_like(t)
    for c in coef[::-1]:
        p = (p * t + c).astype(np.float32)
    approx = (np.float32(1) - np.exp(-(x * x)).astype(np.float32) * p).astype(np.float32)
    exact = np.array([math.erf(float(v)) for v in x])
    print(f"worst |erf error| on [1, 4]: {np.max(np.abs(approx - exact)):.3g}")


if __name__ == "__main__":
    main()
