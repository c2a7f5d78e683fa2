#pragma once
// AveragePooling2D: the mean over 2D windows (see base_pooling.h).
//   L::AveragePooling2D(3, {.strides = 1, .padding = "same"});
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

class AveragePooling2DImpl : public PoolingLayerImpl<AveragePooling2DImpl, 2, /*IsMax=*/false> {
 public:
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(AveragePooling2D);
using AvgPool2D = AveragePooling2D;

}  // namespace kiln::layers
