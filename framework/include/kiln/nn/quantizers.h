#pragma once
// Keras's int8 quantization (keras.quantizers): the abs-max quantizer, the
// quantization configs, and what a layer that `quantize` can convert offers.
//   auto [q, scale] = kiln::quantizers::abs_max_quantize(w, 0);   // per column
//   // q: int8 in [-127, 127], scale = 127 / (max|w| per column + 1e-7), w ≈ q / scale
//   model.quantize("int8");
#include <optional>
#include <string>
#include <utility>

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

/// keras.quantizers.Int8QuantizationConfig: the weight quantizer (none: the layer's
/// default, per output channel) and the activation quantizer (per row; none: the
/// inputs stay in floats and only the weights are int8).
struct QuantizationConfig {
  std::string mode = "int8";  ///< "int8".
  std::optional<AbsMaxQuantizer> weight_quantizer;  ///< None: AbsMaxQuantizer over the kernel's input axis.
  std::optional<AbsMaxQuantizer> activation_quantizer = AbsMaxQuantizer{};  ///< None: weight-only.
};

/// The config as Keras serializes it ({"module": "keras.quantizers", "class_name":
/// "Int8QuantizationConfig", ...}).
Config to_config(const QuantizationConfig& config);
/// Reads Keras's serialized config; null gives none. `who` names the layer in errors.
std::optional<QuantizationConfig> config_from(const Config& config, const std::string& who);

/// Keras's Layer._check_quantize_args: the layer is built and not quantized yet, the
/// mode is "int8", and the compute dtype is not float16. Returns the layer's new policy
/// ("int8_from_<policy>").
DTypePolicy check_quantize_args(const Layer& layer, const std::string& mode);

/// A layer that Model::quantize can convert (Keras's layers with a `quantize` method).
class Quantizable {
 public:
  virtual ~Quantizable() = default;
  /// Converts the built layer's kernel to `mode` ("int8") as Keras's layer.quantize does.
  virtual void quantize(const std::string& mode, const std::optional<QuantizationConfig>& config = std::nullopt) = 0;
  /// False for a subclass that inherits quantize() but whose own weights it would not
  /// cover (Keras's type check): Model::quantize passes it over with a warning.
  virtual bool supports_quantization() const { return true; }
};

}  // namespace kiln::quantizers
