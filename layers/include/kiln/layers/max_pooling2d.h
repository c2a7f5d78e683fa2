#pragma once
// MaxPooling2D: the maximum over 2D windows (see base_pooling.h).
//   L::MaxPooling2D();  // 2x2, stride 2
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

class MaxPooling2DImpl : public PoolingLayerImpl<MaxPooling2DImpl, 2, /*IsMax=*/true> {
 public:
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(MaxPooling2D);
using MaxPool2D = MaxPooling2D;

}  // namespace kiln::layers
