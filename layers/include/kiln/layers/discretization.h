#pragma once
// Discretization: buckets continuous values by bin boundaries.
//   L::Discretization({.bin_boundaries = std::vector<double>{0.0, 1.0}})
//       [[-1.5, 0.0, 0.5, 2.0]] -> [[0, 1, 1, 2]]   (int32)
//   L::Discretization d({.num_bins = 4});  d->adapt(data);   // quantile boundaries
// The bucket of x is the number of boundaries b with b <= x (numpy.digitize), compared
// in float32 as Keras does; NaN goes to the last bucket. output_mode "int" (the
// default) gives those indices; "one_hot", "multi_hot" and "count" encode them over
// len(bin_boundaries) + 1 buckets as CategoryEncoding does, in the layer's dtype.
// adapt(data) computes num_bins - 1 boundaries from Keras's approximate quantile
// summary (1 / epsilon buckets, merged and compressed by linear interpolation of the
// cumulative weights), so the boundaries equal Keras's for the same data.
// Not differentiable. Only dense outputs: sparse=true is rejected.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Discretization (Keras's `Discretization` constructor arguments).
struct DiscretizationOptions {
  std::optional<std::vector<double>> bin_boundaries;  ///< The sorted bucket boundaries; none: adapt() computes them.
  std::optional<int64_t> num_bins;  ///< The number of buckets adapt() aims at.
  double epsilon = 0.01;  ///< Error tolerance of adapt()'s quantile summary (1 / epsilon buckets).
  std::string output_mode = "int";  ///< "int", "one_hot", "multi_hot" or "count".
  bool sparse = false;  ///< Only false: outputs are dense.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(DiscretizationOptions, bin_boundaries, num_bins, epsilon, output_mode, sparse)
};

/// Buckets continuous values by bin boundaries (Keras's `Discretization`): the bucket of
/// x is the number of boundaries b <= x (numpy.digitize), NaN the last. "int" (the default)
/// gives int32 indices of the input's shape; "one_hot", "multi_hot" and "count" encode them
/// over len(bin_boundaries) + 1 buckets. adapt(data) computes quantile boundaries as Keras.
/// Not differentiable. Users create it through the handle `kiln::layers::Discretization({...})`.
class DiscretizationImpl : public Layer {
 public:
  using Options = DiscretizationOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options; give bin_boundaries, or num_bins and then adapt().
  explicit DiscretizationImpl(DiscretizationOptions options = {});
  std::string class_name() const override { return "Discretization"; }
  /// Keras's keys: bin_boundaries, num_bins, epsilon, output_mode, sparse, name, dtype.
  Config get_config() const override;
  /// An adapted layer's config holds both num_bins and bin_boundaries (as Keras's).
  static std::shared_ptr<DiscretizationImpl> from_config(const Config& config);
  KILN_ARGS(DiscretizationImpl)
  const DiscretizationOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// Sets bin_boundaries from the quantiles of all of `data`'s values (needs num_bins).
  void adapt(const Tensor& data);
  /// The boundaries in use (empty before adapt when only num_bins was given).
  std::vector<double> bin_boundaries() const { return o_.bin_boundaries.value_or(std::vector<double>{}); }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  DiscretizationOptions o_;
};

KILN_LAYER_HANDLE(Discretization);

}  // namespace kiln::layers
