#pragma once
// Private: what Keras 3.15's colour layers share (base_image_preprocessing_layer.py's
// _transform_value_range, the layers' own _set_value_range, the JAX backend's
// rgb_to_grayscale), on channels_last batches (B, H, W, C).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::layers::detail {

/// Throws ValueError unless `v` holds two numbers; sorts them when `sort` (Keras sorts
/// value_range in most colour layers, not in all).
void check_color_value_range(const std::string& cls, std::vector<double>& v, bool sort);

/// Keras's _transform_value_range: x from [from_lo, from_hi] to [to_lo, to_hi], computed in
/// x's dtype as (x - from_lo) / (from_hi - from_lo) · (to_hi - to_lo) + to_lo; x itself
/// when the ranges are equal.
Tensor transform_value_range(const Tensor& x, double from_lo, double from_hi, double to_lo, double to_hi);

/// One uniform draw in [lo, hi) per image of x (B, H, W, C), shaped (B, 1, 1, 1), in x's dtype.
Tensor per_image_uniform(const Tensor& x, double lo, double hi, std::optional<uint64_t> seed);

/// ITU-R 601 luma 0.2989 R + 0.5870 G + 0.1140 B as (B, H, W, 1); a one-channel image is
/// returned as it is. Throws ValueError for other channel counts, naming `layer`.
Tensor rgb_to_grayscale(const std::string& layer, const Tensor& images);

}  // namespace kiln::layers::detail
