#pragma once
// Layers that pass their input through unchanged.
//   L::Identity()                        y = x
//   L::ActivityRegularization(0.01, 0)   y = x, and adds l1·Σ|x| + l2·Σx² (divided
//                                        by the batch size, as Keras) to losses()
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Identity and ActivityRegularization: only the base-layer arguments.
struct IdentityOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(IdentityOptions)
};

/// Passes its input through unchanged, y = x (Keras's `Identity`). No weights. Users create
/// it through the handle `kiln::layers::Identity()`.
class IdentityImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit IdentityImpl(IdentityOptions options = {});
  std::string class_name() const override { return "Identity"; }
  Config get_config() const override;
  using Options = IdentityOptions;  ///< The options struct the constructor takes.
  const IdentityOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(IdentityImpl)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override { return x; }
  using Layer::call;

 private:
  IdentityOptions o_;
};

KILN_LAYER_HANDLE(Identity);

/// Passes its input through and adds l1·Σ|x| + l2·Σx², divided by the batch size, to
/// losses() (Keras's `ActivityRegularization`). No weights; output shape = input shape.
/// Users create it through the handle `kiln::layers::ActivityRegularization(l1, l2)`.
class ActivityRegularizationImpl : public Layer {
 public:
  /// `l1` and `l2` weigh the two penalties (default 0).
  explicit ActivityRegularizationImpl(double l1 = 0.0, double l2 = 0.0, IdentityOptions options = {});
  std::string class_name() const override { return "ActivityRegularization"; }
  Config get_config() const override;
  using Options = IdentityOptions;  ///< The options struct the constructor takes.
  const IdentityOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ActivityRegularizationImpl, l1_, l2_)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override { return x; }
  using Layer::call;

 private:
  double l1_, l2_;
  IdentityOptions o_;
};

KILN_LAYER_HANDLE(ActivityRegularization);

}  // namespace kiln::layers
