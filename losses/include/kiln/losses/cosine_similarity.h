#pragma once
/// @class kiln::losses::CosineSimilarity
/// CosineSimilarity loss (keras.losses.CosineSimilarity).
///
/// @code{.unparsed}
///   loss = -sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis)
/// @endcode
///
/// In [-1, 1]: -1 means the same direction, 0 orthogonal. A zero vector gives 0.
/// Shapes: (batch, ..., d) -> (batch, ...) for axis=-1. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::CosineSimilarity({.axis = 1})({{0.f, 1.f}, {1.f, 1.f}}, {{1.f, 0.f}, {1.f, 1.f}})  // -0.5
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Options of CosineSimilarity (keras.losses.CosineSimilarity's arguments and defaults).
struct CosineSimilarityOptions {
  int axis = -1;  ///< The axis the similarity is computed along.
  std::string reduction = "sum_over_batch_size";  ///< How the per-sample losses reduce; see kiln::LossOptions.
  std::string name;  ///< Empty gives "cosine_similarity".
  KILN_FIELDS(CosineSimilarityOptions, axis)
};

/// Per-sample negative cosine similarity along `axis`.
Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int axis = -1);
/// x / max(||x||_2, 1e-7) along `axis` (keras.ops.normalize, order 2).
Tensor l2_normalize(const Tensor& x, int axis = -1);

class CosineSimilarity : public Loss {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = CosineSimilarityOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CosineSimilarity"; }
  Config get_config() const override;
  /// options.axis.
  int axis() const { return o_.axis; }

 private:
  CosineSimilarityOptions o_;
};

}  // namespace kiln::losses
