// keras.ops' exponents and logarithms: exp2, log2, log10, logaddexp(2), cbrt,
// erfc and ldexp. Integer and bool inputs are taken as float32, as Keras's JAX
// backend does.
#include <cmath>
#include <limits>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

Tensor real_input(const char* op, const Tensor& x) {
  check_concrete(op, x);
  return floating_or_float32(x);
}

/// x with +inf replaced by 0 (JAX's _replace_inf in logaddexp's derivative).
Tensor posinf_to_zero(const Tensor& x) {
  return where(x == std::numeric_limits<double>::infinity(), zeros_like(x), x);
}

/// log(base^a + base^b) / log(base): jnp.logaddexp's formula, with its custom
/// derivative base^(a - out) (+inf read as 0), which gives 1/2 each where a == b.
Tensor log_add_base(const char* op, const Tensor& a, const Tensor& b, double base) {
  check_concrete(op, a);
  check_concrete(op, b);
  const auto promoted = keras_promote_pair_floating(a, b);
  const Tensor fa = promoted.first, fb = promoted.second;
  const double ln_base = std::log(base);
  Tensor out;
  {
    autodiff::Pause pause;  // the rule below replaces the formula's derivative
    Tensor delta = fa - fb;
    Tensor tail = log1p(exp(neg(abs(delta)) * ln_base)) * (1.0 / ln_base);
    out = where(isnan(delta), fa + fb, maximum(fa, fb) + tail);
  }
  if (autodiff::active())
    autodiff::record(op, {fa, fb}, {out}, [fa, fb, out, ln_base](const Grads& dy, const Needs& n) {
      Tensor o = posinf_to_zero(out);
      auto part = [&](const Tensor& x) { return dy[0] * exp((posinf_to_zero(x) - o) * ln_base); };
      return Grads{n[0] ? part(fa) : Tensor(), n[1] ? part(fb) : Tensor()};
    });
  return out;
}

}  // namespace

Tensor exp2(const Tensor& x) {
  Tensor xf = real_input("exp2", x);
  return pow(scalar_like(2.0, xf), xf);
}

Tensor log2(const Tensor& x) { return log(real_input("log2", x)) * (1.0 / std::log(2.0)); }
Tensor log10(const Tensor& x) { return log(real_input("log10", x)) * (1.0 / std::log(10.0)); }

Tensor logaddexp(const Tensor& a, const Tensor& b) { return log_add_base("logaddexp", a, b, M_E); }
Tensor logaddexp2(const Tensor& a, const Tensor& b) { return log_add_base("logaddexp2", a, b, 2.0); }

Tensor cbrt(const Tensor& x) {
  Tensor xf = real_input("cbrt", x);
  // The cube root of |x| with x's sign, mirrored through where (not a product
  // with sign(x)) so that the gradient keeps its value away from 0.
  Tensor neg_side = xf < 0.0;
  Tensor root = pow(where(neg_side, neg(xf), xf), 1.0 / 3.0);
  return where(neg_side, neg(root), root);
}

Tensor erfc(const Tensor& x) { return 1.0 - erf(real_input("erfc", x)); }

Tensor ldexp(const Tensor& a, const Tensor& b) {
  check_concrete("ldexp", a);
  check_concrete("ldexp", b);
  if (!is_integer(b.dtype()))
    throw TypeError("ldexp: the exponent must be an integer tensor, but received " + describe(b));
  Tensor af = floating_or_float32(a);
  // Two factors of 2^(b/2) so that a tiny a with a large b (or the reverse)
  // does not overflow or underflow on the way.
  Tensor half = floor_divide(b, scalar_like(2.0, b));
  Tensor e1 = cast(half, af.dtype()), e2 = cast(b - half, af.dtype());
  return af * pow(scalar_like(2.0, af), e1) * pow(scalar_like(2.0, af), e2);
}

}  // namespace kiln
