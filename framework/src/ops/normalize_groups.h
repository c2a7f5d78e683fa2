#pragma once
// Private: the fused normalization behind LayerNormalization,
// GroupNormalization (channels last) and RMSNormalization, for the layers.
#include <cstdint>
#include <optional>

#include "kiln/core/tensor.h"

namespace kiln::ops {

/// x's layout for normalize_groups: contiguous (batch, spatial, groups, per_group),
/// statistics per (batch, group), the affine per channel (groups · per_group).
struct NormGroups {
  int64_t batch = 0, spatial = 1, groups = 1, per_group = 0;
  bool center = true;  ///< Subtract the mean (false: RMS normalization).
};

/// y = (x − m) · rsqrt(mean((x − m)²) + eps) · gamma + beta per group, m the
/// group's mean (0 without center); gamma and beta hold groups · per_group values
/// in any shape, or are undefined. One backend kernel forward and backward, with
/// a gradient needing only x and the saved statistics (composed from ops under
/// an outer tape). std::nullopt where no kernel applies (a 16-bit dtype, a
/// backend without one, a graph written out for ONNX): the caller composes.
std::optional<Tensor> normalize_groups(const Tensor& x, const Tensor& gamma, const Tensor& beta, const NormGroups& g,
                                       double epsilon);

}  // namespace kiln::ops
