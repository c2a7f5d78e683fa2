#pragma once
/// @class kiln::losses::BinaryFocalCrossentropy
/// BinaryFocalCrossentropy loss (keras.losses.BinaryFocalCrossentropy, Lin et al. 2018).
///
/// @code{.unparsed}
///   p = sigmoid(y_pred) if from_logits else y_pred
///   bce = -(y log(clip(p)) + (1 - y) log(1 - clip(p)))       (clip to [1e-7, 1 - 1e-7])
///   p_t = y p + (1 - y)(1 - p);  focal = (1 - p_t)^gamma * bce
///   apply_class_balancing: focal *= y alpha + (1 - y)(1 - alpha)
///   loss = mean(focal, axis)
/// @endcode
///
/// Shapes: (batch, ..., d) -> (batch, ...). Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::BinaryFocalCrossentropy({.gamma = 2, .from_logits = true})(
///       Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({-18.6f, 0.51f, 2.94f, -12.8f}))   // 0.691
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of BinaryFocalCrossentropy (keras.losses.BinaryFocalCrossentropy's arguments and defaults).
struct BinaryFocalCrossentropyOptions {
  bool apply_class_balancing = false;  ///< Weight positives by alpha and negatives by 1 - alpha.
  double alpha = 0.25;  ///< Class-balancing weight of the positives (used with apply_class_balancing).
  double gamma = 2.0;  ///< Focusing exponent on (1 - p_t); 0 gives plain binary crossentropy.
  bool from_logits = false;  ///< y_pred holds logits rather than probabilities.
  double label_smoothing = 0.0;  ///< In [0, 1]; 0 means no smoothing.
  int axis = -1;  ///< The axis the mean runs over.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "binary_focal_crossentropy".
  KILN_FIELDS(BinaryFocalCrossentropyOptions, apply_class_balancing, alpha, gamma, from_logits, label_smoothing, axis)
};

/// Per-sample binary focal crossentropy, the mean over `axis`.
Tensor binary_focal_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool apply_class_balancing = false,
                                 double alpha = 0.25, double gamma = 2.0, bool from_logits = false,
                                 double label_smoothing = 0.0, int axis = -1);

class BinaryFocalCrossentropy : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = BinaryFocalCrossentropyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit BinaryFocalCrossentropy(BinaryFocalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "BinaryFocalCrossentropy"; }
  Config get_config() const override;

 private:
  BinaryFocalCrossentropyOptions o_;
};

}  // namespace kiln::losses
