#pragma once
// BinaryCrossentropy loss (keras.losses.BinaryCrossentropy), for 0/1 labels.
//
//   probabilities: p = clip(y_pred, 1e-7, 1 - 1e-7)
//                  loss = mean(-(y * log(p) + (1 - y) * log(1 - p)), axis)
//   from_logits:   loss = mean(softplus(x) - y * x, axis)   (stable for any x)
//   label_smoothing s: y <- y * (1 - s) + 0.5 * s
//
// Shapes: (batch, ..., d) -> (batch, ...). Examples (Keras docstrings):
//   kiln::losses::BinaryCrossentropy({.from_logits = true})(
//       Tensor({0.f, 1.f, 0.f, 0.f}), Tensor({-18.6f, 0.51f, 2.94f, -12.8f}))   // 0.8654
//   kiln::losses::binary_crossentropy({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // [0.916, 0.714]
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

struct BinaryCrossentropyOptions {
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name;
  KILN_FIELDS(BinaryCrossentropyOptions, from_logits, label_smoothing, axis)
};

/// Element-wise binary crossentropy (no mean): keras.ops.binary_crossentropy.
Tensor binary_crossentropy_elementwise(const Tensor& target, const Tensor& output, bool from_logits = false);
/// Per-sample binary crossentropy, the mean over `axis`.
Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
                           double label_smoothing = 0.0, int axis = -1);

class BinaryCrossentropy : public Loss {
 public:
  using Options = BinaryCrossentropyOptions;
  explicit BinaryCrossentropy(BinaryCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "BinaryCrossentropy"; }
  Config get_config() const override;
  bool from_logits() const { return o_.from_logits; }
  double label_smoothing() const { return o_.label_smoothing; }
  int axis() const { return o_.axis; }

 private:
  BinaryCrossentropyOptions o_;
};

}  // namespace kiln::losses
