#pragma once
// Huber loss (keras.losses.Huber): quadratic for small errors, linear beyond delta.
//
//   x = y_pred - y_true
//   loss = mean(0.5 * x^2              if |x| <= delta
//               delta * |x| - 0.5 * delta^2  otherwise, axis=-1)
//
// Shapes: (batch, ..., d) -> (batch, ...). Example (Keras docstring):
//   kiln::losses::Huber()({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // 0.155
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

struct HuberOptions {
  double delta = 1.0;
  std::string reduction = "sum_over_batch_size";
  std::string name;
  KILN_FIELDS(HuberOptions, delta)
};

/// Per-sample Huber loss: (..., d) -> (...).
Tensor huber(const Tensor& y_true, const Tensor& y_pred, double delta = 1.0);

class Huber : public Loss {
 public:
  using Options = HuberOptions;
  explicit Huber(HuberOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "Huber"; }
  Config get_config() const override;
  double delta() const { return o_.delta; }

 private:
  HuberOptions o_;
};

}  // namespace kiln::losses
