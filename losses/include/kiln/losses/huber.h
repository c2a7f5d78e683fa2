#pragma once
/// @class kiln::losses::Huber
/// Huber loss (keras.losses.Huber): quadratic for small errors, linear beyond delta.
///
/// @code{.unparsed}
///   x = y_pred - y_true
///   loss = mean(0.5 * x^2              if |x| <= delta
///               delta * |x| - 0.5 * delta^2  otherwise, axis=-1)
/// @endcode
///
/// Shapes: (batch, ..., d) -> (batch, ...). Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::Huber()({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // 0.155
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of Huber (keras.losses.Huber's arguments and defaults).
struct HuberOptions {
  double delta = 1.0;  ///< Where the loss turns from quadratic to linear.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "huber_loss" (Keras's default name).
  KILN_FIELDS(HuberOptions, delta)
};

/// Per-sample Huber loss: (..., d) -> (...).
Tensor huber(const Tensor& y_true, const Tensor& y_pred, double delta = 1.0);

class Huber : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = HuberOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit Huber(HuberOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "Huber"; }
  Config get_config() const override;
  /// options.delta.
  double delta() const { return o_.delta; }

 private:
  HuberOptions o_;
};

}  // namespace kiln::losses
