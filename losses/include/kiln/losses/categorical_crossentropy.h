#pragma once
/// @class kiln::losses::CategoricalCrossentropy
/// CategoricalCrossentropy loss (keras.losses.CategoricalCrossentropy), one-hot labels.
///
/// @code{.unparsed}
///   probabilities: p = clip(y_pred / sum(y_pred, axis), 1e-7, 1 - 1e-7)
///                  loss = -sum(y * log(p), axis)
///   from_logits:   loss = -sum(y * log_softmax(y_pred, axis), axis)
///   label_smoothing s: y <- y * (1 - s) + s / num_classes
/// @endcode
///
/// Shapes: (batch, ..., C) -> (batch, ...). Examples (Keras docstring, TF guide):
/// @code{.unparsed}
///   kiln::losses::CategoricalCrossentropy()({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}},
///                                           {{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}})   // 1.177
///   kiln::losses::CategoricalCrossentropy({.from_logits = true})({{1.f, 0.f}}, {{-1.f, 3.f}})  // 4.01815
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of CategoricalCrossentropy (keras.losses.CategoricalCrossentropy's arguments and defaults).
struct CategoricalCrossentropyOptions {
  bool from_logits = false;  ///< y_pred holds logits rather than probabilities.
  double label_smoothing = 0.0;  ///< In [0, 1]: y becomes y * (1 - s) + s / num_classes; 0 means none.
  int axis = -1;  ///< The class axis.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "categorical_crossentropy".
  KILN_FIELDS(CategoricalCrossentropyOptions, from_logits, label_smoothing, axis)
};

/// Per-sample categorical crossentropy over `axis`.
Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
                                double label_smoothing = 0.0, int axis = -1);

class CategoricalCrossentropy : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = CategoricalCrossentropyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit CategoricalCrossentropy(CategoricalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalCrossentropy"; }
  Config get_config() const override;
  /// options.from_logits.
  bool from_logits() const { return o_.from_logits; }
  /// options.label_smoothing.
  double label_smoothing() const { return o_.label_smoothing; }
  /// options.axis.
  int axis() const { return o_.axis; }

 private:
  CategoricalCrossentropyOptions o_;
};

}  // namespace kiln::losses
