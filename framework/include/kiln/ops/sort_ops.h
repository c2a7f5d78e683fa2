#pragma once
// Sorting and searching, named as in keras.ops: sort, argsort, top_k,
// in_top_k, searchsorted, digitize, isin and argpartition. Orders are stable and put NaN
// after every number, as JAX does; indices are int32 as on Keras's JAX backend.
//   auto [values, indices] = kiln::top_k(logits, 5);
#include <optional>
#include <string>
#include <utility>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.sort(x, axis=-1): the values sorted ascending along `axis` (NaN
/// last). The gradient flows to each value's original position.
Tensor sort(const Tensor& x, int axis = -1);
/// keras.ops.argsort(x, axis=-1): the int32 positions that sort x along `axis`,
/// stable (ties keep their order) and NaN last. A scalar gives [0].
Tensor argsort(const Tensor& x, int axis = -1);
/// keras.ops.argpartition(x, kth, axis=-1): int32 positions along `axis` (over the
/// flattened values when none) whose first kth + 1 pick the kth + 1 smallest values in
/// ascending order (ties by position), followed by the other positions in increasing
/// order, as JAX computes it.
Tensor argpartition(const Tensor& x, int64_t kth, std::optional<int> axis = -1);
/// keras.ops.top_k(x, k, sorted=True): the k largest values along the last axis,
/// largest first (NaN counts as largest, ties by position), and their int32
/// indices. `sorted` is accepted as Keras does; the values come sorted either way.
std::pair<Tensor, Tensor> top_k(const Tensor& x, int64_t k, bool sorted = true);
/// keras.ops.in_top_k(targets, predictions, k): whether each target class
/// (integer, predictions' leading shape) ranks among the k largest of its row
/// of predictions; a NaN prediction never counts. A bool tensor.
Tensor in_top_k(const Tensor& targets, const Tensor& predictions, int64_t k);
/// keras.ops.searchsorted(sorted_sequence, values, side="left"): for each value,
/// the int32 position in the 1-D sorted_sequence where it would be inserted,
/// before equal entries ("left") or after them ("right").
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, const std::string& side = "left");
/// keras.ops.digitize(x, bins): the int32 index of the bin of each value of x,
/// bins[i - 1] <= x < bins[i] for increasing 1-D bins (bins[i - 1] > x >= bins[i]
/// for decreasing ones).
Tensor digitize(const Tensor& x, const Tensor& bins);
/// keras.ops.isin(x1, x2, assume_unique=False, invert=False): whether each entry of
/// x1 occurs in x2 (NaN never does), negated when `invert`; a bool tensor of x1's shape.
Tensor isin(const Tensor& x1, const Tensor& x2, bool assume_unique = false, bool invert = false);

}  // namespace kiln
