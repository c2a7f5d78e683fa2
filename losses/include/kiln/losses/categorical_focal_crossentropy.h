#pragma once
// CategoricalFocalCrossentropy loss (keras.losses.CategoricalFocalCrossentropy).
//
//   p = softmax(y_pred) if from_logits else y_pred
//   p = clip(p / sum(p, axis), 1e-7, 1 - 1e-7)
//   loss = sum(alpha * (1 - p)^gamma * (-y * log(p)), axis)
//   label_smoothing s: y <- y * (1 - s) + s / num_classes
//
// Shapes: (batch, ..., C) -> (batch, ...). Example (Keras docstring):
//   kiln::losses::CategoricalFocalCrossentropy()({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}},
//                                                {{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}})  // 0.23315276
// alpha is one scalar here (Keras also accepts a per-class list).
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

struct CategoricalFocalCrossentropyOptions {
  double alpha = 0.25;
  double gamma = 2.0;
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name;
  KILN_FIELDS(CategoricalFocalCrossentropyOptions, alpha, gamma, from_logits, label_smoothing, axis)
};

/// Per-sample categorical focal crossentropy over `axis`.
Tensor categorical_focal_crossentropy(const Tensor& y_true, const Tensor& y_pred, double alpha = 0.25,
                                      double gamma = 2.0, bool from_logits = false, double label_smoothing = 0.0,
                                      int axis = -1);

class CategoricalFocalCrossentropy : public Loss {
 public:
  using Options = CategoricalFocalCrossentropyOptions;
  explicit CategoricalFocalCrossentropy(CategoricalFocalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalFocalCrossentropy"; }
  Config get_config() const override;

 private:
  CategoricalFocalCrossentropyOptions o_;
};

}  // namespace kiln::losses
