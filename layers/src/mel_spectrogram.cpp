// MelSpectrogram (keras.layers.MelSpectrogram): stft → magnitude^mag_exp → mel filter bank
// → decibels, in Keras 3.15's order of operations. The filter bank is Keras's
// linear_to_mel_weight_matrix (TensorFlow's HTK-style triangles), computed on the host.
#include "kiln/layers/mel_spectrogram.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"
#include "spectrogram_config.h"

namespace kiln::layers {

using namespace detail;

namespace {
constexpr double kMelBreakFrequencyHertz = 700.0;
constexpr double kMelHighFrequencyQ = 1127.0;

double hertz_to_mel(double hz) { return kMelHighFrequencyQ * std::log(1.0 + hz / kMelBreakFrequencyHertz); }

/// numpy.linspace(start, stop, num)'s values.
std::vector<double> linspace_values(double start, double stop, int64_t num) {
  std::vector<double> v(static_cast<std::size_t>(std::max<int64_t>(num, 0)));
  const double step = num > 1 ? (stop - start) / static_cast<double>(num - 1) : 0.0;
  for (int64_t i = 0; i < num; ++i) v[i] = start + step * static_cast<double>(i);
  if (num > 1) v.back() = stop;
  return v;
}
}  // namespace

MelSpectrogramImpl::MelSpectrogramImpl(MelSpectrogramOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (!o_.sequence_length || *o_.sequence_length == 0) o_.sequence_length = o_.fft_length;  // Python's `or`
  if (o_.fft_length < *o_.sequence_length)
    throw ValueError("MelSpectrogram: `fft_length` must be greater than or equal to   `sequence_length`. Received: "
                     "`sequence_length`=" + std::to_string(*o_.sequence_length) +
                     ", `fft_length`=" + std::to_string(o_.fft_length) + ".");
  if (!o_.max_freq || *o_.max_freq == 0) o_.max_freq = static_cast<double>(o_.sampling_rate / 2);  // int(rate / 2)
  if (!o_.window.none && o_.window.values.empty()) get_window(o_.window, 1);  // an unknown name throws
  apply_input_shape(*this, o_);
}

Tensor MelSpectrogramImpl::linear_to_mel_weight_matrix(int64_t num_mel_bins, int64_t num_spectrogram_bins,
                                                       double sampling_rate, double lower_edge_hertz,
                                                       double upper_edge_hertz) {
  // Computed in float32, as Keras's default dtype does, step by step.
  const std::vector<double> freqs = linspace_values(0.0, static_cast<float>(sampling_rate) / 2.0f, num_spectrogram_bins);
  const std::vector<double> edges =
      linspace_values(static_cast<float>(hertz_to_mel(static_cast<float>(lower_edge_hertz))),
                      static_cast<float>(hertz_to_mel(static_cast<float>(upper_edge_hertz))), num_mel_bins + 2);
  std::vector<float> w(static_cast<std::size_t>(num_spectrogram_bins * num_mel_bins), 0.0f);
  for (int64_t b = 1; b < num_spectrogram_bins; ++b) {  // the zero-frequency row stays 0
    const float mel = static_cast<float>(hertz_to_mel(static_cast<float>(freqs[b])));
    for (int64_t m = 0; m < num_mel_bins; ++m) {
      const float lo = static_cast<float>(edges[m]), mid = static_cast<float>(edges[m + 1]),
                  hi = static_cast<float>(edges[m + 2]);
      const float lower = (mel - lo) / (mid - lo), upper = (hi - mel) / (hi - mid);
      w[b * num_mel_bins + m] = std::max(0.0f, std::min(lower, upper));
    }
  }
  return Tensor(w, Shape{num_spectrogram_bins, num_mel_bins});
}

Tensor MelSpectrogramImpl::call(const Tensor& input, bool) {
  const DType dt = dtype() == DType::float64 ? DType::float64 : DType::float32;
  Tensor x = cast(input, dt);
  auto [re, im] = stft(x, *o_.sequence_length, o_.sequence_stride, o_.fft_length, o_.window, true);
  Tensor spec = pow(sqrt(square(re) + square(im)), o_.mag_exp);  // (..., frames, bins)
  const int64_t bins = spec.shape()[-1];
  Tensor mel = cast(linear_to_mel_weight_matrix(o_.num_mel_bins, bins, static_cast<double>(o_.sampling_rate),
                                                o_.min_freq, *o_.max_freq),
                    dt)
                   .to(spec.device());
  Shape flat{-1, bins}, out = spec.shape();
  out[-1] = o_.num_mel_bins;
  Tensor y = reshape(matmul(reshape(spec, flat), mel), out);  // tensordot(spec, mel, axes=1)
  if (o_.power_to_db) {
    const double ln10 = std::log(10.0);
    Tensor log_spec = 10.0 * (log(maximum(y, scalar_like(o_.min_power, y))) / ln10);
    const double ref = std::max(std::abs(static_cast<float>(o_.ref_power)), static_cast<float>(o_.min_power));
    log_spec = log_spec - 10.0 * (std::log(ref) / ln10);
    y = maximum(log_spec, max(log_spec) - o_.top_db);  // the largest value of the whole batch, as Keras's
  }
  const int rank = static_cast<int>(y.shape().rank());
  std::vector<int> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return cast(transpose(y, perm), compute_dtype());
}

Shape MelSpectrogramImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 1 && s.rank() != 2)
    throw ValueError("MelSpectrogram: expected an input of rank 1 (samples,) or 2 (batch, samples), got " + s.to_string());
  const int64_t samples = s[-1];
  // stft's frames: centred, with fft_length / 2 samples reflected at each end. (Keras 3.15's own
  // compute_output_shape says (samples + stride + 1) // stride, one more when samples + 1 is a
  // multiple of the stride; its call gives this count.)
  const int64_t frames =
      samples < 0 ? -1 : 1 + (samples + 2 * (o_.fft_length / 2) - o_.fft_length) / o_.sequence_stride;
  if (s.rank() == 1) return Shape{o_.num_mel_bins, frames};
  return Shape{s[0], o_.num_mel_bins, frames};
}

Config MelSpectrogramImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(MelSpectrogramImpl, "MelSpectrogram")

}  // namespace kiln::layers
