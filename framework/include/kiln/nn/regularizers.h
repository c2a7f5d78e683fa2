#pragma once
// Weight regularizers: L1(0.01), L2(0.01) = l2·Σw² (no ½), L1L2(0, 0).
// Their penalties land in layer.losses() and are added to the loss by fit().
//   auto r = kiln::regularizers::L2(0.02);
//   Tensor penalty = (*r)(kernel);   // 0.02 * sum(kernel^2), a scalar of kernel's dtype
// To add one: derive from Regularizer and register it in framework/src/nn/regularizers.cpp.
#include <memory>
#include <string>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"

namespace kiln::regularizers {

/// Base of every weight regularizer (Keras's keras.regularizers.Regularizer): a
/// penalty on a weight tensor, added to the model's losses.
class Regularizer {
 public:
  virtual ~Regularizer() = default;
  /// The scalar penalty for weights `w`.
  virtual Tensor operator()(const Tensor& w) const = 0;
  /// Keras class name ("L2").
  virtual std::string class_name() const = 0;
  /// Regularizer config as JSON (Keras's get_config()).
  virtual Config get_config() const = 0;
};
using RegularizerPtr = std::shared_ptr<Regularizer>;  ///< A shared regularizer.

/// l1 * sum(|w|); config {"l1"}.
RegularizerPtr L1(double l1 = 0.01);
/// l2 * sum(w^2); config {"l2"}.
RegularizerPtr L2(double l2 = 0.01);
/// l1 * sum(|w|) + l2 * sum(w^2); config {"l1", "l2"}.
RegularizerPtr L1L2(double l1 = 0.0, double l2 = 0.0);
/// By name ("l1", "l2", "l1_l2", or the class names "L1", "L2", "L1L2") or from a
/// {"class_name", "config"} object. "l1_l2" means L1L2(0.01, 0.01), as the Keras docs say.
/// Throws NotFoundError listing close matches for an unknown name.
RegularizerPtr get(const std::string& name);
/// Accepts {"class_name", "config"} and Keras 3's {"module", "class_name", "config", "registered_name"}.
RegularizerPtr from_config(const Config& c);
/// Keras 3 form: {"module": "keras.regularizers", "class_name", "config", "registered_name": null}.
Config serialize(const Regularizer& r);

}  // namespace kiln::regularizers
