// RandomGaussianBlur as Keras 3.15 computes it (random_gaussian_blur.py and the JAX
// backend's gaussian_blur).
#include "kiln/layers/random_gaussian_blur.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {
// _set_kernel_size: odd sizes (Keras's text); below 1 there is no kernel at all.
void check_kernel_size(const Size2& k) {
  const std::string given = k.first == k.second ? std::to_string(k.first)
                                                : "(" + std::to_string(k.first) + ", " + std::to_string(k.second) + ")";
  if (k.first % 2 == 0 || k.second % 2 == 0)
    throw ValueError("RandomGaussianBlur: kernel_size must be an odd number. Received: kernel_size=" + given);
  if (k.first < 1 || k.second < 1)
    throw ValueError("RandomGaussianBlur: kernel_size must be a positive odd number. Received: kernel_size=" + given);
}
}  // namespace

RandomGaussianBlurImpl::RandomGaussianBlurImpl(Factor factor, RandomGaussianBlurOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomGaussianBlur", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
  check_kernel_size(o_.kernel_size);
  const auto [s0, s1] = base_factor_range("RandomGaussianBlur", o_.sigma, 0.0, 1.0, "sigma");
  o_.sigma = Factor(s0, s1);
  if (o_.value_range.size() != 2)
    throw ValueError("RandomGaussianBlur: the `value_range` argument should be a list of two numbers. Received: value_range=" +
                     Config(o_.value_range).dump());
  o_.data_format = check_data_format("RandomGaussianBlur", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomGaussianBlurImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) {
    const int64_t batch = x.shape()[0];
    const auto seed_p = next_seed(o_.seed), seed_u = next_seed(o_.seed);
    const auto apply = apply_draws(batch, factor_.values[0], factor_.values[1], seed_p, seed_u);
    // Two sigmas for the whole batch: the first along the width, the second along the height.
    const auto sigma = uniform_draws(2, o_.sigma.values[0], o_.sigma.values[1], next_seed(o_.seed));
    const Tensor blurred = gaussian_blur(x, gaussian_kernel1d(o_.kernel_size.first, sigma[0] + 1e-6),
                                         gaussian_kernel1d(o_.kernel_size.second, sigma[1] + 1e-6));
    x = clip(where(per_image_mask(apply), blurred, x), o_.value_range[0], o_.value_range[1]);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomGaussianBlurImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomGaussianBlurImpl, "RandomGaussianBlur")

}  // namespace kiln::layers
