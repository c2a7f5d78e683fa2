// keras.ops.stft and istft, as Keras 3.15's JAX backend computes them (jax.scipy.signal's
// stft and istft with the window zero-padded to fft_length and Keras's rescaling), from
// differentiable ops: reflection padding and framing are gathers (their gradients scatter
// back), the transforms rfft and irfft, and overlap-add a sum of shifted frame pieces.
#include <algorithm>
#include <string>
#include <vector>

#include "core/check.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/fft_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/fft_util.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

Tensor index_tensor(const std::vector<int64_t>& idx, const Shape& shape) {
  return Tensor(idx, shape);
}

/// numpy.pad(x, pad, mode="reflect") along the last axis.
Tensor reflect_pad_last(const Tensor& x, int64_t pad) {
  const int64_t n = x.shape()[-1];
  if (pad == 0) return x;
  KILN_CHECK(n >= 1, ValueError, "stft: cannot reflect-pad an empty signal");
  std::vector<int64_t> idx(static_cast<std::size_t>(n + 2 * pad));
  const int64_t period = 2 * (n - 1);
  for (int64_t i = 0; i < n + 2 * pad; ++i) {
    int64_t j = 0;
    if (n > 1) {
      j = ((i - pad) % period + period) % period;
      if (j >= n) j = period - j;
    }
    idx[i] = j;
  }
  return gather(x, index_tensor(idx, Shape{n + 2 * pad}).to(x.device()), -1);
}

/// The window of `sequence_length` samples zero-padded to fft_length in the middle (ones for none).
Tensor padded_window(const Window& window, int64_t sequence_length, int64_t fft_length, DType dtype) {
  if (window.none) return ones({fft_length}, dtype);
  const int64_t l_pad = (fft_length - sequence_length) / 2, r_pad = fft_length - sequence_length - l_pad;
  Tensor w = get_window(window, sequence_length, true, dtype);
  return concat({zeros({l_pad}, dtype), w, zeros({r_pad}, dtype)}, 0);
}

/// frames (..., F, n) overlapped every `step` samples and summed: (..., step·(F − 1) + n).
Tensor overlap_add(const Tensor& frames, int64_t step) {
  const Shape& s = frames.shape();
  const int64_t f = s[-2], n = s[-1], pieces = (n + step - 1) / step;
  Tensor padded = fit_last_axis(frames, pieces * step);
  Shape split = s;
  split[-1] = pieces;
  split.push_back(step);
  padded = reshape(padded, split);  // (..., F, pieces, step)
  Tensor sum;
  for (int64_t j = 0; j < pieces; ++j) {
    Tensor piece = slice(padded, {ellipsis, j, Slice()});  // (..., F, step)
    Shape before = piece.shape(), after = piece.shape();
    before[-2] = j;
    after[-2] = pieces - 1 - j;
    std::vector<Tensor> parts;
    if (j > 0) parts.push_back(zeros(before, frames.dtype()).to(frames.device()));
    parts.push_back(piece);
    if (pieces - 1 - j > 0) parts.push_back(zeros(after, frames.dtype()).to(frames.device()));
    Tensor shifted = parts.size() == 1 ? piece : concat(parts, -2);
    sum = j == 0 ? shifted : sum + shifted;
  }
  Shape flat(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2));
  flat.push_back((f + pieces - 1) * step);
  return slice(reshape(sum, flat), {ellipsis, Slice(0, step * (f - 1) + n)});
}

/// The sum of the squared window over the frames, floored as jax.scipy.signal.istft does.
Tensor window_norm(const Tensor& win, int64_t frames, int64_t step, DType dtype) {
  std::vector<double> w = cast(win, DType::float64).to(Device::cpu()).to_vector<double>();
  const int64_t n = static_cast<int64_t>(w.size());
  std::vector<double> norm(static_cast<std::size_t>(step * (frames - 1) + n), 0.0);
  for (int64_t t = 0; t < frames; ++t)
    for (int64_t i = 0; i < n; ++i) norm[t * step + i] += w[i] * w[i];
  for (double& v : norm) v = v > 1e-10 ? v : 1.0;
  return cast(Tensor(norm, Shape{static_cast<int64_t>(norm.size())}), dtype);
}

void check_stft_args(const char* op, int64_t sequence_length, int64_t sequence_stride, int64_t fft_length) {
  KILN_CHECK(sequence_stride > 0, ValueError,
             op << ": `sequence_stride` must be a positive integer. Received: sequence_stride=" << sequence_stride);
  KILN_CHECK(sequence_length >= 1, ValueError,
             op << ": `sequence_length` must be a positive integer. Received: sequence_length=" << sequence_length);
  KILN_CHECK(fft_length >= sequence_length, ValueError,
             op << ": `fft_length` must equal or larger than `sequence_length`. Received: sequence_length="
                << sequence_length << ", fft_length=" << fft_length);
}

}  // namespace

Tensor extract_sequences(const Tensor& x, int64_t sequence_length, int64_t sequence_stride) {
  KILN_CHECK(sequence_length > 0 && sequence_stride > 0, ValueError,
             "extract_sequences: `sequence_length` and `sequence_stride` must be positive. Received: sequence_length="
                 << sequence_length << ", sequence_stride=" << sequence_stride);
  KILN_CHECK(x.shape().rank() >= 1 && x.shape()[-1] >= sequence_length, ValueError,
             "extract_sequences: the last axis of x must hold at least sequence_length=" << sequence_length
                 << " samples. Received: x.shape = " << x.shape().to_string());
  const int64_t frames = 1 + (x.shape()[-1] - sequence_length) / sequence_stride;
  std::vector<int64_t> idx(static_cast<std::size_t>(frames * sequence_length));
  for (int64_t t = 0; t < frames; ++t)
    for (int64_t j = 0; j < sequence_length; ++j) idx[t * sequence_length + j] = t * sequence_stride + j;
  return gather(x, index_tensor(idx, Shape{frames, sequence_length}).to(x.device()), -1);
}

ComplexPair stft(const Tensor& x, int64_t sequence_length, int64_t sequence_stride, int64_t fft_length,
                 const Window& window, bool center) {
  check_concrete("stft", x);
  check_stft_args("stft", sequence_length, sequence_stride, fft_length);
  KILN_CHECK(is_floating(x.dtype()), TypeError,
             "stft: Invalid input type. Expected `float32` or `float64`. Received: input type=" << dtype_name(x.dtype()));
  KILN_CHECK(x.shape().rank() >= 1, ValueError, "stft: Input should have rank >= 1. Received: input.shape = " << x.shape().to_string());
  KILN_CHECK(window.none || !window.values.empty() || window.name == "hann" || window.name == "hamming", ValueError,
             "stft: If a string is passed to `window`, it must be one of `\"hann\"`, `\"hamming\"`. Received: window="
                 << window.name);
  Tensor xp = center ? reflect_pad_last(x, fft_length / 2) : x;
  const int64_t len = xp.shape()[-1];
  KILN_CHECK(len >= fft_length, ValueError,
             "stft: the signal has " << len << " samples" << (center ? " after padding" : "")
                                     << ", fewer than fft_length=" << fft_length << ". Received: input.shape = "
                                     << x.shape().to_string());
  Tensor framed = extract_sequences(xp, fft_length, sequence_stride);
  Tensor win = padded_window(window, sequence_length, fft_length, x.dtype()).to(x.device());
  return rfft(framed * win, fft_length);
}

Tensor istft(const Tensor& real, const Tensor& imag, int64_t sequence_length, int64_t sequence_stride,
             int64_t fft_length, std::optional<int64_t> length, const Window& window, bool center) {
  check_complex_pair("istft", real, imag, 2);
  check_stft_args("istft", sequence_length, sequence_stride, fft_length);
  const int64_t frames = real.shape()[-2];
  KILN_CHECK(frames >= 1, ValueError, "istft: the input has no frames. Received: x[0].shape = " << real.shape().to_string());
  Tensor win = padded_window(window, sequence_length, fft_length, real.dtype());
  Tensor xsubs = irfft(real, imag, fft_length);  // (..., frames, fft_length)
  // jax.scipy.signal.istft scales by sum(window) and Keras divides it out again, or divides by
  // the stride when there is no window (whose sum is fft_length).
  if (window.none) xsubs = xsubs * (static_cast<double>(fft_length) / static_cast<double>(sequence_stride));
  Tensor x = overlap_add(xsubs * win.to(real.device()), sequence_stride);
  x = x / window_norm(win, frames, sequence_stride, real.dtype()).to(real.device());
  // Python's x[..., start:end].
  const int64_t total = x.shape()[-1], start = center ? fft_length / 2 : 0;
  int64_t end = total;
  if (length) end = start + *length;
  else if (center) end = total - fft_length / 2;
  end = std::clamp<int64_t>(end, 0, total);
  return slice(x, {ellipsis, Slice(std::min(start, total), std::max(end, std::min(start, total)))});
}

}  // namespace kiln
