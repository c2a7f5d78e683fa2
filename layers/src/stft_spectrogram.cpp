// STFTSpectrogram (keras.layers.STFTSpectrogram): each channel of the signal convolved
// with the DFT kernels "real_kernel" and "imag_kernel" (frame_length, 1, bins) at stride
// frame_step, then the mode's function of the two. The convolution runs as a conv2d of
// height 1 over the (batch · channels) rows, so the kernels train like any weight.
#include "kiln/layers/stft_spectrogram.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/nn/initializers.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "spectrogram_config.h"

namespace kiln::layers {

using namespace detail;

namespace {
constexpr double kKerasEpsilon = 1e-7;  // keras.backend.epsilon()

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}
}  // namespace

STFTSpectrogramImpl::STFTSpectrogramImpl(STFTSpectrogramOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  const std::string frame_length = std::to_string(o_.frame_length);
  if (o_.frame_step && (*o_.frame_step > o_.frame_length || *o_.frame_step < 1))
    throw ValueError("STFTSpectrogram: `frame_step` should be a positive integer not greater than `frame_length`. "
                     "Received frame_step=" + std::to_string(*o_.frame_step) + ", frame_length=" + frame_length);
  if (o_.fft_length && *o_.fft_length < o_.frame_length)
    throw ValueError("STFTSpectrogram: `fft_length` should be not less than `frame_length`. Received fft_length=" +
                     std::to_string(*o_.fft_length) + ", frame_length=" + frame_length);
  static const char* modes[] = {"log", "magnitude", "psd", "real", "imag", "angle", "stft"};
  if (std::find(std::begin(modes), std::end(modes), o_.mode) == std::end(modes))
    throw ValueError("STFTSpectrogram: Output mode is invalid, it must be one of log, magnitude, psd, real, imag, angle, "
                     "stft. Received: mode=" + o_.mode);
  if (o_.scaling && *o_.scaling != "density" && *o_.scaling != "spectrum")
    throw ValueError("STFTSpectrogram: Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received scaling=" +
                     *o_.scaling);
  if (o_.padding != "valid" && o_.padding != "same")
    throw ValueError("STFTSpectrogram: Padding is invalid, it should be 'valid', 'same'. Received: padding=" + o_.padding);
  if (!o_.window.none && o_.window.values.empty()) get_window(o_.window, 1);  // an unknown name throws
  o_.data_format = check_data_format("STFTSpectrogram", o_.data_format);
  // Keras only warns for an fft_length that is not a power of two.
  step_ = o_.frame_step.value_or(o_.frame_length / 2);
  fft_ = o_.fft_length.value_or(next_power_of_two(o_.frame_length));
  set_input_spec({InputSpec{.ndim = 3}});
  apply_input_shape(*this, o_);
}

std::shared_ptr<STFTSpectrogramImpl> STFTSpectrogramImpl::from_config(const Config& config) {
  auto layer = layer_from_fields<STFTSpectrogramImpl>("STFTSpectrogram", config);
  if (config.contains("scaling") && config["scaling"].is_null()) layer->o_.scaling.reset();  // None: no scaling
  return layer;
}

void STFTSpectrogramImpl::build(const Shape&) {
  const Shape shape{o_.frame_length, 1, fft_ / 2 + 1};
  if (o_.mode != "imag")
    real_kernel_ = add_weight("real_kernel", shape,
                              {.initializer = initializers::STFT("real", o_.window, o_.scaling, o_.periodic)});
  if (o_.mode != "real")
    imag_kernel_ = add_weight("imag_kernel", shape,
                              {.initializer = initializers::STFT("imag", o_.window, o_.scaling, o_.periodic)});
}

Tensor STFTSpectrogramImpl::apply_conv(const Tensor& x, const Tensor& kernel) const {
  // (batch, time, channels) or (batch, channels, time) -> one row per (batch, channel).
  const bool last = o_.data_format == "channels_last";
  Tensor rows = last ? transpose(x, {0, 2, 1}) : x;
  const int64_t batch = rows.shape()[0], channels = rows.shape()[1], time = rows.shape()[2];
  rows = reshape(rows, {batch * channels, 1, time, 1});
  Tensor k = cast(kernel, x.dtype());
  k = reshape(k, {1, o_.frame_length, 1, k.shape()[2]});
  Tensor y = conv2d(rows, k, {.strides = {1, static_cast<int>(step_)}, .padding = o_.padding});  // (B·C, 1, T', F)
  const int64_t frames = y.shape()[2], bins = y.shape()[3];
  return reshape(transpose(reshape(y, {batch * channels, frames, bins}), {0, 2, 1}), {batch, channels, bins, frames});
}

Tensor STFTSpectrogramImpl::adjust_shapes(const Tensor& y) const {
  // y: (batch, channels, bins, frames).
  const int64_t batch = y.shape()[0], channels = y.shape()[1], bins = y.shape()[2], frames = y.shape()[3];
  if (o_.data_format == "channels_last") {
    if (o_.expand_dims) return transpose(y, {0, 3, 2, 1});  // (batch, frames, bins, channels)
    return transpose(reshape(y, {batch, channels * bins, frames}), {0, 2, 1});
  }
  if (o_.expand_dims) return transpose(y, {0, 1, 3, 2});  // (batch, channels, frames, bins)
  return reshape(y, {batch, channels * bins, frames});
}

Tensor STFTSpectrogramImpl::call(const Tensor& input, bool) {
  if (!is_floating(input.dtype()))
    throw TypeError("STFTSpectrogram: Invalid input type. Expected `float16`, `float32` or `float64`. Received: input type=" +
                    dtype_name(input.dtype()));
  Tensor x = cast_input(input, compute_dtype());
  Tensor re, im;
  if (o_.mode != "imag") re = apply_conv(x, real_kernel_.value());
  if (o_.mode != "real") im = apply_conv(x, imag_kernel_.value());
  if (o_.mode == "real") return adjust_shapes(re);
  if (o_.mode == "imag") return adjust_shapes(im);
  if (o_.mode == "angle") return adjust_shapes(arctan2(im, re));
  if (o_.mode == "stft") return adjust_shapes(concat({re, im}, 2));
  Tensor power = square(re) + square(im);
  if (o_.mode == "psd") {
    // The one-sided power: every bin but the first and the last counts twice.
    const int64_t bins = power.shape()[2];
    Tensor inner = slice(power, {Slice(), Slice(), Slice(1, bins - 1), Slice()});
    Shape edge = inner.shape();
    edge[2] = 1;
    Tensor zero = zeros(edge, power.dtype()).to(power.device());
    return adjust_shapes(power + concat({zero, inner, zero}, 2));
  }
  Tensor linear = adjust_shapes(sqrt(maximum(power, scalar_like(kKerasEpsilon, power))));
  if (o_.mode == "magnitude") return linear;
  return log(maximum(linear, scalar_like(kKerasEpsilon, linear)));
}

Shape STFTSpectrogramImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 3)
    throw ValueError("STFTSpectrogram: expected an input of rank 3 (batch, time, channels), got " + s.to_string());
  const bool last = o_.data_format == "channels_last";
  const int64_t channels = last ? s[2] : s[1], time = last ? s[1] : s[2];
  int64_t bins = fft_ / 2 + 1;
  if (o_.mode == "stft") bins *= 2;
  const int64_t frames = conv_output_length(time, o_.frame_length, o_.padding, step_, 1);
  const int64_t features = channels < 0 ? -1 : channels * bins;
  if (o_.expand_dims) return last ? Shape{s[0], frames, bins, channels} : Shape{s[0], channels, frames, bins};
  return last ? Shape{s[0], frames, features} : Shape{s[0], features, frames};
}

Config STFTSpectrogramImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(STFTSpectrogramImpl, "STFTSpectrogram")

}  // namespace kiln::layers
