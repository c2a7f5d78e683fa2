#pragma once
// AveragePooling2D: the mean over 2D windows (see base_pooling.h).
//   L::AveragePooling2D(3, {.strides = 1, .padding = "same"});
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

/// Users create it through the handle `kiln::layers::AveragePooling2D(pool_size, {...})`
/// (Keras's `AveragePooling2D`: pool_size (2, 2), strides = pool_size, "valid" padding).
/// (batch, H, W, C) -> (batch, OH, OW, C).
class AveragePooling2DImpl : public PoolingLayerImpl<AveragePooling2DImpl, 2, /*IsMax=*/false> {
 public:
  /// Takes `pool_size` (default 2: 2x2) and the options.
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(AveragePooling2D);
using AvgPool2D = AveragePooling2D;  ///< Keras's alias of AveragePooling2D.

}  // namespace kiln::layers
