#pragma once
/// @class kiln::losses::SparseCategoricalCrossentropy
/// SparseCategoricalCrossentropy loss (keras.losses.SparseCategoricalCrossentropy), integer labels.
///
/// @code{.unparsed}
///   from_logits:   loss = -log_softmax(y_pred, axis)[label]
///   probabilities: loss = -log(clip(y_pred, 1e-7, 1 - 1e-7))[label], normalised over the classes
/// @endcode
/// Both go through kiln::sparse_softmax_cross_entropy_with_logits (the fused fast
/// path); with probabilities it is fed log(clip(p)), exactly as Keras's TF backend.
///
/// Shapes: y_true (batch, ...) or (batch, ..., 1), integer or float (cast to
/// int64); y_pred (batch, ..., C) -> (batch, ...). A label outside [0, C)
/// throws ValueError naming the label. ignore_class: labels equal to it
/// contribute 0 and are left out of the mean (Keras masks them).
/// Examples (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::SparseCategoricalCrossentropy()(Tensor({1, 2}), {{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}})  // 1.177
///   model.compile("adam", kiln::losses::SparseCategoricalCrossentropy({.from_logits = true}));
/// @endcode
#include <cstdint>
#include <optional>

#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of SparseCategoricalCrossentropy (keras.losses.SparseCategoricalCrossentropy's arguments and defaults).
struct SparseCategoricalCrossentropyOptions {
  bool from_logits = false;  ///< y_pred holds logits rather than probabilities.
  std::optional<int64_t> ignore_class;  ///< A label left out of the loss and the mean (e.g. padding); none by default.
  int axis = -1;  ///< The class axis of y_pred.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "sparse_categorical_crossentropy".
  KILN_FIELDS(SparseCategoricalCrossentropyOptions, from_logits, ignore_class, axis)
};

/// Per-sample sparse categorical crossentropy; ignored labels give 0.
Tensor sparse_categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
                                       int axis = -1, std::optional<int64_t> ignore_class = std::nullopt);

class SparseCategoricalCrossentropy : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = SparseCategoricalCrossentropyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  /// With ignore_class: 1 where the label is kept, 0 where it is ignored.
  Tensor compute_mask(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "SparseCategoricalCrossentropy"; }
  Config get_config() const override;
  /// options.from_logits.
  bool from_logits() const { return o_.from_logits; }
  /// options.ignore_class.
  const std::optional<int64_t>& ignore_class() const { return o_.ignore_class; }
  /// options.axis.
  int axis() const { return o_.axis; }

 private:
  SparseCategoricalCrossentropyOptions o_;
};

}  // namespace kiln::losses
