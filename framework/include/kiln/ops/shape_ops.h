#pragma once
// keras.ops's array manipulation: reordering, repeating, joining, splitting,
// padding and picking entries. Every op is composed of differentiable ops
// (slice, gather, concat, transpose, where), so gradients and devices come with them.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.flip: x with the order of its entries reversed along `axis` (every axis when none).
Tensor flip(const Tensor& x, std::optional<std::vector<int>> axis = std::nullopt);
/// keras.ops.fliplr: flip(x, 1); x needs at least 2 axes.
Tensor fliplr(const Tensor& x);
/// keras.ops.flipud: flip(x, 0); x needs at least 1 axis.
Tensor flipud(const Tensor& x);
/// keras.ops.rot90: x rotated k times by 90 degrees in the plane of `axes`, from the first axis towards the second.
Tensor rot90(const Tensor& x, int k = 1, std::pair<int, int> axes = {0, 1});
/// keras.ops.roll: entries shifted by `shift` along `axis` (one shift per axis, or one for all),
/// wrapping around; with no axis the flattened tensor is rolled and reshaped back.
Tensor roll(const Tensor& x, std::vector<int64_t> shift, std::optional<std::vector<int>> axis = std::nullopt);
/// keras.ops.moveaxis: the axes `source` moved to positions `destination`, the others kept in order.
Tensor moveaxis(const Tensor& x, std::vector<int> source, std::vector<int> destination);
/// keras.ops.swapaxes: axis1 and axis2 exchanged.
Tensor swapaxes(const Tensor& x, int axis1, int axis2);
/// keras.ops.ravel: the entries as a 1-D tensor, in row-major order.
Tensor ravel(const Tensor& x);
/// keras.ops.repeat: each entry repeated `repeats` times (one count, or one per entry along axis)
/// along `axis`; with no axis over the flattened tensor.
Tensor repeat(const Tensor& x, std::vector<int64_t> repeats, std::optional<int> axis = std::nullopt);
/// keras.ops.unstack: the slices x[..., i, ...] along `axis`; `num`, when given, must equal that axis's size.
std::vector<Tensor> unstack(const Tensor& x, std::optional<int64_t> num = std::nullopt, int axis = 0);
/// keras.ops.append: x1 and x2 joined along `axis`, or both flattened and joined when none.
Tensor append(const Tensor& x1, const Tensor& x2, std::optional<int> axis = std::nullopt);

/// keras.ops.hstack: 1-D tensors joined along axis 0, others along axis 1.
Tensor hstack(const std::vector<Tensor>& xs);
/// keras.ops.vstack: tensors joined along axis 0, 1-D ones first made rows (1, N).
Tensor vstack(const std::vector<Tensor>& xs);
/// keras.ops.dstack: tensors joined along axis 2, first made 3-D: (N,) -> (1, N, 1), (M, N) -> (M, N, 1).
Tensor dstack(const std::vector<Tensor>& xs);

/// How array_split and its kin cut an axis: into `sections` parts, or at the given indices.
struct SplitSpec {
  std::optional<int64_t> sections;  ///< Number of parts.
  std::vector<int64_t> indices;  ///< Cut points along the axis (used when sections is none).
  /// `n` parts.
  SplitSpec(int64_t n) : sections(n) {}
  /// Cut at these indices.
  SplitSpec(std::vector<int64_t> at) : indices(std::move(at)) {}
  /// Cut at these indices.
  SplitSpec(std::initializer_list<int64_t> at) : indices(at) {}
};
/// keras.ops.array_split: x cut along `axis` into parts (the first len % n ones one longer) or at indices.
std::vector<Tensor> array_split(const Tensor& x, SplitSpec indices_or_sections, int axis = 0);
/// keras.ops.hsplit: split along axis 1 (axis 0 for 1-D); sections must divide the axis.
std::vector<Tensor> hsplit(const Tensor& x, SplitSpec indices_or_sections);
/// keras.ops.vsplit: split along axis 0 of a tensor with at least 2 axes; sections must divide it.
std::vector<Tensor> vsplit(const Tensor& x, SplitSpec indices_or_sections);
/// keras.ops.dsplit: split along axis 2 of a tensor with at least 3 axes; sections must divide it.
std::vector<Tensor> dsplit(const Tensor& x, SplitSpec indices_or_sections);

/// keras.ops.pad's `pad_width`: one (before, after) pair per axis, or one pair for every axis.
using PadWidth = std::vector<std::pair<int64_t, int64_t>>;
/// keras.ops.pad: x padded by pad_width. mode "constant" (constant_values, default 0),
/// "reflect" (mirrored without the edge), "symmetric" (mirrored with it), "edge" or "wrap".
Tensor pad(const Tensor& x, const PadWidth& pad_width, const std::string& mode = "constant",
           std::optional<double> constant_values = std::nullopt);

/// keras.ops.take: x's entries along `axis` at integer `indices` (negative ones count from the end);
/// with no axis, from the flattened x. Shape x.shape[:axis] + indices.shape + x.shape[axis+1:].
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis = std::nullopt);
/// keras.ops.take_along_axis: out[..., i, ...] = x[..., indices[..., i, ...], ...] along `axis`;
/// x and indices broadcast on the other axes. With no axis, over the flattened x (indices 1-D).
Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::optional<int> axis = std::nullopt);
/// keras.ops.select: choicelist[i] where condlist[i] is the first true condition, else `default_value`.
Tensor select(const std::vector<Tensor>& condlist, const std::vector<Tensor>& choicelist, double default_value = 0);
/// keras.ops.slice_update: inputs with the block starting at start_indices replaced by updates
/// (starts are clamped so that the block fits, as lax.dynamic_update_slice).
Tensor slice_update(const Tensor& inputs, const std::vector<int64_t>& start_indices, const Tensor& updates);

/// keras.ops.depth_to_space (pixel shuffle): a 4-D x's channels moved into block_size x block_size
/// spatial blocks: (N, H, W, C) -> (N, H*b, W*b, C/b^2), or the same on (N, C, H, W) for "channels_first".
Tensor depth_to_space(const Tensor& x, int64_t block_size, const std::string& data_format = "channels_last");
/// keras.ops.space_to_depth: the inverse of depth_to_space, (N, H, W, C) -> (N, H/b, W/b, C*b^2).
Tensor space_to_depth(const Tensor& x, int64_t block_size, const std::string& data_format = "channels_last");

}  // namespace kiln
