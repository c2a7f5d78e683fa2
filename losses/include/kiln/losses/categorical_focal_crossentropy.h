#pragma once
/// @class kiln::losses::CategoricalFocalCrossentropy
/// CategoricalFocalCrossentropy loss (keras.losses.CategoricalFocalCrossentropy).
///
/// @code{.unparsed}
///   p = softmax(y_pred) if from_logits else y_pred
///   p = clip(p / sum(p, axis), 1e-7, 1 - 1e-7)
///   loss = sum(alpha * (1 - p)^gamma * (-y * log(p)), axis)
///   label_smoothing s: y <- y * (1 - s) + s / num_classes
/// @endcode
///
/// Shapes: (batch, ..., C) -> (batch, ...). Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::CategoricalFocalCrossentropy()({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}},
///                                                {{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}})  // 0.23315276
/// @endcode
/// alpha is one scalar here (Keras also accepts a per-class list).
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of CategoricalFocalCrossentropy (keras.losses.CategoricalFocalCrossentropy's arguments and defaults).
struct CategoricalFocalCrossentropyOptions {
  double alpha = 0.25;  ///< Weighting factor, one scalar for every class.
  double gamma = 2.0;  ///< Focusing exponent on (1 - p); 0 gives plain categorical crossentropy.
  bool from_logits = false;  ///< y_pred holds logits rather than probabilities.
  double label_smoothing = 0.0;  ///< In [0, 1]: y becomes y * (1 - s) + s / num_classes; 0 means none.
  int axis = -1;  ///< The class axis.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "categorical_focal_crossentropy".
  KILN_FIELDS(CategoricalFocalCrossentropyOptions, alpha, gamma, from_logits, label_smoothing, axis)
};

/// Per-sample categorical focal crossentropy over `axis`.
Tensor categorical_focal_crossentropy(const Tensor& y_true, const Tensor& y_pred, double alpha = 0.25,
                                      double gamma = 2.0, bool from_logits = false, double label_smoothing = 0.0,
                                      int axis = -1);

class CategoricalFocalCrossentropy : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = CategoricalFocalCrossentropyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit CategoricalFocalCrossentropy(CategoricalFocalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalFocalCrossentropy"; }
  Config get_config() const override;

 private:
  CategoricalFocalCrossentropyOptions o_;
};

}  // namespace kiln::losses
