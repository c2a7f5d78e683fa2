#pragma once
// Keras's dtype policies: the dtype a layer computes in and the dtype its
// variables are stored in. "mixed_bfloat16" and "mixed_float16" compute in a
// 16-bit float and keep float32 variables; any dtype name is a policy whose
// two dtypes are that dtype.
//
//   kiln::mixed_precision::set_global_policy("mixed_bfloat16");
//   auto hidden = Dense(512);                              // bfloat16 outputs, float32 kernel
//   auto probs = Dense(10, {.activation = "softmax", .dtype = "float32"});
#include <optional>
#include <string>

#include "kiln/core/dtype.h"

namespace kiln {

/// A layer's dtype policy (keras.DTypePolicy).
class DTypePolicy {
 public:
  /// The global policy at the time of construction, as Keras's DTypePolicy(None)
  /// and a layer's dtype=None are.
  DTypePolicy();
  /// "mixed_float16", "mixed_bfloat16" or a dtype name ("float32", "float64", ...),
  /// or a quantized layer's "int8_from_float32" (mode "_from_" source policy);
  /// any other name is a ValueError with Keras's text.
  DTypePolicy(const std::string& name);
  /// A policy by name.
  DTypePolicy(const char* name) : DTypePolicy(std::string(name)) {}
  /// The policy of one dtype: computations and variables in `dtype`.
  DTypePolicy(DType dtype);

  /// The policy's name ("mixed_bfloat16", "float32").
  const std::string& name() const { return name_; }
  /// The dtype of the layer's computations and, as a rule, of its outputs.
  DType compute_dtype() const { return compute_; }
  /// The dtype of the layer's variables.
  DType variable_dtype() const { return variable_; }
  /// Whether computations and variables differ in dtype (the mixed policies).
  bool is_mixed() const { return compute_ != variable_; }
  /// A quantized layer's policy (Keras's QuantizedDTypePolicy): `mode` ("int8",
  /// "int4/<block_size>" as Keras's Int4DTypePolicy, or a legacy "int4") over the policy
  /// named `source` ("float32", "mixed_bfloat16", ...).
  static DTypePolicy quantized(const std::string& mode, const std::string& source);
  /// "int8" or "int4" for a quantized layer's policy; empty otherwise.
  const std::string& quantization_mode() const { return mode_; }
  /// An "int4/<block_size>" policy's group size (-1: per channel); none for the others.
  std::optional<int> int4_block_size() const { return block_size_; }
  /// The policy a quantized one computes under ("float32" in "int8_from_float32");
  /// the policy's own name otherwise.
  std::string source_name() const;
  /// Same name.
  bool operator==(const DTypePolicy& o) const { return name_ == o.name_; }

 private:
  std::string name_;
  std::string mode_;
  std::optional<int> block_size_;
  DType compute_ = DType::float32;
  DType variable_ = DType::float32;
};

namespace mixed_precision {
/// Sets the policy layers made from now on take when they are given none
/// (keras.mixed_precision.set_global_policy, keras.config.set_dtype_policy).
/// Per process: set it before the model is built.
void set_global_policy(const DTypePolicy& policy);
/// The current global policy ("float32" until set).
DTypePolicy global_policy();
}  // namespace mixed_precision

}  // namespace kiln
