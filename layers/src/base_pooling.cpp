// Max/average pooling layers over kiln::max_pool2d / kiln::avg_pool2d.
#include "kiln/layers/base_pooling.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "legacy_config.h"
#include "spatial_sizes.h"

namespace kiln::layers {

std::string pooling_class_name(int rank, bool is_max) {
  return std::string(is_max ? "MaxPooling" : "AveragePooling") + std::to_string(rank) + "D";
}

using namespace detail;

template <int N>
BasePoolingImpl<N>::BasePoolingImpl(Size pool_size, PoolingOptions<N> o, bool is_max)
    : Layer(base_options(o)), pool_size_(pool_size), o_(std::move(o)), is_max_(is_max) {
  // class_name() does not yet dispatch to the subclass here.
  const std::string cls = pooling_class_name(N, is_max);
  if (!all_positive(size_values(pool_size_)))
    throw ValueError(cls + ": `pool_size` must be positive, got " + size_text(pool_size_));
  const auto strides = size_values(o_.strides);
  if (std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) o_.strides = pool_size_;
  if (!all_positive(size_values(o_.strides)))
    throw ValueError(cls + ": `strides` must be positive, got " + size_text(o_.strides));
  o_.padding = check_padding(cls, o_.padding, {"valid", "same"});
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = N + 2}});
}

template <int N>
Tensor BasePoolingImpl<N>::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_input(input, compute_dtype());
  if (cf) x = transpose(x, to_channels_last(N + 2));
  Pool2DOptions po{size_2d(pool_size_), size_2d(o_.strides), o_.padding};
  if constexpr (N == 1) x = expand_dims(x, 1);
  Tensor y = is_max_ ? max_pool2d(x, po) : avg_pool2d(x, po);
  if constexpr (N == 1) y = squeeze(y, {1});
  if (cf) y = transpose(y, to_channels_first(N + 2));
  return y;
}

template <int N>
Shape BasePoolingImpl<N>::compute_output_shape(const Shape& s) {
  if (s.rank() != N + 2)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank " + std::to_string(N + 2) +
                     ", but received input with shape " + s.to_string());
  const bool cf = o_.data_format == "channels_first";
  const auto pool = size_values(pool_size_), strides = size_values(o_.strides);
  Shape out{s[0]};
  if (cf) out.push_back(s[1]);
  for (int i = 0; i < N; ++i) {
    const int64_t in = s[(cf ? 2 : 1) + i];
    const int64_t o = conv_output_length(in, pool[i], o_.padding, strides[i], 1);
    if (in >= 0 && o <= 0)
      throw ValueError("Layer '" + name() + "' (" + class_name() +
                       "): computed output size would be negative or zero. Received input shape " + s.to_string() +
                       " with pool_size " + size_text(pool_size_) + " and padding \"" + o_.padding + "\"");
    out.push_back(o);
  }
  if (!cf) out.push_back(s[N + 1]);
  return out;
}

template <int N>
Config BasePoolingImpl<N>::get_config() const {
  return layer_config(*this);
}

template <int N>
Config BasePoolingImpl<N>::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  const std::string cls = e["class_name"].get<std::string>();
  if constexpr (N == 1) {
    if (!c.contains("pool_length") && !c.contains("stride")) return e;
    Config n = c;
    if (!n.contains("pool_size") && c.contains("pool_length")) n["pool_size"] = c["pool_length"];
    if (!n.contains("strides") && c.contains("stride")) n["strides"] = c["stride"];
    n.erase("pool_length");
    n.erase("stride");
    return replace_entry(e, cls, n);
  } else {
    if (!c.contains("border_mode")) return e;
    Config n = keras1_base_config(c);
    n["pool_size"] = c.value("pool_size", Config::array({2, 2}));
    n["strides"] = c.value("strides", Config(nullptr));
    n["padding"] = c["border_mode"];
    n["data_format"] = keras1_data_format(c);
    return replace_entry(e, cls, n);
  }
}

template class BasePoolingImpl<1>;
template class BasePoolingImpl<2>;

}  // namespace kiln::layers
