#pragma once
// MaxPooling1D: the maximum over 1D windows (see base_pooling.h).
//   L::MaxPooling1D(2);
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

class MaxPooling1DImpl : public PoolingLayerImpl<MaxPooling1DImpl, 1, /*IsMax=*/true> {
 public:
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(MaxPooling1D);
using MaxPool1D = MaxPooling1D;

}  // namespace kiln::layers
