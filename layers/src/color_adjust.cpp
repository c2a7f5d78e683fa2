// AutoContrast and Equalization as Keras 3.15 computes them (auto_contrast.py,
// equalization.py on the JAX backend).
#include "kiln/layers/color_adjust.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "color_utils.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

// ---- AutoContrast ----
AutoContrastImpl::AutoContrastImpl(AutoContrastOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  check_color_value_range("AutoContrast", o_.value_range, /*sort=*/true);
  o_.data_format = check_data_format("AutoContrast", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor AutoContrastImpl::call(const Tensor& input, bool /*training*/) {
  const Tensor x = to_batch(input, o_.data_format);
  const double lo = o_.value_range[0], hi = o_.value_range[1];
  const Tensor y = transform_value_range(x, lo, hi, 0, 255);
  // Keras reduces over axes 1 and 2 of the batch as given, whatever data_format says:
  // H and W in channels_last, C and H (axes 3 and 1 here) in channels_first.
  const Axes axes = o_.data_format == "channels_first" ? Axes{1, 3} : Axes{1, 2};
  const Tensor low = min(y, axes, /*keepdims=*/true), high = max(y, axes, /*keepdims=*/true);
  const Tensor scale = 255.0 / (high - low);
  Tensor r = clip(y * scale + neg(low) * scale, 0.0, 255.0);
  r = transform_value_range(r, 0, 255, lo, hi);
  // A constant image (high == low) gives NaN, where the input is kept.
  r = where(isnan(r), x, r);
  return from_batch(r, input.rank(), o_.data_format);
}

Config AutoContrastImpl::get_config() const { return layer_config(*this); }

// ---- Equalization ----
EqualizationImpl::EqualizationImpl(EqualizationOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  check_color_value_range("Equalization", o_.value_range, /*sort=*/true);
  if (o_.bins < 1)
    throw ValueError("Equalization: the `bins` argument should be a positive integer. Received: bins=" +
                     std::to_string(o_.bins));
  o_.data_format = check_data_format("Equalization", o_.data_format);
  apply_input_shape(*this, o_);
}

namespace {

// XLA's float -> int32 conversion: truncation, saturating, NaN -> 0.
template <class T>
int64_t to_int32(T v) {
  if (std::isnan(v)) return 0;
  if (v >= T(2147483648.0)) return std::numeric_limits<int32_t>::max();
  if (v <= T(-2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

int64_t clamp_index(int64_t i, int64_t bins) { return i < 0 ? 0 : (i > bins - 1 ? bins - 1 : i); }

// Keras's reference values come from JAX on the CPU, where XLA divides as x · (1 / y); the
// bins and the table follow that, since a quotient on an exact half or an integer edge
// moves by one.
template <class T>
T xla_divide(T x, T y) {
  return x * (T(1) / y);
}

/// The histogram's look-up table: round(255 · (cdf - cdf_min) / (cdf[-1] - cdf_min)) in
/// [0, 255], with Keras's int32 cdf (which wraps past 2^31) and float32 division.
std::vector<float> equalization_table(const std::vector<int64_t>& hist) {
  std::vector<int32_t> cdf(hist.size());
  uint32_t run = 0;
  for (std::size_t i = 0; i < hist.size(); ++i) cdf[i] = static_cast<int32_t>(run += static_cast<uint32_t>(hist[i]));
  std::size_t first = 0;
  while (first < cdf.size() && cdf[first] <= 0) ++first;
  const int32_t cdf_min = first < cdf.size() ? cdf[first] : cdf[0];
  int32_t denominator = static_cast<int32_t>(static_cast<uint32_t>(cdf.back()) - static_cast<uint32_t>(cdf_min));
  if (denominator == 0) denominator = 1;
  std::vector<float> table(cdf.size());
  for (std::size_t i = 0; i < cdf.size(); ++i) {
    const auto numerator =
        static_cast<int32_t>((static_cast<uint32_t>(cdf[i]) - static_cast<uint32_t>(cdf_min)) * 255u);
    const float v = std::nearbyint(xla_divide(static_cast<float>(numerator), static_cast<float>(denominator)));
    table[i] = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
  }
  return table;
}

/// Each value's table entry, at index int32(clip(v / 255 · (bins - 1), 0, bins - 1))
/// computed in T (the layer's dtype).
template <class T>
std::vector<float> look_up(const std::vector<T>& values, const std::vector<float>& table) {
  const auto bins = static_cast<int64_t>(table.size());
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    T scaled = xla_divide(values[i], T(255)) * static_cast<T>(bins - 1);
    if (!std::isnan(scaled)) scaled = scaled < T(0) ? T(0) : (scaled > T(bins - 1) ? T(bins - 1) : scaled);
    out[i] = table[static_cast<std::size_t>(clamp_index(to_int32(scaled), bins))];
  }
  return out;
}

}  // namespace

Tensor EqualizationImpl::equalize_channel(const Tensor& channel) const {
  const double lo = o_.value_range[0], hi = o_.value_range[1];
  const double to_255 = 255.0 / (hi - lo);
  const Tensor scaled = channel * to_255 + (0.0 - lo * to_255);
  // The histogram is taken in float32 whatever the layer's dtype, as in Keras.
  const std::vector<float> values = scaled.cast(DType::float32).to_vector<float>();
  std::vector<int64_t> hist(static_cast<std::size_t>(o_.bins), 0);
  for (const float v : values)
    ++hist[static_cast<std::size_t>(
        clamp_index(to_int32(xla_divide((v - 0.0f) * static_cast<float>(o_.bins - 1), 255.0f)), o_.bins))];
  int64_t occupied = 0;
  for (const int64_t n : hist) occupied += n != 0;
  Tensor equalized = scaled;
  if (occupied > 1) {
    const std::vector<float> table = equalization_table(hist);
    const std::vector<float> out = scaled.dtype() == DType::float64 ? look_up(scaled.to_vector<double>(), table)
                                                                    : look_up(values, table);
    equalized = Tensor(out, channel.shape()).cast(channel.dtype()).to(channel.device());
  }
  const double from_255 = (hi - lo) / 255.0;
  return equalized * from_255 + (lo - 0.0 * from_255);
}

Tensor EqualizationImpl::call(const Tensor& input, bool training) {
  const Tensor x = to_batch(input, o_.data_format);
  if (!training) return from_batch(x, input.rank(), o_.data_format);
  const int64_t channels = x.shape()[3];
  std::vector<Tensor> planes = split(x, channels, 3);
  for (auto& p : planes) p = expand_dims(equalize_channel(squeeze(p, {3})), 3);
  return from_batch(concat(planes, 3), input.rank(), o_.data_format);
}

Config EqualizationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(AutoContrastImpl, "AutoContrast")
KILN_REGISTER_LAYER(EqualizationImpl, "Equalization")

}  // namespace kiln::layers
