#pragma once
// MaxPooling2D: the maximum over 2D windows (see base_pooling.h).
//   L::MaxPooling2D();  // 2x2, stride 2
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

/// Users create it through the handle `kiln::layers::MaxPooling2D(pool_size, {...})`
/// (Keras's `MaxPooling2D`: pool_size (2, 2), strides = pool_size, "valid" padding).
/// (batch, H, W, C) -> (batch, OH, OW, C).
class MaxPooling2DImpl : public PoolingLayerImpl<MaxPooling2DImpl, 2, /*IsMax=*/true> {
 public:
  /// Takes `pool_size` (default 2: 2x2) and the options.
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(MaxPooling2D);
using MaxPool2D = MaxPooling2D;  ///< Keras's alias of MaxPooling2D.

}  // namespace kiln::layers
