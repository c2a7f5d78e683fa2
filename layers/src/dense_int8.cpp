// Dense quantized to int8 (Keras's Dense.quantize("int8") and _int8_call).
#include <memory>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/layers/dense.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::layers {

namespace {

/// The kernel's int8 values and its (units,) scales: Keras's AbsMaxQuantizer over
/// the input axis, so each unit's column has its own scale.
std::pair<Tensor, Tensor> quantize_kernel(const Tensor& kernel, const quantizers::QuantizationConfig& config) {
  auto [q, scale] = quantizers::abs_max_quantize(kernel, 0, config.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{}));
  return {q, squeeze(scale, {0})};
}

}  // namespace

void DenseImpl::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config) {
  const DTypePolicy policy = quantizers::check_quantize_args(*this, mode);
  const quantizers::QuantizationConfig c = config.value_or(quantizers::QuantizationConfig{});
  auto [q, scale] = quantize_kernel(kernel_.read_value_untracked(), c);
  // Keras deletes the float kernel and builds the int8 one and its scale after the bias.
  remove_weight(kernel_);
  kernel_ = add_weight("kernel", q.shape(), {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  kernel_scale_ = add_weight("kernel_scale", scale.shape(), {.initializer = "ones", .trainable = false});
  kernel_.assign(q);
  kernel_scale_.assign(scale.cast(kernel_scale_.dtype()));
  o_.quantization_config = c;
  set_dtype_policy(policy);
}

Tensor DenseImpl::int8_matmul(const Tensor& x) const {
  const Tensor kernel = kernel_.value();  // int8, read as it is
  const Tensor kernel_scale = kernel_scale_.value();
  Shape out = x.shape();
  out[-1] = units_;
  const Tensor x2 = x.rank() == 2 ? x : reshape(x, {-1, x.shape()[-1]});
  Tensor y;
  if (const auto& aq = o_.quantization_config->activation_quantizer) {
    // One scale per row: round(x · s) in int8, the int32 products divided by both scales.
    auto [xq, x_scale] = quantizers::abs_max_quantize(x2, -1, *aq);
    y = cast(matmul(xq, kernel), x2.dtype()) / (kernel_scale * x_scale);
  } else {
    y = matmul(x2, cast(kernel, x2.dtype())) / kernel_scale;
  }
  if (is_recording()) {
    // Keras's gradient rule: the inputs' gradient through the dequantized kernel
    // (a straight-through estimator); the value stays the int8 result exactly.
    const Tensor straight = matmul(x2, stop_gradient(cast(kernel, x2.dtype()) / kernel_scale));
    y = stop_gradient(y) + (straight - stop_gradient(straight));
  }
  if (lora_enabled())
    y = y + matmul(matmul(x2, lora_kernel_a().value()), lora_kernel_b().value()) *
                (*lora_alpha() / static_cast<double>(*lora_rank()));
  y = cast(y, compute_dtype());
  return x.rank() == 2 ? y : reshape(y, out);
}

std::vector<StoredVariable> DenseImpl::stored_variables() const {
  if (!kernel_scale_.defined()) return LoraLayer::stored_variables();
  StoredVariable kernel{kernel_, {}}, scale{kernel_scale_, {}};
  if (lora_enabled()) {
    // Keras merges the adapters into a dequantized kernel and quantizes it again; the kernel and
    // its scale come from one requantization, done once when the file is written.
    auto merged = std::make_shared<std::optional<std::pair<Tensor, Tensor>>>();
    auto requantize = [this, merged] {
      if (*merged) return;
      const Tensor dequantized =
          cast(kernel_.read_value_untracked(), DType::float32) / kernel_scale_.read_value_untracked();
      const Tensor delta = matmul(lora_kernel_a().read_value_untracked(), lora_kernel_b().read_value_untracked()) *
                           (*lora_alpha() / static_cast<double>(*lora_rank()));
      *merged = quantize_kernel(dequantized + delta, *o_.quantization_config);
    };
    kernel.saved = [requantize, merged] { requantize(); return (*merged)->first; };
    scale.saved = [requantize, merged] { requantize(); return (*merged)->second; };
  }
  std::vector<StoredVariable> out{kernel};
  if (bias_.defined()) out.push_back({bias_, {}});
  out.push_back(scale);
  return out;
}

}  // namespace kiln::layers
