#pragma once
// Timestep masks, as Keras attaches them to tensors (`_keras_mask`).
//
// A layer that produces a mask (Embedding(mask_zero=true), Masking) attaches it
// to its output; every following layer whose supports_masking() is true receives
// it (Layer::call_masked) and passes on its compute_mask(); a layer that does not
// support masking drops it, as Keras 3 does. Losses and metrics read the mask of
// y_pred, so padded timesteps count for nothing.
//
//   auto e = kiln::layers::Embedding(100, 8, {.mask_zero = true});
//   kiln::Tensor y = e(ids);                  // ids: (batch, time) int
//   kiln::Tensor m = kiln::get_keras_mask(y); // (batch, time) bool, ids != 0
#include "kiln/core/tensor.h"

namespace kiln {

/// The mask attached to `t`; an undefined tensor when there is none.
Tensor get_keras_mask(const Tensor& t);
/// Attaches `mask` to `t` (shared by every handle of `t`); an undefined mask removes it.
void set_keras_mask(const Tensor& t, const Tensor& mask);

}  // namespace kiln
