// The adaptive pooling layers: keras.ops.adaptive_average_pool / adaptive_max_pool.
#include "kiln/layers/adaptive_pooling.h"

#include "kiln/ops/keras_nn_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

AdaptivePoolingImpl::AdaptivePoolingImpl(int rank, bool is_max, std::vector<int> output_size, AdaptivePoolingOptions o)
    : Layer(base_options(o)), rank_(rank), is_max_(is_max), output_size_(std::move(output_size)), o_(std::move(o)) {
  const std::string cls = class_name();
  if (output_size_.size() == 1) output_size_.assign(static_cast<std::size_t>(rank_), output_size_[0]);
  bool ok = output_size_.size() == static_cast<std::size_t>(rank_);
  for (int v : output_size_) ok = ok && v > 0;
  if (!ok) throw ValueError(cls + ": `output_size` must be a positive int or " + std::to_string(rank_) + " positive ints");
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = rank_ + 2}});
}

std::string AdaptivePoolingImpl::class_name() const {
  return std::string(is_max_ ? "AdaptiveMaxPooling" : "AdaptiveAveragePooling") + std::to_string(rank_) + "D";
}

Tensor AdaptivePoolingImpl::call(const Tensor& input, bool) {
  const Tensor x = cast_input(input, compute_dtype());
  const std::vector<int64_t> sizes(output_size_.begin(), output_size_.end());
  return is_max_ ? ::kiln::adaptive_max_pool(x, sizes, o_.data_format) : ::kiln::adaptive_average_pool(x, sizes, o_.data_format);
}

Shape AdaptivePoolingImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != rank_ + 2)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank " + std::to_string(rank_ + 2) +
                     ", but received input with shape " + s.to_string());
  Shape out = s;
  const int first = o_.data_format == "channels_first" ? 2 : 1;
  for (int i = 0; i < rank_; ++i) out[first + i] = output_size_[static_cast<std::size_t>(i)];
  return out;
}

Config AdaptivePoolingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(AdaptiveAveragePooling1DImpl, "AdaptiveAveragePooling1D")
KILN_REGISTER_LAYER(AdaptiveAveragePooling2DImpl, "AdaptiveAveragePooling2D")
KILN_REGISTER_LAYER(AdaptiveAveragePooling3DImpl, "AdaptiveAveragePooling3D")
KILN_REGISTER_LAYER(AdaptiveMaxPooling1DImpl, "AdaptiveMaxPooling1D")
KILN_REGISTER_LAYER(AdaptiveMaxPooling2DImpl, "AdaptiveMaxPooling2D")
KILN_REGISTER_LAYER(AdaptiveMaxPooling3DImpl, "AdaptiveMaxPooling3D")

}  // namespace kiln::layers
