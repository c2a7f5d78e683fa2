#pragma once
// Norm clipping as tf.clip_by_norm / tf.clip_by_global_norm, with TF's formulas,
// differentiable like any other op. Usual use: clipping gradients before an update.
//   auto [clipped, norm] = kiln::clip_by_global_norm(grads, 5.0);
#include <optional>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {

/// t * clip_norm / max(l2norm(t), clip_norm), the L2 norm taken over `axes`
/// (all axes by default, kept as size 1 so each slice is clipped on its own).
/// t is unchanged where its norm is <= clip_norm; a zero tensor stays zero with
/// a finite gradient. clip_norm must be > 0.
///   kiln::clip_by_norm(Tensor{3.f, 4.f}, 1.0)   // [0.6, 0.8]
Tensor clip_by_norm(const Tensor& t, double clip_norm, Axes axes = {});

/// sqrt(sum over tensors of sum(t²)), skipping undefined entries (tf.linalg.global_norm).
Tensor global_norm(const std::vector<Tensor>& tensors);

/// What clip_by_global_norm() returns (tf.clip_by_global_norm's pair).
struct ClippedByGlobalNorm {
  std::vector<Tensor> list;  ///< t * clip_norm / max(global_norm, clip_norm), undefined entries kept undefined
  Tensor global_norm;        ///< the norm used (use_norm when given)
};
/// Scales every tensor by the same clip_norm / max(global_norm, clip_norm), so the
/// list's global norm is at most clip_norm and the directions are kept. When
/// use_norm is given it replaces the computed norm. A non-finite norm makes every
/// entry nan, as in TF.
ClippedByGlobalNorm clip_by_global_norm(const std::vector<Tensor>& tensors, double clip_norm,
                                        std::optional<Tensor> use_norm = std::nullopt);

}  // namespace kiln
