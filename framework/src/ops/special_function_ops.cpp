// keras.ops.erfinv and keras.ops.i0, composed from Kiln's primitives.
#include <cmath>
#include <limits>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

namespace {

/// Horner's rule: c[0] + w (c[1] + w (...)), the coefficients listed highest first.
template <std::size_t N>
Tensor horner(const Tensor& w, const double (&highest_first)[N]) {
  Tensor p = zeros_like(w) + highest_first[0];
  for (std::size_t i = 1; i < N; ++i) p = p * w + highest_first[i];
  return p;
}

/// Giles' single-precision erfinv ("Approximating the erfinv function", GPU
/// Computing Gems, 2011), the polynomial XLA evaluates for float32.
Tensor erfinv_giles(const Tensor& x) {
  static constexpr double central[] = {2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
                                       -4.39150654e-06, 0.00021858087,  -0.00125372503,
                                       -0.00417768164,  0.246640727,    1.50140941};
  static constexpr double tail[] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                    -0.00367342844,  0.00573950773,  -0.0076224613,
                                    0.00943887047,   1.00167406,     2.83297682};
  Tensor w = neg(log((1.0 - x) * (1.0 + x)));
  Tensor is_central = w < 5.0;
  Tensor wc = where(is_central, w, zeros_like(w) + 2.5) - 2.5;
  Tensor wt = sqrt(where(is_central, zeros_like(w) + 9.0, w)) - 3.0;
  return where(is_central, horner(wc, central), horner(wt, tail)) * x;
}

}  // namespace

Tensor erfinv(const Tensor& x) {
  check_concrete("erfinv", x);
  Tensor xf = floating_or_float32(x);
  Tensor y;
  {
    autodiff::Pause pause;  // the rule below is the exact derivative
    y = erfinv_giles(xf);
    if (xf.dtype() == DType::float64) {
      // Two Newton steps on erf(y) = x take Giles' float32 accuracy to float64's.
      const double scale = std::sqrt(M_PI) / 2.0;
      for (int step = 0; step < 2; ++step) {
        Tensor fin = abs(y) < 6.0;
        Tensor ys = where(fin, y, zeros_like(y));
        y = where(fin, y - (erf(ys) - xf) * scale * exp(square(ys)), y);
      }
    }
    const double inf = std::numeric_limits<double>::infinity();
    y = where(abs(xf) == 1.0, xf * inf, y);
  }
  if (autodiff::active())
    autodiff::record("Erfinv", {xf}, {y}, [y](const Grads& dy, const Needs&) {
      return Grads{dy[0] * exp(square(y)) * (std::sqrt(M_PI) / 2.0)};
    });
  return y;
}

Tensor i0(const Tensor& x) {
  KILN_HALF_IN_FLOAT32(i0, x);
  check_concrete("i0", x);
  const bool wide = x.dtype() == DType::float64 || x.dtype() == DType::int64;
  const DType out_dtype = wide ? DType::float64 : DType::float32;
  // Evaluated in float64: the power series sum (x²/4)^k / (k!)² up to |x| = 15,
  // and past it the asymptotic e^x / sqrt(2 pi x) * sum c_k / x^k with
  // c_k = c_{k-1} (2k - 1)² / (8k). Each branch reads a safe input where the
  // other is taken, so the gradient (i1) of neither turns into NaN.
  Tensor a = abs(cast(x, DType::float64));
  Tensor near = a <= 15.0;
  Tensor xs = where(near, a, zeros_like(a));
  Tensor q = square(xs) * 0.25;
  Tensor term = ones_like(q), series = ones_like(q);
  for (int k = 1; k <= 40; ++k) {
    term = term * q * (1.0 / (static_cast<double>(k) * k));
    series = series + term;
  }
  Tensor xa = where(near, zeros_like(a) + 16.0, a);
  Tensor inv = 1.0 / xa;
  Tensor c_term = ones_like(xa), asym = ones_like(xa);
  for (int k = 1; k <= 20; ++k) {
    c_term = c_term * inv * ((2.0 * k - 1.0) * (2.0 * k - 1.0) / (8.0 * k));
    asym = asym + c_term;
  }
  Tensor large = exp(xa) / sqrt(xa * (2.0 * M_PI)) * asym;
  return cast(where(near, series, large), out_dtype);
}

}  // namespace kiln
