// EinsumDense quantized to int8 or int4 (Keras's EinsumDense.quantize, _int8_call and _int4_call).
#include <algorithm>
#include <numeric>
#include <functional>
#include <optional>
#include <utility>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/layers/einsum_dense.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/einsum.h"
#include "kiln/ops/math_ops.h"
#include "quantized_kernel.h"

namespace kiln::layers {

namespace {

/// NumPy's expand_dims with several axes: each axis names a size-1 axis of the result.
Tensor expand_axes(const Tensor& x, const std::vector<int>& axes) {
  const int64_t rank = x.rank() + static_cast<int64_t>(axes.size());
  std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
  for (int a : axes) {
    const int64_t at = a < 0 ? a + rank : a;
    if (at < 0 || at >= rank)
      throw ValueError("EinsumDense: cannot insert axis " + std::to_string(a) + " into a scale of shape " +
                       x.shape().to_string());
    inserted[static_cast<std::size_t>(at)] = true;
  }
  std::vector<int64_t> dims;
  int64_t k = 0;
  for (int64_t i = 0; i < rank; ++i) dims.push_back(inserted[static_cast<std::size_t>(i)] ? 1 : x.shape()[k++]);
  return reshape(x, Shape(dims));
}

/// Keras's _adjust_scale_for_quant: a kept-dims scale laid out to broadcast against the output.
Tensor scale_for_output(Tensor scale, const std::vector<int>& transpose_axes, const std::vector<int>& expand,
                        const std::vector<int>& squeeze_axes) {
  if (!transpose_axes.empty()) scale = transpose(scale, transpose_axes);
  if (!expand.empty()) scale = expand_axes(scale, expand);
  if (!squeeze_axes.empty()) scale = squeeze(scale, squeeze_axes);
  return scale;
}

/// Keras's _adjust_scale_for_dequant: the kernel scale laid out back against the kernel.
Tensor scale_for_kernel(Tensor scale, const EinsumQuantizationAxes& q) {
  if (!q.kernel_squeeze.empty()) scale = expand_axes(scale, q.kernel_squeeze);
  if (!q.kernel_expand.empty()) scale = squeeze(scale, q.kernel_expand);
  if (!q.kernel_transpose.empty()) {
    std::vector<int> inverse(q.kernel_transpose.size());
    std::iota(inverse.begin(), inverse.end(), 0);
    std::sort(inverse.begin(), inverse.end(), [&](int a, int b) { return q.kernel_transpose[a] < q.kernel_transpose[b]; });
    scale = transpose(scale, inverse);
  }
  return scale;
}

/// Keras's int4 EinsumDense quantization of the kernel flattened to (rows, columns); it
/// uses its own per-channel quantizer, not the config's.
detail::Int4Kernel quantize_int4(const Tensor& kernel, std::pair<int64_t, int64_t> matrix,
                                 quantizers::QuantizationConfig config) {
  config.weight_quantizer.reset();
  return detail::quantize_int4_kernel(reshape(kernel, {matrix.first, matrix.second}), config);
}

/// The number of leading input axes kept when `equation` is a plain matrix product: input
/// P·C, kernel C·Q, output P·Q (letters; no ellipsis). None otherwise.
std::optional<std::size_t> matmul_split(std::string equation) {
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const auto comma = equation.find(','), arrow = equation.find("->");
  if (equation.find('.') != std::string::npos || comma == std::string::npos || arrow == std::string::npos ||
      arrow < comma)
    return std::nullopt;
  const std::string in = equation.substr(0, comma), kernel = equation.substr(comma + 1, arrow - comma - 1),
                    out = equation.substr(arrow + 2);
  for (std::size_t p = 0; p < in.size(); ++p) {
    const std::string contracted = in.substr(p);
    if (kernel.compare(0, contracted.size(), contracted) == 0 && out == in.substr(0, p) + kernel.substr(contracted.size()))
      return p;
  }
  return std::nullopt;
}

}  // namespace

std::pair<Tensor, Tensor> EinsumDenseImpl::quantize_kernel(const Tensor& kernel) const {
  const quantizers::AbsMaxQuantizer q =
      o_.quantization_config->weight_quantizer.value_or(quantizers::AbsMaxQuantizer{});
  auto [values, scale] = quantizers::abs_max_quantize(kernel, quantization_axes_.kernel_reduced, q);
  const auto& a = quantization_axes_;
  return {values, scale_for_output(scale, a.kernel_transpose, a.kernel_expand, a.kernel_squeeze)};
}

std::pair<int64_t, int64_t> EinsumDenseImpl::int4_matrix_shape() const {
  int64_t rows = 1, columns = 1;
  for (int64_t i = 0; i < kernel_shape_.rank(); ++i) {
    const auto& r = quantization_axes_.kernel_reduced;
    (std::find(r.begin(), r.end(), static_cast<int>(i)) != r.end() ? rows : columns) *= kernel_shape_[i];
  }
  return {rows, columns};
}

void EinsumDenseImpl::build_quantized(const Shape& kernel_shape) {
  quantization_axes_ = analyze_einsum_quantization(equation_, input_rank_);
  kernel_shape_ = kernel_shape;
  const auto& a = quantization_axes_;
  if (o_.quantization_config->mode == "int4") {
    // Keras's _int4_build: the flattened kernel packed along its columns.
    const auto [rows, columns] = int4_matrix_shape();
    const std::optional<int> block = detail::int4_groups(*o_.quantization_config);
    kernel_ = add_weight("kernel", {rows, (columns + 1) / 2}, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
    const Shape scale_shape = block ? Shape{(rows + *block - 1) / *block, columns} : Shape{columns};
    kernel_scale_ = add_weight("kernel_scale", scale_shape, {.initializer = "ones", .trainable = false});
    if (!block) return;
    kernel_zero_ = add_weight("kernel_zero", scale_shape, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
    g_idx_ = add_weight("g_idx", {rows}, {.initializer = "zeros", .trainable = false, .dtype = DType::float32});
    g_idx_.assign(detail::int4_group_index(rows, *block));
    return;
  }
  std::vector<int64_t> reduced = kernel_shape.dims();
  for (int r : a.kernel_reduced) reduced[static_cast<std::size_t>(r)] = 1;
  const Shape scale_shape =
      scale_for_output(zeros(Shape(reduced)), a.kernel_transpose, a.kernel_expand, a.kernel_squeeze).shape();
  kernel_ = add_weight("kernel", kernel_shape, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  kernel_scale_ = add_weight("kernel_scale", scale_shape, {.initializer = "ones", .trainable = false});
}

void EinsumDenseImpl::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config) {
  const quantizers::QuantizeArgs args = quantizers::check_quantize_args(*this, mode, config);
  o_.quantization_config = args.config;
  quantization_axes_ = analyze_einsum_quantization(equation_, input_rank_);
  kernel_shape_ = kernel_.shape();
  const Tensor kernel = kernel_.read_value_untracked();
  // Keras deletes the float kernel and builds the quantized one and its scales after the bias.
  remove_weight(kernel_);
  if (args.config.mode == "int4") {
    const detail::Int4Kernel k = quantize_int4(kernel, int4_matrix_shape(), args.config);
    build_quantized(kernel.shape());
    kernel_.assign(k.packed);
    kernel_scale_.assign(k.scale.cast(kernel_scale_.dtype()));
    if (kernel_zero_.defined()) kernel_zero_.assign(k.zero);
  } else {
    auto [q, scale] = quantize_kernel(kernel);
    build_quantized(kernel.shape());
    kernel_.assign(q);
    kernel_scale_.assign(scale.cast(kernel_scale_.dtype()));
  }
  set_dtype_policy(args.policy);
}

Tensor EinsumDenseImpl::dequantized_kernel(DType dtype) const {
  if (dtype_policy().quantization_mode() == "int4") {
    const detail::Int4Kernel k{kernel_.value(), kernel_scale_.value(),
                               kernel_zero_.defined() ? kernel_zero_.value() : Tensor()};
    const Tensor flat = detail::dequantize_int4_kernel(k, int4_matrix_shape().second,
                                                       g_idx_.defined() ? g_idx_.value() : Tensor(), dtype);
    return reshape(flat, kernel_shape_);
  }
  return cast(kernel_.value(), dtype) / scale_for_kernel(kernel_scale_.value(), quantization_axes_);
}

Tensor EinsumDenseImpl::int8_einsum(const Tensor& xq, const Tensor& x_scale) const {
  const Tensor kernel = kernel_.value(), kernel_scale = kernel_scale_.value();
  const auto p = matmul_split(equation_);
  if (p) {
    // A plain product (the projections of MultiHeadAttention): one int8 matmul over the input's
    // rows, dequantized in the same pass, with the same bits as the einsum and the two ops below.
    int64_t rows = 1;
    std::vector<int64_t> out;
    for (std::size_t i = 0; i < *p; ++i) out.push_back(xq.shape()[static_cast<int64_t>(i)]);
    for (int64_t d : out) rows *= d;
    const int64_t depth = rows == 0 ? 0 : xq.size() / rows;
    const int64_t contracted = xq.rank() - static_cast<int64_t>(*p);
    for (int64_t i = contracted; i < kernel.rank(); ++i) out.push_back(kernel.shape()[i]);
    const int64_t units = kernel_scale.size();
    if (rows > 0 && depth > 0 && kernel.size() == depth * units && x_scale.size() == rows) {
      const Tensor y = quantizers::int8_matmul(reshape(xq, {rows, depth}), reshape(kernel, {depth, units}),
                                               reshape(x_scale, {rows, 1}), reshape(kernel_scale, {units}));
      return reshape(y, Shape(out));
    }
  }
  const auto& a = quantization_axes_;
  const Tensor scale = scale_for_output(x_scale, a.input_transpose, a.input_expand, a.input_squeeze);
  return cast(einsum(equation_, {xq, kernel}), scale.dtype()) / (scale * kernel_scale);
}

Tensor EinsumDenseImpl::quantized_einsum(const Tensor& x) const {
  const auto& a = quantization_axes_;
  const auto& aq = o_.quantization_config->activation_quantizer;
  const bool int4 = dtype_policy().quantization_mode() == "int4";
  Tensor y;
  if (int4 && (kernel_zero_.defined() || !aq)) {
    // Keras multiplies the float inputs by the dequantized int4 kernel.
    y = einsum(equation_, {x, stop_gradient(dequantized_kernel(x.dtype()))});
  } else if (int4) {
    auto [xq, x_scale] = quantizers::abs_max_quantize(x, a.input_reduced, *aq);
    x_scale = scale_for_output(x_scale, a.input_transpose, a.input_expand, a.input_squeeze);
    y = einsum(equation_, {cast(xq, x.dtype()), dequantized_kernel(x.dtype())}) / x_scale;
  } else if (aq) {
    // The inputs get one scale per slice over their contracted axes; the int32 products
    // are divided by both scales.
    auto [xq, x_scale] = quantizers::abs_max_quantize(x, a.input_reduced, *aq);
    y = int8_einsum(xq, x_scale);
  } else {
    y = einsum(equation_, {x, cast(kernel_.value(), x.dtype())}) / kernel_scale_.value();
  }
  if (is_recording() && (aq || !int4)) {
    // Keras's gradient rule: the inputs' gradient through the dequantized kernel
    // (a straight-through estimator); the value stays the quantized result exactly.
    const Tensor straight = einsum(equation_, {x, stop_gradient(dequantized_kernel(x.dtype()))});
    y = stop_gradient(y) + (straight - stop_gradient(straight));
  }
  if (lora_enabled())
    y = y + matmul(einsum(equation_, {x, lora_kernel_a().value()}), lora_kernel_b().value()) *
                (*lora_alpha() / static_cast<double>(*lora_rank()));
  return cast(y, compute_dtype());
}

std::vector<StoredVariable> EinsumDenseImpl::stored_variables() const {
  if (!kernel_scale_.defined()) return LoraLayer::stored_variables();
  std::function<std::vector<Tensor>()> merge;
  // With LoRA, Keras merges the adapters into the dequantized kernel and quantizes it again.
  if (lora_enabled()) merge = [this] {
    const Tensor a = lora_kernel_a().read_value_untracked();
    const Tensor delta = reshape(matmul(reshape(a, {-1, a.shape()[-1]}), lora_kernel_b().read_value_untracked()),
                                 kernel_shape_) *
                         (*lora_alpha() / static_cast<double>(*lora_rank()));
    const Tensor merged = dequantized_kernel(DType::float32) + delta;
    if (dtype_policy().quantization_mode() == "int4") {
      const detail::Int4Kernel m = quantize_int4(merged, int4_matrix_shape(), *o_.quantization_config);
      return std::vector<Tensor>{m.packed, m.scale, m.zero};
    }
    auto [q, s] = quantize_kernel(merged);
    return std::vector<Tensor>{q, s, Tensor()};
  };
  return detail::quantized_entries({kernel_, bias_, kernel_scale_, kernel_zero_, g_idx_}, merge);
}

}  // namespace kiln::layers
