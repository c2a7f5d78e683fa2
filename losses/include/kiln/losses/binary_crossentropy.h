#pragma once
/// @class kiln::losses::BinaryCrossentropy
/// BinaryCrossentropy loss (keras.losses.BinaryCrossentropy), for 0/1 labels.
///
/// @code{.unparsed}
///   probabilities: p = clip(y_pred, 1e-7, 1 - 1e-7)
///                  loss = mean(-(y * log(p) + (1 - y) * log(1 - p)), axis)
///   from_logits:   loss = mean(softplus(x) - y * x, axis)   (stable for any x)
///   label_smoothing s: y <- y * (1 - s) + 0.5 * s
/// @endcode
///
/// Shapes: (batch, ..., d) -> (batch, ...). Examples (Keras docstrings):
/// @code
///   kiln::losses::BinaryCrossentropy({.from_logits = true})(
///       Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({-18.6f, 0.51f, 2.94f, -12.8f}))   // 0.8654
///   kiln::losses::binary_crossentropy({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // [0.916, 0.714]
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of BinaryCrossentropy (keras.losses.BinaryCrossentropy's arguments and defaults).
struct BinaryCrossentropyOptions {
  bool from_logits = false;  ///< y_pred holds logits rather than probabilities.
  double label_smoothing = 0.0;  ///< In [0, 1]; 0 means no smoothing.
  int axis = -1;  ///< The axis the mean runs over.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "binary_crossentropy".
  KILN_FIELDS(BinaryCrossentropyOptions, from_logits, label_smoothing, axis)
};

/// Element-wise binary crossentropy (no mean): keras.ops.binary_crossentropy.
Tensor binary_crossentropy_elementwise(const Tensor& target, const Tensor& output, bool from_logits = false);
/// Per-sample binary crossentropy, the mean over `axis`.
Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
                           double label_smoothing = 0.0, int axis = -1);

class BinaryCrossentropy : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = BinaryCrossentropyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit BinaryCrossentropy(BinaryCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "BinaryCrossentropy"; }
  Config get_config() const override;
  /// options.from_logits.
  bool from_logits() const { return o_.from_logits; }
  /// options.label_smoothing.
  double label_smoothing() const { return o_.label_smoothing; }
  /// options.axis.
  int axis() const { return o_.axis; }

 private:
  BinaryCrossentropyOptions o_;
};

}  // namespace kiln::losses
