#pragma once
// Keras's int8 and int4 quantization (keras.quantizers): the abs-max quantizers,
// int4 packing, the quantization configs, and what a layer that `quantize` can
// convert offers.
//   auto [q, scale] = kiln::quantizers::abs_max_quantize(w, 0);   // per column
//   // q: int8 in [-127, 127], scale = 127 / (max|w| per column + 1e-7), w ≈ q / scale
//   model.quantize("int8");
//   model.quantize("int4", kiln::quantizers::int4_config(64));   // groups of 64 rows
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"
#include "kiln/nn/dtype_policy.h"

namespace kiln {
class Layer;
}

namespace kiln::quantizers {

/// keras.quantizers.AbsMaxQuantizer: symmetric quantization to
/// [value_min, value_max] with one scale per slice along an axis.
struct AbsMaxQuantizer {
  int value_min = -127;  ///< Lowest quantized value.
  int value_max = 127;  ///< Highest quantized value; the scale maps max|x| to it.
  double epsilon = 1e-7;  ///< Added to max|x|, so that an all-zero slice has a finite scale.
  DType output_dtype = DType::int8;  ///< The quantized values' dtype.
  bool operator==(const AbsMaxQuantizer&) const = default;  ///< Same range, epsilon and dtype.
};

/// keras.quantizers.abs_max_quantize: scale = value_max / (max|x| over `axis`, kept, +
/// epsilon) in x's dtype, and round(x · scale) clipped to the range, in output_dtype.
/// Returns (quantized, scale); x ≈ quantized / scale.
std::pair<Tensor, Tensor> abs_max_quantize(const Tensor& x, int64_t axis, const AbsMaxQuantizer& q = {});
/// The same with one scale per slice over several axes (Keras's `axis` tuple), as
/// EinsumDense quantizes a kernel over all its contracted axes.
std::pair<Tensor, Tensor> abs_max_quantize(const Tensor& x, const std::vector<int>& axes, const AbsMaxQuantizer& q = {});

/// Keras's int8 Dense product: cast(xq · kernel, float) / (kernel_scale · x_scale), with xq (rows, k)
/// and kernel (k, units) int8, x_scale (rows, 1) and kernel_scale (units,) float. Where the backend
/// has the kernel and no tape records, the product and its dequantization are one pass, with the
/// same bits as the ops.
Tensor int8_matmul(const Tensor& xq, const Tensor& kernel, const Tensor& x_scale, const Tensor& kernel_scale);
/// The same, then + bias (units,) and, when `relu`, max(., 0): a quantized Dense's bias and relu
/// activation, in the product's pass where the backend has the kernel and no tape records, and
/// with bias_add's bits either way.
Tensor int8_matmul(const Tensor& xq, const Tensor& kernel, const Tensor& x_scale, const Tensor& kernel_scale,
                   const Tensor& bias, bool relu);

/// A quantization config (keras.quantizers.Int8QuantizationConfig and
/// Int4QuantizationConfig): the mode, the weight quantizer (none: the layer's default,
/// per output channel), the activation quantizer (per row; none: the inputs stay in
/// floats and only the weights are quantized) and, for int4, the group size.
struct QuantizationConfig {
  std::string mode = "int8";  ///< "int8" or "int4".
  std::optional<AbsMaxQuantizer> weight_quantizer;  ///< None: AbsMaxQuantizer over the kernel's input axis.
  std::optional<AbsMaxQuantizer> activation_quantizer = AbsMaxQuantizer{};  ///< None: weight-only.
  /// int4 only: the number of input rows that share a scale and a zero point (Keras's
  /// grouped, asymmetric scheme); none or -1: one symmetric scale per output channel.
  std::optional<int> block_size;
};

/// Keras's Int4QuantizationConfig: int4 weights, float inputs, groups of `block_size`
/// input rows (none or -1: per output channel). A custom weight quantizer (value_range
/// [-8, 7]) or activation quantizer needs per-channel scales, as in Keras.
QuantizationConfig int4_config(std::optional<int> block_size = 128,
                               std::optional<AbsMaxQuantizer> weight_quantizer = std::nullopt,
                               std::optional<AbsMaxQuantizer> activation_quantizer = std::nullopt);

/// Keras's validate_and_resolve_config: the config for `mode` (Keras's default one when
/// none is given; mode may be empty when a config is), checked as Keras's config classes
/// check theirs. `who` names the layer or model in errors.
QuantizationConfig resolve_config(const std::string& mode, const std::optional<QuantizationConfig>& config,
                                  const std::string& who);

/// The config as Keras serializes it ({"module": "keras.quantizers", "class_name":
/// "Int8QuantizationConfig", ...}).
Config to_config(const QuantizationConfig& config);
/// Reads Keras's serialized config; null gives none. `who` names the layer in errors.
std::optional<QuantizationConfig> config_from(const Config& config, const std::string& who);

/// What a layer's quantize() works with: its resolved config and its new policy.
struct QuantizeArgs {
  QuantizationConfig config;  ///< The config, Keras's default for the mode when none was given.
  DTypePolicy policy;  ///< "int8_from_<policy>" or "int4/<block_size>_from_<policy>".
};
/// Keras's quantize wrapper and Layer._check_quantize_args: the config resolves for the
/// mode, the layer is built and not quantized yet, and int8 does not run under a float16
/// compute dtype.
QuantizeArgs check_quantize_args(const Layer& layer, const std::string& mode,
                                 const std::optional<QuantizationConfig>& config);

/// The config a layer whose policy is quantized builds with (Keras's quantized_build and
/// get_block_size_for_layer): the config saved with it, or else the default of the
/// policy's mode, with an "int4/<block_size>" policy's group size.
QuantizationConfig quantized_build_config(const Layer& layer, const std::optional<QuantizationConfig>& saved);

/// keras.quantizers.pack_int4: int8 values in [-8, 7] packed two per byte along `axis`
/// (the first of each pair in the low nibble); an odd length gets a zero appended.
Tensor pack_int4(const Tensor& x, int axis = 0);
/// keras.quantizers.unpack_int4: pack_int4's inverse, `orig_len` values along `axis`.
Tensor unpack_int4(const Tensor& packed, int64_t orig_len, int axis = 0);

/// keras.quantizers.abs_max_quantize_grouped_with_zero_point's result for a (rows,
/// columns) tensor: values in [value_min, value_max] (int8), and per group of rows and
/// column a scale and an int8 zero point, (n_groups, columns) each.
struct GroupedQuantized {
  Tensor values;  ///< (rows, columns) int8.
  Tensor scale;  ///< (n_groups, columns) float: x ≈ (values - zero) · scale.
  Tensor zero;  ///< (n_groups, columns) int8.
};
/// Keras's grouped asymmetric quantization of a 2-D tensor along axis 0, in groups of
/// `block_size` rows (the last group padded with zeros): scale = (max - min + epsilon) /
/// (value_max - value_min), zero = clip(round(-min / scale) + value_min).
GroupedQuantized abs_max_quantize_grouped_with_zero_point(const Tensor& x, int block_size, int value_min = -8,
                                                          int value_max = 7, double epsilon = 1e-7);
/// keras.quantizers.dequantize_with_sz_map: (weights - zero) · scale with the group of
/// each position along `group_axis` of scale and zero given by g_idx.
Tensor dequantize_with_sz_map(const Tensor& weights, const Tensor& scale, const Tensor& zero, const Tensor& g_idx,
                              int group_axis = -1);

/// A layer that Model::quantize can convert (Keras's layers with a `quantize` method).
class Quantizable {
 public:
  virtual ~Quantizable() = default;
  /// Converts the built layer's kernel to `mode` ("int8" or "int4"; empty: the config's)
  /// as Keras's layer.quantize does.
  virtual void quantize(const std::string& mode, const std::optional<QuantizationConfig>& config = std::nullopt) = 0;
  /// False for a subclass that inherits quantize() but whose own weights it would not
  /// cover (Keras's type check): Model::quantize passes it over with a warning.
  virtual bool supports_quantization() const { return true; }
};

}  // namespace kiln::quantizers
