// Config plumbing shared by the built-in layers (see layer_utils.h).
#include "layer_utils.h"

#include <algorithm>
#include <cctype>

#include "kiln/ops/array_ops.h"
#include "ops/elementwise_promotion.h"

namespace kiln::layers::detail {

Tensor cast_input(const Tensor& x, DType layer_dtype) {
  if (is_floating(x.dtype()) && x.dtype() != layer_dtype) return cast(x, layer_dtype);
  return x;
}

std::vector<Tensor> merge_inputs(const std::vector<Tensor>& xs, DType layer_dtype) {
  std::vector<Tensor> cast_xs;
  for (const auto& x : xs) {
    if (x.dtype() == DType::string) return xs;
    cast_xs.push_back(cast_input(x, layer_dtype));
  }
  if (cast_xs.empty()) return cast_xs;
  DType joined = cast_xs[0].dtype();
  for (const auto& x : cast_xs) joined = ops::keras_result_type(joined, x.dtype());
  for (auto& x : cast_xs)
    if (x.dtype() != joined) x = cast(x, joined);
  return cast_xs;
}

std::optional<ops::NormGroups> trailing_norm_groups(const Shape& s, std::vector<int> axes, bool center) {
  std::sort(axes.begin(), axes.end());
  const int64_t r = s.rank();
  if (axes.empty() || r < 2 || axes.back() != r - 1 || axes.front() != r - static_cast<int64_t>(axes.size()) ||
      std::adjacent_find(axes.begin(), axes.end(), [](int a, int b) { return b != a + 1; }) != axes.end())
    return std::nullopt;
  ops::NormGroups g;
  g.batch = 1;
  g.per_group = 1;
  for (int64_t i = 0; i < r; ++i) (i < axes.front() ? g.batch : g.per_group) *= s[i];
  g.center = center;
  return g;
}

Tensor cast_to_compute(const Tensor& x, DType layer_dtype) {
  return x.dtype() == layer_dtype ? x : cast(x, layer_dtype);
}

Config size2_json(Size2 s) { return Config::array({s.first, s.second}); }

void add_declared_shape(const Layer& l, Config& c) {
  if (l.declared_input_shape) c["batch_input_shape"] = shape_to_json(*l.declared_input_shape);
}

int64_t conv_output_length(int64_t in, int64_t kernel, const std::string& padding, int64_t stride, int64_t dilation) {
  if (in < 0) return None;
  const int64_t dilated = (kernel - 1) * dilation + 1;
  int64_t out = in;
  if (padding == "valid") out = in - dilated + 1;
  else if (padding == "full") out = in + dilated - 1;
  // "same" and "causal" keep the length before striding.
  return out <= 0 ? out : (out + stride - 1) / stride;
}

std::string check_padding(const std::string& cls, std::string padding, std::initializer_list<const char*> allowed) {
  for (char& ch : padding) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string list;
  for (const char* a : allowed) {
    if (padding == a) return padding;
    list += std::string(list.empty() ? "" : ", ") + "\"" + a + "\"";
  }
  throw ValueError(cls + ": the `padding` argument must be one of " + list + ". Received: padding=\"" + padding + "\"");
}

std::string check_data_format(const std::string& cls, const std::string& data_format) {
  if (data_format.empty()) return "channels_last";
  if (data_format == "channels_last" || data_format == "channels_first") return data_format;
  throw ValueError(cls + ": the `data_format` argument must be one of \"channels_first\", \"channels_last\". Received: data_format=\"" +
                   data_format + "\"");
}

}  // namespace kiln::layers::detail
