#pragma once
// CategoricalCrossentropy loss (keras.losses.CategoricalCrossentropy), one-hot labels.
//
//   probabilities: p = clip(y_pred / sum(y_pred, axis), 1e-7, 1 - 1e-7)
//                  loss = -sum(y * log(p), axis)
//   from_logits:   loss = -sum(y * log_softmax(y_pred, axis), axis)
//   label_smoothing s: y <- y * (1 - s) + s / num_classes
//
// Shapes: (batch, ..., C) -> (batch, ...). Examples (Keras docstring, TF guide):
//   kiln::losses::CategoricalCrossentropy()({{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}},
//                                           {{0.05f, 0.95f, 0.f}, {0.1f, 0.8f, 0.1f}})   // 1.177
//   kiln::losses::CategoricalCrossentropy({.from_logits = true})({{1.f, 0.f}}, {{-1.f, 3.f}})  // 4.01815
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

struct CategoricalCrossentropyOptions {
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name;
  KILN_FIELDS(CategoricalCrossentropyOptions, from_logits, label_smoothing, axis)
};

/// Per-sample categorical crossentropy over `axis`.
Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
                                double label_smoothing = 0.0, int axis = -1);

class CategoricalCrossentropy : public Loss {
 public:
  using Options = CategoricalCrossentropyOptions;
  explicit CategoricalCrossentropy(CategoricalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalCrossentropy"; }
  Config get_config() const override;
  bool from_logits() const { return o_.from_logits; }
  double label_smoothing() const { return o_.label_smoothing; }
  int axis() const { return o_.axis; }

 private:
  CategoricalCrossentropyOptions o_;
};

}  // namespace kiln::losses
