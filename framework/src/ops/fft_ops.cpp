// keras.ops' Fourier transforms on (real, imag) pairs: fft, ifft, fft2, ifft2, rfft,
// irfft. One differentiable primitive, dft(), transforms along the last axis; the
// rest compose it with slicing, padding and transposes, so their gradients follow.
//
// dft's gradient: for Y = F·X with F[k][n] = e^(−2πi·kn/N) and a real loss, the
// gradient g_X (dL/dRe + i·dL/dIm) is F^H·g_Y = conj(F)·g_Y, the unnormalised inverse
// transform of g_Y (and the other way round for the inverse transform).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/check.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/fft_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/fft_util.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace ops {

void check_complex_pair(const char* op, const Tensor& re, const Tensor& im, int min_rank) {
  check_concrete(op, re);
  check_concrete(op, im);
  common_device(op, {re, im});
  KILN_CHECK(re.shape() == im.shape(), ValueError,
             op << ": Input `x` should be a tuple of two tensors - real and imaginary. Both the real and imaginary "
                   "parts should have the same shape. Received: x[0].shape = "
                << re.shape().to_string() << ", x[1].shape = " << im.shape().to_string());
  KILN_CHECK(is_floating(re.dtype()) && re.dtype() == im.dtype(), TypeError,
             op << ": the real and imaginary parts must be float32 or float64 tensors of one dtype, but received "
                << describe(re) << " and " << describe(im));
  KILN_CHECK(re.shape().rank() >= min_rank, ValueError,
             op << ": Input should have rank >= " << min_rank << ". Received: input.shape = " << re.shape().to_string());
}

ComplexPair dft(const Tensor& re, const Tensor& im, bool inverse) {
  Tensor yr, yi;
  if (be(re).has_fft(re.dtype())) {
    yr = Tensor::empty(re.shape(), re.dtype(), re.device());
    yi = Tensor::empty(re.shape(), re.dtype(), re.device());
    be(re).fft(re, im, inverse, yr, yi);
  } else {  // a device without an FFT kernel: the CPU's, on copies (the copies are not taped: the rule below is)
    autodiff::Pause pause;
    Tensor hr = re.to(Device::cpu()), hi = im.to(Device::cpu());
    Tensor cr = Tensor::empty(re.shape(), re.dtype(), Device::cpu());
    Tensor ci = Tensor::empty(re.shape(), re.dtype(), Device::cpu());
    be(hr).fft(hr, hi, inverse, cr, ci);
    yr = cr.to(re.device());
    yi = ci.to(re.device());
  }
  if (autodiff::active())
    autodiff::record(inverse ? "IFFT" : "FFT", {re, im}, {yr, yi}, [inverse](const Grads& dy, const Needs&) {
      auto [gr, gi] = dft(dy[0], dy[1], !inverse);
      return Grads{gr, gi};
    });
  return {yr, yi};
}

Tensor fit_last_axis(const Tensor& x, int64_t n) {
  const int64_t m = x.shape()[-1];
  if (m == n) return x;
  if (m > n) return slice(x, {ellipsis, Slice(0, n)});
  Shape pad = x.shape();
  pad[-1] = n - m;
  return concat({x, zeros(pad, x.dtype()).to(x.device())}, -1);
}

}  // namespace ops

ComplexPair fft(const Tensor& real, const Tensor& imag) {
  check_complex_pair("fft", real, imag, 1);
  return dft(real, imag, false);
}

ComplexPair ifft(const Tensor& real, const Tensor& imag) {
  check_complex_pair("ifft", real, imag, 1);
  auto [yr, yi] = dft(real, imag, true);
  const double n = static_cast<double>(std::max<int64_t>(real.shape()[-1], 1));
  return {yr / n, yi / n};
}

namespace {

/// The 1-D transform along the last axis and then along the one before it.
ComplexPair dft_last_two(const Tensor& re, const Tensor& im, bool inverse) {
  auto [ar, ai] = dft(re, im, inverse);
  std::vector<int> perm;
  for (int i = 0; i < re.shape().rank(); ++i) perm.push_back(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  auto [br, bi] = dft(transpose(ar, perm), transpose(ai, perm), inverse);
  return {transpose(br, perm), transpose(bi, perm)};
}

}  // namespace

ComplexPair fft2(const Tensor& real, const Tensor& imag) {
  check_complex_pair("fft2", real, imag, 2);
  return dft_last_two(real, imag, false);
}

ComplexPair ifft2(const Tensor& real, const Tensor& imag) {
  check_complex_pair("ifft2", real, imag, 2);
  auto [yr, yi] = dft_last_two(real, imag, true);
  const double n = static_cast<double>(std::max<int64_t>(real.shape()[-1] * real.shape()[-2], 1));
  return {yr / n, yi / n};
}

ComplexPair rfft(const Tensor& x, std::optional<int64_t> fft_length) {
  check_concrete("rfft", x);
  KILN_CHECK(x.shape().rank() >= 1, ValueError, "rfft: Input should have rank >= 1. Received: input.shape = " << x.shape().to_string());
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  const int64_t n = fft_length.value_or(x.shape()[-1]);
  KILN_CHECK(n >= 1, ValueError, "rfft: `fft_length` must be a positive integer. Received: fft_length=" << n);
  Tensor xn = fit_last_axis(xf, n);
  auto [yr, yi] = dft(xn, zeros_like(xn), false);
  const Index bins = Slice(0, n / 2 + 1);
  return {slice(yr, {ellipsis, bins}), slice(yi, {ellipsis, bins})};
}

Tensor irfft(const Tensor& real, const Tensor& imag, std::optional<int64_t> fft_length) {
  check_complex_pair("irfft", real, imag, 1);
  const int64_t n = fft_length.value_or(2 * (real.shape()[-1] - 1));
  KILN_CHECK(n >= 1, ValueError, "irfft: `fft_length` must be a positive integer. Received: fft_length=" << n);
  const int64_t bins = n / 2 + 1;
  Tensor re = fit_last_axis(real, bins), im = fit_last_axis(imag, bins);
  // The full spectrum of a real signal: X[n − k] = conj(X[k]) for k = 1 .. n − bins.
  const Index mirror = Slice(n - bins, 0, -1);
  Tensor full_re = concat({re, slice(re, {ellipsis, mirror})}, -1);
  Tensor full_im = concat({im, neg(slice(im, {ellipsis, mirror}))}, -1);
  return dft(full_re, full_im, true).first / static_cast<double>(n);
}

}  // namespace kiln
