#pragma once
// Fourier transforms with keras.ops' names and semantics (keras.ops.fft, fft2, ifft2,
// rfft, irfft, stft, istft). A complex tensor is a pair of real tensors, its real and
// imaginary parts, as Keras passes and returns them:
//
//   auto [re, im] = kiln::rfft(x);                 // x (..., n) -> (..., n/2 + 1) twice
//   Tensor back = kiln::irfft(re, im, n);          // (..., n)
//   auto [sr, si] = kiln::stft(x, 256, 128, 256);  // (..., frames, 129) twice
//
// Transforms run along the last axis (fft2 and ifft2: the last two), unnormalised forward
// and 1/n inverse (NumPy's norm="backward"), in float32 or float64. Each is differentiable.
// The CPU backend computes them with FFTW.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// A complex tensor as its real and imaginary parts, both of one shape and dtype.
using ComplexPair = std::pair<Tensor, Tensor>;

/// A window function, as keras.ops.stft and the STFT layers take one: a name of a
/// scipy.signal window ("hann", "hamming", "blackman", "bartlett", "boxcar", "triang",
/// "cosine", "nuttall", "blackmanharris", "flattop"), explicit
/// values, or none (Python's None: no windowing).
struct Window {
  Window() : name("hann") {}
  Window(const char* window_name) : name(window_name) {}  ///< A scipy.signal window name.
  Window(std::string window_name) : name(std::move(window_name)) {}  ///< A scipy.signal window name.
  Window(std::vector<double> window_values) : values(std::move(window_values)) {}  ///< Explicit values.
  Window(std::nullopt_t) : none(true) {}  ///< No window (Python's None).
  bool operator==(const Window&) const = default;  ///< Same name, values and none flag.

  std::string name;            ///< The window's name, or empty for values or none.
  std::vector<double> values;  ///< Explicit values when `name` is empty and `none` is false.
  bool none = false;           ///< No windowing (rectangular).
};

/// scipy.signal.get_window(window, length, fftbins=periodic): the named window of
/// `length` samples, periodic (for spectral analysis, scipy's default) or symmetric.
/// Explicit values are returned as they are (their length must be `length`); none gives ones.
/// Throws ValueError for an unknown name.
Tensor get_window(const Window& window, int64_t length, bool periodic = true, DType dtype = DType::float32);
/// keras.ops.kaiser (numpy.kaiser): the symmetric Kaiser window of x samples,
/// I0(beta·sqrt(1 − (2n / (x − 1) − 1)²)) / I0(beta), as float32.
Tensor kaiser(int64_t x, double beta);

/// keras.ops.fft: the discrete Fourier transform of (real, imag) along the last axis.
ComplexPair fft(const Tensor& real, const Tensor& imag);
/// The inverse discrete Fourier transform along the last axis, scaled by 1/n (numpy.fft.ifft).
ComplexPair ifft(const Tensor& real, const Tensor& imag);
/// keras.ops.fft2: the 2-D transform over the last two axes.
ComplexPair fft2(const Tensor& real, const Tensor& imag);
/// keras.ops.ifft2: the 2-D inverse over the last two axes, scaled by 1/(m·n).
ComplexPair ifft2(const Tensor& real, const Tensor& imag);
/// keras.ops.rfft: the transform of a real signal along the last axis, cropped or
/// zero-padded to `fft_length` (default: the axis' size) first; its fft_length/2 + 1
/// non-negative frequencies.
ComplexPair rfft(const Tensor& x, std::optional<int64_t> fft_length = std::nullopt);
/// keras.ops.irfft: the real signal of `fft_length` samples (default 2·(m − 1) for m
/// bins) whose rfft is (real, imag), the bins cropped or zero-padded to fft_length/2 + 1.
/// The imaginary parts of the zero (and, for an even length, the Nyquist) bin are ignored.
Tensor irfft(const Tensor& real, const Tensor& imag, std::optional<int64_t> fft_length = std::nullopt);
/// keras.ops.extract_sequences: the frames of `sequence_length` samples every
/// `sequence_stride` along the last axis: x (..., n) -> (..., 1 + (n − sequence_length) /
/// sequence_stride, sequence_length). stft frames its signal with it.
Tensor extract_sequences(const Tensor& x, int64_t sequence_length, int64_t sequence_stride);
/// keras.ops.stft: frames of `fft_length` samples every `sequence_stride`, each multiplied by
/// the periodic window of `sequence_length` samples centred in it, then rfft. `center` pads
/// fft_length/2 samples by reflection at both ends first. x (..., n), float32 or float64 ->
/// (..., frames, fft_length/2 + 1) twice.
ComplexPair stft(const Tensor& x, int64_t sequence_length, int64_t sequence_stride, int64_t fft_length,
                 const Window& window = Window("hann"), bool center = true);
/// keras.ops.istft: the inverse of stft with the same arguments, by windowed overlap-add;
/// `length` crops or pads the result to that many samples.
Tensor istft(const Tensor& real, const Tensor& imag, int64_t sequence_length, int64_t sequence_stride,
             int64_t fft_length, std::optional<int64_t> length = std::nullopt, const Window& window = Window("hann"),
             bool center = true);

}  // namespace kiln
