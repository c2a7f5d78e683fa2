// depth_to_space and space_to_depth (kiln/ops/shape_ops.h): a reshape, a
// transpose and a reshape, in Keras's JAX backend's order of the block axes.
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

bool pixel_shuffle_channels_last(const char* op, const Tensor& x, int64_t block_size, const std::string& data_format) {
  if (block_size < 2)
    throw ValueError(std::string(op) + ": `block_size` must be at least 2. Received: block_size=" +
                     std::to_string(block_size));
  if (data_format != "channels_last" && data_format != "channels_first")
    throw ValueError(std::string(op) + ": data_format must be 'channels_last' or 'channels_first', but received '" +
                     data_format + "'");
  if (x.rank() != 4)
    throw ValueError(std::string(op) + ": `" + op + "` requires a 4D input tensor. Received: x.shape=" +
                     x.shape().to_string());
  return data_format == "channels_last";
}

}  // namespace

Tensor depth_to_space(const Tensor& x, int64_t block_size, const std::string& data_format) {
  const bool last = pixel_shuffle_channels_last("depth_to_space", x, block_size, data_format);
  const auto& d = x.shape().dims();
  const int64_t b = block_size, n = d[0], c = last ? d[3] : d[1], h = last ? d[1] : d[2], w = last ? d[2] : d[3];
  if (c % (b * b) != 0)
    throw ValueError("depth_to_space: Channels (" + std::to_string(c) + ") must be divisible by block_size**2 (" +
                     std::to_string(b * b) + "). Received: x.shape=" + x.shape().to_string());
  const int64_t nc = c / (b * b);
  if (last)
    return reshape(transpose(reshape(x, Shape({n, h, w, b, b, nc})), {0, 1, 3, 2, 4, 5}), Shape({n, h * b, w * b, nc}));
  return reshape(transpose(reshape(x, Shape({n, nc, b, b, h, w})), {0, 1, 4, 2, 5, 3}), Shape({n, nc, h * b, w * b}));
}

Tensor space_to_depth(const Tensor& x, int64_t block_size, const std::string& data_format) {
  const bool last = pixel_shuffle_channels_last("space_to_depth", x, block_size, data_format);
  const auto& d = x.shape().dims();
  const int64_t b = block_size, n = d[0], c = last ? d[3] : d[1], h = last ? d[1] : d[2], w = last ? d[2] : d[3];
  if (h % b != 0)
    throw ValueError("space_to_depth: Height (" + std::to_string(h) + ") must be divisible by block_size (" +
                     std::to_string(b) + ").");
  if (w % b != 0)
    throw ValueError("space_to_depth: Width (" + std::to_string(w) + ") must be divisible by block_size (" +
                     std::to_string(b) + ").");
  if (last)
    return reshape(transpose(reshape(x, Shape({n, h / b, b, w / b, b, c})), {0, 1, 3, 2, 4, 5}),
                   Shape({n, h / b, w / b, c * b * b}));
  return reshape(transpose(reshape(x, Shape({n, c, h / b, b, w / b, b})), {0, 1, 3, 5, 2, 4}),
                 Shape({n, c * b * b, h / b, w / b}));
}

}  // namespace kiln
