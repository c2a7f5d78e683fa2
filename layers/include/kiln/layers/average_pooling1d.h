#pragma once
// AveragePooling1D: the mean over 1D windows (see base_pooling.h).
//   L::AveragePooling1D(3, {.strides = 1});
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

/// Users create it through the handle `kiln::layers::AveragePooling1D(pool_size, {...})`
/// (Keras's `AveragePooling1D`: pool_size 2, strides = pool_size, "valid" padding).
/// (batch, steps, C) -> (batch, new_steps, C).
class AveragePooling1DImpl : public PoolingLayerImpl<AveragePooling1DImpl, 1, /*IsMax=*/false> {
 public:
  /// Takes `pool_size` (default 2) and the options.
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(AveragePooling1D);
using AvgPool1D = AveragePooling1D;  ///< Keras's alias of AveragePooling1D.

}  // namespace kiln::layers
