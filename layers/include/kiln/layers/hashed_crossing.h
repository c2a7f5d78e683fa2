#pragma once
// HashedCrossing: crosses categorical features with the hashing trick (Keras's `HashedCrossing`).
//   L::HashedCrossing cross(5);
//   cross({a, b})                          // a, b: (batch,) integers -> (batch,) bins in [0, 5)
//   cross->cross_features({std::vector<std::string>{"A", "B"}, std::vector<int64_t>{101, 101}})
//                                          // Keras's docstring: {1, 4}
// As tf.sparse.cross_hashed computes it: per sample, h = 0xDECAFCAFFE, then for each
// feature in order h = FingerprintCat64(h, f) with f the integer's own 64 bits or
// Fingerprint64 of the string; the bin is h % num_bins. Inputs: at least two, all
// of one shape, (), (batch,) or (batch, 1), integer dtypes (int32 and uint8 count as
// their int64 values) or strings. output_mode "int" gives int64 bins of the inputs'
// shape; "one_hot" encodes them over num_bins (float32). cross_features() takes the
// features as vectors. Not differentiable; dense outputs only.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of HashedCrossing (Keras's `HashedCrossing` constructor arguments after num_bins).
struct HashedCrossingOptions {
  std::string output_mode = "int";  ///< "int" or "one_hot".
  bool sparse = false;  ///< Only false: outputs are dense.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(HashedCrossingOptions, output_mode, sparse)
};

/// One feature of HashedCrossingImpl::cross_features: one value per sample, integers or strings.
using CrossFeature = std::variant<std::vector<int64_t>, std::vector<std::string>>;

/// Crosses features into hash bins (Keras's `HashedCrossing`; see above). Users create
/// it through the handle `kiln::layers::HashedCrossing(num_bins, {...})`.
class HashedCrossingImpl : public Layer {
 public:
  using Options = HashedCrossingOptions;  ///< The options struct the constructor takes.
  /// `num_bins`: the number of bins.
  explicit HashedCrossingImpl(int64_t num_bins, HashedCrossingOptions options = {});
  std::string class_name() const override { return "HashedCrossing"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(HashedCrossingImpl, num_bins_)
  const HashedCrossingOptions& options() const { return o_; }  ///< The options this layer was created with.
  bool takes_list() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  /// The layer's output for features of `n` samples each (shape (n,)): integers, or
  /// strings (what a call on string tensors gives once Kiln has them).
  Tensor cross_features(const std::vector<CrossFeature>& features) const;

 protected:
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  using Layer::call;
  void build(const std::vector<Shape>& input_shapes) override;
  using Layer::build;

 private:
  /// The bins of per-feature 64-bit hashes, sample by sample, encoded to `shape`.
  Tensor output(const std::vector<std::vector<uint64_t>>& hashes, const Shape& shape) const;
  void check_shapes(const std::vector<Shape>& shapes) const;
  int64_t num_bins_;
  HashedCrossingOptions o_;
};

KILN_LAYER_HANDLE(HashedCrossing);

}  // namespace kiln::layers
