#pragma once
// AveragePooling1D: the mean over 1D windows (see base_pooling.h).
//   L::AveragePooling1D(3, {.strides = 1});
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

class AveragePooling1DImpl : public PoolingLayerImpl<AveragePooling1DImpl, 1, /*IsMax=*/false> {
 public:
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(AveragePooling1D);
using AvgPool1D = AveragePooling1D;

}  // namespace kiln::layers
