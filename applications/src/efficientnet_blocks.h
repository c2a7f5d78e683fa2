#pragma once
// What EfficientNet (efficientnet.py) and EfficientNetV2 (efficientnet_v2.py)
// share: their kernel initializers, the squeeze-excite branch, the residual
// with its drop-connect Dropout, and the head.
#include <string>

#include "app_builder.h"

namespace kiln::applications::detail {

/// CONV_KERNEL_INITIALIZER: VarianceScaling(2, "fan_out", "truncated_normal").
InitializerArg conv_kernel_initializer();
/// DENSE_KERNEL_INITIALIZER: VarianceScaling(1/3, "fan_out", "uniform").
InitializerArg dense_kernel_initializer();

/// A BatchNormalization on the channels axis (3) with Keras's default epsilon.
Tensor efficientnet_bn(const Tensor& x, double momentum, const std::string& name);

/// The squeeze-excite phase: global average pooling, reshaped to (1, 1,
/// filters), reduced to max(1, int(filters_in * se_ratio)) channels and
/// expanded back through a sigmoid, multiplied into x.
Tensor squeeze_excite(const Tensor& x, int64_t filters_in, int64_t filters, double se_ratio,
                      const std::string& activation, const std::string& name);

/// The residual: Dropout(drop_rate, noise_shape (None, 1, 1, 1)) when drop_rate
/// is not 0 (a whole sample's branch dropped at once), then added to the block's input.
Tensor drop_connect_add(const Tensor& x, const Tensor& inputs, double drop_rate, const std::string& name);

/// The head both families build after their blocks.
struct EfficientNetTop {
  int64_t filters;  ///< top_conv's filters.
  double bn_momentum;  ///< top_bn's momentum.
  double dropout_rate;  ///< top_dropout's rate; 0 leaves the layer out.
  InitializerArg dense_bias_initializer;  ///< The classifier's bias initializer.
};

/// top_conv, top_bn and top_activation, then the classifier (avg_pool,
/// top_dropout, predictions) or `pooling` (avg_pool, max_pool); makes the model
/// and loads its weights.
ModelPtr efficientnet_top(const Tensor& input, Tensor x, const EfficientNetTop& top, const std::string& activation,
                          const ApplicationOptions& o, const std::string& default_name);

}  // namespace kiln::applications::detail
