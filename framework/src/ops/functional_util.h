#pragma once
// Private helpers of the functional control flow (kiln/ops/functional_ops.h):
// slicing a list of tensors along an axis, stacking per-step outputs, and the
// checks that keep a user function's outputs to one shape and dtype.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::functional {

/// "float32 (2, 3)", for messages.
std::string spec(const Tensor& t);
/// "[float32 (2, 3), int32 ()]", for messages.
std::string specs(const std::vector<Tensor>& ts);
/// Throws ValueError naming `op` unless `after` has as many tensors as `before`,
/// each with the same shape and dtype (`what` names `after` in the message).
void check_same_specs(const char* op, const char* what, const std::vector<Tensor>& before,
                      const std::vector<Tensor>& after);
/// The common length of every xs tensor along `axis` (ValueError when they
/// differ, when a tensor has no such axis, or when `length` disagrees); `length`
/// alone when xs is empty (ValueError when neither is given).
int64_t leading_length(const char* op, const std::vector<Tensor>& xs, int axis, std::optional<int64_t> length);
/// xs[j][t] for every j (the axis-0 slice t).
std::vector<Tensor> slices_at(const std::vector<Tensor>& xs, int64_t t);
/// Zeros shaped like one axis-0 slice of each xs tensor.
std::vector<Tensor> zero_slices(const std::vector<Tensor>& xs);
/// The outputs of `fn` with nothing recorded (run to learn their shapes and dtypes).
std::vector<Tensor> probe_outputs(const std::function<std::vector<Tensor>()>& fn);
/// For each probe tensor, an empty stack of it: shape (0, ...probe shape).
std::vector<Tensor> empty_stacks(const std::vector<Tensor>& probe);
/// steps[t][j] stacked over t along a new axis 0, one tensor per j.
std::vector<Tensor> stack_steps(const std::vector<std::vector<Tensor>>& steps);

}  // namespace kiln::functional
