#pragma once
// Layers that keras.applications defines for its own models. Keras writes
// them with their Python module (keras.src.applications.*) and their class
// name as registered_name; Kiln reads and writes the same entries.
//   L::LayerScale(1e-6, 96)      y = x · gamma; weight "variable" (Keras's own
//                                name for it) of shape (projection_dim,), filled
//                                with init_values (ConvNeXt)
//   L::StochasticDepth(0.1)      in training, each sample's residual path is kept
//                                with probability 1 − rate and scaled by
//                                1 / (1 − rate); identity in inference (ConvNeXt)
//   L::CustomScaleLayer(0.17)    y = x[0] + x[1] · scale on a list of two equal
//                                shapes (InceptionResNetV2)
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of the keras.applications layers: only the base-layer arguments.
struct ApplicationLayerOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ApplicationLayerOptions)
};

/// Per-channel learned scale y = x · gamma (keras.applications' ConvNeXt `LayerScale`).
/// gamma has shape (projection_dim,), is filled with init_values and is saved as the
/// weight "variable", Keras's own name. Output shape = input shape (last axis projection_dim).
/// Users create it through the handle `kiln::layers::LayerScale(init_values, projection_dim)`.
class LayerScaleImpl : public Layer {
 public:
  /// `init_values` fills gamma; `projection_dim` is its length (the input's last axis).
  LayerScaleImpl(double init_values, int64_t projection_dim, ApplicationLayerOptions options = {});
  std::string class_name() const override { return "LayerScale"; }
  Config get_config() const override;
  using Options = ApplicationLayerOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(LayerScaleImpl, init_values_, projection_dim_)
  /// The Python module Keras writes for this class (registered_name is the class name).
  static constexpr const char* keras_module = "keras.src.applications.convnext";
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  const Variable& gamma() const { return gamma_; }  ///< The learned scale, (projection_dim,); undefined before build.

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  double init_values_;
  int64_t projection_dim_;
  Options o_;
  Variable gamma_;
};

KILN_LAYER_HANDLE(LayerScale);

/// Drops each sample's residual path at random in training (keras.applications' ConvNeXt
/// `StochasticDepth`): a sample's input is kept with probability 1 − rate and scaled by
/// 1 / (1 − rate), else zeroed; identity in inference. Output shape = input shape; no weights.
/// Users create it through the handle `kiln::layers::StochasticDepth(drop_path_rate)`.
class StochasticDepthImpl : public Layer {
 public:
  /// `drop_path_rate` is the probability of dropping a sample's path, in [0, 1).
  explicit StochasticDepthImpl(double drop_path_rate, ApplicationLayerOptions options = {});
  std::string class_name() const override { return "StochasticDepth"; }
  Config get_config() const override;
  using Options = ApplicationLayerOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(StochasticDepthImpl, drop_path_rate_)
  /// The Python module Keras writes for this class (registered_name is the class name).
  static constexpr const char* keras_module = "keras.src.applications.convnext";
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double drop_path_rate_;
  Options o_;
};

KILN_LAYER_HANDLE(StochasticDepth);

/// y = x[0] + x[1] · scale on a list of two tensors of equal shape (keras.applications'
/// InceptionResNetV2 `CustomScaleLayer`); the output has their shape; no weights.
/// Users create it through the handle `kiln::layers::CustomScaleLayer(scale)`.
class CustomScaleLayerImpl : public Layer {
 public:
  /// `scale` multiplies the second input.
  explicit CustomScaleLayerImpl(double scale, ApplicationLayerOptions options = {});
  std::string class_name() const override { return "CustomScaleLayer"; }
  Config get_config() const override;
  using Options = ApplicationLayerOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(CustomScaleLayerImpl, scale_)
  /// The Python module Keras writes for this class (registered_name is the class name).
  static constexpr const char* keras_module = "keras.src.applications.inception_resnet_v2";
  bool takes_list() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;

 protected:
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  using Layer::call;

 private:
  double scale_;
  Options o_;
};

KILN_LAYER_HANDLE(CustomScaleLayer);

}  // namespace kiln::layers
