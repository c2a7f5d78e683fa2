#pragma once
// CategoryEncoding: integer category indices in [0, num_tokens) to dense vectors.
//   L::CategoryEncoding(4, {.output_mode = "one_hot"})   (batch,) -> (batch, 4)
//   L::CategoryEncoding(4)                               (batch, n) -> (batch, 4), multi-hot
//   L::CategoryEncoding(4, {.output_mode = "count"})     [[0, 1, 1, 3]] -> [[1, 2, 0, 1]]
// output_mode: "multi_hot" (the default; "binary" is its old name): 1 at every index
// present in a sample; "one_hot": one vector per index (a last axis of size 1 is
// replaced); "count": how often each index occurs in the sample. Multi-hot and count
// reduce axis 1 (axis 0 of a rank-1 input, as Keras's JAX backend does). An index
// outside [0, num_tokens) encodes as zeros. Outputs have the layer's dtype
// (float32); not differentiable. Only dense outputs: sparse=true is rejected.
#include <cstdint>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of CategoryEncoding (Keras's `CategoryEncoding` constructor arguments after num_tokens).
struct CategoryEncodingOptions {
  std::string output_mode = "multi_hot";  ///< "multi_hot" (default; "binary" is its old name), "one_hot" or "count".
  bool sparse = false;  ///< Only false: outputs are dense.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(CategoryEncodingOptions, output_mode, sparse)
};

/// Encodes integer category indices in [0, num_tokens) as dense vectors (Keras's
/// `CategoryEncoding`): "multi_hot" 1 at every index present in a sample, "one_hot" one
/// vector per index, "count" how often each occurs; (batch, n) -> (batch, num_tokens).
/// Indices outside the range encode as zeros. Not differentiable. Users create it through
/// the handle `kiln::layers::CategoryEncoding(num_tokens, {...})`.
class CategoryEncodingImpl : public Layer {
 public:
  using Options = CategoryEncodingOptions;  ///< The options struct the constructor takes.
  /// `num_tokens`: the number of categories.
  explicit CategoryEncodingImpl(int64_t num_tokens, CategoryEncodingOptions options = {});
  std::string class_name() const override { return "CategoryEncoding"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(CategoryEncodingImpl, num_tokens_)
  const CategoryEncodingOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t num_tokens_;
  CategoryEncodingOptions o_;
};

KILN_LAYER_HANDLE(CategoryEncoding);

}  // namespace kiln::layers
