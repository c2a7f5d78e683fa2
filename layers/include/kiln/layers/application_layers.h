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

struct ApplicationLayerOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ApplicationLayerOptions)
};

class LayerScaleImpl : public Layer {
 public:
  LayerScaleImpl(double init_values, int64_t projection_dim, ApplicationLayerOptions options = {});
  std::string class_name() const override { return "LayerScale"; }
  Config get_config() const override;
  using Options = ApplicationLayerOptions;
  const Options& options() const { return o_; }
  KILN_ARGS(LayerScaleImpl, init_values_, projection_dim_)
  static constexpr const char* keras_module = "keras.src.applications.convnext";
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  const Variable& gamma() const { return gamma_; }

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

class StochasticDepthImpl : public Layer {
 public:
  explicit StochasticDepthImpl(double drop_path_rate, ApplicationLayerOptions options = {});
  std::string class_name() const override { return "StochasticDepth"; }
  Config get_config() const override;
  using Options = ApplicationLayerOptions;
  const Options& options() const { return o_; }
  KILN_ARGS(StochasticDepthImpl, drop_path_rate_)
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

class CustomScaleLayerImpl : public Layer {
 public:
  explicit CustomScaleLayerImpl(double scale, ApplicationLayerOptions options = {});
  std::string class_name() const override { return "CustomScaleLayer"; }
  Config get_config() const override;
  using Options = ApplicationLayerOptions;
  const Options& options() const { return o_; }
  KILN_ARGS(CustomScaleLayerImpl, scale_)
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
