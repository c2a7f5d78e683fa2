// The argument checks shared by keras.ops' convolutions and pools.
#include "ops/keras_conv_args.h"

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"

namespace kiln::ops::spatial {

namespace {
std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
}  // namespace

bool is_channels_first(const char* op, const std::string& data_format) {
  if (data_format == "channels_first") return true;
  if (data_format == "channels_last") return false;
  throw ValueError(std::string(op) +
                   ": The `data_format` argument must be one of {'channels_first', 'channels_last'}. Received: "
                   "data_format=" + data_format);
}

void check_padding(const char* op, const std::string& padding) {
  if (padding != "valid" && padding != "same")
    throw ValueError(std::string(op) + ": Invalid padding '" + padding + "', must be 'same' or 'valid'.");
}

int spatial_rank(const char* op, const Tensor& x) {
  if (x.rank() < 3 || x.rank() > 5)
    throw ShapeError(std::string(op) + ": expected inputs of rank 3, 4 or 5 (batch, spatial axes and channels), but "
                     "received inputs of shape " + x.shape().to_string());
  return static_cast<int>(x.rank()) - 2;
}

std::vector<int64_t> per_axis(const char* op, const char* what, const std::vector<int64_t>& v, int rank) {
  std::vector<int64_t> out = v.size() == 1 ? std::vector<int64_t>(static_cast<std::size_t>(rank), v[0]) : v;
  if (static_cast<int>(out.size()) != rank || std::any_of(out.begin(), out.end(), [](int64_t a) { return a <= 0; }))
    throw ValueError(std::string(op) + ": `" + what + "` must be one positive integer or " + std::to_string(rank) +
                     " of them (one per spatial axis), but received " + list_text(v));
  return out;
}

Tensor to_last(const Tensor& x) {
  std::vector<int> perm{0};
  for (int a = 2; a < x.rank(); ++a) perm.push_back(a);
  perm.push_back(1);
  return transpose(x, perm);
}

Tensor to_first(const Tensor& x) {
  std::vector<int> perm{0, static_cast<int>(x.rank()) - 1};
  for (int a = 1; a + 1 < x.rank(); ++a) perm.push_back(a);
  return transpose(x, perm);
}

int64_t window_output_length(int64_t in, int64_t kernel, const std::string& padding, int64_t stride,
                             int64_t dilation) {
  if (padding == "same") return (in + stride - 1) / stride;
  const int64_t span = (kernel - 1) * dilation + 1;
  return in < span ? 0 : (in - span) / stride + 1;
}

Tensor as_dtype(const Tensor& x, DType dtype) { return x.dtype() == dtype ? x : cast(x, dtype); }

void check_nonempty_output(const char* op, const Tensor& x, const Shape& window, const std::vector<int64_t>& strides,
                           const std::string& padding, const std::vector<int64_t>& dilation) {
  for (std::size_t i = 0; i < strides.size(); ++i) {
    const int64_t in = x.shape()[static_cast<int64_t>(i) + 1];
    if (window_output_length(in, window[static_cast<int64_t>(i)], padding, strides[i], dilation[i]) <= 0)
      throw ValueError(std::string(op) + ": the operation resulted in an empty output: spatial axis " +
                       std::to_string(i) + " of length " + std::to_string(in) + " is shorter than the window " +
                       window.to_string() + " (dilation " + list_text(dilation) + ") with padding '" + padding +
                       "'; input shape " + x.shape().to_string());
  }
}

}  // namespace kiln::ops::spatial
