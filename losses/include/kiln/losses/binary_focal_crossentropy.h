#pragma once
// BinaryFocalCrossentropy loss (keras.losses.BinaryFocalCrossentropy, Lin et al. 2018).
//
//   p = sigmoid(y_pred) if from_logits else y_pred
//   bce = -(y log(clip(p)) + (1 - y) log(1 - clip(p)))       (clip to [1e-7, 1 - 1e-7])
//   p_t = y p + (1 - y)(1 - p);  focal = (1 - p_t)^gamma * bce
//   apply_class_balancing: focal *= y alpha + (1 - y)(1 - alpha)
//   loss = mean(focal, axis)
//
// Shapes: (batch, ..., d) -> (batch, ...). Example (Keras docstring):
//   kiln::losses::BinaryFocalCrossentropy({.gamma = 2, .from_logits = true})(
//       Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({-18.6f, 0.51f, 2.94f, -12.8f}))   // 0.691
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

struct BinaryFocalCrossentropyOptions {
  bool apply_class_balancing = false;
  double alpha = 0.25;
  double gamma = 2.0;
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name;
  KILN_FIELDS(BinaryFocalCrossentropyOptions, apply_class_balancing, alpha, gamma, from_logits, label_smoothing, axis)
};

/// Per-sample binary focal crossentropy, the mean over `axis`.
Tensor binary_focal_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool apply_class_balancing = false,
                                 double alpha = 0.25, double gamma = 2.0, bool from_logits = false,
                                 double label_smoothing = 0.0, int axis = -1);

class BinaryFocalCrossentropy : public Loss {
 public:
  using Options = BinaryFocalCrossentropyOptions;
  explicit BinaryFocalCrossentropy(BinaryFocalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "BinaryFocalCrossentropy"; }
  Config get_config() const override;

 private:
  BinaryFocalCrossentropyOptions o_;
};

}  // namespace kiln::losses
