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

struct CategoryEncodingOptions {
  std::string output_mode = "multi_hot";
  bool sparse = false;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(CategoryEncodingOptions, output_mode, sparse)
};

class CategoryEncodingImpl : public Layer {
 public:
  using Options = CategoryEncodingOptions;
  explicit CategoryEncodingImpl(int64_t num_tokens, CategoryEncodingOptions options = {});
  std::string class_name() const override { return "CategoryEncoding"; }
  Config get_config() const override;
  KILN_ARGS(CategoryEncodingImpl, num_tokens_)
  const CategoryEncodingOptions& options() const { return o_; }
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
