#pragma once
// STFTSpectrogram: the short-time Fourier transform of a 1-D signal as a strided
// convolution with fixed DFT kernels (keras.layers.STFTSpectrogram).
//   x: (batch, time, channels) -> (batch, frames, channels · bins)   (channels_last)
//   bins = fft_length / 2 + 1 (twice that in mode "stft")
//
//   L::STFTSpectrogram({.mode = "log", .frame_length = 256, .frame_step = 128, .fft_length = 512})(x);
//
// The kernels are the weights "real_kernel" and "imag_kernel" (frame_length, 1, bins), made by
// the STFT initializer (kiln::initializers::STFT), and train like any weight unless the layer
// is made with trainable = false. Every channel goes through the same kernels.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/ops/fft_ops.h"

namespace kiln::layers {

/// Options of STFTSpectrogram (Keras's constructor arguments, with its defaults).
struct STFTSpectrogramOptions {
  std::string mode = "log";  ///< "log", "magnitude", "psd", "real", "imag", "angle" or "stft".
  int64_t frame_length = 256;  ///< Samples in each frame (the kernels' length).
  std::optional<int64_t> frame_step;  ///< The hop between frames; none: frame_length / 2.
  std::optional<int64_t> fft_length;  ///< Frequency resolution; none: the power of two >= frame_length.
  Window window = Window("hann");  ///< A scipy.signal window name, its values, or none.
  bool periodic = false;  ///< The window is periodic rather than symmetric.
  std::optional<std::string> scaling = std::string("density");  ///< "density", "spectrum" or none.
  std::string padding = "valid";  ///< "valid" or "same".
  bool expand_dims = false;  ///< Keeps channels and bins as two axes (an image).
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(STFTSpectrogramOptions, mode, frame_length, frame_step, fft_length, window, periodic, scaling, padding,
              data_format, expand_dims)
};

/// The spectrogram of a 1-D signal computed as a convolution with trainable DFT kernels
/// (Keras's `STFTSpectrogram`). Users create it through the handle `kiln::layers::STFTSpectrogram({...})`.
class STFTSpectrogramImpl : public Layer {
 public:
  using Options = STFTSpectrogramOptions;  ///< The options struct the constructor takes.
  /// Checks the options with Keras's messages.
  explicit STFTSpectrogramImpl(STFTSpectrogramOptions options = {});
  std::string class_name() const override { return "STFTSpectrogram"; }
  Config get_config() const override;
  /// Keras's config; a null scaling or window means none.
  static std::shared_ptr<STFTSpectrogramImpl> from_config(const Config& config);
  KILN_ARGS(STFTSpectrogramImpl)
  const STFTSpectrogramOptions& options() const { return o_; }  ///< The options this layer was created with.
  void build(const Shape& input_shape) override;
  using Layer::build;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  int64_t frame_step() const { return step_; }  ///< The hop in use.
  int64_t fft_length() const { return fft_; }  ///< The FFT length in use.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Tensor apply_conv(const Tensor& x, const Tensor& kernel) const;
  Tensor adjust_shapes(const Tensor& y) const;

  STFTSpectrogramOptions o_;
  int64_t step_ = 0, fft_ = 0;
  Variable real_kernel_, imag_kernel_;
};

KILN_LAYER_HANDLE(STFTSpectrogram);

}  // namespace kiln::layers
