#pragma once
// CosineSimilarity loss (keras.losses.CosineSimilarity).
//
//   loss = -sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis)
//
// In [-1, 1]: -1 means the same direction, 0 orthogonal. A zero vector gives 0.
// Shapes: (batch, ..., d) -> (batch, ...) for axis=-1. Example (Keras docstring):
//   kiln::losses::CosineSimilarity({.axis = 1})({{0.f, 1.f}, {1.f, 1.f}}, {{1.f, 0.f}, {1.f, 1.f}})  // -0.5
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

struct CosineSimilarityOptions {
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name;
  KILN_FIELDS(CosineSimilarityOptions, axis)
};

/// Per-sample negative cosine similarity along `axis`.
Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int axis = -1);
/// x / max(||x||_2, 1e-7) along `axis` (keras.ops.normalize, order 2).
Tensor l2_normalize(const Tensor& x, int axis = -1);

class CosineSimilarity : public Loss {
 public:
  using Options = CosineSimilarityOptions;
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CosineSimilarity"; }
  Config get_config() const override;
  int axis() const { return o_.axis; }

 private:
  CosineSimilarityOptions o_;
};

}  // namespace kiln::losses
