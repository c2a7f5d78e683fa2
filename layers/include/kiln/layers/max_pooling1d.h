#pragma once
// MaxPooling1D: the maximum over 1D windows (see base_pooling.h).
//   L::MaxPooling1D(2);
#include "kiln/layers/base_pooling.h"

namespace kiln::layers {

/// Users create it through the handle `kiln::layers::MaxPooling1D(pool_size, {...})`
/// (Keras's `MaxPooling1D`: pool_size 2, strides = pool_size, "valid" padding).
/// (batch, steps, C) -> (batch, new_steps, C).
class MaxPooling1DImpl : public PoolingLayerImpl<MaxPooling1DImpl, 1, /*IsMax=*/true> {
 public:
  /// Takes `pool_size` (default 2) and the options.
  using PoolingLayerImpl::PoolingLayerImpl;
};

KILN_LAYER_HANDLE(MaxPooling1D);
using MaxPool1D = MaxPooling1D;  ///< Keras's alias of MaxPooling1D.

}  // namespace kiln::layers
