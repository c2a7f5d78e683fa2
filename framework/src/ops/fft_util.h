#pragma once
// Private: the pieces fft_ops.cpp and stft_ops.cpp share.
#include <cstdint>

#include "kiln/ops/fft_ops.h"

namespace kiln::ops {

/// Throws unless (re, im) are concrete float tensors of one shape, dtype and device, of rank >= min_rank.
void check_complex_pair(const char* op, const Tensor& re, const Tensor& im, int min_rank);
/// The unnormalised complex transform along the last axis, forward or inverse, with its gradient.
ComplexPair dft(const Tensor& re, const Tensor& im, bool inverse);
/// x cropped, or padded with zeros at the end, to n entries along its last axis.
Tensor fit_last_axis(const Tensor& x, int64_t n);

}  // namespace kiln::ops
