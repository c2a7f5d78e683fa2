// RandomFlip: one uniform draw per image; u <= 0.5 flips it (Keras's rule).
#include "kiln/layers/random_flip.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {
Tensor reversed(const Tensor& x, int axis) {
  const int64_t n = x.shape()[axis];
  std::vector<int32_t> rev(static_cast<std::size_t>(n));
  for (int64_t j = 0; j < n; ++j) rev[static_cast<std::size_t>(j)] = static_cast<int32_t>(n - 1 - j);
  return gather(x, Tensor(rev, Shape{n}), axis);
}
}  // namespace

RandomFlipImpl::RandomFlipImpl(std::string mode, RandomFlipOptions o)
    : RandomImageLayer(base_options(o)), mode_(std::move(mode)), o_(std::move(o)) {
  if (mode_ != "horizontal" && mode_ != "vertical" && mode_ != "horizontal_and_vertical")
    throw ValueError("RandomFlip: `mode` must be 'horizontal', 'vertical' or 'horizontal_and_vertical'. Received: mode=" + mode_);
  o_.data_format = check_data_format("RandomFlip", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomFlipImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) {
    const int64_t b = x.shape()[0];
    const Tensor flips = random::uniform({b, 1, 1, 1}, 0.0, 1.0, DType::float32, next_seed(o_.seed)) <= 0.5;
    if (mode_ != "vertical") x = where(flips, reversed(x, 2), x);
    if (mode_ != "horizontal") x = where(flips, reversed(x, 1), x);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomFlipImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomFlipImpl, "RandomFlip")

}  // namespace kiln::layers
