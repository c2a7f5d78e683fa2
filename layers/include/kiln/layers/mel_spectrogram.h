#pragma once
// MelSpectrogram: the mel-scaled power spectrogram of audio signals, in decibels by
// default (keras.layers.MelSpectrogram).
//   x: (batch, samples) or (samples,) -> (batch, num_mel_bins, frames) or (num_mel_bins, frames)
//   frames = 1 + (samples + 2·(fft_length / 2) − fft_length) / sequence_stride
//
//   L::MelSpectrogram({.fft_length = 2048, .sequence_stride = 256, .sampling_rate = 8000, .num_mel_bins = 64})(x);
//
// stft (centred, reflection-padded) → |·|^mag_exp → the HTK mel filter bank of
// linear_to_mel_weight_matrix → 10·log10(max(S, min_power) / max(ref_power, min_power)),
// floored at top_db below the largest value of the whole batch (when power_to_db).
// No weights; differentiable.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/ops/fft_ops.h"

namespace kiln::layers {

/// Options of MelSpectrogram (Keras's constructor arguments, with its defaults).
struct MelSpectrogramOptions {
  int64_t fft_length = 2048;  ///< Size of the FFT (and of each frame).
  int64_t sequence_stride = 512;  ///< Samples between frames.
  std::optional<int64_t> sequence_length;  ///< The window's length; none: fft_length.
  Window window = Window("hann");  ///< "hann", "hamming", explicit values, or none.
  int64_t sampling_rate = 16000;  ///< Samples per second.
  int64_t num_mel_bins = 128;  ///< Mel bands.
  double min_freq = 20.0;  ///< Lower edge of the lowest band, in Hz.
  std::optional<double> max_freq;  ///< Upper edge of the highest band; none: sampling_rate / 2.
  bool power_to_db = true;  ///< Convert to decibels.
  double top_db = 80.0;  ///< The floor, below the largest value, in dB.
  double mag_exp = 2.0;  ///< Exponent of the magnitude (2: power).
  double min_power = 1e-10;  ///< Floor of the power and of ref_power.
  double ref_power = 1.0;  ///< The power of 0 dB.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(MelSpectrogramOptions, fft_length, sequence_stride, sequence_length, window, sampling_rate, num_mel_bins,
              min_freq, max_freq, power_to_db, top_db, mag_exp, min_power, ref_power)
};

/// Audio signals to mel spectrograms (Keras's `MelSpectrogram`). Users create it through the
/// handle `kiln::layers::MelSpectrogram({...})`.
class MelSpectrogramImpl : public Layer {
 public:
  using Options = MelSpectrogramOptions;  ///< The options struct the constructor takes.
  /// Checks the options with Keras's messages; resolves sequence_length and max_freq as Keras does.
  explicit MelSpectrogramImpl(MelSpectrogramOptions options = {});
  std::string class_name() const override { return "MelSpectrogram"; }
  Config get_config() const override;
  KILN_ARGS(MelSpectrogramImpl)
  const MelSpectrogramOptions& options() const { return o_; }  ///< The options, sequence_length and max_freq resolved.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// Keras's linear_to_mel_weight_matrix: (num_spectrogram_bins, num_mel_bins) triangles of
  /// peak 1 on the HTK mel scale between lower_edge_hertz and upper_edge_hertz (float32).
  static Tensor linear_to_mel_weight_matrix(int64_t num_mel_bins, int64_t num_spectrogram_bins, double sampling_rate,
                                            double lower_edge_hertz, double upper_edge_hertz);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  MelSpectrogramOptions o_;
};

KILN_LAYER_HANDLE(MelSpectrogram);

}  // namespace kiln::layers
