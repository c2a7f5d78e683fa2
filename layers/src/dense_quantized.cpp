// Dense quantized to int8 or int4 (Keras's Dense.quantize, _int8_call and _int4_call).
#include <functional>
#include <optional>
#include <utility>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/layers/dense.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "quantized_kernel.h"

namespace kiln::layers {

using detail::Int4Kernel;

namespace {

/// The kernel's int8 values and its (units,) scales: Keras's AbsMaxQuantizer over
/// the input axis, so each unit's column has its own scale.
std::pair<Tensor, Tensor> quantize_kernel(const Tensor& kernel, const quantizers::QuantizationConfig& config) {
  auto [q, scale] = quantizers::abs_max_quantize(kernel, 0, config.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{}));
  return {q, squeeze(scale, {0})};
}

/// y's value with the gradient of x · dequantized (Keras's straight-through rule for
/// the inputs); the value stays the quantized result exactly.
Tensor with_straight_through(const Tensor& y, const Tensor& x2, const Tensor& dequantized) {
  if (!is_recording()) return y;
  const Tensor straight = matmul(x2, stop_gradient(dequantized));
  return stop_gradient(y) + (straight - stop_gradient(straight));
}

}  // namespace

void DenseImpl::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config) {
  const quantizers::QuantizeArgs args = quantizers::check_quantize_args(*this, mode, config);
  const Tensor kernel = kernel_.read_value_untracked();
  o_.quantization_config = args.config;
  // Keras deletes the float kernel and builds the quantized one and its scales after the bias.
  remove_weight(kernel_);
  if (args.config.mode == "int4") {
    const Int4Kernel k = detail::quantize_int4_kernel(kernel, args.config);
    build_int4(kernel.shape()[0]);
    kernel_.assign(k.packed);
    kernel_scale_.assign(k.scale.cast(kernel_scale_.dtype()));
    if (kernel_zero_.defined()) kernel_zero_.assign(k.zero);
  } else {
    auto [q, scale] = quantize_kernel(kernel, args.config);
    build_int8(kernel.shape()[0]);
    kernel_.assign(q);
    kernel_scale_.assign(scale.cast(kernel_scale_.dtype()));
  }
  set_dtype_policy(args.policy);
}

void DenseImpl::build_int8(int64_t in) {
  kernel_ = add_weight("kernel", {in, units_}, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  kernel_scale_ = add_weight("kernel_scale", {units_}, {.initializer = "ones", .trainable = false});
}

void DenseImpl::build_int4(int64_t in) {
  const std::optional<int> block = detail::int4_groups(*o_.quantization_config);
  kernel_ = add_weight("kernel", {in, (units_ + 1) / 2}, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  const int64_t groups = block ? (in + *block - 1) / *block : 0;
  const Shape scale_shape = block ? Shape{groups, units_} : Shape{units_};
  kernel_scale_ = add_weight("kernel_scale", scale_shape, {.initializer = "ones", .trainable = false});
  if (!block) return;
  kernel_zero_ = add_weight("kernel_zero", scale_shape, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  g_idx_ = add_weight("g_idx", {in}, {.initializer = "zeros", .trainable = false, .dtype = DType::float32});
  g_idx_.assign(detail::int4_group_index(in, *block));
}

std::optional<Tensor> DenseImpl::int8_with_bias(const Tensor& x) const {
  const auto& aq = o_.quantization_config->activation_quantizer;
  if (dtype_policy().quantization_mode() != "int8" || !aq || !o_.use_bias || lora_enabled() ||
      compute_dtype() != DType::float32 || x.dtype() != DType::float32 || is_recording())
    return std::nullopt;
  const Tensor x2 = x.rank() == 2 ? x : reshape(x, {-1, x.shape()[-1]});
  auto [xq, x_scale] = quantizers::abs_max_quantize(x2, -1, *aq);
  const bool relu = o_.activation == "relu";
  Tensor y = quantizers::int8_matmul(xq, kernel_.value(), x_scale, kernel_scale_.value(), bias_.value(), relu);
  if (x.rank() != 2) {
    Shape out = x.shape();
    out[-1] = units_;
    y = reshape(y, out);
  }
  return relu ? y : activation_(y);
}

Tensor DenseImpl::quantized_matmul(const Tensor& x) const {
  const Tensor kernel = kernel_.value();  // int8, read as it is
  const Tensor kernel_scale = kernel_scale_.value();
  Shape out = x.shape();
  out[-1] = units_;
  const Tensor x2 = x.rank() == 2 ? x : reshape(x, {-1, x.shape()[-1]});
  const auto& aq = o_.quantization_config->activation_quantizer;
  Tensor y;
  if (dtype_policy().quantization_mode() == "int4") {
    if (kernel_zero_.defined()) {
      // Grouped scales and zero points: Keras dequantizes the kernel and multiplies in floats.
      const Int4Kernel k{kernel, kernel_scale, kernel_zero_.value()};
      y = matmul(x2, stop_gradient(detail::dequantize_int4_kernel(k, units_, g_idx_.value(), x2.dtype())));
    } else {
      const Tensor unpacked = quantizers::unpack_int4(kernel, units_, -1);
      if (aq) {
        auto [xq, x_scale] = quantizers::abs_max_quantize(x2, -1, *aq);
        y = cast(matmul(xq, unpacked), x2.dtype()) / (kernel_scale * x_scale);
      } else {
        y = matmul(x2, cast(unpacked, x2.dtype())) / kernel_scale;
      }
      if (is_recording()) y = with_straight_through(y, x2, cast(unpacked, x2.dtype()) / kernel_scale);
    }
  } else {
    if (aq) {
      // One scale per row: round(x · s) in int8, the int32 products divided by both scales.
      auto [xq, x_scale] = quantizers::abs_max_quantize(x2, -1, *aq);
      y = quantizers::int8_matmul(xq, kernel, x_scale, kernel_scale);
    } else {
      y = matmul(x2, cast(kernel, x2.dtype())) / kernel_scale;
    }
    if (is_recording()) y = with_straight_through(y, x2, cast(kernel, x2.dtype()) / kernel_scale);
  }
  if (lora_enabled())
    y = y + matmul(matmul(x2, lora_kernel_a().value()), lora_kernel_b().value()) *
                (*lora_alpha() / static_cast<double>(*lora_rank()));
  y = cast(y, compute_dtype());
  return x.rank() == 2 ? y : reshape(y, out);
}

std::vector<StoredVariable> DenseImpl::stored_variables() const {
  if (!kernel_scale_.defined()) return LoraLayer::stored_variables();
  std::function<std::vector<Tensor>()> merge;
  // With LoRA, Keras merges the adapters into the dequantized kernel and quantizes it again.
  if (lora_enabled()) merge = [this] {
    const Tensor delta = matmul(lora_kernel_a().read_value_untracked(), lora_kernel_b().read_value_untracked()) *
                         (*lora_alpha() / static_cast<double>(*lora_rank()));
    if (dtype_policy().quantization_mode() == "int4") {
      const Int4Kernel k{kernel_.read_value_untracked(), kernel_scale_.read_value_untracked(),
                         kernel_zero_.defined() ? kernel_zero_.read_value_untracked() : Tensor()};
      const Tensor g_idx = g_idx_.defined() ? g_idx_.read_value_untracked() : Tensor();
      const Int4Kernel m =
          detail::quantize_int4_kernel(detail::dequantize_int4_kernel(k, units_, g_idx, DType::float32) + delta,
                                       *o_.quantization_config);
      return std::vector<Tensor>{m.packed, m.scale, m.zero};
    }
    const Tensor dequantized =
        cast(kernel_.read_value_untracked(), DType::float32) / kernel_scale_.read_value_untracked();
    auto [q, s] = quantize_kernel(dequantized + delta, *o_.quantization_config);
    return std::vector<Tensor>{q, s, Tensor()};
  };
  return detail::quantized_entries({kernel_, bias_, kernel_scale_, kernel_zero_, g_idx_}, merge);
}

}  // namespace kiln::layers
